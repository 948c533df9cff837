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
    let entries = crate::plugin::Kind::ALL
        .iter()
        .flat_map(|&k| registry.infos(k));
    for e in entries {
        let (kind, name, desc, params) = (e.kind, e.name, e.description, e.params());
        if last != Some(kind) {
            out.push_str(&format!("\n[{}]\n", kind.key()));
            last = Some(kind);
        }
        out.push_str(&format!("  {name:<14} {desc}\n"));
        if let Some(o) = &e.origin {
            out.push_str(&format!(
                "      (loaded from {}, sha256 {})\n",
                o.path, o.sha256
            ));
        }
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
