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
//!
//! How each batch is swept is a reading the paper leaves open (`batch_sweep`): §5.2.2 has a
//! group "serviced using the elevator algorithm", whose definition "scans the disk cylinders
//! starting with the innermost cylinder and working outward". `continue` (the default) keeps
//! one elevator running across batches: a batch is taken in SCAN order from wherever the arm
//! is, in the direction it last moved, turning when nothing of the batch lies ahead.
//! `from-innermost` runs that definition afresh on every batch: the arm goes to the batch's
//! lowest cylinder (vodbench's cylinder 0 stands for the innermost) and serves the batch
//! outward, as C-SCAN does with a whole queue, so each batch but a one-request one starts
//! with a seek back across the requests it will then pass again.

use super::round_robin::terminal_key;
use super::sweep::Sweep;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use vodbench_plugin_api::ids::RequestId;
use vodbench_plugin_api::plugin::{
    BuildContext, DiskScheduler, HeadState, Plugin, PluginError, QueuedRequest,
};

/// How a batch is swept (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum BatchSweep {
    /// One elevator across batches: from the arm, in its last direction.
    #[default]
    Continue,
    /// Every batch from its lowest cylinder upward (§5.2.2's elevator run per batch).
    FromInnermost,
}

/// Parameters of `gss`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct GssParams {
    /// Number of groups; terminal t is in group t mod groups (1..=1000000; default 1).
    pub groups: u32,
    /// How each batch is swept: "continue" (one elevator across batches, the default) or
    /// "from-innermost" (each batch from its lowest cylinder upward).
    pub batch_sweep: BatchSweep,
}

impl Default for GssParams {
    fn default() -> Self {
        GssParams {
            groups: 1,
            batch_sweep: BatchSweep::Continue,
        }
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
    batch_sweep: BatchSweep,
    seq: u64,
}

impl Gss {
    /// An empty scheduler with `groups` groups (at least 1), sweeping batches as `continue`.
    pub fn new(groups: u32) -> Self {
        Self::with_sweep(groups, BatchSweep::Continue)
    }

    /// An empty scheduler with `groups` groups (at least 1) sweeping each batch as
    /// `batch_sweep` says.
    pub fn with_sweep(groups: u32, batch_sweep: BatchSweep) -> Self {
        Gss {
            groups: groups.max(1),
            waiting: BTreeMap::new(),
            batch: Vec::new(),
            group: None,
            sweep: Sweep::default(),
            batch_sweep,
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
            if self.batch_sweep == BatchSweep::FromInnermost {
                // serve the new batch upward from its lowest cylinder (oldest first on one
                // cylinder): the batch in that order, taken from the back
                self.batch
                    .sort_unstable_by_key(|b| std::cmp::Reverse((b.1, b.2)));
            }
        }
        match self.batch_sweep {
            BatchSweep::FromInnermost => self.batch.pop().map(|b| b.0),
            BatchSweep::Continue => {
                let items = self.batch.iter().enumerate().map(|(i, b)| (i, b.1, b.2));
                let i = self.sweep.pick(head.cylinder, items)?;
                Some(self.batch.swap_remove(i).0)
            }
        }
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
        Ok(Box::new(Gss::with_sweep(p.groups, p.batch_sweep)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::disk_scheduler::elevator::Elevator;
    use crate::disk_scheduler::round_robin::tests::{head, req};
    use crate::disk_scheduler::round_robin::RoundRobin;

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
    fn from_innermost_serves_each_batch_upward_from_its_lowest_cylinder() {
        // head at 40 having moved up: `continue` takes 50, 70, then turns for 30, 10;
        // `from-innermost` goes back to 10 first and works outward: 10, 30, 50, 70
        let cyl = [0, 50, 10, 70, 30];
        let fill = |g: &mut Gss| {
            for id in 1..cyl.len() as u32 {
                g.enqueue(req(id, id, cyl[id as usize]));
            }
        };
        let mut cont = Gss::new(1);
        fill(&mut cont);
        assert_eq!(drain(&mut cont, &cyl, 40), vec![1, 3, 4, 2]);
        let mut inner = Gss::with_sweep(1, BatchSweep::FromInnermost);
        fill(&mut inner);
        assert_eq!(drain(&mut inner, &cyl, 40), vec![2, 4, 1, 3]);
        // a request arriving during the pass waits for the next batch, which starts from
        // its own lowest cylinder again, and one cylinder is served oldest first
        let mut g = Gss::with_sweep(1, BatchSweep::FromInnermost);
        g.enqueue(req(1, 0, 60));
        g.enqueue(req(2, 1, 20));
        assert_eq!(g.dequeue(&head(90)), Some(RequestId(2)));
        g.enqueue(req(3, 2, 5));
        g.enqueue(req(4, 3, 80));
        g.enqueue(req(5, 4, 80));
        assert_eq!(g.dequeue(&head(20)), Some(RequestId(1)));
        assert_eq!(g.dequeue(&head(60)), Some(RequestId(3)));
        assert_eq!(g.dequeue(&head(5)), Some(RequestId(4)));
        assert_eq!(g.dequeue(&head(80)), Some(RequestId(5)));
        assert_eq!(g.dequeue(&head(80)), None);
        assert_eq!(g.len(), 0);
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
