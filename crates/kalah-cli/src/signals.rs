//! The signals that stop a command: Ctrl-C (SIGINT), and SIGTERM and SIGHUP (`kill`, a closed
//! terminal). One handler a process, run on a thread of its own (signal-hook's iterator) and
//! told which signal came: a first Ctrl-C may only stop a search or warn, while SIGTERM and
//! SIGHUP end the command as a second Ctrl-C does (tester 52: `kill` of a `kalah play` at its
//! prompt only warned, and every stop said "Ctrl-C" and exited 130).

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::time::{Duration, Instant};

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};

/// The last stopping signal received (SIGINT until one comes).
static LAST: AtomicI32 = AtomicI32::new(SIGINT);
/// Whether [`on_stop`] has installed its handler.
static INSTALLED: AtomicBool = AtomicBool::new(false);
/// Whether a stopping signal has come.
static RECEIVED: AtomicBool = AtomicBool::new(false);
/// Whether the end of the process is claimed ([`claim_end`]).
static ENDING: AtomicBool = AtomicBool::new(false);

/// A stopping signal, as the handler of [`on_stop`] is told it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stop {
    /// SIGINT: a search stops, a prompt may warn first.
    CtrlC,
    /// SIGTERM or SIGHUP: the command ends (cleanly: files written, bounds printed).
    End,
}

/// Runs `handler` on a thread of its own for every SIGINT, SIGTERM and SIGHUP from now on,
/// in place of their default (the process dying on the spot).
///
/// # Errors
/// When a handler is installed already (the first one stays), or the signals cannot be
/// caught.
pub(crate) fn on_stop(mut handler: impl FnMut(Stop) + Send + 'static) -> std::io::Result<()> {
    if INSTALLED.swap(true, Ordering::SeqCst) {
        return Err(std::io::Error::other("a signal handler is set already"));
    }
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP])?;
    std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            for signal in signals.forever() {
                LAST.store(signal, Ordering::SeqCst);
                RECEIVED.store(true, Ordering::SeqCst);
                handler(if signal == SIGINT {
                    Stop::CtrlC
                } else {
                    Stop::End
                });
            }
        })?;
    Ok(())
}

/// Whether a stopping signal has come since [`on_stop`] installed its handler (a search that
/// stopped without one stopped at a limit).
pub(crate) fn received() -> bool {
    RECEIVED.load(Ordering::SeqCst)
}

/// The exit code of a command stopped by the last signal received: 128 + its number (130 for
/// Ctrl-C, 143 for SIGTERM, 129 for SIGHUP), as a shell reports a command that the signal
/// killed.
pub(crate) fn exit_code() -> i32 {
    128 + LAST.load(Ordering::SeqCst)
}

/// How messages name the last signal received: `interrupted (Ctrl-C)`, `terminated
/// (SIGTERM)` or `hung up (SIGHUP)`.
pub(crate) fn stopped_by() -> &'static str {
    match LAST.load(Ordering::SeqCst) {
        SIGTERM => "terminated (SIGTERM)",
        SIGHUP => "hung up (SIGHUP)",
        _ => "interrupted (Ctrl-C)",
    }
}

/// The name of the last stopping signal received, as JSON output gives it: `SIGINT` (Ctrl-C,
/// also before any signal came), `SIGTERM` or `SIGHUP`.
pub(crate) fn signal_name() -> &'static str {
    match LAST.load(Ordering::SeqCst) {
        SIGTERM => "SIGTERM",
        SIGHUP => "SIGHUP",
        _ => "SIGINT",
    }
}

/// Claims the end of the process for the caller: `true` for the first caller only. A signal's
/// handler that ends the program and the main thread that ends it normally both claim it
/// first, so that only one of them prints its last lines and sets the exit code (tester 104:
/// a group kill that also closed the input pipe ended a game with exit code 0, or with the
/// signal's line cut short).
pub(crate) fn claim_end() -> bool {
    !ENDING.swap(true, Ordering::SeqCst)
}

/// Whether the end of the process is claimed ([`claim_end`]).
fn ending() -> bool {
    ENDING.load(Ordering::SeqCst)
}

/// Waits for the end of the process that another thread has claimed ([`claim_end`]): never
/// returns.
pub(crate) fn wait_for_end() -> ! {
    loop {
        std::thread::sleep(Duration::from_secs(3600));
    }
}

/// Gives a signal's handler up to `grace` to claim the end of the process ([`claim_end`]),
/// polling every `every`: if it does, waits for that end and never returns; else returns
/// once `grace` has passed.
pub(crate) fn yield_to_signal_end(grace: Duration, every: Duration) {
    let until = Instant::now() + grace;
    while Instant::now() < until {
        if ending() {
            wait_for_end();
        }
        std::thread::sleep(every);
    }
}
