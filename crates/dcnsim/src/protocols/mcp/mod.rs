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
//! Everything is counted **per RTT and in packets** (full segments of `mss_bytes`): the
//! update is once per RTT τ (§3.5: W(t + τ) from W(t)), and the window W in packets is the
//! rate x in packets per RTT. With that, every term of eq. (10) is a number of packets per
//! RTT and the sum is dimensionally sound (the seed mixes rates in bit/s, queues in packets and
//! prices in s²/bit² without saying how they are scaled):
//!
//! * **Expected rate** (§3.1): γ = M / δ, remaining bytes over the time left to the deadline,
//!   here γ·τ / mss packets per RTT.
//! * **Virtual queue** (after eq. (5)): Z ← max(0, Z + γ − x), the deficit of the actual rate
//!   against the expected one, in packets per RTT.
//! * **Source term** (eq. (9)): Θ(γ, x) = Z·γ / x². It grows with the deficit and the urgency
//!   and falls as the flow catches up.
//! * **Network term**: Σ over the path's links of Q_l + λ_l, the queue (packets) and the link
//!   price. The price is the derivative of the M/M/1 delay d(y) = 1/(C − y) (§4.1),
//!   **λ = d'(y) = 1/(C − y)²**, with C and the arrival rate y, like every rate here, in
//!   packets per RTT (V = 1, no other weight): a thousandth of a packet on an idle 10 Gb/s link
//!   with a 45 µs RTT (C ≈ 37), one packet at y = C − 1, growing without bound towards C — the
//!   relaxed capacity constraint of eq. (4). y is capped at 0.99·C. (Scaling the price by C² to
//!   make it "a number of packets" instead, 1/(1 − ρ)², costs an idle path one packet per RTT
//!   and link, which the source term balances only with a standing deficit Z ≈ γ: flows then
//!   run about an RTT behind schedule and miss their deadlines by that, and under `opt` the
//!   price of a flow's own busy NIC held a flow that needs 80 % of it far below that.)
//! * **Optimal update** (eq. (10), `mcp_variant = "opt"`): W ← W + Θ − Σ_l (Q_l + λ_l), with
//!   the true queue lengths and link loads of the path. The seed proposes "an additional field
//!   in the packet header" to which every switch adds its queue and price; the simulator does
//!   that ([`switch`]): each data packet collects Σ Q_l (packets waiting ahead of it) and
//!   Σ 1/(C_l − y_l)² with rates in bytes/s (y_l measured over the last `mcp_rate_interval_us`
//!   at that port); the ACK echoes them and the sender converts the second to its packets and
//!   RTT (× (packet bytes / τ)²).
//! * **ECN approximation** (eq. (11), `"approx"`, the default): only the bottleneck, from the
//!   fraction F of the last window's packets that were marked (no moving average, §4.1):
//!   Q ≈ K + F·W (Fig. 2, the lower bound, with K the marking threshold), and the load from two
//!   consecutive estimates, ŷ = (F(t)·W(t) − F(t − τ)·W(t − τ)) per RTT, the queue's growth,
//!   as the seed's λ(t) = (C − [F(t)W(t) − F(t−τ)W(t−τ)]/τ)⁻² has it (reading ŷ as C plus that
//!   growth would make the price infinite at every steady queue). C is the path's slowest link.
//!   **A window without marks** says only that the queue stayed below K; Fig. 2's bound
//!   assumes marks, so we take Q ≈ 0 then (K + 0·W would pretend a full threshold's queue on an
//!   idle path).
//! * **Window**: W is kept ≥ 1 packet and grows at most to twice its last value per update (a
//!   larger step would leave as a line-rate burst that no round of ACKs clocked, slow start's
//!   bound too; the seed sets no limit). Between updates it stays as set (no slow start, no
//!   additive increase). **The rate x** in Z, Θ and F·W is the whole segments the window lets
//!   fly, ⌊W⌋ (at least 1): the TCP sender sends a segment only when it fits the window, so
//!   W = 5.7 carries 5 packets per RTT. (Counting W itself as the rate, a flow whose W has a
//!   fraction ran short of γ by it with Z at 0, so nothing lifted it: at data-center RTTs
//!   windows are a few packets and the fraction is 10–20 % of the rate; a lone 500 KB flow
//!   due in 1.235 ms on the idle k = 8 fat-tree missed by 2 packets. The update still adds
//!   Θ and the network term to W with its fraction.)
//! * **Initial window** (§4.1): τ × γ(0), with τ the handshake's RTT sample.
//! * **Abort** (§4.2): the seed aborts a flow "when Z_s(t) > max C_l, as it implies that even
//!   the largest link capacity along its path is no longer sufficient for the flow to finish
//!   before deadline". We abort on what the sentence says it means: when the expected rate γ
//!   exceeds the fastest link on the path (checked at the handshake and at every update); the
//!   sender ends the flow (`Terminated`), freeing the bandwidth. Read literally, Z (a deficit
//!   summed over RTTs) against C (a rate per RTT) aborts flows that could still make it: a flow
//!   that needs half of a 10 Gb/s link reaches it after two round trips of congestion (the
//!   abort test in `tests/mcp.rs`: the literal rule also killed the feasible second flow). A
//!   flow whose deadline has passed ends too.
//!
//! ## Choices where the seed is silent
//!
//! * **Flows without a deadline** have no expected rate; they run DCTCP (its keys apply).
//! * **Losses** are handled as NewReno does (ssthresh = FlightSize/2 at a fast retransmit,
//!   1 segment after a timeout); the next RTT update takes the window from there. No update
//!   during a fast recovery.
//! * **The RTT τ** is the smoothed RTT (RFC 6298) at the update; the window of an update ends
//!   when the cumulative ACK passes the data sent when it began (as DCTCP's observation window).
//! * **K and the link rates** come from the flow's path at its start ([`crate::protocols::PathFacts`]):
//!   K is the smallest marking threshold on it (the first queue to mark), C its slowest link.
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
//! | `mcp_variant` | `"approx"` | `"approx"`: eq. (11) from ECN marks; `"opt"`: eq. (10) from the path's true queues and prices |
//! | `mcp_rate_interval_us` | the network's RTT | `opt` only: the interval over which a port measures its load ρ (the base RTT of the longest path, [`crate::net::scale`]) |
//!
//! V (the Lyapunov weight) is 1, as the seed sets it. The marking threshold K is the ports'
//! (`topology.ecn_k_pkts`; the seed's evaluation uses 64).

//!
//! ## What it does (tests/mcp.rs, one 10 Gb/s switch, 10 µs links, K = 64)
//!
//! * A lone 5 MB flow due in 10 ms (4 Gb/s needed) ends at 9.16 ms, where DCTCP takes 4.1 ms:
//!   it runs at the rate its deadline needs, rounded up to whole segments per RTT (once ahead,
//!   Z is 0 and only the tiny idle price lowers W). MCP-Opt: 9.24 ms.
//! * 10 MB due in 10 ms beside 4 MB due in 25 ms (9.3 of 10 Gb/s needed): both meet their
//!   deadlines under MCP; DCTCP and D2TCP, sharing fairly until the small flow is done, miss the
//!   large one's (11.6 and 11.4 ms).
//! * Under MCP-Opt that large flow misses: the switches report the small standing queue that
//!   the approximation (no marks below K = 64) does not see, and the source term balances a
//!   queue Q only with a deficit Z ≈ γ·Q; the flow ramps up more slowly, falls ~10 % behind
//!   and is aborted at 9.2 ms. The seed reports the two variants close; its numerical model
//!   has no packet-level queues.
//! * Queries whose deadline is a few RTTs can miss alone (the seed's evaluation as
//!   `dcnsim reproduce mcp` runs it: k = 8 fat-tree, 17.5 µs RTT, 2–20 KB due in 2 RTTs plus
//!   their size at 3.3 Gb/s): on an idle network 95 % meet within a rack, 53–58 % within a pod,
//!   37 % across the core (DCTCP: all). The handshake's RTT sample (40-byte packets: 8.3 µs in
//!   a pod against 12.9 µs for data) sets τ·γ(0) below one packet and keeps the smoothed τ low
//!   for the next updates, so γ·τ reads below the one packet per RTT already sent and Z stays
//!   0; once it does not, the window may only double per update. No choice here is changed for
//!   it: the paper's model has no handshake and no packets (module doc of
//!   `dcnsim.experiments.mcp`).
//! * 10 MB due in 10 ms against a long flow without deadline (DCTCP): the deadline flow falls
//!   behind, is aborted at 5.2 ms when not even the whole link would finish it, and the other
//!   flow has the link at once.

mod controller;
pub mod switch;
#[cfg(test)]
mod tests;

pub use controller::Mcp;
pub use switch::McpSwitch;

use crate::error::{ConfigError, ConfigResult};
use crate::net::scale::PathScale;
use crate::protocols::TransportConfig;
use crate::units::Time;

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

/// MCP's own parameters (the TCP and DCTCP ones are in [`crate::protocols::tcp::TcpParams`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct McpParams {
    /// Eq. (10) with the path's true queues and prices, rather than eq. (11).
    pub opt: bool,
    /// `opt`: the interval over which a port measures its load.
    pub rate_interval: Time,
}

impl McpParams {
    pub fn from_config(cfg: &TransportConfig) -> ConfigResult<McpParams> {
        let opt = match cfg.mcp_variant.as_deref() {
            None | Some("approx") => false,
            Some("opt") => true,
            Some(other) => {
                return Err(ConfigError::new(
                    "transport.mcp_variant",
                    format!("unknown variant '{other}'; valid: approx, opt"),
                ))
            }
        };
        if !opt && cfg.mcp_rate_interval_us.is_some() {
            return Err(ConfigError::new(
                "transport.mcp_rate_interval_us",
                "only for mcp_variant = \"opt\" (the approximation measures no link)",
            ));
        }
        let rate_interval = crate::protocols::micros(
            "mcp_rate_interval_us",
            cfg.mcp_rate_interval_us,
            FALLBACK_RATE_INTERVAL_US,
        )?;
        Ok(McpParams { opt, rate_interval })
    }
}

/// `opt`'s measuring interval, where the scenario sets none: the network's base RTT.
pub fn network_defaults(cfg: &mut TransportConfig, scale: &PathScale) {
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
