//! `vodbench plugins`: every registered plugin, kind by kind, with its description and its
//! parameters (type, default, description).

use super::CommandError;
use crate::plugin::Registry;

/// `vodbench plugins`.
pub(crate) fn cmd(registry: &Registry) -> Result<(), CommandError> {
    print!("{}", plugins_listing(registry));
    Ok(())
}

/// The text printed by `vodbench plugins`.
pub fn plugins_listing(registry: &Registry) -> String {
    let mut out = String::new();
    let mut last = None;
    for (kind, name, desc, params) in registry.listing() {
        if last != Some(kind) {
            out.push_str(&format!("\n[{}]\n", kind.key()));
            last = Some(kind);
        }
        out.push_str(&format!("  {name:<14} {desc}\n"));
        for p in params {
            let default = match (p.default, p.required) {
                (Some(d), _) => format!(" = {d}"),
                (None, true) => ", required".into(),
                (None, false) => String::new(),
            };
            out.push_str(&format!(
                "      {} ({}){default}: {}\n",
                p.name,
                p.ty,
                p.description
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ")
            ));
        }
    }
    out.trim_start().to_string()
}
