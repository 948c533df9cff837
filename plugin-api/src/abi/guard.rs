//! A Rust plugin's panics at the C boundary: every exported call runs under [`guarded`],
//! which catches a panic and keeps its message and where it happened for the host's error
//! (`panicked: MESSAGE (at src/lib.rs:174:39)`). The library links a standard library of its
//! own, whose default panic hook would print its own report (and, with `RUST_BACKTRACE`, a
//! backtrace) on the host's standard error before the host reports the failure; the hook
//! [`install_hook`] sets instead records the location and prints nothing while a guarded
//! call runs, and hands every other panic of the library to the hook it replaced.

use std::cell::{Cell, RefCell};
use std::panic::{catch_unwind, AssertUnwindSafe};

thread_local! {
    /// Guarded calls running on this thread (a plugin's call may make another).
    static DEPTH: Cell<u32> = const { Cell::new(0) };
    /// Where the last panic of a guarded call happened.
    static LOCATION: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Installs the library's panic hook, once.
pub(crate) fn install_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if DEPTH.with(Cell::get) > 0 {
                let at = info.location().map(|l| l.to_string());
                LOCATION.with(|l| *l.borrow_mut() = at);
            } else {
                previous(info);
            }
        }));
    });
}

/// A panic's message (`panicked: MESSAGE`), from its payload.
fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    let m = p
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic with no message".into());
    format!("panicked: {m}")
}

/// Runs `f`, catching a panic: `Err` with its message, and where it happened when the hook
/// ([`install_hook`]) saw it.
pub(crate) fn guarded<R>(f: impl FnOnce() -> R) -> Result<R, String> {
    DEPTH.with(|d| d.set(d.get() + 1));
    let r = catch_unwind(AssertUnwindSafe(f));
    DEPTH.with(|d| d.set(d.get() - 1));
    r.map_err(|p| {
        let m = panic_message(p.as_ref());
        match LOCATION.with(|l| l.borrow_mut().take()) {
            Some(at) => format!("{m} (at {at})"),
            None => m,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_guarded_panic_is_its_message_and_where_it_happened() {
        install_hook();
        let e = guarded(|| -> u32 { panic!("boom {}", 7) }).unwrap_err();
        assert!(e.starts_with("panicked: boom 7 (at "), "{e}");
        assert!(e.contains("guard.rs:"), "{e}");
        assert_eq!(guarded(|| 3), Ok(3));
        // nested calls: the inner panic is the inner call's
        let outer = guarded(|| guarded(|| -> u32 { panic!("inner") }));
        assert!(outer.unwrap().unwrap_err().contains("inner"));
    }
}
