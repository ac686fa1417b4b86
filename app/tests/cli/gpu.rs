//! `lanescope devices` and `run --gpu` on the machine's Vulkan device (lavapipe where the
//! project's set-up ran); without one, the clear error is what is checked.

use super::{exe, tmp};

fn data(name: &str) -> String {
    format!("{}/../gpu/tests/data/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// Whether `lanescope devices` found one; when not, its error says how to get one.
fn has_device() -> bool {
    let o = exe().arg("devices").output().unwrap();
    if o.status.success() {
        return true;
    }
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("Vulkan") && e.contains("mesa-vulkan-drivers"),
        "{e}"
    );
    eprintln!("skipped: {e}");
    false
}

#[test]
fn devices_lists_each_device_with_its_subgroups_as_text_and_json() {
    if !has_device() {
        return;
    }
    let o = exe().arg("devices").output().unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.starts_with("0: ") && text.contains("subgroup size: "),
        "{text}"
    );
    let o = exe().args(["devices", "--json"]).output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(
        v[0]["subgroup_size"]
            .as_u64()
            .is_some_and(|n| n.is_power_of_two()),
        "{v}"
    );
    assert!(v[0]["maximal_reconvergence"].is_boolean(), "{v}");
}

#[test]
fn run_gpu_reports_the_comparison_in_text_and_json() {
    if !has_device() {
        return;
    }
    let zero = tmp("race-zero.bin");
    std::fs::write(&zero, vec![0u8; 4 * 129]).unwrap();
    let buf = format!("0:0={}", zero.display());
    let race = data("race.spv");
    let args = ["run", &race, "--workgroups", "2", "--buffer", &buf, "--gpu"];
    let o = exe().args(args).output().unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        text.contains("GPU: ") && text.contains("129 words compared"),
        "{text}"
    );
    let o = exe().args(args).arg("--json").output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let g = &v["gpu"];
    assert_eq!(g["words"], 129, "{g}");
    assert_eq!(g["classes"]["unexplained"], 0, "{g}");
    // Word 0 is raced: identical, or explained by the schedule.
    let differ = g["words"].as_u64().unwrap() - g["identical"].as_u64().unwrap();
    assert_eq!(g["classes"]["schedule"].as_u64().unwrap(), differ, "{g}");
}

#[test]
fn run_gpu_refuses_what_the_device_cannot_run_by_name() {
    if !has_device() {
        return;
    }
    let o = exe()
        .args([
            "run",
            &data("independent.spv"),
            "--subgroup-size",
            "128",
            "--gpu",
        ])
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&o.stderr);
    // lavapipe runs one size; a device that runs 128 gets past this to the missing buffers.
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(
        e.contains("cannot run subgroups of 128") || e.contains("no buffer bound"),
        "{e}"
    );
    let o = exe()
        .args(["run", &data("independent.spv"), "--gpu-device", "7"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "--gpu-device needs --gpu");
}

#[test]
fn no_vulkan_driver_is_a_clear_error() {
    // The loader pointed at no driver (where there is no loader, the error names that instead).
    let without_driver = |args: &[&str]| {
        let o = exe()
            .args(args)
            .env("VK_ICD_FILENAMES", "/nonexistent/icd.json")
            .env("VK_DRIVER_FILES", "/nonexistent/icd.json")
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(1));
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    let e = without_driver(&["devices"]);
    assert!(e.contains("mesa-vulkan-drivers"), "{e}");
    let e = without_driver(&["run", &data("independent.spv"), "--gpu"]);
    assert!(e.contains("--gpu: ") && e.contains("no device"), "{e}");
}

/// Half-precision transcendentals on the device differ only as precision: the variants nudge
/// 16-bit results in their own ulp. (Run through the binary: lavapipe's JIT resolves its
/// half-float helpers from the process, which a test binary of the gpu crate lacks.)
#[test]
fn half_precision_results_differ_only_as_precision() {
    if !has_device() {
        return;
    }
    let input = tmp("half-in.bin");
    let bytes: Vec<u8> = (0u32..64)
        .flat_map(|i| (i * 37 + 11).to_le_bytes())
        .collect();
    std::fs::write(&input, bytes).unwrap();
    let out = tmp("half-out.bin");
    std::fs::write(&out, vec![0u8; 256]).unwrap();
    let o = exe()
        .args(["run", &data("half.spv"), "--gpu", "--json"])
        .args(["--buffer", &format!("0:0={}", input.display())])
        .args(["--buffer", &format!("0:1={}", out.display())])
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&o.stderr);
    if !o.status.success() {
        // A device without 16-bit floats refuses the pipeline, by name.
        assert!(e.contains("--gpu: "), "{e}");
        eprintln!("skipped: {e}");
        return;
    }
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let g = &v["gpu"];
    let differ = g["words"].as_u64().unwrap() - g["identical"].as_u64().unwrap();
    assert_eq!(g["classes"]["precision"].as_u64().unwrap(), differ, "{g}");
}

/// `run --gpu` on a module reaching buffers by device address: the buffers are placed by the
/// device and the inputs' addresses moved with them (every word agrees, a note says so); an
/// address outside every buffer is refused before the device runs.
#[test]
fn run_gpu_moves_device_addresses_to_the_devices_buffers() {
    if !has_device() {
        return;
    }
    let at = |b: u64| (b + 1) << 32;
    let write = |name: &str, bytes: Vec<u8>| {
        let p = tmp(name);
        std::fs::write(&p, bytes).unwrap();
        p.display().to_string()
    };
    let mut out = vec![0u8; 200];
    out[192..].copy_from_slice(&at(2).to_le_bytes());
    let nodes: Vec<u8> = (0..4u64)
        .flat_map(|j| {
            let mut n = (at(3) + 16 * ((j + 1) % 4)).to_le_bytes().to_vec();
            n.extend((10 * j as u32 + 1).to_le_bytes());
            n.extend([0; 4]);
            n
        })
        .collect();
    let src: Vec<u8> = (100u32..116).flat_map(u32::to_le_bytes).collect();
    let buffers = [
        format!("0:0={}", write("addr-out.bin", out)),
        format!("0:1={}", write("addr-src.bin", src)),
        format!("0:2={}", write("addr-dst.bin", vec![0; 64])),
        format!("0:3={}", write("addr-nodes.bin", nodes)),
    ];
    let module = data("addresses.spv");
    let run = |head: u64| {
        let push = write(
            &format!("addr-push-{head:x}.bin"),
            [at(1), head].iter().flat_map(|v| v.to_le_bytes()).collect(),
        );
        let mut c = exe();
        c.args(["run", &module, "--push", &push, "--gpu"]);
        for b in &buffers {
            c.args(["--buffer", b]);
        }
        c.output().unwrap()
    };
    let o = run(at(3));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        text.contains("98 words compared, 98 identical")
            && text.contains("7 input words holding addresses were moved"),
        "{text}"
    );
    let o = run(0x40_0000_0000);
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(
        e.contains("a device faults") && e.contains("0x4000000008"),
        "{e}"
    );
}
