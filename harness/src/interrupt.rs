//! Stopping a command from outside: a program that drives vodbench in-process (the Python
//! package, on Ctrl-C) calls [`request`]; the simulation loops call [`check`] every few
//! thousand events and unwind with [`Interrupted`], which [`crate::cli::run_args`] turns into
//! [`crate::cli::ArgsError::Interrupted`]. Nothing of the interrupted run is written.

use std::sync::atomic::{AtomicBool, Ordering};

static REQUESTED: AtomicBool = AtomicBool::new(false);

/// The unwinding payload of an interrupted command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Interrupted;

/// Asks the running command to stop at its next check.
pub fn request() {
    REQUESTED.store(true, Ordering::Relaxed);
}

/// Forgets a request (before the next command starts).
pub fn clear() {
    REQUESTED.store(false, Ordering::Relaxed);
}

/// Whether a stop was requested.
pub fn requested() -> bool {
    REQUESTED.load(Ordering::Relaxed)
}

/// Unwinds with [`Interrupted`] when a stop was requested.
pub fn check() {
    if requested() {
        std::panic::panic_any(Interrupted);
    }
}
