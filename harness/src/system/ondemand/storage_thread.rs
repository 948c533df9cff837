//! A single-threaded storage node (Jadav et al. §5; the notes' §4.2 reading).
//!
//! The paper's disks were simulated "by elapsing the system timer on each server node": the
//! node's software waited out each access itself. Read as one thread, a storage node then
//! does one thing at a time, in a loop: it receives the requests that came in, queues them
//! by deadline, takes the earliest, waits out its disk access (receiving nothing meanwhile:
//! what arrives waits in the message layer, unreceived), sends the fragment back (waiting,
//! as a synchronous send does, until the message is delivered), and only then receives
//! again and starts the next access. `[server] storage_threading = "single"` makes the
//! storage nodes so; the default `"multi"` is the disk as a device beside a node that keeps
//! receiving and sending (`engine.rs`'s data path without these holds).
//!
//! How the engine keeps it, per storage node:
//!
//! * the node's CPU ([`super::node::Nodes::hold`]) is held while its disk serves an access
//!   and while a reply it sent is on its way: a request that arrives meanwhile waits,
//!   unreceived, in the CPU's queue;
//! * its disk starts an access only when the node's thread is free: no CPU job running or
//!   queued, not held. After a reply is delivered the node first receives every request
//!   that came during the access and the send, so the earliest deadline among them all is
//!   served next;
//! * when an access ends, the reply is sent first (its CPU job ahead of the receives that
//!   queued during the access), then the thread is held again until it is delivered.
//!
//! The delay components (`delays.rs`) measure S_Q from the request's arrival at the disk
//! queue, after it was received, so a request's wait to be received is in N_Q, as the notes
//! say the paper's measurement would put it. One disk per storage node (the spec refuses
//! `disks_per_node` above 1, buses and server-push with `"single"`); an admission probe is
//! answered as under `"multi"`, without the node's thread.

use super::scenario::StorageThreading;

/// What a storage node's one thread is doing, beside CPU jobs.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Busy {
    /// Free for CPU jobs, or to start a disk access.
    Free,
    /// Waiting out a disk access.
    Disk,
    /// Waiting for a reply it sent to be delivered.
    Sending,
}

/// The storage nodes' threads (`[server] storage_threading`).
pub(super) struct StorageThreads {
    /// `"single"`: each storage node's state; empty under `"multi"`.
    state: Vec<Busy>,
}

impl StorageThreads {
    /// The threads of `storage` storage nodes under `threading`.
    pub fn new(threading: StorageThreading, storage: u32) -> Self {
        let state = match threading {
            StorageThreading::Multi => Vec::new(),
            StorageThreading::Single => vec![Busy::Free; storage as usize],
        };
        StorageThreads { state }
    }

    /// Whether node `n` is a single-threaded storage node (an interface node, or any node
    /// under `"multi"`, is not).
    #[inline]
    pub fn single(&self, n: usize) -> bool {
        n < self.state.len()
    }

    /// What node `n`'s thread is doing (`Free` for a node that is not single-threaded).
    #[inline]
    pub fn busy(&self, n: usize) -> Busy {
        self.state.get(n).copied().unwrap_or(Busy::Free)
    }

    /// Node `n`'s thread starts waiting out a disk access or a reply's delivery.
    pub fn enter(&mut self, n: usize, what: Busy) {
        assert!(
            self.state[n] == Busy::Free && what != Busy::Free,
            "storage node {n}'s thread is {:?}, cannot wait for {what:?}",
            self.state[n]
        );
        self.state[n] = what;
    }

    /// Node `n`'s thread is done with what held it (`what`, checked).
    pub fn leave(&mut self, n: usize, what: Busy) {
        assert_eq!(self.state[n], what, "storage node {n}'s thread");
        self.state[n] = Busy::Free;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_storage_nodes_under_single_are_single_threaded() {
        let multi = StorageThreads::new(StorageThreading::Multi, 3);
        assert!(!multi.single(0));
        assert_eq!(multi.busy(0), Busy::Free);
        let mut single = StorageThreads::new(StorageThreading::Single, 3);
        assert!(single.single(2));
        assert!(!single.single(3), "node 3 is an interface node");
        single.enter(1, Busy::Disk);
        assert_eq!(single.busy(1), Busy::Disk);
        single.leave(1, Busy::Disk);
        single.enter(1, Busy::Sending);
        assert_eq!(single.busy(1), Busy::Sending);
        single.leave(1, Busy::Sending);
        assert_eq!(single.busy(1), Busy::Free);
    }
}
