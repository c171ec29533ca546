//! `kalah match`: engine against engine, checked against `kalah show` and `kalah solve`.

use std::process::{Command as StdCommand, Output, Stdio};
use std::time::Duration;

use assert_cmd::Command;
use serde_json::Value;

fn kalah() -> Command {
    let mut c = Command::cargo_bin("kalah").expect("the kalah binary");
    c.timeout(Duration::from_secs(120));
    c
}

/// Runs `kalah ARGS` and returns its output, whatever its exit code.
fn run(args: &[&str]) -> Output {
    kalah().args(args).output().expect("runs")
}

/// Runs `kalah ARGS`, asserts success and returns stdout.
fn ok(args: &[&str]) -> String {
    let out = run(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "kalah {args:?} failed: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    String::from_utf8(out.stdout).expect("utf-8")
}

/// `kalah match ARGS --no-egdb` (never the user's databases in tests).
fn match_args<'a>(args: &[&'a str]) -> Vec<&'a str> {
    let mut a = vec!["match"];
    a.extend_from_slice(args);
    a.push("--no-egdb");
    a
}

/// `kalah match ARGS --json --no-egdb`, parsed.
fn match_json(args: &[&str]) -> (String, Value) {
    let mut a = match_args(args);
    a.push("--json");
    let text = ok(&a);
    let v: Value = serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("{e}: {text}"));
    (text, v)
}

/// `kalah show RULES --moves MOVES --json`, parsed.
fn show(rules: &[&str], moves: &str) -> Value {
    let mut a = vec!["show"];
    a.extend_from_slice(rules);
    a.extend_from_slice(&["--moves", moves, "--json"]);
    serde_json::from_str(ok(&a).trim()).expect("show --json")
}

/// The single actions of a record's turns (`3-1 2` is 3, 1, 2).
fn plies(text: &str) -> Vec<&str> {
    text.split([' ', '-']).filter(|s| !s.is_empty()).collect()
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"))
}

/// Checks one match's JSON against itself and against `kalah show`: colours swapped in pairs,
/// the same opening in a pair, every game's moves replaying to its stores, the counts adding
/// up. Returns A's final store difference in every game.
fn check_match(v: &Value, rules: &[&str], a: &str, b: &str, games: usize, seeds: u64) -> Vec<i64> {
    assert_eq!(v["a"], a);
    assert_eq!(v["b"], b);
    assert_eq!(v["interrupted"], false);
    let list = v["games"].as_array().expect("games");
    assert_eq!(list.len(), games);
    let (mut wins, mut draws, mut losses) = (0, 0, 0);
    let mut diffs = Vec::new();
    for (i, g) in list.iter().enumerate() {
        assert_eq!(u(&g["game"]), i as u64 + 1);
        // A is South in the odd games, B in the even ones.
        let a_south = i % 2 == 0;
        let (south, north) = if a_south { (a, b) } else { (b, a) };
        assert_eq!(g["south"], south, "game {}", i + 1);
        assert_eq!(g["north"], north, "game {}", i + 1);
        assert_eq!(g["a_side"], if a_south { "south" } else { "north" });
        if i % 2 == 1 {
            assert_eq!(
                g["opening"],
                list[i - 1]["opening"],
                "a pair shares its opening"
            );
        }
        let moves = g["moves"].as_str().expect("moves");
        let opening = g["opening"].as_str().expect("opening");
        assert!(
            plies(moves).starts_with(&plies(opening)),
            "the game starts with its opening: {moves} / {opening}"
        );
        let (s, n) = (u(&g["south_store"]), u(&g["north_store"]));
        assert_eq!(s + n, seeds, "seeds conserved in game {}", i + 1);
        let replay = show(rules, moves);
        assert_eq!(replay["over"], true, "game {} is finished: {replay}", i + 1);
        assert_eq!(replay["score"], serde_json::json!([s, n]), "game {}", i + 1);
        let swapped = plies(moves).contains(&"swap");
        assert_eq!(g["swapped"], swapped);
        // A owns South's store if he started there and did not swap sides (or the reverse).
        let a_store_south = a_south != swapped;
        let diff = if a_store_south {
            s as i64 - n as i64
        } else {
            n as i64 - s as i64
        };
        let a_word = if a_south { "south" } else { "north" };
        let b_word = if a_south { "north" } else { "south" };
        match diff.signum() {
            1 => {
                wins += 1;
                assert_eq!(g["result"], a_word);
            }
            0 => {
                draws += 1;
                assert_eq!(g["result"], "draw");
            }
            _ => {
                losses += 1;
                assert_eq!(g["result"], b_word);
            }
        }
        diffs.push(diff);
    }
    assert_eq!(u(&v["a_wins"]), wins);
    assert_eq!(u(&v["draws"]), draws);
    assert_eq!(u(&v["b_wins"]), losses);
    assert_eq!(wins + draws + losses, games as u64, "the counts add up");
    assert_eq!(
        v["a_points"].as_f64(),
        Some(wins as f64 + draws as f64 / 2.0)
    );
    let mean = diffs.iter().sum::<i64>() as f64 / games as f64;
    assert!((v["a_mean_diff"].as_f64().expect("mean") - mean).abs() < 1e-9);
    let south = &v["a_as_south"];
    let north = &v["a_as_north"];
    assert_eq!(u(&south["games"]), games.div_ceil(2) as u64);
    assert_eq!(u(&north["games"]), (games / 2) as u64);
    assert_eq!(u(&south["a_wins"]) + u(&north["a_wins"]), wins);
    assert_eq!(u(&v["pairs"]["played"]), (games / 2) as u64);
    let p = &v["pairs"];
    assert_eq!(
        u(&p["a_won_both"]) + u(&p["split"]) + u(&p["a_lost_both"]),
        (games / 2) as u64
    );
    diffs
}

/// The arguments of `kalah match` for `games` games of `LEVEL_A LEVEL_B` under `rules`, from
/// 2-action openings, with `nodes` nodes an action, then `extra`.
fn level_args<'a>(
    (a, b): (&'a str, &'a str),
    rules: &[&'a str],
    games: &'a str,
    nodes: &'a str,
    extra: &[&'a str],
) -> Vec<&'a str> {
    let mut args = vec![a, b];
    args.extend_from_slice(rules);
    args.extend_from_slice(&[
        "--games",
        games,
        "--opening-plies",
        "2",
        "--move-nodes",
        nodes,
    ]);
    args.extend_from_slice(extra);
    args
}

#[test]
fn a_node_limited_match_repeats_and_its_games_replay() {
    let rules = ["--houses", "4", "--seeds", "3"];
    let args = level_args(("medium", "easy"), &rules, "4", "3000", &[]);
    let mut seeded = args.clone();
    seeded.extend_from_slice(&["--seed", "11"]);
    let (first, v) = match_json(&seeded);
    let (second, _) = match_json(&seeded);
    assert_eq!(first, second, "the same seed gives the same match");
    check_match(&v, &rules, "medium", "easy", 4, 24);
    assert_eq!(u(&v["seed"]), 11);
    assert_eq!(u(&v["move_nodes"]), 3000);
    assert_eq!(v["move_time_ms"], Value::Null);
    assert_eq!(u(&v["threads"]), 1);
    // Another seed draws other openings (the default seed is 0).
    let (_, other) = match_json(&args);
    assert_eq!(u(&other["seed"]), 0);
    let openings = |v: &Value| -> Vec<Value> {
        let games = v["games"].as_array().unwrap();
        games.iter().map(|g| g["opening"].clone()).collect()
    };
    assert_ne!(openings(&v), openings(&other));
    for o in openings(&v) {
        assert_eq!(plies(o.as_str().unwrap()).len(), 2, "{o}");
    }
}

#[test]
fn the_pie_rule_and_an_odd_game_count() {
    // Under the pie rule `swap` is one of North's actions, in the opening or the engine's.
    let rules = ["--houses", "4", "--seeds", "3", "--pie"];
    let mut swaps = 0;
    // Seeds until a game has a swap (within the opening or by an engine).
    for seed in 1..=12 {
        if swaps > 0 {
            break;
        }
        let seed = seed.to_string();
        let args = level_args(
            ("medium", "beginner"),
            &rules,
            "3",
            "3000",
            &["--seed", &seed],
        );
        let (_, v) = match_json(&args);
        check_match(&v, &rules, "medium", "beginner", 3, 24);
        assert_eq!(v["rules"]["pie"], true);
        let games = v["games"].as_array().unwrap();
        swaps += games.iter().filter(|g| g["swapped"] == true).count();
    }
    assert!(swaps > 0, "no game swapped in 12 matches");
}

#[test]
fn perfect_never_gives_away_a_proven_value() {
    let rules = ["--houses", "4", "--seeds", "3"];
    let args = level_args(
        ("perfect", "beginner"),
        &rules,
        "4",
        "5000000",
        &["--seed", "5"],
    );
    let (_, v) = match_json(&args);
    let diffs = check_match(&v, &rules, "perfect", "beginner", 4, 24);
    for (g, diff) in v["games"].as_array().unwrap().iter().zip(diffs) {
        let after = show(&rules, g["opening"].as_str().unwrap());
        let pos = after["position"].as_str().unwrap();
        // The position carries the board; the rules are the defaults.
        let solve = ["solve", pos, "--json", "--no-egdb"];
        let solved: Value = serde_json::from_str(ok(&solve).trim()).unwrap();
        let value = solved["value"].as_i64().unwrap();
        // The value is the side to move's; perfect (A) plays `a_side`.
        let to_move = match after["to_move"].as_str().unwrap() {
            "S" => "south",
            _ => "north",
        };
        let floor = if g["a_side"] == to_move {
            value
        } else {
            -value
        };
        assert!(
            diff >= floor,
            "game {}: perfect ended {diff:+} after the opening {pos} worth {floor:+} to it",
            g["game"]
        );
    }
}

#[test]
fn text_lines_agree_with_the_json() {
    let mut args = vec!["expert", "beginner", "--houses", "3", "--seeds", "2"];
    args.extend_from_slice(&[
        "--games",
        "3",
        "--opening-plies",
        "1",
        "--move-nodes",
        "2000",
    ]);
    let text = ok(&match_args(&args));
    let (_, v) = match_json(&args);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("match: expert (A) against beginner (B), 3 games"));
    for g in v["games"].as_array().unwrap() {
        let n = u(&g["game"]);
        let prefix = format!("game {n}: ");
        let line = lines
            .iter()
            .find(|l| l.starts_with(&prefix))
            .unwrap_or_else(|| panic!("no line for game {n}:\n{text}"));
        let (s, no) = (u(&g["south_store"]), u(&g["north_store"]));
        let (south, north) = (g["south"].as_str().unwrap(), g["north"].as_str().unwrap());
        assert!(
            line.contains(&format!("{south} (South) {s} – {no} {north} (North): ")),
            "{line}"
        );
        let verdict = match g["result"].as_str().unwrap() {
            "draw" => "a draw".to_string(),
            "south" => format!("{south} wins by {}", s.abs_diff(no)),
            _ => format!("{north} wins by {}", s.abs_diff(no)),
        };
        assert!(line.contains(&verdict), "{line} / {verdict}");
        assert!(
            line.ends_with(&format!("; opening {}", g["opening"].as_str().unwrap())),
            "{line}"
        );
    }
    let (w, d, l) = (u(&v["a_wins"]), u(&v["draws"]), u(&v["b_wins"]));
    let plural = |n: u64, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    assert!(text.contains("match over: 3 games\n"), "{text}");
    assert!(
        text.contains(&format!(
            "expert (A) {}, {}, beginner (B) {}\n",
            plural(w, "win"),
            plural(d, "draw"),
            plural(l, "win")
        )),
        "{text}"
    );
    assert!(text.contains("expert scores "), "{text}");
    assert!(text.contains("expert as South: 2 games, "), "{text}");
    assert!(text.contains("expert as North: 1 game, "), "{text}");
    assert!(text.contains("pairs played both ways: 1; "), "{text}");
}

#[test]
fn bad_input_is_refused_with_the_flag_named() {
    let cases: [(&[&str], &str); 5] = [
        (&["medium", "easy", "--games", "0"], "--games"),
        (
            &["medium", "easy", "--opening-plies", "21"],
            "--opening-plies",
        ),
        (&["medium", "grandmaster"], "grandmaster"),
        (&["medium", "easy", "--threads", "0"], "--threads"),
        (&["medium"], "LEVEL_B"),
    ];
    for (args, named) in cases {
        let out = run(&match_args(args));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(named), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    let out = run(&match_args(&["medium", "grandmaster"]));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("beginner, easy, medium, hard, expert, perfect"),
        "the valid levels are listed: {stderr}"
    );
    // A bad start is a bad position, exit code 1, as for `kalah play`.
    let out = run(&match_args(&["medium", "easy", "--seeds", "0"]));
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn ctrl_c_prints_the_games_finished_and_exits_130() {
    let args = match_args(&[
        "expert",
        "expert",
        // Far more games than 1.5 s holds: an idle machine plays about 700 of Kalah(3,3) a
        // second (1000 games ended before the signal, exit 0, on the thirty-fourth session).
        "--games",
        "1000000",
        "--move-time-ms",
        "20",
        "--houses",
        "3",
        "--seeds",
        "3",
        "--json",
    ]);
    let child = StdCommand::new(assert_cmd::cargo::cargo_bin("kalah"))
        .args(&args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    std::thread::sleep(Duration::from_millis(1500));
    let status = StdCommand::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    let out = child.wait_with_output().expect("wait");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("match interrupted"), "{stderr}");
    let v: Value = serde_json::from_slice(&out.stdout).expect("the JSON summary");
    assert_eq!(v["interrupted"], true);
    let games = v["games"].as_array().unwrap().len() as u64;
    assert!(games < 1_000_000);
    assert_eq!(u(&v["a_wins"]) + u(&v["draws"]) + u(&v["b_wins"]), games);
}

/// Tester 22: a one-game match's summary said "1 games".
#[test]
fn a_one_game_summary_says_game() {
    let text = ok(&match_args(&[
        "easy", "easy", "--houses", "3", "--seeds", "2", "--games", "1",
    ]));
    assert!(text.contains("\nmatch over: 1 game\n"), "{text}");
}

/// Tester 22: `kalah match ... | head -1` ended with exit 1 and nothing on stderr; a match now
/// says how far it got, as `kalah play` says what became of its game.
#[test]
fn a_closed_output_is_said_to_stop_the_match() {
    use std::io::{BufRead, BufReader};
    let mut child = StdCommand::new(assert_cmd::cargo::cargo_bin("kalah"))
        .args(match_args(&[
            "easy", "easy", "--houses", "3", "--seeds", "2", "--games", "100000",
        ]))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.starts_with("match: easy A against easy B"), "{first}");
    // The reader is gone: the next game's line cannot be written.
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("kalah: the output was closed (broken pipe): the match stopped after ")
            && stderr.ends_with(" of 100000 games\n")
            && stderr.lines().count() == 1,
        "{stderr}"
    );
}

/// Tester 77: `hard` against `medium`, 10 games, played five identical pairs and said
/// "100.0 %" without a word. Two levels without randomness and no random opening now get a
/// note on stderr (the JSON on stdout stays whole); a random level, an opening or a single pair
/// do not.
#[test]
fn a_match_of_identical_pairs_says_so() {
    let note = "without randomness and every pair starts from the same position";
    let stderr = |args: &[&str]| {
        let mut a = match_args(args);
        a.extend_from_slice(&["--houses", "3", "--seeds", "2", "--move-nodes", "500"]);
        let out = run(&a);
        assert!(out.status.success(), "{args:?}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let said = stderr(&["hard", "medium", "--games", "4", "--json"]);
    assert!(
        said.contains(&format!("kalah: note: hard and medium choose {note}")),
        "{said}"
    );
    assert!(said.contains("--opening-plies 4"), "{said}");
    let said = stderr(&["perfect", "perfect", "--games", "3"]);
    assert!(said.contains(&format!("perfect chooses {note}")), "{said}");
    for quiet in [
        &["hard", "medium", "--games", "4", "--opening-plies", "1"][..],
        &["easy", "medium", "--games", "4"],
        &["hard", "beginner", "--games", "4"],
        &["hard", "medium", "--games", "2"],
    ] {
        let said = stderr(quiet);
        assert!(!said.contains(note), "{quiet:?}: {said}");
    }
}
