//! Times the `perfect` level's first choice and a hint on one board's start position, with one
//! thread and with several (`Engine::set_threads`).
//!
//! ```text
//! cargo run --release -p kalah-engine --example engine_threads -- \
//!     [--houses M] [--seeds N] [--capture standard|empty] [--seconds S] [--egdb DIR] [THREADS...]
//! ```
//!
//! Defaults: Kalah(6,4), standard capture, a budget of 120 seconds per action (so that the
//! proof finishes: the figure is then the time to prove; the engine gives 70 % of the budget to
//! the proof), no endgame databases, threads 1 and 2. `--egdb DIR` opens the databases of the
//! board and rules in DIR (the parent of the per-set directories, as `kalah --egdb-dir`). Each
//! run uses a fresh engine (an empty transposition table). Prints one line per run: threads,
//! what was timed, wall-clock and CPU seconds (the process's user + system time, all threads;
//! Linux only, else 0), whether the values are exact, the value(s) and the nodes.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use kalah_core::{CaptureRule, Position, Rules, Start};
use kalah_egdb::Egdb;
use kalah_engine::{Engine, Level, Limits};

/// CPU seconds (user + system) of this process so far, from `/proc/self/stat`; 0 if unknown.
fn cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    // Fields after the command name (which ends with the last ')'): utime and stime are the
    // 12th and 13th, in clock ticks (100 a second on Linux).
    let fields: Vec<&str> = stat
        .rsplit(')')
        .next()
        .unwrap_or("")
        .split_whitespace()
        .collect();
    let tick = |i: usize| fields.get(i).and_then(|s| s.parse::<f64>().ok());
    match (tick(11), tick(12)) {
        (Some(u), Some(s)) => (u + s) / 100.0,
        _ => 0.0,
    }
}

fn main() {
    let mut houses = 6;
    let mut seeds = 4;
    let mut capture = CaptureRule::Standard;
    let mut seconds = 120;
    let mut egdb_dir: Option<PathBuf> = None;
    let mut threads: Vec<usize> = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| panic!("{a} needs a value"));
        match a.as_str() {
            "--houses" => houses = value().parse().expect("a number of houses"),
            "--seeds" => seeds = value().parse().expect("a number of seeds"),
            "--capture" => {
                capture = match value().as_str() {
                    "standard" => CaptureRule::Standard,
                    "empty" => CaptureRule::Empty,
                    other => panic!("capture rule '{other}': standard or empty"),
                }
            }
            "--seconds" => seconds = value().parse().expect("seconds"),
            "--egdb" => egdb_dir = Some(PathBuf::from(value())),
            t => threads.push(t.parse().expect("a thread count")),
        }
    }
    if threads.is_empty() {
        threads = vec![1, 2];
    }
    let rules = Rules {
        capture,
        ..Rules::default()
    };
    let start = Start::uniform(houses, seeds).expect("a valid board");
    let pos = Position::start(&start, &rules);
    let egdb = egdb_dir.as_ref().map(|d| {
        Arc::new(
            Egdb::open(d, houses, &rules)
                .expect("readable databases")
                .expect("databases of this board and rules"),
        )
    });
    let limits = Limits {
        time: Some(Duration::from_secs(seconds)),
        nodes: None,
    };
    println!(
        "Kalah({houses},{seeds}) {capture} capture, budget {seconds} s per action, databases: {}",
        egdb.as_ref().map_or("none".to_string(), |db| format!(
            "{} (layers 0..={})",
            egdb_dir
                .as_ref()
                .map_or(String::new(), |d| d.display().to_string()),
            db.max_seeds()
        ))
    );
    let fresh = |t: usize| {
        let mut e = Engine::new(Level::Perfect);
        e.set_egdb(egdb.clone());
        e.set_threads(t);
        e
    };
    for &t in &threads {
        let mut engine = fresh(t);
        let (clock, cpu) = (Instant::now(), cpu_seconds());
        let c = engine
            .choose_with(&pos, &rules, limits)
            .expect("the game is not over");
        println!(
            "threads {t}: choose {:>8.3} s wall {:>8.2} s cpu  exact {}  move {}  value {:+}  nodes {}",
            clock.elapsed().as_secs_f64(),
            cpu_seconds() - cpu,
            c.exact,
            c.mv,
            c.value.unwrap_or(0),
            c.nodes
        );
        let mut engine = fresh(t);
        let (clock, cpu) = (Instant::now(), cpu_seconds());
        let hint = engine.hint(&pos, &rules, limits);
        let (wall, cpu) = (clock.elapsed().as_secs_f64(), cpu_seconds() - cpu);
        let values: Vec<String> = hint
            .iter()
            .map(|h| format!("{}:{:+}{}", h.mv, h.value, if h.exact { "" } else { "?" }))
            .collect();
        println!(
            "threads {t}: hint   {wall:>8.3} s wall {cpu:>8.2} s cpu  exact {}  {}",
            hint.iter().all(|h| h.exact),
            values.join(" ")
        );
    }
}
