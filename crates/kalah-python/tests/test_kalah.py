"""Tests of the kalah Python module.

Run by `cargo test -p kalah-python` (tests/python.rs, on the library cargo builds) and by
`.ci/python.sh` (on the wheel pip builds). Standard library only (unittest).

Reference data: crates/kalah-core/tests/data (rule cases, OpenSpiel games, perft vectors) and
crates/kalah-solver/tests/data/published-values.csv (Irving, Donkers, Uiterwijk 2000; Rawlings
2015); see the SOURCE.md beside each.
"""

import csv
import inspect
import json
import os
import pickle
import random
import signal
import tempfile
import threading
import time
import unittest
from pathlib import Path

import kalah

CRATES = Path(__file__).resolve().parents[2]
CORE_DATA = CRATES / "kalah-core" / "tests" / "data"
SOLVER_DATA = CRATES / "kalah-solver" / "tests" / "data"
STUB = CRATES / "kalah-python" / "kalah.pyi"

START_6_4 = "4,4,4,4,4,4,0,4,4,4,4,4,4,0 S"


def rules_of(obj):
    """A kalah.Rules from a rule case's JSON object (keys as in the text form)."""
    text = " ".join(f"{k}={'on' if v is True else 'off' if v is False else v}" for k, v in obj.items())
    return kalah.Rules(text)


class RulesTest(unittest.TestCase):
    def test_standard_and_text_form(self):
        r = kalah.Rules()
        self.assertEqual(r.capture, "standard")
        self.assertEqual(r.end, "row-empty")
        self.assertEqual(r.leftovers, "owner")
        self.assertFalse(r.pie)
        self.assertTrue(r.first_move_extra_turn)
        e = kalah.Rules("capture=empty pie=on")
        self.assertEqual((e.capture, e.pie), ("empty", True))
        self.assertEqual(kalah.Rules(str(e)), e)
        self.assertEqual(kalah.Rules(capture="empty", pie=True), e)
        self.assertNotEqual(e, r)
        self.assertEqual(len({r, kalah.Rules(), e}), 2)
        # Keywords override the text.
        self.assertEqual(kalah.Rules("capture=empty", capture="standard"), r)

    def test_bad_rules_name_the_problem(self):
        with self.assertRaises(ValueError) as c:
            kalah.Rules("capture=sometimes")
        self.assertIn("sometimes", str(c.exception))
        with self.assertRaises(ValueError):
            kalah.Rules(end="never")
        with self.assertRaises(ValueError):
            kalah.Rules(leftovers="me")
        with self.assertRaises(TypeError):
            kalah.Position.start(rules=42)

    def test_pickle(self):
        r = kalah.Rules("capture=empty end=mover-blocked leftovers=emptier majority-end=on")
        self.assertEqual(pickle.loads(pickle.dumps(r)), r)


class PositionTest(unittest.TestCase):
    def test_start(self):
        p = kalah.Position.start()
        self.assertEqual(str(p), START_6_4)
        self.assertEqual(p, kalah.Position(START_6_4))
        self.assertEqual(p.houses, 6)
        self.assertEqual(p.seeds, 48)
        self.assertEqual(p.to_move, "S")
        self.assertFalse(p.is_over)
        self.assertIsNone(p.score)
        self.assertEqual(p.legal_moves(), [1, 2, 3, 4, 5, 6])
        self.assertEqual(kalah.Position.start(4, 3).bins, [3] * 4 + [0] + [3] * 4 + [0])
        custom = kalah.Position.start(layout=[4, 4, 5, 4, 3, 4])
        self.assertEqual(custom.row("S"), [4, 4, 5, 4, 3, 4])
        self.assertEqual(custom.row("North"), [4, 4, 5, 4, 3, 4])
        self.assertEqual(kalah.Position.start(layout=[1, 2, 3], mirrored=True).row("N"), [3, 2, 1])

    def test_hand_checked_sowing(self):
        # 3 from the start: 4 seeds into houses 4, 5, 6 and the store: an extra turn.
        p, out = kalah.Position.start().step(3)
        self.assertEqual(str(p), "4,4,0,5,5,5,1,4,4,4,4,4,4,0 S")
        self.assertTrue(out.extra_turn)
        self.assertEqual((out.sown, out.captured, out.swapped, out.ended), (4, 0, False, None))
        # Then 6: 5 seeds, 1 into the store and 4 into North's houses: North to move.
        q = p.play(6)
        self.assertEqual(str(q), "4,4,0,5,5,0,2,5,5,5,5,4,4,0 N")
        self.assertEqual(q, kalah.Position.start().play_turn("3-6"))
        # A capture: South's 1 seed from house 1 lands in empty house 2, facing North's house 5
        # (6 seeds): 7 seeds to South's store, and no extra turn.
        c, out = kalah.Position("1,0,0,0,0,1,0,1,0,0,0,6,0,0 S").step(1)
        self.assertEqual(str(c), "0,0,0,0,0,1,7,1,0,0,0,0,0,0 N")
        self.assertEqual(out.captured, 7)
        self.assertFalse(out.extra_turn)

    def test_empty_capture_variant(self):
        # South's house 2 faces North's house 5, empty.
        text = "1,0,0,0,0,1,0,1,0,0,0,0,0,5 S"
        std = kalah.Position(text).play(1)
        emp = kalah.Position(text, rules="capture=empty").play(1)
        self.assertEqual(std.row("S"), [0, 1, 0, 0, 0, 1])
        self.assertEqual(emp.row("S"), [0, 0, 0, 0, 0, 1])
        self.assertEqual(emp.store("S"), 1)

    def test_rule_cases(self):
        lines = (CORE_DATA / "rule-cases.jsonl").read_text().splitlines()
        self.assertGreater(len(lines), 50)
        for line in lines:
            case = json.loads(line)
            with self.subTest(case["id"], rules=case["rules"]):
                p = kalah.Position(case["position"], rules=rules_of(case["rules"]))
                for mv in case["moves"]:
                    p = p.play(mv)
                want = case["expect"]
                # The reference writes a finished game without a side letter; ours names the
                # side that would have moved (the view of the value).
                text = str(p).rsplit(" ", 1)[0] if p.is_over else str(p)
                self.assertEqual(text, want["position"])
                self.assertEqual(p.is_over, want["over"])
                if not want["over"]:
                    self.assertEqual(p.to_move, want["to_move"])
                score = want["score"]
                self.assertEqual(p.score, None if score is None else tuple(score))

    def test_openspiel_games(self):
        games = [json.loads(l) for l in (CORE_DATA / "openspiel-kalah-6-4-games.jsonl").read_text().splitlines()]
        self.assertEqual(len(games), 200)
        for g in games:
            p = kalah.Position.start()
            for mv, want in zip(g["moves"], g["positions"]):
                p = p.play(mv["house"])
                if want["to_move"] is not None:
                    self.assertEqual(p.bins, want["pits"], f"game {g['game']}")
                    self.assertEqual(p.to_move, "SN"[want["to_move"]])
            self.assertTrue(p.is_over, f"game {g['game']}")
            self.assertEqual(p.score, tuple(g["final"]["scores"]), f"game {g['game']}")

    def test_random_games_keep_the_invariants(self):
        rng = random.Random(7)
        for rules in ["", "capture=empty", "end=mover-blocked leftovers=emptier", "pie=on", "majority-end=on"]:
            for houses, seeds in [(6, 4), (3, 3), (7, 7), (1, 5)]:
                p = kalah.Position.start(houses, seeds, rules)
                total = p.seeds
                plies = 0
                while not p.is_over:
                    moves = p.legal_moves()
                    self.assertTrue(moves)
                    mover = p.to_move
                    q, out = p.step(rng.choice(moves))
                    self.assertEqual(q.seeds, total)  # seeds are conserved
                    self.assertFalse(out.captured and out.extra_turn)  # a capture gives no extra turn
                    if out.extra_turn and not q.is_over:
                        self.assertEqual(q.to_move, mover)
                    # The text form reads back, rules and all.
                    self.assertEqual(kalah.Position(str(q), rules=q.rules), q)
                    p = q
                    plies += 1
                self.assertEqual(p.legal_moves(), [])
                self.assertIsNone(p.to_move)
                s, n = p.score
                self.assertLessEqual(s + n, total)

    def test_turns(self):
        p = kalah.Position.start()
        turns = dict(p.turns())
        self.assertEqual(len(turns), 10)  # Kalah(6,4) has ten first turns
        self.assertIn("3-6", turns)
        self.assertEqual(turns["3-6"], p.play_turn("3-6"))
        for text, after in turns.items():
            self.assertEqual(p.play_turn(text), after)
        # A turn left unfinished, as principal variations and records write it (tester 117).
        self.assertEqual(p.play_turn("3-"), p.play(3))
        with self.assertRaises(kalah.IllegalMoveError):
            p.play_turn("1-")  # 1 gives no extra turn

    def test_pie_rule(self):
        p = kalah.Position.start(rules="pie=on").play(1)
        self.assertEqual(p.legal_moves()[-1], "swap")
        q, out = p.step("swap")
        self.assertTrue(out.swapped)
        self.assertEqual(q.bins, p.bins)
        self.assertNotIn("swap", q.legal_moves())
        with self.assertRaises(kalah.IllegalMoveError):
            kalah.Position.start().play(1).play("swap")

    def test_flipped(self):
        p = kalah.Position.start().play_turn("3-6")
        f = p.flipped()
        self.assertEqual(f.to_move, "S")
        self.assertEqual(f.row("S"), p.row("N"))
        self.assertEqual(f.flipped(), p)
        self.assertEqual(kalah.solve(kalah.Position.start(4, 2).flipped()).value, kalah.solve(kalah.Position.start(4, 2)).value)
        # Opening phases name South and North: such positions are not flipped (tester 117: the
        # phase was dropped and the value changed).
        for p in [kalah.Position.start(4, 2, "pie=on"), kalah.Position.start(4, 2, "pie=on").play(1), kalah.Position.start(4, 3, "first-move-extra-turn=off")]:
            with self.subTest(p=str(p)), self.assertRaises(ValueError):
                p.flipped()

    def test_bad_input_raises_value_errors_naming_the_problem(self):
        for text in ["", "4,4,4 S", "4,4,4,4,4,4,0,4,4,4,4,4,4,0 X", "a,b S", "4,4,4,4,4,4,0,4,4,4,4,4,4,0"]:
            with self.subTest(text=text), self.assertRaises(ValueError):
                kalah.Position(text)
        for houses, seeds in [(0, 4), (13, 4), (6, 0), (6, 100)]:
            with self.subTest(houses=houses, seeds=seeds), self.assertRaises(ValueError):
                kalah.Position.start(houses, seeds)
        p = kalah.Position.start()
        for bad in [0, 7, 300, -1, 2**70, -(2**70), "x", "seven", "", "1-2", "99999999999999999999"]:
            with self.subTest(action=bad), self.assertRaises(kalah.IllegalMoveError) as c:
                p.play(bad)
            self.assertIsInstance(c.exception, ValueError)
            self.assertTrue(str(c.exception))
        # Integers of other kinds (numpy's, say) are house numbers too.
        class Index:
            def __init__(self, n):
                self.n = n

            def __index__(self):
                return self.n

        self.assertEqual(p.play(Index(3)), p.play(3))
        with self.assertRaises(kalah.IllegalMoveError):
            p.play(Index(9))
        for bad in [None, 3.0, True, [3]]:
            with self.subTest(action=bad), self.assertRaises(TypeError):
                p.play(bad)
        with self.assertRaises(kalah.IllegalMoveError) as c:
            p.play(-1)
        self.assertIn("1 to 6", str(c.exception))
        # Numbers out of range are ValueErrors naming the argument (tester 117: OverflowError),
        # bools are refused where an int is asked for.
        for kw in [dict(houses=-6), dict(seeds=-1), dict(houses=2**70), dict(layout=[256, 1]), dict(layout=[-1, 2])]:
            with self.subTest(**kw), self.assertRaises(ValueError) as c:
                kalah.Position.start(**kw)
            self.assertNotIsInstance(c.exception, OverflowError)
        for kw in [dict(houses=True), dict(seeds=4.0), dict(layout=[True, 2])]:
            with self.subTest(**kw), self.assertRaises(TypeError):
                kalah.Position.start(**kw)
        self.assertEqual(kalah.Rules(kalah.Rules("pie=on")), kalah.Rules("pie=on"))
        with self.assertRaises(kalah.IllegalMoveError) as c:
            kalah.Position("0,4,4,4,4,4,0,4,4,4,4,4,4,0 S").play(1)
        self.assertIn("1", str(c.exception))
        for turn in ["3", "3-6-1", "1-2", "", "x"]:
            with self.subTest(turn=turn), self.assertRaises(kalah.IllegalMoveError):
                p.play_turn(turn)
        with self.assertRaises(ValueError):
            p.row("East")

    def test_finished_game(self):
        # South's row is empty: over under the standard end rule even before the sweep.
        done = kalah.Position("0,0,0,0,0,0,30,1,0,0,0,0,0,17 N")
        self.assertTrue(done.is_over)
        self.assertEqual(done.score, (30, 18))
        self.assertIsNone(done.to_move)
        # Under the cannot-move end rule North plays on.
        self.assertEqual(kalah.Position(str(done), rules="end=mover-blocked").to_move, "N")
        # North's last seed into its store empties its row: the game ends, South's seed swept.
        p = kalah.Position("0,0,0,0,0,1,30,0,0,0,0,0,1,16 N")
        self.assertFalse(p.is_over)
        q, out = p.step(6)
        self.assertTrue(q.is_over)
        self.assertIsNotNone(out.ended)
        self.assertEqual(q.score, (31, 17))
        self.assertEqual(q.legal_moves(), [])
        with self.assertRaises(kalah.IllegalMoveError):
            q.play(1)

    def test_hash_and_pickle(self):
        p = kalah.Position.start(5, 3, rules="capture=empty").play(2)
        self.assertEqual(pickle.loads(pickle.dumps(p)), p)
        self.assertEqual(pickle.loads(pickle.dumps(p)).rules, p.rules)
        # The same board under other rules is another position.
        self.assertNotEqual(kalah.Position(str(p)), p)
        self.assertEqual(len({p, kalah.Position(str(p), rules=p.rules)}), 1)
        self.assertIn("capture=empty", repr(p))


class PerftTest(unittest.TestCase):
    def test_perft_vectors(self):
        checked = 0
        for line in (CORE_DATA / "perft.txt").read_text().splitlines():
            if line.startswith("#") or not line.strip():
                continue
            rules, pos, depth, count = (x.strip() for x in line.split("|"))
            if int(count) > 2_000_000:
                continue
            p = kalah.Position(pos, rules=rules)
            self.assertEqual(kalah.perft(p, int(depth)), int(count), line)
            checked += 1
        self.assertGreater(checked, 100)


class SolverTest(unittest.TestCase):
    def test_published_values(self):
        rows = [r for r in csv.reader(l for l in (SOLVER_DATA / "published-values.csv").read_text().splitlines() if not l.startswith("#"))][1:]
        checked = 0
        for houses, seeds, capture, value, source in rows:
            houses, seeds = int(houses), int(seeds)
            if houses * seeds > 18 or houses > 5 and seeds > 3:
                continue  # within the test budget: boards up to 18 seeds a side
            p = kalah.Position.start(houses, seeds, kalah.Rules(capture=capture))
            got = kalah.solve(p).value
            with self.subTest(houses=houses, seeds=seeds, capture=capture, source=source):
                if value in "WLD":
                    self.assertEqual("W" if got > 0 else "L" if got < 0 else "D", value)
                else:
                    self.assertEqual(got, int(value))
            checked += 1
        self.assertGreater(checked, 25)

    def test_solution_and_analysis_agree(self):
        p = kalah.Position.start(4, 3)
        sol = kalah.solve(p)
        self.assertEqual(sol.value, 6)  # Kalah(4,3), standard capture
        self.assertEqual(sol.best, ["2-3", "2-4"])
        self.assertGreater(sol.nodes, 0)
        self.assertGreaterEqual(sol.seconds, 0)
        turns = kalah.analyze(p, turns=True)
        self.assertEqual(len(turns), len(p.turns()))
        self.assertEqual(max(v for _, v in turns), sol.value)
        self.assertEqual(sorted(t for t, v in turns if v == sol.value), sol.best)
        moves = kalah.analyze(p)
        self.assertEqual([m for m, _ in moves], p.legal_moves())
        self.assertEqual(max(v for _, v in moves), sol.value)
        # Two threads, the same values.
        self.assertEqual(kalah.analyze(p, turns=True, threads=2), turns)
        # The principal variation replays to the end of the game at the value.
        q = p
        for turn in sol.pv:
            q = q.play_turn(turn)
        self.assertTrue(q.is_over)
        s, n = q.score
        self.assertEqual(s - n, sol.value)

    def test_values_follow_the_side_to_move(self):
        # The same board with South or North to move has different values.
        a = kalah.solve(kalah.Position("2,1,0,3,1,5,0,0,2,2,0,1,3,0 S")).value
        b = kalah.solve(kalah.Position("2,1,0,3,1,5,0,0,2,2,0,1,3,0 N")).value
        flipped = kalah.solve(kalah.Position("2,1,0,3,1,5,0,0,2,2,0,1,3,0 N").flipped()).value
        self.assertEqual(b, flipped)
        self.assertNotEqual(a, b)

    def test_pie_rule_root(self):
        p = kalah.Position.start(3, 3, rules="pie=on").play(2)
        self.assertEqual(p.to_move, "N")
        moves = dict(kalah.analyze(p))
        self.assertIn("swap", moves)
        self.assertEqual(kalah.solve(p).value, max(moves.values()))

    def test_finished_position(self):
        sol = kalah.solve(kalah.Position("0,0,0,0,0,0,30,0,0,0,0,0,0,18 N"))
        self.assertEqual((sol.value, sol.best, sol.pv), (-12, [], []))

    def test_a_stop_after_the_value_says_it_is_proven(self):
        # The last nodes of a solve list the best turns: a stop there has the value as both
        # bounds, and says so (tester 117: "between +10 and +10"). Kalah(4,3): 220 613 nodes
        # with this table in the forty-sixth session, about 4 000 of them for the listing.
        p = kalah.Position.start(4, 3)
        total = kalah.solve(p, table_mib=64).nodes
        proven = None
        for limit in range(total - 1, total // 2, -1000):
            try:
                kalah.solve(p, table_mib=64, node_limit=limit)
            except kalah.SearchStopped as e:
                if e.lower == e.upper:
                    proven = e
                    break
        self.assertIsNotNone(proven)
        self.assertEqual((proven.lower, proven.upper), (6, 6))
        self.assertIn("+6 (proven)", str(proven))

    def test_results_pickle(self):
        p = kalah.Position.start(4, 3)
        for obj in [kalah.solve(p), kalah.search(p, 4), kalah.Engine("expert").choose(p, node_limit=5000), p.step(3)[1]]:
            back = pickle.loads(pickle.dumps(obj))
            self.assertEqual(type(back), type(obj))
            self.assertEqual(repr(back), repr(obj))

    def test_limits_raise_search_stopped_with_bounds(self):
        with self.assertRaises(kalah.SearchStopped) as c:
            kalah.solve(kalah.Position.start(), node_limit=5000)
        e = c.exception
        self.assertLessEqual(e.lower, e.upper)
        self.assertLessEqual(-48, e.lower)
        self.assertLessEqual(e.upper, 48)
        self.assertGreaterEqual(e.nodes, 5000)
        with self.assertRaises(kalah.SearchStopped):
            kalah.analyze(kalah.Position.start(), time_limit=0.05)

    def test_bad_search_arguments(self):
        p = kalah.Position.start(3, 3)
        for kw in [{"threads": 0}, {"threads": -1}, {"threads": 1000}, {"table_mib": 0}, {"table_mib": -5}, {"table_mib": 1 << 40}, {"node_limit": -1}, {"node_limit": 2**70}, {"time_limit": 0}, {"time_limit": -1.0}, {"time_limit": float("nan")}, {"time_limit": 1e300}]:
            with self.subTest(**kw), self.assertRaises(ValueError) as c:
                kalah.solve(p, **kw)
            self.assertNotIsInstance(c.exception, OverflowError)
            self.assertLess(len(str(c.exception)), 120)
            self.assertIn(next(iter(kw)), str(c.exception))
        for kw in [{"threads": True}, {"node_limit": True}, {"time_limit": True}, {"table_mib": 1.5}]:
            with self.subTest(**kw), self.assertRaises(TypeError):
                kalah.solve(p, **kw)
        # An infinite time limit is no limit.
        self.assertEqual(kalah.solve(p, time_limit=float("inf")).value, kalah.solve(p).value)
        for depth in [0, -1, 2**70]:
            with self.assertRaises(ValueError):
                kalah.search(p, depth)
        with self.assertRaises(ValueError):
            kalah.perft(p, -1)
        with self.assertRaises(TypeError):
            kalah.perft(p, True)

    def test_depth_limited_search(self):
        r = kalah.search(kalah.Position.start(), 6)
        self.assertFalse(r.exact)
        self.assertIn(r.best, kalah.Position.start().legal_moves())
        self.assertEqual(r.depth, 6)
        q = kalah.Position.start()
        for turn in r.pv:
            q = q.play_turn(turn)  # the PV replays, an unfinished last turn included
        exact = kalah.search(kalah.Position.start(3, 2), 200)
        self.assertTrue(exact.exact)
        self.assertEqual(exact.value, kalah.solve(kalah.Position.start(3, 2)).value)

    def test_ctrl_c_stops_a_search(self):
        # SIGINT (Ctrl-C) during a search of Kalah(6,4), which takes half a minute or more:
        # KeyboardInterrupt soon after, and the module goes on working.
        timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
        start = time.monotonic()
        timer.start()
        try:
            with self.assertRaises(KeyboardInterrupt):
                kalah.solve(kalah.Position.start(), table_mib=16)
        finally:
            timer.cancel()
        self.assertLess(time.monotonic() - start, 5)
        self.assertEqual(kalah.solve(kalah.Position.start(4, 3)).value, 6)

    def test_the_gil_is_released_during_a_search(self):
        # Another thread runs Python code while a search goes on.
        ticks = []
        done = threading.Event()

        def tick():
            while not done.is_set():
                ticks.append(1)
                done.wait(0.005)

        t = threading.Thread(target=tick)
        t.start()
        try:
            kalah.solve(kalah.Position.start(5, 4, "capture=empty"))
        finally:
            done.set()
            t.join()
        self.assertGreater(len(ticks), 5)


class EngineTest(unittest.TestCase):
    def test_levels_play_legal_actions(self):
        for level in ["beginner", "easy", "medium", "hard", "expert", "perfect"]:
            e = kalah.Engine(level, seed=1)
            self.assertEqual(e.level, level)
            p = kalah.Position.start(4, 3)
            while not p.is_over:
                c = e.choose(p, node_limit=20_000)
                self.assertIn(c.action, p.legal_moves())
                p = p.play(c.action)
            self.assertIsNone(e.choose(p))

    def test_perfect_plays_a_best_action(self):
        rng = random.Random(3)
        e = kalah.Engine("perfect")
        for _ in range(20):
            p = kalah.Position.start(4, 3, rng.choice(["", "capture=empty"]))
            for _ in range(rng.randrange(6)):
                if p.is_over:
                    break
                p = p.play(rng.choice(p.legal_moves()))
            if p.is_over:
                continue
            values = dict(kalah.analyze(p))
            c = e.choose(p, time_limit=5)
            self.assertTrue(c.exact)
            self.assertEqual(values[c.action], max(values.values()), str(p))
            self.assertEqual(c.value, max(values.values()))

    def test_hint(self):
        p = kalah.Position.start(4, 3)
        hint = kalah.Engine("perfect").hint(p, time_limit=5)
        self.assertEqual([(m, v) for m, v, _ in hint], kalah.analyze(p))
        self.assertTrue(all(exact for _, _, exact in hint))

    def test_one_engine_in_two_threads_says_so(self):
        e = kalah.Engine("expert")
        started = threading.Event()
        result = []

        def long_choice():
            started.set()
            result.append(e.choose(kalah.Position.start(), time_limit=1.5))

        t = threading.Thread(target=long_choice)
        t.start()
        started.wait()
        time.sleep(0.3)
        try:
            with self.assertRaises(RuntimeError) as c:
                e.choose(kalah.Position.start(), node_limit=1000)
            self.assertIn("another thread", str(c.exception))
        finally:
            t.join()
        self.assertIn(result[0].action, range(1, 7))

    def test_bad_engine_arguments(self):
        with self.assertRaises(ValueError) as c:
            kalah.Engine("grandmaster")
        self.assertIn("grandmaster", str(c.exception))
        with self.assertRaises(ValueError):
            kalah.Engine(threads=0)
        with self.assertRaises(ValueError):
            kalah.Engine(seed=-1)
        with self.assertRaises(ValueError):
            kalah.Engine().choose(kalah.Position.start(), time_limit=-1)


class EgdbTest(unittest.TestCase):
    def test_build_probe_and_solve_with_databases(self):
        with tempfile.TemporaryDirectory() as root:
            for rules in ["", "capture=empty end=mover-blocked leftovers=emptier"]:
                db = kalah.Egdb.build(root, houses=4, max_seeds=14, rules=rules, threads=1)
                self.assertEqual((db.houses, db.max_seeds), (4, 14))
                self.assertEqual(kalah.Egdb(root, 4, rules).max_seeds, 14)
                rng = random.Random(5)
                probed = 0
                for _ in range(60):
                    p = kalah.Position.start(4, 3, rules)
                    for _ in range(rng.randrange(4, 24)):
                        if p.is_over:
                            break
                        p = p.play(rng.choice(p.legal_moves()))
                    if p.is_over:
                        self.assertIsNone(db.probe(p))
                        continue
                    value = kalah.solve(p).value
                    got = db.probe(p)
                    if sum(p.row("S")) + sum(p.row("N")) <= 14:
                        self.assertEqual(got, value, str(p))
                        probed += 1
                    else:
                        self.assertIsNone(got)
                    self.assertEqual(kalah.solve(p, egdb=db).value, value, str(p))
                    self.assertEqual(kalah.analyze(p, egdb=db), kalah.analyze(p), str(p))
                self.assertGreater(probed, 5)
                # Layers already built are kept: building to 15 builds one more.
                k014 = Path(db.dir) / "k014.egdb"
                before = k014.stat().st_mtime_ns
                self.assertEqual(kalah.Egdb.build(root, 4, 15, rules, threads=1).max_seeds, 15)
                self.assertEqual(k014.stat().st_mtime_ns, before)
            # The engine uses them where they serve the game.
            db = kalah.Egdb(root, 4)
            c = kalah.Engine("perfect", egdb=db).choose(kalah.Position.start(4, 3), time_limit=5)
            self.assertTrue(c.exact)
            self.assertEqual(c.value, 6)

    def test_bad_databases(self):
        with tempfile.TemporaryDirectory() as root:
            with self.assertRaises(FileNotFoundError) as c:
                kalah.Egdb(root, 6, "capture=empty")
            self.assertIn("kalah egdb build --houses 6 --max-seeds 20 --capture empty", str(c.exception))
            with self.assertRaises(FileNotFoundError):
                kalah.Egdb(os.path.join(root, "missing"))
            with self.assertRaises(ValueError):
                kalah.Egdb(root, 6, "majority-end=on")
            with self.assertRaises(ValueError):
                kalah.Egdb.build(root, 6, 16, "majority-end=on")
            with self.assertRaises(ValueError):
                kalah.Egdb(root, 13)
            db = kalah.Egdb.build(root, houses=3, max_seeds=4, threads=1)
            # Databases of another board or rule set are refused by the searches.
            with self.assertRaises(ValueError) as c:
                kalah.solve(kalah.Position.start(4, 3), egdb=db)
            self.assertIn("Kalah(3", str(c.exception))
            with self.assertRaises(ValueError):
                kalah.solve(kalah.Position.start(3, 3, "capture=empty"), egdb=db)
            self.assertIsNone(db.probe(kalah.Position.start(4, 1)))
            # A damaged layer file is refused with a message naming it.
            layer = next(Path(root).glob("*/k004.egdb"))
            layer.write_bytes(layer.read_bytes()[:40])
            with self.assertRaises(ValueError) as c:
                kalah.Egdb(root, 3)
            self.assertIn("k004.egdb", str(c.exception))


class GameRecordTest(unittest.TestCase):
    def test_play_save_and_read_back(self):
        g = kalah.GameRecord(kalah.Position.start(rules="pie=on"))
        for mv in [3, 6, "swap", 1]:
            g.push(mv)
        self.assertEqual(g.moves, [3, 6, "swap", 1])
        self.assertEqual(len(g), 4)
        self.assertEqual(g.turns, ["3-6", "swap", "1"])
        self.assertEqual(len(g.positions()), 5)
        self.assertEqual(g.positions()[-1], g.position)
        with self.assertRaises(kalah.IllegalMoveError):
            g.push("swap")
        self.assertEqual(len(g), 4)  # unchanged
        for text in [g.to_text(), g.to_json()]:
            back = kalah.GameRecord.parse(text)
            self.assertEqual(back.moves, g.moves)
            self.assertEqual(back.rules, g.rules)
            self.assertEqual(back.position, g.position)
        back = pickle.loads(pickle.dumps(g))
        self.assertEqual((back.moves, back.rules, back.to_text()), (g.moves, g.rules, g.to_text()))
        self.assertEqual(g.pop(), 1)
        self.assertEqual(len(g), 3)
        self.assertIsNone(g.result)

    def test_finished_game_result(self):
        g = kalah.GameRecord(kalah.Position.start(1, 1))
        g.push(1)
        self.assertEqual(g.result, (1, 1))
        self.assertIsNone(kalah.GameRecord(kalah.Position.start()).pop())

    def test_bad_records(self):
        for text in ["", "[Rules \"capture=maybe\"]\n", "1. S 9\n", "{\"moves\": [\"x\"]}"]:
            with self.subTest(text=text), self.assertRaises(ValueError):
                kalah.GameRecord.parse(text)


class StubTest(unittest.TestCase):
    def test_the_stub_names_what_the_module_has(self):
        """kalah.pyi declares every public name of the module, and nothing else."""
        import ast

        tree = ast.parse(STUB.read_text())
        stub = set()
        for node in tree.body:
            if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
                stub.add(node.name)
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                stub.add(node.target.id)
        # What `from kalah import *` gives (pyo3 lists each name the module adds); the wheel's
        # package also holds the compiled module itself, as a submodule `kalah`.
        self.assertEqual(stub, set(kalah.__all__))
        public = {n for n in dir(kalah) if not n.startswith("_") and not inspect.ismodule(getattr(kalah, n))}
        self.assertLessEqual(public, set(kalah.__all__))
        # And every public attribute of each class.
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and node.name not in ("IllegalMoveError", "SearchStopped"):
                cls = getattr(kalah, node.name)
                declared = {n.name for n in node.body if isinstance(n, ast.FunctionDef)} | {
                    n.target.id for n in node.body if isinstance(n, ast.AnnAssign)
                }
                have = {n for n in dir(cls) if not n.startswith("_")}
                self.assertEqual(declared - {"__init__", "__len__"}, have, node.name)


if __name__ == "__main__":
    unittest.main()
