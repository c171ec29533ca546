//! The parallel analyses agree with the sequential ones (values and order) with 1, 2 and 3
//! threads, under both capture rules, other end and leftover rules, the pie rule and game-ending
//! turns; a stop flag or a limit gives `Stopped` with bounds that hold the position's value.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use kalah_core::{CaptureRule, EndRule, LeftoverRule, Phase, Position, Rules, Start};
use kalah_solver::{
    analyze_moves_parallel, analyze_moves_parallel_partial, analyze_turns_parallel,
    analyze_turns_parallel_partial, ParallelOptions, ParallelProgress, PartialAnalysis,
    SearchLimits, SolveError, Solver,
};
use rand::rngs::StdRng;
use rand::SeedableRng;

mod common;
use common::random_pos;

fn solvers(rules: Rules, n: usize) -> Vec<Solver> {
    (0..n).map(|_| Solver::new(rules, 2)).collect()
}

/// A sequential solver and two parallel ones, each limited to `nodes` nodes.
fn limited(rules: Rules, nodes: u64) -> (Solver, Vec<Solver>) {
    let limits = SearchLimits::new(None, Some(nodes));
    let mut seq = Solver::new(rules, 16);
    seq.set_limits(limits);
    let mut par = solvers(rules, 2);
    for s in &mut par {
        s.set_limits(limits);
    }
    (seq, par)
}

/// Checks both analyses of `pos` with 1, 2 and 3 threads against the sequential ones.
fn check(rules: Rules, pos: &Position) {
    let mut seq = Solver::new(rules, 4);
    let moves = seq.analyze_moves(pos).unwrap();
    let turns = seq.analyze_turns(pos).unwrap();
    for threads in 1..=3 {
        let mut par = solvers(rules, threads);
        let opts = ParallelOptions::default();
        assert_eq!(
            analyze_moves_parallel(&mut par, pos, &opts).unwrap(),
            moves,
            "actions of {pos} on {threads} threads, {rules:?}"
        );
        assert_eq!(
            analyze_turns_parallel(&mut par, pos, &opts).unwrap(),
            turns,
            "turns of {pos} on {threads} threads, {rules:?}"
        );
    }
}

#[test]
fn random_positions_agree_with_the_sequential_analysis() {
    let mut rng = StdRng::seed_from_u64(7);
    let variants = [
        Rules::default(),
        Rules {
            capture: CaptureRule::Empty,
            ..Rules::default()
        },
        Rules {
            end: EndRule::MoverBlocked,
            leftovers: LeftoverRule::Emptier,
            ..Rules::default()
        },
        Rules {
            capture: CaptureRule::Empty,
            leftovers: LeftoverRule::Nobody,
            majority_end: true,
            ..Rules::default()
        },
    ];
    for (k, rules) in variants.into_iter().enumerate() {
        for i in 0..8 {
            let pos = random_pos(&mut rng, 3 + (i + k) % 3, 6 + (i as u32 * 3) % 12);
            check(rules, &pos);
        }
    }
}

#[test]
fn start_positions_agree_under_both_capture_rules() {
    for capture in [CaptureRule::Standard, CaptureRule::Empty] {
        let rules = Rules {
            capture,
            ..Rules::default()
        };
        for (m, n) in [(3, 3), (4, 3), (4, 4), (5, 2)] {
            check(
                rules,
                &Position::start(&Start::uniform(m, n).unwrap(), &rules),
            );
        }
    }
}

#[test]
fn hundreds_of_turns_agree_and_the_best_is_the_value() {
    // Chains of extra turns give 912 whole turns: more jobs than the parallel analysis orders by
    // estimate, and so many that each gets a first-guess budget far below the default.
    let rules = Rules::default();
    let pos: Position = "6,5,4,3,2,1,0,1,1,1,1,1,1,0 S".parse().unwrap();
    check(rules, &pos);
    let turns = Solver::new(rules, 4).analyze_turns(&pos).unwrap();
    assert_eq!(turns.len(), 912);
    let best = turns.iter().map(|t| t.value).max().unwrap();
    assert_eq!(best, Solver::new(rules, 16).value(&pos).unwrap());
}

#[test]
fn pie_rule_roots_agree_and_list_swap() {
    let rules = Rules {
        pie: true,
        ..Rules::default()
    };
    let start = Position::start(&Start::uniform(4, 3).unwrap(), &rules);
    check(rules, &start);
    for (turn, after) in kalah_core::Turn::all(&start, &rules) {
        assert_eq!(after.phase(), Phase::PieChoice, "{turn}");
        check(rules, &after);
        let moves =
            analyze_moves_parallel(&mut solvers(rules, 2), &after, &Default::default()).unwrap();
        assert_eq!(moves.last().unwrap().mv, kalah_core::Move::Swap);
    }
}

#[test]
fn game_ending_turns_are_valued_without_search() {
    // South's house 3 (1 seed) ends in the store and empties South's row: the game ends, North
    // sweeps his 5 seeds: 11 - 10 = +1 (see the sequential tests).
    let rules = Rules::default();
    let pos: Position = "0,0,1,10,2,3,0,5 S".parse().unwrap();
    check(rules, &pos);
    let turns = analyze_turns_parallel(&mut solvers(rules, 2), &pos, &Default::default()).unwrap();
    let ending = turns.iter().find(|t| t.turn.to_string() == "3").unwrap();
    assert_eq!(ending.value, 1);
    // A position whose every action ends the game, and one that is over already.
    let all_end: Position = "0,0,1,10,0,0,0,5 S".parse().unwrap();
    check(rules, &all_end);
    let over: Position = "0,0,0,10,2,3,0,5 S".parse().unwrap();
    check(rules, &over);
    assert!(
        analyze_moves_parallel(&mut solvers(rules, 2), &over, &Default::default())
            .unwrap()
            .is_empty()
    );
    // Extra-turn chains (4-3-2...).
    check(rules, &"0,3,2,1,0,0,0,2,2,0 S".parse().unwrap());
}

#[test]
fn a_stop_flag_set_beforehand_stops_with_bounds_of_the_value() {
    let rules = Rules::default();
    let pos = Position::start(&Start::uniform(4, 4).unwrap(), &rules);
    let value = Solver::new(rules, 4).value(&pos).unwrap();
    for threads in 1..=3 {
        let flag = Arc::new(AtomicBool::new(true));
        let opts = ParallelOptions {
            stop: Some(flag.clone()),
            progress: None,
            ..ParallelOptions::default()
        };
        for result in [
            analyze_turns_parallel(&mut solvers(rules, threads), &pos, &opts).map(|_| ()),
            analyze_moves_parallel(&mut solvers(rules, threads), &pos, &opts).map(|_| ()),
        ] {
            match result {
                Err(SolveError::Stopped { lower, upper, .. }) => {
                    assert!(
                        lower <= value && value <= upper,
                        "[{lower}, {upper}] {value}"
                    );
                    assert!(lower < upper);
                }
                Ok(()) => panic!("analysed on {threads} threads with the stop flag set"),
            }
        }
    }
}

#[test]
fn a_limit_in_one_solver_stops_every_thread() {
    let rules = Rules::default();
    let pos = Position::start(&Start::uniform(6, 3).unwrap(), &rules);
    let value = Solver::new(rules, 16).value(&pos).unwrap();
    let mut par = solvers(rules, 2);
    par[1].set_limits(SearchLimits::new(None, Some(5_000)));
    let flag = Arc::new(AtomicBool::new(false));
    let opts = ParallelOptions {
        stop: Some(flag.clone()),
        progress: None,
        ..ParallelOptions::default()
    };
    match analyze_turns_parallel(&mut par, &pos, &opts) {
        Err(SolveError::Stopped {
            lower,
            upper,
            stats,
        }) => {
            assert!(
                lower <= value && value <= upper,
                "[{lower}, {upper}] {value}"
            );
            assert!(stats.nodes >= 5_000);
        }
        Ok(t) => panic!("Kalah(6,3) analysed with 5 000 nodes a job on one thread? {t:?}"),
    }
    assert!(
        flag.load(Ordering::SeqCst),
        "the other thread was told to stop"
    );
}

/// A node limit counts a solver's nodes over the whole parallel analysis, as over the one call
/// of the sequential analysis: a limit of half the nodes the analysis needs stops it, although
/// every job alone needs less (before, each job had the whole limit, and the analysis
/// finished), and the solvers keep their limits.
#[test]
fn a_node_limit_counts_each_solvers_whole_analysis() {
    let rules = Rules::default();
    let pos = Position::start(&Start::uniform(5, 3).unwrap(), &rules);
    let opts = ParallelOptions::default();
    // The nodes of the whole sequential analysis, with the same table size.
    let mut seq = Solver::new(rules, 2);
    let jobs = seq.analyze_turns(&pos).unwrap().len() as u64;
    let total = seq.last_stats().nodes;
    assert!(jobs >= 4, "{jobs} turns");
    for n in [1, 2] {
        let mut par = solvers(rules, n);
        // Half the nodes of one solver's whole analysis, shared by n solvers.
        let limit = total / 2 / n as u64;
        let limits = SearchLimits::new(None, Some(limit));
        for s in &mut par {
            s.set_limits(limits);
        }
        match analyze_turns_parallel(&mut par, &pos, &opts) {
            Err(SolveError::Stopped { stats, .. }) => {
                // Each solver stops within 1 024 nodes of its limit, and the ordering
                // searches (two or more solvers) stop once the first solver's is spent, the
                // one that spends it within 1 024 nodes.
                let slack = 1_024 * (n as u64 + u64::from(n > 1));
                assert!(
                    stats.nodes <= n as u64 * limit + slack,
                    "{n} solvers, limit {limit}: {} nodes",
                    stats.nodes
                );
            }
            Ok(_) => {
                panic!("{n} solvers analysed Kalah(5,3) in {limit} nodes each ({total} in all)")
            }
        }
        assert!(par.iter().all(|s| s.limits() == limits));
    }
    // Many turns (tester 85: with a limit of 1 node, the ordering searches went on for 1 024
    // nodes each, 48 890 nodes in all).
    let many: Position = "0,0,4,3,2,1,0,4,4,4,4,4,4,0 S".parse().unwrap();
    let mut par = solvers(rules, 2);
    for s in &mut par {
        s.set_limits(SearchLimits::new(None, Some(1)));
    }
    match analyze_turns_parallel(&mut par, &many, &opts) {
        Err(SolveError::Stopped { stats, .. }) => {
            assert!(stats.nodes <= 3 * 1_025, "{} nodes", stats.nodes)
        }
        Ok(_) => panic!("analysed in one node a solver"),
    }
}

/// A stopped analysis's bounds hold every value it lists, the game-ending actions and turns
/// after the one being searched too (tester 85: one thread left those out of the lower bound,
/// `-42` with a listed `+46`), on one thread and on two.
#[test]
fn a_stopped_analysis_s_bounds_hold_every_value_it_lists() {
    let rules = Rules::default();
    // South's 1 needs a search; South's 2 captures and ends the game (+46).
    let small: Position = "20,1,0,0,0,5,0,0,0,0,20,0,0,0 S".parse().unwrap();
    let value = Solver::new(rules, 16).value(&small).unwrap();
    let wide: Position = "0,0,4,3,2,1,0,4,4,4,4,4,4,0 S".parse().unwrap();
    let mut stops = 0;
    for pos in [small, wide] {
        for limit in [1u64, 1_000, 5_000] {
            let (mut seq, mut par) = limited(rules, limit);
            let opts = ParallelOptions::default();
            let values = |r: Result<Vec<i32>, (Vec<i32>, SolveError)>| r;
            let results = [
                values(
                    seq.analyze_moves_partial(&pos)
                        .map(|v| v.iter().map(|m| m.value).collect())
                        .map_err(|p| (p.found.iter().map(|m| m.value).collect(), p.error)),
                ),
                values(
                    seq.analyze_turns_partial(&pos)
                        .map(|v| v.iter().map(|t| t.value).collect())
                        .map_err(|p| (p.found.iter().map(|t| t.value).collect(), p.error)),
                ),
                values(
                    analyze_moves_parallel_partial(&mut par, &pos, &opts)
                        .map(|v| v.iter().map(|m| m.value).collect())
                        .map_err(|p| (p.found.iter().map(|m| m.value).collect(), p.error)),
                ),
                values(
                    analyze_turns_parallel_partial(&mut par, &pos, &opts)
                        .map(|v| v.iter().map(|t| t.value).collect())
                        .map_err(|p| (p.found.iter().map(|t| t.value).collect(), p.error)),
                ),
            ];
            for (i, r) in results.into_iter().enumerate() {
                let Err((found, SolveError::Stopped { lower, upper, .. })) = r else {
                    continue;
                };
                stops += 1;
                for v in &found {
                    assert!(
                        lower >= *v && *v <= upper,
                        "{pos} {limit} #{i}: [{lower}, {upper}] {found:?}"
                    );
                }
                if pos == small {
                    assert!(lower <= value && value <= upper, "{limit} #{i}");
                    // The game-ending +46 is always found.
                    assert!(found.contains(&46), "{limit} #{i}: {found:?}");
                }
            }
        }
    }
    assert!(stops >= 8, "{stops} stops");
}

/// `ParallelOptions::stats` gets the work of a finished analysis, and of a stopped one the same
/// statistics as its error.
#[test]
fn the_stats_option_gets_the_analysis_s_work() {
    let rules = Rules::default();
    let pos = Position::start(&Start::uniform(4, 3).unwrap(), &rules);
    let work: Arc<Mutex<kalah_solver::Stats>> = Arc::default();
    let opts = ParallelOptions {
        stats: Some(work.clone()),
        ..ParallelOptions::default()
    };
    analyze_turns_parallel(&mut solvers(rules, 2), &pos, &opts).unwrap();
    let done = *work.lock().unwrap();
    assert!(done.nodes > 1_000 && done.tt_hits > 0, "{done:?}");
    let mut par = solvers(rules, 2);
    for s in &mut par {
        s.set_limits(SearchLimits::new(None, Some(2_000)));
    }
    match analyze_turns_parallel(&mut par, &pos, &opts) {
        Err(SolveError::Stopped { stats, .. }) => assert_eq!(*work.lock().unwrap(), stats),
        Ok(_) => panic!("Kalah(4,3) analysed in 2 000 nodes a thread"),
    }
    // A finished game: no work, for both analyses (tester 89: the actions' left the caller's
    // statistics as they were).
    let over: Position = "0,0,0,0,0,0,20,0,0,0,0,0,0,28 N".parse().unwrap();
    for turns in [false, true] {
        *work.lock().unwrap() = kalah_solver::Stats {
            nodes: 999,
            ..Default::default()
        };
        if turns {
            assert!(analyze_turns_parallel(&mut solvers(rules, 2), &over, &opts)
                .unwrap()
                .is_empty());
        } else {
            assert!(analyze_moves_parallel(&mut solvers(rules, 2), &over, &opts)
                .unwrap()
                .is_empty());
        }
        assert_eq!(work.lock().unwrap().nodes, 0, "turns: {turns}");
    }
}

#[test]
fn progress_counts_the_jobs_and_ends_with_all_done() {
    let rules = Rules::default();
    let pos = Position::start(&Start::uniform(5, 3).unwrap(), &rules);
    let seen: Arc<Mutex<Vec<ParallelProgress>>> = Arc::default();
    let calls = Arc::new(AtomicUsize::new(0));
    let (s, c) = (seen.clone(), calls.clone());
    let opts = ParallelOptions {
        stop: None,
        progress: Some(Arc::new(move |p: &ParallelProgress| {
            c.fetch_add(1, Ordering::SeqCst);
            s.lock().unwrap().push(*p);
        })),
        stats: None,
    };
    let turns = analyze_turns_parallel(&mut solvers(rules, 2), &pos, &opts).unwrap();
    let seen = seen.lock().unwrap();
    let jobs = turns.len(); // no first turn of Kalah(5,3) ends the game
    assert!(calls.load(Ordering::SeqCst) >= jobs);
    assert!(seen.iter().all(|p| p.jobs == jobs && p.done <= jobs));
    assert_eq!(seen.iter().map(|p| p.done).max(), Some(jobs));
    assert!(seen.iter().map(|p| p.nodes).max().unwrap() > 0);
}

#[test]
#[should_panic(expected = "at least one solver")]
fn no_solver_panics() {
    let rules = Rules::default();
    let pos = Position::start(&Start::uniform(3, 3).unwrap(), &rules);
    let _ = analyze_turns_parallel(&mut [], &pos, &Default::default());
}

#[test]
#[should_panic(expected = "same rules")]
fn solvers_with_different_rules_panic() {
    let rules = Rules::default();
    let pos = Position::start(&Start::uniform(3, 3).unwrap(), &rules);
    let mut par = vec![
        Solver::new(rules, 1),
        Solver::new(
            Rules {
                capture: CaptureRule::Empty,
                ..rules
            },
            1,
        ),
    ];
    let _ = analyze_moves_parallel(&mut par, &pos, &Default::default());
}

/// `found` is a subsequence of `all` (same items, same order).
fn is_subsequence<T: PartialEq>(found: &[T], all: &[T]) -> bool {
    let mut rest = all.iter();
    found.iter().all(|f| rest.any(|a| a == f))
}

/// `result` (of an analysis run with a node `limit`) checked against `all`, the whole
/// analysis's: on a stop, what it found is a subsequence of `all`; then its count and error.
fn checked<T: PartialEq + std::fmt::Debug>(
    result: Result<Vec<T>, PartialAnalysis<T>>,
    all: &[T],
    limit: u64,
) -> Result<(), (usize, SolveError)> {
    match result {
        Ok(_) => Ok(()),
        Err(p) => {
            assert!(is_subsequence(&p.found, all), "{limit}: {p:?}");
            Err((p.found.len(), p.error))
        }
    }
}

/// A stopped analysis keeps what it found (tester 68: `kalah analyze` lost it on Ctrl-C): every
/// action or turn it gives is valued as the whole analysis values it, in the same order, and
/// its bounds hold the position's value. Node limits from small to large stop it at every
/// stage, sequential and on two threads.
#[test]
fn a_stopped_analysis_keeps_the_actions_and_turns_it_valued() {
    let rules = Rules::default();
    // South's 1 captures North's last seeds and ends the game (valued without a search); the
    // other turns need searches.
    let pos: Position = "1,0,6,6,0,0,0,4,0,0 S".parse().unwrap();
    let mut full = Solver::new(rules, 16);
    let moves = full.analyze_moves(&pos).unwrap();
    let turns = full.analyze_turns(&pos).unwrap();
    let value = full.value(&pos).unwrap();
    let mut partial_seen = [false; 2];
    for limit in [1u64, 100, 1_000, 3_000, 10_000, 30_000, 100_000, 300_000] {
        let (mut seq, mut par) = limited(rules, limit);
        let opts = ParallelOptions::default();
        let results = [
            checked(seq.analyze_turns_partial(&pos), &turns, limit),
            checked(
                analyze_turns_parallel_partial(&mut par, &pos, &opts),
                &turns,
                limit,
            ),
            checked(seq.analyze_moves_partial(&pos), &moves, limit),
            checked(
                analyze_moves_parallel_partial(&mut par, &pos, &opts),
                &moves,
                limit,
            ),
        ];
        for (i, r) in results.into_iter().enumerate() {
            if let Err((found, SolveError::Stopped { lower, upper, .. })) = r {
                assert!(lower <= value && value <= upper, "{limit} #{i}");
                // The game-ending action and turn are always among those found.
                assert!(found >= 1, "{limit} #{i}");
                partial_seen[usize::from(found > 1)] = true;
            }
        }
    }
    assert!(partial_seen[0], "no limit stopped an analysis");
    assert!(partial_seen[1], "no stopped analysis had searched anything");
}
