//! `kalah agent` and `kalah referee` end to end: the Manchester protocol on standard input and
//! output, a hand-checked game, whole games between two agents, forfeits and bad input.

use assert_cmd::Command;
use kalah_core::{GameRecord, Side};
use serde_json::Value;

fn kalah(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_kalah"));
    c.args(args);
    c
}

/// What `kalah ARGS` prints on its standard output, as text.
fn stdout_of(args: &[&str]) -> String {
    let out = kalah(args).output().unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Kalah(2,1) under the standard rules, checked by hand: from 1,1,0,1,1,0 S, South's best turn
/// is 2-1 (house 2 into the store, then house 1 into the empty house 2, capturing North's house
/// 1, which faces it): 3 to 1. The perfect agent finds it; the referee's states are written
/// North's half first.
#[test]
fn the_agent_plays_a_hand_checked_game() {
    let script = "START;South\n\
                  CHANGE;2;1,1,0,1,0,1;YOU\n\
                  CHANGE;1;0,0,1,0,0,3;END\n\
                  END\n";
    let out = kalah(&[
        "agent",
        "--houses",
        "2",
        "--seeds",
        "1",
        "--rules",
        "pie=off",
        "--no-egdb",
    ])
    .write_stdin(script)
    .output()
    .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "MOVE;2\nMOVE;1\n");
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

/// As North under the Manchester rules the agent answers South's first sowing (a sowing or a
/// swap), and a referee's board that differs from the rules is followed with a note.
#[test]
fn the_agent_answers_as_north_and_notes_a_referee_with_other_rules() {
    let out = kalah(&["agent", "--move-nodes", "3000", "--no-egdb"])
        .write_stdin("START;North\nCHANGE;1;7,7,7,7,7,7,7,0,0,8,8,8,8,8,8,1;YOU\nEND\n")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout.strip_suffix('\n').unwrap();
    assert!(
        kalah_protocol::manchester::parse_reply(line, 7).is_ok(),
        "{stdout}"
    );
    // A referee that gives South's first sowing its extra turn.
    let out = kalah(&["agent", "--move-nodes", "3000", "--no-egdb"])
        .write_stdin("START;South\nCHANGE;1;7,7,7,7,7,7,7,0,0,8,8,8,8,8,8,1;YOU\nEND\n")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout.lines().count(), 2, "{stdout}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("kalah: note: after South's house 1 the referee gives the board")
            && stderr.contains("following the referee"),
        "{stderr}"
    );
}

#[test]
fn bad_messages_stop_the_agent_with_the_reason() {
    let run = |args: &[&str], input: &str| {
        let mut all = vec!["agent", "--no-egdb", "--move-nodes", "2000"];
        all.extend_from_slice(args);
        let out = kalah(&all).write_stdin(input).output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, err) = run(&[], "START;Sideways\n");
    assert_eq!(code, Some(1));
    assert!(
        err.contains("line 1 from the referee: 'START;Sideways' is not a message of the Manchester protocol: the side is South or North, not 'Sideways'"),
        "{err}"
    );
    let (code, err) = run(&[], "START;North\n");
    assert_eq!(code, Some(1));
    assert!(
        err.contains("the referee's input ended before END (after 1 line)"),
        "{err}"
    );
    let (code, err) = run(
        &["--houses", "6"],
        "START;North\nCHANGE;1;7,7,7,7,7,7,7,0,0,8,8,8,8,8,8,1;YOU\n",
    );
    assert_eq!(code, Some(1));
    assert!(err.contains("the referee's board has 7 houses a side, and this agent was started for 6: start it with --houses 7"), "{err}");
    let (code, err) = run(&[], "CHANGE;1;7,7,7,7,7,7,7,0,0,8,8,8,8,8,8,1;YOU\n");
    assert_eq!(code, Some(1));
    assert!(
        err.contains("CHANGE was not expected before START"),
        "{err}"
    );
    for (args, what) in [
        (&["--houses", "0"][..], "--houses"),
        (&["--rules", "pie=maybe"][..], "--rules"),
        (&["--seeds", "300"][..], "--seeds"),
    ] {
        let (code, err) = run(args, "");
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(err.contains(what), "{err}");
    }
    // A board of more than 255 seeds.
    let (code, err) = run(&["--houses", "12", "--seeds", "11"], "");
    assert_eq!(code, Some(1));
    assert!(err.contains("no Kalah(12,11) board"), "{err}");
}

/// Two engines as agents, refereed: every game is played out, its saved record replays to the
/// stores the referee reports, and `kalah review` reads it.
#[cfg(unix)]
#[test]
fn the_referee_plays_two_agents_and_saves_records_that_replay() {
    let dir = tempfile::tempdir().unwrap();
    let me = env!("CARGO_BIN_EXE_kalah");
    let agent = |level: &str| {
        format!("{me} agent --houses 3 --seeds 3 --level {level} --move-nodes 2000 --no-egdb")
    };
    let out = kalah(&[
        "referee",
        &agent("easy"),
        &agent("perfect"),
        "--houses",
        "3",
        "--seeds",
        "3",
        "--games",
        "4",
        "--save-dir",
        dir.path().to_str().unwrap(),
        "--json",
    ])
    .output()
    .unwrap();
    assert!(out.status.success(), "{out:?}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let games = v["games"].as_array().unwrap();
    assert_eq!(games.len(), 4);
    let mut a_points = 0.0;
    for (i, g) in games.iter().enumerate() {
        assert_eq!(g["forfeit"], Value::Null, "{g}");
        assert_eq!(g["a_side"], if i % 2 == 0 { "S" } else { "N" });
        let text = std::fs::read_to_string(dir.path().join(format!("game-{}.txt", i + 1))).unwrap();
        let record = GameRecord::parse(&text).unwrap();
        let end = record.position();
        assert!(end.is_over(), "{text}");
        let stores = [end.store(Side::South), end.store(Side::North)];
        assert_eq!(g["stores"], serde_json::json!(stores), "{text}");
        let moves: Vec<String> = record.moves().iter().map(ToString::to_string).collect();
        assert_eq!(g["moves"], serde_json::json!(moves));
        // A's store minus B's: A ends on South when it began there and nobody swapped, or
        // began on North and North swapped.
        let a_south_at_end = (g["a_side"] == "S") != g["swapped"].as_bool().unwrap();
        let (a, b) = if a_south_at_end {
            (stores[0], stores[1])
        } else {
            (stores[1], stores[0])
        };
        assert_eq!(g["a_diff"], i32::from(a) - i32::from(b));
        a_points += g["a_points"].as_f64().unwrap();
    }
    assert_eq!(v["summary"]["a_points"].as_f64().unwrap(), a_points);
    // The saved record is one `kalah review` reads.
    let review = kalah(&[
        "review",
        dir.path().join("game-1.txt").to_str().unwrap(),
        "--no-egdb",
        "--json",
    ])
    .output()
    .unwrap();
    assert!(review.status.success(), "{review:?}");
    // Records are never replaced.
    let again = kalah(&[
        "referee",
        &agent("easy"),
        &agent("easy"),
        "--houses",
        "3",
        "--seeds",
        "3",
        "--save-dir",
        dir.path().to_str().unwrap(),
    ])
    .output()
    .unwrap();
    assert_eq!(again.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&again.stderr).contains("game-1.txt exists already"));
}

/// An agent that sends an illegal action, a line that is no action, a line out of turn,
/// nothing in time, or that cannot be started, loses the game; the other wins it.
#[cfg(unix)]
#[test]
fn agents_that_break_the_protocol_forfeit() {
    let me = env!("CARGO_BIN_EXE_kalah");
    let good = format!("{me} agent --level easy --no-egdb");
    let cases = [
        // South may not swap.
        ("read l; echo SWAP; sleep 2", "A forfeits after 0 actions (its action SWAP is illegal"),
        ("read l; echo hello; sleep 2", "A forfeits after 0 actions ('hello' is not a message of the Manchester protocol: an agent answers MOVE;<house> or SWAP)"),
        ("read l; echo 'MOVE;8'; sleep 2", "the house is a number from 1 to 7"),
        ("read l; sleep 3", "A forfeits after 0 actions (it sent no action within 300 ms)"),
        ("exit 3", "A forfeits after 0 actions (it ended (exit status: 3)"),
        ("echo 'MOVE;1'; echo 'MOVE;2'; sleep 3", "A forfeits after 1 action (it sent 'MOVE;2' when it was not its turn)"),
    ];
    for (bad, expected) in cases {
        let out = kalah(&["referee", bad, &good, "--games", "1", "--timeout-ms", "300"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{bad}: {out:?}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains(expected), "{bad}: {text}");
        assert!(text.contains("): B wins"), "{bad}: {text}");
        assert!(
            text.contains("A: 0 wins, 0 draws, 1 loss: 0 points of 1"),
            "{text}"
        );
    }
}

mod common;

/// Whether a process whose command line contains `marker` is running.
#[cfg(unix)]
fn running(marker: &str) -> bool {
    std::process::Command::new("pgrep")
        .args(["-f", marker])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

/// An agent's leftover processes end with its game, and Ctrl-C ends the referee and every
/// agent.
#[cfg(unix)]
#[test]
fn no_agent_process_outlives_its_game_or_a_ctrl_c() {
    let me = env!("CARGO_BIN_EXE_kalah");
    let good = format!("{me} agent --level easy --no-egdb");
    // The shell's background child is in the agent's process group.
    // Waited for as a process (not for its output, which a leftover child would hold open).
    let status = std::process::Command::new(me)
        .args([
            "referee",
            "sleep 67.25 & read l; echo hello",
            &good,
            "--games",
            "1",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "{status:?}");
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(
        !running("sleep 67.25"),
        "the forfeiting agent's child is left running"
    );

    let agent = format!("{me} agent --level expert --no-egdb --seed 424242");
    let child = std::process::Command::new(me)
        .args(["referee", &agent, &agent, "--games", "4", "--json"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let out = common::interrupt(child, std::time::Duration::from_millis(1500));
    assert_eq!(out.status.code(), Some(130), "{out:?}");
    // The summary of the games played (none), marked as stopped.
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["summary"]["stopped"], true);
    assert_eq!(v["summary"]["signal"], "SIGINT");
    assert_eq!(v["summary"]["games"], 0);
    assert!(String::from_utf8_lossy(&out.stderr).contains(
        "kalah: interrupted (Ctrl-C): the referee stopped after 0 of 4 games; the game being played is not saved"
    ));
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(!running("seed 424242"), "an agent outlived the referee");
}

/// Tester 115's cases: an agent that sends a line out of turn is blamed even while the agent
/// to move hangs; a game ended by a legal action stands though its agent has gone; lines are
/// shown with their control characters escaped; bad referee flags are refused before a game.
#[cfg(unix)]
#[test]
fn the_first_to_break_the_protocol_is_blamed_and_a_finished_game_stands() {
    // South hangs; North sends an action at once, out of turn.
    let text = stdout_of(&[
        "referee",
        "sleep 3",
        "echo 'MOVE;1'; sleep 3",
        "--games",
        "1",
        "--timeout-ms",
        "1500",
    ]);
    assert!(
        text.contains("game 1: B forfeits after 0 actions (it sent 'MOVE;1' when it was not its turn): A wins"),
        "{text}"
    );
    // Kalah(1,1): South's only sowing ends the game (1 – 1); its agent has closed its input
    // before, so the news of the end cannot reach it.
    let text = stdout_of(&[
        "referee",
        "read l; exec 0<&-; echo 'MOVE;1'; sleep 1",
        "read l; sleep 1",
        "--houses",
        "1",
        "--seeds",
        "1",
        "--rules",
        "pie=off",
        "--games",
        "1",
    ]);
    assert!(
        text.contains("game 1: A (South) 1 – 1 B (North): a draw; 1 action\n"),
        "{text}"
    );
    // An escape sequence in a bad line is shown escaped.
    let text = stdout_of(&[
        "referee",
        "read l; printf 'MOVE;1\\033[2J\\n'; sleep 1",
        "read l; sleep 1",
        "--games",
        "1",
    ]);
    assert!(!text.contains('\u{1b}'), "{text}");
    assert!(text.contains("'MOVE;1\\u{1b}[2J'"), "{text}");
    // Flags.
    let run = |args: &[&str]| {
        let out = kalah(args).output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
            out.stdout.is_empty(),
        )
    };
    let (code, err, quiet) = run(&["referee", "", "sleep 1"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("AGENT_A is empty"), "{err}");
    assert!(quiet);
    let file = tempfile::NamedTempFile::new().unwrap();
    let (code, err, quiet) = run(&[
        "referee",
        "sleep 1",
        "sleep 1",
        "--save-dir",
        file.path().to_str().unwrap(),
    ]);
    assert_eq!(code, Some(1));
    assert!(err.contains("not a directory"), "{err}");
    assert!(quiet);
    if std::path::Path::new("/proc/self").is_dir() {
        let (code, err, quiet) =
            run(&["referee", "sleep 1", "sleep 1", "--save-dir", "/proc/self"]);
        assert_eq!(code, Some(1));
        assert!(err.contains("the records cannot be written there"), "{err}");
        assert!(quiet, "no game is played");
    }
}

/// Tester 116's cases: an agent that quits while the other is to act loses at once (not the
/// other, for what it does after); a stray `\r` is shown in the quote; a record that cannot be
/// saved mid-run still leaves the games played reported.
#[cfg(unix)]
#[test]
fn a_quitter_loses_and_a_failed_save_keeps_the_results() {
    let text = stdout_of(&[
        "referee",
        "read l; echo 'MOVE;1'; read l; exit 1",
        "read l; read l; sleep 1; echo 'MOVE;9'; sleep 1",
        "--games",
        "1",
    ]);
    assert!(
        text.contains("game 1: A forfeits after 1 action (it ended (exit status: 1) before the game's end): B wins"),
        "{text}"
    );
    let text = stdout_of(&[
        "referee",
        "read l; printf 'SWAP\\r\\r\\n'; sleep 1",
        "read l; sleep 1",
        "--games",
        "1",
    ]);
    assert!(text.contains("('SWAP\\r' is not a message"), "{text}");

    // Agent A makes game-2.txt itself when it starts, after the referee's checks.
    let dir = tempfile::tempdir().unwrap();
    let me = env!("CARGO_BIN_EXE_kalah");
    let d = dir.path().to_str().unwrap();
    let agent = format!("{me} agent --houses 3 --seeds 3 --rules pie=on --level easy --no-egdb");
    let out = kalah(&[
        "referee",
        &format!("touch {d}/game-2.txt; exec {agent}"),
        &agent,
        "--houses",
        "3",
        "--seeds",
        "3",
        "--rules",
        "pie=on",
        "--games",
        "3",
        "--save-dir",
        d,
        "--json",
    ])
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["summary"]["games"], 2, "{v}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("cannot save game 2") && err.contains("the referee stopped after it"),
        "{err}"
    );
    assert!(dir.path().join("game-1.txt").exists());
    assert_eq!(
        std::fs::read_to_string(dir.path().join("game-2.txt")).unwrap(),
        ""
    );
}
