//! A closed standard output (`kalah ... | head -1` once `head` has gone): every command says so
//! in the same line on stderr and exits with code 1 (tester: `perft --divide` and `solve
//! --batch` exited 1 with nothing on stderr, `match` said "the output was closed (broken
//! pipe)"). One test in its own file: no other test of this process starts a child that could
//! inherit the read end of the pipe while it should be closed.

use std::process::{Command, Stdio};

/// Runs `kalah ARGS` with its stdout a pipe whose read end is closed before the child starts,
/// and returns its exit code and stderr. (Closing the read end after the spawn raced the child:
/// a child that wrote its output first found the pipe open and exited 0.)
fn with_stdout_closed(args: &[&str]) -> (Option<i32>, String) {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let child = Command::new(assert_cmd::cargo::cargo_bin("kalah"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn every_command_says_that_its_output_was_closed() {
    let dir = tempfile::tempdir().unwrap();
    let batch = dir.path().join("batch.txt");
    std::fs::write(&batch, "2,2,2,0,2,2,2,0 S\n1,1,1,0,1,1,1,0 S\n").unwrap();
    let batch = batch.to_str().unwrap();
    let small = ["--houses", "3", "--seeds", "2", "--no-egdb"];
    let cases: Vec<Vec<&str>> = vec![
        vec!["perft", "6", "--divide"],
        vec!["perft", "3"],
        vec!["solve", "--batch", batch, "--houses", "3", "--no-egdb"],
        vec!["solve", "--batch", batch, "--json", "--no-egdb"],
        [&["solve"][..], &small].concat(),
        [&["analyze", "--turns"][..], &small].concat(),
        [&["analyze"][..], &small].concat(),
        vec!["show", "--houses", "3", "--seeds", "2"],
        vec!["egdb", "info", "--egdb-dir", dir.path().to_str().unwrap()],
        vec!["--help"],
        vec!["perft", "--help"],
        vec!["--version"],
    ];
    for args in cases {
        let (code, err) = with_stdout_closed(&args);
        assert_eq!(code, Some(1), "{args:?}: {err}");
        assert_eq!(
            err, "kalah: the output was closed (broken pipe)\n",
            "{args:?}"
        );
    }
    // A match and a game add what became of their work, in the same line.
    let (code, err) = with_stdout_closed(&[
        "play",
        "--houses",
        "3",
        "--seeds",
        "2",
        "--no-egdb",
        "--opponent",
        "human",
    ]);
    assert_eq!(code, Some(1), "{err}");
    assert_eq!(
        err,
        "kalah: the output was closed (broken pipe): the game was not saved\n"
    );
}
