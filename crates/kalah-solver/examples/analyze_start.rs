//! Values every first turn of Kalah(m,n), optionally with endgame databases:
//! `cargo run --release -p kalah-solver --example analyze_start -- 6 4 standard 256 /tmp/egdb28`.
mod common;

fn main() {
    let common::Setup {
        m,
        n,
        capture,
        pos,
        mut solver,
    } = common::setup();
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
