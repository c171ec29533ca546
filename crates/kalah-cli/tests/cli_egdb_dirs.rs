//! `--egdb-dir` that is not a directory, `egdb info` on damaged or misplaced layers, a missing
//! layer in `egdb info` and `egdb verify`, damaged databases in the default directory, the layer
//! lines of a build whose stderr is not a terminal, the help page named by a usage error.

use std::path::Path;
use std::process::Command;

use assert_cmd::prelude::*;
use predicates::prelude::*;

mod common;

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

/// A standard-capture set of Kalah(3,·) to 6 seeds, built in a new directory, and the path of
/// its layer 4.
fn built_with_layer_4() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), "6", &["--quiet"]);
    let layer = dir
        .path()
        .join("m3-standard-row-empty-owner")
        .join("k004.egdb");
    (dir, layer)
}

/// `egdb probe` and `solve` of a position of 4 seeds on Kalah(3,·) with the databases in `dir`:
/// each fails with one line on stderr containing `want`; their stderr.
fn probe_and_solve_fail_with(dir: &Path, want: &str) -> Vec<String> {
    [
        vec!["egdb", "probe", "1,1,0,1,1,0,1,0 S"],
        vec!["solve", "1,1,0,1,1,0,1,0 S"],
    ]
    .iter()
    .map(|args| {
        let mut cmd = kalah();
        cmd.args(args).arg("--egdb-dir").arg(dir);
        one_line_error(&mut cmd, 1, want);
        String::from_utf8_lossy(&cmd.output().unwrap().stderr).into_owned()
    })
    .collect()
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
                .and(predicate::str::contains(": layers 0..=4 and 6, "))
                .and(predicate::str::contains(
                    "layer 5 is a bad file (listed above): the set cannot be opened",
                )),
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

/// A file named as a set's directory is listed as a bad set beside the healthy sets, and the
/// listing fails (tester 67: it was skipped without a word, while `solve` refused it).
#[test]
fn info_names_a_file_in_the_place_of_a_set_directory() {
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), "6", &["--quiet", "--capture", "empty"]);
    let file = dir.path().join("m5-standard-row-empty-owner");
    std::fs::write(&file, "notes").unwrap();
    let out = kalah()
        .args(["egdb", "info", "--egdb-dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(&format!(
            "  bad set: {}: not a directory (a set's layers are in one): move it away or delete it",
            file.display()
        )),
        "{stdout}"
    );
    assert!(
        stdout.contains("m3-empty-row-empty-owner: layers 0..=6, "),
        "{stdout}"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        err.trim_end(),
        format!(
            "kalah: error: 1 bad set directory in {}",
            dir.path().display()
        )
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
    // `egdb info` printed this and exited 0, while probe failed: now both fail.
    one_line_error(
        kalah().args(["egdb", "info"]).arg("--egdb-dir").arg(&set),
        1,
        &format!(
            "this is one set's directory (k000.egdb, ...); give its parent, {}",
            dir.path().display()
        ),
    );
    one_line_error(
        kalah()
            .args(["egdb", "probe", "1,1,0,1,1,0,1,0 S", "--capture", "empty"])
            .arg("--egdb-dir")
            .arg(&set),
        1,
        "give its parent",
    );
    // Given as `.` from inside the set, or by its name alone from the root, the parent is
    // named all the same (tester 101: "give its parent," and nothing after it).
    let root = std::fs::canonicalize(dir.path()).unwrap();
    for (cwd, given) in [
        (&set, "."),
        (&dir.path().to_path_buf(), "m3-empty-row-empty-owner"),
    ] {
        one_line_error(
            kalah()
                .current_dir(cwd)
                .args(["egdb", "info", "--egdb-dir", given]),
            1,
            &format!(
                "--egdb-dir {given}: this is one set's directory (k000.egdb, ...); give its parent, {}",
                root.display()
            ),
        );
    }
    // Every command that searches refuses it too, `serve` before it listens (tester 107: it
    // served without the databases, and solve searched without them after a note).
    let parent = format!(
        "--egdb-dir {}: this is one set's directory (k000.egdb, ...); give its parent, {}",
        set.display(),
        dir.path().display()
    );
    // (The board and rules of the set, for the commands that take them.)
    let board = ["--houses", "3", "--seeds", "2", "--capture", "empty"];
    for args in [
        [&["solve"][..], &board].concat(),
        [&["analyze"][..], &board].concat(),
        [&["play"][..], &board].concat(),
        vec![
            "solve",
            "--batch",
            "-",
            "--houses",
            "3",
            "--capture",
            "empty",
        ],
        vec![
            "match", "perfect", "perfect", "--games", "2", "--houses", "3",
        ],
        vec!["serve", "--port", "0"],
    ] {
        one_line_error(
            kalah()
                .args(&args)
                .arg("--egdb-dir")
                .arg(&set)
                .stdin(std::process::Stdio::null()),
            1,
            &parent,
        );
    }
    // Layer files copied straight into a directory of another name: where they belong.
    let flat = dir.path().join("flat");
    std::fs::create_dir(&flat).unwrap();
    std::fs::copy(set.join("k000.egdb"), flat.join("k000.egdb")).unwrap();
    for args in [
        vec!["solve", "--houses", "3", "--seeds", "2"],
        vec!["serve", "--port", "0"],
    ] {
        one_line_error(
            kalah().args(&args).arg("--egdb-dir").arg(&flat),
            1,
            &format!(
                "it holds layer files (k000.egdb, ...) but no set's directory: each board and rule set has a directory of its own under the root, named for them; move these files into {}",
                flat.join("m3-empty-row-empty-owner").display()
            ),
        );
    }
    std::fs::remove_dir_all(&flat).unwrap();
    // A root without the rules' set: a note on stderr, the answer on stdout as before.
    let out = kalah()
        .args([
            "solve",
            "--houses",
            "3",
            "--seeds",
            "2",
            "--capture",
            "standard",
        ])
        .arg("--egdb-dir")
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        err.contains("kalah: note: no endgame databases") && err.contains("searching without"),
        "{err}"
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("value:    +4"));
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

/// A layer file moved by hand into a root that holds sets leaves it a root (tester 101:
/// `build` refused it as "one set's directory"); `info` names the file and where it belongs.
#[test]
fn a_layer_file_beside_the_sets_leaves_the_root_a_root() {
    let (dir, layer_4) = built_with_layer_4();
    let stray = dir.path().join("k004.egdb");
    std::fs::rename(&layer_4, &stray).unwrap();
    // The build fills the gap it left (and writes the layers above it anew).
    let out = build(dir.path(), "6", &["--quiet"]);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("done: built 3 layer(s)"),
        "{out:?}"
    );
    let text = common::kalah_ok_with_egdb_dir(&["egdb", "info"], dir.path());
    let text = String::from_utf8_lossy(&text);
    assert!(
        text.contains(&format!(
            "  stray file: {}: outside every set's directory, not used; it holds layer 4, whose place is {}\n",
            stray.display(),
            layer_4.display()
        )) && text.contains("m3-standard-row-empty-owner: layers 0..=6, "),
        "{text}"
    );
    // solve uses the set, without a note.
    kalah()
        .args(["solve", "--houses", "3", "--seeds", "2", "--egdb-dir"])
        .arg(dir.path())
        .assert()
        .success()
        .stderr(predicate::str::is_empty());
    // A directory holding layer files and no set is told where they belong (tester 103: "give
    // its parent" led to "no layers").
    let lone = tempfile::tempdir().unwrap();
    std::fs::copy(&stray, lone.path().join("k004.egdb")).unwrap();
    let belong = format!(
        "it holds layer files (k000.egdb, ...) but no set's directory: each board and rule set \
         has a directory of its own under the root, named for them; move these files into {} \
         (their header says so) and give --egdb-dir {} again",
        lone.path().join("m3-standard-row-empty-owner").display(),
        lone.path().display()
    );
    one_line_error(
        kalah()
            .args(["egdb", "info", "--egdb-dir"])
            .arg(lone.path()),
        1,
        &belong,
    );
    // solve refuses it too (tester 107: it searched without databases after a note).
    let out = common::kalah_with_egdb_dir(&["solve", "--houses", "3", "--seeds", "2"], lone.path());
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(&belong),
        "{out:?}"
    );
    // Named as a set's directory, it is one: its parent is the root.
    let named = lone.path().join("m3-standard-row-empty-owner");
    std::fs::create_dir(&named).unwrap();
    std::fs::rename(lone.path().join("k004.egdb"), named.join("k004.egdb")).unwrap();
    one_line_error(
        kalah()
            .args([
                "egdb",
                "build",
                "--houses",
                "3",
                "--max-seeds",
                "4",
                "--egdb-dir",
            ])
            .arg(&named),
        1,
        &format!(
            "this is one set's directory (k000.egdb, ...); give its parent, {}",
            lone.path().display()
        ),
    );
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

#[test]
fn verify_and_info_say_which_layers_a_missing_one_leaves_unused() {
    // With k003.egdb gone, `verify` said "layers 0..=2 ... verified: all ... entries agree" and
    // exited 0 without a word about layers 4..=6 (not used, not verified); `info` said "only
    // 0..=first gap is used".
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), "6", &["--quiet", "--capture", "empty"]);
    let set = dir.path().join("m3-empty-row-empty-owner");
    std::fs::remove_file(set.join("k003.egdb")).unwrap();
    let fix = format!(
        "`kalah egdb build --houses 3 --max-seeds 6 --capture empty --egdb-dir {}` fills the gap",
        dir.path().display()
    );
    let out = kalah()
        .args(["egdb", "verify", "--houses", "3", "--capture", "empty"])
        .arg("--egdb-dir")
        .arg(dir.path())
        .output()
        .unwrap();
    // A gap is not damage: exit code 0, one line saying so.
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    let line = format!(
        "layer 3 is missing: layers 4..=6 are not used by the solver and were not verified; {fix}"
    );
    assert_eq!(text.lines().filter(|l| l.contains("missing")).count(), 1);
    assert!(text.contains(&line), "{text}");
    assert!(text.contains("verified: all 28 entries agree"), "{text}");
    let out = kalah()
        .args(["egdb", "info", "--egdb-dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("m3-empty-row-empty-owner: layers 0..=2 and 4..=6, ")
            && text.contains(&format!(
                "layers 0..=2 are used; layer 3 is missing, so layers 4..=6 are not ({fix})"
            ))
            && !text.contains("first gap"),
        "{text}"
    );
    // Damage in the layers used still fails verify, gap or not.
    let layer = set.join("k002.egdb");
    let mut bytes = std::fs::read(&layer).unwrap();
    let n = bytes.len();
    bytes[n - 1] ^= 0x40;
    std::fs::write(&layer, &bytes).unwrap();
    kalah()
        .args(["egdb", "verify", "--houses", "3", "--capture", "empty"])
        .arg("--egdb-dir")
        .arg(dir.path())
        .assert()
        .code(1)
        .stdout(predicate::str::contains("layer 3 is missing"))
        .stderr(predicate::str::contains("k002.egdb: corrupt"));
}

#[test]
fn an_empty_layer_file_gets_the_same_expected_length_everywhere() {
    // For a 0-byte k004.egdb, `info` said "expected 64" (a header) and verify and probe
    // "expected 194" (the whole layer: 64 + C(4 + 5, 5) values + one block checksum of 4).
    let (dir, layer) = built_with_layer_4();
    std::fs::write(&layer, b"").unwrap();
    let want = format!("{}: truncated (0 bytes, expected 194); ", layer.display());
    // A build replaces a damaged layer itself: the advice is to run it, not to delete the file
    // (it said "delete it and rebuild", and `info` "until that file is deleted and built
    // again"); where the set is known, the whole command.
    let build = format!(
        "`kalah egdb build --houses 3 --max-seeds 6 --egdb-dir {}`",
        dir.path().display()
    );
    kalah()
        .args(["egdb", "info", "--egdb-dir"])
        .arg(dir.path())
        .assert()
        .code(1)
        .stdout(predicate::str::contains(format!(
            "bad file: {want}build it again (`kalah egdb build` replaces it)\n"
        )))
        .stdout(predicate::str::contains(format!(
            "layer 4 is a bad file (listed above): the set cannot be opened until that file is built again: {build} replaces it\n"
        )))
        .stdout(predicate::str::contains("delete").not());
    for args in [
        vec!["egdb", "verify", "--houses", "3"],
        vec!["egdb", "probe", "1,1,0,1,1,0,1,0 S"],
        vec!["solve", "1,1,0,1,1,0,1,0 S"],
    ] {
        let mut cmd = kalah();
        cmd.args(&args).arg("--egdb-dir").arg(dir.path());
        one_line_error(&mut cmd, 1, &format!("{want}{build} builds it again\n"));
        let err = cmd.output().unwrap().stderr;
        assert!(
            !String::from_utf8_lossy(&err).contains("delete"),
            "{args:?}"
        );
    }
    // Names no build writes are no layers, as for the solver, which never opens them: not
    // listed (tester 16: `k999.egdb`, `kfoo.egdb` and a directory `m6-foo` were reported as
    // damaged layers and sets).
    let set = dir.path().join("m3-standard-row-empty-owner");
    std::fs::rename(&layer, set.join("k4.egdb")).unwrap();
    for stray in ["k999.egdb", "kfoo.egdb", "k121.egdb"] {
        std::fs::write(set.join(stray), b"abc").unwrap();
    }
    std::fs::create_dir(dir.path().join("m6-foo")).unwrap();
    std::fs::write(dir.path().join("m6-foo").join("k000.egdb"), b"abc").unwrap();
    let out = kalah()
        .args(["egdb", "info", "--egdb-dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    for stray in ["k4.egdb", "k999", "kfoo", "k121", "m6-foo"] {
        assert!(!stdout.contains(stray), "{stray} listed: {stdout}");
    }
    assert!(
        stdout.contains("m3-standard-row-empty-owner: layers 0..=3 and 5..=6"),
        "{stdout}"
    );
    // Nor do verify and probe take them for layers past the gap (they suggested --max-seeds 999).
    for args in [
        vec!["egdb", "verify", "--houses", "3"],
        vec!["egdb", "probe", "1,1,1,0,1,1,0,0 S"],
    ] {
        let out = common::kalah_with_egdb_dir(&args, dir.path());
        let all = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(all.contains("--max-seeds 6"), "{args:?}: {all}");
        for stray in ["999", "121"] {
            assert!(!all.contains(stray), "{args:?}: {all}");
        }
    }
}

/// Two bad layer files, one too long and one a broken link: `info`, `solve`, `probe` and
/// `verify` name both, in the same words (tester 60: `info` gave the link a bare "No such file
/// or directory" and the long file other words than verify; `solve` and `probe` named one).
#[cfg(unix)]
#[test]
fn every_command_names_every_bad_layer_alike() {
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), "6", &["--quiet"]);
    let set = dir.path().join("m3-standard-row-empty-owner");
    let long = set.join("k003.egdb");
    let mut bytes = std::fs::read(&long).unwrap();
    let n = bytes.len();
    bytes.extend_from_slice(b"xyz");
    std::fs::write(&long, &bytes).unwrap();
    let link = set.join("k005.egdb");
    std::fs::remove_file(&link).unwrap();
    std::os::unix::fs::symlink(dir.path().join("nothing"), &link).unwrap();
    let too_long = format!(
        "{}: too long ({} bytes, expected {n});",
        long.display(),
        n + 3
    );
    let broken = format!(
        "{}: a symbolic link to nothing (a broken link)",
        link.display()
    );
    let out = common::kalah_with_egdb_dir(&["egdb", "info"], dir.path());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    for want in [
        &format!("{too_long} build it again (`kalah egdb build` replaces it)"),
        &broken,
    ] {
        assert!(stdout.contains(&format!("bad file: {want}\n")), "{stdout}");
    }
    // The link must go (a build leaves it alone); the too-long file a build replaces itself.
    let build = format!(
        "kalah egdb build --houses 3 --max-seeds 6 --egdb-dir {}",
        dir.path().display()
    );
    assert!(
        stdout.contains(&format!(
            "layers 3 and 5 are bad files (listed above): the set cannot be opened until the file of layer 5 is deleted (a build leaves it alone) and `{build}` builds layers 3 and 5 again\n"
        )),
        "{stdout}"
    );
    for args in [
        vec!["solve", "1,1,1,0,1,1,0,0 S", "--houses", "3"],
        vec!["egdb", "probe", "1,1,1,0,1,1,0,0 S"],
        vec!["egdb", "verify", "--houses", "3"],
    ] {
        let out = common::kalah_with_egdb_dir(&args, dir.path());
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.contains(&format!("2 bad layer files (layers 3 and 5): {too_long} ")),
            "{args:?}: {err}"
        );
        assert!(err.contains(&format!("; {broken}")), "{args:?}: {err}");
        assert!(
            err.contains(&format!("`{build}` builds ")),
            "{args:?}: {err}"
        );
        assert!(!err.contains("delete it and rebuild"), "{args:?}: {err}");
        // The link is named to go first (a build leaves it alone: tester 64, `solve` and
        // `probe` gave it no advice); `verify` says so in its own summary.
        if args[0] != "egdb" || args[1] != "verify" {
            assert!(
                err.contains(&format!(
                    "; {broken}; a build leaves it alone: move it away or delete it, then the same command builds it again"
                )),
                "{args:?}: {err}"
            );
        }
    }
}

/// A directory in a layer's place: `solve` and `probe` say to move it away or delete it (a
/// build leaves it alone) and name the build (tester 64: no advice); doing so mends the set.
#[test]
fn a_directory_in_a_layers_place_is_named_to_go_first() {
    let (dir, layer) = built_with_layer_4();
    let good = std::fs::read(&layer).unwrap();
    std::fs::remove_file(&layer).unwrap();
    std::fs::create_dir(&layer).unwrap();
    let want = format!(
        "{}: not a regular file (a directory, a FIFO or a device); a build leaves it alone: move it away or delete it, then `kalah egdb build --houses 3 --max-seeds 6 --egdb-dir {}` builds it again",
        layer.display(),
        dir.path().display()
    );
    probe_and_solve_fail_with(dir.path(), &want);
    std::fs::remove_dir(&layer).unwrap();
    build(dir.path(), "6", &["--quiet"]);
    assert_eq!(std::fs::read(&layer).unwrap(), good);
}

/// `kalah ARGS` with the per-user data directory under `home` (no `--egdb-dir`).
fn kalah_at_home(home: &Path, args: &[&str]) -> Command {
    let mut cmd = kalah();
    cmd.args(args)
        .env("HOME", home)
        .env("XDG_DATA_HOME", home.join("data"));
    cmd
}

#[test]
fn a_damaged_set_in_the_default_directory_is_skipped_with_a_warning() {
    // A junk file in the default directory stopped play, solve and analyze with "cannot open the
    // endgame databases ... truncated", though the user never asked for databases.
    let home = tempfile::tempdir().unwrap();
    let root = home.path().join("data").join("kalah").join("egdb");
    // A sound default set first: no word on stderr.
    kalah_at_home(
        home.path(),
        &[
            "egdb",
            "build",
            "--houses",
            "3",
            "--max-seeds",
            "4",
            "--quiet",
        ],
    )
    .assert()
    .success();
    assert!(root.join("m3-standard-row-empty-owner/k004.egdb").is_file());
    kalah_at_home(home.path(), &["solve", "--houses", "3", "--seeds", "2"])
        .assert()
        .success()
        .stderr(predicate::str::is_empty());
    let junk = root.join("m3-standard-row-empty-owner").join("k000.egdb");
    std::fs::write(&junk, b"junk\n").unwrap();
    let warning = format!(
        "kalah: warning: endgame databases not used (searching without them): {}: not a kalah endgame database file (bad magic); a build leaves it alone: move it away or delete it, then `kalah egdb build --houses 3 --max-seeds 4` builds it again",
        junk.display()
    );
    let runs: [(&[&str], &str, &str); 3] = [
        (
            &["solve", "--houses", "3", "--seeds", "2"],
            "",
            "value:    +4",
        ),
        (&["analyze", "--houses", "3", "--seeds", "2"], "", "+4"),
        (&["play", "--houses", "3", "--seeds", "2"], "quit\n", "Bye."),
    ];
    for (args, input, answer) in runs {
        let out = assert_cmd::Command::from_std(kalah_at_home(home.path(), args))
            .write_stdin(input)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{args:?}: {err}");
        assert_eq!(err.trim_end(), warning, "{args:?}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains(answer), "{args:?}: {text}");
    }
    // Named with --egdb-dir, the same set is an error: the user asked for those databases.
    one_line_error(
        kalah_at_home(home.path(), &["solve", "--houses", "3", "--seeds", "2"])
            .arg("--egdb-dir")
            .arg(&root),
        1,
        "cannot open the endgame databases",
    );
    // Another board's set is not concerned.
    kalah_at_home(home.path(), &["solve", "--houses", "2", "--seeds", "2"])
        .assert()
        .success()
        .stderr(predicate::str::is_empty());
    // A damaged layer (cut short) a build replaces itself: the warning names that build (of
    // the default directory: no --egdb-dir), not a file to delete.
    let good = std::fs::read(root.join("m3-standard-row-empty-owner/k001.egdb")).unwrap();
    std::fs::write(&junk, &good[..40]).unwrap();
    let out = kalah_at_home(home.path(), &["solve", "--houses", "3", "--seeds", "2"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert_eq!(
        err.trim_end(),
        format!(
            "kalah: warning: endgame databases not used (searching without them): {}: truncated (40 bytes, expected 69); `kalah egdb build --houses 3 --max-seeds 4` builds it again",
            junk.display()
        )
    );
}

/// Without layer 0 a set cannot be opened: verify and probe say so and give the build command
/// that fills the gap (tester 12: they said "no databases" though eight layer files were there).
#[test]
fn a_set_without_layer_zero_is_named_with_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), "5", &["--quiet"]);
    let set = dir.path().join("m3-standard-row-empty-owner");
    std::fs::remove_file(set.join("k000.egdb")).unwrap();
    let want = format!(
        "{}: layer 0 is missing, so its layers 1..=5 cannot be used; `kalah egdb build --houses 3 --max-seeds 5 --egdb-dir {}` fills the gap",
        set.display(),
        dir.path().display()
    );
    for args in [
        vec!["egdb", "verify", "--houses", "3"],
        vec!["egdb", "probe", "1,1,1,0,1,1,0,0 S"],
    ] {
        one_line_error(
            kalah().args(&args).arg("--egdb-dir").arg(dir.path()),
            1,
            &want,
        );
    }
    // solve and analyze search without them, with the same sentence as a note (tester 26:
    // they said there were no databases for the board in the directory).
    for cmd in ["solve", "analyze"] {
        kalah()
            .args([cmd, "1,1,1,0,1,1,0,0 S", "--threads", "1", "--egdb-dir"])
            .arg(dir.path())
            .assert()
            .success()
            .stderr(format!(
                "kalah: note: {want}; searching without databases\n"
            ));
    }
    // The command given fills the gap.
    build(dir.path(), "5", &["--quiet"]);
    assert!(kalah()
        .args(["egdb", "verify", "--houses", "3", "--egdb-dir"])
        .arg(dir.path())
        .output()
        .unwrap()
        .status
        .success());
}

/// A probe past the last usable layer gives the whole build command, and names a gap that
/// stops the layers on disk from being used (tester 12).
#[test]
fn a_probe_past_the_layers_gives_the_build_command() {
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), "4", &["--quiet"]);
    let probe = |want: &str| {
        one_line_error(
            kalah()
                .args(["egdb", "probe", "1,1,1,0,1,1,1,0 S", "--egdb-dir"])
                .arg(dir.path()),
            1,
            want,
        )
    };
    let cmd = format!(
        "`kalah egdb build --houses 3 --max-seeds 6 --egdb-dir {}` builds the layers needed",
        dir.path().display()
    );
    probe(&format!(
        "6 seeds in the houses, the databases go up to 4: {cmd}"
    ));
    build(dir.path(), "6", &["--quiet"]);
    std::fs::remove_file(dir.path().join("m3-standard-row-empty-owner/k005.egdb")).unwrap();
    probe(&format!(
        "6 seeds in the houses, the databases go up to 4 (layer 5 is missing): {cmd}"
    ));
}

/// A probe past layers that cannot be built here says so instead of giving a build command the
/// build would refuse (tester 16: `--max-seeds 48` for Kalah(6,4) needs 1.40 TB); a board
/// without databases names the directory in its build command.
#[test]
fn a_probe_past_layers_out_of_reach_points_to_solve() {
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), "2", &["--quiet"]);
    let out = kalah()
        .args([
            "egdb",
            "build",
            "--houses",
            "6",
            "--max-seeds",
            "1",
            "--quiet",
        ])
        .arg("--egdb-dir")
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let probe = |pos: &str, want: &str| {
        one_line_error(
            kalah()
                .args(["egdb", "probe", pos, "--egdb-dir"])
                .arg(dir.path()),
            1,
            want,
        )
    };
    // Beyond the largest layer any build makes (120 seeds).
    probe(
        "120,0,0,0,1,0,0,0 S",
        "121 seeds in the houses, the databases go up to 2, and layers 0..=121 cannot be built \
         here (no databases for 3 houses a side up to 121 seeds",
    );
    probe(
        "120,0,0,0,1,0,0,0 S",
        "`kalah solve` finds the value by search",
    );
    // Kalah(6,4): 1.40 TB, more than any machine this runs on.
    probe(
        "4,4,4,4,4,4,0,4,4,4,4,4,4,0 S",
        "48 seeds in the houses, the databases go up to 1, and layers 0..=48 cannot be built \
         here (they need 1.40 TB of memory during the build; this machine has ",
    );
    probe(
        "1,1,0,1,1,0 S",
        &format!(
            "no databases for Kalah(2,·) capture=standard end=row-empty leftovers=owner under {0} \
             (build them with `kalah egdb build --houses 2 --max-seeds K --egdb-dir {0}`, K the \
             most seeds to cover)",
            dir.path().display()
        ),
    );
}

#[test]
fn two_damaged_layers_name_the_build_once() {
    // Opening a set with several damaged layer files names each file; the first gets the whole
    // build command, the next ones point back to it (the CLI fills in the library's advice per
    // file, EgdbError::message_with).
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), "6", &["--quiet"]);
    let set = dir.path().join("m3-standard-row-empty-owner");
    for k in [4, 5] {
        std::fs::write(set.join(format!("k00{k}.egdb")), b"").unwrap();
    }
    let build = format!(
        "`kalah egdb build --houses 3 --max-seeds 6 --egdb-dir {}`",
        dir.path().display()
    );
    let want = format!(
        "2 bad layer files (layers 4..=5): {}: truncated (0 bytes, expected 194); {build} builds it again; {}: truncated (0 bytes, expected ",
        set.join("k004.egdb").display(),
        set.join("k005.egdb").display()
    );
    for err in probe_and_solve_fail_with(dir.path(), &want) {
        assert!(
            err.trim_end()
                .ends_with("); the same command builds it again"),
            "{err}"
        );
        assert!(!err.contains("replaces it"), "{err}");
    }
}
