//! `kalah referee`: games between two agent programs that speak the Manchester Kalah protocol
//! ([`kalah_protocol::manchester`]), as the Manchester game engine (`ManKalah.jar`) plays them:
//! each agent a process started anew for each game, the referee's messages on its standard
//! input, its actions read from its standard output.
//!
//! An agent loses the game (a forfeit) when it sends a line that is not an action, an illegal
//! action, a line when it is not its turn, nothing within `--timeout-ms`, or closes its output.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use kalah_core::{GameRecord, Position, Rules, Side, Start};
use kalah_protocol::manchester::{
    self, content_len, parse_reply, printable, state_text, Message, Referee, MAX_LINE,
};
use serde_json::json;

use crate::game_args::{parse_houses, parse_seeds};
use crate::output::print;

/// Arguments of `kalah referee`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Agent A: a command line, run by the shell (`sh -c`), e.g. "python3 mybot.py" or
    /// "kalah agent --level hard". A is South in the odd games.
    #[arg(value_name = "AGENT_A")]
    pub a: String,
    /// Agent B: a command line, as AGENT_A. B is South in the even games.
    #[arg(value_name = "AGENT_B")]
    pub b: String,
    /// Games to play, the agents exchanging sides from one to the next.
    #[arg(long, value_name = "N", default_value = "2", allow_negative_numbers = true, value_parser = parse_games)]
    pub games: u64,
    /// Houses a side, 1 to 12.
    #[arg(long, value_name = "M", default_value = "7", allow_negative_numbers = true, value_parser = parse_houses)]
    pub houses: usize,
    /// Seeds in each house at the start.
    #[arg(long, value_name = "N", default_value = "7", allow_negative_numbers = true, value_parser = parse_seeds)]
    pub seeds: u32,
    /// The rules, in the text form (`capture=standard pie=on ...`; keys left out take the
    /// standard rule) [default: the Manchester rules, `pie=on first-move-extra-turn=off`].
    #[arg(long, value_name = "TEXT", value_parser = crate::game_args::parse_rules)]
    pub rules: Option<Rules>,
    /// Most time an agent may take for one action, in milliseconds, counted from the message
    /// that asks for it; an agent over it loses the game.
    #[arg(
        long,
        value_name = "MS",
        default_value = "60000",
        allow_negative_numbers = true,
        value_parser = crate::cmd::serve::parse_ms
    )]
    pub timeout_ms: u64,
    /// Save each game's record in this directory (an existing one), as game-1.txt, game-2.txt,
    /// ... (`kalah review` reads them); files already there are refused before the first game.
    #[arg(long, value_name = "DIR")]
    pub save_dir: Option<PathBuf>,
    /// One JSON object at the end instead of the text lines.
    #[arg(long)]
    pub json: bool,
}

fn parse_games(s: &str) -> Result<u64, String> {
    crate::game_args::whole_number(s, 1, 100_000, "games")
}

/// What an agent's output gives the referee.
enum Read {
    Line(String),
    TooLong,
    /// Its output closed (the process most likely ended).
    Closed,
    Failed(String),
}

/// An agent's running process. Its output is read on a thread of its own into the game's
/// channel, tagged with the agent's index, so that the referee sees the lines of both agents
/// in the order they come (a line out of turn is blamed on its sender even while the other
/// agent thinks).
struct Agent {
    child: Child,
    stdin: Option<ChildStdin>,
}

impl Agent {
    /// Starts `command` with the shell, its standard input and output piped to the referee,
    /// its standard error the referee's; its lines go to `tx` tagged `k`.
    fn spawn(command: &str, k: usize, tx: Sender<(usize, Read)>) -> Result<Agent> {
        let mut cmd = if cfg!(windows) {
            let mut c = Command::new("cmd");
            c.arg("/C").arg(command);
            c
        } else {
            let mut c = Command::new("sh");
            c.arg("-c").arg(command);
            c
        };
        // Each agent in a process group of its own, so that whatever it starts (a shell's
        // child, a bot's helpers) ends with it ([`Agent::finish`], and on Ctrl-C).
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .with_context(|| format!("cannot start the agent `{command}`"))?;
        groups::add(child.id());
        let stdin = child.stdin.take();
        let stdout = child
            .stdout
            .take()
            .context("the agent's output is not piped")?;
        std::thread::spawn(move || {
            let mut out = BufReader::new(stdout);
            let mut buf = Vec::new();
            loop {
                buf.clear();
                let read =
                    std::io::Read::take(&mut out, MAX_LINE as u64 + 2).read_until(b'\n', &mut buf);
                let event = match read {
                    Ok(0) => Read::Closed,
                    Ok(_) if content_len(&buf) > MAX_LINE => Read::TooLong,
                    Ok(_) => Read::Line(String::from_utf8_lossy(&buf).into_owned()),
                    Err(e) => Read::Failed(e.to_string()),
                };
                let last = !matches!(event, Read::Line(_));
                if tx.send((k, event)).is_err() || last {
                    return;
                }
            }
        });
        Ok(Agent { child, stdin })
    }

    /// Writes one message. `Err`: why not (the agent closed its input).
    fn send(&mut self, msg: &Message) -> Result<(), String> {
        let Some(stdin) = self.stdin.as_mut() else {
            return Err("its input is closed".to_string());
        };
        let line = format!("{}\n", msg.line());
        let sent = stdin
            .write_all(line.as_bytes())
            .and_then(|()| stdin.flush());
        sent.map_err(|e| match self.child.try_wait() {
            Ok(Some(status)) => format!("it ended ({status}) before the message {}", msg.line()),
            _ => format!("it did not take the message {} ({e})", msg.line()),
        })
    }

    /// Why the agent's output closed: its exit status, if it has ended.
    /// `when`: `without an action` (it was to act) or `before the game's end`.
    fn closed_why(&mut self, when: &str) -> String {
        // A moment for the process to be reaped after its output closed.
        for _ in 0..20 {
            if let Ok(Some(status)) = self.child.try_wait() {
                return format!("it ended ({status}) {when}");
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        format!("it closed its output {when}")
    }

    /// Why no action came within `timeout`: the time, and the exit status if the agent ended
    /// (a process it started then held its output open).
    fn timeout_why(&mut self, timeout: Duration) -> String {
        match self.child.try_wait() {
            Ok(Some(status)) => format!(
                "it ended ({status}) without an action, and a process it started kept its \
                 output open for the {} ms it had",
                timeout.as_millis()
            ),
            _ => format!("it sent no action within {} ms", timeout.as_millis()),
        }
    }

    /// Closes its input, gives it a second to end, then kills it and what it started.
    fn finish(mut self) {
        drop(self.stdin.take());
        let deadline = Instant::now() + Duration::from_secs(1);
        let mut ended = false;
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                ended = true;
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        // Its process group too: a process it left behind is still in it.
        groups::kill(self.child.id());
        if !ended {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
        groups::remove(self.child.id());
    }
}

/// The process groups of the running agents (each agent leads one, its group id its process
/// id), killed when the agent's game ends and when a signal stops the referee.
mod groups {
    use std::sync::Mutex;

    static LIVE: Mutex<Vec<u32>> = Mutex::new(Vec::new());

    fn live() -> std::sync::MutexGuard<'static, Vec<u32>> {
        LIVE.lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub(super) fn add(id: u32) {
        live().push(id);
    }

    pub(super) fn remove(id: u32) {
        live().retain(|&g| g != id);
    }

    /// Kills the process group `id` (SIGKILL), if it still has a process.
    pub(super) fn kill(id: u32) {
        #[cfg(unix)]
        if let Ok(pgid) = i32::try_from(id) {
            // SAFETY: kill(2) with a negative id signals that process group; it touches no
            // memory of ours.
            unsafe {
                libc::kill(-pgid, libc::SIGKILL);
            }
        }
        #[cfg(not(unix))]
        let _ = id;
    }

    /// Kills every live agent's group (a signal stops the referee).
    pub(super) fn kill_all() {
        for &id in live().iter() {
            kill(id);
        }
    }
}

/// An agent's time over a game or a match.
#[derive(Clone, Copy, Debug, Default)]
struct Clock {
    actions: u64,
    total: Duration,
    longest: Duration,
}

impl Clock {
    fn add(&mut self, took: Duration) {
        self.actions += 1;
        self.total += took;
        self.longest = self.longest.max(took);
    }

    fn merge(&mut self, other: &Clock) {
        self.actions += other.actions;
        self.total += other.total;
        self.longest = self.longest.max(other.longest);
    }

    fn json(&self) -> serde_json::Value {
        json!({
            "actions": self.actions,
            "seconds": crate::output::json_seconds(self.total.as_secs_f64()),
            "longest_seconds": crate::output::json_seconds(self.longest.as_secs_f64()),
        })
    }
}

/// How a game ended.
enum End {
    /// Played out: the final stores, South's and North's.
    Played([u8; 2]),
    /// Agent `loser` (0: the one that began as South) forfeited, for `why`.
    Forfeit { loser: usize, why: String },
}

/// One game's result. Agents are indexed by the side they began on (0: South).
struct Game {
    number: u64,
    /// Whether agent A began as South.
    a_south: bool,
    record: GameRecord,
    swapped: bool,
    end: End,
    clocks: [Clock; 2],
    seconds: f64,
}

impl Game {
    /// The agent's index (0 began as South) of A.
    fn a(&self) -> usize {
        usize::from(!self.a_south)
    }

    /// Points of A: 1 for a win, 0.5 for a draw.
    fn a_points(&self) -> f64 {
        match self.a_diff() {
            Some(d) if d > 0 => 1.0,
            Some(0) => 0.5,
            Some(_) => 0.0,
            None => match &self.end {
                End::Forfeit { loser, .. } if *loser == self.a() => 0.0,
                _ => 1.0,
            },
        }
    }

    /// A's store minus B's, for a game played out.
    fn a_diff(&self) -> Option<i32> {
        let End::Played(stores) = self.end else {
            return None;
        };
        // Agent 0 ends on South unless North swapped.
        let a_side = if (self.a() == 0) != self.swapped {
            Side::South
        } else {
            Side::North
        };
        let a = i32::from(stores[a_side.index()]);
        let b = i32::from(stores[a_side.opposite().index()]);
        Some(a - b)
    }
}

/// Runs `kalah referee`.
pub fn run(args: Args) -> Result<()> {
    for (name, command) in [("AGENT_A", &args.a), ("AGENT_B", &args.b)] {
        if command.trim().is_empty() {
            crate::output::usage_bail!("{name} is empty: give the command line of an agent");
        }
    }
    let rules = args.rules.unwrap_or_else(manchester::rules);
    let layout = Start::uniform(args.houses, args.seeds)
        .with_context(|| format!("no Kalah({},{}) board", args.houses, args.seeds))?;
    let start = Position::start(&layout, &rules);
    let timeout = Duration::from_millis(args.timeout_ms.max(1));
    if let Some(dir) = &args.save_dir {
        check_save_dir(dir, args.games)?;
    }
    let games: Arc<Mutex<Vec<Game>>> = Arc::default();
    // Ctrl-C (or SIGTERM, SIGHUP) ends the agents, which have process groups of their own,
    // then the referee, with the summary of the games played: the records saved so far are
    // whole, the game being played is lost.
    {
        let games = Arc::clone(&games);
        let summary = Summary::of(&args, &rules);
        let _ = crate::signals::on_stop(move |_| {
            groups::kill_all();
            let played = lock(&games);
            let _ = summary.print(&played, true);
            stderr_line!(
                "kalah: {}: the referee stopped after {} of {} games; the game being played is \
                 not saved",
                crate::signals::stopped_by(),
                played.len(),
                summary.games
            );
            std::process::exit(crate::signals::exit_code());
        });
    }
    if !args.json {
        print(&format!(
            "referee: A = `{}`, B = `{}`; Kalah({},{}), {rules}; {} game{}, {} ms an action at most\n",
            printable(&args.a),
            printable(&args.b),
            args.houses,
            args.seeds,
            args.games,
            if args.games == 1 { "" } else { "s" },
            timeout.as_millis()
        ))?;
    }
    for number in 1..=args.games {
        let a_south = number % 2 == 1;
        let (south, north) = if a_south {
            (&args.a, &args.b)
        } else {
            (&args.b, &args.a)
        };
        let game = play(number, a_south, [south, north], &rules, start, timeout)?;
        // The result first: a record that cannot be saved does not lose it.
        if !args.json {
            print(&format!("{}\n", game_line(&game)))?;
        }
        let text = game.record.to_text();
        lock(&games).push(game);
        if let Some(dir) = &args.save_dir {
            let path = dir.join(format!("game-{number}.txt"));
            if let Err(e) = crate::cmd::play::save_new_atomically(&path, &text) {
                // The games played are reported before the error (tester 116: the JSON of
                // two games played was lost).
                Summary::of(&args, &rules).print(&lock(&games), false)?;
                return Err(e.context(format!(
                    "cannot save game {number} to {}; the referee stopped after it",
                    path.display()
                )));
            }
        }
    }
    let played = lock(&games);
    Summary::of(&args, &rules).print(&played, false)
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// What the summary says besides the games: the agents, the board, the rules.
struct Summary {
    a: String,
    b: String,
    houses: usize,
    seeds: u32,
    rules: Rules,
    timeout_ms: u64,
    games: u64,
    json: bool,
}

impl Summary {
    fn of(args: &Args, rules: &Rules) -> Summary {
        Summary {
            a: args.a.clone(),
            b: args.b.clone(),
            houses: args.houses,
            seeds: args.seeds,
            rules: *rules,
            timeout_ms: args.timeout_ms,
            games: args.games,
            json: args.json,
        }
    }

    /// Prints the summary of `games` (with `--json`, the whole object); `stopped`: a signal
    /// stopped the referee before its last game.
    fn print(&self, games: &[Game], stopped: bool) -> Result<()> {
        let (points, wins, draws, losses) = games.iter().fold((0.0, 0, 0, 0), |(p, w, d, l), g| {
            let x = g.a_points();
            (
                p + x,
                w + u64::from(x == 1.0),
                d + u64::from(x == 0.5),
                l + u64::from(x == 0.0),
            )
        });
        let mut clocks = [Clock::default(); 2];
        for g in games {
            clocks[0].merge(&g.clocks[g.a()]);
            clocks[1].merge(&g.clocks[1 - g.a()]);
        }
        let n = games.len() as f64;
        if self.json {
            let list: Vec<_> = games.iter().map(game_json).collect();
            let mut v = json!({
                "a": self.a,
                "b": self.b,
                "houses": self.houses,
                "seeds": self.seeds,
                "rules": self.rules.to_string(),
                "timeout_ms": self.timeout_ms,
                "games": list,
                "summary": {
                    "games": games.len(),
                    "a_wins": wins,
                    "draws": draws,
                    "a_losses": losses,
                    "a_points": points,
                    "b_points": n - points,
                    "a_clock": clocks[0].json(),
                    "b_clock": clocks[1].json(),
                }
            });
            if stopped {
                v["summary"]["stopped"] = json!(true);
                v["summary"]["signal"] = json!(crate::signals::signal_name());
            }
            return print(&format!("{v}\n"));
        }
        if games.is_empty() {
            return Ok(());
        }
        print(&format!(
            "A: {wins} win{}, {draws} draw{}, {losses} loss{}: {points} point{} of {n} ({:.1} %)\ntime: {}; {}\n",
            if wins == 1 { "" } else { "s" },
            if draws == 1 { "" } else { "s" },
            if losses == 1 { "" } else { "es" },
            if points == 1.0 { "" } else { "s" },
            100.0 * points / n,
            clock_line("A", &clocks[0]),
            clock_line("B", &clocks[1]),
        ))
    }
}

/// Refuses a save directory that is not a directory or cannot take a file, or that holds a game
/// file already.
fn check_save_dir(dir: &std::path::Path, games: u64) -> Result<()> {
    if !dir.exists() {
        bail!(
            "--save-dir {}: no such directory (make it first)",
            dir.display()
        );
    }
    if !dir.is_dir() {
        bail!("--save-dir {}: not a directory", dir.display());
    }
    for number in 1..=games {
        let path = dir.join(format!("game-{number}.txt"));
        if path.symlink_metadata().is_ok() {
            bail!(
                "--save-dir {}: {} exists already; the referee does not replace records (use \
                 another directory)",
                dir.display(),
                path.display()
            );
        }
    }
    // A file made and removed: a directory that cannot take the records is refused before the
    // first game (`/proc/self` is a directory, but no file can be made in it).
    let probe = dir.join(format!(".kalah-referee-{}.tmp", std::process::id()));
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
    {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
            Ok(())
        }
        Err(e) => bail!(
            "--save-dir {}: the records cannot be written there: {e}",
            dir.display()
        ),
    }
}

/// The action line of agent `k` within `timeout`, from the game's channel `rx`. `Err`: the
/// agent that forfeits and why: `k` (no line in time, a line too long, its output closed), or
/// the other agent, when a line of its comes first (out of turn) or its output closes first
/// (it quit before the game's end).
fn reply(
    agents: &mut [Agent; 2],
    rx: &Receiver<(usize, Read)>,
    k: usize,
    timeout: Duration,
) -> Result<String, (usize, String)> {
    // Whatever comes first decides: the line of the agent to act, or any event of the other.
    match rx.recv_timeout(timeout) {
        Ok((j, Read::Line(line))) if j == k => Ok(line),
        Ok((j, Read::Line(line))) => Err((
            j,
            format!("it sent '{}' when it was not its turn", printable(&line)),
        )),
        Ok((j, Read::TooLong)) => {
            let when = if j == k {
                ""
            } else {
                " when it was not its turn"
            };
            Err((
                j,
                format!("it sent a line longer than {MAX_LINE} bytes{when}"),
            ))
        }
        Ok((j, Read::Closed)) if j == k => Err((k, agents[k].closed_why("without an action"))),
        // The other agent's output closed while the game goes on: it has quit, and loses then,
        // whatever the agent to act does after (tester 116).
        Ok((j, Read::Closed)) => Err((j, agents[j].closed_why("before the game's end"))),
        Ok((j, Read::Failed(e))) => Err((j, format!("its output could not be read ({e})"))),
        Err(RecvTimeoutError::Timeout) => Err((k, agents[k].timeout_why(timeout))),
        Err(RecvTimeoutError::Disconnected) => Err((k, agents[k].closed_why("without an action"))),
    }
}

/// Plays game `number`: `commands[0]` begins as South.
fn play(
    number: u64,
    a_south: bool,
    commands: [&String; 2],
    rules: &Rules,
    start: Position,
    timeout: Duration,
) -> Result<Game> {
    let started = Instant::now();
    let mut referee = Referee::new(*rules, start);
    let mut record = GameRecord::new(*rules, start);
    record.south = commands[0].clone();
    record.north = commands[1].clone();
    let (tx, rx) = mpsc::channel();
    let first = Agent::spawn(commands[0], 0, tx.clone())?;
    let second = match Agent::spawn(commands[1], 1, tx) {
        Ok(a) => a,
        Err(e) => {
            first.finish();
            return Err(e);
        }
    };
    let mut agents = [first, second];
    let mut clocks = [Clock::default(); 2];
    let houses = start.houses();
    let end = 'game: {
        for (k, msg) in referee.start().iter().enumerate() {
            if let Err(why) = agents[k].send(msg) {
                break 'game End::Forfeit { loser: k, why };
            }
        }
        while let Some(k) = referee.to_act() {
            let asked = Instant::now();
            let line = match reply(&mut agents, &rx, k, timeout) {
                Ok(line) => line,
                Err((loser, why)) => break 'game End::Forfeit { loser, why },
            };
            clocks[k].add(asked.elapsed());
            let mv = match parse_reply(&line, houses) {
                Ok(mv) => mv,
                Err(e) => {
                    break 'game End::Forfeit {
                        loser: k,
                        why: e.to_string(),
                    }
                }
            };
            let pos = *referee.position();
            let heard = match referee.play(mv) {
                Ok(heard) => heard,
                Err(e) => {
                    break 'game End::Forfeit {
                        loser: k,
                        why: format!(
                            "its action {} is illegal: {e} (the board {}, {} to move)",
                            printable(&line),
                            state_text(pos.pits()),
                            pos.side()
                        ),
                    }
                }
            };
            // The referee's position took the action: the record takes it too.
            let _ = record.push(mv);
            for (j, msg) in heard.iter().enumerate() {
                if let Some(msg) = msg {
                    // Once an action has ended the game, its result stands: an agent that
                    // has already gone misses only the news.
                    if let Err(why) = agents[j].send(msg) {
                        if !referee.is_over() {
                            break 'game End::Forfeit { loser: j, why };
                        }
                    }
                }
            }
        }
        let pos = referee.position();
        End::Played([pos.store(Side::South), pos.store(Side::North)])
    };
    for agent in &mut agents {
        let _ = agent.send(&Message::End);
    }
    let [a0, a1] = agents;
    // Both end together: each is given its second at once.
    let t = std::thread::spawn(move || a1.finish());
    a0.finish();
    let _ = t.join();
    let swapped = referee.swapped();
    match &end {
        End::Played(stores) => record.tags.push((
            "Termination".to_string(),
            format!("played out, {} – {}", stores[0], stores[1]),
        )),
        End::Forfeit { loser, why } => record.tags.push((
            "Termination".to_string(),
            format!(
                "forfeit by the player who began as {}: {why}",
                if *loser == 0 { "South" } else { "North" }
            ),
        )),
    }
    record
        .tags
        .push(("Event".to_string(), format!("kalah referee, game {number}")));
    Ok(Game {
        number,
        a_south,
        record,
        swapped,
        end,
        clocks,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// `game 1: A (South) 52 – 46 B (North): A wins by 6; 31 actions`, or a forfeit's line.
fn game_line(g: &Game) -> String {
    let name = |k: usize| if k == g.a() { "A" } else { "B" };
    let actions = g.record.moves().len();
    let mut line = match &g.end {
        End::Played(stores) => {
            // The agent on each side at the end.
            let south = if g.swapped { name(1) } else { name(0) };
            let north = if g.swapped { name(0) } else { name(1) };
            let verdict = match g.a_diff() {
                Some(0) => "a draw".to_string(),
                Some(d) if d > 0 => format!("A wins by {d}"),
                Some(d) => format!("B wins by {}", -d),
                None => String::new(),
            };
            format!(
                "game {}: {south} (South) {} – {} {north} (North): {verdict}; {actions} action{}",
                g.number,
                stores[0],
                stores[1],
                if actions == 1 { "" } else { "s" }
            )
        }
        End::Forfeit { loser, why } => format!(
            "game {}: {} forfeits after {actions} action{} ({why}): {} wins",
            g.number,
            name(*loser),
            if actions == 1 { "" } else { "s" },
            name(1 - loser)
        ),
    };
    if g.swapped {
        line.push_str(&format!("; swapped ({} began as South)", name(0)));
    }
    line
}

fn game_json(g: &Game) -> serde_json::Value {
    let mut v = json!({
        "game": g.number,
        "a_side": if g.a_south { "S" } else { "N" },
        "swapped": g.swapped,
        "moves": g.record.moves().iter().map(ToString::to_string).collect::<Vec<_>>(),
        "a_points": g.a_points(),
        "a_clock": g.clocks[g.a()].json(),
        "b_clock": g.clocks[1 - g.a()].json(),
        "seconds": crate::output::json_seconds(g.seconds),
    });
    match &g.end {
        End::Played(stores) => {
            v["stores"] = json!(stores);
            v["a_diff"] = json!(g.a_diff());
        }
        End::Forfeit { loser, why } => {
            v["forfeit"] = json!(if *loser == g.a() { "A" } else { "B" });
            v["why"] = json!(why);
        }
    }
    v
}

/// `A 40 actions, 12.30 s in all, at most 1.10 s`.
fn clock_line(name: &str, c: &Clock) -> String {
    format!(
        "{name} {} action{}, {:.2} s in all, at most {:.2} s",
        c.actions,
        if c.actions == 1 { "" } else { "s" },
        c.total.as_secs_f64(),
        c.longest.as_secs_f64()
    )
}
