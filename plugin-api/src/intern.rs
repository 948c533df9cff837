//! One `&'static str` per distinct text, for names and reasons that cross into the engine as
//! `&'static str` from policies whose text is only known at run time (loaded libraries,
//! Python): each text is leaked once, then shared.

use std::collections::BTreeMap;
use std::sync::{Mutex, OnceLock};

/// The same `&'static str` for the same text, leaking each distinct text once.
pub(crate) fn intern(s: &str) -> &'static str {
    static TABLE: OnceLock<Mutex<BTreeMap<String, &'static str>>> = OnceLock::new();
    let mut t = TABLE
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(v) = t.get(s) {
        return v;
    }
    let v: &'static str = Box::leak(s.to_string().into_boxed_str());
    t.insert(s.to_string(), v);
    v
}
