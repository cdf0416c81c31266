//! # MCP: a deadline-aware window update from Lyapunov optimisation
//!
//! The seed `003_4484ef2efd3a255c` (its title: "MCP: a distributed transport protocol for data
//! center networks that minimizes per-packet delay while meeting flow deadlines"), §3–4. A TCP
//! whose window is set once per RTT so that each flow sends at the rate its deadline needs —
//! no faster, to keep queues short — by tracking how far it has fallen behind that rate. Loss
//! recovery, the timer and the byte stream are TCP's (the TCP sender, with MCP as its
//! congestion controller, `controller`).
//!
//! ## The formulas as we read them (the seed's PDF text garbles every one)
//!
//! Everything is counted **per update window and in packets** (full segments of
//! `mss_bytes`): the update runs once per window τ (§3.5: W(t + τ) from W(t)), and the window W
//! in packets is the rate x in packets per τ. With that, every term of eq. (10) is a number of
//! packets per window and the sum is dimensionally sound (the seed mixes rates in bit/s,
//! queues in packets and prices in s²/bit² without saying how they are scaled):
//!
//! * **The update window τ.** A window starts at an update (or the handshake) and covers the
//!   data sent after it: the first ACK that finds data sent since then opens it up to that
//!   data, and the ACK that acknowledges all of it closes it and runs the next update. τ is the
//!   window's measured duration. (A window that ended at the data already in flight at the
//!   update closed a few µs later whenever the update had shrunk the window, and a second
//!   update ran on a rate that was never sent: issue 34 counted 51 of 135 updates within half
//!   an SRTT of the one before.)
//! * **Expected rate** (§3.1): γ = M / δ, remaining bytes over the time left, fixed at the
//!   window's start (the seed's γ(t) of the slot), here γ·τ / mss packets per window, and
//!   never more than the whole remainder. **We aim one RTT (SRTT)
//!   before the deadline**, δ − RTT (with less than two RTTs left, the whole remainder in the
//!   next RTT): the seed's fluid model has no last-packet delay, and a flow paced to end at
//!   its deadline delivers its last packet late. `mcp_aim = "deadline"` is the seed's γ.
//! * **Virtual queue** (after eq. (5)): Z ← max(0, Z + γ − x), the deficit of the actual rate
//!   against the expected one, in packets, and never more than the packets the flow has left
//!   (γ is re-based on the remainder at every window, so a shortfall counts again in every
//!   later window that also falls short; unclamped, Z reached three times a flow's remainder). **x** is the packets the window's ACKs acknowledged
//!   over τ: what the flow actually delivered (a window may carry the tail of the flight sent
//!   before the update, or lose packets).
//! * **Source term** (eq. (9)): Θ(γ, x) = Z·γ / x² (x at least 1). It grows with the deficit
//!   and the urgency and falls as the flow catches up.
//! * **Network term**: Σ over the path's links of Q_l + λ_l, the queue (packets) and the link
//!   price. The price is the derivative of the M/M/1 delay d(y) = 1/(C − y) (§4.1),
//!   **λ = d'(y) = 1/(C − y)²**, with C and the arrival rate y, like every rate here, in
//!   packets per window (V = 1, no other weight): a thousandth of a packet on an idle 10 Gb/s
//!   link with a 45 µs window (C ≈ 37), one packet at y = C − 1, growing without bound towards
//!   C — the relaxed capacity constraint of eq. (4). y is capped at 0.99·C. (Scaling the
//!   price by C² to make it "a number of packets" instead, 1/(1 − ρ)², costs an idle path one
//!   packet per window and link, which the source term balances only with a standing deficit
//!   Z ≈ γ: flows then run about an RTT behind schedule and miss their deadlines by that.)
//! * **Optimal update** (eq. (10), `mcp_variant = "opt"`): W ← W + Θ − Σ_l (Q_l + λ_l), with
//!   the queues and loads of the path. The seed proposes "an additional field in the packet
//!   header" to which every switch adds its queue and price; the simulator does that
//!   ([`switch`]): each data packet collects Σ Q_l and Σ 1/(C_l − y_l)² with rates in bytes/s;
//!   the ACK echoes them and the sender converts the second to its packets and window
//!   (× (packet bytes / τ)²). **Q_l is the port's standing queue** (the least an arrival found
//!   over the last one to two intervals of `mcp_rate_interval_us`, the base RTT) and **y_l its
//!   load averaged over `mcp_rate_average_us`** (1 ms): the seed's y and Q are long-term
//!   quantities (eqs. (1), (3)). Measured over one base RTT, a port busy for that RTT read as
//!   full and added λ ≈ 10⁴/C², about 47 packets per hop on the k = 8 fat-tree; and a packet
//!   reported the flow's own burst ahead of it as queue.
//! * **ECN approximation** (eq. (11), `"approx"`, the default): only the bottleneck, from the
//!   fraction F of the last window's packets that were marked (no moving average, §4.1):
//!   Q ≈ K + F·x (Fig. 2, the lower bound, with K the marking threshold), and the load from two
//!   consecutive estimates, ŷ = F(t)·x(t) − F(t − τ)·x(t − τ) per window, the queue's growth,
//!   as the seed's λ(t) = (C − [F(t)W(t) − F(t−τ)W(t−τ)]/τ)⁻² has it (reading ŷ as C plus that
//!   growth would make the price infinite at every steady queue). C is the path's slowest link.
//!   **A window without marks** says only that the queue stayed below K; Fig. 2's bound
//!   assumes marks, so we take Q ≈ 0 then (K + 0·W would pretend a full threshold's queue on an
//!   idle path). With marks, K + F·x is at least K (64 packets in the seed's evaluation),
//!   more than a data-center window (the k = 8 fat-tree's path holds 11–37 packets): a marked
//!   window asks for a cut below one packet, the bound on a cut (below) halves W instead, and
//!   F's size makes no difference.
//! * **Window**: W keeps its fraction; the sender gets **W rounded up to whole segments** (it
//!   sends a segment only when it fits the window, so W = 5.2 flies 6; rounding down, a lone
//!   500 KB flow due in 1.235 ms on the idle k = 8 fat-tree missed by 2 packets). Once the flow
//!   is ahead, Z is 0 and only the small idle price lowers W. **W changes by at most a factor
//!   of two per update, either way**, and stays ≥ 1 packet. The seed sets no limit, but eq. (10)
//!   is an Euler step of the differential equation (9), sound only for steps that are small
//!   against the window: every flow subtracts the whole queue it reports, so N flows sharing
//!   a queue cut N times what it holds, and unbounded they all fell to one packet together
//!   and left the link idle (MCP-Opt met 0 of 8 flows into one host that needed 9.3 Gb/s);
//!   MCP-Approx's K + F·x, at least K = 64 packets, took any marked window to one packet, and
//!   the deficit then doubled it into loss. A larger rise would also leave as a line-rate
//!   burst that no round of ACKs clocked (slow start's bound). Between updates W stays as set
//!   (no slow start, no additive increase).
//! * **Initial window** (§4.1): τ × γ(0), with τ the handshake's RTT sample, rounded up to
//!   whole segments, at most the whole flow. (That sample is of 40-byte packets, 8.3 µs within a pod of the k = 8
//!   fat-tree against 12.9 µs for data; rounded down, a 6 KB query across the core started
//!   with one segment and missed its 49.5 µs deadline.)
//! * **Abort** (§4.2): the seed aborts a flow "when Z_s(t) > max C_l, as it implies that even
//!   the largest link capacity along its path is no longer sufficient for the flow to finish
//!   before deadline". Z is a shortfall summed over windows, C a rate: comparing them needs a
//!   time. **By default (`mcp_abort = "deficit"`) that time is the one left to the deadline**:
//!   the flow ends when Z (in wire bytes) exceeds what the fastest link on its path carries
//!   before the deadline — the sentence's meaning. `"per_rtt"` takes one update window, the
//!   slot of the seed's discrete queue Z(t+1) = Z(t) + γ(t) − x(t): Z against one window's worth
//!   of the fastest link. It aborts flows that could still make it: a transient overload of
//!   a few RTTs puts every flow behind by more than a window's worth (`tests/mcp.rs`: a 3 MB
//!   flow due in 8 ms, aborted at 1 ms beside three flows due in 2 ms; it makes its deadline
//!   under `deficit`). Z is not the bytes a flow is behind: γ is re-based on the remainder at
//!   every update, so a shortfall counts again in every later window that also falls short;
//!   Z is therefore held at most at the remainder, and `deficit` fires only on a flow the
//!   fastest link can no longer finish. **At the handshake** (ours: Z is 0
//!   there) a flow whose packets, headers included, take longer than the time left at its
//!   path's *slowest* link is aborted at once. A flow past its deadline ends at the first
//!   packet or timer after it. The sender ends the flow (`Terminated`), freeing the bandwidth.
//!
//! ## Choices where the seed is silent
//!
//! * **Flows without a deadline** have no expected rate; they run DCTCP (its keys apply).
//! * **Losses** are handled as NewReno does (ssthresh = FlightSize/2 at a fast retransmit,
//!   1 segment after a timeout); the next update starts from the window the sender left
//!   (whole segments). A window runs on through a fast recovery (no update while the sender
//!   owns the window) and through a timeout (until what is resent is acknowledged): its time
//!   and its shortfall count at the update after. After a timeout the window is one segment
//!   and may only double per update, as slow start would regrow it, while Z grows.
//! * **The RTT** of the aim is the smoothed RTT (RFC 6298); the update window's τ is measured.
//! * **K and the link rates** come from the flow's path at its start ([`crate::protocols::PathFacts`]):
//!   K is the smallest marking threshold on it (the first queue to mark), C its slowest link.
//! * **No pacing**: a window leaves as the ACKs clock it, as TCP's. (Pacing at W/τ was
//!   considered for `opt`; with the standing queue a flow's own burst no longer counts.)
//! * **Aborting at the deadline** for every protocol (as the seed's evaluation does) is the
//!   workload's `abort_at_deadline`, not MCP's.
//!
//! ## Parameters (`[transport]` keys)
//!
//! `mcp` takes the TCP keys and DCTCP's (`dctcp_g`, `dctcp_init_alpha`, for flows without a
//! deadline), and:
//!
//! | key | default | meaning |
//! |---|---|---|
//! | `mcp_variant` | `"approx"` | `"approx"`: eq. (11) from ECN marks; `"opt"`: eq. (10) from the path's queues and prices |
//! | `mcp_abort` | `"deficit"` | §4.2: Z against the fastest link until the deadline; `"per_rtt"`: against one window's worth |
//! | `mcp_aim` | `"rtt_early"` | γ aims one RTT before the deadline; `"deadline"`: the seed's M/δ |
//! | `mcp_rate_interval_us` | the network's RTT | `opt` only: a port's sampling interval (standing queue, load samples): the base RTT of the longest path ([`crate::net::scale`]) |
//! | `mcp_rate_average_us` | 1000 | `opt` only: the time over which a port averages its load |
//!
//! V (the Lyapunov weight) is 1, as the seed sets it. The marking threshold K is the ports'
//! (`topology.ecn_k_pkts`; the seed's evaluation uses 64).
//!
//! ## What it does (tests/mcp.rs: one 10 Gb/s switch, 10 µs links, K = 64; and the k = 8 fat-tree)
//!
//! * A lone 5 MB flow due in 10 ms (4 Gb/s needed) ends at 0.92 of its deadline under both
//!   variants, where DCTCP takes 0.41: it runs at the rate its deadline needs, rounded up to
//!   whole segments per window.
//! * The seed's Fig. 1: 10 MB due in 10 ms beside 4 MB due in 25 ms (9.3 of 10 Gb/s needed):
//!   both meet their deadlines under both variants; DCTCP and D2TCP, sharing fairly until the
//!   small flow is done, miss the large one's.
//! * Three 1.5 MB flows due in 4 ms into one host (9 of 10 Gb/s): all met, none aborted, under
//!   both variants and both abort rules.
//! * Queries of 2–20 KB alone on the idle k = 8 fat-tree, to the same rack, pod and across the
//!   core, with `dcnsim reproduce mcp`'s deadlines (2–5 RTTs): all twelve met (9 before).
//! * 4.5 MB due in 4 ms into one host as 5 flows: all met under both variants; as 8, all under
//!   MCP-Approx and 7 under MCP-Opt (one misses by 0.1 %: it runs behind by the deficit that
//!   balances the standing queue).
//! * A 3 MB flow due in 8 ms beside three of 750 KB due in 2 ms, all into one host (12 Gb/s
//!   for 2 ms): under `deficit` the large flow makes it; under `per_rtt` all four are aborted
//!   at about 1 ms.
//! * 10 MB due in 10 ms against a long flow without deadline (DCTCP): the deadline flow falls
//!   behind and is aborted before its deadline, and the other flow has the link at once.

mod controller;
pub mod switch;
#[cfg(test)]
mod tests;

pub use controller::Mcp;
pub use switch::McpSwitch;

use crate::error::{ConfigError, ConfigResult};
use crate::net::header::{Reader, WireHeader, Writer};
use crate::net::scale::PathScale;
use crate::protocols::tcp::TcpConfig;
use crate::units::Time;
use crate::validate::{choice, micros_or};

/// Where no network is known (unit tests): 10 µs.
pub const FALLBACK_RATE_INTERVAL_US: f64 = 10.0;

/// The header field of `mcp_variant = "opt"`: what the switches of the path add up.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct McpHeader {
    /// Σ Q_l: packets found waiting at the path's ports so far.
    pub queue_pkts: u32,
    /// Σ 1/(C_l − y_l)², rates in bytes/s: the ports' prices before the sender's conversion to
    /// its packets and RTT.
    pub price: f32,
}

impl WireHeader for McpHeader {
    const TAG: u8 = 6;
    #[inline(always)]
    fn pack(&self, to: &mut Writer) {
        to.u32(self.queue_pkts);
        to.f32(self.price);
    }
    #[inline(always)]
    fn unpack(from: &mut Reader) -> Self {
        McpHeader {
            queue_pkts: from.u32(),
            price: from.f32(),
        }
    }
}

/// §4.2's abort rule: how the deficit Z is held against the fastest link (module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AbortRule {
    /// Z, in bytes behind, exceeds what the fastest link carries before the deadline.
    Deficit,
    /// Z, in packets, exceeds what the fastest link carries in one update window (the seed's
    /// sentence with both sides per RTT).
    PerRtt,
}

/// MCP's own parameters (the TCP and DCTCP ones are in [`crate::protocols::tcp::TcpParams`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct McpParams {
    /// Eq. (10) with the path's true queues and prices, rather than eq. (11).
    pub opt: bool,
    pub abort: AbortRule,
    /// The expected rate aims one RTT before the deadline (`mcp_aim = "rtt_early"`).
    pub aim_early: bool,
    /// `opt`: a port's queue is the smallest it held in each interval of this length, and
    /// its load is sampled over it.
    pub rate_interval: Time,
    /// `opt`: the time over which a port's load samples are averaged.
    pub rate_average: Time,
}

/// `mcp_rate_average_us`'s default: the link price follows the load of the last millisecond.
pub const DEFAULT_RATE_AVERAGE_US: f64 = 1000.0;

impl McpParams {
    pub fn from_config(cfg: &TcpConfig) -> ConfigResult<McpParams> {
        let opt = choice(
            "transport.mcp_variant",
            "value",
            cfg.mcp_variant.as_deref(),
            &[("approx", false), ("opt", true)],
        )?;
        let abort = choice(
            "transport.mcp_abort",
            "value",
            cfg.mcp_abort.as_deref(),
            &[
                ("deficit", AbortRule::Deficit),
                ("per_rtt", AbortRule::PerRtt),
            ],
        )?;
        let aim_early = choice(
            "transport.mcp_aim",
            "value",
            cfg.mcp_aim.as_deref(),
            &[("rtt_early", true), ("deadline", false)],
        )?;
        let opt_only = [
            ("mcp_rate_interval_us", cfg.mcp_rate_interval_us.is_some()),
            ("mcp_rate_average_us", cfg.mcp_rate_average_us.is_some()),
        ];
        if let Some((key, _)) = opt_only.iter().find(|(_, set)| !opt && *set) {
            return Err(ConfigError::new(
                format!("transport.{key}"),
                "only for mcp_variant = \"opt\" (the approximation measures no link)",
            ));
        }
        let rate_interval = micros_or(
            "transport.mcp_rate_interval_us",
            cfg.mcp_rate_interval_us,
            FALLBACK_RATE_INTERVAL_US,
        )?;
        let rate_average = micros_or(
            "transport.mcp_rate_average_us",
            cfg.mcp_rate_average_us,
            DEFAULT_RATE_AVERAGE_US,
        )?;
        Ok(McpParams {
            opt,
            abort,
            aim_early,
            rate_interval,
            rate_average,
        })
    }
}

/// `opt`'s measuring interval, where the scenario sets none: the network's base RTT.
pub fn network_defaults(cfg: &mut TcpConfig, scale: &PathScale) {
    if cfg.mcp_variant.as_deref() == Some("opt") {
        cfg.mcp_rate_interval_us
            .get_or_insert_with(|| scale.rtt.as_us_rounded_to_ns());
    }
}

/// The link price λ = 1/(C − y)² of a link of capacity `c` with arrival rate `y` (any one
/// unit of rate), y clamped to [0, 0.99·C] (module doc).
pub fn price(c: f64, y: f64) -> f64 {
    let y = if y.is_nan() {
        0.0
    } else {
        y.clamp(0.0, 0.99 * c)
    };
    1.0 / ((c - y) * (c - y))
}
