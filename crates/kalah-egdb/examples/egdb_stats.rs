//! Value statistics of built layers, to size a 4-bit encoding with an escape against one byte.
//!
//! `cargo run --release -p kalah-egdb --example egdb_stats -- DIR HOUSES [empty]`
//!
//! For each layer: the share of entries that fit 15 codes (one 4-bit code left as the escape),
//! for the raw gain in −7..=7, and for the gain minus the owner-sweep baseline (seeds in the
//! mover's row minus the opponent's) in −7..=7; and the resulting sizes, counting 8 bytes per
//! escaped entry (a sorted (rank, value) exception list).

use kalah_core::{CaptureRule, Rules};
use kalah_egdb::{Egdb, Indexer};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mut rules = Rules::default();
    if args.get(3).is_some_and(|s| s == "empty") {
        rules.capture = CaptureRule::Empty;
    }
    let m: usize = args[2].parse().expect("HOUSES");
    let db = Egdb::open(args[1].as_ref(), m, &rules)
        .expect("open")
        .expect("no layers");
    let ix = Indexer::new(m, db.max_seeds()).unwrap();
    let (mut tot, mut byte, mut raw4, mut rel4) = (0u64, 0u64, 0u64, 0u64);
    for k in 0..=db.max_seeds() {
        let vals = db.layer_values(k);
        let n = vals.len() as u64;
        let mut x = vec![0u8; 2 * m];
        ix.unrank(k, 0, &mut x);
        let (mut esc_raw, mut esc_rel) = (0u64, 0u64);
        let mut hist = [0u64; 256];
        for &v in vals {
            let v = v as i8 as i32;
            hist[(v + 128) as usize] += 1;
            let a: i32 = x[..m].iter().map(|&s| s as i32).sum();
            let b = k as i32 - a;
            if !(-7..=7).contains(&v) {
                esc_raw += 1;
            }
            if !(-7..=7).contains(&(v - (a - b))) {
                esc_rel += 1;
            }
            next(&mut x);
        }
        // The best window of 15 consecutive values for this layer.
        let best_in = (0..256 - 15)
            .map(|lo| hist[lo..lo + 15].iter().sum::<u64>())
            .max()
            .unwrap_or(0);
        let esc_best = n - best_in;
        let r4 = n.div_ceil(2) + 8 * esc_best.min(esc_raw);
        let q4 = n.div_ceil(2) + 8 * esc_rel;
        println!(
            "k={k:2} n={n:>11} escaped raw {:6.3}% best window {:6.3}% rel {:6.3}%  bytes: byte {n} 4bit-best {r4} 4bit-rel {q4}",
            100.0 * esc_raw as f64 / n as f64,
            100.0 * esc_best as f64 / n as f64,
            100.0 * esc_rel as f64 / n as f64
        );
        tot += n;
        byte += n;
        raw4 += r4;
        rel4 += q4;
    }
    println!(
        "total {tot} entries: byte {byte} B, 4-bit best window {raw4} B ({:.2}x), 4-bit relative {rel4} B ({:.2}x)",
        byte as f64 / raw4 as f64,
        byte as f64 / rel4 as f64
    );
}

/// Next arrangement in rank order (lexicographic).
fn next(x: &mut [u8]) {
    let n = x.len();
    if x[n - 1] > 0 {
        x[n - 2] += 1;
        x[n - 1] -= 1;
        return;
    }
    let mut j = n - 1;
    while j > 0 && x[j] == 0 {
        j -= 1;
    }
    if j == 0 {
        return;
    }
    let v = x[j];
    x[j] = 0;
    x[j - 1] += 1;
    x[n - 1] = v - 1;
}
