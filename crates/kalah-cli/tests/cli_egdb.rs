//! `kalah egdb build / info / verify / probe` end to end.

use std::path::Path;
use std::process::Command;

use assert_cmd::prelude::*;
use predicates::prelude::*;

mod common;

fn kalah() -> Command {
    Command::cargo_bin("kalah").unwrap()
}

/// `kalah egdb build --houses 3 --max-seeds 8 --egdb-dir DIR`, to run.
fn build_3_8(dir: &Path) -> Command {
    let mut cmd = kalah();
    cmd.args(["egdb", "build", "--houses", "3", "--max-seeds", "8"])
        .arg("--egdb-dir")
        .arg(dir);
    cmd
}

fn build(dir: &Path, extra: &[&str]) {
    build_3_8(dir)
        .arg("--quiet")
        .args(extra)
        .assert()
        .success()
        .stdout(
            predicate::str::contains("positions").and(predicate::str::contains("estimated time")),
        );
}

#[test]
fn build_info_verify_probe() {
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), &[]);
    build(dir.path(), &["--capture", "empty"]);
    kalah()
        .args(["egdb", "info", "--egdb-dir"])
        .arg(dir.path())
        .assert()
        .success()
        .stdout(
            predicate::str::contains("m3-standard-row-empty-owner: layers 0..=8").and(
                predicate::str::contains("m3-empty-row-empty-owner: layers 0..=8"),
            ),
        );
    kalah()
        .args([
            "egdb",
            "verify",
            "--houses",
            "3",
            "--capture",
            "empty",
            "--egdb-dir",
        ])
        .arg(dir.path())
        .assert()
        .success()
        .stdout(predicate::str::contains("verified"));
    // The CLI prints what the library probes, plus the store difference (5 − 4).
    let pos = "1,0,1,5,0,2,0,4 S";
    let out = kalah()
        .args(["egdb", "probe", pos, "--json", "--egdb-dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let db = kalah_egdb::Egdb::open(dir.path(), 3, &kalah_core::Rules::default())
        .unwrap()
        .unwrap();
    let p: kalah_core::Position = pos.parse().unwrap();
    let gain = db.probe(&p, &kalah_core::Rules::default()).unwrap();
    assert_eq!(v["gain"], gain);
    assert_eq!(v["value"], gain + 1);
    assert_eq!(v["seeds"], 4);
    // Compact, as every other command's JSON (tester 44: it alone had spaces).
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains(' '), "{text}");
    // A finished game is valued as `kalah solve` values it (it was an error): North's row is
    // empty, South's 1 seed is swept to South, 7 - 6 from North's view is -1.
    let over = "0,1,0,6,0,0,0,6 N";
    for json in [false, true] {
        let mut probe = kalah();
        probe
            .args(["egdb", "probe", over, "--egdb-dir"])
            .arg(dir.path());
        let solve = kalah()
            .args(["solve", over, "--json", "--no-egdb"])
            .output()
            .unwrap();
        let solved: serde_json::Value = serde_json::from_slice(&solve.stdout).unwrap();
        assert_eq!(solved["value"], -1);
        if json {
            let out = probe.arg("--json").output().unwrap();
            assert!(out.status.success());
            let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(v["value"], solved["value"]);
            assert_eq!(
                (v["gain"].as_i64(), v["over"].as_bool()),
                (Some(0), Some(true))
            );
        } else {
            probe.assert().success().stdout(predicate::str::contains(
                "game over (North would move), final stores 7 (South) and 6 (North): value -1",
            ));
        }
    }
    // ... with no databases at all: it needs none (tester 81: "no databases ... build them").
    let empty = tempfile::tempdir().unwrap();
    kalah()
        .args(["egdb", "probe", over, "--egdb-dir"])
        .arg(empty.path())
        .assert()
        .success()
        .stdout(predicate::str::contains("value -1"));
    // ... but a --egdb-dir that is no directory is refused, as for a game still in play
    // (tester 91: a finished game was valued with a typo for a directory, exit code 0).
    let file = empty.path().join("notes.txt");
    std::fs::write(&file, "x").unwrap();
    // A set's own directory too (tester 93), and a path through a file.
    kalah()
        .args([
            "egdb",
            "build",
            "--houses",
            "2",
            "--max-seeds",
            "2",
            "--quiet",
            "--egdb-dir",
        ])
        .arg(empty.path())
        .assert()
        .success();
    for (dir, why) in [
        (empty.path().join("nonexist"), "no such directory"),
        (file.clone(), "not a directory"),
        (
            file.join("sub"),
            "not a directory (a file on the way to it)",
        ),
        (
            empty.path().join("m2-standard-row-empty-owner"),
            "this is one set's directory",
        ),
    ] {
        kalah()
            .args(["egdb", "probe", over, "--egdb-dir"])
            .arg(&dir)
            .assert()
            .failure()
            .code(1)
            .stderr(predicate::str::contains(why))
            .stdout(predicate::str::is_empty());
    }
}

#[test]
fn bad_requests_are_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    kalah()
        .args([
            "egdb",
            "build",
            "--max-seeds",
            "3",
            "--majority-end",
            "--egdb-dir",
        ])
        .arg(dir.path())
        .assert()
        .failure()
        .stderr(predicate::str::contains("majority end"));
    kalah()
        .args(["egdb", "probe", "1,1,0,1,1,0 S", "--egdb-dir"])
        .arg(dir.path())
        .assert()
        .failure()
        .stderr(predicate::str::contains("no databases"));
    build(dir.path(), &[]);
    kalah()
        .args(["egdb", "probe", "5,1,1,0,5,1,1,0 S", "--egdb-dir"])
        .arg(dir.path())
        .assert()
        .failure()
        .stderr(predicate::str::contains("up to 8"));
}

/// Regression: an opening-phase position with more seeds than the layers was answered with
/// "24 seeds in the houses, the databases go up to 8: `kalah egdb build ... --max-seeds 24 ...`
/// builds the layers needed", though no build stores positions of the opening phases; the
/// phase is now checked before the seed count, whatever the count.
#[test]
fn opening_phases_are_not_covered_whatever_their_seeds() {
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), &[]);
    for (pos, why) in [
        // 12 and 6 seeds in the houses: beyond the layers (8) and within them.
        (
            "3,3,3,0,3,3,3,0 S opening",
            "opening phase: positions before the first turn ends are not stored",
        ),
        (
            "1,1,1,0,1,1,1,0 S opening",
            "opening phase: positions before the first turn ends are not stored",
        ),
        (
            "4,4,0,1,4,4,4,0 S first-turn",
            "opening phase: positions before the first turn ends are not stored",
        ),
        (
            "1,1,0,1,1,1,1,0 S first-turn",
            "opening phase: positions before the first turn ends are not stored",
        ),
        (
            "0,4,4,1,4,4,4,0 N pie",
            "pie-rule choice: North may still swap",
        ),
        (
            "0,1,1,1,1,1,1,0 N pie",
            "pie-rule choice: North may still swap",
        ),
    ] {
        let out = kalah()
            .args(["egdb", "probe", pos, "--pie", "--egdb-dir"])
            .arg(dir.path())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{pos}: {err}");
        assert!(
            err.starts_with(&format!(
                "kalah: error: the databases do not cover this position ({why}"
            )),
            "{pos}: {err}"
        );
        assert!(!err.contains("egdb build"), "{pos}: {err}");
        assert_eq!(err.lines().count(), 1, "{pos}: {err}");
    }
}

#[test]
fn corrupt_and_truncated_layers_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), &[]);
    let layer = dir
        .path()
        .join("m3-standard-row-empty-owner")
        .join("k007.egdb");
    let mut bytes = std::fs::read(&layer).unwrap();
    let n = bytes.len();
    bytes[n - 3] ^= 0x40;
    std::fs::write(&layer, &bytes).unwrap();
    kalah()
        .args(["egdb", "verify", "--houses", "3", "--egdb-dir"])
        .arg(dir.path())
        .assert()
        .failure()
        .stderr(predicate::str::contains("k007.egdb").and(predicate::str::contains("corrupt")));
    bytes[n - 3] ^= 0x40;
    std::fs::write(&layer, &bytes[..n - 100]).unwrap();
    // `info` lists the truncated file and fails, so a script can tell.
    kalah()
        .args(["egdb", "info", "--egdb-dir"])
        .arg(dir.path())
        .assert()
        .code(1)
        .stdout(predicate::str::contains("bad file:").and(predicate::str::contains("k007.egdb")))
        .stderr(predicate::str::contains("1 bad layer file in"));
    kalah()
        .args(["egdb", "probe", "1,0,1,5,0,2,0,4 S", "--egdb-dir"])
        .arg(dir.path())
        .assert()
        .failure()
        .stderr(predicate::str::contains("truncated"));
}

/// `verify` names every bad layer file of a set, a truncated one and one failing its checksum
/// past it, not only the first it met (tester 57: it stopped at the truncated file); a build
/// replaces both.
#[test]
fn verify_names_every_bad_layer_file() {
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), &[]);
    let set = dir.path().join("m3-standard-row-empty-owner");
    let short = set.join("k005.egdb");
    let bytes = std::fs::read(&short).unwrap();
    std::fs::write(&short, &bytes[..bytes.len() - 50]).unwrap();
    let flipped = set.join("k007.egdb");
    let mut bytes = std::fs::read(&flipped).unwrap();
    let n = bytes.len();
    bytes[n - 3] ^= 0x40;
    std::fs::write(&flipped, &bytes).unwrap();
    let verify = || {
        kalah()
            .args(["egdb", "verify", "--houses", "3", "--egdb-dir"])
            .arg(dir.path())
            .assert()
    };
    let out = verify().code(1).get_output().stderr.clone();
    let err = String::from_utf8_lossy(&out);
    assert!(err.contains("2 bad layer files (layers 5 and 7)"), "{err}");
    assert!(err.contains("k005.egdb: truncated"), "{err}");
    assert!(err.contains("k007.egdb: corrupt"), "{err}");
    assert!(
        err.contains("kalah egdb build --houses 3 --max-seeds 8"),
        "{err}"
    );
    assert!(!err.contains("delete '"), "{err}");
    // A directory in a layer's place: a build leaves it alone, so the advice says to delete it
    // first (tester 59: it named only the build, which then failed).
    let k006 = set.join("k006.egdb");
    std::fs::remove_file(&k006).unwrap();
    std::fs::create_dir(&k006).unwrap();
    let out = verify().code(1).get_output().stderr.clone();
    let err = String::from_utf8_lossy(&out);
    assert!(err.contains("3 bad layer files (layers 5..=7)"), "{err}");
    let advice = format!(
        "move away or delete '{}' (a build leaves it alone: a link, not a regular file, or a file of another set, version or format), then `kalah egdb build",
        k006.display()
    );
    assert!(err.contains(&advice), "{err}");
    // ... and the build says so too, and that nothing was built (tester 60: it said "the
    // layers finished before are kept ... once the problem is fixed").
    let out = build_3_8(dir.path()).assert().code(1).get_output().clone();
    let err = String::from_utf8_lossy(&out.stderr);
    // It does not first promise to build the damaged layer 5 again (tester 76).
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(!said.contains("building it again"), "{said}");
    let refused = format!(
        "{}: not a regular file (a directory, a FIFO or a device); a build does not replace it: move it away or delete it",
        k006.display()
    );
    assert!(err.contains(&refused), "{err}");
    assert!(err.trim_end().ends_with("nothing was built"), "{err}");
    assert!(!err.contains("finished before are kept"), "{err}");
    assert!(k006.is_dir());
    std::fs::remove_dir(&k006).unwrap();
    // With nothing in the way, the build names the damaged layer and builds it again.
    build_3_8(dir.path())
        .arg("--quiet")
        .assert()
        .success()
        .stdout(
            predicate::str::contains("layer 5: damaged, truncated (")
                .and(predicate::str::contains("building it again")),
        );
    verify()
        .success()
        .stdout(predicate::str::contains("verified: all"));
    // Another layer's whole file in a layer's place: a build leaves it alone too, so the
    // advice names it to be moved first (tester 98: it named the build alone, which refused).
    let k006 = set.join("k006.egdb");
    std::fs::copy(set.join("k007.egdb"), &k006).unwrap();
    let err = String::from_utf8_lossy(&verify().code(1).get_output().stderr).into_owned();
    let advice = format!(
        "move away or delete '{}' (a build leaves it alone: a link, not a regular file, or a file of another set, version or format), then `kalah egdb build --houses 3 --max-seeds 8",
        k006.display()
    );
    assert!(err.contains("1 bad layer file (layer 6)"), "{err}");
    assert!(err.contains(&advice), "{err}");
    // Said once, at the end: not the file's own advice as well.
    assert!(!err.contains("and rebuild"), "{err}");
    // Done as told, the build mends the set.
    std::fs::remove_file(&k006).unwrap();
    build_3_8(dir.path()).arg("--quiet").assert().success();
    verify()
        .success()
        .stdout(predicate::str::contains("verified: all"));
}

/// A build whose set still cannot be opened afterwards (a bad file just past its layers, which
/// opening the set reads) says so and fails, instead of "done" alone (tester 67).
#[test]
fn a_build_says_when_its_set_still_cannot_be_opened() {
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), &[]);
    let set = dir.path().join("m3-standard-row-empty-owner");
    std::fs::copy(set.join("k008.egdb"), set.join("k009.egdb")).unwrap();
    let out = build_3_8(dir.path()).arg("--quiet").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("done: built 0 layer(s)"), "{stdout}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("kalah: error: layers 0..=8 are built, but the set cannot be opened")
            && err.contains("k009.egdb: holds m=3 k=8")
            && err.contains("a build leaves it alone: move it away or delete it, then `kalah egdb build --houses 3 --max-seeds 9 --egdb-dir "),
        "{err}"
    );
    // `solve` and `probe` name the build that follows the move too, as `verify` does (tester
    // 101: "move or delete it and rebuild", without the command).
    for args in [
        &["solve", "--houses", "3", "--seeds", "2"][..],
        &["egdb", "probe", "1,1,1,0,1,1,1,0 S"][..],
    ] {
        let out = common::kalah_with_egdb_dir(args, dir.path());
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("k009.egdb: holds m=3 k=8")
                && err.contains("; a build leaves it alone: move it away or delete it, then `kalah egdb build --houses 3 --max-seeds 9 --egdb-dir ")
                && err.contains("` builds it again"),
            "{args:?}: {err}"
        );
    }
    // A build up to and past it says to move it first, not to build (tester 101).
    let build_10 = [
        "egdb",
        "build",
        "--houses",
        "3",
        "--max-seeds",
        "10",
        "--quiet",
    ];
    let out = common::kalah_with_egdb_dir(&build_10, dir.path());
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("k009.egdb: holds m=3 k=8")
            && err.contains("; a build does not replace it: move it away or delete it")
            && err.ends_with("nothing was built\n"),
        "{err}"
    );
    // Cut short too, `info` names it as layer 8's file, to move or delete (tester 69: it said
    // "truncated" against layer 8's length, with the advice to build, which refuses it).
    let bytes = std::fs::read(set.join("k008.egdb")).unwrap();
    std::fs::write(set.join("k009.egdb"), &bytes[..100]).unwrap();
    let out = common::kalah_with_egdb_dir(&["egdb", "info"], dir.path());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("k009.egdb: holds layer 8 of m3-standard-row-empty-owner, not what its place says; move or delete it"),
        "{stdout}"
    );
    assert!(!stdout.contains("truncated"), "{stdout}");
    std::fs::remove_file(set.join("k009.egdb")).unwrap();
    build(dir.path(), &[]);
}

/// A layer file this user may not read: `verify`, `probe` and `solve` say to let this user read
/// it, not to build it again (a build stops at it: tester 67). Root reads every file: there
/// the test has nothing to check (run it as another user, e.g. `setpriv --reuid=65534`).
#[cfg(unix)]
#[test]
fn an_unreadable_layer_is_mended_by_its_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), &[]);
    let k005 = dir.path().join("m3-standard-row-empty-owner/k005.egdb");
    std::fs::set_permissions(&k005, std::fs::Permissions::from_mode(0o000)).unwrap();
    if std::fs::read(&k005).is_ok() {
        return; // root
    }
    for args in [
        &["egdb", "verify", "--houses", "3"][..],
        &["egdb", "probe", "1,1,0,1,1,0,1,0 S"][..],
        &["solve", "1,1,0,1,1,0,1,0 S"][..],
    ] {
        let out = common::kalah_with_egdb_dir(args, dir.path());
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("k005.egdb: Permission denied"), "{err}");
        assert!(err.contains("let this user read"), "{args:?}: {err}");
        assert!(!err.contains("builds it again"), "{args:?}: {err}");
    }
}

/// Solves `pos` with the databases under `dir` and without: asserts the same value, and returns
/// the first run's stderr.
fn solve_agrees_without_the_databases(dir: &Path, pos: &str) -> String {
    let want = kalah()
        .args(["solve", pos, "--no-egdb", "--json"])
        .output()
        .unwrap();
    let want: serde_json::Value = serde_json::from_slice(&want.stdout).unwrap();
    let out = kalah()
        .args(["solve", pos, "--json", "--threads", "1", "--egdb-dir"])
        .arg(dir)
        .output()
        .unwrap();
    assert!(out.status.success());
    let got: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(got["value"], want["value"], "{pos}");
    String::from_utf8(out.stderr).unwrap()
}

/// Regression (fresh-user tester): a layer whose payload was overwritten, header intact, gave
/// impossible values to `solve` and `probe`. Those values are now refused: `solve` searches the
/// positions itself (the right value) and warns, `probe` says the file is damaged.
#[test]
fn impossible_database_values_are_searched_instead_and_reported() {
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), &[]);
    let layer = dir
        .path()
        .join("m3-standard-row-empty-owner")
        .join("k007.egdb");
    // Every value of the layer (the file ends with one byte for each of the C(7 + 5, 5) = 792
    // arrangements of 7 seeds in 6 houses): +40, a future gain of 40 with 7 seeds in the houses.
    common::overwrite_layer(&layer, 792, 40);
    let pos = "1,0,1,5,0,2,3,4 S"; // 7 seeds in the houses
    let stderr = solve_agrees_without_the_databases(dir.path(), pos);
    assert!(
        stderr.contains("k007.egdb holds impossible values") && stderr.contains("egdb verify"),
        "{stderr}"
    );
    // Its checksums hold, so the build would keep it: the advice is to delete it first.
    // With the whole build command (tester 64: the generic 'kalah egdb build').
    let build = format!(
        "delete it (a build keeps a file whose checksums hold), then `kalah egdb build --houses 3 --max-seeds 8 --egdb-dir {}` builds it again",
        dir.path().display()
    );
    assert!(stderr.contains(&build), "{stderr}");
    kalah()
        .args(["egdb", "probe", pos, "--egdb-dir"])
        .arg(dir.path())
        .assert()
        .failure()
        .stderr(
            predicate::str::contains("no value for this position: ")
                .and(predicate::str::contains(
                    "k007.egdb holds impossible values",
                ))
                .and(predicate::str::contains(build.as_str())),
        );
}

/// Regression (tester 20): every value of a small layer set to 0, its checksums left stale,
/// made `solve` print a wrong value (+4 for +2) without a word; only `verify` found it. Small
/// layers are now checked when a set is opened: a layer that fails is not used.
#[test]
fn a_small_layer_failing_its_checksum_is_not_used() {
    let dir = tempfile::tempdir().unwrap();
    common::build_egdb(dir.path(), 3, 12);
    let layer = dir
        .path()
        .join("m3-standard-row-empty-owner")
        .join("k010.egdb");
    let mut bytes = std::fs::read(&layer).unwrap();
    let n = bytes.len();
    // C(10 + 5, 5) = 3003 arrangements: every value 0 (possible: even, within ±10).
    bytes[n - 3003..].fill(0);
    std::fs::write(&layer, &bytes).unwrap();
    let stderr = solve_agrees_without_the_databases(dir.path(), "3,3,3,0,3,3,3,0 S");
    assert!(
        stderr.contains("k010.egdb fails its checksum: the file is damaged"),
        "{stderr}"
    );
    // A build replaces it: the whole command, no deleting (tester 64: the generic advice).
    let build = format!(
        "and `kalah egdb build --houses 3 --max-seeds 12 --egdb-dir {}` builds it again",
        dir.path().display()
    );
    assert!(stderr.contains(&build), "{stderr}");
    assert!(!stderr.contains("delete"), "{stderr}");
    // A position of that layer: no value from it; of another layer: the value as before.
    kalah()
        .args(["egdb", "probe", "3,3,1,0,1,1,1,0 S", "--egdb-dir"])
        .arg(dir.path())
        .assert()
        .failure()
        .stderr(
            predicate::str::contains("k010.egdb fails its checksum")
                .and(predicate::str::contains(build.as_str())),
        );
    kalah()
        .args(["egdb", "probe", "3,3,1,0,1,1,0,0 S", "--egdb-dir"])
        .arg(dir.path())
        .assert()
        .success();
}

/// Regression (second fresh-user tester): a damaged layer holding possible but wrong values
/// (not caught by the probe) made `solve` print a value with no best turn and no PV. No turn
/// keeping the value is proof of wrong values: `solve` now fails and says so.
#[test]
fn a_value_no_turn_keeps_is_reported_as_damaged_databases() {
    let dir = tempfile::tempdir().unwrap();
    common::build_egdb(dir.path(), 4, 10);
    let layer = dir
        .path()
        .join("m4-standard-row-empty-owner")
        .join("k009.egdb");
    // C(9 + 7, 7) = 11440 arrangements of 9 seeds in 8 houses: every value +1 (possible: odd,
    // within ±9).
    common::overwrite_layer(&layer, 11440, 1);
    let pos = "1,1,0,0,2,3,0,1,3,1 N";
    kalah()
        .args(["solve", pos, "--egdb-dir"])
        .arg(dir.path())
        .assert()
        .code(1)
        .stderr(
            predicate::str::contains("no turn of 1,1,0,0,2,3,0,1,3,1 N keeps the value")
                .and(predicate::str::contains("egdb verify")),
        );
    // Without the databases: +2, best 3.
    kalah()
        .args(["solve", pos, "--no-egdb"])
        .assert()
        .success()
        .stdout(predicate::str::contains("value:    +2"));
}

/// Ctrl-C during a build: the process stops with a clear message, every layer file left is
/// complete and valid, no temporary file remains, and the build resumes.
#[cfg(unix)]
#[test]
fn ctrl_c_leaves_no_corrupt_file_and_the_build_resumes() {
    use std::time::{Duration, Instant};
    let dir = tempfile::tempdir().unwrap();
    let child = kalah()
        .args([
            "egdb",
            "build",
            "--houses",
            "6",
            "--max-seeds",
            // Minutes of work, yet 0.5 GB: a build bigger than the machine's memory is refused.
            "22",
            "--quiet",
            "--egdb-dir",
        ])
        .arg(dir.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let set = dir.path().join("m6-standard-row-empty-owner");
    // Wait until a few layers exist, so the interrupt lands in the middle of the build.
    let t0 = Instant::now();
    while !set.join("k010.egdb").exists() && t0.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = common::interrupt(child, Duration::from_millis(300));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(
        err.contains("kalah: build interrupted (Ctrl-C): the finished layers are kept"),
        "{err}"
    );
    let mut names: Vec<String> = std::fs::read_dir(&set)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != ".build.lock")
        .collect();
    names.sort();
    assert!(names.len() >= 11, "{names:?}");
    for (k, n) in names.iter().enumerate() {
        assert_eq!(
            n,
            &format!("k{k:03}.egdb"),
            "only finished layers: {names:?}"
        );
    }
    let rules = kalah_core::Rules::default();
    let db = kalah_egdb::Egdb::open(dir.path(), 6, &rules)
        .unwrap()
        .unwrap();
    let top = db.max_seeds();
    drop(db);
    assert_eq!(top as usize + 1, names.len());
    kalah()
        .args(["egdb", "build", "--houses", "6", "--max-seeds"])
        .arg((top + 1).to_string())
        .args(["--quiet", "--egdb-dir"])
        .arg(dir.path())
        .assert()
        .success()
        .stdout(predicate::str::contains(format!(
            "built 1 layer(s) ({} positions)",
            binomial(top as u64 + 1 + 11, 11)
        )));
}

fn binomial(n: u64, k: u64) -> u64 {
    (0..k).fold(1, |acc, i| acc * (n - i) / (i + 1))
}

#[test]
fn thread_counts_out_of_range_are_refused() {
    // `--threads 100000` used to spend minutes creating threads for a 462-position build;
    // `--threads 0` was silently taken as 1.
    let dir = tempfile::tempdir().unwrap();
    for (cmd, n) in [
        ("build", "100000"),
        ("build", "0"),
        ("verify", "100000"),
        ("build", "x"),
    ] {
        let mut c = kalah();
        c.args(["egdb", cmd, "--houses", "3", "--threads", n]);
        if cmd == "build" {
            c.args(["--max-seeds", "5"]);
        }
        let out = c.arg("--egdb-dir").arg(dir.path()).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{cmd} --threads {n}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(err.contains("--threads"), "{err}");
    }
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "nothing built"
    );
    build(dir.path(), &["--threads", "3"]);
}

#[test]
fn info_on_a_missing_egdb_dir_is_an_error() {
    // It printed "no layers" and succeeded, so a typo in the path went unnoticed.
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-dir");
    kalah()
        .args(["egdb", "info", "--egdb-dir"])
        .arg(&missing)
        .assert()
        .failure()
        .stderr(predicate::str::contains("no such directory"));
    kalah()
        .args(["egdb", "info", "--egdb-dir"])
        .arg(dir.path())
        .assert()
        .success()
        .stdout(predicate::str::contains("no layers"))
        // The build command it suggests fills this directory (tester 17).
        .stdout(predicate::str::contains(format!(
            "`kalah egdb build --houses 6 --max-seeds K --egdb-dir {}`",
            dir.path().display()
        )));
}

#[test]
fn a_closed_stdout_is_not_a_panic() {
    // `kalah egdb build ... | head -1` panicked ("failed printing to stdout: Broken pipe") with a
    // backtrace; so did `kalah egdb info` and `kalah serve` with their first line.
    use std::process::Stdio;
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), &[]);
    for args in [
        vec!["egdb", "build", "--houses", "3", "--max-seeds", "9"],
        vec!["egdb", "info"],
        vec!["egdb", "verify", "--houses", "3"],
    ] {
        // The reader is gone before the child starts, so even its first line finds no reader.
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let mut child = kalah()
            .args(&args)
            .arg("--egdb-dir")
            .arg(dir.path())
            .env("RUST_BACKTRACE", "1")
            .stdout(writer)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let (_, err) = common::stderr_to_end(&mut child);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    // The server keeps serving without its address line; stop it after a moment.
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let mut child = kalah()
        .args(["serve", "--port", "0"])
        .env("RUST_BACKTRACE", "1")
        .stdout(writer)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert!(
        child.try_wait().unwrap().is_none(),
        "the server must still run"
    );
    Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    let (_, err) = common::stderr_to_end(&mut child);
    assert!(!err.contains("panicked"), "serve: {err}");
}

/// `kalah egdb build --houses 3 --max-seeds 4 --quiet --egdb-dir DIR`, whatever its outcome.
fn small_build(dir: &Path) -> std::process::Output {
    common::kalah_with_egdb_dir(
        &[
            "egdb",
            "build",
            "--houses",
            "3",
            "--max-seeds",
            "4",
            "--quiet",
        ],
        dir,
    )
}

/// A second build of a set that another build holds is refused at once, before it prints its
/// plan (which would read as if it had started), and it leaves the set alone.
#[test]
fn a_second_build_of_the_same_set_is_refused_before_its_plan() {
    let dir = tempfile::tempdir().unwrap();
    let set = dir.path().join("m3-standard-row-empty-owner");
    std::fs::create_dir_all(&set).unwrap();
    let lock = std::fs::File::create(set.join(".build.lock")).unwrap();
    lock.try_lock().expect("the test takes the build lock");
    let out = small_build(dir.path());
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "", "no plan printed");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("another `kalah egdb build` is writing this set"),
        "{err}"
    );
    let files: Vec<_> = std::fs::read_dir(&set).unwrap().collect();
    assert_eq!(files.len(), 1, "only the lock file");
    drop(lock);
    // Once the lock is released, the same build runs.
    build(dir.path(), &[]);
}

/// `egdb build --egdb-dir` naming a set's own directory (even an empty one) is refused: the build
/// would nest another set inside it, which no other command would find.
#[test]
fn a_build_into_a_set_s_own_directory_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let set = dir.path().join("m5-standard-row-empty-owner");
    std::fs::create_dir_all(&set).unwrap();
    let out = small_build(&set);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("this is one set's directory"), "{err}");
    assert_eq!(
        std::fs::read_dir(&set).unwrap().count(),
        0,
        "nothing written"
    );
}

/// `egdb verify --threads N` above the cores warns as build does (tester 12: it said nothing).
#[test]
fn verify_warns_about_more_threads_than_cores() {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if cores >= 256 {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    assert!(small_build(dir.path()).status.success());
    let out = common::kalah_with_egdb_dir(
        &["egdb", "verify", "--houses", "3", "--threads", "256"],
        dir.path(),
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("kalah: warning: --threads 256 on "),
        "stderr: {err}"
    );
}

/// The help of the database commands offers only the flags that choose a set (tester 16: the
/// start options and the majority end were listed, though always refused).
#[test]
fn egdb_help_offers_no_flag_it_refuses() {
    for cmd in ["build", "verify", "probe"] {
        let out = kalah().args(["egdb", cmd, "--help"]).output().unwrap();
        assert!(out.status.success(), "{cmd}");
        let help = String::from_utf8_lossy(&out.stdout);
        assert!(help.contains("--capture"), "{cmd}: {help}");
        // Option lines only: `--houses` says its default comes from a layout.
        let options: Vec<&str> = help.lines().map(str::trim_start).collect();
        let opening: &[&str] = if cmd == "probe" {
            // probe reads a position's phase tag under them.
            assert!(options.iter().any(|l| l.starts_with("--pie")), "{help}");
            &[]
        } else {
            &["--pie", "--no-first-move-extra-turn"]
        };
        for refused in ["--seeds", "--layout", "--mirrored", "--majority-end"]
            .iter()
            .chain(opening)
        {
            assert!(
                !options.iter().any(|l| l.starts_with(refused)),
                "{cmd} offers {refused}: {help}"
            );
        }
    }
}

/// Runs each command line (a database directory of its own, empty) and checks that it is a
/// malformed command line (exit code 2) whose message starts with `says`, and built nothing.
fn usage_errors(cases: &[&[&str]], says: &str) {
    let dir = tempfile::tempdir().unwrap();
    for args in cases {
        let out = common::kalah_with_egdb_dir(args, dir.path());
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.starts_with(&format!("kalah: error: {says}")),
            "{args:?}: {err}"
        );
    }
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "nothing built"
    );
}

/// The opening rules with build or verify are a malformed command line (tester 37: they were
/// taken and did nothing, so that `egdb build --pie` looked like a build for the pie rule).
#[test]
fn opening_rules_are_usage_errors_for_build_and_verify() {
    usage_errors(
        &[
            &[
                "egdb",
                "build",
                "--houses",
                "3",
                "--max-seeds",
                "2",
                "--pie",
            ],
            &[
                "egdb",
                "verify",
                "--houses",
                "3",
                "--no-first-move-extra-turn",
            ],
        ],
        "--pie and --no-first-move-extra-turn change only the opening",
    );
}

/// A start option with a database command is a malformed command line (exit code 2), for
/// build and verify as for probe (tester 17: build and verify gave 1).
#[test]
fn start_options_are_usage_errors_for_every_egdb_command() {
    usage_errors(
        &[
            &["egdb", "build", "--max-seeds", "2", "--seeds", "3"],
            &["egdb", "verify", "--layout", "4,4"],
            &["egdb", "probe", "1,1,0,1,1,0 S", "--seeds", "3"],
            // Tester 44: `--mirrored` was answered "required: --layout", a refused flag.
            &["egdb", "build", "--max-seeds", "2", "--mirrored"],
            &["egdb", "probe", "1,1,0,1,1,0 S", "--mirrored"],
        ],
        "--seeds, --layout and --mirrored",
    );
}

/// The majority end, which has no databases, is a malformed command line for every database
/// command, as CLI.md says (tester 44: build, verify and probe exited 1).
#[test]
fn the_majority_end_is_a_usage_error_for_every_egdb_command() {
    usage_errors(
        &[
            &["egdb", "build", "--max-seeds", "2", "--majority-end"],
            &["egdb", "verify", "--majority-end"],
            &["egdb", "probe", "1,1,0,1,1,0 S", "--majority-end"],
        ],
        "the majority end makes the outcome depend on the stores",
    );
}

/// A Kalah(3,·) set of layers 0..=8 built in a new directory: the directory, the set's
/// directory and the bytes of each layer file.
fn built_set() -> (tempfile::TempDir, std::path::PathBuf, Vec<Vec<u8>>) {
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), &[]);
    let set = dir.path().join("m3-standard-row-empty-owner");
    let layers = (0..=8)
        .map(|k| std::fs::read(set.join(format!("k{k:03}.egdb"))).unwrap())
        .collect();
    (dir, set, layers)
}

/// A link to a damaged layer is left alone, as EGDB.md and `verify` say (tester 81: the build
/// replaced the link by a new file and kept the damaged target): the build stops before
/// writing, naming the link; a link to a good layer is used.
#[test]
fn build_leaves_a_link_to_a_damaged_layer_alone() {
    let (dir, set, good) = built_set();
    let elsewhere = tempfile::tempdir().unwrap();
    let target = elsewhere.path().join("k006.egdb");
    std::fs::write(&target, &good[6]).unwrap();
    let layer = set.join("k006.egdb");
    std::fs::remove_file(&layer).unwrap();
    std::os::unix::fs::symlink(&target, &layer).unwrap();
    let run = || {
        common::kalah_with_egdb_dir(
            &["egdb", "build", "--houses", "3", "--max-seeds", "9"],
            dir.path(),
        )
    };
    let out = run();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("layer 6: already built"));
    let mut bad = good[6].clone();
    bad[64] ^= 0x01;
    std::fs::write(&target, &bad).unwrap();
    let out = run();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!(
            "{}: a symbolic link to a damaged layer file, corrupt (block checksum mismatch",
            layer.display()
        )) && err.contains("a build does not replace it"),
        "{err}"
    );
    assert!(layer.symlink_metadata().unwrap().file_type().is_symlink());
    assert_eq!(std::fs::read(&target).unwrap(), bad);
    // Above the first missing layer, a link is in the way whatever it leads to: the build
    // would write that layer anew.
    std::fs::remove_file(set.join("k005.egdb")).unwrap();
    for content in [&bad, &good[6]] {
        std::fs::write(&target, content).unwrap();
        let out = run();
        assert_eq!(out.status.code(), Some(1));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!("{}: a symbolic link ", layer.display())),
            "{err}"
        );
        assert!(!set.join("k005.egdb").exists(), "nothing was built");
        assert!(layer.symlink_metadata().unwrap().file_type().is_symlink());
    }
}

/// Every command that meets a link to a damaged layer says to delete the link first, as the
/// build that refuses it does (tester 86: `info`, `probe` and `solve` advised that build).
#[test]
fn every_command_says_a_link_to_a_damaged_layer_goes_first() {
    let (dir, set, good) = built_set();
    let elsewhere = tempfile::tempdir().unwrap();
    let target = elsewhere.path().join("k006.egdb");
    std::fs::write(&target, &good[6][..good[6].len() - 40]).unwrap();
    let layer = set.join("k006.egdb");
    std::fs::remove_file(&layer).unwrap();
    std::os::unix::fs::symlink(&target, &layer).unwrap();
    let run = |args: &[&str]| {
        let out = common::kalah_with_egdb_dir(args, dir.path());
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr)
    };
    let said = format!("{}: truncated (", layer.display());
    for args in [
        &["egdb", "info"][..],
        &["egdb", "probe", "1,0,2,1,0,2,0,0 S"],
        &["solve", "1,0,2,1,0,2,0,0 S"],
    ] {
        let text = run(args);
        assert!(text.contains(&said), "{args:?}: {text}");
        assert!(
            text.contains(
                ", through a symbolic link; a build leaves it alone: move it away or delete it"
            ),
            "{args:?}: {text}"
        );
        assert!(!text.contains("replaces it"), "{args:?}: {text}");
    }
    assert!(run(&["egdb", "info"]).contains(
        "until that file is moved away or deleted (a build leaves it alone) and `kalah egdb build"
    ));
    assert!(run(&["egdb", "verify", "--houses", "3"]).contains(&format!(
        "delete '{}' (a build leaves it alone: a link",
        layer.display()
    )));
}

/// A layer file zero-filled, or copied over another layer, is told once what to do, with the
/// whole build command, by every command (sessions 39–40: `verify` gave two pieces of advice,
/// `info` none with a command, and `build` said to "let this user read it").
#[test]
fn a_zeroed_or_copied_layer_is_told_its_remedy_once() {
    let (dir, set, good) = built_set();
    let run = |args: &[&str]| {
        let out = common::kalah_with_egdb_dir(args, dir.path());
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr)
    };
    let layer = set.join("k006.egdb");
    let command = "`kalah egdb build --houses 3 --max-seeds 8";
    for (bytes, what) in [
        (vec![0u8; good[6].len()], "bad magic"),
        (good[5].clone(), "holds layer 5"),
    ] {
        std::fs::write(&layer, &bytes).unwrap();
        let text = run(&["egdb", "verify", "--houses", "3"]);
        assert_eq!(text.matches("move away").count(), 1, "{text}");
        assert!(!text.contains("build the layer again"), "{text}");
        assert!(text.contains(command), "{text}");
        let text = run(&["egdb", "info"]);
        assert!(text.contains(what), "{text}");
        assert!(
            text.contains(&format!(
                "moved away or deleted (a build leaves it alone) and {command}"
            )),
            "{text}"
        );
        let text = run(&[
            "egdb",
            "build",
            "--houses",
            "3",
            "--max-seeds",
            "8",
            "--quiet",
        ]);
        assert!(
            text.contains("move it away or delete it, then run the same command again"),
            "{text}"
        );
        assert!(!text.contains("let this user read it"), "{text}");
        assert!(std::fs::read(&layer).unwrap() == bytes, "left alone");
        let text = run(&["solve", "1,0,2,1,0,2,0,0 S"]);
        assert_eq!(text.matches("move it away").count(), 1, "{text}");
        assert!(text.contains(command), "{text}");
    }
}

/// Past a missing layer, `verify` names what the build that fills the gap would not write over
/// (tester 88: a file that is no database there made the advised build fail), and the advice,
/// followed, works.
#[test]
fn verify_names_what_is_in_the_way_of_filling_a_gap() {
    let (dir, set, _) = built_set();
    std::fs::remove_file(set.join("k005.egdb")).unwrap();
    let junk = set.join("k008.egdb");
    std::fs::write(&junk, b"junk").unwrap();
    // `kalah egdb ARGS --egdb-dir DIR`'s output; it succeeds.
    let run = |args: &[&str]| {
        let args: Vec<&str> = ["egdb"].into_iter().chain(args.iter().copied()).collect();
        String::from_utf8_lossy(&common::kalah_ok_with_egdb_dir(&args, dir.path())).to_string()
    };
    let verify = || run(&["verify", "--houses", "3"]);
    // The advice to move `p` away before the build to `top` seeds.
    let move_first = |p: &Path, top: u32| {
        format!(
            "move away or delete '{}' (a build does not write over it), then `kalah egdb build --houses 3 --max-seeds {top}",
            p.display()
        )
    };
    let said = verify();
    assert!(said.contains(&move_first(&junk, 8)), "{said}");
    std::fs::remove_file(&junk).unwrap();
    // A link to a good layer above the gap: `info` names it too (tester 89: it named only the
    // build, which refuses to write over a link).
    let k007 = set.join("k007.egdb");
    let elsewhere = tempfile::tempdir().unwrap();
    let copy = elsewhere.path().join("k007.egdb");
    std::fs::rename(&k007, &copy).unwrap();
    std::os::unix::fs::symlink(&copy, &k007).unwrap();
    let listed = run(&["info"]);
    assert!(listed.contains(&move_first(&k007, 7)), "{listed}");
    std::fs::remove_file(&k007).unwrap();
    std::fs::rename(&copy, &k007).unwrap();
    let said = verify();
    assert!(
        said.contains("; `kalah egdb build --houses 3 --max-seeds 7"),
        "{said}"
    );
    build_3_8(dir.path()).arg("--quiet").assert().success();
    assert!(!verify().contains("missing"));
}

/// `verify` names the first three bad layer files in full, and the count of the rest, as
/// `solve` and `probe` do (tester 86: it named every one, twice, and the line was clipped in
/// the middle of its advice).
#[test]
fn verify_names_three_bad_files_and_counts_the_rest() {
    let (dir, set, good) = built_set();
    for (k, g) in good.iter().enumerate().take(8).skip(3) {
        std::fs::write(set.join(format!("k{k:03}.egdb")), &g[..g.len() - 10]).unwrap();
    }
    let out = common::kalah_with_egdb_dir(&["egdb", "verify", "--houses", "3"], dir.path());
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("5 bad layer files (layers 3..=7)"), "{err}");
    for k in 3..=5 {
        assert!(err.contains(&format!("k{k:03}.egdb: truncated")), "{err}");
    }
    assert!(
        !err.contains("k006.egdb") && !err.contains("k007.egdb"),
        "{err}"
    );
    assert!(
        err.contains(
            "; and 2 more (`kalah egdb info` lists each); `kalah egdb build --houses 3 --max-seeds 8"
        ),
        "{err}"
    );
    assert!(!err.contains("left out"), "{err}");
}

/// A link to nothing in a set directory's place is refused by every command, as a file there
/// is (tester 86: `solve` searched without databases, `info` called it bad).
#[test]
fn a_link_to_nothing_in_a_set_s_place_is_refused() {
    // A link to nothing, and one to itself, which loops (tester 88: no remedy).
    for (to, says) in [
        ("nowhere", "a symbolic link to nothing"),
        (
            "m3-standard-row-empty-owner",
            "a symbolic link that cannot be followed",
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let set = dir.path().join("m3-standard-row-empty-owner");
        std::os::unix::fs::symlink(dir.path().join(to), &set).unwrap();
        for args in [
            &["egdb", "info"][..],
            &["egdb", "probe", "1,0,2,1,0,2,0,0 S"],
            &["solve", "1,0,2,1,0,2,0,0 S"],
            &["egdb", "verify", "--houses", "3"],
        ] {
            let out = common::kalah_with_egdb_dir(args, dir.path());
            let text = String::from_utf8_lossy(&out.stdout).to_string()
                + &String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{args:?}: {text}");
            assert!(text.contains(says), "{args:?}: {text}");
            assert!(
                text.contains("move it away or delete it"),
                "{args:?}: {text}"
            );
        }
    }
}

/// Regression (tester 20): a truncated layer stopped `egdb build` ("delete it and rebuild"),
/// though EGDB.md says running the build again resumes. A damaged layer (truncated, too long,
/// failing its checksum) is now built again, with the layers above it, and says so.
#[test]
fn build_replaces_a_damaged_layer() {
    let (dir, set, good) = built_set();
    type Damage = fn(&mut Vec<u8>);
    let damage: [(&str, Damage); 3] = [
        ("truncated (100 bytes, expected ", |b| b.truncate(100)),
        ("too long (", |b| b.push(0)),
        // The first value of the layer changed: its block's checksum fails.
        ("corrupt (block checksum mismatch (values 0..462))", |b| {
            b[64] ^= 0x01
        }),
    ];
    for (want, damage) in damage {
        let layer = set.join("k006.egdb");
        let mut bytes = good[6].clone();
        damage(&mut bytes);
        std::fs::write(&layer, &bytes).unwrap();
        let out = common::kalah_with_egdb_dir(
            &["egdb", "build", "--houses", "3", "--max-seeds", "8"],
            dir.path(),
        );
        let text = String::from_utf8_lossy(&out.stdout).to_string()
            + &String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{text}");
        assert!(
            text.contains(&format!("layer 6: damaged, {want}")),
            "{want}: {text}"
        );
        assert!(text.contains("layer 5: already built"), "{text}");
        assert!(!text.contains("layer 7: already built"), "{text}");
        for (k, good) in good.iter().enumerate() {
            let now = std::fs::read(set.join(format!("k{k:03}.egdb"))).unwrap();
            assert!(
                &now == good,
                "layer {k} differs from the first build ({want})"
            );
        }
    }
    // A layer of another set in its place is still the user's to move: refused, untouched.
    let other = tempfile::tempdir().unwrap();
    build(other.path(), &["--capture", "empty"]);
    let foreign = std::fs::read(
        other
            .path()
            .join("m3-empty-row-empty-owner")
            .join("k006.egdb"),
    )
    .unwrap();
    std::fs::write(set.join("k006.egdb"), &foreign).unwrap();
    kalah()
        .args(["egdb", "build", "--houses", "3", "--max-seeds", "8"])
        .arg("--egdb-dir")
        .arg(dir.path())
        .assert()
        .failure()
        .stderr(predicate::str::contains("k006.egdb"));
    assert!(std::fs::read(set.join("k006.egdb")).unwrap() == foreign);
}

/// A header whose count of values is not its layer's, with a file length and checksums made
/// to match (or a count so large that the length it implies overflowed): `info` lists the
/// file as bad, as opening the set refuses it (tester 45: one was listed as good, the other
/// panicked in a debug build on the length's overflow).
#[test]
fn info_lists_a_layer_whose_count_is_not_its_layers_as_bad() {
    let (dir, set, fresh) = built_set();
    let bytes = &fresh[3];
    let count = u64::from_le_bytes(bytes[32..40].try_into().unwrap());
    // Format 1 (one payload checksum): one value more, every checksum recomputed.
    let mut one_more = bytes[..64 + count as usize].to_vec();
    one_more.push(0);
    one_more[8..12].copy_from_slice(&1u32.to_le_bytes());
    one_more[32..40].copy_from_slice(&(count + 1).to_le_bytes());
    let payload = crc32fast::hash(&one_more[64..]);
    one_more[40..44].copy_from_slice(&payload.to_le_bytes());
    let crc = crc32fast::hash(&one_more[..44]);
    one_more[44..48].copy_from_slice(&crc.to_le_bytes());
    // The largest count, the header's checksum recomputed.
    let mut huge = bytes.clone();
    huge[32..40].copy_from_slice(&u64::MAX.to_le_bytes());
    let crc = crc32fast::hash(&huge[..44]);
    huge[44..48].copy_from_slice(&crc.to_le_bytes());
    for (file, says) in [
        (one_more, format!("its header says {} values, but a layer of 3 seeds on 3 houses a side holds {count}", count + 1)),
        (huge, format!("its header says {} values", u64::MAX)),
    ] {
        std::fs::write(set.join("k003.egdb"), &file).unwrap();
        let out = kalah()
            .args(["egdb", "info", "--egdb-dir"])
            .arg(dir.path())
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).to_string()
            + &String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{text}");
        assert!(text.contains("k003.egdb: ") && text.contains(&says), "{text}");
        assert!(text.contains("layers 0..=2"), "{text}");
    }
}

/// Layers of file format 1 (no block checksums, before 2 Dec 2026): `info` says so and names
/// the build that rewrites them; the build says it did, and the files are then those of a
/// fresh build.
#[test]
fn info_names_format_1_layers_and_build_upgrades_them() {
    let (dir, set, fresh) = built_set();
    for k in [2, 3, 7] {
        let bytes = &fresh[k];
        let count = u64::from_le_bytes(bytes[32..40].try_into().unwrap()) as usize;
        let mut v1 = bytes[..64 + count].to_vec();
        v1[8..12].copy_from_slice(&1u32.to_le_bytes());
        let crc = crc32fast::hash(&v1[..44]);
        v1[44..48].copy_from_slice(&crc.to_le_bytes());
        std::fs::write(set.join(format!("k{k:03}.egdb")), v1).unwrap();
    }
    let out = kalah()
        .args(["egdb", "info", "--egdb-dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("layers 2..=3 and 7 in file format 1, without block checksums")
            && text.contains("kalah egdb build --houses 3 --max-seeds 7"),
        "{text}"
    );
    let out = build_3_8(dir.path()).output().unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}");
    for k in [2, 3, 7] {
        assert!(
            text.contains(&format!(
                "layer {k}: already built, rewritten in file format 2"
            )),
            "{text}"
        );
    }
    for (k, fresh) in fresh.iter().enumerate() {
        assert!(
            std::fs::read(set.join(format!("k{k:03}.egdb"))).unwrap() == *fresh,
            "layer {k}"
        );
    }
    let out = kalah()
        .args(["egdb", "info", "--egdb-dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&out.stdout).contains("format 1"));
}

/// The size a build announces is what it writes, as `egdb info` lists it (tester 37: the
/// build left out the block checksums, 19.4 kB against 19.5 kB).
#[test]
fn build_announces_the_size_it_writes() {
    let dir = tempfile::tempdir().unwrap();
    let out = common::kalah_with_egdb_dir(
        &[
            "egdb",
            "build",
            "--houses",
            "3",
            "--max-seeds",
            "12",
            "--quiet",
        ],
        dir.path(),
    );
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let said = text
        .split("size on disk and memory needed: ")
        .nth(1)
        .and_then(|t| t.split(';').next())
        .unwrap_or_else(|| panic!("{text}"))
        .to_string();
    let set = dir.path().join("m3-standard-row-empty-owner");
    let bytes: u64 = std::fs::read_dir(&set)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".egdb"))
        .map(|e| e.metadata().unwrap().len())
        .sum();
    assert_eq!(said, format!("{:.1} kB", bytes as f64 / 1e3), "{text}");
    let info = common::kalah_with_egdb_dir(&["egdb", "info"], dir.path());
    let listed = String::from_utf8_lossy(&info.stdout);
    assert!(
        listed.contains(&format!("18564 positions, {said}")),
        "{listed}"
    );
}

/// A layer whose values are wrong but whose checksums hold (rewritten with fresh ones): `verify`
/// names the lowest layer that differs and its file, says to delete it first (a build keeps a
/// file whose checksums hold) and gives the build; following that advice mends the set (tester
/// 64: it said "delete the layers and rebuild", naming no file).
#[test]
fn verify_names_the_file_to_delete_after_a_wrong_value() {
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), &[]);
    let rules = kalah_core::Rules::default();
    let layer = dir
        .path()
        .join("m3-standard-row-empty-owner")
        .join("k006.egdb");
    let good = std::fs::read(&layer).unwrap();
    let db = kalah_egdb::Egdb::open(dir.path(), 3, &rules)
        .unwrap()
        .unwrap();
    let mut values = db.layer_values(6).to_vec();
    drop(db);
    // Every value 2 higher: possible values (the probes take them), all wrong.
    for v in values.iter_mut() {
        *v = v.wrapping_add(2);
    }
    let header = kalah_egdb::file::read_header(&layer).unwrap();
    kalah_egdb::file::write_layer(&layer, &header, &values).unwrap();
    let out = common::kalah_with_egdb_dir(&["egdb", "verify", "--houses", "3"], dir.path());
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    let want = format!(
        "; a build keeps a file whose checksums hold: delete {}, then `kalah egdb build --houses 3 --max-seeds 8 --egdb-dir {}` builds layer 6 again",
        layer.display(),
        dir.path().display()
    );
    assert!(err.contains(" in layers 6"), "{err}");
    assert!(err.contains("(first: layer 6 rank "), "{err}");
    assert!(err.contains(&want), "{err}");
    // The advice, followed: the file back as it was built, and verify passes.
    std::fs::remove_file(&layer).unwrap();
    build(dir.path(), &[]);
    assert_eq!(std::fs::read(&layer).unwrap(), good);
    kalah()
        .args(["egdb", "verify", "--houses", "3", "--egdb-dir"])
        .arg(dir.path())
        .assert()
        .success();
}

/// A set of layer 0 alone holds one position, and every line says so in the singular
/// (tester 98: "1 positions").
#[test]
fn one_position_is_one_position() {
    let dir = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        let out = kalah()
            .args(args)
            .arg("--egdb-dir")
            .arg(dir.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}: {out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let built = run(&["egdb", "build", "--houses", "3", "--max-seeds", "0"]);
    let info = run(&["egdb", "info"]);
    let verified = run(&["egdb", "verify", "--houses", "3"]);
    for text in [&built, &info, &verified] {
        assert!(text.contains("1 position"), "{text}");
        assert!(!text.contains("1 positions"), "{text}");
        assert!(!text.contains("1 entries"), "{text}");
    }
    assert!(built.contains(": layer 0 seeds, 1 position\n"), "{built}");
    assert!(
        verified.contains(": layer 0, 1 position; checking"),
        "{verified}"
    );
    assert!(info.contains("layer 0, 1 position, "), "{info}");
    assert!(
        verified.contains("verified: the 1 entry agrees with its children"),
        "{verified}"
    );
}
