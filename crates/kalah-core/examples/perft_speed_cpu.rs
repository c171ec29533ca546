use kalah_core::{perft, perft_full, Position, Rules, Start};
use std::time::Instant;
fn cpu() -> f64 {
    let s = std::fs::read_to_string("/proc/self/stat").unwrap();
    let f: Vec<&str> = s.rsplit(')').next().unwrap().split_whitespace().collect();
    (f[11].parse::<f64>().unwrap() + f[12].parse::<f64>().unwrap()) / 100.0
}
fn main() {
    let depth: u32 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(10);
    let rules = Rules::default();
    let pos = Position::start(&Start::uniform(6, 4).unwrap(), &rules);
    for (name, f) in [("bulk", perft as fn(&Position, &Rules, u32) -> u64), ("full", perft_full)] {
        let t = Instant::now(); let c = cpu();
        let n = f(&pos, &rules, depth);
        let s = t.elapsed().as_secs_f64(); let cs = cpu() - c;
        println!("{name}: perft({depth}) = {n} wall {s:.3} s = {:.1} M/s; cpu {cs:.2} s = {:.1} M/s", n as f64 / s / 1e6, n as f64 / cs / 1e6);
    }
}
