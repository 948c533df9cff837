//! `accept-all`: every stream is served, as in SPIFFI, whose capacity is found by raising the
//! load until the server glitches (§7.1) rather than by refusing viewers.

use vodbench_plugin_api::plugin::NoParams;
use vodbench_plugin_api::plugin::{
    Admission, BuildContext, Plugin, PluginError, ServerLoad, StreamRequest, Verdict,
};

/// Admits every request.
#[derive(Debug, Default)]
pub struct AcceptAll;

impl Admission for AcceptAll {
    fn admit(&mut self, _: &StreamRequest, _: &ServerLoad) -> Verdict {
        Verdict::Admit
    }
}

impl Plugin for AcceptAll {
    type Kind = dyn Admission;
    type Params = NoParams;
    const NAME: &'static str = "accept-all";
    const DESCRIPTION: &'static str = "admit every stream (SPIFFI)";
    fn build(_: &NoParams, _: &BuildContext<'_>) -> Result<Box<dyn Admission>, PluginError> {
        Ok(Box::new(AcceptAll))
    }
}
