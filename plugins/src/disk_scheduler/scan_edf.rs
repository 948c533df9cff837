//! `scan-edf`: SCAN-EDF (Reddy & Wyllie, ACM Multimedia '93), the usual deadline-with-seeks
//! compromise compared against SPIFFI's real-time scheduler (§5.2.2). Requests are served
//! earliest deadline first, and requests whose deadlines fall in the same *bucket* are served
//! in SCAN (elevator) order.
//!
//! Bucket rule: deadlines are grouped on the absolute simulated clock into consecutive spans
//! of `bucket` — request deadline `d` is in bucket `⌊d / bucket⌋` — so a bucket holds the
//! requests due within the same span (with `bucket = "1ns"` only identical deadlines tie, the
//! original SCAN-EDF). The earliest non-empty bucket is served in SCAN order, continuing the
//! sweep direction across buckets (reversing when nothing of the bucket lies ahead; oldest
//! first on one cylinder). Requests without a deadline form a last bucket, also swept.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use vodbench_plugin_api::ids::RequestId;
use vodbench_plugin_api::plugin::{
    BuildContext, DiskScheduler, HeadState, Plugin, PluginError, QueuedRequest,
};
use vodbench_plugin_api::units::Duration;

/// Parameters of `scan-edf`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct ScanEdfParams {
    /// Width of a deadline bucket; requests due in one bucket go in SCAN order (more than 0; default 1s).
    pub bucket: Duration,
}

impl Default for ScanEdfParams {
    fn default() -> Self {
        ScanEdfParams {
            bucket: Duration(1_000_000_000),
        }
    }
}

const NO_DEADLINE: u64 = u64::MAX;

/// EDF over deadline buckets, SCAN within a bucket; O(log n) per operation.
#[derive(Debug)]
pub struct ScanEdf {
    /// (bucket, cylinder, arrival) → request.
    queue: BTreeMap<(u64, u32, u64), RequestId>,
    bucket_ns: u64,
    upward: bool,
    seq: u64,
}

impl ScanEdf {
    /// An empty scheduler with buckets `bucket_ns` wide (at least 1).
    pub fn new(bucket_ns: u64) -> Self {
        ScanEdf {
            queue: BTreeMap::new(),
            bucket_ns: bucket_ns.max(1),
            upward: true,
            seq: 0,
        }
    }

    fn ahead(&self, b: u64, head: u32, upward: bool) -> Option<(u64, u32, u64)> {
        if upward {
            let r = (b, head, 0)..=(b, u32::MAX, u64::MAX);
            self.queue.range(r).next().map(|(k, _)| *k)
        } else {
            let r = (b, 0, 0)..=(b, head, u64::MAX);
            let (&(_, c, _), _) = self.queue.range(r).next_back()?;
            self.queue.range((b, c, 0)..).next().map(|(k, _)| *k)
        }
    }
}

impl DiskScheduler for ScanEdf {
    fn enqueue(&mut self, r: QueuedRequest) {
        let b = r.deadline.map_or(NO_DEADLINE, |d| {
            (d.as_nanos() / self.bucket_ns).min(NO_DEADLINE - 1)
        });
        self.queue.insert((b, r.cylinder, self.seq), r.id);
        self.seq += 1;
    }

    fn dequeue(&mut self, head: &HeadState) -> Option<RequestId> {
        let (&(b, _, _), _) = self.queue.first_key_value()?;
        let key = match self.ahead(b, head.cylinder, self.upward) {
            Some(k) => k,
            None => {
                self.upward = !self.upward;
                self.ahead(b, head.cylinder, self.upward)?
            }
        };
        self.queue.remove(&key)
    }

    fn len(&self) -> usize {
        self.queue.len()
    }
}

impl Plugin for ScanEdf {
    type Kind = dyn DiskScheduler;
    type Params = ScanEdfParams;
    const NAME: &'static str = "scan-edf";
    const DESCRIPTION: &'static str =
        "earliest deadline bucket first, SCAN order within a bucket (Reddy & Wyllie)";

    fn validate(p: &ScanEdfParams) -> Result<(), PluginError> {
        if p.bucket.0 == 0 {
            return Err(PluginError::param("bucket", "must be more than 0"));
        }
        Ok(())
    }

    fn build(
        p: &ScanEdfParams,
        _: &BuildContext<'_>,
    ) -> Result<Box<dyn DiskScheduler>, PluginError> {
        Ok(Box::new(ScanEdf::new(p.bucket.0)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vodbench_plugin_api::plugin::RequestClass;
    use vodbench_plugin_api::time::SimTime;

    fn req(id: u32, cylinder: u32, deadline_ms: Option<u64>) -> QueuedRequest {
        QueuedRequest {
            id: RequestId(id),
            cylinder,
            offset: 0,
            bytes: 1,
            terminal: None,
            class: RequestClass::Demand,
            deadline: deadline_ms.map(|m| SimTime::from_nanos(m * 1_000_000)),
            arrival: SimTime::ZERO,
        }
    }

    #[test]
    fn buckets_in_deadline_order_scan_within_a_bucket() {
        // 1 s buckets: bucket 0 = {1 (cyl 80), 2 (cyl 20), 3 (cyl 60)}, bucket 2 = {4, 5},
        // no deadline = {6}
        let mut s = ScanEdf::new(1_000_000_000);
        for (id, c, d) in [
            (1, 80, Some(900)),
            (2, 20, Some(100)),
            (3, 60, Some(999)),
            (4, 10, Some(2500)),
            (5, 90, Some(2000)),
            (6, 50, None),
        ] {
            s.enqueue(req(id, c, d));
        }
        let cyl = [0, 80, 20, 60, 10, 90, 50];
        let mut h = 50;
        let mut order = Vec::new();
        while let Some(RequestId(id)) = s.dequeue(&HeadState {
            now: SimTime::ZERO,
            cylinder: h,
            cylinders: 100,
        }) {
            h = cyl[id as usize];
            order.push(id);
        }
        // bucket 0 from 50 upward: 60, 80, then down: 20; bucket 2 continues downward from
        // 20: 10, then up: 90; finally the no-deadline request
        assert_eq!(order, vec![3, 1, 2, 4, 5, 6]);
    }

    #[test]
    fn one_nanosecond_buckets_are_plain_edf_with_scan_ties() {
        let mut s = ScanEdf::new(1);
        s.enqueue(req(1, 90, Some(5)));
        s.enqueue(req(2, 10, Some(5)));
        s.enqueue(req(3, 50, Some(4)));
        let h = |c| HeadState {
            now: SimTime::ZERO,
            cylinder: c,
            cylinders: 100,
        };
        assert_eq!(s.dequeue(&h(0)), Some(RequestId(3)));
        assert_eq!(s.dequeue(&h(50)), Some(RequestId(1)));
        assert_eq!(s.dequeue(&h(90)), Some(RequestId(2)));
    }
}
