//! Perft throughput on Kalah(6,4): `cargo run --release -p kalah-core --example perft_speed [DEPTH]`.
use kalah_core::{perft, perft_full, Position, Rules, Start};
use std::time::Instant;

fn main() {
    let depth: u32 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(10);
    let rules = Rules::default();
    let pos = Position::start(&Start::uniform(6, 4).unwrap(), &rules);
    for (name, f) in [("bulk", perft as fn(&Position, &Rules, u32) -> u64), ("full", perft_full)] {
        let t = Instant::now();
        let n = f(&pos, &rules, depth);
        let s = t.elapsed().as_secs_f64();
        println!("{name}: perft({depth}) = {n} in {s:.3} s = {:.1} M moves/s", n as f64 / s / 1e6);
    }
}
