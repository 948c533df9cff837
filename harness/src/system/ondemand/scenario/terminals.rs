//! `[terminals]` and `[terminals.rounds]`: the video terminals (SPIFFI §5.1), their buffer
//! and priming, and reading in rounds of several blocks (Jadav et al. §3.2, eq. 1–3), each
//! with its section check.

use super::values::{dur, plain, range, size};
use crate::units::{Bytes, Duration};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Largest terminal count a scenario may ask for.
pub const MAX_TERMINALS: u32 = 1_000_000;
/// Largest terminal buffer, in stripe blocks (of which at most 128 are asked for and not
/// yet arrived at any time).
pub const MAX_TERMINAL_BLOCKS: u64 = 1 << 20;

/// `[terminals]`: the clients (SPIFFI §5.1).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TerminalSection {
    /// Number of terminals (1..=1000000; `--terminals` overrides).
    pub count: u32,
    /// Buffer memory of each terminal (at least one stripe block, at most 2^20; a terminal
    /// has at most 128 blocks asked for and not yet arrived at a time).
    pub memory: Bytes,
    /// Data to buffer before display starts or resumes after a glitch (and at least the
    /// whole of the first frame to show). Default: fill the whole buffer (SPIFFI's priming).
    #[serde(default)]
    pub prime: Option<Bytes>,
    /// Read in rounds of several blocks requested together (Jadav et al. §3.2, eq. 1–3: an
    /// interface node fetches a stream's next fragment set, one fragment from each of the S
    /// nodes holding the object, every round); absent: one block at a time whenever there is
    /// room (SPIFFI).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rounds: Option<RoundsSection>,
}

impl TerminalSection {
    /// `[terminals]` against the stripe (`stripe`): the count, the memory (at least a
    /// block, at most [`MAX_TERMINAL_BLOCKS`]), the priming, `[terminals.rounds]`.
    pub(super) fn validate(&self, stripe: u64) -> Result<(), (String, String)> {
        let t = self;
        range(
            "terminals.count",
            u64::from(t.count),
            1,
            u64::from(MAX_TERMINALS),
            &plain,
        )?;
        range(
            "terminals.memory",
            t.memory.0,
            stripe,
            MAX_TERMINAL_BLOCKS * stripe,
            &|v| format!("{} ({} stripe blocks)", size(v), *v as f64 / stripe as f64),
        )?;
        if let Some(p) = t.prime {
            range("terminals.prime", p.0, 1, t.memory.0, &size)?;
        }
        if let Some(r) = &t.rounds {
            r.validate(t.memory.0, stripe)?;
        }
        Ok(())
    }
}

/// `[terminals.rounds]`: a terminal reads `blocks` blocks at a time (a fragment set): it asks
/// for a set only when its memory has room for all of it, and asks for the set's blocks
/// together.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RoundsSection {
    /// Blocks per round (Jadav's stripe factor S: one fragment from each node holding the
    /// object), 1..=32; `terminals.memory` must hold at least one round.
    pub blocks: u32,
    /// When a set is asked for while the terminal plays: `eager` (default: as soon as there
    /// is room for it — with memory for two sets, at the start of the previous set's
    /// playout, the paper's double-buffered variant) or `latest` (`lead` before its first
    /// frame is due, eq. 3's t_max = t + δ_S − δ_io, and not before there is room). While
    /// priming, sets are asked for as soon as there is room.
    #[serde(default)]
    pub issue: RoundIssue,
    /// With `issue = "latest"`: how long before its first frame is due a set is asked for
    /// (eq. 2's δ_io, the expected time to fetch a fragment; `vodbench analyze` with the
    /// `jadav-timing` model prints it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lead: Option<Duration>,
}

impl RoundsSection {
    /// `[terminals.rounds]` with terminals of `memory` bytes and a stripe of `stripe`: one
    /// round's blocks fit, `lead` given exactly with `issue = "latest"`.
    pub(super) fn validate(&self, memory: u64, stripe: u64) -> Result<(), (String, String)> {
        let r = self;
        range(
            "terminals.rounds.blocks",
            u64::from(r.blocks),
            1,
            32,
            &plain,
        )?;
        let set = u64::from(r.blocks) * stripe;
        if memory < set {
            return Err((
                "terminals.memory".into(),
                format!(
                    "{} cannot hold one round of terminals.rounds.blocks = {} stripe blocks \
                     of {} ({}): give at least that",
                    size(&memory),
                    r.blocks,
                    size(&stripe),
                    size(&set)
                ),
            ));
        }
        match (r.issue, r.lead) {
            (RoundIssue::Latest, None) => Err((
                "terminals.rounds.lead".into(),
                "issue = \"latest\" needs `lead`, how long before its first frame \
                 is due a set is asked for (eq. 2's δ_io), such as \"60ms\""
                    .into(),
            )),
            (RoundIssue::Eager, Some(_)) => Err((
                "terminals.rounds.lead".into(),
                "is used only with issue = \"latest\"; remove it, or set issue = \
                 \"latest\""
                    .into(),
            )),
            (_, Some(l)) => range("terminals.rounds.lead", l.0, 0, 3_600_000_000_000, &dur),
            _ => Ok(()),
        }
    }
}

/// When a round's set is asked for ([`RoundsSection::issue`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RoundIssue {
    /// As soon as there is room for it.
    #[default]
    Eager,
    /// `lead` before its first frame is due.
    Latest,
}
