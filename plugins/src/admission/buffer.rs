//! `buffer`: Jadav et al.'s buffer condition (§7.1, eq. 4): an interface node serving n
//! streams admits a new stream M only if its buffer fits beside theirs,
//! B_I_tot > Σ_{j=1..n} B_I_j + B_I_M (the paper's sum starts at j = 0, one term too many for
//! n streams: read as j = 1..n). B_I_tot is `total`, or, without it, the interface nodes'
//! memory the scenario declares (`[server] interface_memory`, [`ServerLoad::interface_memory`]),
//! or else 32 MiB (the notes' reading); each stream's B_I the buffer it asks for
//! ([`StreamRequest::buffer_bytes`]: the terminal's buffer memory), and the stream is
//! counted at the interface node that would serve it ([`StreamRequest::interface`]); a
//! server without interface nodes is one pool of `total`. A stream's buffer is returned when
//! it ends. Refusals are counted as `buffer space`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use vodbench_plugin_api::ids::TerminalId;
use vodbench_plugin_api::plugin::{
    Admission, BuildContext, Plugin, PluginError, ServerLoad, StreamRequest, Verdict,
};
use vodbench_plugin_api::time::SimTime;
use vodbench_plugin_api::units::Bytes;

/// `buffer`'s parameters.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct BufferParams {
    /// Stream buffer space of each interface node, B_I_tot (default: `[server]
    /// interface_memory` when the scenario declares it, else 32MiB, the reading of
    /// `../shared/papers/notes/jadav.md` §4.11: the paper leaves it open).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total: Option<Bytes>,
}

/// B_I_tot when neither `total` nor the server's interface memory gives it.
const DEFAULT_TOTAL: u64 = 32 << 20;

/// Eq. 4 per interface node.
#[derive(Debug)]
pub struct Buffer {
    /// `total`, if given; otherwise the server's interface memory (or 32 MiB) is used.
    total: Option<u64>,
    /// Buffer reserved at each interface node.
    reserved: Vec<u64>,
    /// Each terminal's reservation while it streams: (interface, bytes).
    held: Vec<Option<(usize, u64)>>,
}

impl Buffer {
    /// Eq. 4 with `total` bytes at each of `interfaces` interface nodes (one pool for 0),
    /// for `terminals` terminals (`retrieval` checks eq. 4 with it when given `buffer`).
    pub(crate) fn new(total: Option<u64>, interfaces: u32, terminals: u32) -> Self {
        Buffer {
            total,
            reserved: vec![0; interfaces.max(1) as usize],
            held: vec![None; terminals as usize],
        }
    }
}

impl Admission for Buffer {
    fn admit(&mut self, r: &StreamRequest, load: &ServerLoad) -> Verdict {
        let i = r.interface.map_or(0, |i| i as usize);
        if i >= self.reserved.len() {
            self.reserved.resize(i + 1, 0);
        }
        let t = r.terminal.index();
        if t >= self.held.len() {
            self.held.resize(t + 1, None);
        }
        // a terminal streams one video at a time: an earlier reservation it still holds is
        // its previous stream's, returned before this one is weighed
        if let Some((j, b)) = self.held[t].take() {
            self.reserved[j] -= b;
        }
        let total = self.total.unwrap_or(match load.interface_memory {
            0 => DEFAULT_TOTAL,
            m => m,
        });
        if self.reserved[i].saturating_add(r.buffer_bytes) < total {
            self.reserved[i] += r.buffer_bytes;
            self.held[t] = Some((i, r.buffer_bytes));
            Verdict::Admit
        } else {
            Verdict::Refuse {
                reason: "buffer space",
            }
        }
    }

    fn ended(&mut self, terminal: TerminalId, _: SimTime) {
        if let Some((i, b)) = self.held.get_mut(terminal.index()).and_then(Option::take) {
            self.reserved[i] -= b;
        }
    }
}

impl Plugin for Buffer {
    type Kind = dyn Admission;
    type Params = BufferParams;
    const NAME: &'static str = "buffer";
    const DESCRIPTION: &'static str =
        "admit a stream only if its buffer fits in its interface node's \
         buffer space beside the streams it serves (Jadav et al. eq. 4)";

    fn validate(p: &BufferParams) -> Result<(), PluginError> {
        if p.total.is_some_and(|t| t.0 == 0) {
            return Err(PluginError::param(
                "total",
                "must be above 0: no stream could be admitted",
            ));
        }
        Ok(())
    }

    fn build(p: &BufferParams, ctx: &BuildContext<'_>) -> Result<Box<dyn Admission>, PluginError> {
        Ok(Box::new(Buffer::new(
            p.total.map(|t| t.0),
            ctx.interfaces,
            ctx.terminals,
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vodbench_plugin_api::ids::VideoId;

    fn req(t: u32, interface: Option<u32>, buffer: u64) -> StreamRequest {
        StreamRequest {
            terminal: TerminalId(t),
            video: VideoId(t),
            bit_rate: 1_500_000,
            buffer_bytes: buffer,
            interface,
            now: SimTime::ZERO,
        }
    }

    const LOAD: ServerLoad = ServerLoad {
        active_streams: 0,
        terminals: 8,
        interface_memory: 0,
    };

    /// B_I_tot = 1000, B_I = 300: three streams fit per interface node (900 < 1000), a
    /// fourth does not (1200); the other node has its own space; an ended stream frees its
    /// share.
    #[test]
    fn eq4_per_interface_node() {
        let mut a = Buffer {
            total: Some(1000),
            reserved: vec![0; 2],
            held: vec![None; 8],
        };
        for t in [0, 2, 4] {
            assert_eq!(a.admit(&req(t, Some(0), 300), &LOAD), Verdict::Admit, "{t}");
        }
        let full = Verdict::Refuse {
            reason: "buffer space",
        };
        assert_eq!(a.admit(&req(6, Some(0), 300), &LOAD), full);
        assert_eq!(a.admit(&req(1, Some(1), 300), &LOAD), Verdict::Admit);
        a.ended(TerminalId(2), SimTime::ZERO);
        assert_eq!(a.admit(&req(6, Some(0), 300), &LOAD), Verdict::Admit);
        // strict: 700 + 300 = 1000 is not below 1000
        assert_eq!(a.admit(&req(5, Some(1), 700), &LOAD), full);
        assert_eq!(a.admit(&req(5, Some(1), 699), &LOAD), Verdict::Admit);
        // a terminal's next stream replaces its last one's reservation
        assert_eq!(a.admit(&req(5, Some(1), 600), &LOAD), Verdict::Admit);
        assert_eq!(a.reserved, vec![900, 900]);
    }

    #[test]
    fn without_interface_nodes_the_server_is_one_pool() {
        let mut a = Buffer {
            total: Some(1000),
            reserved: vec![0],
            held: vec![None; 8],
        };
        assert_eq!(a.admit(&req(0, None, 600), &LOAD), Verdict::Admit);
        assert_ne!(a.admit(&req(1, None, 600), &LOAD), Verdict::Admit);
        assert!(Buffer::validate(&BufferParams {
            total: Some(Bytes(0))
        })
        .is_err());
    }

    /// Without `total`, B_I_tot is the interface memory the server declares (1000 here: the
    /// fourth stream of 300 does not fit), or 32 MiB when it declares none.
    #[test]
    fn without_total_the_interface_memory_is_b_i_tot() {
        let mut a = Buffer::new(None, 2, 8);
        let declared = ServerLoad {
            interface_memory: 1000,
            ..LOAD
        };
        for t in [0, 2, 4] {
            assert_eq!(a.admit(&req(t, Some(0), 300), &declared), Verdict::Admit);
        }
        assert_ne!(a.admit(&req(6, Some(0), 300), &declared), Verdict::Admit);
        let mut b = Buffer::new(None, 1, 8);
        assert_eq!(b.admit(&req(0, Some(0), 32 << 19), &LOAD), Verdict::Admit);
        assert_ne!(b.admit(&req(1, Some(0), 32 << 19), &LOAD), Verdict::Admit);
    }
}
