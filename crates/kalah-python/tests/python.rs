//! Runs the Python test suite (tests/test_kalah.py, unittest) on the module cargo built: the
//! crate's cdylib, copied into a temporary directory as `kalah.so` and imported from there by
//! `python3` (or the interpreter named by `PYO3_PYTHON`, the one pyo3 built for). No Python
//! package is needed; `.ci/python.sh` runs the same suite on the wheel maturin builds.

use std::path::{Path, PathBuf};
use std::process::Command;

// Makes cargo build the library, cdylib included, before this test (see Cargo.toml).
use kalah_python as _;

/// The cdylib cargo built for this test run: `libkalah_python.so` in this test's own `deps`
/// directory (a copy in the profile directory above is only refreshed by `cargo build`).
fn built_module() -> PathBuf {
    let exe = std::env::current_exe().expect("the test's own path");
    let lib = exe
        .parent()
        .expect("the test runs from <target>/<profile>/deps")
        .join("libkalah_python.so");
    if lib.exists() {
        return lib;
    }
    panic!(
        "libkalah_python.so not found beside {}: cargo builds it for this test",
        exe.display()
    );
}

#[test]
fn python_test_suite() {
    let lib = built_module();
    let dir = tempfile::tempdir().expect("a temporary directory");
    std::fs::copy(&lib, dir.path().join("kalah.so")).expect("copy the module");
    let python = std::env::var("PYO3_PYTHON").unwrap_or_else(|_| "python3".to_string());
    let tests = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let out = Command::new(&python)
        .args(["-m", "unittest", "discover", "-v", "-s"])
        .arg(&tests)
        .args(["-p", "test_*.py"])
        .env("PYTHONPATH", dir.path())
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .unwrap_or_else(|e| {
            panic!("cannot run {python} (Python 3.8 or later is needed for these tests): {e}")
        });
    let stderr = String::from_utf8_lossy(&out.stderr);
    eprintln!("{stderr}");
    assert!(out.status.success(), "the Python test suite failed");
    // A run that found no tests also exits 0: check that it ran them.
    assert!(
        stderr.contains("\nOK") && !stderr.contains("Ran 0 tests"),
        "the Python test suite ran no tests"
    );
}
