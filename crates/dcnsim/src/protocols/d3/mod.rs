//! # D3: Deadline-Driven Delivery
//!
//! C. Wilson, H. Ballani, T. Karagiannis, A. Rowstron, "Better Never than Late: Meeting
//! Deadlines in Datacenter Networks", SIGCOMM 2011 (§4 rate control, §6.1.3 quenching);
//! `/work/shared/baselines.md` §5. Routers hand out rates once per RTT, first come first
//! served, keeping no per-flow state; senders pace at the smallest rate on their path.
//!
//! * **Sender** ([`D3Sender`]), once per RTT: a deadline flow asks for
//!   `r = remaining bytes / time to deadline`, a flow without deadline asks for 0. The SYN
//!   carries the first request (no data before the SYN-ACK brings an allocation back); later
//!   requests ride the first data packet sent after the previous request's reply arrived
//!   (so never more than one per RTT). A flow allocated nothing (the *base rate*) sends no
//!   data and one header-only request per RTT, as soon as each reply arrives. Every request
//!   carries the flow's previous desired rate and previous allocations, so that routers can
//!   return them. When every byte is acknowledged the sender sends a FIN that returns them for
//!   good.
//! * **Router, per request** ([`D3Switch`], every egress port, host NICs included), with C the
//!   link rate, N the flows, D the sum of desired rates and A the sum of allocations:
//!   1. `A ← A − a_prev`, `D ← D − r_prev + r` (a SYN also does `N ← N + 1`);
//!   2. `left = C − A`, fair share of spare capacity `fs = max(0, C − D) / N`;
//!   3. `a = r + fs` if `left > r`, else `a = left` (greedy: whoever asks first takes the
//!      capacity; later flows get what is left, possibly nothing), here capped at `left`;
//!   4. `A ← A + a`, and `a` is written into the packet's allocation vector.
//!
//!   A FIN does step 1 with `r = 0` and `N ← N − 1`. The receiver echoes the header in its
//!   ACK; the sender's rate for the next RTT is the minimum of the vector.
//! * **Quenching** (§6.1.3, `d3_quench`): a deadline flow gives up — FIN, then
//!   [`EndpointEvent::Terminated`](crate::protocols::EndpointEvent::Terminated) — when its
//!   deadline has passed or its desired rate exceeds the capacity of its own uplink. The flow
//!   counts as a deadline miss.
//!
//! ## Allocation granularity: rates are whole bytes/µs
//!
//! Every rate in the header and in the router counters is an integer number of bytes per µs
//! (1 B/µs = 8 Mb/s), as the PACE paper describes D3 (§6: "units of 1 bytes/µs"). Divisions
//! round down (a router never hands out more than it has). The consequence PACE points out
//! follows: a 1 Gb/s link is 125 B/µs, so once more than 125 flows without deadline share it
//! the fair share `⌊125/N⌋` is 0 and *every* flow is left at the base rate, for as long as
//! they are all there — D3 "has a theoretical limit of 125 flows for 1 Gbps link". At
//! 10 Gb/s the limit is 1250 flows, and a fair share is up to one unit below the exact one
//! (four flows get 312 B/µs each of 1250: the link runs at 99.84 %). A deadline flow's
//! desired rate is rounded *up*, so that getting what it asked for meets the deadline.
//!
//! ## Parameters (`[transport]` keys)
//!
//! | key | default | source |
//! |---|---|---|
//! | `mss_bytes`, `header_bytes` | 1460, 40 | as TCP; D3 adds [`HEADER_BYTES`] = 22 to every packet |
//! | `min_rto_us`, `initial_rto_us`, `max_rto_us` | as TCP | the paced core's loss recovery (`crate::protocols::paced`) |
//! | `d3_quench` | true | §6.1.3 flow quenching (Aequitas `d3_flow.cpp` applies it too) |
//!
//! ## Choices where the sources are silent (or could not be checked)
//!
//! * **The header** ([`D3Header`], 22 bytes, also its wire size): an allocation vector of
//!   [`MAX_HOPS`] = 8 `u16` slots, the desired and previous desired rates (`u16` each), the
//!   index of the next hop and flags. The vector does double duty: the sender fills it with
//!   the allocations of its previous request, and the router at hop *i* reads slot *i* (the
//!   allocation *it* gave last time) before overwriting it with the new one. So each router
//!   returns exactly what it handed out, and A stays the sum of its own live allocations
//!   (Aequitas returns the path minimum instead, which lets A drift upwards at hops that gave
//!   more than the minimum). Eight slots cover a fat-tree path (6 egress ports, NIC included)
//!   and BCube(n, 3) (8); ports beyond the eighth hop do not take part (they forward the
//!   packet as a FIFO would, and set [`FLAG_LONG_PATH`]).
//! * **Where the router allocates**: when the request is offered to the port's queue, before
//!   admission ("first come" = first to reach the port). Aequitas allocates at dequeue; both
//!   serve requests in arrival order.
//! * **C is the raw link rate**, without a term that drains standing queues (baselines.md
//!   §U; Aequitas does the same).
//! * **`a = min(r + fs, left)`**: the rule as baselines.md gives it (Aequitas, "Snippet 1")
//!   hands out `r + fs` whenever `left > r`, even when that exceeds `left`; the cap keeps
//!   A ≤ C, so that rounding residues and flows holding an older, larger fair share never
//!   make the routers promise more than the link carries.
//! * **Base rate = allocation 0**, not counted in A (Aequitas). A flow at the base rate sends
//!   one header-only request per RTT.
//! * **Desired rate** uses the bytes not yet acknowledged, with their packet headers (the
//!   rate is on the wire), over the time left to the deadline; 0 once quenching is off and
//!   the deadline has passed.
//! * **Quenching by uplink capacity**: the sender learns that its desired rate exceeds its
//!   uplink from the first router (its own NIC, hop 0), which sets [`FLAG_QUENCH`] in the
//!   request when `r > C`.
//! * **Never-lost control packets**: SYN, FIN and every request are
//!   [`Admission::Protected`](crate::protocols::agent::Admission::Protected) (a full queue
//!   strips a request's payload, never its header; Aequitas does the same), and so are the
//!   replies that carry a request's allocations back (the SYN-ACK, and the ACK that echoes a
//!   request): a sender that never learns an allocation can never return it. Only a failed
//!   link can still lose one; the counters of the routers it already crossed then keep its
//!   numbers (D3 has no per-flow state to repair them).
//! * **An aborted flow** (`workload.abort_at_deadline`) closes as a quenched one: its FIN
//!   returns the numbers of its last answered request. With a request in flight (the SYN, or
//!   one on a data packet) the routers have already taken back what the sender holds and
//!   handed out allocations that only the reply tells it, so the sender sends nothing more
//!   and its FIN waits for that reply (the engine keeps both endpoints until then); after a
//!   timeout without it (a failed link) the FIN goes with what the sender holds. Test
//!   `d3_aborted_before_its_syn_ack_returns_the_allocation_it_carries`: a FIN sent at once
//!   left a whole link allocated to a flow aborted before its SYN-ACK.
//! * **One request in flight, whatever the timer does**: a retransmission timeout with data
//!   outstanding sends no new request (the one in flight was not lost). A second one would
//!   stay in flight for good, each returning the allocations the other's reply brought, and
//!   the FIN would return only one of them. A paused flow (base rate, nothing in flight)
//!   whose header-only request goes unanswered for a whole RTO asks again, so that a request
//!   lost with a failed link cannot hang it. (Before both rules, losses of SYN-ACKs and
//!   timeouts on a lossy fat-tree left routers holding whole links for good, and the flows
//!   behind them at the base rate for ever: test `no_flow_hangs_on_a_lossy_fat_tree`.)
//! * **Every packet carries the D3 header** on the wire (22 B), requests or not, so that a
//!   full data packet is 1522 B by default.
//!
//! ## Small buffers
//!
//! D3 allocates rates, not buffer: its control packets are protected and its header-only
//! requests of paused flows are not counted in A. With buffers of a few packets these fill the
//! queue, and the requests that ride data packets lose their payload to it. 47 senders of
//! 256 KB into one host of a 10 Gb/s star: with 100-packet buffers every flow ends at its
//! fair share (10.25 ms, no loss); with 12-packet buffers the mean FCT is 26.5 ms and the last
//! 63.5 ms, with one packet dropped but 163 timeouts and up to 526 retransmissions of a
//! 702-packet flow, all of stripped payloads (at 1/47 of the link a flow sends less than a
//! packet per RTT, so each of its data packets carries a request).

mod sender;
mod switch;
#[cfg(test)]
mod tests;

pub use sender::D3Sender;
pub use switch::D3Switch;

use crate::error::ConfigResult;
use crate::protocols::rcp::{mss_and_header, rto_bounds};
use crate::protocols::TransportConfig;
use crate::units::{Rate, Time};

/// Slots of the allocation vector: the longest path (in egress ports) D3 manages in full.
pub const MAX_HOPS: usize = 8;
/// Wire bytes of D3's header: 8 allocations, desired and previous desired rate (2 B each),
/// hop index and flags (1 B each).
pub const HEADER_BYTES: u32 = 22;
/// One unit of every D3 rate: 1 byte/µs.
pub const BPS_PER_UNIT: u64 = 8_000_000;

/// The packet carries a rate request (SYN, first data packet of an RTT, header-only request).
pub const FLAG_REQUEST: u8 = 1;
/// Set by hop 0 (the sender's own NIC) when the desired rate exceeds its capacity.
pub const FLAG_QUENCH: u8 = 2;
/// A header-only request (no payload was ever attached).
pub const FLAG_HEADER_ONLY: u8 = 4;
/// The path has more than [`MAX_HOPS`] egress ports: the ports beyond took no part.
pub const FLAG_LONG_PATH: u8 = 8;

const KEYS: &[&str] = &[
    "mss_bytes",
    "header_bytes",
    "min_rto_us",
    "initial_rto_us",
    "max_rto_us",
    "d3_quench",
];

/// D3's header fields. Rates in bytes/µs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct D3Header {
    /// Sender → router: the allocations of the previous request, by hop. Router → sender: the
    /// allocations of this request, by hop (slots `0..hop`).
    pub alloc: [u16; MAX_HOPS],
    /// r: the rate wanted for the next RTT (0 without a deadline).
    pub desired: u16,
    /// The desired rate of the previous request, for the routers to return.
    pub prev_desired: u16,
    /// Index of the next hop's slot: routers increment it.
    pub hop: u8,
    pub flags: u8,
}

impl D3Header {
    pub fn has(&self, flag: u8) -> bool {
        self.flags & flag != 0
    }

    /// The smallest allocation on the path (what the sender may send at).
    pub fn path_minimum(&self) -> u16 {
        let hops = (self.hop as usize).min(MAX_HOPS);
        self.alloc[..hops].iter().copied().min().unwrap_or(0)
    }
}

/// A D3 rate as a [`Rate`].
pub fn rate_of(units: u16) -> Rate {
    Rate(units as u64 * BPS_PER_UNIT)
}

/// A link rate in whole D3 units, rounded down.
pub fn units_of(rate: Rate) -> u64 {
    rate.bits_per_sec() / BPS_PER_UNIT
}

#[derive(Clone, Debug, PartialEq)]
pub struct D3Params {
    pub mss: u32,
    /// Base header bytes (without D3's own [`HEADER_BYTES`]).
    pub header: u32,
    pub quench: bool,
    pub min_rto: Time,
    pub initial_rto: Time,
    pub max_rto: Time,
}

impl D3Params {
    pub fn from_config(cfg: &TransportConfig) -> ConfigResult<D3Params> {
        crate::protocols::refuse_unused_keys(cfg, KEYS)?;
        let (mss, header) = mss_and_header(cfg)?;
        let (min_rto, initial_rto, max_rto) = rto_bounds(cfg)?;
        Ok(D3Params {
            mss,
            header,
            quench: cfg.d3_quench.unwrap_or(true),
            min_rto,
            initial_rto,
            max_rto,
        })
    }
}
