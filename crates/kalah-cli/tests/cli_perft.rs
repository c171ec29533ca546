//! `kalah perft` against counts computed independently: a naive Python perft written from the
//! rules text (not from kalah-core), run once by hand; its counts are quoted below.

use assert_cmd::Command;

mod common;

fn kalah() -> Command {
    Command::cargo_bin("kalah").expect("the kalah binary")
}

/// Runs perft and returns (per-move divide lines, count, nodes).
fn perft(args: &[&str]) -> (Vec<(String, u64)>, u64, u64) {
    let mut a = vec!["perft"];
    a.extend_from_slice(args);
    let out = kalah().args(&a).output().expect("runs");
    assert!(
        out.status.success(),
        "kalah {a:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let mut divide = Vec::new();
    let (mut count, mut nodes) = (None, None);
    for line in text.lines().skip(1) {
        let (k, v) = line.split_once(':').expect("key: value");
        let k = k.trim();
        let v = v.trim();
        match k {
            "count" => count = Some(v.parse().unwrap()),
            "nodes" => nodes = Some(v.parse().unwrap()),
            "time" => assert!(v.ends_with("nodes/s)"), "{v}"),
            _ => divide.push((k.to_string(), v.parse().unwrap())),
        }
    }
    (
        divide,
        count.expect("count line"),
        nodes.expect("nodes line"),
    )
}

#[test]
fn kalah_6_4_standard() {
    let expected = [1u64, 6, 35, 185, 942, 4690, 23233, 114430];
    for (d, &e) in expected.iter().enumerate() {
        let (_, count, nodes) = perft(&[&d.to_string()]);
        assert_eq!(count, e, "perft {d}");
        let sum: u64 = expected[1..=d].iter().sum();
        // perft(1) + ... + perft(d), as docs/CLI.md defines it: 0 at depth 0.
        assert_eq!(nodes, sum, "nodes at depth {d}");
    }
}

#[test]
fn kalah_6_4_empty_capture() {
    let (_, count, _) = perft(&["5", "--capture", "empty"]);
    assert_eq!(count, 4685);
    let (_, count, _) = perft(&["6", "--capture", "empty"]);
    assert_eq!(count, 23169);
}

#[test]
fn mover_blocked_end() {
    let (_, count, _) = perft(&[
        "8",
        "--houses",
        "3",
        "--seeds",
        "3",
        "--end",
        "mover-blocked",
    ]);
    assert_eq!(count, 1306);
    let (_, count, _) = perft(&[
        "8",
        "--houses",
        "4",
        "--seeds",
        "3",
        "--end",
        "mover-blocked",
        "--capture",
        "empty",
    ]);
    assert_eq!(count, 14033);
}

#[test]
fn divide_from_a_position() {
    let pos = "0,1,0,7,2,9,3,5,0,2,3,0,1,5 N";
    let (divide, count, nodes) = perft(&["5", pos, "--divide"]);
    let want: Vec<(String, u64)> = [("1", 324), ("3", 171), ("4", 306), ("6", 183)]
        .iter()
        .map(|(m, n)| (m.to_string(), *n))
        .collect();
    assert_eq!(divide, want);
    assert_eq!(count, 984);
    assert_eq!(nodes, 4 + 14 + 59 + 241 + 984);
}

#[test]
fn divide_sums_to_the_count() {
    for args in [
        vec!["7", "--divide"],
        vec![
            "6",
            "--divide",
            "--houses",
            "4",
            "--seeds",
            "5",
            "--capture",
            "empty",
        ],
        vec!["6", "--divide", "--houses", "3", "--seeds", "3", "--pie"],
        vec!["5", "--divide", "--no-first-move-extra-turn"],
    ] {
        let (divide, count, _) = perft(&args);
        assert!(!divide.is_empty());
        assert_eq!(
            divide.iter().map(|(_, n)| n).sum::<u64>(),
            count,
            "{args:?}"
        );
        let (_, plain, _) = perft(
            &args[..1]
                .iter()
                .chain(&args[2..])
                .copied()
                .collect::<Vec<_>>(),
        );
        assert_eq!(plain, count, "{args:?}");
    }
}

#[test]
fn pie_rule_counts_the_swap() {
    // Kalah(3,3) with the pie rule: South's three openings, then North may swap once.
    let (divide, _, _) = perft(&["2", "--houses", "3", "--seeds", "3", "--pie", "--divide"]);
    let (plain, _, _) = perft(&["2", "--houses", "3", "--seeds", "3", "--divide"]);
    // House 2 passes the turn to North, who has houses 1..3 and, under the pie rule, swap.
    let get = |v: &Vec<(String, u64)>, m: &str| v.iter().find(|(k, _)| k == m).unwrap().1;
    assert_eq!(get(&divide, "2"), get(&plain, "2") + 1);
}

#[test]
fn finished_game_and_depth_zero() {
    let (_, count, _) = perft(&["3", "0,0,0,0,0,0,20,1,1,1,1,1,1,22 N"]);
    assert_eq!(count, 0);
    // perft(0) = 1 (the empty sequence); nodes = perft(1) + ... + perft(DEPTH) = 0 at depth 0,
    // as at depth 1 nodes = perft(1) without the root.
    let (_, count, nodes) = perft(&["0"]);
    assert_eq!((count, nodes), (1, 0));
    let (_, count, nodes) = perft(&["1"]);
    assert_eq!((count, nodes), (6, 6));
}

/// Regression: the header wrote a finished position without its side letter
/// (`perft 2 of 0,0,0,0,0,0,20,0,0,0,0,0,0,28`), unlike `show`, `solve` and `analyze`.
#[test]
fn header_writes_the_position_as_show_does() {
    for (given, written) in [
        // A finished game, swept (North's six seeds to North's store), with the side letter.
        (
            "0,0,0,0,0,0,20,1,1,1,1,1,1,22 N",
            "0,0,0,0,0,0,20,0,0,0,0,0,0,28 N",
        ),
        (
            "0,0,0,0,0,0,20,1,1,1,1,1,1,22 S",
            "0,0,0,0,0,0,20,0,0,0,0,0,0,28 S",
        ),
        // A game going on.
        (
            "0,1,0,7,2,9,3,5,0,2,3,0,1,5 N",
            "0,1,0,7,2,9,3,5,0,2,3,0,1,5 N",
        ),
    ] {
        let out = kalah().args(["perft", "2", given]).output().expect("runs");
        assert!(out.status.success(), "{given}");
        let text = String::from_utf8(out.stdout).unwrap();
        assert_eq!(
            text.lines().next(),
            Some(format!("perft 2 of {written}").as_str()),
            "{text}"
        );
        let shown = kalah().args(["show", given]).output().expect("runs");
        let shown = String::from_utf8(shown.stdout).unwrap();
        assert!(shown.contains(&format!("Position: {written}\n")), "{shown}");
    }
    let out = kalah().arg("perft").arg("1").output().expect("runs");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("perft 1 of 4,4,4,4,4,4,0,4,4,4,4,4,4,0 S\n"),
        "{text}"
    );
}

/// What `kalah perft 11` of Kalah(4,3) writes on stderr when stderr is a pseudo-terminal with
/// `TERM` set to `term` (stdout goes to /dev/null).
#[cfg(unix)]
fn stderr_on_a_terminal(term: &str) -> Vec<u8> {
    use std::io::Read;
    let (master, slave) = common::openpty();
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("kalah"))
        .args(["perft", "11", "--houses", "4", "--seeds", "3"])
        .env("TERM", term)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(slave)
        .spawn()
        .expect("runs");
    // The slave was moved into the child's stderr and closed here, so the master reads to the
    // end (EIO on Linux) once the child exits.
    let mut master = std::fs::File::from(master);
    let mut out = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match master.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => out.extend_from_slice(&buf[..n]),
        }
    }
    assert!(child.wait().unwrap().success());
    out
}

/// On a terminal the progress bar is drawn (its text, redrawn with escapes); on a dumb one
/// (`TERM=dumb`, Emacs' shell), which cannot redraw a line, nothing is (a tester saw carriage
/// returns and escapes fill the buffer).
#[cfg(unix)]
#[test]
fn the_progress_bar_is_left_out_on_a_dumb_terminal() {
    let drawn = String::from_utf8_lossy(&stderr_on_a_terminal("xterm")).into_owned();
    assert!(
        drawn.contains("positions two plies down") && drawn.contains('\x1b'),
        "{drawn:?}"
    );
    let dumb = stderr_on_a_terminal("dumb");
    assert!(dumb.is_empty(), "{:?}", String::from_utf8_lossy(&dumb));
}

/// Regression: `kalah perft` ignored Ctrl-C, SIGTERM and SIGHUP though its bar said "(Ctrl-C
/// stops)": the signal killed it, with nothing on stderr. Now it stops with one line naming the
/// signal, and 128 + the signal's number as its exit code, as `solve` and `match` do.
#[cfg(unix)]
#[test]
fn a_signal_stops_perft_with_one_line_and_its_exit_code() {
    use std::io::BufRead;
    for (signal, code, words) in [
        ("INT", 130, "interrupted (Ctrl-C)"),
        ("TERM", 143, "terminated (SIGTERM)"),
        ("HUP", 129, "hung up (SIGHUP)"),
    ] {
        for divide in [false, true] {
            let mut args = vec!["perft", "40"];
            if divide {
                args.push("--divide");
            }
            let mut child = common::spawn_kalah(&args);
            // The first line comes once the signals are caught.
            let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
            let mut first = String::new();
            stdout.read_line(&mut first).unwrap();
            assert!(first.starts_with("perft 40 of "), "{first:?}");
            let out = common::signal(child, signal, std::time::Duration::from_millis(300));
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(code), "{signal}: {err}");
            assert_eq!(err.lines().count(), 1, "{signal}: {err}");
            assert!(
                err.starts_with(&format!("kalah: perft {words} after "))
                    && err.ends_with(" s: the count was not finished\n"),
                "{signal}: {err}"
            );
            let mut rest = String::new();
            std::io::Read::read_to_string(&mut stdout, &mut rest).unwrap();
            assert_eq!(rest, "", "{signal}");
        }
    }
}

/// On a terminal, Ctrl-C clears the progress bar before the line that says perft stopped:
/// the bar was left on the line.
#[cfg(unix)]
#[test]
fn ctrl_c_clears_the_progress_bar() {
    use std::io::Read;
    let (master, slave) = common::openpty();
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("kalah"))
        .args(["perft", "40"])
        .env("TERM", "xterm")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(slave)
        .spawn()
        .expect("runs");
    let mut master = std::fs::File::from(master);
    let mut out = Vec::new();
    let mut buf = [0u8; 4096];
    let mut signalled = None;
    loop {
        match master.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => out.extend_from_slice(&buf[..n]),
        }
        let drawn = String::from_utf8_lossy(&out).contains("positions two plies down");
        if drawn && signalled.is_none() {
            let status = std::process::Command::new("kill")
                .args(["-INT", &child.id().to_string()])
                .status()
                .unwrap();
            assert!(status.success());
            signalled = Some(out.len());
        }
    }
    let status = child.wait_with_output().unwrap().status;
    assert_eq!(status.code(), Some(130));
    let text = String::from_utf8_lossy(&out).into_owned();
    let (before, line) = text
        .rsplit_once("kalah: perft interrupted (Ctrl-C) after ")
        .unwrap_or_else(|| panic!("no stop line: {text:?}"));
    assert!(
        line.ends_with(" s: the count was not finished\r\n"),
        "{text:?}"
    );
    // The bar's last drawing is erased: its line cleared (`ESC [2K`), the cursor at its start,
    // nothing drawn after.
    let cleared = before.rfind("\x1b[2K").expect("a line cleared");
    let last_bar = before.rfind("positions two plies down").unwrap();
    assert!(last_bar < cleared, "{before:?}");
    assert!(
        before[cleared..]
            .chars()
            .all(|c| c.is_ascii_control() || "[2K0123456789ABCDGJ".contains(c)),
        "{before:?}"
    );
}
