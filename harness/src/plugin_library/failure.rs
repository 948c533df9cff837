//! A loaded policy's failed call: how it travels from the adapter that met it to the command
//! that reports it.
//!
//! The engine's calls into a policy return plain values (the Rust traits have no error
//! channel), so an adapter that meets a failed call — a panic inside a Rust plugin, `VB_ERROR`
//! from a C one, an answer that cannot be represented — unwinds with a [`PluginFailure`]
//! payload. The run is abandoned there: [`catch`] turns the unwinding into an error naming
//! the library, the policy and the call, before any output of the run is written, and the
//! panic hook [`install_hook`] sets prints nothing for such a payload (the command prints the
//! error once).

use std::panic::{catch_unwind, AssertUnwindSafe};

/// A loaded policy's call that failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PluginFailure {
    /// The library's path.
    pub library: String,
    /// The policy's kind key and name (``disk.scheduler `c-fcfs` ``).
    pub policy: String,
    /// The call (`dequeue`).
    pub call: &'static str,
    /// What the library said (or what was wrong with its answer).
    pub message: String,
}

impl std::fmt::Display for PluginFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "plugin library {}: {} failed in `{}`: {}",
            self.library, self.policy, self.call, self.message
        )
    }
}

impl std::error::Error for PluginFailure {}

/// Abandons the current run with `failure` (caught by [`catch`]).
pub fn abandon(failure: PluginFailure) -> ! {
    std::panic::panic_any(failure)
}

/// Runs `f`; a [`PluginFailure`] raised inside it (on any thread whose panic reaches this
/// one, as rayon's do) becomes `Err`. Any other panic goes on unwinding.
pub fn catch<T>(f: impl FnOnce() -> T) -> Result<T, PluginFailure> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(v) => Ok(v),
        Err(payload) => match payload.downcast::<PluginFailure>() {
            Ok(failure) => Err(*failure),
            Err(other) => std::panic::resume_unwind(other),
        },
    }
}

/// Makes the process's panic hook silent for [`PluginFailure`] (and
/// [`crate::interrupt::Interrupted`]) payloads (they are reported
/// as errors by [`catch`]'s caller); other panics are printed as before. Idempotent.
pub fn install_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let payload = info.payload();
            if payload.downcast_ref::<PluginFailure>().is_none()
                && payload
                    .downcast_ref::<crate::interrupt::Interrupted>()
                    .is_none()
            {
                previous(info);
            }
        }));
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failure() -> PluginFailure {
        PluginFailure {
            library: "/x/libp.so".into(),
            policy: "disk.scheduler `p`".into(),
            call: "dequeue",
            message: "panicked: boom".into(),
        }
    }

    #[test]
    fn a_failure_raised_on_a_worker_thread_reaches_the_caller() {
        install_hook();
        let r = catch(|| {
            std::thread::scope(|s| {
                s.spawn(|| abandon(failure()))
                    .join()
                    .map_err(std::panic::resume_unwind)
            })
        });
        let e = r.unwrap_err();
        assert_eq!(
            e.to_string(),
            "plugin library /x/libp.so: disk.scheduler `p` failed in `dequeue`: panicked: boom"
        );
        assert_eq!(catch(|| 3).unwrap(), 3);
    }

    #[test]
    fn other_panics_keep_unwinding() {
        let r = std::panic::catch_unwind(|| catch(|| panic!("not a plugin's")));
        assert!(r.is_err());
    }
}
