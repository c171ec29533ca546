//! Setup shared by the solver examples: `M N [standard|empty] [TABLE_MIB] [EGDB_DIR]`, and the
//! tuning knobs `TT_MIN`, `ETC_MIN`, `C_SHIFT` from the environment (all three, or none).

use std::sync::Arc;

use kalah_core::{CaptureRule, Position, Rules, Start};
use kalah_egdb::Egdb;
use kalah_solver::Solver;

/// The board and rules of an example run and its solver, ready to search.
pub struct Setup {
    /// Houses a side.
    pub m: usize,
    /// Seeds a house at the start.
    pub n: u32,
    /// Capture rule.
    pub capture: CaptureRule,
    /// The start position of Kalah(m,n).
    pub pos: Position,
    /// The solver (databases attached if a directory was given).
    pub solver: Solver,
}

/// Parses the command line (defaults: Kalah(6,4), standard capture, 256 MiB, no databases) and
/// builds the solver. Panics with a message on bad arguments: these are developer tools.
pub fn setup() -> Setup {
    let a: Vec<String> = std::env::args().collect();
    let m: usize = a.get(1).map_or(6, |s| s.parse().expect("houses"));
    let n: u32 = a.get(2).map_or(4, |s| s.parse().expect("seeds"));
    let capture = if a.get(3).map(String::as_str) == Some("empty") {
        CaptureRule::Empty
    } else {
        CaptureRule::Standard
    };
    let mib: usize = a.get(4).map_or(256, |s| s.parse().expect("table MiB"));
    let rules = Rules {
        capture,
        ..Rules::default()
    };
    let pos = Position::start(&Start::uniform(m, n).expect("board"), &rules);
    let mut solver = Solver::new(rules, mib);
    if let Some(dir) = a.get(5) {
        let db = Egdb::open(std::path::Path::new(dir), m, &rules)
            .expect("databases readable")
            .expect("databases present");
        solver.set_egdb(Some(Arc::new(db)));
    }
    if let (Ok(a), Ok(b), Ok(c)) = (
        std::env::var("TT_MIN"),
        std::env::var("ETC_MIN"),
        std::env::var("C_SHIFT"),
    ) {
        solver.tune(
            a.parse().expect("TT_MIN"),
            b.parse().expect("ETC_MIN"),
            c.parse().expect("C_SHIFT"),
        );
    }
    Setup {
        m,
        n,
        capture,
        pos,
        solver,
    }
}
