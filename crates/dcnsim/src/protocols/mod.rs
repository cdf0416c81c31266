//! Transports as sans-IO state machines.
//!
//! A sender or receiver is driven by the engine and never reads a clock, the topology or a
//! global: it is handed packets (`handle_packet`) and timer expiries (`handle_timeout`) with the
//! current time, and answers through `poll_transmit` (packets to put on the wire, in order),
//! `poll_timeout` (the earliest time it wants `handle_timeout`) and `poll_event` (what the
//! application sees). After every `handle_*` call the engine drains `poll_transmit` and
//! `poll_event` and then reads `poll_timeout`. This is the quinn-proto shape; it makes every
//! protocol testable alone, on hand-built packet sequences.
//!
//! The contract is the traits of [`endpoint`] (and [`agent::SwitchHooks`] for a switch half);
//! a transport is registered by one line in [`registry`], which generates the enums
//! ([`Sender`], [`Receiver`], [`SwitchAgent`], [`Transport`]) the engine dispatches on by
//! `match`, not boxed trait objects: it is on the per-packet path.

pub mod agent;
pub mod d2tcp;
pub mod d3;
pub mod endpoint;
pub mod mcp;
pub mod merp;
pub mod pace;
pub(crate) mod paced;
pub mod pdq;
pub mod pfabric;
pub mod rcp;
pub mod registry;
pub(crate) mod segments;
pub mod tcp;

use crate::error::{ConfigError, ConfigResult};
use crate::units::Time;
use serde::{Deserialize, Serialize};

pub use agent::SwitchHooks;
pub use endpoint::{Endpoint, EndpointEvent, ReceiverEndpoint, SenderEndpoint, SenderStats};
pub use registry::{
    AtOnce, Caps, FlowMemory, FluidPolicy, NoAgent, Protocol, Receiver, Sender, SwitchAgent,
    Transport, PROTOCOLS,
};

/// The `[transport]` table of a scenario. Keys are shared by the protocols that use them; a
/// protocol refuses keys that are set but mean nothing to it.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TransportConfig {
    /// `tcp` (NewReno) or `dctcp`.
    #[serde(default = "default_protocol")]
    pub protocol: String,
    /// Payload bytes per full segment.
    pub mss_bytes: Option<u32>,
    /// Transport + network header bytes added to every packet on the wire.
    pub header_bytes: Option<u32>,
    /// Initial congestion window, in segments.
    pub init_cwnd_pkts: Option<u32>,
    /// Lower bound of the retransmission timeout (data-center minimum, RFC 6298 §2.4 replaced).
    pub min_rto_us: Option<f64>,
    /// Retransmission timeout before the first RTT sample.
    pub initial_rto_us: Option<f64>,
    /// Upper bound of the retransmission timeout.
    pub max_rto_us: Option<f64>,
    /// Duplicate ACKs that trigger fast retransmit.
    pub dupack_threshold: Option<u32>,
    /// Receiver window, in segments (caps the flight size).
    pub rwnd_pkts: Option<u32>,
    /// RFC 3042 limited transmit: a new segment on each of the first two duplicate ACKs.
    pub limited_transmit: Option<bool>,
    /// Moved to `topology.ecn_k_pkts` (the threshold is a property of the port's queue);
    /// kept only to refuse it with a message that says so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn_k_pkts: Option<u32>,
    /// DCTCP: EWMA gain g of α.
    pub dctcp_g: Option<f64>,
    /// DCTCP: α before the first window of feedback.
    pub dctcp_init_alpha: Option<f64>,
    /// D2TCP: lower clamp of the deadline imminence factor d.
    pub d2tcp_d_min: Option<f64>,
    /// D2TCP: upper clamp of d.
    pub d2tcp_d_max: Option<f64>,
    /// D2TCP: what a flow still unfinished after its deadline does (`d_min`, the default;
    /// `dctcp`, `d_max`, `close`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub d2tcp_late: Option<String>,
    /// pFabric: window cap, in segments.
    pub pfabric_max_cwnd_pkts: Option<u32>,
    /// pFabric: the fixed retransmission timeout.
    pub pfabric_rto_us: Option<f64>,
    /// pFabric: consecutive timeouts before probe mode.
    pub pfabric_probe_after: Option<u32>,
    /// PDQ/M-PDQ: optimisation switches and parameters (see `protocols::pdq`).
    pub pdq_early_start: Option<bool>,
    pub pdq_early_start_k: Option<f64>,
    pub pdq_early_termination: Option<bool>,
    pub pdq_suppressed_probing: Option<bool>,
    pub pdq_probing_x: Option<f64>,
    pub pdq_dampening: Option<bool>,
    pub pdq_dampening_us: Option<f64>,
    pub pdq_rate_controller: Option<bool>,
    pub pdq_aging_rate: Option<f64>,
    pub pdq_syn_requests_rate: Option<bool>,
    /// PDQ/M-PDQ: a link forgets a listed flow that sent nothing across it for this long.
    pub pdq_entry_timeout_us: Option<f64>,
    /// PDQ/M-PDQ: `whole_path` (no link lets a flow send uncounted) or `literal`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pdq_accounting: Option<String>,
    /// M-PDQ: subflows per flow.
    pub subflows: Option<u32>,
    /// RCP: `ps` (defaults that emulate processor sharing on the network at hand) or
    /// `published` (the papers' law: α = 0.1, β = 1, R(0) = C); see `protocols::rcp`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rcp_variant: Option<String>,
    /// RCP: gain α on spare capacity.
    pub rcp_alpha: Option<f64>,
    /// RCP: gain β on the queue.
    pub rcp_beta: Option<f64>,
    /// RCP: R(0) as a fraction of the link rate.
    pub rcp_init_rate: Option<f64>,
    /// RCP: average RTT a link assumes before its first sample.
    pub rcp_init_rtt_us: Option<f64>,
    /// D3: terminate deadline flows that can no longer meet their deadline.
    pub d3_quench: Option<bool>,
    /// D3: the unit of every rate in its header and router counters, Mb/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub d3_rate_unit_mbps: Option<f64>,
    /// D3: the capacity a router hands out: `adjusted` (the paper's C, adjusted every interval
    /// from utilisation and queue) or `link` (the raw link rate).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub d3_capacity: Option<String>,
    /// D3 (`adjusted`): gain on spare capacity, gain on the queue, and the update interval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub d3_alpha: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub d3_beta: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub d3_interval_us: Option<f64>,
    /// MCP: `approx` (the window from ECN marks, eq. 11) or `opt` (from the path's true queues
    /// and prices, eq. 10).
    pub mcp_variant: Option<String>,
    /// MCP-Opt: the interval over which a port samples its load and its standing queue.
    pub mcp_rate_interval_us: Option<f64>,
    /// MCP-Opt: the time over which a port averages its load samples for the link price.
    pub mcp_rate_average_us: Option<f64>,
    /// MCP: the abort rule, `deficit` (Z in bytes against the fastest link until the deadline)
    /// or `per_rtt` (Z against one window's worth).
    pub mcp_abort: Option<String>,
    /// MCP: the expected rate aims at `rtt_early` (one RTT before the deadline) or `deadline`.
    pub mcp_aim: Option<String>,
    /// MERP: α, the largest share of a link a flow sends DATA at.
    pub merp_alpha: Option<f64>,
    /// MERP: the detecting rate threshold Q, as a fraction of the sender's link rate.
    pub merp_q: Option<f64>,
    /// MERP: the RTT switches' early start looks ahead by.
    pub merp_rtt_us: Option<f64>,
    /// MERP: a link forgets a flow that sent nothing across it for this long.
    pub merp_entry_timeout_us: Option<f64>,
    /// MERP: `work_conserving` (a first flow held elsewhere passes its grant on) or `paper`
    /// (Algorithm 3 as written).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub merp_handover: Option<String>,
    /// PACE: the initial (and shortest) allocation period.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pace_period_us: Option<f64>,
}

fn default_protocol() -> String {
    "dctcp".into()
}

impl Default for TransportConfig {
    fn default() -> Self {
        TransportConfig {
            protocol: default_protocol(),
            mss_bytes: None,
            header_bytes: None,
            init_cwnd_pkts: None,
            min_rto_us: None,
            initial_rto_us: None,
            max_rto_us: None,
            dupack_threshold: None,
            rwnd_pkts: None,
            limited_transmit: None,
            ecn_k_pkts: None,
            dctcp_g: None,
            dctcp_init_alpha: None,
            d2tcp_d_min: None,
            d2tcp_d_max: None,
            d2tcp_late: None,
            pfabric_max_cwnd_pkts: None,
            pfabric_rto_us: None,
            pfabric_probe_after: None,
            pdq_early_start: None,
            pdq_early_start_k: None,
            pdq_early_termination: None,
            pdq_suppressed_probing: None,
            pdq_probing_x: None,
            pdq_dampening: None,
            pdq_dampening_us: None,
            pdq_entry_timeout_us: None,
            pdq_rate_controller: None,
            pdq_aging_rate: None,
            pdq_syn_requests_rate: None,
            pdq_accounting: None,
            subflows: None,
            rcp_variant: None,
            rcp_alpha: None,
            rcp_beta: None,
            rcp_init_rate: None,
            rcp_init_rtt_us: None,
            d3_quench: None,
            d3_rate_unit_mbps: None,
            d3_capacity: None,
            d3_alpha: None,
            d3_beta: None,
            d3_interval_us: None,
            mcp_variant: None,
            mcp_rate_interval_us: None,
            mcp_rate_average_us: None,
            mcp_abort: None,
            mcp_aim: None,
            merp_alpha: None,
            merp_q: None,
            merp_rtt_us: None,
            merp_entry_timeout_us: None,
            merp_handover: None,
            pace_period_us: None,
        }
    }
}

/// The largest `transport.mss_bytes`: 65 535, the most an IP packet's 16-bit length field
/// allows (jumbo frames carry 9 000).
pub const MAX_MSS_BYTES: u32 = 65_535;
/// The largest `transport.header_bytes`: 1 024, far above real headers (IPv4 and TCP with every
/// option: 120), and small enough that a flow's bytes on the wire (at most 10^15 bytes, in
/// segments of one byte each with its header, and a protocol's own header bytes) fit in 64
/// bits: with ~4 GB headers they did not.
pub const MAX_HEADER_BYTES: u32 = 1_024;

/// `transport.mss_bytes` and `transport.header_bytes` (TCP's defaults when unset), refused
/// outside 1..=[`MAX_MSS_BYTES`] and 1..=[`MAX_HEADER_BYTES`], naming the key and the limit.
pub(crate) fn segment_sizes(cfg: &TransportConfig) -> ConfigResult<(u32, u32)> {
    let check = |key: &str, v: Option<u32>, default: u32, max: u32, what: &str| {
        let v = v.unwrap_or(default);
        if (1..=max).contains(&v) {
            Ok(v)
        } else {
            Err(ConfigError::new(
                format!("transport.{key}"),
                format!("must be from 1 to {max} bytes ({what}), got {v}"),
            ))
        }
    };
    let mss = check(
        "mss_bytes",
        cfg.mss_bytes,
        tcp::DEFAULT_MSS_BYTES,
        MAX_MSS_BYTES,
        "the most an IP packet carries",
    )?;
    let header = check(
        "header_bytes",
        cfg.header_bytes,
        tcp::DEFAULT_HEADER_BYTES,
        MAX_HEADER_BYTES,
        "the headers of a packet on the wire; 40 for IPv4 and TCP",
    )?;
    Ok((mss, header))
}

/// Refuses the first key of `cfg` that is set but not among `used` (the protocol's own keys).
pub(crate) fn refuse_unused_keys(cfg: &TransportConfig, used: &[&str]) -> ConfigResult<()> {
    let value = serde_json::to_value(cfg).expect("a transport table always serialises");
    let set = value
        .as_object()
        .expect("a struct serialises to an object")
        .iter()
        .filter(|(k, v)| *k != "protocol" && !v.is_null());
    for (key, _) in set {
        if !used.contains(&key.as_str()) {
            return Err(ConfigError::new(
                format!("transport.{key}"),
                format!(
                    "not used by protocol '{}'; its keys are: {}",
                    cfg.protocol,
                    used.join(", ")
                ),
            ));
        }
    }
    Ok(())
}

/// What an endpoint is told about its flow when it is created.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlowSetup {
    pub flow: crate::net::packet::FlowId,
    pub src: crate::net::packet::HostId,
    pub dst: crate::net::packet::HostId,
    /// Application payload bytes.
    pub size: u64,
    /// When the application opens the flow.
    pub start: Time,
    /// Absolute deadline, if the flow has one.
    pub deadline: Option<Time>,
    pub weight: f64,
    /// Path entropy for per-flow hashing.
    pub path_key: u32,
    /// What the flow's path offers, for protocols that read it (MCP).
    pub path: PathFacts,
}

#[cfg(test)]
impl FlowSetup {
    /// A flow of `size` bytes from host 0 to host 1 at time 0, without deadline, for the
    /// endpoints' unit tests (set what a test needs with `..FlowSetup::for_tests(size)`).
    pub(crate) fn for_tests(size: u64) -> FlowSetup {
        FlowSetup {
            flow: 7,
            src: 0,
            dst: 1,
            size,
            start: Time::ZERO,
            deadline: None,
            weight: 1.0,
            path_key: 42,
            path: PathFacts::default(),
        }
    }
}

/// Facts of a flow's path (the best of its shortest paths, as the ideal FCT takes), known at
/// the flow's start: what an end host learns from configuration (its link speed, the marking
/// threshold of the fabric) rather than from packets.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PathFacts {
    /// The slowest and the fastest link rate on the path.
    pub bottleneck: crate::units::Rate,
    pub fastest: crate::units::Rate,
    /// The smallest ECN marking threshold of the path's queues (the first to mark), if any
    /// marks.
    pub ecn_k_pkts: Option<u32>,
}
