//! Bot protocols for Kalah: the text a referee and a program exchange to play a game.
//!
//! Only rules and text live here (no search, no processes): a front end pairs a protocol with
//! a player, as `kalah agent` pairs [`manchester`] with the engine façade of `kalah-engine`.
//!
//! * [`manchester`]: the protocol of the University of Manchester's Kalah game engine
//!   (`ManKalah.jar`, course COMP34120), in which the referee starts each agent as a process
//!   and talks to it one line at a time on its standard input and output.

pub mod manchester;
