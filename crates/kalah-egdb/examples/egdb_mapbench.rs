//! Measures random single-byte reads from memory-mapped layer files under different mapping
//! hints (a stand-in for the solver's probes).
//!
//! `cargo run --release -p kalah-egdb --example egdb_mapbench -- SETDIR FIRST LAST READS MODE`
//!
//! MODE: `plain`, `random`, `hugepage`, `willneed`, `populate`, `heap` (read into memory).

use std::time::Instant;

use memmap2::{Advice, Mmap, MmapOptions};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = std::path::Path::new(&args[1]);
    let first: u32 = args[2].parse().unwrap();
    let last: u32 = args[3].parse().unwrap();
    let reads: u64 = args[4].parse().unwrap();
    let mode = args[5].as_str();
    let t0 = Instant::now();
    let mut maps: Vec<Mmap> = Vec::new();
    let mut heaps: Vec<Vec<u8>> = Vec::new();
    for k in first..=last {
        let f = std::fs::File::open(dir.join(format!("k{k:03}.egdb"))).unwrap();
        let mut o = MmapOptions::new();
        if mode == "populate" {
            o.populate();
        }
        let m = unsafe { o.map(&f) }.unwrap();
        match mode {
            "random" => m.advise(Advice::Random).unwrap(),
            "hugepage" => m.advise(Advice::HugePage).unwrap(),
            "willneed" => m.advise(Advice::WillNeed).unwrap(),
            _ => {}
        }
        if mode == "heap" {
            heaps.push(m.to_vec());
        }
        maps.push(m);
    }
    let t_open = t0.elapsed().as_secs_f64();
    let t1 = Instant::now();
    let mut s = 0x9E3779B97F4A7C15u64;
    let mut acc = 0u64;
    let n = maps.len() as u64;
    for _ in 0..reads {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        let l = (s % n) as usize;
        let len = maps[l].len() as u64;
        let i = ((s >> 20) % len) as usize;
        acc += if mode == "heap" {
            heaps[l][i]
        } else {
            maps[l][i]
        } as u64;
    }
    let t_read = t1.elapsed().as_secs_f64();
    println!(
        "{mode}: open {t_open:.3} s, {reads} reads in {t_read:.3} s = {:.1} ns/read (acc {acc})",
        t_read * 1e9 / reads as f64
    );
}
