//! Helpers shared by the CLI's integration tests.
// Each test crate includes this module and uses only some of it.
#![allow(dead_code)]

use std::path::Path;
use std::process::{Child, Command, Output};
use std::time::Duration;

/// Waits `after`, sends SIGINT (Ctrl-C) to `child`, and returns its output once it has exited.
///
/// # Panics
/// If `kill` cannot be run or fails, or waiting for the child fails.
pub fn interrupt(child: Child, after: Duration) -> Output {
    std::thread::sleep(after);
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success(), "kill -INT {}", child.id());
    child.wait_with_output().unwrap()
}

/// Waits `after`, sends `signal` (`TERM`, `HUP`, ...) to `child`, and returns its output once
/// it has exited.
///
/// # Panics
/// If `kill` cannot be run or fails, or waiting for the child fails.
pub fn signal(child: Child, signal: &str, after: Duration) -> Output {
    std::thread::sleep(after);
    let status = Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success(), "kill -{signal} {}", child.id());
    child.wait_with_output().unwrap()
}

/// Reads all of `child`'s captured standard error (up to its end: the child has exited or
/// closed it) and waits for the child to exit.
///
/// # Panics
/// If the child's stderr was not captured or already taken, or reading or waiting fails.
pub fn stderr_to_end(child: &mut Child) -> (std::process::ExitStatus, String) {
    use std::io::Read;
    let mut err = String::new();
    child
        .stderr
        .take()
        .expect("stderr captured")
        .read_to_string(&mut err)
        .unwrap();
    (child.wait().unwrap(), err)
}

/// Starts the `kalah` binary with `args`, its stdout and stderr captured.
///
/// # Panics
/// If the binary cannot be started.
pub fn spawn_kalah(args: &[&str]) -> Child {
    Command::new(assert_cmd::cargo::cargo_bin("kalah"))
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

/// Runs `kalah ARGS --no-egdb` (never the user's databases in tests), asserts that it succeeded
/// and returns its standard output.
///
/// # Panics
/// If the binary cannot be run or exits with an error (the message shows its stderr).
pub fn kalah_ok(args: &[&str]) -> Vec<u8> {
    let args: Vec<&str> = args.iter().copied().chain(["--no-egdb"]).collect();
    kalah_ok_as_given(&args)
}

/// Runs `kalah ARGS --egdb-dir DIR` and returns its output, whatever its exit code.
///
/// # Panics
/// If the binary cannot be run.
pub fn kalah_with_egdb_dir(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kalah"))
        .args(args)
        .arg("--egdb-dir")
        .arg(dir)
        .output()
        .expect("run kalah")
}

/// Runs `kalah ARGS --egdb-dir DIR`, asserts that it succeeded and returns its standard output.
///
/// # Panics
/// If the binary cannot be run or exits with an error (the message shows its stderr).
pub fn kalah_ok_with_egdb_dir(args: &[&str], dir: &Path) -> Vec<u8> {
    let out = kalah_with_egdb_dir(args, dir);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// Runs `kalah ARGS` exactly as given (for commands without database flags, e.g. `show`),
/// asserts that it succeeded and returns its standard output.
///
/// # Panics
/// If the binary cannot be run or exits with an error (the message shows its stderr).
pub fn kalah_ok_as_given(args: &[&str]) -> Vec<u8> {
    let out = Command::new(assert_cmd::cargo::cargo_bin("kalah"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// Builds the standard-capture endgame databases of Kalah(`houses`,·) to `max_seeds` seeds in
/// `dir` (`kalah egdb build --quiet`).
///
/// # Panics
/// If the build fails.
pub fn build_egdb(dir: &Path, houses: u32, max_seeds: u32) {
    let out = Command::new(assert_cmd::cargo::cargo_bin("kalah"))
        .args(["egdb", "build", "--quiet", "--houses", &houses.to_string()])
        .args(["--max-seeds", &max_seeds.to_string(), "--egdb-dir"])
        .arg(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Overwrites every value of the layer file `path` (the last `arrangements` bytes: one byte for
/// each arrangement of the layer's seeds) with `value`, and rewrites the header's checksums to
/// match: a damage the checksums miss, as in a layer too large to be checked when a set is
/// opened (see `kalah_egdb::CHECKED_ON_OPEN`).
///
/// # Panics
/// If the file cannot be read or written, or is shorter than that.
pub fn overwrite_layer(path: &Path, arrangements: usize, value: u8) {
    let bytes = std::fs::read(path).unwrap();
    let n = bytes.len();
    assert!(n > arrangements, "{}: {n} bytes", path.display());
    let header = kalah_egdb::file::read_header(path).unwrap();
    let payload = vec![value; arrangements];
    kalah_egdb::file::write_layer(path, &header, &payload).unwrap();
}

/// A new pseudo-terminal: its master and slave ends (`openpty`), for a child whose stdin or
/// stderr must be a terminal.
///
/// # Panics
/// If `openpty` fails.
#[cfg(unix)]
pub fn openpty() -> (std::os::fd::OwnedFd, std::os::fd::OwnedFd) {
    use std::os::fd::{FromRawFd, OwnedFd};
    let (mut master, mut slave) = (0, 0);
    // SAFETY: openpty writes two new descriptors into the integers; the null pointers ask for
    // no name, default terminal settings and size.
    let rc = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    assert_eq!(rc, 0, "openpty: {}", std::io::Error::last_os_error());
    // Neither end may leak into a child (openpty's descriptors are inherited across exec): a
    // child holding the master keeps the terminal open after the test closes it. The slave
    // given as a child's stdin is duplicated onto descriptor 0, which does not keep the flag.
    for fd in [master, slave] {
        // SAFETY: fcntl on descriptors just made; FD_CLOEXEC is the only descriptor flag.
        let rc = unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) };
        assert_eq!(rc, 0, "fcntl: {}", std::io::Error::last_os_error());
    }
    // SAFETY: both descriptors are new and owned here only.
    unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) }
}
