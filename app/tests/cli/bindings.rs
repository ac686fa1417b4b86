//! What the command line binds: device addresses, images and samplers, descriptor array
//! elements.

use super::*;

/// `--address` fixes a buffer's device address, so a buffer file can hold pointers to it; the
/// JSON summary lists every bound buffer's address and size; bad addresses are usage errors.
#[test]
fn addresses_are_fixed_on_the_command_line_and_listed() {
    // physical_ptr_chain: binding 0 = { pointer to data, uint out[32] }; lane l reads data
    // word 2l through the pointer.
    let root = tmp("addr.root");
    let mut bytes = 0x4000u64.to_le_bytes().to_vec();
    bytes.resize(8 + 32 * 4, 0);
    std::fs::write(&root, &bytes).unwrap();
    let data_file = tmp("addr.data");
    write_words(&data_file, (0..16).map(|i| 500 + i));
    let out = tmp("addr.out");
    let asm = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../core/tests/data/asm/physical_ptr_chain.spvasm")
        .display()
        .to_string();
    let o = exe()
        .args([
            "run",
            &asm,
            "--subgroup-size",
            "8",
            "--buffer",
            &format!("0:0={}", root.display()),
            "--buffer",
            &format!("0:1={}", data_file.display()),
            "--address",
            "0:1=0x4000",
            "--out",
            &format!("0:0={}", out.display()),
            "--json",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        v["buffers"],
        serde_json::json!([
            {"set": 0, "binding": 0, "address": 0x1_0000_0000u64, "size": 136},
            {"set": 0, "binding": 1, "address": 0x4000, "size": 64},
        ])
    );
    let w: Vec<u32> = std::fs::read(&out).unwrap()[8..]
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(w[4 * 3], 506, "lane 3 read data word 6 at 0x4018");
    // The text summary names the addresses too.
    let o = exe()
        .args([
            "run",
            &asm,
            "--buffer",
            &format!("0:0={}", root.display()),
            "--buffer",
            &format!("0:1={}", data_file.display()),
            "--address",
            "0:1=16384",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("0:1 at 0x4000 (64 bytes)"), "{text}");
    for (bad, says) in [
        ("0:1=0x4008", "not aligned to 16 bytes"),
        ("0:1=lots", "is not an address"),
        ("0:1", "SET:BINDING[ELEMENT]=ADDR"),
        ("0:1[x]=0x4000", "`x`"),
    ] {
        let o = exe()
            .args(["run", &asm, "--address", bad])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{bad}");
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(e.contains(says), "{bad}: {e}");
    }
}

/// `--address SET:BINDING[ELEMENT]=ADDR` fixes a descriptor array element's address: pointers
/// in the push constants reach elements 1 and 2 there, and the summary lists them.
#[test]
fn a_descriptor_array_elements_address_is_fixed_on_the_command_line() {
    let shader = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../gpu/tests/data/elements.spv")
        .display()
        .to_string();
    let push = tmp("elements.push");
    let mut bytes = 0x8000u64.to_le_bytes().to_vec();
    bytes.extend(0x9000u64.to_le_bytes());
    std::fs::write(&push, bytes).unwrap();
    let one = tmp("elements.one");
    write_words(&one, (0..16).map(|i| 10 + i));
    let (zero, two) = (tmp("elements.zero"), tmp("elements.two"));
    let empty = tmp("elements.empty");
    std::fs::write(&empty, vec![0; 64]).unwrap();
    let o = exe()
        .args([
            "run",
            &shader,
            "--push",
            &push.display().to_string(),
            "--buffer",
            &format!("0:0={}", empty.display()),
            "--buffer",
            &format!("0:0[1]={}", one.display()),
            "--buffer",
            &format!("0:0[2]={}", empty.display()),
            "--address",
            "0:0[1]=0x8000",
            "--address",
            "0:0[2]=0x9000",
            "--out",
            &format!("0:0={}", zero.display()),
            "--out",
            &format!("0:0[2]={}", two.display()),
            "--json",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let listed = v["buffers"].as_array().unwrap();
    let address = |e: u64| {
        listed
            .iter()
            .find(|b| b["element"].as_u64().unwrap_or(0) == e)
            .map(|b| b["address"].as_u64().unwrap())
    };
    assert_eq!(
        (address(1), address(2)),
        (Some(0x8000), Some(0x9000)),
        "{listed:?}"
    );
    let words = |p: &Path| -> Vec<u32> {
        std::fs::read(p)
            .unwrap()
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    };
    // Element 0: element 1 through its address, plus 100 x element 1 reversed.
    assert_eq!(words(&zero)[3], 13 + 100 * 22);
    // Element 2, written through its address: 2 x element 1 + 1.
    assert_eq!(words(&two)[5], 2 * 15 + 1);
}

/// `--image` binds texels with a format and size, `--sampler` a sampler; `--out` writes the
/// texels back; bad image arguments are usage errors naming what is wrong.
#[test]
fn images_and_samplers_are_bound_on_the_command_line() {
    let storage = data("image_storage.spv");
    let dir = tmp("img");
    std::fs::create_dir_all(&dir).unwrap();
    let file = |name: &str, bytes: Vec<u8>| {
        let p = dir.join(name);
        std::fs::write(&p, bytes).unwrap();
        p.display().to_string()
    };
    let counts = file("counts", (0..16u32).flat_map(|i| i.to_le_bytes()).collect());
    let colors = file("colors", vec![10; 64]);
    let floats = file("floats", vec![0; 64]);
    let layers = file("layers", vec![0; 64]);
    let ints = file("ints", vec![0; 64]);
    let table = file("table", vec![0; 128]);
    let out = file("out", vec![0; 144]);
    let big = file("big", vec![0; 768]);
    let counts_out = dir.join("counts.out");
    let o = exe()
        .args([
            "run",
            &storage,
            "--image",
            &format!("0:0={counts},r32ui,4x4"),
            "--image",
            &format!("0:1={colors},rgba8,4x4"),
            "--image",
            &format!("0:2={floats},r32f,4x4"),
            "--image",
            &format!("0:3={layers},rgba16f,2x2x2"),
            "--image",
            &format!("0:4={ints},r32i,16"),
            "--image",
            &format!("0:5={table},rg32ui,16x1"),
            "--buffer",
            &format!("0:6={out}"),
            "--out",
            &format!("0:0={}", counts_out.display()),
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let w: Vec<u32> = std::fs::read(&counts_out)
        .unwrap()
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let want: Vec<u32> = (0..16u32).map(|i| i + i % 4 + 1).collect();
    assert_eq!(w, want, "each texel of counts plus x + 1");
    // A sampled shader without its sampler: a binding error naming it.
    let o = exe()
        .args([
            "run",
            &data("image_sampled.spv"),
            "--image",
            &format!("0:0={floats},r32f,4x4"),
            "--buffer",
            &format!("0:6={table}"),
            "--buffer",
            &format!("0:7={big}"),
        ])
        .output()
        .unwrap();
    fails(&o, 1, "no sampler bound at set 0 binding 0");
    // Wrong sizes and names.
    let o = exe()
        .args([
            "run",
            &storage,
            "--image",
            &format!("0:0={counts},r32ui,4x5"),
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("has 64 bytes; 4x5x1 texels of r32ui need 80"),
        "{e}"
    );
    for (bad, says) in [
        (format!("0:0={counts},rgb565,4x4"), "is not an image format"),
        (
            format!("0:0={counts},r32ui,4x0"),
            "not a size of at least 1",
        ),
        (format!("0:0={counts},r32ui,4x4s3"), "samples per texel"),
        (
            "0:0=onlyafile".to_string(),
            "SET:BINDING[ELEMENT]=FILE,FORMAT",
        ),
    ] {
        let o = exe()
            .args(["run", &storage, "--image", &bad])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{bad}");
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(e.contains(says), "{bad}: {e}");
    }
    let o = exe()
        .args(["run", &storage, "--sampler", "0:5=cubic,clamp"])
        .output()
        .unwrap();
    fails(&o, 2, "nearest or linear");
}

/// Descriptor array elements are bound and written back as `SET:BINDING[ELEMENT]`; a missing
/// element is a binding error naming it.
#[test]
fn descriptor_array_elements_are_bound_with_an_index() {
    // buffer_array.comp: three buffers { count; data[] } at 0:0, sums at 0:1, a pick push
    // constant; ins[pick].data[i] += 1000.
    let spv = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../core/tests/data/buffer_array.spv")
        .display()
        .to_string();
    let mut args: Vec<String> = vec!["run".into(), spv, "--subgroup-size".into(), "4".into()];
    for e in 0..3u32 {
        let f = tmp(&format!("array.{e}"));
        write_words(
            &f,
            std::iter::once(10 + e).chain((0..4 + e).map(|i| e + 1 + i)),
        );
        args.push("--buffer".into());
        args.push(format!("0:0[{e}]={}", f.display()));
    }
    let sums = tmp("array.sums");
    write_words(&sums, std::iter::repeat_n(0, 16));
    let pick = tmp("array.pick");
    write_words(&pick, std::iter::once(2));
    let out = tmp("array.out");
    args.extend([
        "--buffer".into(),
        format!("0:1={}", sums.display()),
        "--push".into(),
        pick.display().to_string(),
        "--out".into(),
        format!("0:0[2]={}", out.display()),
        "--json".into(),
    ]);
    let o = exe().args(&args).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let words: Vec<u32> = std::fs::read(&out)
        .unwrap()
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(words, [12, 1003, 1004, 1005, 1006, 7, 8]);
    // Without element 1 the run does not start, and says which element is missing.
    let k = args.iter().position(|a| a.starts_with("0:0[1]=")).unwrap();
    let mut without = args.clone();
    without.drain(k - 1..=k);
    let o = exe().args(&without).output().unwrap();
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("no buffer bound at set 0 binding 0 element 1"),
        "{err}"
    );
    // Element 2 may share element 1's buffer: the write through element 2 lands there.
    let out1 = tmp("array.out1");
    let shared: Vec<String> = args
        .iter()
        .zip(std::iter::once("").chain(args.iter().map(String::as_str)))
        .map(|(a, before)| match (before, a.starts_with("0:0[2]=")) {
            ("--buffer", true) => "0:0[2]=@0:0[1]".to_string(),
            ("--out", true) => format!("0:0[1]={}", out1.display()),
            _ => a.clone(),
        })
        .collect();
    let o = exe().args(&shared).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let words: Vec<u32> = std::fs::read(&out1)
        .unwrap()
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(words, [11, 1002, 1003, 1004, 1005, 6]);
}
