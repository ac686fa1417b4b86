//! The app's doors into egui's generic widgets that it calls from many places: each call with
//! its own closure made its own copy of egui's code, so these take the closure as a trait
//! object and the generic code is made once.

/// A menu button titled `title` (a submenu inside a menu) whose entries `add` lays out; its
/// response. egui's menu code was ~20 KB of the browser's module per menu before it went
/// through here.
pub fn menu(ui: &mut egui::Ui, title: &str, add: &mut dyn FnMut(&mut egui::Ui)) -> egui::Response {
    ui.menu_button(title, |ui| add(ui)).response
}
