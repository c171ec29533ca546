//! `--egdb-dir` that is not a directory, `egdb info` on damaged or misplaced layers, the layer
//! lines of a build whose stderr is not a terminal, the help page named by a usage error.

use std::path::Path;
use std::process::Command;

use assert_cmd::prelude::*;
use predicates::prelude::*;

fn kalah() -> Command {
    Command::cargo_bin("kalah").unwrap()
}

fn build(dir: &Path, max_seeds: &str, extra: &[&str]) -> std::process::Output {
    let out = kalah()
        .args(["egdb", "build", "--houses", "3", "--max-seeds", max_seeds])
        .arg("--egdb-dir")
        .arg(dir)
        .args(extra)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    out
}

/// One line on stderr containing `want`, exit code `code`, nothing on stdout.
fn one_line_error(cmd: &mut Command, code: i32, want: &str) {
    let out = cmd.output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains(want), "{err}");
    assert!(out.stdout.is_empty(), "{:?}", out.stdout);
}

#[test]
fn an_egdb_dir_that_is_a_file_is_named_as_such() {
    // A file given as --egdb-dir was reported as "no such directory" (solve, serve, play), and
    // `egdb build` printed its plan before failing with "Not a directory (os error 20)".
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, b"x").unwrap();
    let f = file.to_str().unwrap();
    for args in [
        vec!["solve", "--houses", "3", "--seeds", "2", "--egdb-dir", f],
        vec!["analyze", "--houses", "3", "--seeds", "2", "--egdb-dir", f],
        vec!["serve", "--port", "0", "--egdb-dir", f],
        vec![
            "egdb",
            "build",
            "--houses",
            "3",
            "--max-seeds",
            "3",
            "--egdb-dir",
            f,
        ],
        vec!["egdb", "info", "--egdb-dir", f],
        vec!["egdb", "verify", "--houses", "3", "--egdb-dir", f],
        vec!["egdb", "probe", "1,1,0,1,1,0,1,0 S", "--egdb-dir", f],
    ] {
        one_line_error(kalah().args(&args), 1, "not a directory");
    }
    // probe and verify on a missing directory: the same message as solve and info, not "no
    // databases ... (build them ...)".
    let missing = dir.path().join("missing");
    let m = missing.to_str().unwrap();
    for args in [
        vec!["egdb", "verify", "--houses", "3", "--egdb-dir", m],
        vec!["egdb", "probe", "1,1,0,1,1,0,1,0 S", "--egdb-dir", m],
    ] {
        one_line_error(kalah().args(&args), 1, "no such directory");
    }
    // build creates a missing root.
    build(&missing, "2", &["--quiet"]);
}

#[test]
fn no_egdb_conflicts_with_egdb_dir_as_in_serve_and_play() {
    for cmd in ["solve", "analyze"] {
        one_line_error(
            kalah().args([
                cmd,
                "--houses",
                "3",
                "--no-egdb",
                "--egdb-dir",
                "/nonexistent",
            ]),
            2,
            "cannot be used with",
        );
    }
}

#[test]
fn info_names_truncated_and_misplaced_layers() {
    // `egdb info` listed a set with a truncated layer (header intact) or with another rule set's
    // files as complete, while solve and probe refused it.
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), "6", &["--quiet", "--capture", "empty"]);
    let set = dir.path().join("m3-empty-row-empty-owner");
    let layer = set.join("k005.egdb");
    let bytes = std::fs::read(&layer).unwrap();
    std::fs::write(&layer, &bytes[..bytes.len() - 10]).unwrap();
    kalah()
        .args(["egdb", "info", "--egdb-dir"])
        .arg(dir.path())
        .assert()
        .code(1)
        .stdout(
            predicate::str::contains("k005.egdb: truncated")
                .and(predicate::str::contains("layers [0, 1, 2, 3, 4, 6]")),
        );
    std::fs::write(&layer, &bytes).unwrap();
    // The set moved to the directory of the standard-capture rules.
    let other = dir.path().join("m3-standard-row-empty-owner");
    std::fs::rename(&set, &other).unwrap();
    kalah()
        .args(["egdb", "info", "--egdb-dir"])
        .arg(dir.path())
        .assert()
        .code(1)
        .stdout(
            predicate::str::contains("k000.egdb: holds layer 0 of m3-empty-row-empty-owner").and(
                predicate::str::contains("m3-standard-row-empty-owner: no usable layers"),
            ),
        );
}

#[test]
fn layer_lines_reach_stdout_when_stderr_is_not_a_terminal() {
    // Without --quiet the "layer k: already built" lines went to a progress bar that was never
    // drawn (stderr not a terminal) and were lost, while --quiet printed them.
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), "4", &["--quiet"]);
    let out = build(dir.path(), "5", &[]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("layer 4: already built"), "{text}");
    assert!(text.contains("kept 5 layer(s)"), "{text}");
}

#[test]
fn usage_errors_point_to_the_nested_subcommands_help() {
    one_line_error(
        kalah().args(["egdb", "build", "--houses", "3"]),
        2,
        "(see 'kalah egdb build --help')",
    );
    one_line_error(
        kalah().args(["egdb", "probe", "1,1,0,1,1,0,1,0 S", "--bogus"]),
        2,
        "(see 'kalah egdb probe --help')",
    );
    one_line_error(
        kalah().args(["solve", "--bogus"]),
        2,
        "(see 'kalah solve --help')",
    );
}

#[test]
fn a_sets_own_directory_or_other_rules_are_pointed_out() {
    // `--egdb-dir ROOT/m3-...` (the set's directory, not the root) read as "no layers" in
    // `egdb info`, as "build them" in `egdb probe`, and solve searched without them in silence.
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), "4", &["--quiet", "--capture", "empty"]);
    let set = dir.path().join("m3-empty-row-empty-owner");
    kalah()
        .args(["egdb", "info", "--egdb-dir"])
        .arg(&set)
        .assert()
        .success()
        .stdout(predicate::str::contains("this is one set's directory"));
    one_line_error(
        kalah()
            .args(["egdb", "probe", "1,1,0,1,1,0,1,0 S", "--capture", "empty"])
            .arg("--egdb-dir")
            .arg(&set),
        1,
        "give its parent",
    );
    // solve: a note on stderr, the answer on stdout as before.
    for (root, capture) in [(set.as_path(), "empty"), (dir.path(), "standard")] {
        let out = kalah()
            .args([
                "solve",
                "--houses",
                "3",
                "--seeds",
                "2",
                "--capture",
                capture,
            ])
            .arg("--egdb-dir")
            .arg(root)
            .output()
            .unwrap();
        assert!(out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        let hint = if root == set.as_path() {
            "is one set's directory (k000.egdb, ...), give its parent"
        } else {
            "kalah: note: no endgame databases"
        };
        assert!(
            err.contains(hint) && err.contains("searching without"),
            "{err}"
        );
        assert!(String::from_utf8_lossy(&out.stdout).contains("value:    +4"));
    }
    // The matching set: no note.
    kalah()
        .args([
            "solve",
            "--houses",
            "3",
            "--seeds",
            "2",
            "--capture",
            "empty",
        ])
        .arg("--egdb-dir")
        .arg(dir.path())
        .assert()
        .success()
        .stderr(predicate::str::is_empty());
}

#[test]
fn a_build_bigger_than_memory_is_refused_before_it_starts() {
    // `egdb build --houses 12 --max-seeds 20` (1.76 TB, every layer held in memory) started
    // building, to end in swapping or the OOM killer hours later.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    one_line_error(
        kalah()
            .args(["egdb", "build", "--houses", "12", "--max-seeds", "20"])
            .arg("--egdb-dir")
            .arg(&root),
        1,
        "1.76 TB of memory",
    );
    assert!(!root.exists(), "nothing written");
}

#[test]
fn layers_past_a_missing_one_are_pointed_out() {
    // With k002.egdb gone, solve used layers 0..=1 without a word (a truncated layer is an error).
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), "4", &["--quiet"]);
    let set = dir.path().join("m3-standard-row-empty-owner");
    std::fs::remove_file(set.join("k002.egdb")).unwrap();
    let out = kalah()
        .args(["solve", "--houses", "3", "--seeds", "2", "--egdb-dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        err.contains("no layer k002.egdb but has k004.egdb")
            && err.contains("only layers 0..=1 are used"),
        "{err}"
    );
    // The answer is still the value, as without the databases.
    let plain = kalah()
        .args(["solve", "--houses", "3", "--seeds", "2", "--no-egdb"])
        .output()
        .unwrap();
    let value = |o: &[u8]| {
        String::from_utf8_lossy(o)
            .lines()
            .find(|l| l.starts_with("value:"))
            .map(str::to_string)
    };
    assert_eq!(value(&out.stdout), value(&plain.stdout));
    assert!(value(&plain.stdout).is_some());
}
