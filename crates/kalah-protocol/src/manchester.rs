//! The Manchester Kalah protocol: how the University of Manchester's Kalah game engine
//! (`ManKalah.jar`, course COMP34120) talks to the agents it referees.
//!
//! The referee starts each agent as a process and writes to its standard input; the agent
//! answers on its standard output. Every message is one line, `NAME` or `NAME;ARG;ARG...`, with
//! no spaces, case-sensitive:
//!
//! | from | message | meaning |
//! | --- | --- | --- |
//! | referee | `START;South`, `START;North` | the game begins; the agent plays that side (South moves first) |
//! | referee | `CHANGE;3;STATE;YOU` | an action was played (`3`: the mover's house 3, or `SWAP`), the board is now `STATE`, and the agent moves next (`YOU`), the opponent does (`OPP`), or the game is over (`END`) |
//! | referee | `END` | no more messages: the agent should exit |
//! | agent | `MOVE;3` | sow my house 3 (houses numbered 1..m in sowing order, 1 farthest from my store) |
//! | agent | `SWAP` | pie rule: take over South instead of answering South's first turn |
//!
//! `STATE` is 2m+2 counts: North's houses 1..m, North's store, South's houses 1..m, South's
//! store (North's half first: the halves of this project's bin order, exchanged). The agent
//! hears of every action, its own too, except its own `SWAP`. After a `SWAP` the board stays as
//! it is and the player now on North (the one who began as South) moves.
//!
//! The Manchester game is Kalah(7,7) under the pie rule, with no extra turn on the first move
//! ([`rules`]).
//!
//! Sources: the protocol description shipped with the game engine (`protocol.txt`, "Protocol",
//! the messages `new_match`, `state_change`, `game_over`, `move`, `swap`), and "Kalah – Rules of
//! the Game" (COMP34120 course page, 2011: 7 holes a side, 7 seeds each, the pie rule, "If the
//! last seed is deposited into the current player's scoring well, that player must take another
//! turn. (An exception to this is the first turn, see Pie Rule)").
//!
//! [`Message`] and [`reply_line`] / [`Message::line`] read and write the lines; [`Agent`] follows
//! a game from the referee's messages and says when to act; [`run_agent`] drives an agent over
//! a reader and a writer with any chooser of actions.

use std::fmt;
use std::io::{BufRead, Write};

use kalah_core::{Move, Position, Rules, Setup, Side, Start};

/// Houses a side in the Manchester game.
pub const HOUSES: usize = 7;

/// Seeds in each house at the start of the Manchester game.
pub const SEEDS: u32 = 7;

/// The Manchester rules: standard Kalah (standard capture, the game ends when a row is empty,
/// each player sweeps his own row) with the pie rule and no extra turn on South's first sowing.
pub fn rules() -> Rules {
    Rules {
        pie: true,
        first_move_extra_turn: false,
        ..Rules::STANDARD
    }
}

/// The longest line read from a referee or an agent, in bytes, not counting its line end: a
/// state of 12 houses a side with three-digit counts is under 120 bytes.
pub const MAX_LINE: usize = 1024;

/// Who moves after a `CHANGE` (its last argument).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    /// `YOU`: the agent that reads the message.
    You,
    /// `OPP`: its opponent.
    Opp,
    /// `END`: nobody, the game is over (an `END` message follows).
    End,
}

impl Next {
    /// As the protocol writes it: `YOU`, `OPP`, `END`.
    pub fn word(self) -> &'static str {
        match self {
            Next::You => "YOU",
            Next::Opp => "OPP",
            Next::End => "END",
        }
    }
}

/// A message from the referee to an agent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Message {
    /// `START;South` or `START;North`: the side the agent plays.
    Start(Side),
    /// `CHANGE;<house or SWAP>;<state>;<YOU|OPP|END>`.
    Change {
        /// The action played: [`Move::Sow`] of the mover's house, or [`Move::Swap`].
        action: Move,
        /// The board after it, in this project's bin order (South's houses 1..m, South's store,
        /// North's houses 1..m, North's store), converted from the message's North-first order.
        pits: Vec<u8>,
        /// Who moves next.
        next: Next,
    },
    /// `END`: the game is over and no message follows.
    End,
}

/// A line that is not a message of the protocol, with the line and the reason.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("'{line}' is not a message of the Manchester protocol: {why}")]
pub struct ParseError {
    /// The line as read (without its line end), cut to 80 characters.
    pub line: String,
    /// What is wrong with it.
    pub why: String,
}

impl ParseError {
    fn new(line: &str, why: impl Into<String>) -> ParseError {
        // The reason quotes parts of the line: their control characters escaped too.
        ParseError {
            line: escaped(line, 80),
            why: escaped(&why.into(), usize::MAX),
        }
    }
}

/// `line` without its line end: a `\n`, and a `\r` before it.
fn without_line_end(line: &str) -> &str {
    let text = line.strip_suffix('\n').unwrap_or(line);
    text.strip_suffix('\r').unwrap_or(text)
}

/// The length of a line read with its line end (`\n` or `\r\n`, if any), without it.
pub fn content_len(line: &[u8]) -> usize {
    let text = line.strip_suffix(b"\n").unwrap_or(line);
    text.strip_suffix(b"\r").unwrap_or(text).len()
}

/// A line read from another program as a message may show it: without its line end, control
/// characters escaped (`\u{1b}`, `\t`; a terminal would act on them), cut to 80 characters
/// (`...` after).
pub fn printable(line: &str) -> String {
    escaped(without_line_end(line), 80)
}

/// `text` with its control characters escaped (a stray `\r` too), cut to `most` characters
/// (`...` after).
fn escaped(text: &str, most: usize) -> String {
    let mut shown = String::new();
    for (i, c) in text.chars().enumerate() {
        if i == most {
            shown.push_str("...");
            break;
        }
        if c.is_control() {
            shown.extend(c.escape_default());
        } else {
            shown.push(c);
        }
    }
    shown
}

/// Reads a house number of the protocol: plain digits (leading zeros allowed, as Java's
/// `Integer.parseInt` reads them; no sign), 1 to `houses`.
fn house(text: &str, houses: usize) -> Option<u8> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let digits = text.trim_start_matches('0');
    if digits.is_empty() || digits.len() > 3 {
        return None;
    }
    let h: usize = digits.parse().ok()?;
    (1..=houses).contains(&h).then_some(h as u8)
}

/// The state's counts, in bin order. `pits.len()` is 2m+2 with 1 ≤ m ≤ 12.
fn state_pits(text: &str) -> Result<Vec<u8>, String> {
    let mut counts = Vec::new();
    for (i, item) in text.split(',').enumerate() {
        if item.is_empty() || !item.bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!(
                "count {} of the state, '{item}', is not a whole number",
                i + 1
            ));
        }
        match item.parse::<u8>() {
            Ok(n) => counts.push(n),
            Err(_) => {
                return Err(format!(
                    "count {} of the state, {item}, is above 255",
                    i + 1
                ))
            }
        }
        if counts.len() > 2 * (kalah_core::MAX_HOUSES + 1) {
            return Err(format!(
                "the state has more than {} counts (at most {} houses a side)",
                2 * (kalah_core::MAX_HOUSES + 1),
                kalah_core::MAX_HOUSES
            ));
        }
    }
    let n = counts.len();
    if n < 4 || n % 2 != 0 {
        return Err(format!(
            "the state has {n} counts; a board of m houses a side has 2m+2 (North's houses, its \
             store, South's houses, its store)"
        ));
    }
    // North's half first in the message; South's first in bin order.
    let half = n / 2;
    let mut pits = counts[half..].to_vec();
    pits.extend_from_slice(&counts[..half]);
    Ok(pits)
}

/// `pits` (bin order) as the protocol writes a state: North's half first
/// (`7,7,7,7,7,7,7,0,0,8,8,8,8,8,8,1`).
pub fn state_text(pits: &[u8]) -> String {
    let half = pits.len() / 2;
    pits[half..]
        .iter()
        .chain(&pits[..half])
        .map(u8::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

impl Message {
    /// Reads one line from the referee (a `\r` before the line end is allowed).
    ///
    /// # Errors
    /// [`ParseError`] naming the problem: an unknown message name, a wrong number of
    /// arguments, a side other than `South` or `North`, a house outside 1..m of the state's
    /// board, a state that is not 2m+2 counts of 0 to 255 (1 ≤ m ≤ 12), a turn other than
    /// `YOU`, `OPP` or `END`.
    pub fn parse(line: &str) -> Result<Message, ParseError> {
        let text = without_line_end(line);
        let parts: Vec<&str> = text.split(';').collect();
        let args = |n: usize| -> Result<(), ParseError> {
            if parts.len() == n + 1 {
                Ok(())
            } else {
                Err(ParseError::new(
                    text,
                    format!(
                        "{} takes {n} argument{}, not {}",
                        parts[0],
                        if n == 1 { "" } else { "s" },
                        parts.len() - 1
                    ),
                ))
            }
        };
        match parts[0] {
            "START" => {
                args(1)?;
                match parts[1] {
                    "South" => Ok(Message::Start(Side::South)),
                    "North" => Ok(Message::Start(Side::North)),
                    other => Err(ParseError::new(
                        text,
                        format!("the side is South or North, not '{other}'"),
                    )),
                }
            }
            "CHANGE" => {
                args(3)?;
                let pits = state_pits(parts[2]).map_err(|why| ParseError::new(text, why))?;
                let houses = pits.len() / 2 - 1;
                let action = match parts[1] {
                    "SWAP" => Move::Swap,
                    h => Move::Sow(house(h, houses).ok_or_else(|| {
                        ParseError::new(
                            text,
                            format!("the action is a house from 1 to {houses} or SWAP, not '{h}'"),
                        )
                    })?),
                };
                let next = match parts[3] {
                    "YOU" => Next::You,
                    "OPP" => Next::Opp,
                    "END" => Next::End,
                    other => {
                        return Err(ParseError::new(
                            text,
                            format!("the turn is YOU, OPP or END, not '{other}'"),
                        ))
                    }
                };
                Ok(Message::Change { action, pits, next })
            }
            "END" => {
                args(0)?;
                Ok(Message::End)
            }
            "" => Err(ParseError::new(text, "the line is empty")),
            other => Err(ParseError::new(
                text,
                format!("unknown message '{other}' (a referee sends START, CHANGE or END)"),
            )),
        }
    }

    /// The line the referee writes for this message, without its line end: `START;South`,
    /// `CHANGE;3;7,7,...;OPP`, `END`.
    pub fn line(&self) -> String {
        match self {
            Message::Start(side) => format!("START;{}", side.name()),
            Message::Change { action, pits, next } => format!(
                "CHANGE;{};{};{}",
                action_text(*action),
                state_text(pits),
                next.word()
            ),
            Message::End => "END".to_string(),
        }
    }
}

impl fmt::Display for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.line())
    }
}

/// `3` or `SWAP`.
fn action_text(mv: Move) -> String {
    match mv {
        Move::Sow(h) => h.to_string(),
        Move::Swap => "SWAP".to_string(),
    }
}

/// The line an agent writes for its action, without its line end: `MOVE;3` or `SWAP`.
pub fn reply_line(mv: Move) -> String {
    match mv {
        Move::Sow(h) => format!("MOVE;{h}"),
        Move::Swap => "SWAP".to_string(),
    }
}

/// Reads an agent's answer: `MOVE;h` with 1 ≤ h ≤ `houses`, or `SWAP` (a `\r` before the line
/// end is allowed).
///
/// # Errors
/// [`ParseError`] for anything else, naming the problem.
pub fn parse_reply(line: &str, houses: usize) -> Result<Move, ParseError> {
    let text = without_line_end(line);
    match text.split_once(';') {
        None if text == "SWAP" => Ok(Move::Swap),
        Some(("MOVE", h)) => house(h, houses).map(Move::Sow).ok_or_else(|| {
            ParseError::new(text, format!("the house is a number from 1 to {houses}"))
        }),
        _ => Err(ParseError::new(
            text,
            "an agent answers MOVE;<house> or SWAP",
        )),
    }
}

/// Why an [`Agent`] cannot follow the referee.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AgentError {
    /// A message that cannot come at this point of the game.
    #[error("{message} was not expected {when}")]
    OutOfOrder {
        /// The message's name (`START`, `CHANGE`).
        message: &'static str,
        /// Where the game stood (`before START`, `after END`, `a second time`).
        when: &'static str,
    },
    /// The referee's board does not have the agent's number of houses.
    #[error(
        "the referee's board has {referee} houses a side, and this agent was started for \
         {agent}: start it with --houses {referee}"
    )]
    Houses {
        /// Houses a side in the referee's state.
        referee: usize,
        /// Houses a side of the agent's start.
        agent: usize,
    },
    /// The referee's board, with the side to move its turn gives, is not a position.
    #[error("the referee's state {state} is not a position: {why}")]
    BadState {
        /// The state as the message wrote it.
        state: String,
        /// Why.
        why: String,
    },
    /// The referee says the agent moves, and it has no action there.
    #[error("the referee says this agent moves, but it has no action in {position}")]
    NoAction {
        /// The position.
        position: String,
    },
}

/// What an agent does after a message ([`Agent::handle`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Choose an action in this position (the agent's side to move) and send it with
    /// [`Agent::send`].
    Act(Position),
    /// Wait for the next message: the opponent moves.
    Wait,
    /// The game is over (`CHANGE...;END`); the referee's `END` follows.
    Over,
    /// `END`: the agent should exit.
    Exit,
}

/// An agent's view of a game, kept from the referee's messages.
///
/// The agent plays each action it hears of on its own copy of the position, under its rules,
/// and compares the result with the referee's state and turn. When they differ (a referee with
/// other rules, or a board the agent was not told of), it follows the referee: the position is
/// rebuilt from the state, with the side to move the turn gives (the opening phase is then
/// lost: no `swap` is offered after a rebuild), and [`Agent::handle`] returns a note saying
/// what differed.
#[derive(Clone, Debug)]
pub struct Agent {
    rules: Rules,
    start: Position,
    /// The side this agent plays, once `START` came; it changes with a swap.
    side: Option<Side>,
    pos: Position,
    /// `CHANGE...;END` or `END` came.
    over: bool,
    ended: bool,
    /// The action this agent sent last, until the next `CHANGE` (the echo of a sowing, or
    /// the opponent's answer to a swap, which is not echoed).
    sent: Option<Move>,
}

impl Agent {
    /// An agent for games from `start` (settled: a start that is already over gives none)
    /// under `rules`.
    pub fn new(rules: Rules, start: Position) -> Agent {
        Agent {
            rules,
            start,
            side: None,
            pos: start,
            over: false,
            ended: false,
            sent: None,
        }
    }

    /// An agent for the Manchester game: Kalah(7,7) under [`rules`].
    pub fn manchester() -> Agent {
        let rules = rules();
        let start = Start::uniform(HOUSES, SEEDS).expect("Kalah(7,7) is a valid board");
        Agent::new(rules, Position::start(&start, &rules))
    }

    /// The side the agent plays now (`None` before `START`); it changes when either player
    /// swaps.
    pub fn side(&self) -> Option<Side> {
        self.side
    }

    /// The position as the agent sees it.
    pub fn position(&self) -> &Position {
        &self.pos
    }

    /// The rules the agent plays by.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// Takes in a message from the referee: what to do now, and a note when the referee's
    /// board or turn differed from what the agent's rules gave (the agent then follows the
    /// referee).
    ///
    /// # Errors
    /// [`AgentError`] for a message out of order (a `CHANGE` before `START`, a second `START`,
    /// anything after `END`), a board of another size, a state that is no position, or a turn
    /// to an agent with no action.
    pub fn handle(&mut self, msg: &Message) -> Result<(Step, Option<String>), AgentError> {
        if self.ended {
            return Err(AgentError::OutOfOrder {
                message: msg_name(msg),
                when: "after END",
            });
        }
        match msg {
            Message::Start(side) => {
                if self.side.is_some() {
                    return Err(AgentError::OutOfOrder {
                        message: "START",
                        when: "a second time",
                    });
                }
                self.side = Some(*side);
                self.pos = self.start;
                self.pos.settle(&self.rules);
                Ok((self.step_for_turn(), None))
            }
            Message::Change { action, pits, next } => {
                let Some(me) = self.side else {
                    return Err(AgentError::OutOfOrder {
                        message: "CHANGE",
                        when: "before START",
                    });
                };
                if self.over {
                    return Err(AgentError::OutOfOrder {
                        message: "CHANGE",
                        when: "after the game ended (CHANGE...;END)",
                    });
                }
                let houses = pits.len() / 2 - 1;
                if houses != self.pos.houses() {
                    return Err(AgentError::Houses {
                        referee: houses,
                        agent: self.pos.houses(),
                    });
                }
                let mover = self.pos.to_move();
                let sent = self.sent.take();
                // A referee that echoes this agent's own swap (the Manchester engine does not):
                // the swap is already played, and the sides already exchanged.
                let echoed_swap = sent == Some(Move::Swap) && *action == Move::Swap;
                let echo_note = match sent {
                    _ if echoed_swap => Some(
                        "the referee echoed this agent's own SWAP (the Manchester engine does \
                         not): taken as the swap already made"
                            .to_string(),
                    ),
                    // The referee's echo of this agent's sowing names the house it sent.
                    Some(mv @ Move::Sow(_)) if mover == Some(me) && mv != *action => Some(format!(
                        "the referee played {} for this agent, which sent {}",
                        action_text(*action),
                        reply_line(mv)
                    )),
                    _ => None,
                };
                let mut mine = self.pos;
                let played = if echoed_swap {
                    Ok(())
                } else {
                    mine.play(&self.rules, *action).map(|_| ())
                };
                // The opponent's swap: this agent changes sides.
                if *action == Move::Swap && !echoed_swap {
                    self.side = Some(me.opposite());
                }
                let me = self.side.unwrap_or(me);
                let expected_next = if mine.is_over() {
                    Next::End
                } else if mine.side() == me {
                    Next::You
                } else {
                    Next::Opp
                };
                if played.is_ok() && mine.pits() == &pits[..] && expected_next == *next {
                    self.pos = mine;
                    self.over = *next == Next::End;
                    return Ok((self.step_for_turn(), echo_note));
                }
                let action_words = match (action, mover) {
                    (Move::Swap, _) => "the swap".to_string(),
                    (Move::Sow(h), Some(side)) => format!("{side}'s house {h}"),
                    (Move::Sow(h), None) => format!("house {h}"),
                };
                let what = match (played, mover) {
                    (Err(e), Some(side)) => format!(
                        "action {} is not legal for {side} on the board {} under {} ({e})",
                        action_text(*action),
                        state_text(self.pos.pits()),
                        self.rules
                    ),
                    (Err(e), None) => {
                        format!(
                            "action {} came after the game's end ({e})",
                            action_text(*action)
                        )
                    }
                    (Ok(()), _) => format!(
                        "after {action_words} the referee gives the board {} and the turn {}, \
                         where these rules ({}) give {} and {}",
                        state_text(pits),
                        next.word(),
                        self.rules,
                        state_text(mine.pits()),
                        expected_next.word()
                    ),
                };
                let note = match echo_note {
                    Some(echo) => format!("{echo}; {what}: following the referee"),
                    None => format!("{what}: following the referee"),
                };
                if *next == Next::End {
                    self.over = true;
                    return Ok((Step::Over, Some(note)));
                }
                let to_move = if *next == Next::You {
                    me
                } else {
                    me.opposite()
                };
                let setup = Setup {
                    pits: pits.clone(),
                    to_move: Some(to_move),
                    phase: kalah_core::Phase::Normal,
                };
                self.pos = Position::from_setup(&setup).map_err(|e| AgentError::BadState {
                    state: state_text(pits),
                    why: e.to_string(),
                })?;
                // A row empty: the game is over under these rules, yet the referee gives a turn.
                let mut settled = self.pos;
                if settled.settle(&self.rules).is_some() || self.pos.is_over() {
                    return Err(AgentError::BadState {
                        state: state_text(pits),
                        why: format!(
                            "the game is over on that board under these rules (a row is \
                             empty), and the turn is {}",
                            next.word()
                        ),
                    });
                }
                Ok((self.step_for_turn(), Some(note)))
            }
            Message::End => {
                self.ended = true;
                Ok((Step::Exit, None))
            }
        }
    }

    /// What to do in the position now: act if the agent moves, else wait (or the game is over).
    fn step_for_turn(&self) -> Step {
        if self.over || self.pos.is_over() {
            Step::Over
        } else if Some(self.pos.side()) == self.side {
            Step::Act(self.pos)
        } else {
            Step::Wait
        }
    }

    /// The line to send for the agent's action `mv` (chosen after [`Step::Act`]), and, for a
    /// swap, the change of sides it makes (the referee does not echo an agent's own swap; a
    /// sowing is echoed by a `CHANGE` and played then).
    pub fn send(&mut self, mv: Move) -> String {
        self.sent = Some(mv);
        if mv == Move::Swap && self.pos.play(&self.rules, Move::Swap).is_ok() {
            self.side = self.side.map(Side::opposite);
        }
        reply_line(mv)
    }
}

fn msg_name(msg: &Message) -> &'static str {
    match msg {
        Message::Start(_) => "START",
        Message::Change { .. } => "CHANGE",
        Message::End => "END",
    }
}

/// A referee's view of one game between two agents: agent 0 starts as South, agent 1 as
/// North (they exchange sides when North swaps).
///
/// [`Referee::start`] gives the `START` for each agent, [`Referee::play`] checks and plays the
/// action of the agent to move and gives the `CHANGE` each agent is to hear (none for the
/// agent that swapped), and [`Referee::is_over`] says when `END` is due.
#[derive(Clone, Debug)]
pub struct Referee {
    rules: Rules,
    pos: Position,
    /// The agent on South and the agent on North.
    owner: [usize; 2],
}

impl Referee {
    /// A game from `start` (settled) under `rules`.
    pub fn new(rules: Rules, start: Position) -> Referee {
        let mut pos = start;
        pos.settle(&rules);
        Referee {
            rules,
            pos,
            owner: [0, 1],
        }
    }

    /// The two `START` messages: agent 0's (`START;South`) and agent 1's (`START;North`).
    pub fn start(&self) -> [Message; 2] {
        [Message::Start(Side::South), Message::Start(Side::North)]
    }

    /// The position.
    pub fn position(&self) -> &Position {
        &self.pos
    }

    /// The rules.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The agent (0 or 1) on `side` now.
    pub fn agent_on(&self, side: Side) -> usize {
        self.owner[side.index()]
    }

    /// Whether North swapped (then agent 0 plays North and agent 1 South).
    pub fn swapped(&self) -> bool {
        self.owner[0] == 1
    }

    /// Whether the game is over: `END` is due to both agents.
    pub fn is_over(&self) -> bool {
        self.pos.is_over()
    }

    /// The agent to act, `None` once the game is over.
    pub fn to_act(&self) -> Option<usize> {
        self.pos.to_move().map(|side| self.agent_on(side))
    }

    /// Plays `mv` for the agent to act and returns what each agent hears of it: a `CHANGE`
    /// for both, except none for the agent that swapped.
    ///
    /// # Errors
    /// The [`kalah_core::MoveError`] of an illegal action (the position is then unchanged).
    pub fn play(&mut self, mv: Move) -> Result<[Option<Message>; 2], kalah_core::MoveError> {
        let mover = self.to_act();
        self.pos.play(&self.rules, mv)?;
        if mv == Move::Swap {
            self.owner.swap(0, 1);
        }
        let hear = |k: usize| -> Option<Message> {
            if mv == Move::Swap && mover == Some(k) {
                return None;
            }
            let next = match self.pos.to_move() {
                None => Next::End,
                Some(side) if self.agent_on(side) == k => Next::You,
                Some(_) => Next::Opp,
            };
            Some(Message::Change {
                action: mv,
                pits: self.pos.pits().to_vec(),
                next,
            })
        };
        Ok([hear(0), hear(1)])
    }
}

/// Why [`run_agent`] stopped before the referee's `END`.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// Reading the referee's messages or writing the answers failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// A line that is not a message ([`Message::parse`]), with its line number (from 1).
    #[error("line {0} from the referee: {1}")]
    Parse(u64, ParseError),
    /// A message the agent cannot follow ([`Agent::handle`]), with its line number.
    #[error("line {0} from the referee: {1}")]
    Agent(u64, AgentError),
    /// A line longer than [`MAX_LINE`] bytes.
    #[error("line {0} from the referee is longer than {MAX_LINE} bytes: not a message")]
    TooLong(u64),
    /// The chooser gave an action that is not legal in the position.
    #[error("the action chosen, {action}, is not legal in {position}: {why}")]
    Illegal {
        /// The action.
        action: Move,
        /// The position, as text.
        position: String,
        /// Why it is not legal.
        why: String,
    },
    /// The input ended before `END`.
    #[error("the referee's input ended before END (after {0} line{s})", s = if *.0 == 1 { "" } else { "s" })]
    Closed(u64),
}

/// Plays one game as `agent`: reads the referee's messages from `input` and writes the
/// answers to `output` (each flushed at once), asking `choose` for an action whenever the
/// agent moves. `note` gets each note of [`Agent::handle`]. Returns after `END`.
///
/// # Errors
/// [`RunError`]: the input or output failed, a line is not a message, a message cannot be
/// followed, or the input ended before `END`.
pub fn run_agent<R: BufRead, W: Write>(
    agent: &mut Agent,
    mut input: R,
    mut output: W,
    mut choose: impl FnMut(&Position, &Rules) -> Move,
    mut note: impl FnMut(&str),
) -> Result<(), RunError> {
    let mut line = Vec::new();
    let mut n = 0u64;
    loop {
        line.clear();
        let read = <&mut R as std::io::Read>::take(&mut input, MAX_LINE as u64 + 2)
            .read_until(b'\n', &mut line)?;
        if read == 0 {
            return Err(RunError::Closed(n));
        }
        n += 1;
        if content_len(&line) > MAX_LINE {
            return Err(RunError::TooLong(n));
        }
        let text = String::from_utf8_lossy(&line);
        let msg = Message::parse(&text).map_err(|e| RunError::Parse(n, e))?;
        let (step, said) = agent.handle(&msg).map_err(|e| RunError::Agent(n, e))?;
        if let Some(said) = said {
            note(&said);
        }
        match step {
            Step::Act(pos) => {
                if pos.legal_moves(agent.rules()).is_empty() {
                    return Err(RunError::Agent(
                        n,
                        AgentError::NoAction {
                            position: pos.to_string(),
                        },
                    ));
                }
                let mv = choose(&pos, agent.rules());
                if let Err(e) = pos.check(agent.rules(), mv) {
                    return Err(RunError::Illegal {
                        action: mv,
                        position: pos.to_string(),
                        why: e.to_string(),
                    });
                }
                let reply = agent.send(mv);
                output.write_all(reply.as_bytes())?;
                output.write_all(b"\n")?;
                output.flush()?;
            }
            Step::Wait | Step::Over => {}
            Step::Exit => return Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The start of the Manchester game after South's house 1 (7 seeds: houses 2..7 and the
    /// store; no extra turn on the first move), North's half first.
    const AFTER_S1: &str = "7,7,7,7,7,7,7,0,0,8,8,8,8,8,8,1";

    fn change(action: &str, state: &str, next: &str) -> Message {
        Message::parse(&format!("CHANGE;{action};{state};{next}")).unwrap()
    }

    #[test]
    fn messages_are_read_by_hand() {
        assert_eq!(
            Message::parse("START;South"),
            Ok(Message::Start(Side::South))
        );
        assert_eq!(
            Message::parse("START;North\r\n"),
            Ok(Message::Start(Side::North))
        );
        assert_eq!(Message::parse("END\n"), Ok(Message::End));
        // North's half first in the message, South's first in bin order.
        assert_eq!(
            Message::parse("CHANGE;3;1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16;OPP"),
            Ok(Message::Change {
                action: Move::Sow(3),
                pits: vec![9, 10, 11, 12, 13, 14, 15, 16, 1, 2, 3, 4, 5, 6, 7, 8],
                next: Next::Opp,
            })
        );
        assert_eq!(
            Message::parse("CHANGE;SWAP;3,3,0,3,3,0;YOU"),
            Ok(Message::Change {
                action: Move::Swap,
                pits: vec![3, 3, 0, 3, 3, 0],
                next: Next::You,
            })
        );
        assert_eq!(parse_reply("MOVE;7\n", 7), Ok(Move::Sow(7)));
        assert_eq!(parse_reply("SWAP\r\n", 7), Ok(Move::Swap));
        assert_eq!(reply_line(Move::Sow(4)), "MOVE;4");
        assert_eq!(reply_line(Move::Swap), "SWAP");
    }

    #[test]
    fn bad_lines_are_refused_with_the_reason() {
        let why = |line: &str| Message::parse(line).unwrap_err().to_string();
        assert!(why("START;south").contains("South or North, not 'south'"));
        assert!(why("START").contains("START takes 1 argument, not 0"));
        assert!(why("START;South;x").contains("not 2"));
        assert!(why("END;x").contains("END takes 0 arguments, not 1"));
        assert!(why("").contains("the line is empty"));
        assert!(why("MOVE;3").contains("unknown message 'MOVE'"));
        assert!(why("change;1;3,3,0,3,3,0;YOU").contains("unknown message 'change'"));
        assert!(why("CHANGE;4;3,3,0,3,3,0;YOU").contains("a house from 1 to 2 or SWAP, not '4'"));
        assert!(why("CHANGE;0;3,3,0,3,3,0;YOU").contains("not '0'"));
        assert!(why("CHANGE;+1;3,3,0,3,3,0;YOU").contains("not '+1'"));
        assert!(why("CHANGE;1;3,3,0,3,3;YOU").contains("has 5 counts"));
        assert!(why("CHANGE;1;3,3;YOU").contains("has 2 counts"));
        assert!(
            why("CHANGE;1;3,3,0,3,256,0;YOU").contains("count 5 of the state, 256, is above 255")
        );
        assert!(why("CHANGE;1;3,3,,3,3,0;YOU").contains("count 3 of the state, '', is not"));
        assert!(why("CHANGE;1;3, 3,0,3,3,0;YOU").contains("count 2 of the state, ' 3'"));
        assert!(why("CHANGE;1;3,3,0,3,3,0;you").contains("YOU, OPP or END, not 'you'"));
        assert!(why("CHANGE;1;3,3,0,3,3,0").contains("CHANGE takes 3 arguments, not 2"));
        let long = format!("CHANGE;1;{};YOU", vec!["1"; 30].join(","));
        assert!(why(&long).contains("more than 26 counts"));
        // An agent's answers.
        for bad in [
            "MOVE;8", "MOVE;0", "MOVE;", "MOVE", "move;1", "SWAP;1", "", "MOVE;1;2",
        ] {
            assert!(parse_reply(bad, 7).is_err(), "{bad}");
        }
        // A long line is cut in the message.
        let e = Message::parse(&"X".repeat(500)).unwrap_err();
        assert_eq!(e.line.len(), 83);
    }

    proptest! {
        /// A message written and read again is the same message.
        #[test]
        fn messages_round_trip(
            houses in 1usize..=12,
            counts in proptest::collection::vec(any::<u8>(), 26),
            house in 1u8..=12,
            swap in any::<bool>(),
            next in 0usize..3,
            side in any::<bool>(),
        ) {
            let pits = counts[..2 * houses + 2].to_vec();
            let action = if swap { Move::Swap } else { Move::Sow(house.min(houses as u8)) };
            let next = [Next::You, Next::Opp, Next::End][next];
            let change = Message::Change { action, pits, next };
            prop_assert_eq!(Message::parse(&change.line()), Ok(change.clone()));
            let start = Message::Start(if side { Side::South } else { Side::North });
            prop_assert_eq!(Message::parse(&start.line()), Ok(start));
            prop_assert_eq!(parse_reply(&reply_line(action), houses), Ok(action));
        }
    }

    /// A hand-checked opening of the Manchester game: South sows house 1 (no extra turn on the
    /// first move), North swaps, the agent (now North) sows house 2.
    #[test]
    fn a_swapped_opening_by_hand() {
        let mut a = Agent::manchester();
        let (step, note) = a.handle(&Message::Start(Side::South)).unwrap();
        assert_eq!(note, None);
        let Step::Act(pos) = step else {
            panic!("South moves first: {step:?}")
        };
        assert_eq!(pos.to_string(), "7,7,7,7,7,7,7,0,7,7,7,7,7,7,7,0 S opening");
        assert_eq!(a.send(Move::Sow(1)), "MOVE;1");
        // The agent's own sowing comes back as a CHANGE, and North moves.
        let (step, note) = a.handle(&change("1", AFTER_S1, "OPP")).unwrap();
        assert_eq!((step, note), (Step::Wait, None));
        assert_eq!(
            a.position().to_string(),
            "0,8,8,8,8,8,8,1,7,7,7,7,7,7,7,0 N pie"
        );
        // North swaps: this agent now plays North, and moves.
        let (step, note) = a.handle(&change("SWAP", AFTER_S1, "YOU")).unwrap();
        assert_eq!(note, None);
        assert_eq!(a.side(), Some(Side::North));
        assert!(matches!(step, Step::Act(p) if p.side() == Side::North));
        assert_eq!(a.send(Move::Sow(2)), "MOVE;2");
        // North's house 2 (7 seeds): houses 3..7, the store, South's house 1.
        let (step, note) = a
            .handle(&change("2", "7,0,8,8,8,8,8,1,1,8,8,8,8,8,8,1", "OPP"))
            .unwrap();
        assert_eq!((step, note), (Step::Wait, None));
        assert_eq!(
            a.position().to_string(),
            "1,8,8,8,8,8,8,1,7,0,8,8,8,8,8,1 S"
        );
        assert_eq!(a.handle(&Message::End).unwrap().0, Step::Exit);
        assert!(a.handle(&Message::End).is_err());
    }

    /// The agent's own swap is not echoed: it changes sides when it sends it. A referee that
    /// echoes it anyway is noted, and the echo is not a second swap.
    #[test]
    fn the_agents_own_swap_changes_its_side() {
        for echoed in [false, true] {
            let mut a = Agent::manchester();
            assert_eq!(
                a.handle(&Message::Start(Side::North)).unwrap().0,
                Step::Wait
            );
            let (step, _) = a.handle(&change("1", AFTER_S1, "YOU")).unwrap();
            let Step::Act(pos) = step else {
                panic!("North answers: {step:?}")
            };
            assert!(pos.legal_moves(a.rules()).contains(&Move::Swap));
            assert_eq!(a.send(Move::Swap), "SWAP");
            assert_eq!(a.side(), Some(Side::South));
            if echoed {
                let (step, note) = a.handle(&change("SWAP", AFTER_S1, "OPP")).unwrap();
                assert!(note
                    .unwrap()
                    .starts_with("the referee echoed this agent's own SWAP"));
                assert_eq!(step, Step::Wait);
                assert_eq!(a.side(), Some(Side::South));
            }
            // The opponent, now North, sows its house 2 (see above); then this agent, South,
            // moves.
            let (step, note) = a
                .handle(&change("2", "7,0,8,8,8,8,8,1,1,8,8,8,8,8,8,1", "YOU"))
                .unwrap();
            assert_eq!(note, None);
            assert!(matches!(step, Step::Act(p) if p.side() == Side::South));
        }
    }

    /// The referee's echo of another house than the agent sent is noted.
    #[test]
    fn an_echo_of_another_house_is_noted() {
        let mut a = Agent::manchester();
        a.handle(&Message::Start(Side::South)).unwrap();
        a.send(Move::Sow(2));
        let (step, note) = a.handle(&change("1", AFTER_S1, "OPP")).unwrap();
        assert_eq!(
            note.as_deref(),
            Some("the referee played 1 for this agent, which sent MOVE;2")
        );
        assert_eq!(step, Step::Wait);
    }

    /// A referee that gives the first move's extra turn: the agent notes it and follows.
    #[test]
    fn a_referee_with_other_rules_is_followed_with_a_note() {
        let mut a = Agent::manchester();
        a.handle(&Message::Start(Side::South)).unwrap();
        a.send(Move::Sow(1));
        let (step, note) = a.handle(&change("1", AFTER_S1, "YOU")).unwrap();
        let note = note.expect("a note");
        assert!(
            note.contains("after South's house 1 the referee gives the board 7,7,7,7,7,7,7,0,0,8,8,8,8,8,8,1 and the turn YOU, where these rules"),
            "{note}"
        );
        assert!(note.ends_with(": following the referee"), "{note}");
        let Step::Act(pos) = step else {
            panic!("the referee says South moves: {step:?}")
        };
        assert_eq!(pos.to_string(), "0,8,8,8,8,8,8,1,7,7,7,7,7,7,7,0 S");
        // A sowing the agent thinks illegal is followed too.
        let mut a = Agent::manchester();
        a.handle(&Message::Start(Side::North)).unwrap();
        a.handle(&change("1", AFTER_S1, "YOU")).unwrap();
        a.send(Move::Sow(1));
        // North's house 1 (7 seeds) ends in its store: an extra turn.
        let (step, note) = a
            .handle(&change("1", "0,8,8,8,8,8,8,1,0,8,8,8,8,8,8,1", "YOU"))
            .unwrap();
        assert_eq!(note, None);
        assert!(matches!(step, Step::Act(p) if p.side() == Side::North));
        a.send(Move::Sow(1));
        // House 1 again, now empty.
        let (step, note) = a
            .handle(&change("1", "0,8,8,8,8,8,8,1,0,8,8,8,8,8,8,1", "OPP"))
            .unwrap();
        let note = note.expect("a note");
        assert!(
            note.starts_with(
                "action 1 is not legal for North on the board 0,8,8,8,8,8,8,1,0,8,8,8,8,8,8,1 under "
            ),
            "{note}"
        );
        assert_eq!(step, Step::Wait);
        assert_eq!(a.position().side(), Side::South);
    }

    #[test]
    fn messages_out_of_order_and_other_boards_are_errors() {
        let mut a = Agent::manchester();
        let e = a.handle(&change("1", AFTER_S1, "OPP")).unwrap_err();
        assert_eq!(e.to_string(), "CHANGE was not expected before START");
        a.handle(&Message::Start(Side::South)).unwrap();
        let e = a.handle(&Message::Start(Side::North)).unwrap_err();
        assert_eq!(e.to_string(), "START was not expected a second time");
        let e = a.handle(&change("1", "3,3,0,3,3,0", "OPP")).unwrap_err();
        assert_eq!(
            e,
            AgentError::Houses {
                referee: 2,
                agent: 7
            }
        );
        assert!(e.to_string().contains("start it with --houses 2"));
        // A state the turn makes impossible: every house empty, and a side to move.
        let e = a
            .handle(&change("1", "0,0,0,0,0,0,0,49,0,0,0,0,0,0,0,49", "YOU"))
            .unwrap_err();
        assert!(matches!(e, AgentError::BadState { .. }), "{e}");
    }

    /// A [`Referee`] plays whole games between two agents (random legal actions, swaps
    /// included), its messages written and read again: neither agent ever differs from the
    /// referee, each sees the referee's position, and each acts exactly when the referee asks
    /// it; the agents' sides follow the swaps.
    #[test]
    fn two_agents_follow_whole_games() {
        use std::collections::hash_map::DefaultHasher;
        use std::hash::{Hash, Hasher};
        let mut swaps = 0;
        for game in 0..300u64 {
            let (houses, seeds) = [(7, 7), (6, 4), (3, 3), (1, 2)][game as usize % 4];
            let rules = Rules {
                pie: game % 3 != 2,
                first_move_extra_turn: game % 5 == 0,
                ..Rules::STANDARD
            };
            let start = Position::start(&Start::uniform(houses, seeds).unwrap(), &rules);
            let mut referee = Referee::new(rules, start);
            let mut agents = [Agent::new(rules, start), Agent::new(rules, start)];
            for (agent, msg) in agents.iter_mut().zip(referee.start()) {
                agent.handle(&Message::parse(&msg.line()).unwrap()).unwrap();
            }
            let mut ply = 0u64;
            while let Some(a) = referee.to_act() {
                let pos = *referee.position();
                assert_eq!(agents[a].side(), Some(pos.side()));
                assert_eq!(agents[a].position(), &pos);
                let legal = pos.legal_moves(&rules);
                let mut h = DefaultHasher::new();
                (game, ply).hash(&mut h);
                let mv = legal[(h.finish() % legal.len() as u64) as usize];
                let line = agents[a].send(mv);
                let heard = referee.play(parse_reply(&line, houses).unwrap()).unwrap();
                for (k, (agent, msg)) in agents.iter_mut().zip(heard).enumerate() {
                    let Some(msg) = msg else {
                        assert!(mv == Move::Swap && k == a, "only the swapper hears nothing");
                        continue;
                    };
                    let msg = Message::parse(&msg.line()).unwrap();
                    let Message::Change { next, .. } = msg else {
                        panic!("{msg}")
                    };
                    let (step, note) = agent.handle(&msg).unwrap();
                    assert_eq!(note, None, "game {game}: {msg}");
                    match next {
                        Next::You => {
                            assert!(matches!(step, Step::Act(p) if p == *referee.position()));
                            assert_eq!(referee.to_act(), Some(k));
                        }
                        Next::Opp => {
                            assert_eq!(step, Step::Wait);
                            assert_ne!(referee.to_act(), Some(k));
                        }
                        Next::End => {
                            assert_eq!(step, Step::Over);
                            assert!(referee.is_over());
                        }
                    }
                }
                ply += 1;
            }
            swaps += u32::from(referee.swapped());
            for (k, agent) in agents.iter_mut().enumerate() {
                let side = if referee.agent_on(Side::South) == k {
                    Side::South
                } else {
                    Side::North
                };
                assert_eq!(agent.side(), Some(side));
                assert_eq!(agent.handle(&Message::End).unwrap().0, Step::Exit);
            }
        }
        assert!(swaps > 10, "{swaps} games with a swap");
    }

    /// The referee refuses an illegal action and leaves the game as it was.
    #[test]
    fn the_referee_refuses_an_illegal_action() {
        let mut r = Referee::new(rules(), *Agent::manchester().position());
        assert_eq!(r.to_act(), Some(0));
        assert!(r.play(Move::Swap).is_err());
        assert!(r.play(Move::Sow(8)).is_err());
        let heard = r.play(Move::Sow(1)).unwrap();
        assert_eq!(
            heard[0].as_ref().map(Message::line).as_deref(),
            Some("CHANGE;1;7,7,7,7,7,7,7,0,0,8,8,8,8,8,8,1;OPP")
        );
        assert_eq!(
            heard[1].as_ref().map(Message::line).as_deref(),
            Some("CHANGE;1;7,7,7,7,7,7,7,0,0,8,8,8,8,8,8,1;YOU")
        );
        let heard = r.play(Move::Swap).unwrap();
        assert_eq!(heard[1], None);
        assert_eq!(
            heard[0].as_ref().map(Message::line).as_deref(),
            Some("CHANGE;SWAP;7,7,7,7,7,7,7,0,0,8,8,8,8,8,8,1;YOU")
        );
        assert_eq!(r.agent_on(Side::South), 1);
        assert_eq!(r.to_act(), Some(0));
        assert!(r.play(Move::Swap).is_err());
    }

    #[test]
    fn run_agent_answers_on_its_output_and_ends_at_end() {
        let script = format!("START;South\nCHANGE;1;{AFTER_S1};OPP\nCHANGE;SWAP;{AFTER_S1};YOU\nCHANGE;2;7,0,8,8,8,8,8,1,1,8,8,8,8,8,8,1;OPP\nEND\n");
        let mut out = Vec::new();
        let mut notes = Vec::new();
        let mut a = Agent::manchester();
        let mut chosen = vec![Move::Sow(2), Move::Sow(1)];
        run_agent(
            &mut a,
            script.as_bytes(),
            &mut out,
            |_, _| chosen.pop().unwrap(),
            |n| notes.push(n.to_string()),
        )
        .unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "MOVE;1\nMOVE;2\n");
        assert!(notes.is_empty());

        let run = |script: &str| {
            let mut a = Agent::manchester();
            run_agent(
                &mut a,
                script.as_bytes(),
                Vec::new(),
                |p, r| p.legal_moves(r)[0],
                |_| {},
            )
            .unwrap_err()
            .to_string()
        };
        assert_eq!(
            run("START;North\n"),
            "the referee's input ended before END (after 1 line)"
        );
        assert_eq!(
            run("START;North\nHELLO\n"),
            "line 2 from the referee: 'HELLO' is not a message of the Manchester protocol: \
             unknown message 'HELLO' (a referee sends START, CHANGE or END)"
        );
        assert!(run(&format!("START;North\n{}\n", "1".repeat(2000)))
            .contains("line 2 from the referee is longer than 1024 bytes"));
        assert!(run("\u{ff}\u{fe}S\n").starts_with("line 1 from the referee: '"));
        // A chooser's illegal action is refused, not sent.
        let mut a = Agent::manchester();
        let mut out = Vec::new();
        let e = run_agent(
            &mut a,
            "START;South\n".as_bytes(),
            &mut out,
            |_, _| Move::Swap,
            |_| {},
        )
        .unwrap_err();
        assert!(
            e.to_string()
                .starts_with("the action chosen, swap, is not legal"),
            "{e}"
        );
        assert!(out.is_empty());
    }

    /// Lines are shown with their control characters escaped; house numbers may have leading
    /// zeros; a line of MAX_LINE bytes (without its line end) is read, one byte more is not.
    #[test]
    fn lines_are_shown_escaped_and_read_up_to_the_limit() {
        assert_eq!(printable("a\u{1b}[2Jb\r\n"), "a\\u{1b}[2Jb");
        let e = Message::parse("START;\u{7}x").unwrap_err().to_string();
        assert!(!e.contains('\u{7}'), "{e}");
        assert!(e.contains("not '\\u{7}x'"), "{e}");
        assert_eq!(parse_reply("MOVE;007", 7), Ok(Move::Sow(7)));
        assert!(parse_reply("MOVE;0000", 7).is_err());
        assert!(parse_reply("MOVE;+1", 7).is_err());
        let run = |line: String| {
            let mut a = Agent::manchester();
            let input = format!("START;North\n{line}\r\nEND\n");
            run_agent(
                &mut a,
                input.as_bytes(),
                Vec::new(),
                |p, r| p.legal_moves(r)[0],
                |_| {},
            )
            .map_err(|e| e.to_string())
        };
        // A CHANGE padded with leading zeros to exactly MAX_LINE bytes.
        let body = format!("CHANGE;1;{AFTER_S1};OPP");
        let padded = format!(
            "CHANGE;{}1;{AFTER_S1};OPP",
            "0".repeat(MAX_LINE - body.len())
        );
        assert_eq!(padded.len(), MAX_LINE);
        assert_eq!(run(padded.clone()), Ok(()));
        let e = run(format!("CHANGE;0{}", &padded[7..])).unwrap_err();
        assert!(e.contains("longer than 1024 bytes"), "{e}");
    }
}
