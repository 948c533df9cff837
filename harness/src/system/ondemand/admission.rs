//! Admission control (Jadav et al. §5, Pappas et al. §3.3): the [`Admission`] plugin decides,
//! at each workload `start`, whether the stream is served; this component counts the active
//! streams it promises the plugin, and what it measured — requests, admissions, refusals by
//! reason, and the streams active at once (`summary.json`'s `admission`, when the scenario
//! has an `[admission]` table).

use super::measure::Window;
use super::stats::Level;
use crate::ids::{TerminalId, VideoId};
use crate::plugin::{Admission, ServerLoad, StreamRequest, Verdict};
use crate::results::AdmissionSummary;
use crate::time::SimTime;
use std::collections::BTreeMap;

/// The admission policy and the streams it admitted.
pub(super) struct AdmissionControl {
    plugin: Box<dyn Admission>,
    name: &'static str,
    /// Whether the summary reports it (the scenario has `[admission]`).
    reported: bool,
    terminals: u32,
    /// Each stream's buffer, and the interface nodes streams are dealt to (0: none).
    buffer_bytes: u64,
    interfaces: u32,
    active: Level,
    // measured
    requests: u64,
    admitted: u64,
    refused: u64,
    by_reason: BTreeMap<&'static str, u64>,
    events_dropped: u64,
}

impl AdmissionControl {
    pub fn new(
        plugin: Box<dyn Admission>,
        name: &'static str,
        reported: bool,
        terminals: u32,
        buffer_bytes: u64,
        interfaces: u32,
    ) -> Self {
        AdmissionControl {
            plugin,
            name,
            reported,
            terminals,
            buffer_bytes,
            interfaces,
            active: Level::default(),
            requests: 0,
            admitted: 0,
            refused: 0,
            by_reason: BTreeMap::new(),
            events_dropped: 0,
        }
    }

    /// Opens the measured window.
    pub fn open(&mut self, now: SimTime) {
        self.active.open(now);
    }

    /// Terminal `t` asks for `video` (of `bit_rate` bits/s) at `now`: whether it is served.
    pub fn admit(&mut self, t: u32, video: u32, bit_rate: u64, now: SimTime, w: &Window) -> bool {
        let request = StreamRequest {
            terminal: TerminalId(t),
            video: VideoId(video),
            bit_rate,
            buffer_bytes: self.buffer_bytes,
            interface: t.checked_rem(self.interfaces),
            now,
        };
        let load = ServerLoad {
            active_streams: self.active.level() as u32,
            terminals: self.terminals,
        };
        let verdict = self.plugin.admit(&request, &load);
        if w.measuring {
            self.requests += 1;
        }
        match verdict {
            Verdict::Admit => {
                if w.measuring {
                    self.admitted += 1;
                }
                let n = self.active.level() + 1;
                self.active.set(now, n, w.span);
                true
            }
            Verdict::Refuse { reason } => {
                if w.measuring {
                    self.refused += 1;
                    *self.by_reason.entry(reason).or_insert(0) += 1;
                }
                false
            }
        }
    }

    /// The stream terminal `t` was admitted for ended at `now`.
    pub fn ended(&mut self, t: u32, now: SimTime, w: &Window) {
        let n = self.active.level().saturating_sub(1);
        self.active.set(now, n, w.span);
        self.plugin.ended(TerminalId(t), now);
    }

    /// A workload event of a refused viewing was dropped.
    pub fn dropped(&mut self, w: &Window) {
        if w.measuring {
            self.events_dropped += 1;
        }
    }

    /// The summary's `admission` section (when the scenario has `[admission]`), the window
    /// closed at `w1` after `measured` ns.
    pub fn report(
        &mut self,
        w1: SimTime,
        window: (SimTime, SimTime),
        measured: u64,
    ) -> Option<AdmissionSummary> {
        let (integral, peak) = self.active.close(w1, window);
        self.reported.then(|| AdmissionSummary {
            policy: self.name.to_string(),
            requests: self.requests,
            admitted: self.admitted,
            refused: self.refused,
            refused_by_reason: self
                .by_reason
                .iter()
                .map(|(k, v)| (k.to_string(), *v))
                .collect(),
            events_dropped: self.events_dropped,
            active_streams_mean: if measured > 0 {
                integral as f64 / measured as f64
            } else {
                0.0
            },
            active_streams_peak: peak,
        })
    }
}
