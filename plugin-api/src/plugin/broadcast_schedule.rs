//! Periodic broadcast schedules (Waldvogel et al. §III–IV, §VII).
//!
//! A movie of `n` frames is broadcast so that a client joining at any instant `t ≥ 1` with
//! initial delay `w` receives frame `i` (0-based; the paper's frame `f = i + 1`) at some
//! instant in its window `[t, t + w + i + 1)` — before it is played at `t + w + i`. Time is
//! counted in *instants*, one frame's playout time each.

use super::PluginError;

/// What a schedule must cover.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ScheduleSpec {
    /// Frames in the movie (`n`).
    pub frames: u32,
    /// Initial delay `w` in instants.
    pub delay: u32,
    /// Last instant that must be covered: every client joining in `[1, horizon - w - n + 1]`
    /// must receive every frame within its window.
    pub horizon: u32,
    /// The receivers' write batch size κ in frames (a chunk-size hint for schedules that
    /// group frames for the clients' benefit, §VII).
    pub chunk_hint: u32,
}

impl ScheduleSpec {
    /// Frame `i`'s window length `λ = w + i + 1` (the paper's `w + f`).
    pub fn window(&self, frame: u32) -> u32 {
        self.delay + frame + 1
    }
}

/// A finished schedule: for every frame, the sorted instants (in `1..=horizon`) at which it is
/// transmitted. Stored compactly (one offsets array, one instants array).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schedule {
    spec: ScheduleSpec,
    offsets: Vec<u32>,
    instants: Vec<u32>,
}

/// A frame that some join instant would not receive in time.
#[derive(Copy, Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("frame {frame} is not transmitted within [{join}, {join} + {window}) for a client joining at instant {join}")]
pub struct WindowViolation {
    /// 0-based frame.
    pub frame: u32,
    /// Join instant that misses it.
    pub join: u32,
    /// The frame's window length.
    pub window: u32,
}

impl Schedule {
    /// Starts an empty schedule for `spec`; add frames in order with [`Schedule::push_frame`].
    pub fn builder(spec: ScheduleSpec) -> Schedule {
        Schedule {
            spec,
            offsets: vec![0],
            instants: Vec::new(),
        }
    }

    /// Appends the next frame's transmission instants (any order; sorted and deduplicated
    /// here). Instants outside `1..=horizon` are an error.
    pub fn push_frame(&mut self, instants: &mut Vec<u32>) -> Result<(), PluginError> {
        let frame = self.offsets.len() - 1;
        if frame >= self.spec.frames as usize {
            return Err(PluginError::Build(format!(
                "schedule has more than {} frames",
                self.spec.frames
            )));
        }
        instants.sort_unstable();
        instants.dedup();
        if let (Some(&first), Some(&last)) = (instants.first(), instants.last()) {
            if first == 0 || last > self.spec.horizon {
                return Err(PluginError::Build(format!(
                    "frame {frame}: transmission instants must lie in 1..={}, got {first}..={last}",
                    self.spec.horizon
                )));
            }
        }
        self.instants.extend_from_slice(instants);
        self.offsets.push(self.instants.len() as u32);
        Ok(())
    }

    /// The spec this schedule was built for.
    pub fn spec(&self) -> &ScheduleSpec {
        &self.spec
    }

    /// Number of frames pushed so far.
    pub fn frames_pushed(&self) -> u32 {
        (self.offsets.len() - 1) as u32
    }

    /// The sorted transmission instants of frame `i`.
    pub fn transmissions(&self, frame: u32) -> &[u32] {
        let i = frame as usize;
        &self.instants[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }

    /// Total number of frame transmissions.
    pub fn total_transmissions(&self) -> u64 {
        self.instants.len() as u64
    }

    /// The first instant `≥ join` at which frame `i` is sent, if any.
    pub fn first_at_or_after(&self, frame: u32, join: u32) -> Option<u32> {
        let t = self.transmissions(frame);
        let k = t.partition_point(|&x| x < join);
        t.get(k).copied()
    }

    /// The last join instant whose whole movie the horizon covers.
    pub fn last_join(&self) -> u32 {
        let s = &self.spec;
        s.horizon.saturating_sub(s.delay + s.frames) + 1
    }

    /// Checks the window property for every join instant in `1..=last_join()`: the first
    /// transmission of frame `i` is at most `λ_i`, consecutive ones are at most `λ_i` apart,
    /// and the last is late enough. Equivalent to checking every join instant one by one
    /// (which the tests also do, exhaustively, on small movies).
    pub fn check_windows(&self) -> Result<(), WindowViolation> {
        if self.frames_pushed() != self.spec.frames {
            return Err(WindowViolation {
                frame: self.frames_pushed(),
                join: 1,
                window: self.spec.window(self.frames_pushed()),
            });
        }
        let last_join = self.last_join();
        for frame in 0..self.spec.frames {
            let window = self.spec.window(frame);
            let mut prev = 0u32; // a client joining at `prev + 1` needs a send in (prev, prev + λ]
            for &t in self.transmissions(frame) {
                if prev >= last_join {
                    break;
                }
                if t - prev > window {
                    return Err(WindowViolation {
                        frame,
                        join: prev + 1,
                        window,
                    });
                }
                prev = t;
            }
            if prev < last_join {
                return Err(WindowViolation {
                    frame,
                    join: prev + 1,
                    window,
                });
            }
        }
        Ok(())
    }

    /// Frames sent in each instant `1..=horizon` (index 0 is instant 1).
    pub fn per_instant(&self) -> Vec<u32> {
        let mut counts = vec![0u32; self.spec.horizon as usize];
        for &t in &self.instants {
            counts[(t - 1) as usize] += 1;
        }
        counts
    }

    /// Mean and peak bandwidth, in frames per instant (= multiples of the playout rate), over
    /// the instants `from..=horizon`.
    pub fn bandwidth(&self, from: u32) -> (f64, u32) {
        let counts = self.per_instant();
        let from = from.clamp(1, self.spec.horizon.max(1)) as usize;
        let window = &counts[from - 1..];
        let sum: u64 = window.iter().map(|&c| u64::from(c)).sum();
        let peak = window.iter().copied().max().unwrap_or(0);
        (sum as f64 / window.len().max(1) as f64, peak)
    }
}

/// A broadcast schedule policy: which frames go out in which instant.
///
/// The contract: every frame gets transmission instants in `1..=spec.horizon` such that a
/// client joining at any instant in `1..=`[`Schedule::last_join`] receives frame `i` within
/// `[join, join + w + i + 1)`. The engine checks this ([`Schedule::check_windows`]) and stops
/// the run naming the plugin if it fails. Schedules must be deterministic.
///
/// ```
/// use vodbench_plugin_api::plugin::{BroadcastSchedule, PluginError, Schedule, ScheduleSpec};
///
/// /// Sends every frame in every instant: always correct, hopelessly wasteful.
/// struct Flood;
/// impl BroadcastSchedule for Flood {
///     fn schedule(&self, spec: &ScheduleSpec) -> Result<Schedule, PluginError> {
///         let mut s = Schedule::builder(*spec);
///         for _ in 0..spec.frames {
///             s.push_frame(&mut (1..=spec.horizon).collect())?;
///         }
///         Ok(s)
///     }
/// }
/// let spec = ScheduleSpec { frames: 4, delay: 1, horizon: 20, chunk_hint: 1 };
/// let s = Flood.schedule(&spec).unwrap();
/// assert!(s.check_windows().is_ok());
/// assert_eq!(s.bandwidth(1), (4.0, 4));
/// ```
pub trait BroadcastSchedule: Send + Sync {
    /// Builds the whole schedule.
    fn schedule(&self, spec: &ScheduleSpec) -> Result<Schedule, PluginError>;

    /// Whether the schedule depends on [`ScheduleSpec::chunk_hint`]. A run builds one
    /// schedule for every point that needs the same; one that ignores the hint is built once
    /// for points whose receivers batch differently (then with a hint of 1), so it must be
    /// the same schedule whatever the hint. The default, `true`, is always safe.
    fn uses_chunk_hint(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(frames: u32, delay: u32, horizon: u32) -> ScheduleSpec {
        ScheduleSpec {
            frames,
            delay,
            horizon,
            chunk_hint: 1,
        }
    }

    /// Brute force: every join instant, every frame.
    fn brute(s: &Schedule) -> Result<(), WindowViolation> {
        let sp = *s.spec();
        for join in 1..=s.last_join() {
            for frame in 0..sp.frames {
                let w = sp.window(frame);
                match s.first_at_or_after(frame, join) {
                    Some(t) if t < join + w => {}
                    _ => {
                        return Err(WindowViolation {
                            frame,
                            join,
                            window: w,
                        })
                    }
                }
            }
        }
        Ok(())
    }

    #[test]
    fn fast_check_agrees_with_brute_force() {
        let sp = spec(3, 1, 20);
        // frame 0 (λ=2) every 2; frame 1 (λ=3) every 3; frame 2 (λ=4) with a gap of 5.
        let mut s = Schedule::builder(sp);
        s.push_frame(&mut (1..=10).map(|k| 2 * k).collect())
            .unwrap();
        s.push_frame(&mut (1..=6).map(|k| 3 * k).collect()).unwrap();
        s.push_frame(&mut vec![4, 8, 13, 17, 20]).unwrap();
        let fast = s.check_windows().unwrap_err();
        let slow = brute(&s).unwrap_err();
        assert_eq!(fast, slow);
        assert_eq!(fast.frame, 2);
        assert_eq!(fast.join, 9);
    }

    #[test]
    fn out_of_range_instants_are_rejected() {
        let mut s = Schedule::builder(spec(1, 1, 5));
        assert!(s.push_frame(&mut vec![0, 2]).is_err());
        assert!(s.push_frame(&mut vec![6]).is_err());
    }

    #[test]
    fn missing_frames_fail_the_check() {
        let s = Schedule::builder(spec(2, 1, 5));
        assert!(s.check_windows().is_err());
    }
}
