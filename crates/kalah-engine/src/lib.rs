//! The protocol-free Kalah player: levels, time control, the facade every front end drives.
