//! What the AmberScript test files share: where the scripts are, and their shaders prebuilt.

use lanescope_front::amber::{Compile, CompileError, ShaderFormat};
use std::path::{Path, PathBuf};

pub fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/amber")
}

pub fn words_of(path: &Path) -> Vec<u32> {
    std::fs::read(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Prebuilt modules by shader name; files relative to the scripts.
pub struct Prebuilt;
impl Compile for Prebuilt {
    fn compile(
        &self,
        _: ShaderFormat,
        source: &str,
        _: Option<&str>,
        name: &str,
    ) -> Result<Vec<u32>, CompileError> {
        // The script embeds the same source the module was built from.
        let src = ["comp", "spvasm"]
            .iter()
            .find_map(|e| std::fs::read_to_string(dir().join(format!("shaders/{name}.{e}"))).ok())
            .ok_or_else(|| CompileError::Failed(format!("no source for `{name}`")))?;
        if source.trim() != src.trim() {
            return Err(CompileError::Failed(format!(
                "the script's `{name}` differs from shaders/: rerun rebuild.sh"
            )));
        }
        Ok(words_of(&dir().join(format!("shaders/{name}.spv"))))
    }

    fn read_file(&self, path: &str) -> Option<Result<Vec<u8>, String>> {
        Some(std::fs::read(dir().join(path)).map_err(|e| e.to_string()))
    }
}
