//! A transposition table shared between solvers and threads (`Solver::with_shared_table`,
//! `Solver::solve_parallel`): the values always equal those of a solver with a table of its own
//! (itself checked against plain minimax in `minimax.rs`), under races on a tiny table, across
//! rule and board-size changes of one of the sharers, on wide boards, at pie-rule roots, and when
//! stopped.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use kalah_core::{CaptureRule, EndRule, LeftoverRule, Position, Rules, Start};
use kalah_solver::{SearchLimits, SolveError, Solver};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

mod common;
use common::{random_pos, replay};

fn rule_sets() -> Vec<Rules> {
    let mut v = Vec::new();
    for capture in [CaptureRule::Standard, CaptureRule::Empty] {
        for (end, leftovers, majority_end) in [
            (EndRule::RowEmpty, LeftoverRule::Owner, false),
            (EndRule::MoverBlocked, LeftoverRule::Emptier, false),
            (EndRule::RowEmpty, LeftoverRule::Nobody, true),
        ] {
            v.push(Rules {
                capture,
                end,
                leftovers,
                majority_end,
                ..Rules::default()
            });
        }
    }
    v
}

#[test]
fn solve_parallel_agrees_with_a_private_table() {
    let mut rng = StdRng::seed_from_u64(0x5eed);
    let mut checked = 0;
    for rules in rule_sets() {
        // 1 MiB for positions of up to 30 seeds: buckets overflow, entries are replaced while
        // the other threads read them.
        let mut par = Solver::new(rules, 1);
        for i in 0..24 {
            let m = 3 + i % 4;
            let seeds = rng.gen_range(8..=(4 * m as u32 + 6));
            let pos = random_pos(&mut rng, m, seeds);
            let want = Solver::new(rules, 4).solve(&pos).unwrap();
            for threads in [2, 3] {
                let got = par.solve_parallel(&pos, threads).unwrap();
                assert_eq!(got.value, want.value, "{pos} on {threads} threads, {rules}");
                assert_eq!(got.best, want.best, "best actions of {pos}, {rules}");
                assert_eq!(replay(&pos, &rules, &got.pv), got.value, "PV of {pos}");
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 6 * 24 * 2);
}

#[test]
fn threads_solving_different_positions_on_one_tiny_table_agree() {
    let rules = Rules::default();
    let first = Solver::new(rules, 1);
    let handles: Vec<_> = (0..4u64)
        .map(|t| {
            let mut s = first.with_shared_table();
            std::thread::spawn(move || {
                let mut rng = StdRng::seed_from_u64(100 + t);
                let mut own = Solver::new(rules, 4);
                for _ in 0..40 {
                    let seeds = rng.gen_range(10..=24);
                    let pos = random_pos(&mut rng, 5, seeds);
                    assert_eq!(s.value(&pos).unwrap(), own.value(&pos).unwrap(), "{pos}");
                }
                // Same rules and board: it never left the table.
                assert!(s.shares_table());
            })
        })
        .collect();
    for h in handles {
        h.join().expect("no wrong value");
    }
}

#[test]
fn a_sharer_that_changes_rules_or_board_leaves_the_table() {
    let standard = Rules::default();
    let empty = Rules {
        capture: CaptureRule::Empty,
        ..standard
    };
    let mut rng = StdRng::seed_from_u64(3);
    let mut a = Solver::new(standard, 1);
    let mut b = a.with_shared_table();
    b.set_rules(empty);
    assert!(a.shares_table() && b.shares_table());
    let mut own_std = Solver::new(standard, 4);
    let mut own_empty = Solver::new(empty, 4);
    for i in 0..30 {
        let pos = random_pos(&mut rng, 4, 14);
        // Alternate who searches first, so either may find the table claimed by the other.
        let (va, vb) = if i % 2 == 0 {
            (a.value(&pos).unwrap(), b.value(&pos).unwrap())
        } else {
            let vb = b.value(&pos).unwrap();
            (a.value(&pos).unwrap(), vb)
        };
        assert_eq!(va, own_std.value(&pos).unwrap(), "standard {pos}");
        assert_eq!(vb, own_empty.value(&pos).unwrap(), "empty {pos}");
    }
    // The one that searched second under other rules left the table: neither shares it now.
    assert!(!a.shares_table() && !b.shares_table());

    // Board sizes: keys of different boards can coincide, so a sharer on another board leaves.
    let mut c = Solver::new(standard, 1);
    let mut d = c.with_shared_table();
    let four = random_pos(&mut rng, 4, 12);
    let three = random_pos(&mut rng, 3, 12);
    let eight = random_pos(&mut rng, 8, 14);
    let v4 = c.value(&four).unwrap();
    assert_eq!(d.value(&three).unwrap(), own_std.value(&three).unwrap());
    assert_eq!(c.value(&four).unwrap(), v4);
    assert_eq!(v4, own_std.value(&four).unwrap());
    assert_eq!(c.value(&eight).unwrap(), own_std.value(&eight).unwrap());
}

#[test]
fn wide_boards_and_pie_roots_in_parallel() {
    let mut rng = StdRng::seed_from_u64(8);
    let rules = Rules::default();
    let mut par = Solver::new(rules, 1);
    for m in [7, 8] {
        for _ in 0..3 {
            let pos = random_pos(&mut rng, m, 16);
            let want = Solver::new(rules, 4).solve(&pos).unwrap();
            let got = par.solve_parallel(&pos, 3).unwrap();
            assert_eq!((got.value, &got.best), (want.value, &want.best), "{pos}");
        }
    }
    let pie = Rules { pie: true, ..rules };
    for (m, n) in [(3, 3), (4, 2)] {
        let pos = Position::start(&Start::uniform(m, n).unwrap(), &pie);
        let want = Solver::new(pie, 4).solve(&pos).unwrap();
        let got = Solver::new(pie, 1).solve_parallel(&pos, 2).unwrap();
        assert_eq!(
            (got.value, &got.best),
            (want.value, &want.best),
            "Kalah({m},{n}) pie"
        );
        assert_eq!(replay(&pos, &pie, &got.pv), got.value);
        // North's choice after South's first turn offers the swap.
        let mut after = pos;
        let first = after.legal_moves(&pie)[0];
        after.play(&pie, first).unwrap();
        while after.to_move() == Some(kalah_core::Side::South) {
            let mv = after.legal_moves(&pie)[0];
            after.play(&pie, mv).unwrap();
        }
        let want = Solver::new(pie, 4).solve(&after).unwrap();
        let got = Solver::new(pie, 1).solve_parallel(&after, 2).unwrap();
        assert_eq!((got.value, &got.best), (want.value, &want.best), "{after}");
    }
}

#[test]
fn many_more_threads_than_cores_on_a_wide_board() {
    // Wide slots are guarded by locks. With spin locks, 256 threads on two cores spent their
    // time slices spinning on a lock held by a preempted thread: this solve took over 30 s
    // (0.1 s on one thread); with mutexes it takes well under a second.
    let rules = Rules {
        first_move_extra_turn: false,
        ..Rules::default()
    };
    let pos: Position = "0,2,1,1,0,0,1,2,0,2,1,0,0,0,1,0,0,1,1,2,0,0,0,1,0,0 N"
        .parse()
        .unwrap();
    let want = Solver::new(rules, 1).solve(&pos).unwrap();
    let got = Solver::new(rules, 1).solve_parallel(&pos, 64).unwrap();
    assert_eq!((got.value, &got.best), (want.value, &want.best));
}

#[test]
fn a_thread_count_past_the_maximum_is_lowered_to_it() {
    // Library tester: 20 000 threads panicked ("failed to spawn thread") where they could not
    // all start. Now at most MAX_THREADS start, and the answer is the one-thread answer.
    let rules = Rules::default();
    let pos = Position::start(&Start::uniform(3, 3).unwrap(), &rules);
    let want = Solver::new(rules, 1).solve(&pos).unwrap();
    let got = Solver::new(rules, 1)
        .solve_parallel(&pos, usize::MAX)
        .unwrap();
    assert_eq!((got.value, &got.best), (want.value, &want.best));
    assert_eq!(kalah_solver::MAX_THREADS, 256);
}

#[test]
fn a_stopped_parallel_solve_gives_bounds_of_the_value() {
    let rules = Rules::default();
    let pos = Position::start(&Start::uniform(5, 4).unwrap(), &rules);
    let value = 10; // Kalah(5,4), standard capture: docs/RESULTS.md (and published.rs).
    let mut s = Solver::new(rules, 4);
    s.set_stop_flag(Arc::new(AtomicBool::new(true)));
    match s.solve_parallel(&pos, 2) {
        Err(SolveError::Stopped { lower, upper, .. }) => {
            assert!(lower <= value && value <= upper, "[{lower}, {upper}]");
        }
        Ok(sol) => panic!("a set stop flag stops the search, got {sol:?}"),
    }
    let mut s = Solver::new(rules, 4);
    s.set_limits(SearchLimits::new(None, Some(20_000)));
    match s.solve_parallel(&pos, 2) {
        Err(SolveError::Stopped {
            lower,
            upper,
            stats,
        }) => {
            assert!(lower <= value && value <= upper, "[{lower}, {upper}]");
            assert!(
                stats.nodes >= 20_000,
                "both threads' nodes count: {}",
                stats.nodes
            );
        }
        Ok(sol) => panic!("20 000 nodes do not solve Kalah(5,4): {sol:?}"),
    }
}

#[test]
fn stopped_after_the_value_is_proven_gives_the_value_as_both_bounds() {
    // The tester's case: a stop while the best actions were being tested gave the placeholder
    // bounds -255..+255 (seen from the position after an action).
    let rules = Rules::default();
    let pos = Position::start(&Start::uniform(5, 4).unwrap(), &rules);
    let mut s = Solver::new(rules, 4);
    let value = s.value(&pos).unwrap();
    let value_nodes = s.last_stats().nodes;
    // Deterministic on one thread: the same search proves the value, then the limit (checked
    // every 1 024 nodes) stops the tests of the actions.
    let mut s = Solver::new(rules, 4);
    s.set_limits(SearchLimits::new(None, Some(value_nodes + 1)));
    match s.solve(&pos) {
        Err(SolveError::Stopped { lower, upper, .. }) => assert_eq!((lower, upper), (value, value)),
        Ok(sol) => panic!("the best actions take more than 1 024 nodes: {sol:?}"),
    }
}

/// Regression (second fresh-user tester, `kalah solve --batch --majority-end`): under the
/// majority end the table's key holds the houses and South's store, not North's, which only
/// the total fixes. A solver reused for a position with the same houses and South store but
/// another North store took the first position's entries: +2 where the value is -4. The table
/// is now claimed for the total too under the majority end.
#[test]
fn a_reused_solver_keeps_majority_end_positions_of_other_totals_apart() {
    let majority = Rules {
        majority_end: true,
        ..Rules::default()
    };
    let mut reused = Solver::new(majority, 1);
    let mut checked = 0;
    for north_store in [0u8, 11, 3, 7, 0, 11] {
        let text = format!("4,2,1,0,11,2,1,0,2,{north_store} N");
        let pos: Position = text.parse().unwrap();
        let want = Solver::new(majority, 1).solve(&pos).unwrap();
        let got = reused.solve(&pos).unwrap();
        assert_eq!(got.value, want.value, "{text}");
        assert_eq!(got.best, want.best, "{text}");
        checked += 1;
    }
    assert_eq!(checked, 6);
    // The tester's pair, in its order: -9, then -4 (was +2).
    let mut reused = Solver::new(majority, 1);
    let a: Position = "4,2,1,0,11,2,1,0,2,0 N".parse().unwrap();
    let b: Position = "4,2,1,0,11,2,1,0,2,11 N".parse().unwrap();
    assert_eq!(reused.value(&a).unwrap(), -9);
    assert_eq!(reused.value(&b).unwrap(), -4);
    // Without the majority end the stores only shift the value: the table is kept.
    let standard = Rules::default();
    let mut reused = Solver::new(standard, 1);
    for north_store in [0u8, 11] {
        let pos: Position = format!("4,2,1,0,11,2,1,0,2,{north_store} N")
            .parse()
            .unwrap();
        let want = Solver::new(standard, 1).value(&pos).unwrap();
        assert_eq!(reused.value(&pos).unwrap(), want);
    }
}

/// A dropped solver frees a large table it alone holds on a thread of its own, and leaves a
/// table it shares to its sharers: one dropped first must not take the table from under the
/// other, and the table's entries stay good (tester 100's 32 MiB engine tables).
#[test]
fn dropping_one_sharer_leaves_the_table_to_the_other() {
    let rules = Rules::default();
    let mut rng = StdRng::seed_from_u64(11);
    let mut own = Solver::new(rules, 4);
    for _ in 0..3 {
        let mut a = Solver::new(rules, 16);
        let mut b = a.with_shared_table();
        let first = random_pos(&mut rng, 5, 20);
        let v = a.value(&first).unwrap();
        drop(a);
        assert!(!b.shares_table());
        // The entries `a` stored answer `b` now, and other positions are still right.
        assert_eq!(b.value(&first).unwrap(), v);
        assert_eq!(v, own.value(&first).unwrap());
        for _ in 0..20 {
            let pos = random_pos(&mut rng, 5, 20);
            assert_eq!(b.value(&pos).unwrap(), own.value(&pos).unwrap(), "{pos}");
        }
        // Dropped alone with a used 16 MiB table: freed aside, nothing else to see.
        drop(b);
    }
}
