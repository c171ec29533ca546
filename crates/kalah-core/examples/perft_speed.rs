//! Perft throughput on Kalah(6,4) from the start, standard rules:
//! `cargo run --release -p kalah-core --example perft_speed [DEPTH]` (default 10).
//!
//! Prints, for bulk perft (the last ply counted) and full perft (every leaf move played), the
//! count, the wall-clock time and the moves per second; on Linux also the process CPU time and
//! the rate by CPU time, which is steadier when other processes share the machine.
use kalah_core::{perft, perft_full, Position, Rules, Start};
use std::time::Instant;

/// User + system CPU time of this process in seconds, from /proc/self/stat (Linux only).
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let fields: Vec<&str> = stat.rsplit(')').next()?.split_whitespace().collect();
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) / 100.0) // clock ticks; 100 per second on Linux
}

fn main() {
    let depth: u32 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(10);
    let rules = Rules::default();
    let pos = Position::start(&Start::uniform(6, 4).expect("Kalah(6,4)"), &rules);
    type Perft = fn(&Position, &Rules, u32) -> u64;
    for (name, f) in [("bulk", perft as Perft), ("full", perft_full as Perft)] {
        let cpu0 = cpu_seconds();
        let t = Instant::now();
        let n = f(&pos, &rules, depth);
        let wall = t.elapsed().as_secs_f64();
        let mut line = format!(
            "{name}: perft({depth}) = {n} in {wall:.3} s wall = {:.1} M moves/s",
            n as f64 / wall / 1e6
        );
        if let (Some(a), Some(b)) = (cpu0, cpu_seconds()) {
            let cpu = b - a;
            if cpu > 0.0 {
                line += &format!("; {cpu:.2} s CPU = {:.1} M moves/s", n as f64 / cpu / 1e6);
            }
        }
        println!("{line}");
    }
}
