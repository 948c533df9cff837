//! The systems vodbench simulates: an on-demand video server ([`ondemand`], SPIFFI) and
//! periodic broadcast to buffering clients ([`broadcast`], Waldvogel et al.).

pub mod broadcast;
pub mod ondemand;
