pub mod glsl450;
pub mod value;
