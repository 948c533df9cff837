//! Data layouts ([`Layout`](vodbench_plugin_api::plugin::Layout)).

pub mod fine_striped;
pub mod non_striped;
pub mod stripe_factor;
pub mod striped;

use vodbench_plugin_api::plugin::{BuildContext, Kind, Layout, PluginError, Registry};

/// Registers the built-in layouts; `striped` is `[layout]`'s default.
pub fn register(r: &mut Registry) {
    r.add::<striped::Striped>();
    r.add::<non_striped::NonStriped>();
    r.add::<stripe_factor::StripeFactor>();
    r.add::<fine_striped::FineStriped>();
    r.set_default::<dyn Layout>(Kind::Layout.key(), "striped", toml::Table::new());
}

/// Checks that `needed` bytes fit on disk `disk`.
fn check_fits(ctx: &BuildContext<'_>, disk: u32, needed: u64) -> Result<(), PluginError> {
    let cap = ctx
        .geometry
        .map(|g| g.capacity_bytes)
        .ok_or_else(|| PluginError::Build("layout built without a disk geometry".into()))?;
    if needed > cap {
        return Err(PluginError::Build(format!(
            "the videos need {} on disk {disk} but it holds {} ({} bytes over); use more \
             disks, fewer or shorter videos, or a larger disk (e.g. `capacity` of the disk model)",
            vodbench_plugin_api::units::Bytes(needed),
            vodbench_plugin_api::units::Bytes(cap),
            needed - cap
        )));
    }
    Ok(())
}
