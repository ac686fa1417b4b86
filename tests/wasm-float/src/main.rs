//! Prints the float suite's digest for this (native) build.

fn main() {
    print!("{}", lanescope_wasm_float::digest());
}
