//! Embeds every `assets/*.spv` (with its source, when present) as a built-in example, and
//! every `assets/lessons/*.md` as a lesson.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    // Read at run time: a build script's binary can be reused for a checkout at another path
    // (the same package in another folder), and `env!` would point it at the first one.
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let assets = Path::new(&manifest).join("../assets");
    println!("cargo:rerun-if-changed={}", assets.display());
    let mut names: Vec<String> = std::fs::read_dir(&assets)
        .map(|rd| {
            rd.filter_map(Result::ok)
                .filter_map(|e| e.file_name().into_string().ok())
                .filter(|n| n.ends_with(".spv"))
                .collect()
        })
        .unwrap_or_else(|e| panic!("cannot read the examples in {}: {e}", assets.display()));
    names.sort();
    let mut out = String::from(
        "/// (name, SPIR-V bytes, source text)\npub static EXAMPLES: &[(&str, &[u8], &str)] = &[\n",
    );
    for n in &names {
        let stem = n.trim_end_matches(".spv");
        let spv = assets.join(n);
        let src = ["comp", "spvasm"]
            .iter()
            .map(|e| assets.join(format!("{stem}.{e}")))
            .find(|p| p.exists());
        let src_expr = src.map_or_else(
            || "\"\"".to_string(),
            |p| format!("include_str!({:?})", p.display().to_string()),
        );
        let _ = writeln!(
            out,
            "    ({stem:?}, include_bytes!({:?}), {src_expr}),",
            spv.display().to_string()
        );
    }
    out.push_str("];\n");
    // Lessons: assets/lessons/*.md, in file-name order.
    let lessons_dir = assets.join("lessons");
    println!("cargo:rerun-if-changed={}", lessons_dir.display());
    let mut lessons: Vec<String> = std::fs::read_dir(&lessons_dir)
        .map(|rd| {
            rd.filter_map(Result::ok)
                .filter_map(|e| e.file_name().into_string().ok())
                .filter(|n| n.ends_with(".md"))
                .collect()
        })
        .unwrap_or_else(|e| panic!("cannot read the lessons in {}: {e}", lessons_dir.display()));
    lessons.sort();
    out.push_str("/// (slug, lesson text)\npub static LESSONS: &[(&str, &str)] = &[\n");
    for n in &lessons {
        let _ = writeln!(
            out,
            "    ({:?}, include_str!({:?})),",
            n.trim_end_matches(".md"),
            lessons_dir.join(n).display().to_string()
        );
    }
    out.push_str("];\n");
    let dest = Path::new(&std::env::var("OUT_DIR").unwrap_or_default()).join("examples.rs");
    if let Err(e) = std::fs::write(&dest, out) {
        println!("cargo:warning=cannot write {}: {e}", dest.display());
    }
}
