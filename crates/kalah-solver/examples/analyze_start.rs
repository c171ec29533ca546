//! Values every first turn of Kalah(m,n), optionally with endgame databases:
//! `cargo run --release -p kalah-solver --example analyze_start -- 6 4 standard 256 /tmp/egdb28`.
use std::sync::Arc;

use kalah_core::{CaptureRule, Position, Rules, Start};
use kalah_egdb::Egdb;
use kalah_solver::Solver;

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let m: usize = a.get(1).map_or(6, |s| s.parse().unwrap());
    let n: u32 = a.get(2).map_or(4, |s| s.parse().unwrap());
    let capture = if a.get(3).map(String::as_str) == Some("empty") {
        CaptureRule::Empty
    } else {
        CaptureRule::Standard
    };
    let mib: usize = a.get(4).map_or(256, |s| s.parse().unwrap());
    let rules = Rules {
        capture,
        ..Rules::default()
    };
    let pos = Position::start(&Start::uniform(m, n).unwrap(), &rules);
    let mut solver = Solver::new(rules, mib);
    if let Some(dir) = a.get(5) {
        let db = Egdb::open(std::path::Path::new(dir), m, &rules)
            .unwrap()
            .expect("databases");
        solver.set_egdb(Some(Arc::new(db)));
    }
    let t = std::time::Instant::now();
    let turns = solver.analyze_turns(&pos).unwrap();
    let stats = solver.last_stats();
    for t in &turns {
        println!("{:>8} {:+}", t.turn.to_string(), t.value);
    }
    println!(
        "Kalah({m},{n}) {capture:?}: {} turns, nodes {} hits {} time {:.2}s",
        turns.len(),
        stats.nodes,
        stats.tt_hits,
        t.elapsed().as_secs_f64()
    );
    if std::env::var("PASSES").is_ok() {
        for p in solver.passes() {
            eprintln!("pass beta {:+} -> {:+}: {} nodes", p.0, p.1, p.2);
        }
    }
}
