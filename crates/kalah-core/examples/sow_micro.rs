use kalah_core::{Position, Rules, Start};
use std::time::Instant;
fn cpu() -> f64 {
    let s = std::fs::read_to_string("/proc/self/stat").unwrap();
    let f: Vec<&str> = s.rsplit(')').next().unwrap().split_whitespace().collect();
    (f[11].parse::<f64>().unwrap() + f[12].parse::<f64>().unwrap()) / 100.0
}
fn main() {
    let rules = Rules::default();
    let start = Position::start(&Start::uniform(6, 4).unwrap(), &rules);
    let mut items = Vec::new();
    let mut x: u64 = 0x9E3779B97F4A7C15;
    let mut pos = start;
    while items.len() < 1 << 14 {
        let mask = pos.legal_houses();
        if mask == 0 { pos = start; continue; }
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        let k = (x % mask.count_ones() as u64) as u32;
        let mut mm = mask; for _ in 0..k { mm &= mm - 1; }
        let h = mm.trailing_zeros() as usize + 1;
        items.push((pos, h));
        pos.sow_unchecked(&rules, h);
    }
    for _ in 0..3 {
        let t = Instant::now(); let c = cpu();
        let mut acc = 0u64;
        for _ in 0..1000 {
            for &(p, h) in &items {
                let mut q = p;
                q.sow_unchecked(&rules, h);
                acc = acc.wrapping_add(q.bins()[3] as u64);
            }
        }
        let n = 1000.0 * items.len() as f64;
        println!("{:.1} ns/sow wall, {:.1} ns/sow cpu (acc {acc})", t.elapsed().as_secs_f64() / n * 1e9, (cpu() - c) / n * 1e9);
    }
}
