//! The object manager as a node of the interconnect (Jadav et al. §3.2 and §7;
//! `../shared/papers/notes/jadav.md` §1.1 and §5.2), with `[server] manager_node = true`.
//!
//! §3.2: "the object manager node would receive a request for an object … An interface node
//! to serve the stream is chosen by the object manager … Before accepting a request, the
//! Object Manager communicates with the selected Interface nodes to ensure that the new
//! request, if accepted, can be successfully served". Without `manager_node` the manager's
//! decisions cost nothing: admission is decided the instant the viewing is asked for. With
//! it, the manager A is network node `nodes + interface_nodes` (after the storage and the
//! interface nodes, without disks; the interconnect gives it links as it gives the others),
//! and each viewing's start goes:
//!
//! 1. **The viewer's request reaches A** at the workload `start`'s time, from outside the
//!    server: like the packets the interface nodes send to their clients, it crosses no link
//!    of the interconnect and costs nothing.
//! 2. **A routes the viewing** at once, exactly as without the node: terminal t to interface
//!    node t mod `interface_nodes`, or under `[server.replication]` the scheme's routing,
//!    whose popularity log A keeps. A logs the request as it arrives (§6.2: "all new
//!    requests for streams come to this node"), before the interface node's answer, so under
//!    `rdss` with admission control `replication.viewings` counts the refused requests too
//!    (the schemes that copy the popular object are not run with `[admission]`).
//! 3. **A sends the delegation** to that interface node: one message of
//!    `server.network.request_bytes` (a fragment request's size, 128 B by default) over the
//!    interconnect, which waits for and holds links like every other message.
//! 4. **The interface node decides admission** when the delegation arrives (the
//!    `[admission]` policy, as without the node, at that time): retrieval admission's probes
//!    (§7.2) leave the interface node then, and it decides when their replies are back.
//! 5. **It answers A**: one message of the same size back, sent as it decides.
//! 6. **A accepts or refuses when the answer arrives**: a refused viewer is refused then; an
//!    admitted stream begins then, its first fragment requests leaving its interface node at
//!    that instant. The interface node holds its admission (the stream counts as active)
//!    from its decision. No third message tells the interface node that A accepted: A
//!    accepts every stream its interface node admitted, so the node's own answer is the
//!    commitment, and the stream begins when A has it (starting it at the interface node's
//!    decision instead would shorten each start by one control message).
//!
//! The stream's start-up latency counts from the viewer's request, so it includes both
//! messages (and their waits for links, the probes, and the admission decision). Like the
//! probes, the control messages are the interface node's and the manager's network
//! software's (`send_cost`, `receive_cost`), not the interface CPUs' queued work
//! (`[server.interface_cpu]`). They are counted among the interconnect's messages and apart
//! (`network.control_messages` / `control_bytes` in `summary.json`, and each one's time from
//! sending to delivery, waits included, in `control_delivery`), and a viewer's later workload
//! events wait behind its start until A has the answer.

use super::event::Ev;
use super::ports::Ports;

/// The object manager receives terminal `t`'s request for `video` (one of `terminals`
/// terminals) now: it routes the viewing to an interface node and sends that node the
/// delegation, `bytes` long, which arrives as [`Ev::Delegation`].
pub(super) fn delegate(p: &mut Ports, t: u32, video: u32, terminals: u32, bytes: u64) {
    let now = p.now();
    let i = match p.repl.as_mut() {
        Some(rep) => {
            // the manager logs the request and routes the viewing
            let i = rep.viewing(t, video, now);
            p.net.assign(t, i, terminals);
            i
        }
        None => p.net.interface_of(t) as u32,
    };
    let from = p
        .net
        .manager_endpoint()
        .expect("a delegation without a manager node");
    let to = p.net.interface_endpoint(i);
    p.net.send(
        from,
        to,
        bytes,
        Ev::Delegation(t),
        p.q,
        &p.period.w,
        p.faults,
    );
}

/// Terminal `t`'s interface node decided (`admitted` or not) now: it sends the manager its
/// answer, `bytes` long, which arrives as [`Ev::Answer`].
pub(super) fn answer(p: &mut Ports, t: u32, admitted: bool, bytes: u64) {
    let from = p.net.terminal_endpoint(t);
    let to = p
        .net
        .manager_endpoint()
        .expect("an answer without a manager node");
    p.net.send(
        from,
        to,
        bytes,
        Ev::Answer(t, admitted),
        p.q,
        &p.period.w,
        p.faults,
    );
}
