//! The engine's stop flag (`Engine::set_stop_flag`, `Engine::stop_flag`): a flag set before or
//! during a search ends it quickly with a legal action (or one value per legal action for a
//! hint), never a wrong exact value, on one thread and on two; after the caller resets it, the
//! same engine searches as an engine never stopped.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use kalah_core::{CaptureRule, Move, Position, Rules, Start};
use kalah_engine::{Engine, Level, Limits, MoveValue};
use kalah_solver::Solver;

/// A budget far longer than any test may take: only the stop flag ends these searches early.
const LONG: Limits = Limits {
    time: Some(Duration::from_secs(60)),
    nodes: None,
};

/// Generous enough for every small position here to be proven on a busy machine.
const GENEROUS: Limits = Limits {
    time: Some(Duration::from_secs(20)),
    nodes: None,
};

/// How long a stopped search may take here: the stop acts within about a tenth of a second, plus
/// the 200 ms grace search; the rest is room for a machine busy with other builds.
const QUICK: Duration = Duration::from_secs(3);

fn big() -> (Position, Rules) {
    // Kalah(6,6), standard capture: far from provable within the tests' time.
    let rules = Rules::default();
    (
        Position::start(&Start::uniform(6, 6).unwrap(), &rules),
        rules,
    )
}

fn engine(level: Level, threads: usize) -> Engine {
    let mut e = Engine::with_seed(level, 7);
    e.set_threads(threads);
    e
}

/// The exact value of every legal action of `pos` by a fresh one-thread solver.
fn exact_values(pos: &Position, rules: &Rules) -> Vec<(Move, i32)> {
    Solver::new(*rules, 8)
        .analyze_moves(pos)
        .unwrap()
        .into_iter()
        .map(|s| (s.mv, s.value))
        .collect()
}

/// Every value marked exact in `hint` is the true one, and `hint` has one value per legal action
/// in legal-move order.
fn check_hint(hint: &[MoveValue], pos: &Position, rules: &Rules, truth: Option<&[(Move, i32)]>) {
    let legal = pos.legal_moves(rules);
    let moves: Vec<Move> = hint.iter().map(|v| v.mv).collect();
    assert_eq!(moves, legal.to_vec(), "{pos}");
    if let Some(truth) = truth {
        for (v, &(mv, value)) in hint.iter().zip(truth) {
            assert_eq!(v.mv, mv);
            if v.exact {
                assert_eq!(
                    v.value, value,
                    "{pos}: {mv} marked exact with a wrong value"
                );
            }
        }
    }
}

#[test]
fn each_engine_has_its_own_cleared_flag_and_set_stop_flag_replaces_it() {
    let mut a = Engine::new(Level::Medium);
    let b = Engine::new(Level::Medium);
    assert!(!a.stop_flag().load(Ordering::SeqCst));
    assert!(!Arc::ptr_eq(&a.stop_flag(), &b.stop_flag()));
    let flag = Arc::new(AtomicBool::new(false));
    a.set_stop_flag(Arc::clone(&flag));
    assert!(Arc::ptr_eq(&a.stop_flag(), &flag));
}

#[test]
fn a_flag_set_before_the_search_returns_at_once_with_a_legal_action() {
    let (pos, rules) = big();
    let legal = pos.legal_moves(&rules);
    for threads in [1, 2] {
        for level in Level::ALL {
            let mut e = engine(level, threads);
            e.stop_flag().store(true, Ordering::SeqCst);
            let t = Instant::now();
            let c = e.choose_with(&pos, &rules, LONG).unwrap();
            assert!(
                t.elapsed() < QUICK,
                "{level} on {threads} thread(s): {:?}",
                t.elapsed()
            );
            assert!(legal.contains(&c.mv), "{level}: {} is not legal", c.mv);
            assert!(!c.exact, "{level}: Kalah(6,6) cannot be proven at once");
            // The engine never clears the flag: that is the caller's job.
            assert!(e.stop_flag().load(Ordering::SeqCst));
        }
        let mut e = engine(Level::Perfect, threads);
        e.stop_flag().store(true, Ordering::SeqCst);
        let t = Instant::now();
        let hint = e.hint(&pos, &rules, LONG);
        assert!(t.elapsed() < QUICK, "hint: {:?}", t.elapsed());
        check_hint(&hint, &pos, &rules, None);
        assert!(hint.iter().all(|v| !v.exact));
    }
}

#[test]
fn a_flag_set_while_searching_stops_every_thread_quickly() {
    let (pos, rules) = big();
    let legal = pos.legal_moves(&rules);
    for threads in [1, 2] {
        for level in [Level::Expert, Level::Perfect] {
            let mut e = engine(level, threads);
            let flag = e.stop_flag();
            let t = Instant::now();
            let c = std::thread::scope(|s| {
                s.spawn(|| {
                    std::thread::sleep(Duration::from_millis(300));
                    flag.store(true, Ordering::SeqCst);
                });
                e.choose_with(&pos, &rules, LONG)
            })
            .unwrap();
            let took = t.elapsed();
            assert!(
                took < Duration::from_millis(300) + QUICK,
                "{level} on {threads} thread(s): {took:?}"
            );
            assert!(legal.contains(&c.mv));
            // The best found so far: more than the one-ply guess.
            assert!(c.depth > 1, "{level}: depth {}", c.depth);
            assert_eq!(c.pv.first(), Some(&c.mv));
        }
        let mut e = engine(Level::Perfect, threads);
        let flag = e.stop_flag();
        let t = Instant::now();
        let hint = std::thread::scope(|s| {
            s.spawn(|| {
                std::thread::sleep(Duration::from_millis(300));
                flag.store(true, Ordering::SeqCst);
            });
            e.hint(&pos, &rules, LONG)
        });
        let took = t.elapsed();
        assert!(
            took < Duration::from_millis(300) + QUICK,
            "hint on {threads} thread(s): {took:?}"
        );
        check_hint(&hint, &pos, &rules, None);
    }
}

/// Small positions: a stopped hint marks exact only true values; after the reset the same engine
/// gives every exact value, as a fresh engine does, and `perfect` proves its move again.
#[test]
fn after_a_stop_and_a_reset_the_engine_gives_the_right_values() {
    for (m, n, capture) in [
        (4, 3, CaptureRule::Standard),
        (3, 4, CaptureRule::Empty),
        (5, 2, CaptureRule::Standard),
    ] {
        let rules = Rules {
            capture,
            ..Rules::default()
        };
        let mut pos = Position::start(&Start::uniform(m, n).unwrap(), &rules);
        // A position a few plies in, as well as the start.
        let mut cases = vec![pos];
        for _ in 0..3 {
            let legal = pos.legal_moves(&rules);
            if legal.is_empty() {
                break;
            }
            pos.play(&rules, legal[legal.len() / 2]).unwrap();
            if pos.to_move().is_some() {
                cases.push(pos);
            }
        }
        for threads in [1, 2] {
            let mut stopped = engine(Level::Perfect, threads);
            let mut fresh = engine(Level::Perfect, threads);
            for pos in &cases {
                let truth = exact_values(pos, &rules);
                let best = truth.iter().map(|&(_, v)| v).max().unwrap();
                // Stopped: a legal action, a hint with no wrong exact value.
                stopped.stop_flag().store(true, Ordering::SeqCst);
                let c = stopped.choose_with(pos, &rules, GENEROUS).unwrap();
                assert!(pos.legal_moves(&rules).contains(&c.mv));
                if c.exact {
                    assert_eq!(c.value, Some(best), "Kalah({m},{n}) {pos}");
                }
                let hint = stopped.hint(pos, &rules, GENEROUS);
                check_hint(&hint, pos, &rules, Some(&truth));
                // Reset: the next searches are complete and right.
                stopped.stop_flag().store(false, Ordering::SeqCst);
                let hint = stopped.hint(pos, &rules, GENEROUS);
                check_hint(&hint, pos, &rules, Some(&truth));
                assert!(hint.iter().all(|v| v.exact), "Kalah({m},{n}) {pos}");
                let fresh_hint = fresh.hint(pos, &rules, GENEROUS);
                assert_eq!(hint, fresh_hint, "Kalah({m},{n}) {pos}");
                let c = stopped.choose_with(pos, &rules, GENEROUS).unwrap();
                assert!(c.exact, "Kalah({m},{n}) {pos}: not proven after the reset");
                assert_eq!(c.value, Some(best), "Kalah({m},{n}) {pos}");
                let chosen = truth.iter().find(|&&(mv, _)| mv == c.mv).map(|&(_, v)| v);
                assert_eq!(chosen, Some(best), "Kalah({m},{n}) {pos}: {}", c.mv);
            }
        }
    }
}

/// A stop in the middle of a hint on two threads (the parallel analysis has a flag of its own,
/// which the engine's is passed on to) leaves the engine able to prove the next hint.
#[test]
fn a_stop_during_a_parallel_hint_leaves_the_engine_usable() {
    let (big, big_rules) = big();
    let rules = Rules::default();
    let small = Position::start(&Start::uniform(4, 3).unwrap(), &rules);
    let truth = exact_values(&small, &rules);
    let mut e = engine(Level::Perfect, 2);
    let flag = e.stop_flag();
    std::thread::scope(|s| {
        s.spawn(|| {
            std::thread::sleep(Duration::from_millis(200));
            flag.store(true, Ordering::SeqCst);
        });
        let hint = e.hint(&big, &big_rules, LONG);
        check_hint(&hint, &big, &big_rules, None);
    });
    e.stop_flag().store(false, Ordering::SeqCst);
    let hint = e.hint(&small, &rules, GENEROUS);
    let values: Vec<(Move, i32)> = hint.iter().map(|v| (v.mv, v.value)).collect();
    assert_eq!(values, truth);
    assert!(hint.iter().all(|v| v.exact));
}
