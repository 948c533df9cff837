//! `real-time`: SPIFFI's real-time disk scheduler (§5.2.2, Figs. 5 and 6), an extension of
//! the priority scheduler of \[Care89\]. Every request's deadline maps to one of `classes`
//! priority classes through uniformly spaced cutoffs: with `r` the time remaining until the
//! deadline, class `min(⌊r / spacing⌋, classes − 1)` — under one `spacing` is class 0 (the
//! highest), under two is class 1, and so on, everything further off in the lowest class.
//! Requests without a deadline (prefetches, unless the prefetcher estimated one) are in the
//! lowest class; requests already late are in class 0. The highest non-empty class is served
//! in elevator (SCAN) order. Classes are recomputed from the current time at every decision,
//! so waiting requests are promoted as their deadlines approach.
//!
//! The queue is a flat array scanned at every decision (allocation-free; disk queues in
//! video servers hold tens of requests), so every promotion is seen without bookkeeping: the
//! earliest deadline gives the most urgent class, and membership of a class is a comparison
//! of the time remaining with its cutoffs.

use super::sweep::Sweep;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use vodbench_plugin_api::ids::RequestId;
use vodbench_plugin_api::plugin::{
    BuildContext, DiskScheduler, HeadState, Plugin, PluginError, QueuedRequest,
};
use vodbench_plugin_api::time::{SimDuration, SimTime};
use vodbench_plugin_api::units::Duration;

/// Parameters of `real-time`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RealTimeParams {
    /// Number of priority classes (1..=64; default 3, SPIFFI's best setting).
    pub classes: u32,
    /// Spacing between the priority cutoffs (more than 0; default 4s, SPIFFI's best setting).
    pub spacing: Duration,
}

impl Default for RealTimeParams {
    fn default() -> Self {
        RealTimeParams {
            classes: 3,
            spacing: Duration(4_000_000_000),
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    id: RequestId,
    cylinder: u32,
    seq: u64,
    deadline: Option<SimTime>,
}

/// Priority classes by deadline, elevator within the most urgent class.
#[derive(Debug)]
pub struct RealTime {
    queue: Vec<Entry>,
    classes: u32,
    spacing: SimDuration,
    sweep: Sweep,
    seq: u64,
}

impl RealTime {
    /// An empty scheduler with `classes` classes (at least 1) spaced `spacing` apart.
    pub fn new(classes: u32, spacing: SimDuration) -> Self {
        RealTime {
            queue: Vec::new(),
            classes: classes.max(1),
            spacing: SimDuration::from_nanos(spacing.as_nanos().max(1)),
            sweep: Sweep::default(),
            seq: 0,
        }
    }

    /// The priority class of a request with `deadline` at `now` (0 is the most urgent).
    pub fn class(&self, deadline: Option<SimTime>, now: SimTime) -> u32 {
        let lowest = self.classes - 1;
        match deadline {
            None => lowest,
            Some(d) => {
                let k = d.saturating_since(now).as_nanos() / self.spacing.as_nanos();
                k.min(u64::from(lowest)) as u32
            }
        }
    }
}

impl DiskScheduler for RealTime {
    fn enqueue(&mut self, r: QueuedRequest) {
        self.queue.push(Entry {
            id: r.id,
            cylinder: r.cylinder,
            seq: self.seq,
            deadline: r.deadline,
        });
        self.seq += 1;
    }

    fn dequeue(&mut self, head: &HeadState) -> Option<RequestId> {
        let now = head.now;
        // classes fall as deadlines approach, so the most urgent class is the earliest
        // deadline's (or the lowest when no request has one)
        if self.queue.is_empty() {
            return None;
        }
        let top = self.class(self.queue.iter().filter_map(|e| e.deadline).min(), now);
        // a request is in class `top` when its time remaining lies in
        // [top·spacing, (top + 1)·spacing), or beyond top·spacing for the lowest class: the
        // class of every request without a division
        let sp = u128::from(self.spacing.as_nanos());
        let (low, high) = (u128::from(top) * sp, u128::from(top + 1) * sp);
        let lowest = top == self.classes - 1;
        let items = self
            .queue
            .iter()
            .enumerate()
            .filter(move |(_, e)| match e.deadline {
                None => lowest,
                Some(d) => {
                    let r = u128::from(d.saturating_since(now).as_nanos());
                    r >= low && (lowest || r < high)
                }
            })
            .map(|(i, e)| (i, e.cylinder, e.seq));
        let mut sweep = self.sweep;
        let i = sweep.pick(head.cylinder, items)?;
        self.sweep = sweep;
        Some(self.queue.swap_remove(i).id)
    }

    fn len(&self) -> usize {
        self.queue.len()
    }
}

impl Plugin for RealTime {
    type Kind = dyn DiskScheduler;
    type Params = RealTimeParams;
    const NAME: &'static str = "real-time";
    const DESCRIPTION: &'static str =
        "deadline priority classes with uniform cutoffs, SCAN within the most urgent class (SPIFFI §5.2.2)";

    fn validate(p: &RealTimeParams) -> Result<(), PluginError> {
        if !(1..=64).contains(&p.classes) {
            return Err(PluginError::param(
                "classes",
                format!("must be in 1..=64, got {}", p.classes),
            ));
        }
        if p.spacing.0 == 0 {
            return Err(PluginError::param("spacing", "must be more than 0"));
        }
        Ok(())
    }

    fn build(
        p: &RealTimeParams,
        _: &BuildContext<'_>,
    ) -> Result<Box<dyn DiskScheduler>, PluginError> {
        Ok(Box::new(RealTime::new(p.classes, p.spacing.sim())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vodbench_plugin_api::plugin::RequestClass;

    fn secs(s: u64) -> SimTime {
        SimTime::from_nanos(s * 1_000_000_000)
    }

    fn req(id: u32, cylinder: u32, deadline: Option<SimTime>) -> QueuedRequest {
        QueuedRequest {
            id: RequestId(id),
            cylinder,
            offset: 0,
            bytes: 1,
            terminal: None,
            class: if deadline.is_some() {
                RequestClass::Demand
            } else {
                RequestClass::Prefetch
            },
            deadline,
            arrival: SimTime::ZERO,
        }
    }

    fn head(now: SimTime, cylinder: u32) -> HeadState {
        HeadState {
            now,
            cylinder,
            cylinders: 1000,
        }
    }

    #[test]
    fn serves_the_elevator_order_of_the_class_the_division_gives() {
        // against the definition: classes by `class()`, SCAN among the most urgent; random
        // queues (late, near-cutoff, far and missing deadlines) with a xorshift stream
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        for classes in [1, 2, 3, 5] {
            let spacing = SimDuration::from_nanos(1 + next(3_000));
            let mut rt = RealTime::new(classes, spacing);
            let mut model: Vec<(u32, u32, u64, Option<SimTime>)> = Vec::new();
            let (mut now, mut cyl, mut seq, mut sweep) = (1_000u64, 0u32, 0u64, Sweep::default());
            for id in 0..2_000u32 {
                let sp = spacing.as_nanos();
                let deadline = match next(4) {
                    0 => None,
                    // on a cutoff or one nanosecond either side of it
                    1 => Some(SimTime::from_nanos(now + next(6) * sp + next(3) - 1)),
                    _ => Some(SimTime::from_nanos(now + next(20_000) - 1_000)),
                };
                let c = next(50) as u32;
                rt.enqueue(req(id, c, deadline));
                model.push((id, c, seq, deadline));
                seq += 1;
                // dequeue about as often as enqueue, so that queues stay short and the most
                // urgent class varies
                while !model.is_empty() && next(2) == 0 {
                    let t = SimTime::from_nanos(now);
                    let top = model.iter().map(|e| rt.class(e.3, t)).min().unwrap();
                    let items = model
                        .iter()
                        .enumerate()
                        .filter(|(_, e)| rt.class(e.3, t) == top)
                        .map(|(i, e)| (i, e.1, e.2));
                    let i = sweep.pick(cyl, items).unwrap();
                    let want = model.swap_remove(i);
                    assert_eq!(rt.dequeue(&head(t, cyl)), Some(RequestId(want.0)));
                    cyl = want.1;
                }
                now += next(500);
            }
        }
    }

    #[test]
    fn classes_follow_the_uniform_cutoffs() {
        // SPIFFI Fig. 5: 3 classes, 2 s spacing: cutoffs at 2 s and 4 s
        let rt = RealTime::new(3, SimDuration::from_secs(2));
        let now = secs(10);
        let ms = |m: u64| Some(SimTime::from_nanos(10_000_000_000 + m * 1_000_000));
        assert_eq!(rt.class(ms(0), now), 0);
        assert_eq!(rt.class(ms(1999), now), 0);
        assert_eq!(rt.class(ms(2000), now), 1);
        assert_eq!(rt.class(ms(3999), now), 1);
        assert_eq!(rt.class(ms(4000), now), 2);
        assert_eq!(rt.class(ms(60_000), now), 2);
        assert_eq!(
            rt.class(Some(secs(3)), now),
            0,
            "late requests are most urgent"
        );
        assert_eq!(rt.class(None, now), 2, "no deadline: lowest class");
        assert_eq!(
            RealTime::new(1, SimDuration::from_secs(2)).class(ms(0), now),
            0
        );
    }

    #[test]
    fn most_urgent_class_first_even_past_a_nearer_request() {
        // SPIFFI Fig. 6: request 2 (priority 1) is served before request 1 (priority 2)
        // although the head passes request 1's cylinder on the way
        let mut rt = RealTime::new(3, SimDuration::from_secs(2));
        rt.enqueue(req(1, 10, Some(secs(3)))); // 3 s left: class 1
        rt.enqueue(req(2, 40, Some(secs(1)))); // 1 s left: class 0
        rt.enqueue(req(3, 5, None)); // prefetch: class 2
        assert_eq!(rt.dequeue(&head(secs(0), 0)), Some(RequestId(2)));
        assert_eq!(rt.dequeue(&head(secs(0), 40)), Some(RequestId(1)));
        assert_eq!(rt.dequeue(&head(secs(0), 10)), Some(RequestId(3)));
        assert_eq!(rt.dequeue(&head(secs(0), 5)), None);
    }

    #[test]
    fn waiting_requests_are_promoted_as_time_passes() {
        let mut rt = RealTime::new(3, SimDuration::from_secs(2));
        rt.enqueue(req(1, 100, Some(secs(5)))); // at t=0: class 2; at t=2: class 1
        rt.enqueue(req(2, 50, Some(secs(4)))); // at t=0: class 2; at t=2: class 1
        rt.enqueue(req(3, 10, Some(secs(6)))); // at t=0: class 2; at t=2: class 2
        rt.enqueue(req(4, 60, Some(secs(9)))); // class 2 throughout
                                               // at t=0 everything is class 2: SCAN from 55 upward: 60
        assert_eq!(rt.dequeue(&head(secs(0), 55)), Some(RequestId(4)));
        // at t=2, requests 1 and 2 are promoted to class 1 and go before 3; SCAN upward
        // from 60 finds 100 (request 1), then turns around for 50 (request 2)
        assert_eq!(rt.dequeue(&head(secs(2), 60)), Some(RequestId(1)));
        // at t=4.5 request 3 (1.5 s left) is promoted to class 0, beside request 2 (late):
        // SCAN turns around at 100 and reaches 50, then 10
        let t = SimTime::from_nanos(4_500_000_000);
        assert_eq!(rt.dequeue(&head(t, 100)), Some(RequestId(2)));
        assert_eq!(rt.dequeue(&head(t, 50)), Some(RequestId(3)));
        assert!(rt.is_empty());
    }

    #[test]
    fn a_prefetch_with_an_urgent_estimated_deadline_beats_a_relaxed_demand() {
        let mut rt = RealTime::new(3, SimDuration::from_secs(4));
        rt.enqueue(req(1, 10, Some(secs(20)))); // demand, 20 s left: class 2
        let mut p = req(2, 900, Some(secs(3))); // prefetch, 3 s left: class 0
        p.class = RequestClass::Prefetch;
        rt.enqueue(p);
        assert_eq!(rt.dequeue(&head(secs(0), 0)), Some(RequestId(2)));
        assert_eq!(rt.dequeue(&head(secs(0), 900)), Some(RequestId(1)));
    }
}
