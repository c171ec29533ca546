//! Every kind of bad input gives one clear line on stderr and a non-zero exit, never a panic.

use assert_cmd::Command;

mod common;

fn kalah() -> Command {
    Command::cargo_bin("kalah").expect("the kalah binary")
}

/// Runs `kalah ARGS` (stdin empty) and checks the failure; returns the stderr line.
fn fails(args: &[&str]) -> String {
    failure(args).0
}

/// Runs `kalah ARGS` (stdin empty) and checks the failure; returns the stderr line and the exit
/// code.
fn failure(args: &[&str]) -> (String, i32) {
    let out = kalah().args(args).write_stdin("").output().expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(!out.status.success(), "kalah {args:?} should fail");
    assert!(
        out.status.code().is_some(),
        "kalah {args:?} died of a signal"
    );
    assert!(
        !stderr.contains("panicked"),
        "kalah {args:?} panicked: {stderr}"
    );
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(
        lines.len(),
        1,
        "kalah {args:?}: one line on stderr, got:\n{stderr}"
    );
    assert!(lines[0].starts_with("kalah: error: "), "{}", lines[0]);
    (lines[0].to_string(), out.status.code().unwrap())
}

fn fails_with(args: &[&str], needle: &str) {
    let line = fails(args);
    assert!(
        line.contains(needle),
        "kalah {args:?}: {line:?} lacks {needle:?}"
    );
}

/// A position typed without quotes: the advice quotes it, side and phase tag included, and the
/// quoted command works (tester 65: clap's "unexpected argument 'S' found" alone).
#[test]
fn an_unquoted_position_is_told_to_be_quoted() {
    for (args, quoted) in [
        (
            &["show", "4,4,4,4,4,4,0,4,4,4,4,4,4,0", "S"][..],
            "4,4,4,4,4,4,0,4,4,4,4,4,4,0 S",
        ),
        (
            &["solve", "1,0,1,0", "N", "pie", "--pie"][..],
            "1,0,1,0 N pie",
        ),
        (
            &["analyze", "--json", "1,1,0,1,1,0", "n"][..],
            "1,1,0,1,1,0 n",
        ),
        // The side's name, which positions read as well.
        (
            &["solve", "1,0,1,0", "North", "PIE", "--pie"][..],
            "1,0,1,0 North PIE",
        ),
    ] {
        let (line, code) = failure(args);
        assert_eq!(code, 2, "{line}");
        assert!(
            line.contains(&format!("quote it: '{quoted}'")),
            "kalah {args:?}: {line}"
        );
        // Quoted as told, the command runs.
        let mut fixed: Vec<&str> = args
            .iter()
            .copied()
            .take_while(|a| !quoted.starts_with(a))
            .collect();
        fixed.push(quoted);
        fixed.extend(
            args.iter()
                .copied()
                .skip(fixed.len() + quoted.split(' ').count() - 1),
        );
        let out = kalah().args(&fixed).output().expect("runs");
        assert!(
            out.status.success(),
            "kalah {fixed:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // Flags between the counts and the side (tester 106: clap's "unexpected argument 'S'
    // found" alone).
    let line = fails(&["solve", "1,1,0,1,1,0", "--json", "S"]);
    assert!(
        line.contains(
            "unexpected argument 'S' (the counts '1,1,0,1,1,0' came before it): a position is \
             one argument, its side to move included; quote it: '1,1,0,1,1,0 S'"
        ),
        "{line}"
    );
    // Counts given to --moves or --layout are not a position.
    let line = fails(&["show", "--moves", "3,6,1,2", "S"]);
    assert!(!line.contains("quote it"), "{line}");
    let line = fails(&["show", "--moves", "3,6,1,2", "--json", "S"]);
    assert!(!line.contains("quote it"), "{line}");
}

#[test]
fn bad_positions() {
    fails_with(&["show", "4,4,#,4 S"], "'#' is not a seed count");
    fails_with(&["show", "1,2,3"], "2m+2 pit counts");
    fails_with(
        &["show", "4,4,4,4,4,4,0,4,4,4,4,4,4,0 X"],
        "is not a side to move",
    );
    fails_with(
        &["show", "4,4,4,4,4,4,0,4,4,4,4,4,4,0 S extra"],
        "unexpected 'extra'",
    );
    fails_with(&["show", "200,0,0,100 S"], "at most 255");
    // A negative first count looked like a flag to the parser ("unexpected argument '-1'").
    for cmd in [&["show"][..], &["solve"], &["analyze"], &["perft", "2"]] {
        let mut args = cmd.to_vec();
        args.push("-1,4,4,4,4,4,0,4,4,4,4,4,4,0 S");
        let (line, code) = failure(&args);
        assert!(
            line.contains("column 1: '-1' is not a seed count (0 to 255)"),
            "{args:?}: {line}"
        );
        assert_eq!(code, 1, "{args:?}");
    }
    fails_with(&["show", ""], "empty position");
    fails_with(&["show", "1,1,1,1"], "needs a side to move");
    fails_with(&["perft", "2", "4,4,4"], "bad position");
    // Options that contradict the position or each other: a malformed command line, exit code 2
    // as for clap's own conflicts (tester 16: these gave 1).
    for (args, needle) in [
        (
            &["show", "4,4,4,4,4,4,0,4,4,4,4,4,4,0 S", "--houses", "4"][..],
            "--houses 4 but the position has 6 houses a side",
        ),
        (
            &["show", "4,4,4,4,4,4,0,4,4,4,4,4,4,0 S", "--seeds", "3"],
            "cannot be used with a POSITION",
        ),
        (
            &["solve", "4,4,4,4 S", "--layout", "4"],
            "cannot be used with a POSITION",
        ),
        (
            &["show", "--houses", "4", "--layout", "4,4,4"],
            "--houses 4 but --layout gives 3 houses",
        ),
    ] {
        let (line, code) = failure(args);
        assert!(line.contains(needle), "{args:?}: {line}");
        assert_eq!(code, 2, "{args:?}: {line}");
    }
    // Tester 22: "gives 1 houses".
    let (line, code) = failure(&["show", "--houses", "4", "--layout", "4"]);
    assert_eq!(line, "kalah: error: --houses 4 but --layout gives 1 house");
    assert_eq!(code, 2);
}

#[test]
fn bad_moves() {
    fails_with(&["show", "--moves", "7"], "there is no house 7");
    fails_with(&["show", "--moves", "3,3"], "house 3 is empty");
    fails_with(&["show", "--moves", "3,x"], "'x' is not a move");
    fails_with(&["show", "--moves", "swap"], "swap is only allowed");
    fails_with(&["show", "--moves", "300"], "--moves item 1");
    // An empty item is a slip, as in --layout; spaces after the commas are fine.
    fails_with(
        &["show", "--moves", "3,,6"],
        "--moves item 2: an empty item",
    );
    fails_with(
        &["show", "--moves", "3-6,"],
        "--moves item 2: an empty item",
    );
    fails_with(
        &["show", "0,0,0,0,0,0,20,1,1,1,1,1,1,22 N", "--moves", "1"],
        "the game is over",
    );
}

#[test]
fn bad_rule_flags() {
    fails_with(&["show", "--houses", "13"], "1 to 12 houses");
    fails_with(&["show", "--houses", "0"], "1 to 12 houses");
    fails_with(&["show", "--seeds", "0"], "no seeds");
    fails_with(&["show", "--seeds", "30"], "at most 255");
    fails_with(
        &["show", "--houses", "-3"],
        "invalid value '-3' for '--houses <M>'",
    );
    fails_with(
        &["show", "--layout", "4,x,4"],
        "'--layout <COUNTS>': item 2",
    );
    fails_with(
        &["show", "--layout", "4,4", "--houses", "3"],
        "--layout gives 2 houses",
    );
    fails_with(
        &["show", "--layout", "4,4", "--seeds", "3"],
        "cannot be used with",
    );
    fails_with(&["show", "--mirrored"], "--layout");
    // --seeds without --layout used to hide the missing --layout (clap: the layout conflicts
    // with --seeds), and the plain start was shown.
    for cmd in ["show", "perft", "solve", "analyze"] {
        let mut args = vec![cmd];
        if cmd == "perft" {
            args.push("1");
        }
        args.extend(["--mirrored", "--seeds", "2", "--houses", "3"]);
        fails_with(&args, "'--mirrored' cannot be used with '--seeds <N>'");
    }
    fails_with(&["show", "--capture", "greedy"], "--capture");
    fails_with(&["show", "--end", "never"], "--end");
    fails_with(&["show", "--leftovers", "me"], "--leftovers");
    fails_with(
        &["show", "--frobnicate"],
        "unexpected argument '--frobnicate'",
    );
    // Clap's suggestions stay, on the one line (tester 90: they were dropped).
    fails_with(
        &["play", "--levl", "hard"],
        "unexpected argument '--levl' found; tip: a similar argument exists: '--level' (see 'kalah play --help')",
    );
    fails_with(
        &["slove"],
        "; tip: some similar subcommands exist: 'serve', 'solve'",
    );
    fails_with(&["perft", "3", "--houses", "20"], "1 to 12 houses");
    fails_with(&["play", "--seeds", "0"], "no seeds");
}

#[test]
fn bad_depths() {
    fails_with(&["perft", "x"], "invalid value 'x' for '<DEPTH>'");
    fails_with(&["perft", "-1"], "invalid value '-1' for '<DEPTH>'");
    fails_with(&["perft", "41"], "use 0 to 40 plies, not 41");
    fails_with(&["perft", "99999999999"], "<DEPTH>");
    fails_with(&["perft"], "<DEPTH>");
}

/// Regression: `kalah perft 41` exited with code 1, while clap's own usage and range errors
/// exit with 2. A bad value on the command line exits with 2 and points to the help page.
#[test]
fn bad_command_line_values_exit_2() {
    let cases: [(&[&str], &str); 27] = [
        (
            &["perft", "41"],
            "invalid value '41' for '<DEPTH>': use 0 to 40 plies, not 41",
        ),
        (&["perft", "-1"], "use 0 to 40 plies, not -1"),
        (
            &["perft", "99999999999"],
            "use 0 to 40 plies, not 99999999999",
        ),
        (&["perft", "x"], "'x' is not a whole number of plies"),
        (&["perft"], "<DEPTH>"),
        (&["bench", "--tt-mb", "0"], "--tt-mb"),
        (&["analyze", "--threads", "0"], "--threads"),
        (&["solve", "--threads", "257"], "--threads"),
        (&["show", "--houses", "13"], "use 1 to 12 houses, not 13"),
        (
            &["perft", "2", "--houses", "-1"],
            "use 1 to 12 houses, not -1",
        ),
        (
            &["serve", "--engine-slots", "0"],
            "use 1 to 1024 engine slots, not 0",
        ),
        (&["serve", "--max-time-ms", "0"], "--max-time-ms"),
        (
            &["serve", "--read-timeout-ms", "-1"],
            "use 1 to 86400000 milliseconds, not -1",
        ),
        (&["serve", "--default-time-ms", "0"], "--default-time-ms"),
        (&["serve", "--port", "-1"], "use 0 to 65535, not -1"),
        (
            &["play", "--seed", "-1"],
            "use 0 to 18446744073709551615, not -1",
        ),
        (
            &["play", "--move-time-ms", "0"],
            "use 1 to 86400000 milliseconds, not 0",
        ),
        (
            &["egdb", "build", "--max-seeds", "121"],
            "use 0 to 120 seeds, not 121",
        ),
        (&["solve", "--tt-mb", "x"], "--tt-mb"),
        // Negative numbers reach the flags' own checks (not clap's "unexpected argument").
        (
            &["solve", "--tt-mb", "-1"],
            "'-1' is not a whole number of MiB",
        ),
        (
            &["solve", "--tt-mb", "18446744073709551616"],
            "is more than any table can use",
        ),
        (
            &["solve", "--threads", "-2"],
            "use 1 to 256 threads, not -2",
        ),
        (
            &["analyze", "--threads", "-1"],
            "use 1 to 256 threads, not -1",
        ),
        (
            &["bench", "--tt-mb", "-3"],
            "'-3' is not a whole number of MiB",
        ),
        (
            &["egdb", "build", "--max-seeds", "-1"],
            "use 0 to 120 seeds, not -1",
        ),
        (
            &["serve", "--engine-slots", "-1"],
            "use 1 to 1024 engine slots, not -1",
        ),
        (
            &["play", "--move-time-ms", "-1"],
            "use 1 to 86400000 milliseconds, not -1",
        ),
    ];
    for (args, needle) in cases {
        let (line, code) = failure(args);
        assert!(
            line.contains(needle),
            "kalah {args:?}: {line:?} lacks {needle:?}"
        );
        // The subcommand's help page: `kalah egdb build --help` for `egdb build`.
        let page = if args[0] == "egdb" {
            args[..2].join(" ")
        } else {
            args[0].to_string()
        };
        assert!(
            line.ends_with(&format!("(see 'kalah {page} --help')")),
            "{line}"
        );
        assert_eq!(code, 2, "kalah {args:?}: {line}");
    }
    // Bad input that is not a malformed command line (here a position) exits with 1.
    let (line, code) = failure(&["perft", "2", "4,4,4"]);
    assert_eq!(code, 1, "{line}");
}

#[test]
fn bad_play_flags() {
    fails_with(&["play", "--level", "godlike"], "unknown level 'godlike'");
    fails_with(&["play", "--side", "east"], "--side");
    fails_with(&["play", "--opponent", "robot"], "--opponent");
    fails_with(&["play", "--move-time-ms", "soon"], "--move-time-ms");
    fails_with(
        &["play", "--seed", "-5"],
        "invalid value '-5' for '--seed <N>'",
    );
    fails_with(
        &["play", "--load", "x.txt", "--houses", "4"],
        "cannot be used with",
    );
    fails_with(&["play", "--color", "purple"], "--color");
    fails_with(&["nosuchcommand"], "unrecognized subcommand");
}

#[test]
fn bad_files() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.txt");
    fails_with(
        &["play", "--load", missing.to_str().unwrap()],
        "cannot read",
    );
    fails_with(
        &["play", "--load", dir.path().to_str().unwrap()],
        "cannot read",
    );
    let cases = [
        ("garbage.txt", "[Start \"4,4\n", "line 1"),
        ("illegal.txt", "1. S 7\n", "there is no house 7"),
        (
            "shape.txt",
            "1. S 3\n",
            "'3' stops, but action 1 (house 3) earns an extra turn",
        ),
        (
            "result.txt",
            "[Result \"30-18\"]\n1. S 1\n",
            "Result tag says 30-18",
        ),
        ("rules.txt", "[Rules \"capture=maybe\"]\n", "bad Rules tag"),
        ("start.txt", "[Start \"4,4,4 S\"]\n", "bad Start tag"),
        ("json.json", "{\"rules\": 5}", "bad JSON game record"),
    ];
    for (name, content, needle) in cases {
        let f = dir.path().join(name);
        std::fs::write(&f, content).unwrap();
        fails_with(&["play", "--load", f.to_str().unwrap()], needle);
    }
    let f = dir.path().join("binary.txt");
    std::fs::write(&f, [0x31, 0x80, 0xff, 0x01]).unwrap();
    fails_with(&["play", "--load", f.to_str().unwrap()], "not UTF-8 text");
    // (FF FE first is UTF-16's byte-order mark, named as such: see cli_play.rs.)
    std::fs::write(&f, [0xff, 0xfe, 0x00, 0x80]).unwrap();
    fails_with(
        &["play", "--load", f.to_str().unwrap()],
        "it is UTF-16 text",
    );
}

/// Regression: an empty file used to load as a fresh Kalah(6,4) game.
#[test]
fn empty_record_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    for (name, content) in [
        ("empty.txt", ""),
        ("blank.txt", "  \n\n\t\n"),
        // A byte-order mark alone, or with blank lines (tester 12: it loaded as a game).
        ("bom.txt", "\u{feff}"),
        ("bom-blank.txt", "\u{feff}\n \n"),
    ] {
        let f = dir.path().join(name);
        std::fs::write(&f, content).unwrap();
        fails_with(&["play", "--load", f.to_str().unwrap()], "it is empty");
    }
}

/// Regression: typed errors that repeat their source were printed twice ("house 3 is empty:
/// house 3 is empty").
#[test]
fn causes_are_not_repeated() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("twice.txt");
    std::fs::write(&f, "1. S 3-3\n").unwrap();
    let line = fails(&["play", "--load", f.to_str().unwrap()]);
    assert_eq!(line.matches("house 3 is empty").count(), 1, "{line}");
    std::fs::write(&f, "[Rules \"pie=maybe\"]\n").unwrap();
    let line = fails(&["play", "--load", f.to_str().unwrap()]);
    assert_eq!(line.matches("'maybe' is not a value").count(), 1, "{line}");
    let line = fails(&["show", "--moves", "3,3"]);
    assert_eq!(line.matches("house 3 is empty").count(), 1, "{line}");
}

/// Regression: a phase tag of the opening rules was accepted (and printed back) under rules
/// that have no opening rules, where it means nothing.
#[test]
fn phase_tag_needs_its_rule() {
    let start = "4,4,4,4,4,4,0,4,4,4,4,4,4,0";
    fails_with(&["show", &format!("{start} N pie")], "add --pie");
    fails_with(
        &[
            "show",
            &format!("{start} N pie"),
            "--no-first-move-extra-turn",
        ],
        "add --pie",
    );
    fails_with(
        &["perft", "2", &format!("{start} S opening")],
        "phase tag 'opening'",
    );
    // A tag that fits neither the rules nor the side to move: the rules are named first
    // (tester 50: "phase 'pie' needs North to move" without the pie rule); with them, the side.
    fails_with(
        &["show", &format!("{start} S pie")],
        "phase tag 'pie' belongs to the opening rules: add --pie",
    );
    fails_with(
        &["show", &format!("{start} S pie"), "--pie"],
        "phase tag 'pie' needs North to move",
    );
    // `first-turn` needs the pie rule with the first-move extra turn: under the Manchester rule
    // no first turn goes on (tester 45: it was allowed there, and the error under standard
    // rules suggested --no-first-move-extra-turn).
    let first_turn = "4,4,0,5,5,5,1,4,4,4,4,4,4,0 S first-turn";
    fails_with(
        &["show", first_turn],
        "'first-turn' belongs to the opening rules: use --pie without --no-first-move-extra-turn",
    );
    for extra in [
        &["--no-first-move-extra-turn"][..],
        &["--pie", "--no-first-move-extra-turn"],
    ] {
        let mut a = vec!["show", first_turn];
        a.extend_from_slice(extra);
        fails_with(
            &a,
            "under the Manchester rule South's first sowing earns no extra turn",
        );
    }
    let out = kalah()
        .args(["show", first_turn, "--pie"])
        .output()
        .unwrap();
    assert!(out.status.success());
    // With the rule it belongs to, the tag is fine.
    for args in [
        vec!["show", "--pie"],
        vec!["show", "--no-first-move-extra-turn"],
    ] {
        let mut a = args.clone();
        let pos = format!("{start} S opening");
        a.push(&pos);
        let out = kalah().args(&a).output().unwrap();
        assert!(out.status.success(), "{a:?}");
    }
}

/// A phase tag on a position whose game is over under the rules given is refused, as the parse
/// refuses one where the side to move has no seeds (web tester, 2 Dec 2026: South's row empty
/// under the standard end was accepted and swept); under `--end mover-blocked` that game goes
/// on, and the tag is fine.
#[test]
fn a_phase_tag_needs_a_game_that_is_not_over_under_the_rules() {
    let pos = "0,0,0,0,0,0,1,0,0,0,0,0,1,0 N pie";
    fails_with(
        &["show", pos, "--pie"],
        "bad position '0,0,0,0,0,0,1,0,0,0,0,0,1,0 N pie': phase tag 'pie' needs a game that is \
         not over (South's row is empty under these rules): leave the tag out",
    );
    common::kalah_ok_as_given(&["show", pos, "--pie", "--end", "mover-blocked", "--json"]);
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("g.txt");
    std::fs::write(&rec, format!("[Rules \"pie=on\"]\n[Start \"{pos}\"]\n")).unwrap();
    fails_with(
        &["play", "--load", rec.to_str().unwrap()],
        "phase tag 'pie' needs a game that is not over (South's row is empty under these rules)",
    );
}

/// Regression: "the position has 1 houses a side".
#[test]
fn one_house_is_singular() {
    fails_with(
        &["show", "4,4,4,4 S", "--houses", "3"],
        "the position has 1 house a side",
    );
}

/// Regression (second fresh-user tester): an argument that is not UTF-8 made `kalah` panic
/// (`std::env::args`) while it reported clap's error.
#[cfg(unix)]
#[test]
fn arguments_that_are_not_utf8_are_refused_without_a_panic() {
    use std::os::unix::ffi::OsStrExt;
    let bad = std::ffi::OsStr::from_bytes(b"\xff");
    for args in [
        vec![std::ffi::OsStr::new("show"), bad],
        vec![
            std::ffi::OsStr::new("solve"),
            std::ffi::OsStr::new("--capture"),
            bad,
        ],
        vec![bad],
    ] {
        let out = kalah().args(&args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(stderr.starts_with("kalah: error: "), "{args:?}: {stderr}");
    }
}

/// Numbers on the command line are plain digits, as in positions, moves and --layout (tester
/// 17: `--seeds +4`, `--houses +4` and `perft +2` were taken); a sign is a malformed command
/// line (exit code 2).
#[test]
fn numeric_flags_take_plain_digits_only() {
    for (args, want) in [
        (
            &["show", "--seeds", "+4"][..],
            "'+4' is not a whole number of seeds: write it without the '+' (4)",
        ),
        (
            &["show", "--houses", "+4"],
            "'+4' is not a whole number of houses: write it without the '+' (4)",
        ),
        (
            &["perft", "+2"],
            "'+2' is not a whole number of plies: write it without the '+' (2)",
        ),
        (
            &["solve", "--threads", "+1"],
            "'+1' is not a whole number of threads: write it without the '+' (1)",
        ),
        // (Tester 106: the sign was not named.)
        (
            &["solve", "--nodes", "+5"],
            "'+5' is not a whole number of nodes: write it without the '+' (5)",
        ),
        (
            &["solve", "--time-ms", "+5"],
            "'+5' is not a whole number of milliseconds: write it without the '+' (5)",
        ),
        (
            &["show", "--seeds", "+"],
            "'+' is not a whole number of seeds",
        ),
        (&["show", "--seeds", "-1"], "use 0 to 255 seeds, not -1"),
        (&["show", "--seeds", "300"], "use 0 to 255 seeds, not 300"),
    ] {
        let (line, code) = failure(args);
        assert!(line.contains(want), "{args:?}: {line}");
        assert_eq!(code, 2, "{args:?}: {line}");
    }
    // In range for a house, too many for the board: a bad start (exit code 1), as before.
    let (line, code) = failure(&["show", "--seeds", "30"]);
    assert!(line.contains("at most 255 are supported"), "{line}");
    assert_eq!(code, 1);
}

/// Output that cannot be written (stdout a full device) is an error, exit 1, with one line
/// saying so: for a command's output and for the help and version texts too (these exited 0).
#[cfg(target_os = "linux")]
#[test]
fn output_to_a_full_device_is_an_error() {
    let full = std::path::Path::new("/dev/full");
    if !full.exists() {
        return;
    }
    for args in [
        &["--help"][..],
        &["--version"],
        &["solve", "--help"],
        &["show"],
        // A game says on the same line where it is (tester 73: on a line of its own).
        &["play", "--opponent", "human"],
    ] {
        let dev = std::fs::OpenOptions::new().write(true).open(full).unwrap();
        let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("kalah"))
            .args(args)
            .stdout(dev)
            .output()
            .expect("runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "kalah {args:?}: {stderr}");
        assert!(
            stderr.starts_with("kalah: error: cannot write the output: ")
                && stderr.trim_end().lines().count() == 1,
            "kalah {args:?}: {stderr}"
        );
        if args[0] == "play" {
            assert!(
                stderr.trim_end().ends_with("; the game was not saved"),
                "{stderr}"
            );
        }
    }
}

/// Regression (tester 114): `kalah egdb build > /dev/full` failed at its first line but left
/// the set's directory it had made (empty but for the lock file); it is removed now, and a set
/// directory that was there before is left alone.
#[cfg(target_os = "linux")]
#[test]
fn a_build_whose_output_fails_leaves_no_set_directory() {
    let full = std::path::Path::new("/dev/full");
    if !full.exists() {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let build = |max: &str| {
        let dev = std::fs::OpenOptions::new().write(true).open(full).unwrap();
        std::process::Command::new(assert_cmd::cargo::cargo_bin("kalah"))
            .args([
                "egdb",
                "build",
                "--houses",
                "3",
                "--max-seeds",
                max,
                "--egdb-dir",
            ])
            .arg(root.path())
            .stdout(dev)
            .output()
            .expect("runs")
    };
    let out = build("4");
    assert_eq!(out.status.code(), Some(1));
    let left: Vec<_> = std::fs::read_dir(root.path()).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
    // A set built before keeps its directory and layers.
    let set = root.path().join("m3-standard-row-empty-owner");
    std::fs::create_dir(&set).unwrap();
    std::fs::write(set.join("notes.txt"), "mine").unwrap();
    assert_eq!(build("4").status.code(), Some(1));
    assert_eq!(
        std::fs::read_to_string(set.join("notes.txt")).unwrap(),
        "mine"
    );
}

/// Regression (tester 52): with stderr a full device every message was a panic (exit code
/// 101, "failed printing to stderr"); the command's own exit code stands now.
#[cfg(target_os = "linux")]
#[test]
fn errors_to_a_full_stderr_keep_their_exit_code() {
    let full = std::path::Path::new("/dev/full");
    if !full.exists() {
        return;
    }
    for (args, code) in [
        (&["solve", "1,2"][..], 1),
        (&["solve", "--bogus"], 2),
        (&["show", "--seeds", "30"], 1),
    ] {
        let dev = std::fs::OpenOptions::new().write(true).open(full).unwrap();
        let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("kalah"))
            .args(args)
            .stderr(dev)
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(code), "kalah {args:?}");
    }
}

/// Regression (tester 52): past the file size limit (`ulimit -f`) the process died of
/// SIGXFSZ without a word, mid-write, leaving its temporary file; the write now fails as any
/// other (EFBIG), said as such, and the game goes on.
#[cfg(target_os = "linux")]
#[test]
fn a_save_past_the_file_size_limit_is_an_error_not_a_death() {
    use std::os::unix::process::CommandExt;
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("kalah"));
    cmd.current_dir(dir.path())
        .args(["play", "--opponent", "human", "--no-egdb"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    // SAFETY: setrlimit is async-signal-safe; nothing else runs between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: 0,
                rlim_max: libc::RLIM_INFINITY,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = cmd.spawn().unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(b"1\nsave s.txt\nquit\n").unwrap();
    }
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains("cannot save to 's.txt': File too large"),
        "{stdout}"
    );
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(left.is_empty(), "files left: {left:?}");
}

/// Error lines stay short however long the input they quote (tester 75: a position of 15 000
/// characters with spaces, a rule value of 5 000, and a JSON record's turn came back whole).
#[test]
fn error_lines_quoting_long_input_stay_short() {
    let spaced = "a b".repeat(5000);
    let long_end = "x".repeat(5000);
    for (args, code, says) in [
        (vec!["show", spaced.as_str()], 1, "characters left out"),
        (
            vec!["show", "--end", long_end.as_str()],
            2,
            "(5000 characters)",
        ),
        (
            vec!["solve", "--no-egdb", spaced.as_str()],
            1,
            "characters left out",
        ),
    ] {
        let (line, got) = failure(&args);
        assert_eq!(got, code, "{line}");
        assert!(line.chars().count() < 1100 && line.contains(says), "{line}");
    }
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("t.json");
    std::fs::write(&rec, format!("{{\"turns\":[\"{spaced}\"]}}")).unwrap();
    let (line, _) = failure(&["play", "--load", rec.to_str().unwrap()]);
    assert!(
        line.chars().count() < 300 && line.contains("(15000 characters)"),
        "{line}"
    );
    // `kalah play`'s own `!` lines too.
    let out = kalah()
        .args(["play", "--opponent", "human"])
        .write_stdin(format!("{}\nquit\n", "9".repeat(999)))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let bang = text.lines().find(|l| l.starts_with('!')).expect("a ! line");
    assert!(bang.chars().count() < 200, "{bang}");
}
