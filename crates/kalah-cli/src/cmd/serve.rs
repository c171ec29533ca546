//! `kalah serve`: the web page and JSON API on a local address.

use std::net::{IpAddr, SocketAddr, ToSocketAddrs};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context, Result};

/// Arguments of `kalah serve`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Address to listen on: an IP address (127.0.0.1: this machine only; 0.0.0.0: every
    /// IPv4 interface; IPv6 as ::1, with or without brackets) or a host name such as localhost, resolved by the
    /// system and listened on at its first address that can be bound, IPv4 ones first.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1")]
    pub bind: String,
    /// Port to listen on (0: any free port; the address is printed).
    #[arg(long, value_name = "PORT", default_value_t = 8080, allow_negative_numbers = true, value_parser = parse_port)]
    pub port: u16,
    /// Most engine searches at once, 1 to 1024; more get "503 busy" at once [default: one per
    /// core].
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = parse_slots)]
    pub engine_slots: Option<usize>,
    /// Most thinking time of one engine request, in milliseconds (1 to 86400000).
    #[arg(long, value_name = "MS", allow_negative_numbers = true, default_value_t = 10_000, value_parser = parse_ms)]
    pub max_time_ms: u64,
    /// Thinking time of an engine request that does not ask for one, in milliseconds (1 to
    /// 86400000, at most --max-time-ms, to which a larger value is lowered).
    #[arg(long, value_name = "MS", allow_negative_numbers = true, default_value_t = 1_000, value_parser = parse_ms)]
    pub default_time_ms: u64,
    /// Longest wait for a request, in milliseconds (1 to 86400000): a connection that sends no
    /// whole request head this long after it opened or after its last answer is closed, and a
    /// body not received whole this long after its head gets 408. Engine work does not count.
    #[arg(long, value_name = "MS", allow_negative_numbers = true, default_value_t = 20_000, value_parser = parse_ms)]
    pub read_timeout_ms: u64,
    /// Directory of the endgame databases (built by `kalah egdb build`), used by the engine's
    /// moves and analyses wherever the board size and rules match [default: the per-user
    /// database root, ~/.local/share/kalah/egdb on Linux, if it exists]
    #[arg(long, value_name = "DIR")]
    pub egdb_dir: Option<std::path::PathBuf>,
    /// Do not use endgame databases even if present
    #[arg(long, conflicts_with = "egdb_dir")]
    pub no_egdb: bool,
}

/// Parses `--port`: 0 (any free port) to 65535.
fn parse_port(s: &str) -> Result<u16, String> {
    crate::game_args::whole_number(s, 0, 65_535, "").map(|n| n as u16)
}

/// Parses `--engine-slots`: 1 to 1024 (with 0 every engine request would get 503).
fn parse_slots(s: &str) -> Result<usize, String> {
    crate::game_args::whole_number(s, 1, 1024, "engine slots").map(|n| n as usize)
}

/// Parses a time in milliseconds: 1 to a day.
pub(crate) fn parse_ms(s: &str) -> Result<u64, String> {
    crate::game_args::whole_number(s, 1, 86_400_000, "milliseconds")
}

/// The addresses to listen on for `--bind host` and `port`, in the order to try them: an IP
/// address as it is (an IPv6 one with or without its brackets), or the addresses of a host name
/// from the system resolver (`/etc/hosts`, DNS), IPv4 ones first and without repeats.
///
/// # Errors
/// One line naming `host`: an empty address, a name that does not resolve (with the resolver's
/// reason), or one that resolves to no address.
fn bind_addrs(host: &str, port: u16) -> Result<Vec<SocketAddr>> {
    let bare = host
        .strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host);
    if let Ok(ip) = bare.parse::<IpAddr>() {
        return Ok(vec![SocketAddr::new(ip, port)]);
    }
    if bare.trim().is_empty() {
        bail!("--bind needs an address or a host name, e.g. 127.0.0.1 or localhost");
    }
    // A port after the host: `host:80`, `localhost:`, `[::1]:80`; apart from those, a lone
    // bracket (`[::1`, tester 78) or a mistyped IPv6 address is not told about ports.
    let port_given = match host.strip_prefix('[') {
        Some(rest) => rest.contains("]:"),
        // One colon after a name or address (more are IPv6's).
        None => host.matches(':').count() == 1 && !host.starts_with(':') && !host.contains(']'),
    };
    let hint = if port_given {
        " (give the port with --port, not in --bind)"
    } else if host.starts_with('[') != host.ends_with(']') {
        " (an IPv6 address in brackets needs both of them: [::1])"
    } else if bare.contains(':') {
        " (nor is it an IP address: an IPv6 address is written like ::1 or [::1])"
    } else {
        ""
    };
    let mut addrs: Vec<SocketAddr> = match (bare, port).to_socket_addrs() {
        Ok(a) => a.collect(),
        // An address with a port is no host name (tester 90): the hint says what it is.
        Err(e) if port_given => bail!("--bind {host}: not an address or host name: {e}{hint}"),
        Err(e) => bail!("--bind {host}: cannot resolve this host name: {e}{hint}"),
    };
    if addrs.is_empty() {
        bail!("--bind {host}: the host name has no address{hint}");
    }
    // Stable: the resolver's order within each family.
    addrs.sort_by_key(SocketAddr::is_ipv6);
    let mut seen = Vec::with_capacity(addrs.len());
    addrs.retain(|a| {
        let new = !seen.contains(a);
        seen.push(*a);
        new
    });
    Ok(addrs)
}

/// The server's reports of damaged database files name the whole build command that mends
/// them, as `kalah solve`'s do (`` `kalah egdb build --houses 3 --max-seeds 8 --egdb-dir
/// /srv/egdb` builds it again ``); the default root goes without `--egdb-dir`.
fn egdb_advice() -> kalah_web::EgdbAdvice {
    kalah_web::EgdbAdvice {
        open_error: Arc::new(|e, root, houses, rules| {
            let given = crate::cmd::egdb::given_root(root);
            crate::cmd::egdb::with_build_command(e, root, houses, rules, given)
        }),
        repair: Arc::new(crate::cmd::egdb::repair_with_command),
    }
}

/// Runs `kalah serve` until Ctrl-C (or SIGTERM).
pub fn run(args: Args) -> Result<()> {
    let mut config = kalah_web::Config {
        max_time: Duration::from_millis(args.max_time_ms),
        default_time: Duration::from_millis(args.default_time_ms.clamp(1, args.max_time_ms)),
        read_timeout: Duration::from_millis(args.read_timeout_ms),
        ..kalah_web::Config::default()
    };
    if let Some(n) = args.engine_slots {
        config.engine_slots = n;
    }
    if !args.no_egdb {
        config.egdb_dir = match args.egdb_dir {
            Some(d) => {
                crate::cmd::solve::check_egdb_root(&d)?;
                // /api/info reports it: an absolute path means something to a client.
                Some(std::fs::canonicalize(&d).unwrap_or(d))
            }
            None => kalah_egdb::default_dir().filter(|d| crate::cmd::solve::default_dir_present(d)),
        };
        config.egdb_advice = Some(egdb_advice());
    }
    let addrs = bind_addrs(&args.bind, args.port)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async move {
        // The first address that can be bound (tokio tries them in order).
        let listener = tokio::net::TcpListener::bind(&addrs[..])
            .await
            .with_context(|| {
                let list: Vec<String> = addrs.iter().map(ToString::to_string).collect();
                if addrs.len() == 1 && args.bind.parse::<IpAddr>().is_ok() {
                    format!("cannot listen on {}", list[0])
                } else {
                    format!("cannot listen on {} ({})", args.bind, list.join(", "))
                }
            })?;
        let local = listener
            .local_addr()
            .context("cannot read the listening address")?;
        let host = match local.ip() {
            IpAddr::V6(ip) => format!("[{ip}]"),
            IpAddr::V4(ip) => ip.to_string(),
        };
        // A closed stdout (`kalah serve | head -0`) used to panic here: the line is only
        // information, so the server keeps running without it; it goes to stderr then, as it
        // is the only place that names the port of `--port 0` (tester 40: `> /dev/full` lost it
        // silently).
        let line = format!(
            "kalah serve: listening on http://{host}:{}/ (Ctrl-C to stop)",
            local.port()
        );
        let stop = shutdown_signal();
        if let Err(e) = crate::output::print(&format!("{line}\n")) {
            stderr_line!("kalah: warning: {}; {line}", crate::output::error_line(&e));
        }
        kalah_web::serve(listener, config, stop)
            .await
            .context("the server failed")
    })
}

/// A future that completes on Ctrl-C (SIGINT) or, on Unix, SIGTERM or SIGHUP, as every command
/// that handles Ctrl-C takes them (tester 44: a SIGHUP killed the server without finishing its
/// requests). On Unix the handlers are installed by this call, so call it (within the runtime)
/// before the listening line is printed: a signal sent as soon as the line is read is caught.
/// A second signal during the stop ends the process at once, with the exit code of that
/// signal (130, 143, 129), dropping the requests in flight (tester 78: a half-sent request held
/// the stop for the whole read limit, and a second Ctrl-C did nothing).
fn shutdown_signal() -> impl std::future::Future<Output = ()> + Send + 'static {
    #[cfg(unix)]
    let wait = {
        use tokio::signal::unix::{signal, Signal, SignalKind};
        // A handler that cannot be installed leaves that signal's default action.
        async fn recv(s: Option<&mut Signal>) {
            match s {
                Some(s) => {
                    s.recv().await;
                }
                None => std::future::pending().await,
            }
        }
        /// The next of the three signals: its exit code and name.
        async fn next(
            int: &mut Option<Signal>,
            term: &mut Option<Signal>,
            hup: &mut Option<Signal>,
        ) -> (i32, &'static str) {
            tokio::select! {
                _ = recv(int.as_mut()) => (130, "Ctrl-C"),
                _ = recv(term.as_mut()) => (143, "SIGTERM"),
                _ = recv(hup.as_mut()) => (129, "SIGHUP"),
            }
        }
        let mut int = signal(SignalKind::interrupt()).ok();
        let mut term = signal(SignalKind::terminate()).ok();
        let mut hup = signal(SignalKind::hangup()).ok();
        async move {
            next(&mut int, &mut term, &mut hup).await;
            stderr_line!("kalah serve: stopping");
            tokio::spawn(async move {
                let (code, name) = next(&mut int, &mut term, &mut hup).await;
                stderr_line!(
                    "kalah serve: stopped at once by a second signal ({name}); the requests in \
                     flight were dropped"
                );
                std::process::exit(code);
            });
        }
    };
    #[cfg(not(unix))]
    let wait = async {
        let _ = tokio::signal::ctrl_c().await;
        stderr_line!("kalah serve: stopping");
    };
    wait
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bind_takes_ip_addresses_and_host_names() {
        let one = |host: &str| bind_addrs(host, 8080).unwrap();
        assert_eq!(one("0.0.0.0"), vec!["0.0.0.0:8080".parse().unwrap()]);
        assert_eq!(one("127.0.0.1"), vec!["127.0.0.1:8080".parse().unwrap()]);
        assert_eq!(one("::1"), vec!["[::1]:8080".parse().unwrap()]);
        assert_eq!(one("[::1]"), vec!["[::1]:8080".parse().unwrap()]);
        assert_eq!(one("::"), vec!["[::]:8080".parse().unwrap()]);
        // `localhost` resolves to loopback addresses only, IPv4 first, each once.
        let local = one("localhost");
        assert!(!local.is_empty());
        assert!(local
            .iter()
            .all(|a| a.ip().is_loopback() && a.port() == 8080));
        assert!(local.windows(2).all(|w| w[0].is_ipv4() || w[1].is_ipv6()));
        for (i, a) in local.iter().enumerate() {
            assert!(!local[i + 1..].contains(a), "{local:?}");
        }
    }

    #[test]
    fn a_bind_address_that_does_not_resolve_is_named() {
        // `.invalid` never resolves (RFC 6761).
        let e = bind_addrs("no-such-host.invalid", 8080)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("--bind no-such-host.invalid: cannot resolve"),
            "{e}"
        );
        assert!(!e.contains('\n'), "{e}");
        let e = bind_addrs("127.0.0.1:9000", 8080).unwrap_err().to_string();
        assert!(e.contains("--port"), "{e}");
        let e = bind_addrs("", 8080).unwrap_err().to_string();
        assert!(e.contains("--bind needs"), "{e}");
        // A bracket missing, or an IPv6 address mistyped, is not told to move its port
        // (tester 78).
        for (host, hint) in [
            ("[::1", "needs both of them: [::1]"),
            ("::1]", "needs both of them: [::1]"),
            ("::g", "nor is it an IP address"),
            ("fe80::g", "nor is it an IP address"),
            ("localhost:80", "give the port with --port"),
            ("[::1]:80", "give the port with --port"),
            ("localhost:", "give the port with --port"),
        ] {
            let e = bind_addrs(host, 8080).unwrap_err().to_string();
            assert!(e.starts_with(&format!("--bind {host}: ")), "{e}");
            assert!(e.contains(hint) && e.ends_with(')'), "{host}: {e}");
        }
    }
}
