//! `kalah play` driven through stdin, as a script would.

use assert_cmd::Command;

mod common;

fn kalah() -> Command {
    let mut c = Command::cargo_bin("kalah").expect("the kalah binary");
    c.env_remove("NO_COLOR");
    c
}

/// Runs `kalah play ARGS` with `input` on stdin; asserts success and a clean stderr.
fn play(args: &[&str], input: &str) -> String {
    let mut a = vec!["play"];
    a.extend_from_slice(args);
    let out = kalah()
        .args(&a)
        .write_stdin(input.to_string())
        .timeout(std::time::Duration::from_secs(120))
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "kalah {a:?} failed: {stderr}");
    // A machine of one core warns about `--threads 2`; nothing else may be written there.
    let stderr: Vec<&str> = stderr
        .lines()
        .filter(|l| !l.starts_with("kalah: warning: --threads 2 on 1 core:"))
        .collect();
    assert!(stderr.is_empty(), "stderr: {stderr:?}");
    let text = String::from_utf8(out.stdout).expect("utf-8");
    assert!(!text.contains("panicked"), "{text}");
    assert!(!text.contains('\x1b'), "no colour when piped");
    text
}

/// Every house number in turn, `rounds` times: a legal one is always among them.
fn all_houses(m: usize, rounds: usize) -> String {
    let mut s = String::new();
    for _ in 0..rounds {
        for h in 1..=m {
            s.push_str(&format!("{h}\n"));
        }
    }
    s
}

/// The final score line: (south, north, verdict).
fn final_score(text: &str) -> (u32, u32, String) {
    let line = text
        .lines()
        .find(|l| l.starts_with("Game over. Final score: "))
        .unwrap_or_else(|| panic!("no final score in:\n{text}"));
    let rest = line.trim_start_matches("Game over. Final score: South ");
    let (s, rest) = rest.split_once(", North ").unwrap();
    let (n, verdict) = rest.split_once(": ").unwrap();
    (s.parse().unwrap(), n.parse().unwrap(), verdict.to_string())
}

#[test]
fn whole_game_against_the_engine_on_kalah_6_4() {
    let text = play(
        &["--seed", "7", "--move-time-ms", "100"],
        &all_houses(6, 200),
    );
    let (s, n, verdict) = final_score(&text);
    assert_eq!(s + n, 48, "seeds conserved");
    let want = match s.cmp(&n) {
        std::cmp::Ordering::Greater => format!("South (you) wins by {}.", s - n),
        std::cmp::Ordering::Less => format!("North (engine, medium) wins by {}.", n - s),
        std::cmp::Ordering::Equal => "a draw.".to_string(),
    };
    assert_eq!(verdict, want);
    assert!(
        text.contains("North (engine, medium) plays"),
        "the engine moved"
    );
    // The game ends the program: nothing is read after the final score.
    assert!(text.trim_end().ends_with(&verdict), "{text}");
}

#[test]
fn whole_game_on_a_small_board_at_every_level() {
    for level in ["beginner", "easy", "medium", "hard", "expert", "perfect"] {
        let text = play(
            &[
                "--houses",
                "3",
                "--seeds",
                "2",
                "--level",
                level,
                "--seed",
                "1",
                "--move-time-ms",
                "200",
            ],
            &all_houses(3, 100),
        );
        let (s, n, _) = final_score(&text);
        assert_eq!(s + n, 12, "{level}");
    }
}

#[test]
fn engine_moves_first_when_you_are_north() {
    let text = play(
        &["--side", "north", "--houses", "4", "--seeds", "3"],
        &all_houses(4, 100),
    );
    let first_action = text.lines().find(|l| l.contains(" plays ")).unwrap();
    assert!(
        first_action.starts_with("South (engine, medium) plays"),
        "{first_action}"
    );
    let (s, n, _) = final_score(&text);
    assert_eq!(s + n, 24);
    // The letter, as positions write the side (tester 103: `--side n` was refused).
    let text = play(
        &["--side", "N", "--houses", "2", "--seeds", "1"],
        &all_houses(2, 20),
    );
    assert!(text.contains("South (engine, medium) plays"), "{text}");
}

#[test]
fn human_against_human_hand_checked() {
    // Kalah(2,1): South 2 lands in the store (extra turn); South 1 lands in empty house 2 and
    // captures North's house 1 (1 seed): 3 in South's store. South's row is empty: the game
    // ends and North keeps its last seed.
    let text = play(
        &["--opponent", "human", "--houses", "2", "--seeds", "1"],
        "2\n1\n",
    );
    assert!(text.contains("South plays 2: sows 1 seed, the last into the store: extra turn."));
    assert!(text.contains(
        "South plays 1: sows 1 seed, the last into empty house 2: captures 2 seeds \
         (1 from North's house 1 and the landing seed). Game over: South's row is empty"
    ));
    assert_eq!(final_score(&text), (3, 1, "South wins by 2.".to_string()));
}

#[test]
fn human_against_human_whole_game() {
    let text = play(
        &["--opponent", "human", "--houses", "4", "--seeds", "3"],
        &all_houses(4, 200),
    );
    assert!(text.contains("North plays"), "both sides moved");
    let (s, n, _) = final_score(&text);
    assert_eq!(s + n, 24);
}

#[test]
fn pie_rule_swap_moves_the_players() {
    // You are North; the engine opens as South; you swap and own South's row from then on.
    let text = play(
        &["--side", "north", "--houses", "3", "--seeds", "2", "--pie"],
        &format!("swap\n{}", all_houses(3, 100)),
    );
    assert!(
        text.contains("North (you) plays swap (pie rule): the players exchange sides. South (you) now owns South's row and store; North (engine, medium) moves next."),
        "{text}"
    );
    let (s, n, _) = final_score(&text);
    assert_eq!(s + n, 12);
    // Two people: after the swap each label says where its player started.
    let text = play(
        &[
            "--opponent",
            "human",
            "--houses",
            "3",
            "--seeds",
            "2",
            "--pie",
        ],
        "1\nswap\nquit\n",
    );
    assert!(text.contains("North (started as South) to move"), "{text}");
}

#[test]
fn save_then_load_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let f1 = dir.path().join("game.txt");
    let f2 = dir.path().join("again.txt");
    let f1s = f1.to_str().unwrap();
    let f2s = f2.to_str().unwrap();
    let text = play(
        &["--seed", "3", "--capture", "empty"],
        &format!("3\n6\n1\n2\nsave {f1s}\nquit\n"),
    );
    assert!(
        text.contains(&format!("Saved the game to '{f1s}'")),
        "{text}"
    );
    let saved = std::fs::read_to_string(&f1).unwrap();
    assert!(saved.contains("capture=empty"), "{saved}");
    assert!(
        saved.contains("[Start \"4,4,4,4,4,4,0,4,4,4,4,4,4,0 S\"]"),
        "{saved}"
    );
    assert!(saved.contains("1. S 3-6"), "{saved}");
    // Only the saved file and its copy are in the directory: no temporary file is left behind.
    let text = play(&["--load", f1s], &format!("save {f2s}\nquit\n"));
    assert!(text.contains(&format!("Loaded '{f1s}'")), "{text}");
    assert_eq!(std::fs::read_to_string(&f2).unwrap(), saved);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);

    // The loaded game goes on from the saved position: its legal actions match `show`.
    let moves: Vec<String> = saved
        .lines()
        .filter(|l| l.chars().next().is_some_and(|c| c.is_ascii_digit()))
        .map(|l| l.split_whitespace().nth(2).unwrap().to_string())
        .collect();
    let shown = kalah()
        .args([
            "show",
            "--capture",
            "empty",
            "--json",
            "--moves",
            &moves.join(","),
        ])
        .output()
        .unwrap();
    let j: serde_json::Value = serde_json::from_slice(&shown.stdout).unwrap();
    let legal: Vec<String> = j["legal"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.to_string())
        .collect();
    let text = play(&["--load", f1s], "quit\n");
    assert!(
        text.contains(&format!("legal: {}>", legal.join(" "))),
        "{text}"
    );
}

#[test]
fn load_a_finished_game_shows_the_result() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("done.txt");
    std::fs::write(
        &f,
        "[Start \"1,1,0,1,1,0 S\"]\n[Result \"3-1\"]\n\n1. S 2-1\n",
    )
    .unwrap();
    let text = play(&["--load", f.to_str().unwrap()], "");
    assert_eq!(
        final_score(&text),
        (3, 1, "South (you) wins by 2.".to_string())
    );
}

#[test]
fn undo_takes_back_the_engine_reply_too() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("undone.txt");
    let fs = f.to_str().unwrap();
    // 3 earns an extra turn, 6 passes the turn, the engine replies; undo goes back to the start
    // of your turn, before 3.
    let text = play(
        &["--seed", "5"],
        &format!("undo\n3\n6\nundo\nsave {fs}\nquit\n"),
    );
    assert!(
        text.contains("! nothing to undo: the game is at its start"),
        "{text}"
    );
    let took: usize = text
        .lines()
        .find_map(|l| l.strip_prefix("Took back "))
        .and_then(|r| r.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no undo report:\n{text}"));
    assert!(took >= 3, "3, 6 and at least one engine action: {took}");
    let saved = std::fs::read_to_string(&f).unwrap();
    assert!(!saved.lines().any(|l| l.starts_with("1.")), "{saved}");
    assert!(saved.contains("[Result \"*\"]"));

    // Mid-turn, undo takes back the part of the turn already played.
    let text = play(
        &["--opponent", "human", "--houses", "2", "--seeds", "1"],
        "2\nundo\n1\nquit\n",
    );
    assert!(text.contains("Took back 1 action."), "{text}");
    assert!(text.contains("South plays 1: sows 1 seed."), "{text}");
}

#[test]
fn hint_values_every_legal_action() {
    let text = play(
        &["--houses", "3", "--seeds", "2", "--move-time-ms", "300"],
        "3\nhint\nquit\n",
    );
    // House 3 (two seeds: one into the store, one to North) passes the turn; the engine
    // answers and the hint is asked at South's next turn.
    let hint_at = text.find("Hint for ").unwrap_or_else(|| panic!("{text}"));
    let rest = &text[hint_at..];
    let listed: Vec<&str> = rest
        .lines()
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .map(|l| l.trim().split(':').next().unwrap())
        .collect();
    assert!(!listed.is_empty(), "{rest}");
    let legal_line = text[..hint_at].lines().last().unwrap();
    let legal: Vec<&str> = legal_line
        .split("legal: ")
        .nth(1)
        .unwrap()
        .split('>')
        .next()
        .unwrap()
        .split_whitespace()
        .collect();
    assert_eq!(listed, legal, "one value per legal action\n{text}");
    assert!(rest.contains("<- best"), "{rest}");
}

#[test]
fn hint_on_two_threads_gives_the_values_of_one() {
    // Human against human: no engine move, so both runs see the same positions. Kalah(4,3)
    // is small enough for every value to be proven within the hint's time.
    let hint = |threads: &str| {
        let text = play(
            &[
                "--opponent",
                "human",
                "--houses",
                "4",
                "--seeds",
                "3",
                "--threads",
                threads,
            ],
            "hint\n2\nhint\nquit\n",
        );
        let hints: Vec<String> = text
            .split("Hint for ")
            .skip(1)
            .map(|h| {
                h.lines()
                    .skip(1)
                    .take_while(|l| l.starts_with("  "))
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .collect();
        assert_eq!(hints.len(), 2, "{text}");
        assert!(hints.iter().all(|h| h.contains("<- best")), "{text}");
        hints
    };
    assert_eq!(hint("2"), hint("1"));
}

#[test]
fn play_refuses_a_thread_count_of_zero() {
    let out = kalah()
        .args(["play", "--threads", "0"])
        .write_stdin("quit\n")
        .output()
        .expect("runs");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--threads"), "{stderr}");
}

#[test]
fn bad_commands_do_not_stop_the_game() {
    let text = play(
        &["--opponent", "human"],
        "fly\n9\n0\nsave\nundo now\nswap\n3 4\n\n3\nquit\n",
    );
    for msg in [
        "! 'fly' is not a command",
        "! there is no house 9: houses are numbered 1 to 6",
        "! there is no house 0",
        "! save needs a file name",
        "! 'undo' takes no argument",
        "! swap is only allowed as North's first action under the pie rule",
        "! one action a line, please: '3 4' (type a house number, or a whole turn joined by dashes or commas, e.g. 3-6)",
    ] {
        assert!(text.contains(msg), "missing {msg:?} in\n{text}");
    }
    assert!(text.contains("South plays 3: sows 4 seeds, the last into the store: extra turn."));
    assert!(text.trim_end().ends_with("Bye."));
}

/// A house number above 255 in a typed turn is told as house 9 is, legal actions included
/// (tester 65).
#[test]
fn a_large_house_in_a_typed_turn_is_told_as_a_small_one() {
    let turns = ["3-9", "1-9", "9-9", "3,9", "3-6-9"];
    let lines = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| l.starts_with("! "))
            .map(str::to_string)
            .collect()
    };
    let input = |t: &[String]| format!("{}\nquit\n", t.join("\n"));
    let small: Vec<String> = turns.iter().map(|t| t.to_string()).collect();
    let large: Vec<String> = small.iter().map(|t| t.replace('9', "99999")).collect();
    let want = lines(&play(&["--opponent", "human"], &input(&small)));
    let got = lines(&play(&["--opponent", "human"], &input(&large)));
    assert_eq!(want.len(), turns.len(), "{want:?}");
    let got: Vec<String> = got.iter().map(|l| l.replace("99999", "9")).collect();
    assert_eq!(got, want);
}

#[test]
fn empty_house_and_save_errors_are_reported() {
    let text = play(
        &["--opponent", "human"],
        "3\n3\nsave /nonexistent-dir/x.txt\nhelp\nquit\n",
    );
    assert!(
        text.contains("! house 3 is empty; legal: 1 2 4 5 6"),
        "{text}"
    );
    assert!(
        text.contains("! cannot save to '/nonexistent-dir/x.txt'"),
        "{text}"
    );
    assert!(text.contains("save FILE"), "help lists the commands");
}

#[test]
fn end_of_input_ends_cleanly() {
    let text = play(&[], "3\n");
    assert!(
        text.trim_end()
            .ends_with("End of input: the game is left unfinished."),
        "{text}"
    );
    let text = play(&[], "");
    assert!(text.contains("End of input"), "{text}");
    // With --save, it says where the game is, as a Ctrl-C does (tester 94).
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("g.txt");
    let text = play(&["--save", file.to_str().unwrap()], "3\n");
    assert!(
        text.trim_end().ends_with(&format!(
            "End of input: the game is left unfinished; it is kept in '{}'.",
            file.display()
        )),
        "{text}"
    );
}

#[test]
fn colour_only_when_asked_or_on_a_terminal() {
    let out = kalah()
        .args(["play", "--color", "always", "--opponent", "human"])
        .write_stdin("quit\n")
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("\x1b["));
}

/// Runs `kalah play --opponent human` with `stdin` as its input, `feed` written to it on a
/// thread of its own (the game may stop reading: write errors are ignored); gives up after 60 s.
/// Returns the exit code and stderr.
fn play_fed(stdin: std::process::Stdio, feed: Option<Vec<u8>>) -> (Option<i32>, String) {
    use std::io::Write;
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("kalah"))
        .args(["play", "--no-egdb", "--opponent", "human"])
        .stdin(stdin)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    if let (Some(feed), Some(mut input)) = (feed, child.stdin.take()) {
        std::thread::spawn(move || {
            let _ = input.write_all(&feed);
        });
    }
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > std::time::Duration::from_secs(60) {
            let _ = child.kill();
            panic!("still reading after 60 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let (_, err) = common::stderr_to_end(&mut child);
    (status.code(), err)
}

/// Regression: `kalah play < /dev/zero` read one endless line forever, at full speed. A line
/// whose end does not come within 64 KiB is abandoned and ends the game (the input is no typed
/// commands): one line on stderr, exit code 1.
#[cfg(unix)]
#[test]
fn an_endless_line_ends_the_game() {
    let want = "kalah: error: stdin: a line is longer than 65536 bytes (a command is a few \
                characters): not typed commands; the game cannot go on: the game was not saved\n";
    let zero = std::fs::File::open("/dev/zero").unwrap();
    let (code, err) = play_fed(zero.into(), None);
    assert_eq!(code, Some(1), "{err}");
    assert_eq!(err, want);
    // A line of 3 MB that ends (then a move): the same.
    let mut feed = vec![b'3'; 3_000_000];
    feed.extend_from_slice(b"\n3\nquit\n");
    let (code, err) = play_fed(std::process::Stdio::piped(), Some(feed));
    assert_eq!(code, Some(1), "{err}");
    assert_eq!(err, want);
}

/// Regression: a line without end (e.g. `< /dev/zero`) was read whole and the process died of
/// a failed allocation. Long lines are now refused and the game goes on (up to 64 KiB: see
/// `an_endless_line_ends_the_game`); control characters are echoed as escapes, never sent to
/// the terminal.
#[test]
fn long_lines_and_control_characters() {
    let long = "3".repeat(60_000);
    let text = play(
        &["--opponent", "human"],
        &format!("{long}\n\x1b[2Jx\0\n3\nquit\n"),
    );
    assert!(text.contains("! that line is too long"), "refused");
    assert!(text.len() < 20_000, "the long line is not echoed back");
    // The limit is 1000 bytes of text, its line break not counted (tester 41: a line of 1000
    // bytes was refused); a line of 1001 is refused.
    let edge = play(
        &["--opponent", "human"],
        &format!("{}3\n{}3\nquit\n", " ".repeat(1000), " ".repeat(999)),
    );
    assert_eq!(edge.matches("! that line is too long").count(), 1, "{edge}");
    assert!(edge.contains("South plays 3: sows 4 seeds"), "{edge}");
    assert!(text.contains("\\u{1b}[2Jx\\u{0}"), "escaped");
    assert!(!text.contains('\0'));
    assert!(
        text.contains("South plays 3: sows 4 seeds"),
        "the game went on"
    );
    // A last line without a newline, and a number too large for any house.
    let text = play(&["--opponent", "human"], "99999999999999999999999\n3");
    assert!(
        text.contains("! there is no house 99999999999999999999999: houses are numbered 1 to 6; legal: 1 2 3 4 5 6"),
        "{text}"
    );
    assert!(text.contains("South plays 3"), "{text}");
    // Within a turn: the board's count too, as `kalah show --moves 3-256` (tester 23: a side
    // has at most 12 houses, said of a 6-house board), and the typed turn quoted.
    let text = play(&["--opponent", "human"], "3-256\n03\n3-03\nquit\n");
    assert!(
        text.contains("! '03' in '3-03' is not a house number (digits, no leading zero)"),
        "{text}"
    );
    assert!(
        text.contains("! '3-256': action 2 (house 256) cannot be played: there is no house 256: houses are numbered 1 to 6 (legal after '3': 1 2 4 5 6)\n"),
        "{text}"
    );
    assert!(
        text.contains(
            "! '03' is not a move: expected a house number (digits, no leading zero) or 'swap'"
        ),
        "{text}"
    );
}

/// Regression: a failed save named tempfile's random path; a save now replaces the file in one
/// step, keeps its permissions, follows a symbolic link, and leaves no temporary file behind.
#[test]
fn save_is_atomic_and_tidy() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real.txt");
    // An earlier save (a file of something else would not be replaced).
    std::fs::write(&real, "1. S 3-\n").unwrap();
    let link = dir.path().join("link.txt");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o640)).unwrap();
        std::os::unix::fs::symlink(&real, &link).unwrap();
    }
    #[cfg(not(unix))]
    std::fs::copy(&real, &link).unwrap();
    let sub = dir.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    let missing = dir.path().join("missing").join("x.txt");
    let text = play(
        &["--opponent", "human"],
        &format!(
            "3\nsave {}\nsave {}\nsave {}\nquit\n",
            link.display(),
            sub.display(),
            missing.display()
        ),
    );
    assert!(text.contains("Saved the game to"), "{text}");
    assert!(text.contains("is a directory; the game goes on"), "{text}");
    assert!(text.contains("No such file or directory"), "{text}");
    assert!(
        !text.contains("at path") && !text.contains(".kalah-"),
        "no temporary name in messages:\n{text}"
    );
    let saved = std::fs::read_to_string(&real).unwrap();
    assert!(
        saved.contains("[Start \"4,4,4,4,4,4,0,4,4,4,4,4,4,0 S\"]"),
        "{saved}"
    );
    assert!(saved.contains("1. S 3-"), "{saved}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        let mode = std::fs::metadata(&real).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o640);
    }
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(
        sorted,
        ["link.txt", "real.txt", "sub"],
        "no temporary file left"
    );
    assert_eq!(std::fs::read_dir(&sub).unwrap().count(), 0);
}

/// Regression (fresh-user tester): the save's rename replaced a FIFO (and, as root, device files
/// such as /dev/full) by a plain file, overwrote read-only files and replaced broken symbolic
/// links. Only a regular file the user may write is replaced now; the others are refused and
/// left as they were.
#[cfg(unix)]
/// `save` into a directory that takes no new files (`/proc`) says so, not "No such file or
/// directory" of a directory that is there (tester 62); a tab before or after a `save` name is
/// refused as one inside it is.
#[cfg(target_os = "linux")]
#[test]
fn save_names_a_directory_that_takes_no_files_and_refuses_tabs_around_names() {
    let dir = tempfile::tempdir().unwrap();
    let x = dir.path().join("x");
    let input = format!(
        "save /proc/version\nsave \t{0}\nsave {0}\t\nquit\n",
        x.display()
    );
    let out = play(&["--opponent", "human"], &input);
    assert!(
        out.contains(
            "! cannot save to '/proc/version': cannot write in '/proc': it takes no new files"
        ),
        "{out}"
    );
    assert_eq!(
        out.matches("! a file name with control characters is refused: ")
            .count(),
        2,
        "{out}"
    );
    assert!(!x.exists());
}

/// A name ending in '/' (or '/.', '/..') names a directory: said so, not "Not a directory (os
/// error 20)" (tester 77), for `save` and `--save`; nothing is written.
#[test]
fn save_to_a_name_ending_in_a_slash_says_it_names_a_directory() {
    let dir = tempfile::tempdir().unwrap();
    let x = dir.path().join("x.txt");
    let input = format!("3\nsave {}/\nquit\n", x.display());
    let out = play(&["--opponent", "human"], &input);
    assert!(
        out.contains(&format!(
            "! cannot save to '{0}/': '{0}/' ends in '/', which names a directory; games are \
             saved to files (drop the '/'); the game goes on",
            x.display()
        )),
        "{out}"
    );
    let out = kalah()
        .args(["play", "--opponent", "human", "--save"])
        .arg(format!("{}/", x.display()))
        .write_stdin("quit\n")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("ends in '/', which names a directory"),
        "{err}"
    );
    // So do '/.' and '/..' (tester 79: "No such file or directory").
    for tail in ["/.", "/.."] {
        let input = format!("3\nsave {}{tail}\nquit\n", x.display());
        let out = play(&["--opponent", "human"], &input);
        assert!(
            out.contains(&format!(
                "'{}{tail}' ends in '.' or '..', which names a directory; games are saved to \
                 files; the game goes on",
                x.display()
            )),
            "{out}"
        );
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

/// A record `--load` would refuse (over 4 MiB) is never written: a loaded record whose comment
/// nearly fills the limit grew past it with the tags `save` adds, and replaced the file
/// (tester 82); the file keeps its content and the game goes on.
#[test]
fn save_refuses_a_record_that_load_would_refuse() {
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.txt");
    let text = format!("# {}\n", "x".repeat((4 << 20) - 100));
    std::fs::write(&big, &text).unwrap();
    let other = dir.path().join("other.txt");
    let input = format!("save {}\nsave {}\nquit\n", big.display(), other.display());
    let out = play(
        &["--load", big.to_str().unwrap(), "--opponent", "human"],
        &input,
    );
    assert_eq!(
        out.matches(
            ", over the 4 MiB that --load reads (its comments or tags are too long), so \
             it is not written; the game goes on"
        )
        .count(),
        2,
        "{}",
        &out[out.len().saturating_sub(2000)..]
    );
    assert_eq!(std::fs::read_to_string(&big).unwrap(), text);
    assert!(!other.exists());
    // Kept by --save, it is told that no other file can hold it either (tester 104: the advice
    // was `save FILE`, which fails the same way).
    let out = kalah()
        .args(["play", "--load", big.to_str().unwrap(), "--save"])
        .arg(&big)
        .args(["--opponent", "human"])
        .write_stdin("1\nquit\n")
        .output()
        .unwrap();
    let said =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    let said = &said[said.len().saturating_sub(3000)..];
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(said.contains("no other file can hold it either"), "{said}");
    assert!(!said.contains("type save FILE"), "{said}");
    assert_eq!(std::fs::read_to_string(&big).unwrap(), text);
    // The record still loads.
    let out = play(
        &["--load", big.to_str().unwrap(), "--opponent", "human"],
        "quit\n",
    );
    assert!(
        out.contains("0 actions played"),
        "{}",
        &out[..500.min(out.len())]
    );
}

#[test]
fn save_refuses_devices_pipes_read_only_files_and_broken_links() {
    use std::os::unix::fs::{FileTypeExt, PermissionsExt};
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success());
    let broken = dir.path().join("broken");
    std::os::unix::fs::symlink(dir.path().join("nowhere").join("x"), &broken).unwrap();
    let ro = dir.path().join("ro.txt");
    std::fs::write(&ro, "keep me").unwrap();
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o444)).unwrap();
    // Root may write a read-only file (as any editor run by root would).
    let root = std::fs::OpenOptions::new().write(true).open(&ro).is_ok();
    let mut input = String::from("3\n");
    if made {
        input.push_str(&format!("save {}\n", fifo.display()));
    }
    input.push_str(&format!("save {}\n", broken.display()));
    if !root {
        input.push_str(&format!("save {}\n", ro.display()));
    }
    input.push_str("quit\n");
    let text = play(&["--opponent", "human"], &input);
    assert!(!text.contains("Saved the game"), "{text}");
    if made {
        assert!(text.contains("is not a regular file"), "{text}");
        let t = std::fs::symlink_metadata(&fifo).unwrap().file_type();
        assert!(t.is_fifo(), "the FIFO is still a FIFO");
    }
    assert!(
        text.contains("is a symbolic link to") && text.contains("which does not exist"),
        "{text}"
    );
    assert!(std::fs::symlink_metadata(&broken)
        .unwrap()
        .file_type()
        .is_symlink());
    if !root {
        assert!(text.contains("Permission denied"), "{text}");
        assert_eq!(std::fs::read_to_string(&ro).unwrap(), "keep me");
    }
}

/// Regression (fresh-user tester): `--load /dev/zero` read without end (gigabytes of memory).
#[test]
fn load_refuses_an_endless_or_huge_file() {
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.txt");
    std::fs::write(&big, "a".repeat((4 << 20) + 1)).unwrap();
    for path in [big.to_str().unwrap(), "/dev/zero"] {
        if !std::path::Path::new(path).exists() {
            continue;
        }
        let out = Command::cargo_bin("kalah")
            .unwrap()
            .args(["play", "--load", path])
            .write_stdin("")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{path}: {stderr}");
        // A device is refused before it is read (tester 35: a FIFO blocked for ever).
        let want = if path == "/dev/zero" {
            "is not a regular file (a pipe, a device or a socket)"
        } else {
            "holds over 4 MiB"
        };
        assert!(stderr.contains(want), "{path}: {stderr}");
    }
}

/// A UTF-16 record is named as such, with or without its byte-order mark, and so is one
/// that is merely not UTF-8 (tester 77: "bad byte at offset 0" for UTF-16).
#[test]
fn load_names_utf16_records() {
    let dir = tempfile::tempdir().unwrap();
    let utf16 = |big: bool, bom: bool| {
        let mut bytes: Vec<u8> = if !bom {
            vec![]
        } else if big {
            vec![0xFE, 0xFF]
        } else {
            vec![0xFF, 0xFE]
        };
        for unit in "1. 3-6\n".encode_utf16() {
            let b = if big {
                unit.to_be_bytes()
            } else {
                unit.to_le_bytes()
            };
            bytes.extend_from_slice(&b);
        }
        bytes
    };
    for (name, bytes, want) in [
        (
            "le.txt",
            utf16(false, true),
            "it is UTF-16 text (byte-order mark FF FE), and records are UTF-8",
        ),
        (
            "be.txt",
            utf16(true, true),
            "it is UTF-16 text (byte-order mark FE FF), and records are UTF-8",
        ),
        (
            "nobom.txt",
            utf16(true, false),
            "it holds a NUL byte (at offset 0), which no text does (UTF-16 text without a \
             byte-order mark, it seems: convert it, e.g. iconv -f UTF-16BE -t UTF-8)",
        ),
        (
            "nobom-le.txt",
            utf16(false, false),
            "it holds a NUL byte (at offset 1), which no text does (UTF-16 text without a \
             byte-order mark, it seems: convert it, e.g. iconv -f UTF-16LE -t UTF-8)",
        ),
        (
            "one-nul.txt",
            b"1. 3-6 # a\0b\n".to_vec(),
            "it holds a NUL byte (at offset 10), which no text does\n",
        ),
        (
            "latin1.txt",
            b"1. 3-6 # r\xe9sultat\n".to_vec(),
            "it is not UTF-8 text (bad byte at offset 10)",
        ),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, &bytes).unwrap();
        let out = kalah()
            .args(["play", "--load"])
            .arg(&path)
            .write_stdin("")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{name}: {stderr}");
        assert!(stderr.contains(want), "{name}: {stderr}");
    }
}

/// Regression (tester 49): `save FILE` replaced the record of another game (a mistyped name
/// lost it). Another game's record is kept; an earlier save of this game, or a file this
/// session saved (even after an undo took the game elsewhere) or loaded, is replaced.
#[test]
fn save_keeps_another_games_record() {
    let dir = tempfile::tempdir().unwrap();
    let other = dir.path().join("other.txt");
    let other_text = "[Start \"3,3,3,3,0,3,3,3,3,0 S\"]\n1. S 1\n";
    std::fs::write(&other, other_text).unwrap();
    let same_start = dir.path().join("same-start.txt");
    let same_start_text = "1. S 1\n";
    std::fs::write(&same_start, same_start_text).unwrap();
    let earlier = dir.path().join("earlier.txt");
    std::fs::write(&earlier, "1. S 3-6\n").unwrap();
    let mine = dir.path().join("mine.txt");
    let script = format!(
        "3\n6\nsave {}\nsave {}\nsave {}\nsave {}\nundo\nundo\n2\nsave {}\nquit\n",
        other.display(),
        same_start.display(),
        earlier.display(),
        mine.display(),
        mine.display()
    );
    let stdout = play(&["--opponent", "human"], &script);
    assert!(
        stdout.contains(
            "holds another game (1 action from 3,3,3,3,0,3,3,3,3,0 S), so it is not replaced"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains("holds another game (1 action from 4,4,4,4,4,4,0,4,4,4,4,4,4,0 S)"),
        "{stdout}"
    );
    assert_eq!(std::fs::read_to_string(&other).unwrap(), other_text);
    assert_eq!(
        std::fs::read_to_string(&same_start).unwrap(),
        same_start_text
    );
    // The earlier save (a prefix of this game) and this session's own file are replaced.
    assert_eq!(stdout.matches("Saved the game to").count(), 3, "{stdout}");
    assert!(std::fs::read_to_string(&earlier)
        .unwrap()
        .contains("1. S 3-6"));
    assert!(std::fs::read_to_string(&mine).unwrap().contains("1. S 2"));
    // A file loaded by the session is its own as well.
    let path = other.display().to_string();
    let stdout = play(
        &["--opponent", "human", "--load", &path],
        &format!("undo\n2\nsave {path}\nquit\n"),
    );
    assert!(stdout.contains("Saved the game to"), "{stdout}");
    assert!(std::fs::read_to_string(&other).unwrap().contains("1. S 2"));
}

/// Regression (tester 68): `save FILE` over a record of this game's start and moves that was
/// annotated by hand (an `Event` tag, player names, a comment) replaced it, and they were lost.
/// It is kept now, with what would be lost named; a plain earlier save is still replaced.
#[test]
fn save_keeps_a_record_annotated_by_hand() {
    let dir = tempfile::tempdir().unwrap();
    let annotated = dir.path().join("ann.txt");
    let text = "[Start \"4,4,4,0,4,4,4,0 S\"]\n[Event \"club final\"]\n[South \"Alice\"]\n\
                [North \"Bob\"]\n1. S 1 # strong!\n";
    std::fs::write(&annotated, text).unwrap();
    let stdout = play(
        &["--opponent", "human", "--houses", "3"],
        &format!("1\nsave {}\nquit\n", annotated.display()),
    );
    assert!(
        stdout.contains(&format!(
            "'{}' holds the tag \"Event\", the player name \"Alice\", the player name \"Bob\" \
             and 1 comment that this game's record lacks, so it is not replaced",
            annotated.display()
        )),
        "{stdout}"
    );
    assert_eq!(std::fs::read_to_string(&annotated).unwrap(), text);
    // Loaded, the annotations are this game's: saved over, the file keeps them and the move.
    let path = annotated.display().to_string();
    let stdout = play(&["--load", &path], &format!("save {path}\nquit\n"));
    assert!(stdout.contains("Saved the game to"), "{stdout}");
    let saved = std::fs::read_to_string(&annotated).unwrap();
    for kept in [
        "[Event \"club final\"]",
        "[South \"Alice\"]",
        "# strong!",
        "1. S 1",
    ] {
        assert!(saved.contains(kept), "{kept}: {saved}");
    }
    // The player tags as `save` writes them, in any case, name the players.
    let cased = dir.path().join("cased.txt");
    std::fs::write(
        &cased,
        "[Start \"4,4,4,0,4,4,4,0 S\"]\n[South \"Human\"]\n[North \"kalah engine Easy\"]\n",
    )
    .unwrap();
    let stdout = play(&["--load", &cased.display().to_string()], "quit\n");
    assert!(
        stdout.contains("--opponent engine --side south --level easy"),
        "{stdout}"
    );
}

/// `save ~/game.txt`: `~` is not expanded at the prompt (only a shell does that); the message
/// names the whole path to write instead (tester 68: only "cannot write in '~'").
#[test]
fn save_to_a_tilde_name_names_the_whole_path() {
    let home = tempfile::tempdir().unwrap();
    let run = tempfile::tempdir().unwrap();
    let out = kalah()
        .current_dir(run.path())
        .env("HOME", home.path())
        .args(["play", "--opponent", "human"])
        .write_stdin("save ~/game.txt\nquit\n")
        .output()
        .unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(&format!(
            "('~' is not your home folder here, only on a shell's command line: write the whole \
             path, '{}')",
            home.path().join("game.txt").display()
        )),
        "{stdout}"
    );
    assert!(!home.path().join("game.txt").exists());
}

/// Regression (tester 52): `save FILE` in a new session replaced a saved game of the same start
/// that went further (its moves lost), and a file this session had written was replaced after
/// another program put another game there. Both are kept now; a file this session wrote and
/// nobody changed since is still replaced, even by a shorter game (an undo, then `save`).
#[test]
fn save_keeps_a_longer_record_of_this_game_and_a_changed_own_file() {
    use std::io::{BufRead, BufReader, Write};
    let dir = tempfile::tempdir().unwrap();
    let longer = dir.path().join("longer.txt");
    let longer_text = "1. S 3-6\n2. N 1\n";
    std::fs::write(&longer, longer_text).unwrap();
    let stdout = play(
        &["--opponent", "human"],
        &format!("3\nsave {}\nquit\n", longer.display()),
    );
    assert!(
        stdout.contains(&format!(
            "'{}' holds this game further on (3 actions, 1 action here), so it is not replaced",
            longer.display()
        )),
        "{stdout}"
    );
    assert_eq!(std::fs::read_to_string(&longer).unwrap(), longer_text);
    // This session's own save, then undone and saved again: replaced by the shorter game.
    let mine = dir.path().join("mine.txt");
    let stdout = play(
        &["--opponent", "human"],
        &format!("3\n6\nsave {0}\nundo\nsave {0}\nquit\n", mine.display()),
    );
    assert_eq!(stdout.matches("Saved the game to").count(), 2, "{stdout}");
    // (`undo` takes back South's whole turn 3-6.)
    assert!(!std::fs::read_to_string(&mine).unwrap().contains("1. S"));
    // Another program puts another game in this session's file between two saves.
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("kalah"))
        .args(["play", "--opponent", "human"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    writeln!(stdin, "3\nsave {}", mine.display()).unwrap();
    stdin.flush().unwrap();
    let mut seen = String::new();
    while !seen.contains("Saved the game to") {
        seen = lines.next().expect("a line").unwrap();
    }
    let other_text = "[Start \"3,3,3,3,0,3,3,3,3,0 S\"]\n1. S 1\n";
    std::fs::write(&mine, other_text).unwrap();
    writeln!(stdin, "save {}\nquit", mine.display()).unwrap();
    drop(stdin);
    let rest: Vec<String> = lines.map(Result::unwrap).collect();
    assert!(child.wait().unwrap().success());
    let rest = rest.join("\n");
    assert!(
        rest.contains(
            "holds another game (changed by another program since this session last read or \
             wrote it) (1 action from 3,3,3,3,0,3,3,3,3,0 S), so it is not replaced"
        ),
        "{rest}"
    );
    assert_eq!(std::fs::read_to_string(&mine).unwrap(), other_text);
}

/// Regression (tester 52): a record's comments were lost when it was saved again, and `save`
/// over a JSON record (or to a `.json` name) wrote the text form.
#[test]
fn saves_keep_comments_and_the_json_form() {
    let dir = tempfile::tempdir().unwrap();
    let f = record_file(&dir, "c.txt", "# club night\n1. S 3-6 # book\n");
    let stdout = play(
        &["--opponent", "human", "--load", &f, "--save", &f],
        "1\nquit\n",
    );
    assert!(stdout.contains("North plays 1"), "{stdout}");
    let text = std::fs::read_to_string(&f).unwrap();
    assert!(
        text.contains("# club night\n1. S 3-6\n# book\n2. N 1\n"),
        "{text}"
    );
    // save to a .json name writes JSON; save over a JSON record under another name too.
    let j = dir.path().join("g.json");
    let other = record_file(&dir, "g.rec", "{\"turns\": [\"3-6\"]}");
    play(
        &["--opponent", "human"],
        &format!("3\n6\nsave {}\n1\nsave {other}\nquit\n", j.display()),
    );
    for path in [j.display().to_string(), other] {
        let text = std::fs::read_to_string(&path).unwrap();
        let v: serde_json::Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{path} is not JSON ({e}): {text}"));
        assert!(v["turns"].is_array(), "{text}");
    }
    // A new --save file named .json is kept in the JSON form.
    let k = dir.path().join("k.JSON");
    play(
        &["--opponent", "human", "--save", &k.display().to_string()],
        "3\nquit\n",
    );
    let text = std::fs::read_to_string(&k).unwrap();
    assert!(
        text.trim_start().starts_with('{') && text.contains("\"3-\""),
        "{text}"
    );
}

/// Regression (tester 35): `save notes.txt` replaced a file that held something else; a FIFO
/// given to `--load` blocked for ever.
#[test]
fn save_keeps_a_file_that_is_not_a_game_and_load_refuses_a_fifo() {
    let dir = tempfile::tempdir().unwrap();
    let notes = dir.path().join("notes.txt");
    std::fs::write(&notes, "notes\n").unwrap();
    let game = dir.path().join("game.txt");
    let script = format!(
        "save {}\n3\nsave {}\nsave {}\nquit\n",
        notes.display(),
        game.display(),
        game.display()
    );
    let out = Command::cargo_bin("kalah")
        .unwrap()
        .args(["play", "--opponent", "human"])
        .write_stdin(script)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("exists and does not hold a game record, so it is not replaced"),
        "{stdout}"
    );
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "notes\n");
    // An earlier save is replaced, as before.
    assert_eq!(stdout.matches("Saved the game to").count(), 2, "{stdout}");
    assert!(std::fs::read_to_string(&game).unwrap().contains("1. S 3-"));
    let fifo = dir.path().join("fifo");
    if std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success())
    {
        let out = Command::cargo_bin("kalah")
            .unwrap()
            .args(["play", "--load"])
            .arg(&fifo)
            .timeout(std::time::Duration::from_secs(20))
            .write_stdin("")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains("is not a regular file"), "{stderr}");
    }
}

/// Regression (fresh-user tester): a record whose Start carries an opening phase tag without the
/// opening rules loaded, and `save` wrote back a start that `kalah show` refuses.
#[test]
fn load_refuses_a_start_tag_without_its_rules() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tag.txt");
    std::fs::write(&file, "[Start \"3,3,3,0,3,3,3,0 S opening\"]\n1. S 2\n").unwrap();
    let out = Command::cargo_bin("kalah")
        .unwrap()
        .args(["play", "--load", file.to_str().unwrap()])
        .write_stdin("")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("phase tag 'opening'")
            && stderr.contains("pie=on or first-move-extra-turn=off"),
        "{stderr}"
    );
    // With the rule it loads.
    std::fs::write(
        &file,
        "[Rules \"pie=on\"]\n[Start \"3,3,3,0,3,3,3,0 S opening\"]\n1. S 2\n",
    )
    .unwrap();
    let text = play(
        &["--load", file.to_str().unwrap(), "--opponent", "human"],
        "quit\n",
    );
    assert!(text.contains("3,3,3,0,3,3,3,0 S opening"), "{text}");
}

/// A whole turn typed at once (`3-6`), as `show --moves` and records write it; a turn that
/// does not hold together is refused whole, before any of it is played.
#[test]
fn a_whole_turn_can_be_typed_at_once() {
    let text = play(&["--opponent", "human"], "6-3\n3-9\n3-6\nquit\n");
    assert!(
        text.contains("! '6-3' goes on after action 1 (house 6), which ends the turn"),
        "{text}"
    );
    // The core's wording, with the legal actions where the illegal one was to be played.
    assert!(
        text.contains(
            "! '3-9': action 2 (house 9) cannot be played: there is no house 9: houses are \
             numbered 1 to 6 (legal after '3': 1 2 4 5 6)"
        ),
        "{text}"
    );
    let plays: Vec<&str> = text.lines().filter(|l| l.contains(" plays ")).collect();
    assert_eq!(plays.len(), 2, "only 3-6 was played: {text}");
    assert!(plays[0].starts_with("South plays 3") && plays[1].starts_with("South plays 6"));
    assert!(text.contains("North to move"), "{text}");
}

/// Writes `text` to `name` in `dir` and returns the path as a string.
fn record_file(dir: &tempfile::TempDir, name: &str, text: &str) -> String {
    let f = dir.path().join(name);
    std::fs::write(&f, text).unwrap();
    f.to_str().unwrap().to_string()
}

/// Regression (fresh-user tester, U1 and U2): `--load` of a game between two people handed one
/// side to the engine, which moved at once, and an engine's level in the record was ignored.
/// The players now come from the record's South/North tags as `save` writes them.
#[test]
fn load_takes_the_players_from_the_record() {
    let dir = tempfile::tempdir().unwrap();
    let hh = dir.path().join("hh.txt");
    let hhs = hh.to_str().unwrap();
    play(
        &["--opponent", "human", "--houses", "3", "--seeds", "3"],
        &format!("2\nsave {hhs}\nquit\n"),
    );
    let saved = std::fs::read_to_string(&hh).unwrap();
    assert!(
        saved.contains("[South \"human\"]\n[North \"human\"]"),
        "{saved}"
    );
    let text = play(&["--load", hhs], "quit\n");
    assert!(!text.contains("engine"), "no engine: {text}");
    assert!(text.contains("North to move; legal: 1 2 3>"), "{text}");
    assert!(
        text.contains(
            "Players from the record (South \"human\", North \"human\"): --opponent human.\n\
             Two players at one terminal."
        ),
        "{text}"
    );
    assert!(
        text.contains(&format!("Loaded '{hhs}': 1 action played.\n")),
        "{text}"
    );

    // One engine side: the engine at the recorded level on its side, you on the other.
    let eh = record_file(
        &dir,
        "eh.txt",
        "[Start \"3,3,3,0,3,3,3,0 S\"]\n[South \"kalah engine hard\"]\n[North \"human\"]\n\n1. S 2\n",
    );
    let text = play(&["--load", &eh], "quit\n");
    assert!(
        text.contains(
            "Players from the record (South \"kalah engine hard\", North \"human\"): \
             --opponent engine --side north --level hard.\n\
             You play North against the engine (hard)."
        ),
        "{text}"
    );
    assert!(text.contains("Your move (North)"), "{text}");
    assert!(!text.contains(" plays "), "the engine did not move: {text}");

    // A flag given wins; the others still come from the record.
    let text = play(&["--load", &eh, "--level", "easy"], "quit\n");
    assert!(
        text.contains(": --side north.\nYou play North against the engine (easy)."),
        "{text}"
    );
    let text = play(&["--load", &eh, "--opponent", "human"], "quit\n");
    assert!(!text.contains("from the record"), "{text}");
    assert!(text.contains("Two players at one terminal."), "{text}");
    // Two people in the record, but --opponent engine: no side in the record, the default.
    let text = play(&["--load", hhs, "--opponent", "engine"], "quit\n");
    assert!(
        text.contains(
            "The record's players are two people (South \"human\", North \"human\"), so the \
             defaults are used: --side south --level medium.\n\
             You play South against the engine (medium)."
        ),
        "{text}"
    );

    // A hand-written record: the defaults, and a line that says so.
    let ab = record_file(
        &dir,
        "ab.txt",
        "[Start \"3,3,3,0,3,3,3,0 S\"]\n[South \"Alice\"]\n[North \"kalah engine godlike\"]\n\n1. S 2\n",
    );
    let text = play(&["--load", &ab], "quit\n");
    // An unknown level is named (tester 82: only the general message).
    assert!(
        text.contains(
            "The record's players (South \"Alice\", North \"kalah engine godlike\") name the \
             engine at level 'godlike', which is no level (beginner, easy, medium, hard, expert, \
             perfect), so the defaults are used: --opponent engine --side south --level medium.\n\
             You play South against the engine (medium)."
        ),
        "{text}"
    );
    let names = record_file(
        &dir,
        "names.txt",
        "[Start \"3,3,3,0,3,3,3,0 S\"]\n[South \"Alice\"]\n[North \"Bob\"]\n\n1. S 2\n",
    );
    let text = play(&["--load", &names], "quit\n");
    assert!(
        text.contains(
            "The record's players (South \"Alice\", North \"Bob\") are not a pair that 'save' \
             writes (\"human\" against \"human\" or \"kalah engine LEVEL\"), so the defaults \
             are used: --opponent engine --side south --level medium.\n"
        ),
        "{text}"
    );
    let text = play(&["--load", &ab, "--opponent", "human"], "quit\n");
    assert!(!text.contains("default"), "{text}");

    // `save` names this session's players (a hand-written name stays): loaded again, the
    // game goes on with them.
    let again = dir.path().join("again.txt");
    let agains = again.to_str().unwrap();
    play(
        &["--load", hhs, "--side", "north", "--level", "expert"],
        &format!("save {agains}\nquit\n"),
    );
    let saved = std::fs::read_to_string(&again).unwrap();
    assert!(
        saved.contains("[South \"kalah engine expert\"]\n[North \"human\"]"),
        "{saved}"
    );
    // (Into a new file: `again.txt` holds the same move by other players, which a save does
    // not replace.)
    let named = dir.path().join("named.txt");
    let nameds = named.to_str().unwrap();
    let text = play(
        &["--load", &ab],
        &format!("save {agains}\nsave {nameds}\nquit\n"),
    );
    assert!(text.contains("holds a game of other players"), "{text}");
    let saved = std::fs::read_to_string(&named).unwrap();
    assert!(
        saved.contains("[South \"Alice\"]\n[North \"kalah engine godlike\"]"),
        "{saved}"
    );
}

/// Regression (fresh-user tester, U4): a game loaded after the engine swapped said "You play
/// South" and then asked North's move.
#[test]
fn load_after_a_swap_says_which_row_you_own() {
    let dir = tempfile::tempdir().unwrap();
    let sw = record_file(
        &dir,
        "sw.txt",
        "[Rules \"pie=on\"]\n[Start \"3,3,3,0,3,3,3,0 S opening\"]\n\
         [South \"human\"]\n[North \"kalah engine medium\"]\n\n1. S 1-2\n2. N swap\n",
    );
    let text = play(&["--load", &sw], "quit\n");
    assert!(
        text.contains(
            "You started as South; after the swap you play North against the engine (medium)."
        ),
        "{text}"
    );
    assert!(!text.contains("You play South"), "{text}");
    assert!(text.contains("Your move (North)"), "{text}");
}

/// Regression (fresh-user tester, N3): the open turn `3-`, which records and the web API
/// write, was 'not a command'. A trailing `-` says the turn goes on: its last action must earn
/// an extra turn (kalah-core's check and wording, as in the API).
#[test]
fn a_turn_may_end_in_a_dash_when_it_goes_on() {
    let text = play(&["--opponent", "human"], "1-\n3-6-\n3-\n6\nquit\n");
    assert!(
        text.contains("! '1-' ends with '-', but action 1 (house 1) earns no extra turn"),
        "{text}"
    );
    assert!(
        text.contains("! '3-6-' ends with '-', but action 2 (house 6) earns no extra turn"),
        "{text}"
    );
    let plays: Vec<&str> = text.lines().filter(|l| l.contains(" plays ")).collect();
    assert_eq!(plays.len(), 2, "only 3- and 6 were played: {text}");
    assert!(plays[0].starts_with("South plays 3: sows 4 seeds, the last into the store"));
    assert!(plays[1].starts_with("South plays 6"));
    assert!(text.contains("North to move"), "{text}");
}

/// Regression (tester): a record saved with a UTF-8 byte-order mark (as Notepad saves it) did
/// not load ("move \u{feff}[Rules: ... is not a move").
#[test]
fn a_record_with_a_byte_order_mark_loads() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bom.txt");
    std::fs::write(
        &file,
        "\u{feff}[Start \"3,3,3,0,3,3,3,0 S\"]\n[South \"human\"]\n[North \"human\"]\n1. S 2\n",
    )
    .unwrap();
    let text = play(&["--load", file.to_str().unwrap()], "quit\n");
    assert!(text.contains("Loaded"), "{text}");
    assert!(text.contains("1 action played"), "{text}");
}

/// Regression (tester): a record loaded and saved back lost its other tags (`Event`, `Date`).
#[test]
fn save_keeps_the_record_s_other_tags() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("club.txt");
    std::fs::write(
        &file,
        "[Start \"3,3,3,0,3,3,3,0 S\"]\n[South \"human\"]\n[North \"human\"]\n\
         [Event \"club \\\"night\\\"\"]\n[Date \"2026-11-30\"]\n1. S 2\n",
    )
    .unwrap();
    let f = file.to_str().unwrap();
    play(&["--load", f], &format!("save {f}\nquit\n"));
    let saved = std::fs::read_to_string(&file).unwrap();
    assert!(
        saved.contains("[Event \"club \\\"night\\\"\"]\n[Date \"2026-11-30\"]\n"),
        "{saved}"
    );
    assert!(saved.contains("1. S 2"), "{saved}");
}

/// `--side` and `--level` mean nothing between two people: the game says so instead of
/// dropping them silently, and goes on between two people.
#[test]
fn side_and_level_against_a_person_are_said_to_have_no_effect() {
    for (extra, note) in [
        (&["--level", "hard"][..], Some("so --level has no effect.")),
        (
            &["--side", "north", "--level", "easy"],
            Some("so --side and --level have no effect."),
        ),
        (
            &["--side", "north", "--level", "easy", "--seed", "7"],
            Some("so --side, --level and --seed have no effect."),
        ),
        // The engine's other flags too (tester 24).
        (
            &["--move-nodes", "100", "--engine-info"],
            Some("so --move-nodes and --engine-info have no effect."),
        ),
        (&[], None),
    ] {
        let mut args = vec!["--opponent", "human", "--houses", "2", "--seeds", "1"];
        args.extend_from_slice(extra);
        let text = play(&args, "2\n1\n");
        match note {
            Some(note) => assert!(
                text.contains(&format!("Two people play (--opponent human), {note}")),
                "{extra:?}: {text}"
            ),
            None => assert!(!text.contains("no effect"), "{text}"),
        }
        // The game is between two people all the same.
        assert!(text.contains("South plays 1"), "{extra:?}: {text}");
    }
}

/// A file name with a control character is refused (it used to be saved under its escaped
/// spelling, `t\tz.txt` with a backslash); a backslash typed as such is kept.
#[test]
fn save_refuses_a_file_name_with_control_characters() {
    let dir = tempfile::tempdir().unwrap();
    let tab = dir.path().join("t\tz.txt");
    let esc = dir.path().join("e\x1bz.txt");
    let backslash = dir.path().join("b\\tz.txt");
    let text = play(
        &["--opponent", "human"],
        &format!(
            "3\nsave {}\nsave {}\nsave {}\nquit\n",
            tab.display(),
            esc.display(),
            backslash.display()
        ),
    );
    assert_eq!(
        text.matches("! a file name with control characters is refused: '")
            .count(),
        2,
        "{text}"
    );
    assert!(text.contains("t\\tz.txt'"), "shown escaped: {text}");
    assert!(!text.contains('\x1b'), "never echoed raw: {text}");
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["b\\tz.txt"], "only the name typed with a backslash");
    let saved = std::fs::read_to_string(&backslash).unwrap();
    assert!(saved.contains("3"), "{saved}");
}

/// A script that starts with a byte-order mark plays its first command (tester 17: it was
/// refused as "not a command").
#[test]
fn a_byte_order_mark_before_the_first_command_is_skipped() {
    let text = play(&["--opponent", "human"], "\u{feff}3\nquit\n");
    assert!(
        text.contains("South plays 3: sows 4 seeds, the last into the store: extra turn."),
        "{text}"
    );
    assert!(!text.contains("not a command"), "{text}");
}

/// The `engine: ...` lines of `--engine-info`, without their indent.
fn info_lines(text: &str) -> Vec<&str> {
    text.lines()
        .filter_map(|l| l.trim_start().strip_prefix("engine: "))
        .collect()
}

/// After the engine swaps (pie rule), its value is for the row it now holds (consistency
/// tester, 2 Dec 2026: "+2 for North" after taking South's row; its next line said South).
#[test]
fn engine_info_after_a_swap_names_the_row_the_engine_took() {
    let text = play(
        &[
            "--houses",
            "3",
            "--seeds",
            "3",
            "--pie",
            "--side",
            "south",
            "--level",
            "perfect",
            "--engine-info",
            "--no-egdb",
        ],
        "1\n2\nquit\n",
    );
    assert!(
        text.contains("North (engine, perfect) plays swap"),
        "{text}"
    );
    let lines = info_lines(&text);
    assert!(
        lines[0].contains("for South, proven; expects swap "),
        "{text}"
    );
    // The same side as the engine's next report, which is made from South's row.
    let side = |l: &str| {
        l.split(" for ")
            .nth(1)
            .and_then(|r| r.split(',').next())
            .map(String::from)
    };
    if lines.len() > 1 {
        assert_eq!(side(lines[0]), side(lines[1]), "{text}");
    }
}

#[test]
fn engine_info_reports_the_proven_value_of_the_position() {
    // The engine (South, perfect) opens Kalah(4,3): its first report is the value of the start,
    // proven, as `kalah solve` finds it.
    let text = play(
        &[
            "--houses",
            "4",
            "--seeds",
            "3",
            "--side",
            "north",
            "--level",
            "perfect",
            "--engine-info",
        ],
        "quit\n",
    );
    let out = kalah()
        .args(["solve", "--houses", "4", "--seeds", "3", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let solved: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let value = solved["value"].as_i64().expect("a value");
    let first = info_lines(&text)[0];
    assert!(
        first.starts_with(&format!("{value:+} for South, proven; expects ")),
        "{first} (solve: {value})"
    );
    // The line it expects starts with the action it played.
    let played = text
        .lines()
        .find_map(|l| l.strip_prefix("South (engine, perfect) plays "))
        .and_then(|r| r.split(':').next())
        .expect("the engine played");
    let expects = first.split("expects ").nth(1).unwrap();
    assert!(
        expects.starts_with(&format!("{played}-")) || expects.starts_with(&format!("{played} ")),
        "{first} after playing {played}"
    );
    // Without the flag, no such line.
    let plain = play(
        &["--houses", "4", "--seeds", "3", "--side", "north"],
        "quit\n",
    );
    assert!(info_lines(&plain).is_empty(), "{plain}");
}

#[test]
fn a_node_limit_makes_a_seeded_game_repeat() {
    let args = [
        "--level",
        "expert",
        "--move-nodes",
        "3000",
        "--seed",
        "1",
        "--engine-info",
        "--side",
        "north",
    ];
    let input = all_houses(6, 12);
    let first = play(&args, &input);
    let infos = info_lines(&first);
    assert!(infos.len() >= 5, "{first}");
    for info in &infos {
        // Nodes are counted, and the limit checked, every 1024 nodes.
        let nodes: u64 = info
            .rsplit_once(" (")
            .and_then(|(_, r)| r.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no node count in {info}"));
        assert!(nodes <= 3000 + 1024, "{info}");
    }
    // The same game again, times aside.
    let without_times = |t: &str| -> Vec<String> {
        t.lines()
            .map(|l| match l.rsplit_once(" nodes, ") {
                Some((head, _)) => head.to_string(),
                None => l.to_string(),
            })
            .collect()
    };
    assert_eq!(without_times(&first), without_times(&play(&args, &input)));
}

#[test]
fn move_nodes_refuses_zero_and_words() {
    for bad in ["0", "-5", "many"] {
        let out = kalah()
            .args(["play", "--move-nodes", bad])
            .write_stdin("quit\n")
            .output()
            .unwrap();
        assert!(!out.status.success(), "--move-nodes {bad}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("--move-nodes"), "{err}");
    }
}

#[test]
fn turn_errors_quote_the_turn_as_typed() {
    let text = play(
        &[
            "--houses", "3", "--seeds", "3", "--pie", "--side", "north", "--seed", "1",
        ],
        "1,swap\n1-\nquit\n",
    );
    assert!(
        text.contains("! '1,swap' goes on after action 1 (house 1), which ends the turn"),
        "{text}"
    );
    assert!(
        text.contains("! '1-' ends with '-', but action 1 (house 1) earns no extra turn"),
        "{text}"
    );
}

/// Regression (tester 20): bytes that are not UTF-8 were shown as U+FFFD (`'��' is not a
/// command`); they are now written `\xff`, and the line is refused as not being text.
#[test]
fn a_line_that_is_not_utf8_is_shown_with_escapes() {
    let out = kalah()
        .args(["play", "--opponent", "human"])
        .write_stdin(b"a\xff\xfeb\nsave \xc3x.txt\n3\nquit\n".to_vec())
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).expect("the output is UTF-8");
    assert!(!text.contains('\u{fffd}'), "{text}");
    assert!(
        text.contains("! 'a\\xff\\xfeb' is not UTF-8 text"),
        "{text}"
    );
    // A file name that is not text saves nothing, and says so (tester 22: the hint was to type
    // a house number).
    assert!(
        text.contains(
            "! 'save \\xc3x.txt' is not UTF-8 text (\\xNN: a byte that is not part of a \
             character): save takes a file name of UTF-8 text; the game goes on unsaved\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("! 'a\\xff\\xfeb' is not UTF-8 text (\\xNN: a byte that is not part of a character): type a house number, or help\n"),
        "{text}"
    );
    assert!(!text.contains("Saved"), "{text}");
    assert!(text.contains("South plays 3: sows 4 seeds"), "{text}");
}

/// `--save FILE`: a script that pipes its moves in gets the finished game in FILE (the lines
/// after the end are not read, so a `save` command could not do it); the record replays to the
/// final score printed.
#[test]
fn save_flag_keeps_the_finished_game_of_a_piped_session() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("game.txt");
    let f = file.to_str().unwrap();
    let args = [
        "--houses", "4", "--seeds", "2", "--level", "beginner", "--seed", "3", "--save", f,
    ];
    let text = play(&args, &all_houses(4, 12));
    assert!(
        text.contains(&format!(
            "The game is kept in '{f}', written after every action and undo."
        )),
        "{text}"
    );
    let (s, n, _) = final_score(&text);
    let record = kalah_core::GameRecord::parse(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(record.south, "human");
    assert_eq!(record.north, "kalah engine beginner");
    let end = record.position();
    assert!(end.is_over(), "{end}");
    let rules = record.rules;
    assert_eq!(
        end.score(&rules).map(|[a, b]| [u32::from(a), u32::from(b)]),
        Some([s, n])
    );
    // Nothing but the record is in the directory: each write went through a temporary file
    // that was renamed into place.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    // The same file again is refused (it holds a game), and left as it was.
    let before = std::fs::read(&file).unwrap();
    let mut a = vec!["play"];
    a.extend_from_slice(&args);
    let out = kalah().args(&a).write_stdin("1\n").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let shell = f.to_string();
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "kalah: error: --save: '{f}' exists, and --save does not replace a file: choose \
             another name, or, if it holds a game, go on with it: kalah play --load {shell} --save \
             {shell}\n"
        )
    );
    assert_eq!(std::fs::read(&file).unwrap(), before);
}

/// `--load FILE --save FILE` goes on with a game and keeps it where it was; an undo is kept
/// too; and the file holds the game at every step, not only at the end.
#[test]
fn save_flag_with_load_goes_on_in_the_same_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("g.txt");
    let f = file.to_str().unwrap();
    let moves = |f: &str| {
        let text = std::fs::read_to_string(f).unwrap();
        kalah_core::GameRecord::parse(&text)
            .unwrap()
            .moves()
            .iter()
            .map(|m| m.to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    // Two people; the session ends by the end of input, unfinished: the file has both actions
    // (no `save` typed).
    play(&["--opponent", "human", "--save", f], "3\n1\n");
    assert_eq!(moves(f), "3,1");
    play(&["--load", f, "--save", f], "6\n");
    assert_eq!(moves(f), "3,1,6");
    play(&["--load", f, "--save", f], "undo\nquit\n");
    assert_eq!(moves(f), "3,1");
    // Only the one file: no temporary file is left.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);

    // The loaded file is left as it is until the game changes (tester 24: its comments were
    // lost at once), and is then written in the form it was read in: JSON stays JSON.
    let hand = dir.path().join("hand.txt");
    let h = hand.to_str().unwrap();
    let text = "# club night\n[Event \"x\"] # note\n\n1. S 3-6\n";
    std::fs::write(&hand, text).unwrap();
    play(&["--load", h, "--save", h, "--opponent", "human"], "quit\n");
    assert_eq!(std::fs::read_to_string(&hand).unwrap(), text);
    let json = dir.path().join("g.json");
    let j = json.to_str().unwrap();
    std::fs::write(
        &json,
        r#"{"rules": {}, "start": "4,4,4,4,4,4,0,4,4,4,4,4,4,0 S", "turns": ["3-6"]}"#,
    )
    .unwrap();
    play(&["--load", j, "--save", j, "--opponent", "human"], "1\n");
    let back: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(back["turns"], serde_json::json!(["3-6", "1"]));
    // The same file by another name (a hard link, another spelling) is the --load file too.
    let link = dir.path().join("link.json");
    std::fs::hard_link(&json, &link).unwrap();
    let dotted = format!("{}/./g.json", dir.path().display());
    play(
        &[
            "--load",
            j,
            "--save",
            link.to_str().unwrap(),
            "--opponent",
            "human",
        ],
        "quit\n",
    );
    play(
        &["--load", j, "--save", &dotted, "--opponent", "human"],
        "quit\n",
    );
}

/// `--save` names a file that can be written, or the game does not start: a clear message and
/// exit code 1 before the first prompt.
#[test]
fn save_flag_refuses_what_it_cannot_write() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let missing = format!("{d}/no/such/dir/g.txt");
    let link = dir.path().join("dangling");
    std::os::unix::fs::symlink(dir.path().join("nowhere"), &link).unwrap();
    // A chain of links, the last to nothing: that one is named (tester 59: the first link's
    // target, which exists, was said not to).
    let chain = dir.path().join("link1");
    std::os::unix::fs::symlink("link2", &chain).unwrap();
    std::os::unix::fs::symlink("link3", dir.path().join("link2")).unwrap();
    std::os::unix::fs::symlink("new.txt", dir.path().join("link3")).unwrap();
    let cases = [
        (d.to_string(), format!("--save: '{d}' is a directory")),
        // A name that cannot be typed back, as `save` refuses one (tester 25).
        (
            format!("{d}/red\x1b[31m.txt"),
            "--save: a file name with control characters is refused:".to_string(),
        ),
        (
            "/dev/null".to_string(),
            "--save: '/dev/null' is not a regular file".to_string(),
        ),
        // The output is a pipe here (tester 57: a link to something that "does not exist").
        (
            "/dev/stdout".to_string(),
            "--save: '/dev/stdout' is not a regular file".to_string(),
        ),
        (
            missing.clone(),
            format!("--save: cannot keep the game in '{missing}'"),
        ),
        (
            link.to_str().unwrap().to_string(),
            "which does not exist".to_string(),
        ),
        (
            chain.to_str().unwrap().to_string(),
            format!(
                "'{}' is a symbolic link (through 'link2', 'link3') to 'new.txt', which does not exist",
                chain.display()
            ),
        ),
    ];
    for (file, want) in cases {
        let out = kalah()
            .args(["play", "--save", &file])
            .write_stdin("1\n")
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{file}: {err}");
        assert!(err.contains(&want), "{file}: {err}");
        assert!(out.stdout.is_empty(), "{file}: the game started");
    }
    assert!(std::path::Path::new("/dev/null").exists());
}

/// `--move-nodes` alone lifts the engine's time limit, not the hint's: `hint` still stops after
/// its 2 s (Kalah(6,6) cannot be proven in that time, so it uses all of it). Before the fix it
/// never ended (tester 23).
#[test]
fn hint_keeps_its_time_limit_under_move_nodes() {
    let started = std::time::Instant::now();
    let out = kalah()
        .args([
            "play",
            "--seeds",
            "6",
            "--move-nodes",
            "1000",
            "--threads",
            "1",
            "--no-egdb",
        ])
        .write_stdin("hint\nquit\n")
        .timeout(std::time::Duration::from_secs(30))
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("Hint for South"), "{text}");
    assert!(started.elapsed().as_secs() < 30, "{text}");
}

/// A replaced record keeps its owner and group where the user may set them (root may; tester
/// 24: `--load F --save F` as root gave another user's game to root). Skipped unless the test
/// may give a file away (root).
#[test]
fn a_saved_record_keeps_its_owner() {
    use std::os::unix::fs::MetadataExt;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("theirs.txt");
    std::fs::write(&file, "1. S 3-6\n").unwrap();
    if std::os::unix::fs::chown(&file, Some(65534), Some(65534)).is_err() {
        eprintln!("skipped: this user may not give a file away");
        return;
    }
    let f = file.to_str().unwrap();
    play(&["--load", f, "--save", f, "--opponent", "human"], "1\n");
    play(
        &["--load", f, "--opponent", "human"],
        &format!("2\nsave {f}\n"),
    );
    let m = std::fs::metadata(&file).unwrap();
    assert_eq!((m.uid(), m.gid()), (65534, 65534));
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("1. S 3-6\n2. N 1\n3. S 2"), "{text}");
}

/// A two-player `kalah play ARGS --save F` running with its stdin open, once its first move
/// (3) is in `f`: the child (stdout and stderr piped) and its stdin.
fn game_saved_after_3(
    args: &[&str],
    f: &std::path::Path,
) -> (std::process::Child, std::process::ChildStdin) {
    use std::io::Write;
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("kalah"))
        .args(["play", "--opponent", "human"])
        .args(args)
        .arg("--save")
        .arg(f)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"3\n").unwrap();
    stdin.flush().unwrap();
    let started = Instant::now();
    while !std::fs::read_to_string(f)
        .unwrap_or_default()
        .contains("1. S 3")
    {
        if started.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("3 never saved");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    (child, stdin)
}

/// A `--save` file deleted during the session is written anew at the next action, and the
/// session says so (tester 60: it was quietly made again); the game goes on.
#[test]
fn a_save_file_deleted_during_the_game_is_written_anew_and_said() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("game.txt");
    let (child, mut stdin) = game_saved_after_3(&[], &f);
    std::fs::remove_file(&f).unwrap();
    stdin.write_all(b"1\n2\n").unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let said = format!(
        "'{}' was gone (deleted or moved away since this session last wrote it): written anew, \
         the game is kept in it.",
        f.display()
    );
    assert_eq!(stdout.matches(&said).count(), 1, "{stdout}");
    let text = std::fs::read_to_string(&f).unwrap();
    assert!(text.contains("1. S 3-1\n2. N 2"), "{text}");
}

/// A `--save` file that another program changed during the session is not replaced: the
/// session says so and ends with exit code 1, and the other program's content stays (tester
/// 40: two sessions on one `--load F --save F` each overwrote the other's moves, both exit 0).
#[test]
fn a_save_file_changed_by_another_program_is_not_replaced() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("game.txt");
    play(
        &["--opponent", "human", "--save", f.to_str().unwrap()],
        "quit\n",
    );
    let (child, mut stdin) = game_saved_after_3(&["--load", f.to_str().unwrap()], &f);
    // Another session's game, written over it meanwhile.
    let other = "[Result \"*\"]\n\n1. S 6\n";
    std::fs::write(&f, other).unwrap();
    stdin.write_all(b"1\n").unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("changed by another program"), "{stderr}");
    // What the file holds is named as it is (was: "an earlier state of the game", tester 57).
    assert!(
        stderr.contains("the file holds what another program wrote in it, left as it is"),
        "{stderr}"
    );
    assert!(!stderr.contains("earlier state"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&f).unwrap(), other);
}

/// `save /dev/stdout` with the output a pipe: refused as a pipe, not as a link to something
/// that "does not exist" (/dev/stdout links to /proc/self/fd/1, which links to "pipe:[N]",
/// tester 57). (`--save /dev/stdout`: with the other refused files of `--save`.)
#[test]
fn saving_to_a_pipe_through_dev_stdout_is_refused_as_a_pipe() {
    if !std::path::Path::new("/dev/stdout").exists() {
        return;
    }
    // `play` captures the output through a pipe.
    let text = play(&["--opponent", "human"], "3\nsave /dev/stdout\nquit\n");
    assert!(
        text.contains("'/dev/stdout' is not a regular file (a device, a pipe or a socket)"),
        "{text}"
    );
    assert!(!text.contains("does not exist"), "{text}");
    // With the output a file, `--save /dev/stdout` is that file: refused as the session's own
    // output (tester 59: accepted, then its transcript was taken for another program's change).
    let dir = tempfile::tempdir().unwrap();
    let out = std::fs::File::create(dir.path().join("out.txt")).unwrap();
    let run = std::process::Command::new(assert_cmd::cargo::cargo_bin("kalah"))
        .args(["play", "--save", "/dev/stdout"])
        .stdin(std::process::Stdio::null())
        .stdout(out)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{err}");
    assert!(
        err.contains("'/dev/stdout' is this session's own output"),
        "{err}"
    );
}

/// Regression (tester 59): `--save`'s file replaced by a FIFO during the game blocked the
/// session for good (reading it back to see whether another program changed it), deaf to
/// Ctrl-C and `timeout`. It is refused as not a regular file; the FIFO stays.
#[cfg(unix)]
#[test]
fn a_save_file_replaced_by_a_fifo_is_refused_without_blocking() {
    use std::io::Write;
    use std::os::unix::fs::FileTypeExt;
    use std::process::Command;
    use std::time::{Duration, Instant};
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("game.txt");
    let (mut child, mut stdin) = game_saved_after_3(&[], &f);
    std::fs::remove_file(&f).unwrap();
    let made = Command::new("mkfifo")
        .arg(&f)
        .status()
        .is_ok_and(|s| s.success());
    if !made {
        let _ = child.kill();
        let _ = child.wait();
        return;
    }
    stdin.write_all(b"1\n").unwrap();
    drop(stdin);
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("kalah play blocked on the FIFO");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("not a regular file"), "{stderr}");
    assert!(std::fs::symlink_metadata(&f).unwrap().file_type().is_fifo());
}

/// A file name with two spaces in a row is named as it is in error messages (tester 64: the
/// error line squeezed runs of spaces, so the advice `--load 'x y.txt'` named another file).
#[test]
fn a_file_name_with_a_run_of_spaces_is_named_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let name = "x  y.txt";
    std::fs::write(dir.path().join(name), "hi").unwrap();
    let out = kalah()
        .current_dir(dir.path())
        .args(["play", "--save", name])
        .write_stdin("quit\n")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.ends_with(&format!("kalah play --load '{name}' --save '{name}'\n")),
        "{err}"
    );
    assert_eq!(std::fs::read(dir.path().join(name)).unwrap(), b"hi");
}

/// `--load` of a record whose Start has no phase tag under the pie rule or the Manchester rule:
/// a note that the rule has no effect, with the tag to add; none for a Start whose game is
/// over under the rules (tester 75: its suggested fix was refused), nor for a tagged Start.
#[test]
fn loading_an_untagged_start_under_an_opening_rule_gets_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let stderr_of = |rules: &str, start: &str| {
        let file = dir.path().join("g.txt");
        std::fs::write(&file, format!("[Rules \"{rules}\"]\n[Start \"{start}\"]\n")).unwrap();
        let out = kalah()
            .args([
                "play",
                "--opponent",
                "human",
                "--load",
                file.to_str().unwrap(),
            ])
            .write_stdin("quit\n")
            .output()
            .unwrap();
        assert!(out.status.success(), "{rules} {start}");
        String::from_utf8(out.stderr).unwrap()
    };
    let err = stderr_of("pie=on", "3,3,3,0,3,3,3,0 S");
    assert!(
        err.contains("has no phase tag")
            && err.contains("its rule pie=on has no effect")
            && err.contains("'3,3,3,0,3,3,3,0 S opening'"),
        "{err}"
    );
    let err = stderr_of("first-move-extra-turn=off", "3,3,3,0,3,3,3,0 S");
    assert!(
        err.contains("its rule first-move-extra-turn=off has no effect"),
        "{err}"
    );
    for (rules, start) in [
        ("pie=on first-move-extra-turn=off", "0,0,0,0,3,3,3,0 S"),
        ("pie=on", "3,3,3,0,0,0,0,0 S"),
        ("pie=on", "3,3,3,0,3,3,3,0 S opening"),
        ("pie=off", "3,3,3,0,3,3,3,0 S"),
    ] {
        assert_eq!(stderr_of(rules, start), "", "{rules} {start}");
    }
}

/// `save F` over another user's file in a sticky directory (as /tmp) says why it may not, as
/// `--save F` does (tester 98: the system's "Operation not permitted" alone); the file is not
/// touched. Runs only as root, which can make the other user's file and then play as `nobody`
/// (with `setpriv`); skipped otherwise.
#[test]
fn save_in_a_sticky_directory_says_why() {
    use std::os::unix::fs::PermissionsExt;
    use std::process::Command;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("roots.txt");
    std::fs::write(&file, "1. S 3-6\n").unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o666)).unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o1777)).unwrap();
    let as_nobody = |input: &str| {
        use std::io::Write;
        let mut child = Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(assert_cmd::cargo::cargo_bin("kalah"))
            .args(["play", "--opponent", "human", "--load"])
            .arg(&file)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .ok()?;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .ok()?;
        let out = child.wait_with_output().ok()?;
        Some((
            out.status,
            String::from_utf8_lossy(&out.stdout).into_owned()
                + &String::from_utf8_lossy(&out.stderr),
        ))
    };
    // Not root, no setpriv, or `nobody` cannot reach the binary or the file: nothing to check.
    let runs = std::fs::metadata(&file).is_ok_and(|m| std::os::unix::fs::MetadataExt::uid(&m) == 0)
        && as_nobody("quit\n")
            .is_some_and(|(status, text)| status.success() && text.contains("Loaded"));
    if !runs {
        eprintln!("skipped: needs root, setpriv, and a kalah binary `nobody` may run");
        return;
    }
    let (status, text) = as_nobody(&format!("2\nsave {}\nquit\n", file.display())).unwrap();
    assert!(status.success(), "{text}");
    assert!(
        text.contains("it belongs to another user, in a directory where only a file's owner may replace it (sticky, as /tmp)"),
        "{text}"
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "1. S 3-6\n");
}

/// The board of 12 houses, the introduction, the help and the hint's heading fit a terminal of
/// 80 columns (the board's legend was 82 characters, the help 99, the hint's heading 94).
#[test]
fn the_fixed_text_fits_eighty_columns() {
    for args in [
        &["--houses", "12", "--seeds", "6", "--opponent", "human"][..],
        &["--houses", "12", "--seeds", "6"],
    ] {
        let mut all = args.to_vec();
        all.extend(["--move-time-ms", "100"]);
        let text = play(&all, "help\nhint\nquit\n");
        assert!(
            text.contains("Commands:") && text.contains("Hint for South"),
            "{text}"
        );
        for line in text.lines() {
            assert!(
                line.chars().count() <= 80,
                "{} characters: {line}",
                line.chars().count()
            );
        }
    }
}

/// Regression (tester 110): `save FILE` over the record of a game against `hard` whose moves
/// this human game began with replaced it (and named its own players): the moves agreed, and
/// only hand-written names were kept. Players as `save` writes them now tell the games apart.
#[test]
fn save_keeps_a_record_of_the_same_moves_by_other_players() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("pre.txt");
    let text = "[South \"human\"]\n[North \"kalah engine hard\"]\n1. S 3-1\n";
    std::fs::write(&file, text).unwrap();
    let path = file.display().to_string();
    let stdout = play(
        &["--opponent", "human"],
        &format!("3-1\n5\nsave {path}\nquit\n"),
    );
    assert!(
        stdout.contains(&format!(
            "'{path}' holds a game of other players (North \"kalah engine hard\" there, \
             \"human\" here; 2 actions), so it is not replaced"
        )),
        "{stdout}"
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
    // The same players: an earlier save of this game, replaced.
    let stdout = play(&["--level", "hard"], &format!("3-1\nsave {path}\nquit\n"));
    assert!(stdout.contains("Saved the game to"), "{stdout}");
}

/// Regression (tester 110): a record without a North tag was said to name North `""`.
#[test]
fn a_player_without_a_tag_is_said_unnamed() {
    let dir = tempfile::tempdir().unwrap();
    let path = record_file(&dir, "south.txt", "[South \"human\"]\n1. S 1\n");
    let text = play(&["--load", &path], "quit\n");
    assert!(
        text.contains("The record's players (South \"human\", North unnamed) are not a pair"),
        "{text}"
    );
}

/// `review` values each turn played so far against the best one (see `kalah review`): the
/// Kalah(2,1) game checked by hand in cli_review.rs. South's 1 (-2) where 2-1 wins by 2.
#[test]
fn review_values_the_turns_played_so_far() {
    let text = play(
        &["--layout", "1,1", "--opponent", "human", "--no-egdb"],
        "review\n1\n1\nreview\nquit\n",
    );
    assert!(
        text.contains("No turn has been played yet: there is nothing to review."),
        "{text}"
    );
    let at = text
        .find("game: South (human) against North (human), 2 turns")
        .unwrap_or_else(|| panic!("{text}"));
    let rows: Vec<Vec<&str>> = text[at..]
        .lines()
        .filter(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()))
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(
        rows,
        vec![
            vec!["1", "S", "1", "-2", "2-1", "(+2)", "4", "win", "->", "loss"],
            vec!["2", "N", "1", "+2", "="],
        ],
        "{text}"
    );
    assert!(
        text.contains("South (human): 1 turn, 1 mistake, 4 seeds lost"),
        "{text}"
    );
    // The game goes on after it.
    assert!(text.trim_end().ends_with("Bye."), "{text}");
}
