//! Any text as a permalink fragment (`#example=…&module=…&step=…`): parsing ends in a link or an
//! error naming the field, never a panic, a hang or an unbounded inflation; a link it accepts
//! writes a fragment that reads back the same.
#![no_main]

use lanescope::gui::permalink::Link;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(link) = Link::parse(text) else {
        return;
    };
    let (fragment, complete) = link.format();
    if complete {
        assert_eq!(Link::parse(&fragment), Ok(link), "{fragment}");
    }
});
