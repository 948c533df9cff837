//! Broadcast receivers' buffer policies
//! ([`ClientBuffer`](vodbench_plugin_api::plugin::ClientBuffer); Waldvogel et al. §V–VI).

pub mod mcs;
pub mod mdp;
pub mod optimum;
pub mod radix_heap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use vodbench_plugin_api::plugin::{BuildContext, PluginError, Registry};
use vodbench_plugin_api::units::Portion;

/// Registers the built-in client buffer policies.
pub fn register(r: &mut Registry) {
    r.add::<mdp::Mdp>();
    r.add::<mcs::Mcs>();
    r.add::<optimum::Optimum>();
    r.add::<radix_heap::RadixHeap>();
}

/// Parameters of the batched policies (`mdp`, `mcs`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct BatchParams {
    /// Frames written per batch, κ: a count, or a share of the cache such as "2.5%" (the
    /// paper's optimum is 2–3 % of the cache; default "2.5%").
    pub kappa: Portion,
}

impl Default for BatchParams {
    fn default() -> Self {
        BatchParams {
            kappa: Portion::Ppm(25_000),
        }
    }
}

impl BatchParams {
    fn check(&self) -> Result<(), PluginError> {
        match self.kappa {
            Portion::Count(0) | Portion::Ppm(0) => {
                Err(PluginError::param("kappa", "must be at least one frame"))
            }
            Portion::Ppm(p) if p > 1_000_000 => Err(PluginError::param(
                "kappa",
                format!("must be at most 100% of the cache, got {}", self.kappa),
            )),
            _ => Ok(()),
        }
    }

    /// κ in frames for a cache of `ctx.pages` frames.
    fn frames(&self, ctx: &BuildContext<'_>) -> Result<u32, PluginError> {
        let k = self.kappa.of(u64::from(ctx.pages));
        if k > u64::from(ctx.pages) {
            return Err(PluginError::param(
                "kappa",
                format!("κ = {k} frames exceeds the cache of {} frames", ctx.pages),
            ));
        }
        Ok(k.max(1) as u32)
    }
}
