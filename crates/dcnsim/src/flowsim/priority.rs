//! Strict-priority greedy allocation: the flows of a component in order of a key, each taking
//! the smallest residual capacity along its path (all of it: preemptive priority, as SRPT,
//! pFabric's ideal, PDQ and MERP's schedules). A flow paused on one link holds nothing on the
//! others, so a lower flow that does not cross that link may use them (work conservation).
//!
//! Keys (smaller first; ties by flow id so equal flows are served in arrival order):
//! * SRPT: remaining bytes.
//! * PDQ: the switch comparator of [`crate::protocols::pdq::switch`] — earlier absolute
//!   deadline (none = last), then smaller expected transmission time (remaining bytes over the
//!   sender's NIC rate; the NICs are equal in the topologies we run, so remaining bytes).
//! * MERP: the virtual deadline. On every link of the component, VDG
//!   ([`crate::protocols::merp::schedule::vdg`]) orders the link's flows by the least maximum
//!   expansion ratio and gives each a vdl; a flow's esr is the smallest along its path
//!   (MERP's synchronisation by esr), i.e. its vdl is the *largest* of its links' vdls, and
//!   the key is that vdl.

use super::LinkFlows;
use crate::protocols::merp::schedule::{vdg, FlowEntry};
use crate::units::Time;

/// Gives `rates[i]` to `flows[i]` in the order of `order` (indices into `flows`).
pub fn greedy(
    links: &[u32],
    flows: &[u32],
    order: &[u32],
    net: &LinkFlows,
    capacity: &[f64],
    residual: &mut Vec<f64>,
    rates: &mut Vec<f64>,
) {
    if residual.len() < capacity.len() {
        residual.resize(capacity.len(), 0.0);
    }
    for &l in links {
        residual[l as usize] = capacity[l as usize];
    }
    rates.clear();
    rates.resize(flows.len(), 0.0);
    for &i in order {
        let f = flows[i as usize];
        let path = net.path(f);
        let r = path
            .iter()
            .map(|&l| residual[l as usize])
            .fold(f64::INFINITY, f64::min);
        if !(r.is_finite() && r > 0.0) {
            continue;
        }
        rates[i as usize] = r;
        for &l in path {
            let left = residual[l as usize] - r;
            // What rounding leaves on a link a flow filled is nothing, not a sliver that a
            // lower flow would trickle at.
            residual[l as usize] = if left <= capacity[l as usize] * 1e-12 {
                0.0
            } else {
                left
            };
        }
    }
}

/// What MERP's key needs to know of a flow.
#[derive(Clone, Copy, Debug)]
pub struct MerpFlow {
    pub id: u32,
    pub dst: u32,
    /// Wire bytes: the whole flow and what is left of it now.
    pub size: u64,
    pub rs: u64,
    pub arrival: Time,
}

/// MERP's key for each flow of the component (`keys[local[f]]`): the largest vdl VDG gives it
/// on any link of its path. `c[l]` is link capacity in bit/s.
#[allow(clippy::too_many_arguments)]
pub fn merp_keys(
    links: &[u32],
    local: &[u32],
    net: &LinkFlows,
    capacity: &[f64],
    now: Time,
    flow: &dyn Fn(u32) -> MerpFlow,
    table: &mut Vec<FlowEntry>,
    keys: &mut [Time],
) {
    keys.fill(Time::ZERO);
    for &l in links {
        table.clear();
        table.extend(net.flows_on(l).iter().map(|&f| {
            let m = flow(f);
            FlowEntry {
                flow: m.id,
                dst: m.dst,
                size: m.size,
                rs: m.rs,
                arrival: m.arrival,
                vdl: Time::ZERO,
                esr: 0.0,
            }
        }));
        if table.is_empty() {
            continue;
        }
        vdg(table, now, capacity[l as usize] / 8.0);
        for e in table.iter() {
            let k = &mut keys[local[e.flow as usize] as usize];
            *k = (*k).max(e.vdl);
        }
    }
}
