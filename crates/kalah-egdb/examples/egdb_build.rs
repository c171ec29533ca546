//! Builds Kalah(m,·) databases into a directory and prints the rate of every layer.
//!
//! `cargo run --release -p kalah-egdb --example egdb_build -- DIR HOUSES MAX_SEEDS [THREADS] [empty]`

use std::sync::atomic::AtomicBool;

use kalah_core::{CaptureRule, Rules};
use kalah_egdb::{BuildEvent, BuildPlan};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 4 {
        eprintln!("usage: egdb_build DIR HOUSES MAX_SEEDS [THREADS] [empty]");
        std::process::exit(2);
    }
    let mut rules = Rules::default();
    if args.get(5).is_some_and(|s| s == "empty") {
        rules.capture = CaptureRule::Empty;
    }
    let plan = BuildPlan {
        root: args[1].clone().into(),
        houses: args[2].parse().expect("HOUSES"),
        rules,
        max_seeds: args[3].parse().expect("MAX_SEEDS"),
        threads: args.get(4).map(|s| s.parse().expect("THREADS")),
    };
    let report = plan
        .run(&AtomicBool::new(false), &|e| {
            if let BuildEvent::LayerWritten {
                seeds,
                count,
                seconds,
            } = e
            {
                println!(
                    "k={seeds:3} {count:>13} positions {seconds:8.2} s {:8.2} M/s",
                    *count as f64 / seconds / 1e6
                );
            }
        })
        .unwrap_or_else(|e| {
            eprintln!("error: {e}");
            std::process::exit(1)
        });
    println!(
        "built {} layers ({} positions) in {:.2} s: {:.2} M positions/s",
        report.built_layers,
        report.positions_built,
        report.seconds,
        report.positions_built as f64 / report.seconds / 1e6
    );
}
