//! Perft throughput on Kalah(6,4), standard rules, from the start: bulk perft (the last ply
//! counted, not played) and full perft (every leaf move played), at depths 10 and 11.
//!
//! `cargo bench -p kalah-core --bench perft`. Criterion reports the throughput in elements per
//! second: one element is one counted move sequence (a leaf), so for `perft_full` it is moves
//! played per second at the leaves. Two groups: `wall` (wall-clock time, criterion's default)
//! and, on Linux, `cpu` (the thread's CPU time, steadier when other processes share the cores).
//! Results: docs/BENCHMARKS.md.

use criterion::measurement::{Measurement, WallTime};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use kalah_core::{perft, perft_full, Position, Rules, Start};
use std::hint::black_box;
use std::time::Duration;

fn bench_perft<M: Measurement>(c: &mut Criterion<M>, group_name: &str) {
    let rules = Rules::default();
    let start = Position::start(&Start::uniform(6, 4).expect("Kalah(6,4)"), &rules);
    let mut group = c.benchmark_group(group_name);
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

fn wall(c: &mut Criterion<WallTime>) {
    bench_perft(c, "kalah-6-4-start-wall");
}

#[cfg(target_os = "linux")]
mod cpu {
    //! A criterion measurement of the calling thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`).
    use criterion::measurement::{Measurement, ValueFormatter};
    use criterion::Throughput;

    #[repr(C)]
    struct Timespec {
        tv_sec: i64,
        tv_nsec: i64,
    }

    extern "C" {
        fn clock_gettime(clock: i32, tp: *mut Timespec) -> i32;
    }

    const CLOCK_THREAD_CPUTIME_ID: i32 = 3;

    fn now_ns() -> u64 {
        let mut t = Timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `t` is a valid, writable timespec; the clock id is a Linux constant.
        let rc = unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut t) };
        assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
        t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
    }

    /// Thread CPU time in nanoseconds.
    pub struct ThreadCpuTime;

    impl Measurement for ThreadCpuTime {
        type Intermediate = u64;
        type Value = u64;
        fn start(&self) -> u64 {
            now_ns()
        }
        fn end(&self, started: u64) -> u64 {
            now_ns() - started
        }
        fn add(&self, a: &u64, b: &u64) -> u64 {
            a + b
        }
        fn zero(&self) -> u64 {
            0
        }
        fn to_f64(&self, v: &u64) -> f64 {
            *v as f64
        }
        fn formatter(&self) -> &dyn ValueFormatter {
            &CpuFormatter
        }
    }

    struct CpuFormatter;

    impl ValueFormatter for CpuFormatter {
        fn scale_values(&self, _typical: f64, values: &mut [f64]) -> &'static str {
            values.iter_mut().for_each(|v| *v /= 1e6);
            "ms CPU"
        }
        fn scale_throughputs(
            &self,
            _typical: f64,
            t: &Throughput,
            values: &mut [f64],
        ) -> &'static str {
            let n = match t {
                Throughput::Elements(n) | Throughput::Bytes(n) | Throughput::BytesDecimal(n) => *n,
            };
            values
                .iter_mut()
                .for_each(|v| *v = n as f64 / (*v / 1e9) / 1e6);
            "M/s CPU"
        }
        fn scale_for_machines(&self, _values: &mut [f64]) -> &'static str {
            "ns"
        }
    }
}

#[cfg(target_os = "linux")]
fn cpu(c: &mut Criterion<cpu::ThreadCpuTime>) {
    bench_perft(c, "kalah-6-4-start-cpu");
}

criterion_group!(wall_benches, wall);
#[cfg(target_os = "linux")]
criterion_group! {
    name = cpu_benches;
    config = Criterion::default().with_measurement(cpu::ThreadCpuTime);
    targets = cpu
}
#[cfg(target_os = "linux")]
criterion_main!(wall_benches, cpu_benches);
#[cfg(not(target_os = "linux"))]
criterion_main!(wall_benches);
