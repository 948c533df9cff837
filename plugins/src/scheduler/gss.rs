//! `gss`: the group sweeping scheme of Yu et al. \[Yu92\], as SPIFFI implemented it for
//! comparison (§5.2.2). Terminal `t` belongs to group `t mod groups`. The groups are processed
//! over and over in round-robin order; processing a group takes up to one request per
//! terminal of the group — each terminal's oldest — and serves that batch in elevator (SCAN)
//! order. Requests arriving while a batch is served wait for their group's next turn.
//!
//! With one group this is the elevator, except that a terminal is served at most once per
//! pass; with as many groups as terminals it is round-robin. More groups bound each
//! terminal's wait (and the buffering it needs) more tightly, at the cost of longer seeks.
//! Requests without a terminal count as terminal `u32::MAX`.

use super::round_robin::terminal_key;
use super::sweep::Sweep;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use vodbench_harness::ids::RequestId;
use vodbench_harness::plugin::{
    BuildContext, DiskScheduler, HeadState, Plugin, PluginError, QueuedRequest,
};

/// Parameters of `gss`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct GssParams {
    /// Number of groups; terminal t is in group t mod groups (1..=1000000; default 1).
    pub groups: u32,
}

impl Default for GssParams {
    fn default() -> Self {
        GssParams { groups: 1 }
    }
}

/// Group sweeping.
#[derive(Debug)]
pub struct Gss {
    groups: u32,
    /// Requests not in the current batch, by (group, terminal, arrival).
    waiting: BTreeMap<(u32, u32, u64), (u32, RequestId)>,
    /// The batch being served: (request, cylinder, arrival).
    batch: Vec<(RequestId, u32, u64)>,
    /// The group of the current (or last) batch.
    group: Option<u32>,
    sweep: Sweep,
    seq: u64,
}

impl Gss {
    /// An empty scheduler with `groups` groups (at least 1).
    pub fn new(groups: u32) -> Self {
        Gss {
            groups: groups.max(1),
            waiting: BTreeMap::new(),
            batch: Vec::new(),
            group: None,
            sweep: Sweep::default(),
            seq: 0,
        }
    }

    /// Moves the next non-empty group's batch (oldest request of each of its terminals)
    /// out of `waiting`.
    fn next_batch(&mut self) {
        let from = self.group.map_or(0, |g| g + 1);
        let first = self
            .waiting
            .range((from, 0, 0)..)
            .next()
            .or_else(|| self.waiting.iter().next())
            .map(|(k, _)| *k);
        let Some((g, mut t, _)) = first else {
            return;
        };
        self.group = Some(g);
        while let Some((&key, &(cyl, id))) = self.waiting.range((g, t, 0)..).next() {
            if key.0 != g {
                break;
            }
            self.waiting.remove(&key);
            self.batch.push((id, cyl, key.2));
            match key.1.checked_add(1) {
                Some(n) => t = n,
                None => break,
            }
        }
    }
}

impl DiskScheduler for Gss {
    fn enqueue(&mut self, r: QueuedRequest) {
        let t = terminal_key(&r);
        self.waiting
            .insert((t % self.groups, t, self.seq), (r.cylinder, r.id));
        self.seq += 1;
    }

    fn dequeue(&mut self, head: &HeadState) -> Option<RequestId> {
        if self.batch.is_empty() {
            self.next_batch();
        }
        let items = self.batch.iter().enumerate().map(|(i, b)| (i, b.1, b.2));
        let i = self.sweep.pick(head.cylinder, items)?;
        Some(self.batch.swap_remove(i).0)
    }

    fn len(&self) -> usize {
        self.waiting.len() + self.batch.len()
    }
}

impl Plugin for Gss {
    type Kind = dyn DiskScheduler;
    type Params = GssParams;
    const NAME: &'static str = "gss";
    const DESCRIPTION: &'static str =
        "group sweeping: groups in round-robin, one request per terminal per pass in SCAN order (SPIFFI §5.2.2)";

    fn validate(p: &GssParams) -> Result<(), PluginError> {
        if !(1..=1_000_000).contains(&p.groups) {
            return Err(PluginError::param(
                "groups",
                format!("must be in 1..=1000000, got {}", p.groups),
            ));
        }
        Ok(())
    }

    fn build(p: &GssParams, _: &BuildContext<'_>) -> Result<Box<dyn DiskScheduler>, PluginError> {
        Ok(Box::new(Gss::new(p.groups)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scheduler::elevator::Elevator;
    use crate::scheduler::round_robin::tests::{head, req};
    use crate::scheduler::round_robin::RoundRobin;

    /// Serves everything, moving the head to each served request's cylinder.
    fn drain(s: &mut dyn DiskScheduler, cyl: &[u32], start: u32) -> Vec<u32> {
        let mut h = start;
        let mut order = Vec::new();
        while let Some(RequestId(id)) = s.dequeue(&head(h)) {
            h = cyl[id as usize];
            order.push(id);
        }
        order
    }

    #[test]
    fn one_group_is_the_elevator_when_terminals_have_one_request_each() {
        let cyl = [0, 50, 10, 70, 30, 55, 90];
        let mut g = Gss::new(1);
        let mut e = Elevator::new();
        for id in 1..cyl.len() as u32 {
            g.enqueue(req(id, id, cyl[id as usize]));
            e.enqueue(req(id, id, cyl[id as usize]));
        }
        let order = drain(&mut g, &cyl, 40);
        assert_eq!(order, drain(&mut e, &cyl, 40));
        assert_eq!(order, vec![1, 5, 3, 6, 4, 2]);
    }

    #[test]
    fn one_group_serves_a_terminal_once_per_pass() {
        // terminal 0 has two requests on the way up; the elevator would take both in one
        // sweep, GSS leaves the second for the next pass (after turning around at 70)
        let cyl = [0, 50, 60, 70, 20];
        let mut g = Gss::new(1);
        g.enqueue(req(1, 0, 50));
        g.enqueue(req(2, 0, 60));
        g.enqueue(req(3, 1, 70));
        g.enqueue(req(4, 2, 20));
        assert_eq!(drain(&mut g, &cyl, 40), vec![1, 3, 4, 2]);
        let mut e = Elevator::new();
        for (id, t) in [(1, 0), (2, 0), (3, 1), (4, 2)] {
            e.enqueue(req(id, t, cyl[id as usize]));
        }
        assert_eq!(drain(&mut e, &cyl, 40), vec![1, 2, 3, 4]);
    }

    #[test]
    fn as_many_groups_as_terminals_is_round_robin() {
        // 4 terminals, several requests each, cylinders chosen to tempt a sweep
        let reqs = [
            (1, 3, 5),
            (2, 0, 900),
            (3, 3, 6),
            (4, 1, 7),
            (5, 2, 800),
            (6, 0, 8),
            (7, 2, 9),
            (8, 1, 700),
        ];
        let mut cyl = vec![0; reqs.len() + 1];
        let mut g = Gss::new(4);
        let mut rr = RoundRobin::default();
        for (id, t, c) in reqs {
            cyl[id as usize] = c;
            g.enqueue(req(id, t, c));
            rr.enqueue(req(id, t, c));
        }
        let order = drain(&mut g, &cyl, 0);
        assert_eq!(order, drain(&mut rr, &cyl, 0));
        assert_eq!(order, vec![2, 4, 5, 1, 6, 8, 7, 3]);
    }

    #[test]
    fn groups_take_turns_and_late_arrivals_wait_for_their_group() {
        // 2 groups: terminals 0, 2 in group 0; terminal 1 in group 1
        let mut g = Gss::new(2);
        g.enqueue(req(1, 0, 100));
        g.enqueue(req(2, 2, 50));
        g.enqueue(req(3, 1, 60));
        // group 0's batch: 50 then 100 from head 0
        assert_eq!(g.dequeue(&head(0)), Some(RequestId(2)));
        g.enqueue(req(4, 2, 70)); // terminal 2 again: next pass of group 0
        assert_eq!(g.dequeue(&head(50)), Some(RequestId(1)));
        assert_eq!(g.dequeue(&head(100)), Some(RequestId(3)));
        assert_eq!(g.dequeue(&head(60)), Some(RequestId(4)));
        assert_eq!(g.dequeue(&head(70)), None);
        assert_eq!(g.len(), 0);
    }
}
