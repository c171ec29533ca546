//! Perft throughput on Kalah(6,4), standard rules, from the start: bulk perft (the last ply
//! counted, not played) and full perft (every leaf move played), at depths 10 and 11.
//!
//! `cargo bench -p kalah-core --bench perft`. Criterion reports the throughput in elements per
//! second: one element is one counted move sequence (a leaf), so for `perft_full` it is moves
//! played per second at the leaves. Results: docs/bench/perft.md.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use kalah_core::{perft, perft_full, Position, Rules, Start};
use std::hint::black_box;
use std::time::Duration;

fn bench_perft(c: &mut Criterion) {
    let rules = Rules::default();
    let start = Position::start(&Start::uniform(6, 4).expect("Kalah(6,4)"), &rules);
    let mut group = c.benchmark_group("kalah-6-4-start");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(8));
    group.warm_up_time(Duration::from_secs(1));
    for depth in [10u32, 11] {
        let leaves = perft(&start, &rules, depth);
        group.throughput(Throughput::Elements(leaves));
        group.bench_with_input(BenchmarkId::new("perft_bulk", depth), &depth, |b, &d| {
            b.iter(|| perft(black_box(&start), &rules, d))
        });
        group.bench_with_input(BenchmarkId::new("perft_full", depth), &depth, |b, &d| {
            b.iter(|| perft_full(black_box(&start), &rules, d))
        });
    }
    group.finish();
}

criterion_group!(benches, bench_perft);
criterion_main!(benches);
