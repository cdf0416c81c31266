//! # PACE: preventive explicit allocation with credits and periods
//!
//! T. Carvalho, H. S. Kim, N. Neves, "PACE Your Network: Fair and Controllable Multi-Tenant
//! Data Center Networks" (seed `001_1202a435dcded61e`), §II–III. Receivers issue credits
//! every period; forwarders on the path cut them to a weighted max-min share that their
//! link, queue and outstanding credits can carry; senders spread the credits over the period
//! and never send beyond them, so that the core never drops data.
//!
//! * **Sender** ([`PaceSender`], §III.D): a *request* (weight, and its p·R) opens the flow.
//!   Each *allocation* brings `a` credits for a period p: the sender paces them evenly over p
//!   (a packet of s bytes every s·p/a) and never sends data its credits do not cover. The
//!   first *data* message after an allocation returns (feedback) the allocation's a, period
//!   and potential demand d_p — capped at the bytes left once the credits held are used.
//! * **Receiver** ([`PaceReceiver`], §III.C): from the request on, one allocation per period
//!   with d_p = the maximum (the sender's p·R), d = a = the d_p the sender last returned,
//!   its logical clock (the epoch) and both weights; *terminate* when every byte arrived, or
//!   when the application aborts the flow (`workload.abort_at_deadline`).
//! * **Forwarder** ([`PaceForwarder`], §III.E, every egress port, host NICs included): the
//!   offline part keeps the flows in the [`MaxMinTree`] keyed by d/w and walks its allocation
//!   level pointers (eqs. 1–4) to a_w and r; the online part rewrites each allocation:
//!   d_i = min{C(p)·w·a_w, d_{i−1}} (5), d_{p,i} = min{C(p)·(w·a_w + r), d_{p,i−1}} (6),
//!   a_i = min{2·C0 − A(t) − Q_u(t), d_i} (7), with A(t) the credits granted and not yet used
//!   (up on a grant, down as data arrives) and Q_u(t) the bytes queued at the port.
//!
//! ## Parameters (`[transport]` keys)
//!
//! | key | default | source |
//! |---|---|---|
//! | `pace_period_us` | 200 | the initial period of §IV, and the shortest: a multiple of 20 µs, 20–5100 µs (the 1-byte field) |
//! | `mss_bytes`, `header_bytes` | 1460, 40 | as TCP; PACE adds its own [`header::WIRE_BYTES`] = 14 bytes to every packet |
//!
//! Fixed by the paper: 1 credit = 8 bytes in 2-byte fields (at most 524 280 bytes per period),
//! the period in 20 µs units in 1 byte (at most 5.1 ms), credits valid for 2p. A flow's
//! weight is the workload's `weight` (8.8 fixed point, 1/256 to 255.99; other weights are
//! refused, naming `workload.weight`).
//!
//! ## How we read the paper where it is silent or garbled
//!
//! * **Eq. (4)** prints `r_j = min{0, a_{w,j}·(W_i − W_{i−1}) − (D_i − D_{i−1})}`, which would
//!   make every remainder ≤ 0. Read as `max{0, …}` over the flows satisfied between pointers
//!   k_{j−1} and k_j (the `i` and `i−1` of the formula): what those flows leave of their
//!   per-weight share. It is ≥ 0 by the choice of k_j, so the clamp never acts. Eqs. (1)–(3)
//!   then telescope to a_{w,j} = (C0 − D_{k_{j−1}})/(W_n − W_{k_{j−1}}), kept as an exact
//!   fraction; the walk ends when a level satisfies no new flow (r_L = 0) or all of them
//!   (then r = C0 − D_n). See [`MaxMinTree`].
//! * **"Allocation for level pointer k0"** (dynamic periods): C(p)·a_{w,0} = C(p)/W, the
//!   level-0 share of a flow of weight 1. A port's period is the smallest multiple of 20 µs,
//!   at least the initial one and at most 5.1 ms, in which that share holds two full packets
//!   (14 + 40 + 1460 bytes): with n flows of weight 1 at 1 Gb/s, 24.2·n µs. It shrinks the
//!   same way when flows leave.
//! * **A flow's period** is the longest of the ports on its path: the receiver writes the
//!   initial period, each forwarder raises it to its own and scales the incoming d, d_p and a
//!   with it (rounded up: they are bounds still to be cut). The receiver rescales the d_p the
//!   sender returns back to the initial period for its next allocation (rounded up) and
//!   sends allocations at the returned period. Writing the initial period every time is what
//!   lets a flow's period shrink again (forwarders only raise it).
//! * **Normalization.** The tree holds each flow's demand as a fraction of the port's rate
//!   (d / C(p) of the message's period, in units of 2⁻³², clamped at 1 — no flow can get more
//!   than the link, so the allocation is unchanged), so flows with different periods share
//!   one tree. C0 of eq. (7) is 2·C(p) of the period the message leaves with.
//! * **"Offline … periodically"**: the tree is updated on every allocation (its flow's new
//!   d_{i−1} and w), but a_w, r and the port's period are recomputed at most once per period
//!   of the port, at the first allocation after a change. (Recomputing on every message gave
//!   flows that joined together different periods at once — short for the first, long for
//!   the last — whose credits then added up to several times the link.)
//! * **A(t)** (the paper says it "decreases" on allocation and "increases" on data, which
//!   contradicts eq. (7)): the credits granted and not yet used: + a_i when an allocation
//!   passes, − the wire size of each data packet of the flow arriving at the port. Credits
//!   expire by the logical clock: an allocation of epoch e releases what is left of the
//!   flow's grants of epochs ≤ e − 2 (valid 2p); terminate releases all of them. The first
//!   data message's feedback (the a the sender finally got, smaller where a forwarder nearer
//!   the sender cut it) releases the part of the grant that will never be used.
//! * **Q_u(t)** is the port's queue in bytes, mirrored from the packets the forwarder sees
//!   entering and leaving it (exact at each; a data packet dropped on arrival would count
//!   until the next).
//! * **Reverse path.** Allocations and terminates go receiver → sender, so a port serves
//!   them for the opposite direction of its link (`Port::reverse`), where the flow's data
//!   goes. The request records the forward ports it crosses and the forwarder routes the
//!   flow's allocations back over the same links (as PDQ's ACKs), whatever ECMP would choose.
//!   Paths of more than [`MAX_HOPS`] = 8 ports are managed on their first 8. PACE assumes
//!   one path per flow: path choices that move a flow's packets between paths (RPS, DRB,
//!   flowlets, …) would spread data over ports that granted nothing, and are refused
//!   (`routing.lb`; measured in [`crate::lb::LbParams::check_transport`]).
//! * **Weights.** The request carries the sender's weight (the flow's `weight`), the
//!   allocation adds the receiver's (1: the scenario schema has no per-host weight yet); a
//!   forwarder uses their product.
//! * **Packets.** A data message carries min(MSS, bytes left, credits − header) of payload: a
//!   period's last packet is short rather than wasting credits ("smaller allocations mean
//!   shorter packets"), but never shorter than the header unless it ends the flow. The
//!   sender's pacing restarts at each allocation (its first packet at most one full-packet
//!   gap later) and spends the oldest credits first; credits are dropped when the
//!   allocation two epochs newer arrives. Feedback for an allocation that can carry no data
//!   goes alone, header-only.
//! * **Control messages** (request, allocation, feedback-only data, terminate) are never
//!   dropped for lack of buffer ([`Admission::Protected`](crate::protocols::agent::Admission)).
//!   Data is admitted like any packet: only the credits keep it from overflowing a queue.
//! * **Loss** (the paper has none: a failed link, or a buffer smaller than eq. (7) allows,
//!   below): the receiver accepts data in order only; an allocation reports a gap seen since
//!   the previous one and the sender goes back to the first missing byte (once per period);
//!   when the receiver's count has not moved for 20.4 ms (four of the longest periods: a
//!   port's queue can hold data for 2·p) while data is outstanding, it goes back too. A lost
//!   request is resent after 20.4 ms.
//!
//! ## Losslessness and buffers
//!
//! Eq. (7) keeps the credits outstanding at a port plus its queue within 2·C0 = 2·p·R, so the
//! queue never exceeds 2·p·R: PACE is lossless where buffers hold that much. At the initial
//! 200 µs and 1 Gb/s that is 50 KB, within any buffer; but the period grows with the flows
//! (1.56 ms for 64, the 5.1 ms cap for 250), and so does the queue PACE allows. The queue is
//! real: each flow that joins is granted its share while the others still spend the larger
//! share of their previous period, and with allocations summing to the link nothing drains
//! the surplus but eq. (7) itself, which binds only near 2·C0 − A(t). It collects at the
//! first port the flows share. With 64 and 250 flows started 5 ms apart on the parking lot
//! (Table 1) and the 100-packet buffers of the other scenarios, the queue at F1–F2 fills and
//! 20 and 490 packets are dropped; `reproduce pace` gives Table 1 buffers of 2·p·R (its
//! package doc), where none is.
//!
//! Flows that start in the same instant keep their periods in step: each period they all
//! send their first packet at once. With 250 such flows and 100-packet buffers that burst
//! alone overflows (the paper does not say how its flows were started; ours are 5 ms apart).

mod btree;
mod forwarder;
pub mod header;
mod receiver;
mod sender;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_btree;

pub use btree::{Allocation, Entry, Level, MaxMinTree, Sums, FANOUT};
pub use forwarder::{Grant, PaceForwarder, MAX_HOPS, NORM_ONE};
pub use header::PaceHeader;
pub use receiver::PaceReceiver;
pub use sender::PaceSender;

use crate::error::{ConfigError, ConfigResult};
use crate::net::header::WireHeader;
use crate::net::network::Network;
use crate::net::queue::Discipline;
use crate::protocols::{AtOnce, Caps, FlowMemory, FlowSetup, FluidPolicy, Protocol};
use crate::units::Rate;
use crate::workload::FlowSpec;

/// The initial period of §IV, µs.
pub const DEFAULT_PERIOD_US: f64 = 200.0;

crate::protocols::transport_keys! {
    /// The `[transport]` keys `pace` reads (module doc); any other is refused.
    pub struct PaceConfig uses [segment] {
        /// The initial (and shortest) allocation period.
        pub pace_period_us: Option<f64>,
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct PaceParams {
    pub mss: u32,
    /// Base header bytes (without PACE's own [`header::WIRE_BYTES`]).
    pub header: u32,
    /// The initial (and shortest) period, in 20 µs units.
    pub period_units: u8,
}

impl PaceParams {
    /// Wire bytes of a full data packet.
    pub fn full_packet(&self) -> u64 {
        (self.mss + self.header + header::WIRE_BYTES) as u64
    }
}

/// Memory at packet level: ≈ 610 B per flow, and ≈ 2 500 B per active flow (an incast of
/// 15 000 flows), measured, with margins.
const MEMORY: FlowMemory = FlowMemory {
    per_flow: 650.0,
    at_once: AtOnce::Active { bytes: 2600.0 },
};

impl Protocol for PaceParams {
    const HEADER_TAGS: &'static [u8] = &[header::PaceHeader::TAG];
    const NAMES: &'static [(&'static str, &'static str)] = &[(
        "pace",
        "PACE (Carvalho et al.): per-period credits cut by forwarders to weighted max-min, lossless",
    )];
    type Sender = PaceSender;
    type Receiver = PaceReceiver;
    type Agent = PaceForwarder;

    type Config = PaceConfig;

    fn from_config(_protocol: &str, cfg: &PaceConfig) -> ConfigResult<PaceParams> {
        let (mss, header) = crate::protocols::segment_sizes(cfg.mss_bytes, cfg.header_bytes)?;
        let us = cfg.pace_period_us.unwrap_or(DEFAULT_PERIOD_US);
        let unit = header::PERIOD_UNIT_US as f64;
        let units = us / unit;
        if !(us.is_finite() && units.fract() == 0.0 && (1.0..=255.0).contains(&units)) {
            return Err(ConfigError::new(
                "transport.pace_period_us",
                format!(
                    "must be a multiple of {unit} µs from {unit} to {} µs (the 1-byte period \
                     field counts 20 µs units), got {us}",
                    255.0 * unit
                ),
            ));
        }
        Ok(PaceParams {
            mss,
            header,
            period_units: units as u8,
        })
    }

    fn caps(&self) -> Caps {
        Caps {
            data_packet_sizes: (self.mss, self.header + header::WIRE_BYTES),
            discipline: Discipline::Fifo,
            default_buffer_pkts: None,
            uses_ecn: false,
            keeps_state_along_its_path: true,
            derives_defaults_from_network: false,
            memory: MEMORY,
            fluid: FluidPolicy::WeightedMaxMin,
        }
    }

    fn check_flows(&self, flows: &[FlowSpec]) -> ConfigResult<()> {
        check_weights(flows)
    }

    fn new_sender(&self, flow: &FlowSetup, nic_rate: Rate) -> PaceSender {
        PaceSender::new(self, flow, nic_rate)
    }

    fn new_receiver(&self, flow: &FlowSetup) -> PaceReceiver {
        PaceReceiver::new(self, flow)
    }

    fn new_agent(&self, net: &Network, _memr: bool) -> Option<PaceForwarder> {
        Some(PaceForwarder::new(
            self.period_units,
            self.full_packet(),
            net,
        ))
    }
}

/// Refuses flows whose weight the header's 8.8 fixed point cannot carry.
pub fn check_weights(flows: &[FlowSpec]) -> ConfigResult<()> {
    match flows
        .iter()
        .position(|f| header::weight_field(f.weight).is_none())
    {
        None => Ok(()),
        Some(i) => Err(ConfigError::new(
            "workload.weight",
            format!(
                "flow {i} has weight {}; PACE carries weights in 8.8 fixed point: valid \
                 weights are 1/256 (0.0039) to 255.99",
                flows[i].weight
            ),
        )),
    }
}
