//! Stopping a command from outside. A program that drives vodbench in-process (the Python
//! package, on Ctrl-C or when a sweep's callback raises) makes a [`StopToken`] for each
//! command and runs the command under it ([`StopToken::install`]); to stop that command it
//! calls [`StopToken::request`]. The simulation loops call [`check`] every few thousand
//! events and unwind with [`Interrupted`], which [`crate::cli::run_args`] turns into
//! [`crate::cli::ArgsError::Interrupted`]. Nothing of the interrupted run is written.
//!
//! The contract:
//! - A stop belongs to one command: [`check`] reads the token installed on the thread it
//!   runs on, so commands running at once on other threads (under other tokens, or none)
//!   never see it, and starting a command never forgets a stop asked of another.
//! - Every thread doing a command's work carries its token: the thread [`StopToken::install`]
//!   runs on, and the worker threads of every pool the command builds (the harness's pools
//!   install their creator's token on each worker). [`crate::cli::run_args`] runs a command
//!   under a token inside a pool of its own, so its parallel loops never run on rayon's global
//!   pool, whose threads carry no token.
//!   A program that calls the harness's drivers itself (not through `run_args`) gets the same
//!   by running them on a pool whose threads it starts under its token
//!   (`rayon::ThreadPoolBuilder::spawn_handler`, each thread's body in [`StopToken::install`]).
//! - A thread with no token installed (the `vodbench` binary, tests) is never stopped.
//! - A request is never withdrawn: a token is made for one command and dropped with it.

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The unwinding payload of an interrupted command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Interrupted;

/// One command's stop request: cloned handles share it. Make one per command, run the
/// command under it with [`StopToken::install`], and [`StopToken::request`] it from any
/// thread to stop that command (and no other) at its next [`check`].
#[derive(Debug, Clone, Default)]
pub struct StopToken(Arc<AtomicBool>);

thread_local! {
    /// The token of the command this thread works for, if any.
    static CURRENT: RefCell<Option<StopToken>> = const { RefCell::new(None) };
}

impl StopToken {
    /// A token nobody has requested yet.
    pub fn new() -> StopToken {
        StopToken::default()
    }

    /// Asks the command running under this token to stop at its next [`check`].
    pub fn request(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Whether a stop was requested.
    pub fn is_requested(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// Runs `f` on this thread with this token installed (the thread's earlier token, if
    /// any, is put back when `f` returns or unwinds).
    pub fn install<R>(&self, f: impl FnOnce() -> R) -> R {
        struct Restore(Option<StopToken>);
        impl Drop for Restore {
            fn drop(&mut self) {
                let previous = self.0.take();
                CURRENT.with(|c| *c.borrow_mut() = previous);
            }
        }
        let previous = CURRENT.with(|c| c.borrow_mut().replace(self.clone()));
        let _restore = Restore(previous);
        f()
    }

    /// The token installed on this thread, if any.
    pub fn current() -> Option<StopToken> {
        CURRENT.with(|c| c.borrow().clone())
    }
}

/// Installs `token` on this thread for the rest of its life (a pool's worker thread, as it
/// starts: [`crate::cli`]'s worker pools hand their creator's token to their workers).
pub(crate) fn adopt(token: Option<StopToken>) {
    CURRENT.with(|c| *c.borrow_mut() = token);
}

/// Unwinds with [`Interrupted`] when a stop was requested of the token installed on this
/// thread (a relaxed load; nothing on a thread with no token).
pub fn check() {
    let requested = CURRENT.with(|c| c.borrow().as_ref().is_some_and(StopToken::is_requested));
    if requested {
        std::panic::panic_any(Interrupted);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stopped(f: impl FnOnce()) -> bool {
        crate::plugin_library::install_hook();
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
            Ok(()) => false,
            Err(p) if p.downcast_ref::<Interrupted>().is_some() => true,
            Err(p) => std::panic::resume_unwind(p),
        }
    }

    #[test]
    fn a_request_stops_only_the_thread_holding_its_token() {
        let (a, b) = (StopToken::new(), StopToken::new());
        let ask_a = std::sync::Barrier::new(2);
        let asked = std::sync::Barrier::new(2);
        let (stopped_a, stopped_b) = std::thread::scope(|s| {
            let ta = s.spawn(|| {
                a.install(|| {
                    let before = stopped(check);
                    ask_a.wait();
                    asked.wait();
                    (before, stopped(check))
                })
            });
            let tb = s.spawn(|| {
                b.install(|| {
                    ask_a.wait();
                    a.request();
                    asked.wait();
                    stopped(check)
                })
            });
            (ta.join().unwrap(), tb.join().unwrap())
        });
        assert_eq!(stopped_a, (false, true));
        assert!(!stopped_b);
        assert!(a.is_requested() && !b.is_requested());
        // this thread holds no token: never stopped
        assert!(StopToken::current().is_none());
        assert!(!stopped(check));
    }

    #[test]
    fn install_puts_the_earlier_token_back_even_when_unwinding() {
        let (outer, inner) = (StopToken::new(), StopToken::new());
        inner.request();
        outer.install(|| {
            assert!(stopped(|| inner.install(check)));
            assert!(!stopped(check));
            assert!(StopToken::current().is_some_and(|t| Arc::ptr_eq(&t.0, &outer.0)));
        });
        assert!(StopToken::current().is_none());
    }
}
