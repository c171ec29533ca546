//! Kalah endgame databases: combinatorial indexing, build, versioned checksummed files, memory-mapped probe, verify.
