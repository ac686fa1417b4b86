//! Module loading speed (`cargo bench -p lanescope_core --bench load`), measured by criterion:
//! parse, check and lower a synthetic 1 MiB compute shader (a chain of 7,500 selection
//! constructs, 15,001 blocks) and every example in `assets/`. Target: a 1 MB module in under
//! 100 ms natively.

#[path = "support/synth.rs"]
mod synth;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use lanescope_core::{load, LoadOptions};

fn loading(c: &mut Criterion) {
    let words = synth::chain_of_ifs(7_500, 64);
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let mut g = c.benchmark_group("load");
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    g.bench_function("synthetic 1 MiB module", |b| {
        b.iter(|| load(&bytes, &LoadOptions::default()).expect("the module loads"));
    });
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "spv"));
    files.sort();
    let modules: Vec<Vec<u8>> = files
        .iter()
        .map(|f| std::fs::read(f).expect("readable asset"))
        .collect();
    g.throughput(Throughput::Elements(modules.len() as u64));
    g.bench_function("every module in assets/", |b| {
        b.iter(|| {
            for m in &modules {
                load(m, &LoadOptions::default()).expect("the example loads");
            }
        });
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = loading
}
criterion_main!(benches);
