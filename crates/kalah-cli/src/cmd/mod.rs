//! One module per subcommand, each with `Args` (clap) and `run`.

pub mod agent;
pub mod analyze;
pub mod bench;
pub mod egdb;
pub mod match_;
pub mod perft;
pub mod play;
pub mod referee;
pub mod review;
pub mod serve;
pub mod show;
pub mod solve;
