//! Solves the start of Kalah(m,n): `cargo run --release -p kalah-solver --example solve_start -- 6 4 standard 256`.
use kalah_core::{CaptureRule, Position, Rules, Start};
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
    if let (Ok(a), Ok(b), Ok(c)) = (
        std::env::var("TT_MIN"),
        std::env::var("ETC_MIN"),
        std::env::var("C_SHIFT"),
    ) {
        solver.tune(a.parse().unwrap(), b.parse().unwrap(), c.parse().unwrap());
    }
    if std::env::var("PROGRESS").is_ok() {
        let mut last = (i32::MIN, i32::MAX);
        solver.set_progress(move |p| {
            if (p.lower, p.upper) != last {
                last = (p.lower, p.upper);
                eprintln!(
                    "bounds {:+}..{:+} after {} nodes, {:.1} s",
                    p.lower,
                    p.upper,
                    p.nodes,
                    p.elapsed.as_secs_f64()
                );
            }
        });
    }
    let sol = solver.solve(&pos).unwrap();
    if std::env::var("PASSES").is_ok() {
        for p in solver.passes() {
            eprintln!("pass beta {:+} -> {:+}: {} nodes", p.0, p.1, p.2);
        }
    }
    println!(
        "Kalah({m},{n}) {capture:?}: value {} best {:?} nodes {} hits {} time {:.2}s ({:.1} Mn/s) pv {:?}",
        sol.value,
        sol.best,
        sol.stats.nodes,
        sol.stats.tt_hits,
        sol.stats.elapsed.as_secs_f64(),
        sol.stats.nodes_per_second() / 1e6,
        sol.pv.len()
    );
}
