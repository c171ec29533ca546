//! Solves the start of Kalah(m,n), optionally with endgame databases:
//! `cargo run --release -p kalah-solver --example solve_start -- 6 4 standard 256 [EGDB_DIR]`.
mod common;

fn main() {
    let common::Setup {
        m,
        n,
        capture,
        pos,
        mut solver,
    } = common::setup();
    // TUNE=TT_MIN,ETC_MIN,C_SHIFT (e.g. 4,26,24, the defaults) for experiments.
    if let Ok(t) = std::env::var("TUNE") {
        let v: Vec<i64> = t
            .split(',')
            .map(|x| x.trim().parse().expect("TUNE=4,26,24"))
            .collect();
        solver.tune(v[0] as i32, v[1] as i32, v[2] as u32);
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
