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
//! Dispatch is by enum ([`Sender`], [`Receiver`]), not boxed trait objects: it is on the
//! per-packet path.

pub mod agent;
pub mod d2tcp;
pub mod d3;
pub mod mcp;
pub mod merp;
pub mod pace;
pub(crate) mod paced;
pub mod pdq;
pub mod pfabric;
pub mod rcp;
pub(crate) mod segments;
pub mod tcp;

use crate::error::{ConfigError, ConfigResult};
use crate::net::packet::Packet;
use crate::units::Time;
use serde::{Deserialize, Serialize};

/// What an endpoint reports to the application and the metrics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndpointEvent {
    /// Receiver: every byte of the flow has arrived, in order.
    Completed,
    /// Sender: every byte has been acknowledged; the sender holds no more timers.
    SenderDone,
    /// Either side: the protocol gave up on the flow (D3 and PDQ terminate a flow that can no
    /// longer meet its deadline). The flow ends now, unfinished, and counts as having missed
    /// its deadline; the engine frees both endpoints at once, so neither side is called again
    /// and packets still in flight are absorbed. Report it once, after the packets the
    /// endpoint still wants sent (e.g. a termination notice) are queued in `poll_transmit`.
    Terminated,
}

/// Counters a sender keeps for the per-flow output.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SenderStats {
    /// Data segments sent again (fast retransmit, partial-ACK retransmit or timeout).
    pub retransmits: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    /// Data packets (first transmissions and retransmissions) sent.
    pub data_packets_sent: u64,
}

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

/// The protocols this build knows, with one line each (for `dcnsim list`).
pub const PROTOCOLS: &[(&str, &str)] = &[
    (
        "tcp",
        "TCP NewReno (RFC 5681/6582/6298) over drop-tail queues",
    ),
    (
        "dctcp",
        "DCTCP (Alizadeh et al., SIGCOMM 2010): ECN marking at K, alpha-proportional cut",
    ),
    (
        "d2tcp",
        "D2TCP (Vamanan et al., SIGCOMM 2012): DCTCP with the deadline-imminence penalty alpha^d",
    ),
    (
        "mcp",
        "MCP: window updated once per RTT from the deadline deficit and the path's queue and price (approx: ECN only; opt: exact)",
    ),
    (
        "pfabric",
        "pFabric (Alizadeh et al., SIGCOMM 2013): remaining-size priorities, tiny buffers, line-rate start",
    ),
    (
        "pdq",
        "PDQ (Hong et al., SIGCOMM 2012): preemptive flow scheduling by switches (EDF, then SJF)",
    ),
    (
        "mpdq",
        "Multipath PDQ (Hong et al., SIGCOMM 2012, §6): PDQ subflows on ECMP paths, load shifting",
    ),
    (
        "rcp",
        "RCP (Dukkipati et al., IWQoS 2005): per-link rate R(t), senders paced at the path minimum",
    ),
    (
        "d3",
        "D3 (Wilson et al., SIGCOMM 2011): per-RTT rate requests, greedy FCFS allocation in bytes/us",
    ),
    (
        "merp",
        "MERP (IEEE TPDS 2017): switches order flows for the least maximum expansion ratio (virtual deadlines)",
    ),
    (
        "pace",
        "PACE (Carvalho et al.): per-period credits cut by forwarders to weighted max-min, lossless",
    ),
];

/// A validated transport choice, from which the engine makes endpoints and switch settings.
#[derive(Clone, Debug, PartialEq)]
pub enum Transport {
    Tcp(tcp::TcpParams),
    Pfabric(pfabric::PfabricParams),
    Pdq(pdq::PdqParams),
    Rcp(rcp::RcpParams),
    D3(d3::D3Params),
    Merp(merp::MerpParams),
    Pace(pace::PaceParams),
}

impl Transport {
    pub fn from_config(cfg: &TransportConfig) -> ConfigResult<Transport> {
        if cfg.ecn_k_pkts.is_some() {
            return Err(ConfigError::new(
                "transport.ecn_k_pkts",
                "has moved: the ECN marking threshold belongs to the switch queues, beside the \
                 buffer; set topology.ecn_k_pkts (every port) or ecn_k_pkts in a \
                 [[topology.link_overrides]] entry (one link)",
            ));
        }
        match cfg.protocol.as_str() {
            "tcp" | "dctcp" | "d2tcp" | "mcp" => {
                Ok(Transport::Tcp(tcp::TcpParams::from_config(cfg)?))
            }
            "pfabric" => Ok(Transport::Pfabric(pfabric::PfabricParams::from_config(
                cfg,
            )?)),
            "pdq" | "mpdq" => Ok(Transport::Pdq(pdq::PdqParams::from_config(cfg)?)),
            "rcp" => Ok(Transport::Rcp(rcp::RcpParams::from_config(cfg)?)),
            "d3" => Ok(Transport::D3(d3::D3Params::from_config(cfg)?)),
            "merp" => Ok(Transport::Merp(merp::MerpParams::from_config(cfg)?)),
            "pace" => Ok(Transport::Pace(pace::PaceParams::from_config(cfg)?)),
            other => Err(ConfigError::new(
                "transport.protocol",
                format!(
                    "unknown protocol '{other}'; valid: {}",
                    PROTOCOLS.iter().map(|p| p.0).collect::<Vec<_>>().join(", ")
                ),
            )),
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            Transport::Tcp(p) => p.variant.name(),
            Transport::Pfabric(_) => "pfabric",
            Transport::Pdq(p) if p.multipath => "mpdq",
            Transport::Pdq(_) => "pdq",
            Transport::Rcp(_) => "rcp",
            Transport::D3(_) => "d3",
            Transport::Merp(_) => "merp",
            Transport::Pace(_) => "pace",
        }
    }

    /// Bytes on the wire for a flow of `payload` application bytes (data packets only), used
    /// for the ideal FCT.
    pub fn data_packet_sizes(&self) -> (u32, u32) {
        match self {
            Transport::Tcp(p) => (p.mss, p.header),
            Transport::Pfabric(p) => (p.mss, p.header),
            Transport::Pdq(p) => p.data_packet_sizes(),
            Transport::Rcp(p) => (p.mss, p.header + rcp::HEADER_BYTES),
            Transport::D3(p) => (p.mss, p.header + d3::HEADER_BYTES),
            Transport::Merp(p) => (p.mss, p.header),
            Transport::Pace(p) => (p.mss, p.header + pace::header::WIRE_BYTES),
        }
    }

    /// The queue discipline of every port (switches and host NICs).
    pub fn discipline(&self) -> crate::net::queue::Discipline {
        match self {
            Transport::Tcp(_) => crate::net::queue::Discipline::Fifo,
            Transport::Pfabric(_) => crate::net::queue::Discipline::Pfabric,
            Transport::Pdq(_) | Transport::Rcp(_) | Transport::D3(_) | Transport::Pace(_) => {
                crate::net::queue::Discipline::Fifo
            }
            // The priority buffer of Table 2: rank = priority class.
            Transport::Merp(_) => crate::net::queue::Discipline::Rank,
        }
    }

    /// Buffer of every port, in packets, when the scenario sets none (`None`: the topology's
    /// default).
    pub fn default_buffer_pkts(&self) -> Option<u64> {
        match self {
            Transport::Tcp(_) => None,
            Transport::Pfabric(p) => Some(p.default_buffer_pkts()),
            Transport::Pdq(_)
            | Transport::Rcp(_)
            | Transport::D3(_)
            | Transport::Merp(_)
            | Transport::Pace(_) => None,
        }
    }

    /// Whether the protocol's switches keep state for each flow (or each request) at the ports
    /// of its path: D3's allocations, PDQ's and M-PDQ's flow lists, MERP's flow tables, PACE's
    /// grants and outstanding credits. Such a protocol needs every packet of a (sub)flow on one
    /// path ([`crate::lb::LbParams::check_transport`]).
    pub fn keeps_state_along_its_path(&self) -> bool {
        matches!(
            self,
            Transport::D3(_) | Transport::Pdq(_) | Transport::Merp(_) | Transport::Pace(_)
        )
    }

    /// Whether some `[transport]` defaults of the protocol are defined relative to the network
    /// (pFabric's window and RTO, RCP's initial RTT and β, D3's rate unit and capacity
    /// adjustment): then the network is
    /// measured before the run ([`crate::net::scale`]) and [`Self::network_defaults`] fills them.
    pub fn derives_defaults_from_network(&self) -> bool {
        matches!(
            self,
            Transport::Pfabric(_) | Transport::Rcp(_) | Transport::Merp(_) | Transport::D3(_)
        ) || matches!(self, Transport::Tcp(p) if matches!(p.variant, tcp::Variant::Mcp(m) if m.opt))
    }

    /// Fills the network-defined keys that `cfg` leaves unset from the scale of the network's
    /// longest path (measured with [`Self::data_packet_sizes`]: full data packets, header-only
    /// ACKs; `None` when no two hosts are connected) and, for D3's rate unit, from its fastest
    /// port. Keys the scenario sets win.
    pub fn network_defaults(
        &self,
        cfg: &mut TransportConfig,
        scale: Option<&crate::net::scale::PathScale>,
        net: &crate::net::Network,
    ) {
        let (mss, header) = self.data_packet_sizes();
        if let Transport::D3(_) = self {
            // The unit comes from the fastest port, connected hosts or not.
            let fastest = net.ports.iter().map(|p| p.rate).max().unwrap_or_default();
            return d3::network_defaults(cfg, scale, fastest);
        }
        let Some(scale) = scale else {
            return;
        };
        match self {
            Transport::Pfabric(_) => pfabric::network_defaults(cfg, scale, (mss + header) as u64),
            Transport::Rcp(_) => rcp::network_defaults(cfg, scale),
            Transport::Merp(_) => merp::network_defaults(cfg, scale),
            Transport::Tcp(_) => mcp::network_defaults(cfg, scale),
            Transport::Pdq(_) | Transport::D3(_) | Transport::Pace(_) => {}
        }
    }

    /// Whether the protocol's data packets are ECN-capable (only those are ever marked).
    pub fn uses_ecn(&self) -> bool {
        matches!(self, Transport::Tcp(p) if p.variant.uses_ecn())
    }

    /// The marking threshold, in packets, of a port of this rate whose link sets none: the
    /// protocol's default (DCTCP's rule), or `None` for a protocol that does not use ECN.
    pub fn default_ecn_k_pkts(&self, rate: crate::units::Rate) -> Option<u32> {
        match self {
            Transport::Tcp(p) => p.default_ecn_k_pkts(rate),
            Transport::Pfabric(_)
            | Transport::Pdq(_)
            | Transport::Rcp(_)
            | Transport::D3(_)
            | Transport::Merp(_)
            | Transport::Pace(_) => None,
        }
    }

    /// The sender of `flow`, whose host sends at `nic_rate` (its first port's line rate).
    pub fn new_sender(&self, flow: &FlowSetup, nic_rate: crate::units::Rate) -> Sender {
        match self {
            Transport::Tcp(p) => Sender::Tcp(tcp::TcpSender::new(p, flow)),
            Transport::Pfabric(p) => Sender::Pfabric(pfabric::PfabricSender::new(p, flow)),
            Transport::Pdq(p) => Sender::Pdq(pdq::PdqSender::new(p, flow, nic_rate)),
            Transport::Rcp(p) => Sender::Rcp(rcp::RcpSender::new(p, flow)),
            Transport::D3(p) => Sender::D3(d3::D3Sender::new(p, flow)),
            Transport::Merp(p) => Sender::Merp(merp::MerpSender::new(p, flow, nic_rate)),
            Transport::Pace(p) => Sender::Pace(pace::PaceSender::new(p, flow, nic_rate)),
        }
    }

    pub fn new_receiver(&self, flow: &FlowSetup) -> Receiver {
        match self {
            Transport::Tcp(p) => Receiver::Tcp(tcp::TcpReceiver::new(p, flow)),
            Transport::Pfabric(p) => {
                Receiver::Tcp(tcp::TcpReceiver::with_header_bytes(p.header, flow))
            }
            Transport::Pdq(p) => Receiver::Pdq(pdq::PdqReceiver::new(p, flow)),
            Transport::Rcp(p) => Receiver::Tcp(tcp::TcpReceiver::with_header_bytes(
                p.header + rcp::HEADER_BYTES,
                flow,
            )),
            Transport::D3(p) => Receiver::Tcp(tcp::TcpReceiver::with_header_bytes(
                p.header + d3::HEADER_BYTES,
                flow,
            )),
            Transport::Merp(p) => Receiver::Merp(merp::MerpReceiver::new(p, flow)),
            Transport::Pace(p) => Receiver::Pace(pace::PaceReceiver::new(p, flow)),
        }
    }
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

pub enum Sender {
    Tcp(tcp::TcpSender),
    Pfabric(pfabric::PfabricSender),
    Pdq(pdq::PdqSender),
    Rcp(rcp::RcpSender),
    D3(d3::D3Sender),
    Merp(merp::MerpSender),
    Pace(pace::PaceSender),
}

pub enum Receiver {
    Tcp(tcp::TcpReceiver),
    Pdq(pdq::PdqReceiver),
    Merp(merp::MerpReceiver),
    Pace(pace::PaceReceiver),
}

macro_rules! dispatch_sender {
    ($self:ident, $e:ident => $body:expr) => {
        match $self {
            Self::Tcp($e) => $body,
            Self::Pfabric($e) => $body,
            Self::Pdq($e) => $body,
            Self::Rcp($e) => $body,
            Self::D3($e) => $body,
            Self::Merp($e) => $body,
            Self::Pace($e) => $body,
        }
    };
}

macro_rules! dispatch_receiver {
    ($self:ident, $e:ident => $body:expr) => {
        match $self {
            Self::Tcp($e) => $body,
            Self::Pdq($e) => $body,
            Self::Merp($e) => $body,
            Self::Pace($e) => $body,
        }
    };
}

impl Sender {
    /// Called once at the flow's start time.
    pub fn start(&mut self, now: Time) {
        dispatch_sender!(self, s => s.start(now))
    }
    /// The application gives up on the flow (`workload.abort_at_deadline`): a protocol whose
    /// switches keep state for the flow closes as on its own termination (PDQ's TERM, D3's and
    /// MERP's FIN), so that they let it go. Returns whether it has such packets to send; the
    /// others send nothing more (PACE's end comes from its receiver: [`Receiver::abort`]).
    /// A D3 sender with a request in flight first waits for its reply ([`Self::is_closing`]).
    pub fn abort(&mut self, now: Time) -> bool {
        match self {
            Self::Pdq(s) => s.abort(now),
            Self::D3(s) => s.abort(now),
            Self::Merp(s) => s.abort(),
            _ => false,
        }
    }
    /// After [`Self::abort`], whether the sender still has to hear from the network before it
    /// can close (D3: the reply to a request in flight carries allocations that its FIN must
    /// return). The engine keeps both endpoints until then.
    pub fn is_closing(&self) -> bool {
        match self {
            Self::D3(s) => s.is_closing(),
            _ => false,
        }
    }
    pub fn handle_packet(&mut self, now: Time, pkt: &Packet) {
        dispatch_sender!(self, s => s.handle_packet(now, pkt))
    }
    pub fn handle_timeout(&mut self, now: Time) {
        dispatch_sender!(self, s => s.handle_timeout(now))
    }
    pub fn poll_transmit(&mut self, now: Time) -> Option<Packet> {
        dispatch_sender!(self, s => s.poll_transmit(now))
    }
    pub fn poll_timeout(&self) -> Option<Time> {
        dispatch_sender!(self, s => s.poll_timeout())
    }
    pub fn poll_event(&mut self) -> Option<EndpointEvent> {
        dispatch_sender!(self, s => s.poll_event())
    }
    pub fn stats(&self) -> SenderStats {
        dispatch_sender!(self, s => s.stats())
    }
    /// Congestion window in bytes, for traces (protocols without one report 0).
    pub fn cwnd_bytes(&self) -> u64 {
        dispatch_sender!(self, s => s.cwnd())
    }
    /// Bytes sent but not yet acknowledged (for conservation checks and series).
    pub fn bytes_in_flight(&self) -> u64 {
        dispatch_sender!(self, s => s.bytes_in_flight())
    }
    /// The acknowledged prefix: every payload byte below it has been acknowledged, and it
    /// never decreases. The cumulative ACK (`snd_una`) for the TCP family, pFabric, RCP and D3;
    /// for PDQ, which acknowledges segments one by one, the start of its first unacknowledged
    /// segment.
    pub fn snd_una(&self) -> u64 {
        dispatch_sender!(self, s => s.snd_una())
    }
}

impl Receiver {
    /// The application gives up on the flow: a protocol whose switches are told of a flow's end
    /// by its receiver (PACE's TERMINATE) says so now. Returns whether it has that to send.
    pub fn abort(&mut self, now: Time) -> bool {
        match self {
            Self::Pace(r) => r.abort(now),
            _ => false,
        }
    }
    pub fn handle_packet(&mut self, now: Time, pkt: &Packet) {
        dispatch_receiver!(self, r => r.handle_packet(now, pkt))
    }
    pub fn handle_timeout(&mut self, now: Time) {
        dispatch_receiver!(self, r => r.handle_timeout(now))
    }
    pub fn poll_transmit(&mut self, now: Time) -> Option<Packet> {
        dispatch_receiver!(self, r => r.poll_transmit(now))
    }
    pub fn poll_timeout(&self) -> Option<Time> {
        dispatch_receiver!(self, r => r.poll_timeout())
    }
    pub fn poll_event(&mut self) -> Option<EndpointEvent> {
        dispatch_receiver!(self, r => r.poll_event())
    }
    /// Payload bytes delivered in order to the application so far.
    pub fn bytes_delivered(&self) -> u64 {
        dispatch_receiver!(self, r => r.bytes_delivered())
    }
}
