//! The engine on two threads (`Engine::set_threads`): the `perfect` level plays only proven-best
//! actions, hints equal the one-thread values, and the limits still hold.

use std::time::{Duration, Instant};

use kalah_core::{CaptureRule, Move, Position, Rules, Start};
use kalah_engine::{Engine, Level, Limits};
use kalah_solver::Solver;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// A generous budget: the machine running the tests may be busy, and every position here is
/// proven in well under a second on one core.
const GENEROUS: Limits = Limits {
    time: Some(Duration::from_secs(20)),
    nodes: None,
};

fn rules(capture: CaptureRule) -> Rules {
    Rules {
        capture,
        ..Rules::default()
    }
}

fn two_threads(level: Level, seed: u64) -> Engine {
    let mut e = Engine::with_seed(level, seed);
    e.set_threads(2);
    assert_eq!(e.threads(), 2);
    e
}

/// The exact value of every legal action of `pos` by a one-thread solver, in legal-move order.
fn exact_values(pos: &Position, rules: &Rules) -> Vec<(Move, i32)> {
    Solver::new(*rules, 8)
        .analyze_moves(pos)
        .unwrap()
        .into_iter()
        .map(|s| (s.mv, s.value))
        .collect()
}

#[test]
fn thread_count_defaults_to_one_and_zero_counts_as_one() {
    let mut e = Engine::new(Level::Perfect);
    assert_eq!(e.threads(), 1);
    e.set_threads(0);
    assert_eq!(e.threads(), 1);
    e.set_threads(3);
    assert_eq!(e.threads(), 3);
}

/// Plays whole games of the two-thread `perfect` level against a random mover (and itself) and
/// checks every one of its choices against a one-thread solver's exact values.
#[test]
fn perfect_on_two_threads_plays_only_proven_best_actions() {
    let mut checked = 0;
    for (m, n) in [(4, 3), (5, 2), (3, 4)] {
        for capture in [CaptureRule::Standard, CaptureRule::Empty] {
            let rules = rules(capture);
            let start = Position::start(&Start::uniform(m, n).unwrap(), &rules);
            for game in 0..3u64 {
                let mut engine = two_threads(Level::Perfect, game);
                let mut rng = StdRng::seed_from_u64(game);
                let mut pos = start;
                let mut ply = 0;
                while pos.to_move().is_some() {
                    // Game 0: the engine plays both sides; otherwise every other ply is random.
                    let engine_moves = game == 0 || ply % 2 == (game as usize % 2);
                    let mv = if engine_moves {
                        let exact = exact_values(&pos, &rules);
                        let best = exact.iter().map(|&(_, v)| v).max().unwrap();
                        let c = engine.choose_with(&pos, &rules, GENEROUS).unwrap();
                        assert!(c.exact, "Kalah({m},{n}) {capture} at {pos}: not proven");
                        assert_eq!(c.value, Some(best), "Kalah({m},{n}) {capture} at {pos}");
                        let chosen = exact.iter().find(|&&(mv, _)| mv == c.mv);
                        assert_eq!(
                            chosen.map(|&(_, v)| v),
                            Some(best),
                            "Kalah({m},{n}) {capture} at {pos}: {} is not a best action ({exact:?})",
                            c.mv
                        );
                        assert_eq!(c.pv.first(), Some(&c.mv));
                        checked += 1;
                        c.mv
                    } else {
                        let legal = pos.legal_moves(&rules);
                        legal[rng.gen_range(0..legal.len())]
                    };
                    pos.play(&rules, mv).unwrap();
                    ply += 1;
                    assert!(ply < 500);
                }
            }
        }
    }
    // Every game has engine moves; most have many.
    assert!(checked > 60, "only {checked} choices checked");
}

/// Positions of several boards and rules (the start, a pie-rule start with `swap` among North's
/// actions, and positions after a few random plies), with a hint on two threads that must equal
/// the one-thread engine's and the solver's exact values.
#[test]
fn hint_on_two_threads_equals_one_thread_values() {
    let mut rng = StdRng::seed_from_u64(5);
    let mut cases: Vec<(Position, Rules)> = Vec::new();
    for (m, n) in [(4, 3), (5, 2), (3, 4), (6, 2)] {
        for capture in [CaptureRule::Standard, CaptureRule::Empty] {
            let rules = rules(capture);
            let start = Position::start(&Start::uniform(m, n).unwrap(), &rules);
            cases.push((start, rules));
            for plies in [3, 8] {
                let mut pos = start;
                for _ in 0..plies {
                    let legal = pos.legal_moves(&rules);
                    if legal.is_empty() {
                        break;
                    }
                    pos.play(&rules, legal[rng.gen_range(0..legal.len())])
                        .unwrap();
                }
                if pos.to_move().is_some() {
                    cases.push((pos, rules));
                }
            }
        }
    }
    let pie = Rules {
        pie: true,
        ..Rules::default()
    };
    let mut p = Position::start(&Start::uniform(4, 3).unwrap(), &pie);
    p.play(&pie, Move::Sow(1)).unwrap();
    assert!(p.legal_moves(&pie).contains(&Move::Swap));
    cases.push((p, pie));

    // One engine each for the whole run, so that the table is kept between positions as in a
    // game (and across boards and rules, which the engine must handle).
    let mut two = two_threads(Level::Perfect, 1);
    let mut one = Engine::with_seed(Level::Perfect, 1);
    for (pos, rules) in &cases {
        let exact = exact_values(pos, rules);
        let h2 = two.hint(pos, rules, GENEROUS);
        let h1 = one.hint(pos, rules, GENEROUS);
        let as_pairs = |h: &[kalah_engine::MoveValue]| {
            assert!(h.iter().all(|v| v.exact), "{pos}: not all exact: {h:?}");
            h.iter().map(|v| (v.mv, v.value)).collect::<Vec<_>>()
        };
        assert_eq!(as_pairs(&h2), exact, "two threads at {pos} ({rules:?})");
        assert_eq!(as_pairs(&h1), exact, "one thread at {pos} ({rules:?})");
    }
    // A finished game has no hint on two threads either.
    let over: Position = "0,0,0,10,0,0,0,14".parse().unwrap();
    assert!(two.hint(&over, &Rules::default(), GENEROUS).is_empty());
}

/// Kalah(6,6): far too big to prove within the limits below, so a search that ignored them
/// would run for minutes.
fn big_start() -> (Position, Rules) {
    let rules = Rules::default();
    (
        Position::start(&Start::uniform(6, 6).unwrap(), &rules),
        rules,
    )
}

#[test]
fn tiny_limits_on_two_threads_still_give_a_legal_action_quickly() {
    let (pos, rules) = big_start();
    let legal = pos.legal_moves(&rules);
    for limits in [
        Limits {
            time: None,
            nodes: Some(1),
        },
        Limits {
            time: None,
            nodes: Some(20_000),
        },
        Limits {
            time: Some(Duration::from_millis(1)),
            nodes: None,
        },
        Limits {
            time: Some(Duration::from_millis(50)),
            nodes: None,
        },
    ] {
        let mut e = two_threads(Level::Perfect, 2);
        let clock = Instant::now();
        let c = e.choose_with(&pos, &rules, limits).unwrap();
        let hint = e.hint(&pos, &rules, limits);
        let took = clock.elapsed();
        assert!(legal.contains(&c.mv), "{limits:?}: {}", c.mv);
        assert!(!c.exact, "{limits:?}: Kalah(6,6) proven within the limit?");
        assert_eq!(
            hint.iter().map(|h| h.mv).collect::<Vec<_>>(),
            legal.to_vec(),
            "{limits:?}"
        );
        assert!(hint.iter().any(|h| !h.exact), "{limits:?}");
        // Generous for a busy machine; without the limits both would take minutes.
        assert!(took < Duration::from_secs(20), "{limits:?}: took {took:?}");
        if let Some(n) = limits.nodes {
            // The choice reports both searches, the exact attempt and the fallback one (which
            // gets what the attempt left, and completes depth 1 whatever the limit): within
            // the limit plus one poll interval (1024 nodes) for each thread of the attempt and
            // one for the fallback.
            assert!(c.nodes <= n + 3 * 1024, "{limits:?}: {c:?}");
        }
    }
}

/// A node limit bounds the nodes of both threads together, and of the exact attempt and the
/// search after it together (tester 109: the nodes of the attempt went unreported, and the
/// search after it had the whole limit again): at most the limit plus the solver's poll
/// interval, 1024 nodes, per thread of the attempt and for the search after it.
#[test]
fn a_node_limit_counts_the_nodes_of_both_threads() {
    let rules = Rules::default();
    let pos = Position::start(&Start::uniform(5, 3).unwrap(), &rules);
    // One thread proves Kalah(5,3) in a few hundred thousand nodes.
    let mut one = Engine::with_seed(Level::Perfect, 1);
    let full = one.choose_with(&pos, &rules, GENEROUS).unwrap();
    assert!(full.exact);
    for divisor in [1, 2, 3] {
        let n = full.nodes * 2 / divisor;
        let limits = Limits {
            time: Some(Duration::from_secs(20)),
            nodes: Some(n),
        };
        let mut two = two_threads(Level::Perfect, 1);
        let c = two.choose_with(&pos, &rules, limits).unwrap();
        assert!(
            c.nodes <= n + 3 * 1024,
            "limit {n}: {} nodes reported (exact {})",
            c.nodes,
            c.exact
        );
        assert!(pos.legal_moves(&rules).contains(&c.mv));
    }
}

/// A hint stopped by a limit on two threads leaves the engine fit to search: the next exact
/// attempts are not stopped at once by a flag left over from the stopped analysis.
#[test]
fn a_stopped_hint_does_not_stop_the_next_searches() {
    let (pos, rules) = big_start();
    // A middle game of the same board and rules that one thread proves in a few hundred
    // thousand nodes (far more than the solver's poll interval, 1024 nodes, so a set stop flag
    // would stop it).
    let mid: Position = "3,2,4,1,0,2,26,2,3,1,2,0,3,23 S".parse().unwrap();
    let exact = exact_values(&mid, &rules);
    let best = exact.iter().map(|&(_, v)| v).max();
    let stop_a_hint = |e: &mut Engine| {
        let stopped = e.hint(
            &pos,
            &rules,
            Limits {
                time: Some(Duration::from_secs(5)),
                nodes: Some(50_000),
            },
        );
        assert!(stopped.iter().any(|h| !h.exact));
    };
    let mut e = two_threads(Level::Perfect, 3);
    stop_a_hint(&mut e);
    let c = e.choose_with(&mid, &rules, GENEROUS).unwrap();
    assert!(c.exact, "{c:?}");
    assert_eq!(c.value, best);

    let mut e = two_threads(Level::Perfect, 3);
    stop_a_hint(&mut e);
    let hint = e.hint(&mid, &rules, GENEROUS);
    assert!(hint.iter().all(|h| h.exact), "{hint:?}");
    assert_eq!(
        hint.iter().map(|h| (h.mv, h.value)).collect::<Vec<_>>(),
        exact
    );
    // A stopped proof on two threads, then a proof and a hint.
    let c = e
        .choose_with(
            &pos,
            &rules,
            Limits {
                time: None,
                nodes: Some(10_000),
            },
        )
        .unwrap();
    assert!(!c.exact);
    let c = e.choose_with(&mid, &rules, GENEROUS).unwrap();
    assert!(c.exact, "{c:?}");
    let hint = e.hint(&mid, &rules, GENEROUS);
    assert!(hint.iter().all(|h| h.exact), "{hint:?}");
}
