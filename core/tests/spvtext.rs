//! SPIR-V assembly text (`lanescope_core::spvtext`): parity with spirv-dis / spirv-as on fixtures
//! those tools made (`data/spvtext/`, rebuilt by its `build.sh`), round trips over every module in
//! the repository, errors that say where, and inputs that must not panic.

use std::path::{Path, PathBuf};

use lanescope_core::spvtext::{
    assemble, disassemble, AsmError, AsmOptions, DisOptions, TargetEnv, GENERATOR,
};

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn fixtures() -> PathBuf {
    manifest().join("tests/data/spvtext")
}

fn repo_root() -> PathBuf {
    manifest().join("..")
}

fn read_words(path: &Path) -> Vec<u32> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(bytes.len() % 4, 0, "{}", path.display());
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn read_text(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn files_with(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.to_string_lossy().ends_with(suffix) {
                found.push(p);
            }
        }
    }
    found.sort();
    found
}

/// A repository path flattened into a fixture name (`a/b/c.spv` as `a__b__c.spv`).
fn unflatten(name: &str) -> PathBuf {
    repo_root().join(name.replace("__", "/"))
}

const RAW: DisOptions = DisOptions {
    raw_id: true,
    no_header: false,
    no_indent: false,
};

fn preserving() -> AsmOptions {
    AsmOptions {
        preserve_numeric_ids: true,
        target_env: None,
        source_file: None,
    }
}

/// Words equal except the generator word, which must be Lanescope's.
fn assert_same_but_generator(ours: &[u32], theirs: &[u32], what: &str) {
    assert_eq!(ours.get(2), Some(&GENERATOR), "{what}: generator word");
    let mask = |w: &[u32]| {
        let mut w = w.to_vec();
        if w.len() > 2 {
            w[2] = 0;
        }
        w
    };
    assert_eq!(mask(ours), mask(theirs), "{what}");
}

#[test]
fn disassembly_matches_spirv_dis() {
    let mut checked = 0;
    for expected in files_with(&fixtures(), ".dis") {
        let stem = expected.to_string_lossy();
        let stem = stem.strip_suffix(".dis").unwrap();
        if stem.ends_with(".raw") {
            continue;
        }
        let module = if expected.parent().unwrap().ends_with("repo") {
            unflatten(Path::new(stem).file_name().unwrap().to_str().unwrap())
        } else {
            PathBuf::from(format!("{stem}.spv"))
        };
        let words = read_words(&module);
        let text = disassemble(&words, &DisOptions::default())
            .unwrap_or_else(|e| panic!("{}: {e}", module.display()));
        assert_eq!(text, read_text(&expected), "{}", module.display());
        let raw = disassemble(&words, &RAW).unwrap();
        assert_eq!(
            raw,
            read_text(Path::new(&format!("{stem}.raw.dis"))),
            "{} --raw-id",
            module.display()
        );
        checked += 1;
    }
    // Where spirv-dis refuses a module, so must we.
    for refused in files_with(&fixtures(), ".dis.err") {
        let name = refused.file_name().unwrap().to_str().unwrap();
        let module = unflatten(name.strip_suffix(".dis.err").unwrap());
        let err = disassemble(&read_words(&module), &DisOptions::default());
        assert!(err.is_err(), "{} should be refused", module.display());
        checked += 1;
    }
    assert!(checked >= 17, "only {checked} fixtures");
}

#[test]
fn assembly_matches_spirv_as() {
    let mut checked = 0;
    for source in files_with(&fixtures(), ".spvasm") {
        let text = read_text(&source);
        let stem = source.with_extension("");
        let plain = assemble(&text, &AsmOptions::default()).unwrap();
        assert_same_but_generator(
            &plain,
            &read_words(&stem.with_extension("spv")),
            &source.to_string_lossy(),
        );
        let kept = assemble(&text, &preserving()).unwrap();
        assert_same_but_generator(
            &kept,
            &read_words(&stem.with_extension("preserve.spv")),
            &format!("{} --preserve-numeric-ids", source.display()),
        );
        checked += 1;
    }
    for expected in files_with(&fixtures().join("repo"), ".spv") {
        let name = expected.file_name().unwrap().to_str().unwrap();
        let (stem, opts) = match name.strip_suffix(".preserve.spv") {
            Some(stem) => (stem, preserving()),
            None => (name.strip_suffix(".spv").unwrap(), AsmOptions::default()),
        };
        let source = unflatten(&format!("{stem}.spvasm"));
        let words = assemble(&read_text(&source), &opts)
            .unwrap_or_else(|e| panic!("{}:{e}", source.display()));
        assert_same_but_generator(&words, &read_words(&expected), name);
        checked += 1;
    }
    assert!(checked >= 60, "only {checked} fixtures");
}

/// The largest id a raw-id text mentions.
fn max_id(raw: &str) -> u32 {
    raw.split('%')
        .skip(1)
        .filter_map(|s| {
            let digits: String = s.chars().take_while(char::is_ascii_digit).collect();
            digits.parse().ok()
        })
        .max()
        .unwrap_or(0)
}

/// Every module in the repository (and the shared reference set, where present) comes back word
/// for word from its raw-id text with numeric ids kept: all but the generator word, and the
/// bound, which is recomputed as the largest id plus one (some compilers leave unused ids).
/// From the default text, with friendly names, ids are numbered by first appearance, which is
/// what assembling the raw-id text without keeping ids gives too.
#[test]
fn every_module_round_trips() {
    let mut modules = files_with(&repo_root().join("assets"), ".spv");
    modules.extend(files_with(&repo_root().join("core/tests"), ".spv"));
    modules.extend(files_with(&repo_root().join("../shared/reference"), ".spv"));
    let (mut exact, mut refused) = (0, Vec::new());
    for module in &modules {
        let what = module.display().to_string();
        let words = read_words(module);
        let raw = match disassemble(&words, &RAW) {
            Ok(raw) => raw,
            Err(e) => {
                refused.push(format!("{what}: {e}"));
                continue;
            }
        };
        let back = assemble(&raw, &preserving()).unwrap_or_else(|e| panic!("{what}:{e}"));
        assert_eq!(back.len(), words.len(), "{what}");
        assert_eq!(back[2], GENERATOR, "{what}");
        assert_eq!(back[3], max_id(&raw) + 1, "{what}: bound");
        for (i, (a, b)) in back.iter().zip(&words).enumerate() {
            assert!(i == 2 || i == 3 || a == b, "{what}: word {i}");
        }
        if back[3] == words[3] {
            exact += 1;
        }
        let friendly = disassemble(&words, &DisOptions::default()).unwrap();
        let renumbered = assemble(&raw, &AsmOptions::default()).unwrap();
        assert_eq!(
            assemble(&friendly, &AsmOptions::default()).unwrap_or_else(|e| panic!("{what}:{e}")),
            renumbered,
            "{what}: friendly names"
        );
    }
    assert!(modules.len() >= 100, "{} modules found", modules.len());
    // Only deliberately broken modules may be refused (as spirv-dis refuses them; see
    // disassembly_matches_spirv_dis), and only one is today.
    assert!(
        refused.len() <= 1
            && refused
                .iter()
                .all(|r| r.contains("/fuzz/") || r.contains("/hostile/")),
        "refused: {refused:#?}"
    );
    // Bounds come back too, but where a module uses ids past its bound.
    assert!(
        exact + 1 >= modules.len() - refused.len(),
        "{exact} exact bounds"
    );
}

#[test]
fn big_endian_modules_read_the_same() {
    let words = read_words(&fixtures().join("controls.spv"));
    let swapped: Vec<u32> = words.iter().map(|w| w.swap_bytes()).collect();
    for opts in [DisOptions::default(), RAW] {
        assert_eq!(
            disassemble(&swapped, &opts).unwrap(),
            disassemble(&words, &opts).unwrap()
        );
    }
}

#[test]
fn version_comes_from_the_target_env_then_the_comment() {
    let body = "OpCapability Shader\nOpMemoryModel Logical GLSL450\n";
    let version = |text: &str, env: Option<TargetEnv>| {
        let opts = AsmOptions {
            preserve_numeric_ids: false,
            target_env: env,
            source_file: None,
        };
        assemble(text, &opts).unwrap()[1]
    };
    assert_eq!(version(body, None), 0x0001_0600);
    let commented = format!("; SPIR-V\n; Version: 1.3\n{body}");
    assert_eq!(version(&commented, None), 0x0001_0300);
    // A comment after the first instruction is not the header's.
    assert_eq!(
        version(&format!("{body}; Version: 1.2\n"), None),
        0x0001_0600
    );
    assert_eq!(version(&commented, Some(TargetEnv::Vulkan1_2)), 0x0001_0500);
    assert_eq!(version(body, Some(TargetEnv::Vulkan1_0)), 0x0001_0000);
    assert_eq!(version(body, Some(TargetEnv::Vulkan1_1)), 0x0001_0300);
    assert_eq!(version(body, Some(TargetEnv::Vulkan1_1Spv1_4)), 0x0001_0400);
    assert_eq!(version(body, Some(TargetEnv::Vulkan1_3)), 0x0001_0600);
    assert_eq!(version(body, Some(TargetEnv::Vulkan1_4)), 0x0001_0600);
    for env in TargetEnv::ALL {
        assert_eq!(env.name().parse::<TargetEnv>(), Ok(env));
    }
    assert!("vulkan9.9".parse::<TargetEnv>().is_err());
}

#[test]
fn names_of_instructions_nonsemantic_sets_lack_in_spirv_tools() {
    // SPIRV-Tools knows NonSemantic.DebugPrintf only by number; rspirv's grammar names it.
    let text = |inst: &str| {
        format!(
            "OpCapability Shader\nOpExtension \"SPV_KHR_non_semantic_info\"\n\
             %p = OpExtInstImport \"NonSemantic.DebugPrintf\"\nOpMemoryModel Logical GLSL450\n\
             %void = OpTypeVoid\n%fmt = OpString \"x\"\n%x = OpExtInst %void %p {inst} %fmt\n"
        )
    };
    let named = assemble(&text("DebugPrintf"), &AsmOptions::default()).unwrap();
    let numbered = assemble(&text("1"), &AsmOptions::default()).unwrap();
    assert_eq!(named, numbered);
    let shown = disassemble(&named, &DisOptions::default()).unwrap();
    assert!(shown.contains("OpExtInst %void %1 1 %3"), "{shown}");
}

fn asm_err(text: &str) -> AsmError {
    match assemble(text, &AsmOptions::default()) {
        Ok(_) => panic!("assembled: {text}"),
        Err(e) => e,
    }
}

#[test]
fn assembly_errors_say_where() {
    let head = "OpCapability Shader\nOpMemoryModel Logical GLSL450\n\
                %float = OpTypeFloat 32\n%uint = OpTypeInt 32 0\n%uchar = OpTypeInt 8 0\n";
    // (text after the header lines, line, column, part of the message)
    let cases: &[(&str, usize, usize, &str)] = &[
        ("%x = OpFoo %uint", 6, 6, "Invalid Opcode name 'OpFoo'"),
        ("%x = OpConstant %uint", 6, 22, "Expected operand"),
        (
            "%x = OpConstant %uint 1\nOpName \"x\" %x",
            7,
            8,
            "Expected id to start with %",
        ),
        (
            "%x = OpConstant %uint 1 2",
            6,
            25,
            "Expected <opcode> or <result-id>",
        ),
        (
            "%x = OpConstant %uint 4294967296",
            6,
            23,
            "does not fit in a 32-bit unsigned",
        ),
        (
            "%x = OpConstant %uchar 256",
            6,
            24,
            "does not fit in a 8-bit unsigned",
        ),
        (
            "%x = OpConstant %uint -1",
            6,
            23,
            "negative number in an unsigned",
        ),
        (
            "%x = OpConstant %float 1e39",
            6,
            24,
            "Invalid 32-bit float literal",
        ),
        (
            "%x = OpConstant %float 1.5f",
            6,
            24,
            "Invalid 32-bit float literal",
        ),
        (
            "%x = OpConstant %bool_t 1",
            6,
            25,
            "must be a scalar floating point or integer",
        ),
        (
            "OpDecorate %uint Bogus",
            6,
            18,
            "Invalid Decoration 'Bogus'",
        ),
        (
            "OpDecorate %uint Offset x",
            6,
            25,
            "Invalid unsigned integer literal: x",
        ),
        (
            "%f = OpTypeFunction %uint\n%m = OpFunction %uint Inline|Sometimes %f",
            7,
            23,
            "Invalid FunctionControl operand 'Inline|Sometimes'",
        ),
        ("OpName %uint \"abc", 6, 14, "unterminated string"),
        ("OpName %uint \"abc\ndef", 6, 14, "unterminated string"),
        (
            "OpName %uint 12",
            6,
            14,
            "Expected literal string, found literal number",
        ),
        (
            "%y = OpConstant %uint 1\nOpName %z \"z\"",
            7,
            8,
            "%z is used but never defined",
        ),
        (
            "%y = OpCapability Shader",
            6,
            1,
            "Cannot set ID %y because OpCapability",
        ),
        ("OpTypeVoid", 6, 1, "Expected <result-id>"),
        (
            "OpCapability Int8\n%y OpTypeVoid",
            7,
            4,
            "'=' expected after result id",
        ),
        ("%y = TypeVoid", 6, 6, "Invalid Opcode prefix 'TypeVoid'"),
        (
            "%uint = OpTypeInt 16 0",
            6,
            9,
            "already been used to generate a type",
        ),
        (
            "%s = OpExtInstImport \"Bogus.set\"",
            6,
            22,
            "Invalid extended instruction import",
        ),
        (
            "%s = OpExtInstImport \"GLSL.std.450\"\n%x = OpExtInst %float %s Sqrtt %x",
            7,
            26,
            "Invalid extended instruction name 'Sqrtt'",
        ),
        (
            "%x = OpSpecConstantOp %uint Load %uint",
            6,
            29,
            "Invalid Spec Constant Op",
        ),
        (
            "%v = OpTypeVector %float 4\n%x = OpUndef %v\nOpSwitch %x %l 1 %l",
            8,
            16,
            "selector operand for OpSwitch",
        ),
        (
            "%x = OpConstant %uint 1\n%y = OpIAdd %uint %x 2",
            7,
            22,
            "Expected id to start with %",
        ),
        (
            "%x = OpConstant %uint 1\n%y = OpIAdd %uint %x %a-b",
            7,
            22,
            "Invalid ID a-b",
        ),
    ];
    for &(tail, line, column, message) in cases {
        let e = asm_err(&format!("{head}{tail}\n"));
        assert!(
            e.message.contains(message) && (e.line, e.column) == (line, column),
            "{tail:?}: got {e}, want {line}:{column}: ...{message}..."
        );
        assert_eq!(e.to_string(), format!("{line}:{column}: {}", e.message));
    }
    // Columns count characters, not bytes.
    let e = asm_err("OpName %x \"é\"\n%x = OpBogus");
    assert_eq!((e.line, e.column), (2, 6), "{e}");
}

#[test]
fn numeric_ids_may_dangle_but_names_may_not() {
    let text = "OpCapability Shader\nOpMemoryModel Logical GLSL450\nOpName %7 \"seven\"\n";
    assert!(assemble(text, &AsmOptions::default()).is_ok());
    let e = asm_err("OpCapability Shader\nOpMemoryModel Logical GLSL450\nOpName %seven \"7\"\n");
    assert_eq!((e.line, e.column), (3, 8), "{e}");
}

#[test]
fn disassembly_errors_name_the_word() {
    let good = read_words(&fixtures().join("numeric_ids.spv"));
    let err = |words: &[u32]| disassemble(words, &DisOptions::default()).unwrap_err();
    assert_eq!(err(&good[..3]).word, 0);
    let mut bad_magic = good.clone();
    bad_magic[0] = 0x1234_5678;
    assert_eq!(err(&bad_magic).word, 0);
    let mut zero_count = good.clone();
    zero_count[5] = 0x0000_0011;
    let e = err(&zero_count);
    assert_eq!(e.word, 5);
    assert!(e.to_string().starts_with("word 5: "), "{e}");
    let mut unknown = good.clone();
    unknown[5] = (2 << 16) | 0xfff0;
    assert!(err(&unknown).message.contains("Invalid opcode: 65520"));
    // OpCapability with a capability that does not exist.
    let mut bad_enum = good.clone();
    bad_enum[6] = 0xdead;
    assert_eq!(err(&bad_enum).word, 6);
    // The last instruction (OpFunctionEnd) claims a word past the end.
    let mut cut = good.clone();
    let last = cut.len() - 1;
    cut[last] |= 2 << 16;
    assert!(err(&cut).word >= last);
}

/// A small deterministic generator for the fuzz loops.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

#[test]
fn mutated_modules_never_panic() {
    let seeds: Vec<Vec<u32>> = ["controls", "literals", "numeric_ids", "specs", "extinst"]
        .iter()
        .map(|n| read_words(&fixtures().join(format!("{n}.spv"))))
        .collect();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut read = 0;
    for round in 0..3000 {
        let mut words = seeds[round % seeds.len()].clone();
        for _ in 0..1 + rng.below(4) {
            let i = rng.below(words.len());
            match rng.below(6) {
                0 => words[i] ^= 1 << rng.below(32),
                1 => words[i] = rng.next() as u32,
                2 => words[i] = (words[i] & 0xffff) | ((rng.below(12) as u32) << 16),
                3 => words[i] = words[i] & 0xffff_0000 | rng.below(400) as u32,
                4 => words.truncate(i.max(1)),
                _ => words.insert(i, rng.next() as u32 & 0xffff),
            }
        }
        for opts in [DisOptions::default(), RAW] {
            if let Ok(text) = disassemble(&words, &opts) {
                read += 1;
                // Whatever prints must read back without panicking, if not always to the same
                // words (a half's unused upper bits, for one, are not printed).
                let _ = assemble(&text, &preserving());
            }
        }
    }
    assert!(read > 100, "only {read} mutants were readable");
}

#[test]
fn mutated_text_never_panics() {
    let seed = read_text(&fixtures().join("controls.spvasm"));
    let pieces = [
        "%", "\"", "\\", ";", "=", " ", "\n", "Op", "0x", "-", ".", "|", "é", "OpIAdd", "%9",
    ];
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    for _ in 0..1500 {
        let mut text: Vec<char> = seed.chars().collect();
        for _ in 0..1 + rng.below(3) {
            let at = rng.below(text.len());
            match rng.below(3) {
                0 => {
                    text.remove(at);
                }
                1 => {
                    let p = pieces[rng.below(pieces.len())];
                    for (k, c) in p.chars().enumerate() {
                        text.insert(at + k, c);
                    }
                }
                _ => text.truncate(at),
            }
        }
        let text: String = text.into_iter().collect();
        for opts in [AsmOptions::default(), preserving()] {
            if let Ok(words) = assemble(&text, &opts) {
                let _ = disassemble(&words, &DisOptions::default());
            }
        }
    }
}
