//! # TCP NewReno and DCTCP
//!
//! A byte-counted TCP sender and receiver as sans-IO state machines (the quinn-proto shape of
//! [`crate::protocols`]). The sender's window policy is a congestion controller ([`cc`]); two of
//! them are described here (D2TCP, a third, in [`crate::protocols::d2tcp`]):
//!
//! * **`tcp`: NewReno.** Slow start and congestion avoidance of RFC 5681 §3.1 (with
//!   Appropriate Byte Counting, RFC 3465, L = 1 SMSS), fast retransmit / fast recovery of
//!   RFC 5681 §3.2 with the NewReno partial-ACK rules of RFC 6582 §3.2, and the
//!   retransmission timer of RFC 6298. Data packets are not ECN-capable; switches drop.
//! * **`dctcp`: DCTCP**, Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM 2010, §3.1
//!   (the three parts: marking at K on the instantaneous queue, per-packet ECN echo, the
//!   α estimator and the cut `cwnd ← cwnd·(1 − α/2)`), as written down in RFC 8257 §3. Loss
//!   is handled exactly as NewReno. Data packets (retransmissions included) carry ECT.
//!
//! Files: [`sender`](TcpSender) (handshake, sequence space, loss recovery, timer), [`cc`]
//! (the congestion-control hooks and the NewReno and DCTCP controllers, with their choices),
//! [`receiver`](TcpReceiver) (reassembly and ACKs), `rto` (RFC 6298 estimator), `tests/` (a
//! two-endpoint harness and the behavioural tests).
//!
//! ## Connection model
//!
//! The sender's `start` emits a SYN (header bytes only). The receiver answers every SYN,
//! duplicates included, with a SYN-ACK; on the first SYN-ACK the sender starts data at
//! sequence number 0 (the SYN consumes no sequence number here). A lost SYN or SYN-ACK is
//! recovered by the retransmission timer, which resends the SYN. There is no FIN: the receiver
//! emits [`Completed`](crate::protocols::EndpointEvent::Completed) once, when all `size` bytes
//! have arrived in order; the sender emits
//! [`SenderDone`](crate::protocols::EndpointEvent::SenderDone) once, when all bytes are
//! acknowledged, and holds no timer after that.
//!
//! ## Parameters (`[transport]` keys)
//!
//! | key | default | source |
//! |---|---|---|
//! | `mss_bytes` | 1460 | Ethernet 1500 B MTU − 40 B of IPv4+TCP headers (convention; baselines.md §1) |
//! | `header_bytes` | 40 | IPv4 (20) + TCP without options (20); a full packet is 1500 B |
//! | `init_cwnd_pkts` | 10 | RFC 6928 (IW10); common in DC baselines (baselines.md §1) |
//! | `min_rto_us` | 1000 | data-center minimum replacing RFC 6298's 1 s (§2.4); within the 200 µs–2 ms range of baselines.md §1 |
//! | `initial_rto_us` | max(1000, `min_rto_us`) | data-center choice replacing RFC 6298's 1 s (§2.1), see below |
//! | `max_rto_us` | 1 000 000 (1 s) | RFC 6298 §2.5 allows a cap of "at least 60 s"; see below |
//! | `dupack_threshold` | 3 | RFC 5681 §3.2 |
//! | `rwnd_pkts` | unlimited | receiver window in segments; caps the flight |
//! | `limited_transmit` | true | RFC 3042, which RFC 5681 §3.2 says a sender SHOULD use (Linux and ns-3 do) |
//! | `topology.ecn_k_pkts` (the port's, not a transport key) | dctcp, d2tcp: by port rate: ≤ 1 Gb/s → 20, ≤ 10 Gb/s → 65, above: round(65 · rate / 10 Gb/s) | 20 and 65 are the paper's values (Linux DCTCP documentation); the scaling above 10 Gb/s is **derived** (K ∝ C·RTT, paper §3.4), e.g. 40 Gb/s → 260. A K the scenario sets wins (see [`crate::topo`]) |
//! | `dctcp_g` (dctcp only) | 1/16 | paper §3.1; Linux `dctcp_shift_g` = 4 |
//! | `dctcp_init_alpha` (dctcp only) | 1.0 | RFC 8257 §3.3 and Linux (conservative first cut) |
//!
//! Fixed by the RFCs and not configurable: SRTT gain α = 1/8, RTTVAR gain β = 1/4, K = 4
//! (RFC 6298 §2.3); clock granularity G = 1 ps (the simulator's tick).
//!
//! Validation: `mss_bytes`, `header_bytes`, `init_cwnd_pkts`, `dupack_threshold` and
//! `rwnd_pkts` must be ≥ 1; every RTO value must be a finite number > 0 µs; `max_rto_us ≥
//! min_rto_us`; an explicit `initial_rto_us` must lie in `[min_rto_us, max_rto_us]` (refused,
//! never clamped: the one rule of [`crate::validate#rto-bounds`]);
//! `0 < dctcp_g ≤ 1`; `0 ≤ dctcp_init_alpha ≤ 1`. With protocol `tcp`, setting `dctcp_g` or
//! `dctcp_init_alpha` is an error naming the key. (A marking threshold set on the topology is
//! fine under `tcp`: NewReno's packets are not ECN-capable, so nothing is marked.)
//!
//! ## Choices where the sources are silent (or where we depart from them)
//!
//! * **Initial RTO 1 ms, not 1 s.** RFC 6298's 1 s would turn every lost SYN or lost first
//!   flight into a 1 s stall in a fabric whose RTT is tens of µs, dominating every FCT.
//! * **Max RTO 1 s, not ≥ 60 s.** Simulated horizons are seconds; a 60 s cap would let a flow
//!   that met a link failure sleep past the end of the run. After ten backoffs from 1 ms the
//!   cap is reached anyway.
//! * **Every RTO is clamped to `[min_rto, max_rto]`**, the initial one included. RFC 6298
//!   §5.7 (reset RTO to 3 s after a SYN timeout) is not applied: the next RTT sample
//!   recomputes the RTO anyway.
//! * **RTT samples from timestamps.** Every ACK that advances `snd_una` gives one sample,
//!   `now − ts_echo`, where `ts_echo` is the `ts` of the data packet that triggered the ACK
//!   (RFC 7323 §4). The echo identifies the transmission, so retransmissions give valid
//!   samples and Karn's rule is not needed. The SYN-ACK gives the first sample. The gains
//!   are not scaled by the number of samples per RTT (as in Linux, unlike RFC 7323 App. G).
//!   A new sample also discards the timer backoff (the RTO is recomputed from (2.3)).
//! * **No delayed ACK**: the receiver ACKs every data packet, the usual data-center simulation
//!   convention (baselines.md §1). DCTCP's echo is then exact per packet (paper §3.1 with
//!   m = 1): `ece` of an ACK = CE of the data packet it answers, never latched.
//! * **Limited transmit** (RFC 3042, on by default): the first and second dupACKs each let
//!   one new segment out while FlightSize ≤ cwnd + dupACKs·SMSS and the receiver's window
//!   allows; not during recovery or go-back-N. Those segments are left out of the FlightSize
//!   that sets ssthresh at the third dupACK (RFC 5681 §3.2 step 2). `limited_transmit =
//!   false` gives the plain RFC 5681 sender.
//! * **No SACK, no PRR, no F-RTO/undo.** Only what RFC 5681 + 6582 (+ 3042) say.
//! * **Window inflation uses `dupack_threshold · SMSS`** on entry (RFC 5681 says 3·SMSS for
//!   the default threshold of 3), so a configured threshold stays self-consistent.
//! * **Partial ACK deflation never leaves cwnd below 1 SMSS** (the RFC does not bound it).
//! * **The `recover` guard is strict after a timeout only.** After an RTO, `recover` = one past
//!   the highest byte sent, and a third dupACK starts fast retransmit only if its ACK is
//!   *beyond* it (RFC 6582 §3.2 step 2, literally): go-back-N resends segments the receiver
//!   already holds, and their dupACKs must not cause a second reduction. After a fast recovery
//!   ends with a full ACK no such duplicates exist, so later dupACKs start a new episode.
//! * **ssthresh at a timeout during fast recovery** is min(FlightSize/2, the recovery's
//!   ssthresh), and **the window grows only while it is in use** (Linux's
//!   `tcp_is_cwnd_limited`): see the NewReno controller (`cc/newreno.rs`).
//! * **Go-back-N after a timeout** from `snd_una` in slow start; `snd_nxt` jumps forward when
//!   a cumulative ACK shows the receiver already has data (its out-of-order store). Segments
//!   below the highest byte ever sent count as retransmissions.
//! * **`bytes_in_flight` = `snd_max − snd_una`**: sent and not cumulatively acknowledged. The
//!   send gate uses `snd_nxt − snd_una` (they differ only during go-back-N).
//! * **DCTCP's observation window and cut** (once per window, across ECN and loss signals):
//!   see the DCTCP controller (`cc/dctcp.rs`).
//!
//! ## Allocation
//!
//! Nothing allocates per packet in the steady state: the sender holds scalars only; the
//! receiver's out-of-order store and reply queue keep their capacity.

pub mod cc;
mod receiver;
mod rto;
mod sender;
#[cfg(test)]
mod tests;

pub use receiver::TcpReceiver;
pub(crate) use rto::RttEstimator;
pub use sender::TcpSender;

use crate::error::{ConfigError, ConfigResult};
use crate::net::header::WireHeader;
use crate::net::network::Network;
use crate::net::queue::Discipline;
use crate::net::scale::PathScale;
use crate::protocols::{Caps, FlowMemory, FlowSetup, FluidPolicy, Protocol};
use crate::units::{Rate, Time};
use crate::validate::{at_least_one, RtoBounds, RtoDefaults};

pub const DEFAULT_MSS_BYTES: u32 = 1460;
pub const DEFAULT_HEADER_BYTES: u32 = 40;
pub const DEFAULT_INIT_CWND_PKTS: u32 = 10;
pub const DEFAULT_MIN_RTO_US: f64 = 1_000.0;
pub const DEFAULT_INITIAL_RTO_US: f64 = 1_000.0;
pub const DEFAULT_MAX_RTO_US: f64 = 1_000_000.0;
pub const DEFAULT_DUPACK_THRESHOLD: u32 = 3;
pub const DEFAULT_LIMITED_TRANSMIT: bool = true;
pub const DEFAULT_DCTCP_G: f64 = 1.0 / 16.0;
pub const DEFAULT_DCTCP_INIT_ALPHA: f64 = 1.0;

crate::protocols::transport_keys! {
    /// The `[transport]` keys of the TCP family (`tcp`, `dctcp`, `d2tcp`, `mcp`): those of the
    /// table above, D2TCP's ([`crate::protocols::d2tcp`]) and MCP's
    /// ([`crate::protocols::mcp`]). A key of one variant is refused under another, naming
    /// the variants it is for ([`VARIANT_KEYS`]).
    pub struct TcpConfig uses [segment, init_cwnd, rto] {
        /// Duplicate ACKs that trigger fast retransmit.
        pub dupack_threshold: Option<u32>,
        /// Receiver window, in segments (caps the flight size).
        pub rwnd_pkts: Option<u32>,
        /// RFC 3042 limited transmit: a new segment on each of the first two duplicate ACKs.
        pub limited_transmit: Option<bool>,
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
        pub d2tcp_late: Option<String>,
        /// MCP: `approx` (the window from ECN marks, eq. 11) or `opt` (from the path's true
        /// queues and prices, eq. 10).
        pub mcp_variant: Option<String>,
        /// MCP-Opt: the interval over which a port samples its load and its standing queue.
        pub mcp_rate_interval_us: Option<f64>,
        /// MCP-Opt: the time over which a port averages its load samples for the link price.
        pub mcp_rate_average_us: Option<f64>,
        /// MCP: the abort rule, `deficit` or `per_rtt`.
        pub mcp_abort: Option<String>,
        /// MCP: the expected rate aims at `rtt_early` (one RTT before the deadline) or
        /// `deadline`.
        pub mcp_aim: Option<String>,
    }
}

/// The keys of [`TcpConfig`] only some variants read, with those variants and why the others
/// refuse them (checked in this order; every other key is read by all four).
pub const VARIANT_KEYS: &[(&[&str], &[&str], &str)] = &[
    (
        &["d2tcp_d_min", "d2tcp_d_max", "d2tcp_late"],
        &["d2tcp"],
        "only for d2tcp",
    ),
    (
        &[
            "mcp_variant",
            "mcp_rate_interval_us",
            "mcp_rate_average_us",
            "mcp_abort",
            "mcp_aim",
        ],
        &["mcp"],
        "only for mcp",
    ),
    (
        &["dctcp_g", "dctcp_init_alpha"],
        &["dctcp", "d2tcp", "mcp"],
        "only for dctcp, d2tcp and mcp; protocol 'tcp' (NewReno) sends no ECN-capable packets",
    ),
];

/// Which window policy the TCP sender runs (the controllers of [`cc`]).
#[derive(Clone, Debug, PartialEq)]
pub enum Variant {
    NewReno,
    Dctcp,
    /// D2TCP (DCTCP with the deadline-imminence penalty α^d), the clamp of d and what a flow
    /// does after its deadline.
    D2tcp {
        d_min: f64,
        d_max: f64,
        late: crate::protocols::d2tcp::Late,
    },
    /// MCP's deadline-aware window update ([`crate::protocols::mcp`]).
    Mcp(crate::protocols::mcp::McpParams),
}

impl Variant {
    /// Whether data packets are ECN-capable, and DCTCP's keys apply (every variant but
    /// NewReno: D2TCP is DCTCP's cut, MCP reads the marks and runs DCTCP for flows without a
    /// deadline).
    pub fn uses_ecn(&self) -> bool {
        !matches!(self, Variant::NewReno)
    }

    /// The `transport.protocol` name.
    pub fn name(&self) -> &'static str {
        match self {
            Variant::NewReno => "tcp",
            Variant::Dctcp => "dctcp",
            Variant::D2tcp { .. } => "d2tcp",
            Variant::Mcp(_) => "mcp",
        }
    }
}

/// Validated parameters of one TCP-family run, shared by all its endpoints.
#[derive(Clone, Debug, PartialEq)]
pub struct TcpParams {
    pub variant: Variant,
    /// Payload bytes per full segment.
    pub mss: u32,
    /// Header bytes on every packet.
    pub header: u32,
    pub init_cwnd_pkts: u32,
    pub min_rto: Time,
    pub initial_rto: Time,
    pub max_rto: Time,
    pub dupack_threshold: u32,
    /// Receiver window in segments; `None` is unlimited.
    pub rwnd_pkts: Option<u32>,
    /// RFC 3042 limited transmit on the first `dupack_threshold − 1` duplicate ACKs.
    pub limited_transmit: bool,
    pub dctcp_g: f64,
    pub dctcp_init_alpha: f64,
}

/// `min_rto_us`, `initial_rto_us` and `max_rto_us` (the keys of the `rto` group of
/// `transport_keys!` (in `protocols`)) with TCP's defaults, read by the one
/// rule of [`crate::validate#rto-bounds`]; the paced core (RCP, D3) reads them so too.
pub(crate) fn rto_bounds(
    min_rto_us: Option<f64>,
    initial_rto_us: Option<f64>,
    max_rto_us: Option<f64>,
) -> ConfigResult<RtoBounds> {
    crate::validate::rto_bounds(
        min_rto_us,
        initial_rto_us,
        max_rto_us,
        RtoDefaults {
            min_us: DEFAULT_MIN_RTO_US,
            initial_us: DEFAULT_INITIAL_RTO_US,
            max_us: DEFAULT_MAX_RTO_US,
        },
    )
}

impl Protocol for TcpParams {
    const HEADER_TAGS: &'static [u8] = &[super::mcp::McpHeader::TAG];
    const NAMES: &'static [(&'static str, &'static str)] = &[
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
    ];
    type Sender = TcpSender;
    type Receiver = TcpReceiver;
    /// MCP-Opt's ports sum the path's queues and prices; the rest of the family has none.
    type Agent = crate::protocols::mcp::McpSwitch;

    type Config = TcpConfig;

    fn from_config(protocol: &str, cfg: &TcpConfig) -> ConfigResult<TcpParams> {
        if !matches!(protocol, "tcp" | "dctcp" | "d2tcp" | "mcp") {
            return Err(ConfigError::new(
                "transport.protocol",
                format!("'{protocol}' is not a TCP variant (tcp, dctcp, d2tcp, mcp)"),
            ));
        }
        for (keys, variants, why) in VARIANT_KEYS {
            if variants.contains(&protocol) {
                continue;
            }
            if let Some(key) = keys.iter().find(|k| cfg.is_set(k)) {
                return Err(ConfigError::new(format!("transport.{key}"), *why));
            }
        }
        let d2tcp = if protocol == "d2tcp" {
            let lo = cfg
                .d2tcp_d_min
                .unwrap_or(crate::protocols::d2tcp::DEFAULT_D_MIN);
            let hi = cfg
                .d2tcp_d_max
                .unwrap_or(crate::protocols::d2tcp::DEFAULT_D_MAX);
            if !(lo.is_finite() && lo > 0.0) {
                return Err(ConfigError::new(
                    "transport.d2tcp_d_min",
                    format!("must be a number > 0 (got {lo}); the paper uses 0.5"),
                ));
            }
            if !(hi.is_finite() && hi >= lo) {
                return Err(ConfigError::new(
                    "transport.d2tcp_d_max",
                    format!("must be ≥ d2tcp_d_min ({lo}) and finite (got {hi}); the paper uses 2"),
                ));
            }
            let late = crate::protocols::d2tcp::Late::from_config(cfg.d2tcp_late.as_deref())?;
            Some((lo, hi, late))
        } else {
            None
        };
        let mcp = if protocol == "mcp" {
            Some(crate::protocols::mcp::McpParams::from_config(cfg)?)
        } else {
            None
        };
        let variant = match (protocol, d2tcp, mcp) {
            (_, _, Some(m)) => Variant::Mcp(m),
            (_, Some((d_min, d_max, late)), _) => Variant::D2tcp { d_min, d_max, late },
            ("dctcp", _, _) => Variant::Dctcp,
            _ => Variant::NewReno,
        };

        let (mss, header) = crate::protocols::segment_sizes(cfg.mss_bytes, cfg.header_bytes)?;
        let rto = rto_bounds(cfg.min_rto_us, cfg.initial_rto_us, cfg.max_rto_us)?;
        let rwnd_pkts = match cfg.rwnd_pkts {
            None => None,
            Some(w) => Some(at_least_one("transport.rwnd_pkts", Some(w), 1)?),
        };
        let dctcp_g = cfg.dctcp_g.unwrap_or(DEFAULT_DCTCP_G);
        if !(dctcp_g.is_finite() && dctcp_g > 0.0 && dctcp_g <= 1.0) {
            return Err(ConfigError::new(
                "transport.dctcp_g",
                format!("must satisfy 0 < g ≤ 1 (got {dctcp_g}); the paper uses 1/16"),
            ));
        }
        let dctcp_init_alpha = cfg.dctcp_init_alpha.unwrap_or(DEFAULT_DCTCP_INIT_ALPHA);
        if !(0.0..=1.0).contains(&dctcp_init_alpha) {
            return Err(ConfigError::new(
                "transport.dctcp_init_alpha",
                format!("must satisfy 0 ≤ alpha ≤ 1 (got {dctcp_init_alpha})"),
            ));
        }
        Ok(TcpParams {
            variant,
            mss,
            header,
            init_cwnd_pkts: at_least_one(
                "transport.init_cwnd_pkts",
                cfg.init_cwnd_pkts,
                DEFAULT_INIT_CWND_PKTS,
            )?,
            min_rto: rto.min,
            initial_rto: rto.initial,
            max_rto: rto.max,
            dupack_threshold: at_least_one(
                "transport.dupack_threshold",
                cfg.dupack_threshold,
                DEFAULT_DUPACK_THRESHOLD,
            )?,
            rwnd_pkts,
            limited_transmit: cfg.limited_transmit.unwrap_or(DEFAULT_LIMITED_TRANSMIT),
            dctcp_g,
            dctcp_init_alpha,
        })
    }

    fn name(&self) -> &'static str {
        self.variant.name()
    }

    fn caps(&self) -> Caps {
        let mcp_opt = matches!(&self.variant, Variant::Mcp(m) if m.opt);
        Caps {
            data_packet_sizes: (self.mss, self.header),
            discipline: Discipline::Fifo,
            default_buffer_pkts: None,
            uses_ecn: self.variant.uses_ecn(),
            keeps_state_along_its_path: false,
            derives_defaults_from_network: mcp_opt,
            memory: FlowMemory::WHILE_SENDING,
            fluid: FluidPolicy::MaxMin,
        }
    }

    fn network_defaults(&self, cfg: &mut TcpConfig, scale: Option<&PathScale>, _net: &Network) {
        if let Some(scale) = scale {
            crate::protocols::mcp::network_defaults(cfg, scale);
        }
    }

    fn new_sender(&self, flow: &FlowSetup, _nic_rate: Rate) -> TcpSender {
        TcpSender::new(self, flow)
    }

    fn new_receiver(&self, flow: &FlowSetup) -> TcpReceiver {
        TcpReceiver::new(self, flow)
    }

    fn new_agent(&self, net: &Network, _memr: bool) -> Option<Self::Agent> {
        match &self.variant {
            Variant::Mcp(m) if m.opt => Some(crate::protocols::mcp::McpSwitch::new(m, net)),
            _ => None,
        }
    }

    /// DCTCP's default marking threshold K (packets, instantaneous queue) for a port of this
    /// rate whose link sets none; `None` for plain TCP, which sends nothing ECN-capable. See
    /// the parameter table for the rule.
    fn default_ecn_k_pkts(&self, rate: Rate) -> Option<u32> {
        if !self.variant.uses_ecn() {
            return None;
        }
        let bps = rate.bits_per_sec() as u128;
        const G1: u128 = 1_000_000_000;
        const G10: u128 = 10_000_000_000;
        Some(if bps <= G1 {
            20
        } else if bps <= G10 {
            65
        } else {
            // K ∝ rate above the paper's 10 Gb/s value, rounded half up.
            ((65 * bps + G10 / 2) / G10).min(u32::MAX as u128) as u32
        })
    }
}

#[cfg(test)]
mod param_tests {
    use super::*;

    /// The protocol `proto` with the keys `f` sets.
    fn cfg(proto: &str, f: impl FnOnce(&mut TcpConfig)) -> (&str, TcpConfig) {
        let mut c = TcpConfig::default();
        f(&mut c);
        (proto, c)
    }

    fn read(c: &(&str, TcpConfig)) -> ConfigResult<TcpParams> {
        TcpParams::from_config(c.0, &c.1)
    }

    fn err_key(c: &(&str, TcpConfig)) -> String {
        read(c).unwrap_err().path
    }

    #[test]
    fn every_variant_only_key_is_a_key_of_the_table() {
        // A misspelt name here would read as never set and switch its check off.
        let keys = crate::tagged::field_names::<TcpConfig>();
        for (names, variants, _) in VARIANT_KEYS {
            for name in *names {
                assert!(keys.contains(name), "{name} is not a TcpConfig key");
            }
            for v in *variants {
                assert!(TcpParams::NAMES.iter().any(|(n, _)| n == v), "{v}");
            }
        }
    }

    #[test]
    fn defaults_match_the_documented_table() {
        let p = read(&cfg("dctcp", |_| {})).unwrap();
        assert_eq!(p.variant, Variant::Dctcp);
        assert_eq!((p.mss, p.header, p.init_cwnd_pkts), (1460, 40, 10));
        assert_eq!(p.min_rto, Time::from_us(1000));
        assert_eq!(p.initial_rto, Time::from_us(1000));
        assert_eq!(p.max_rto, Time::from_ms(1000));
        assert_eq!((p.dupack_threshold, p.rwnd_pkts), (3, None));
        assert_eq!((p.dctcp_g, p.dctcp_init_alpha), (0.0625, 1.0));
        // The default initial RTO follows a larger min RTO instead of failing.
        let p = read(&cfg("tcp", |c| c.min_rto_us = Some(5000.0))).unwrap();
        assert_eq!(p.initial_rto, Time::from_us(5000));
        assert_eq!(p.variant, Variant::NewReno);
    }

    #[test]
    fn tcp_refuses_dctcp_keys_by_name() {
        let k = err_key(&cfg("tcp", |c| c.dctcp_g = Some(0.1)));
        assert_eq!(k, "transport.dctcp_g");
        let k = err_key(&cfg("tcp", |c| c.dctcp_init_alpha = Some(0.0)));
        assert_eq!(k, "transport.dctcp_init_alpha");
        let e = read(&cfg("tcp", |c| c.dctcp_g = Some(0.1))).unwrap_err();
        assert!(e.message.contains("only for dctcp"), "{e}");
        let k = err_key(&cfg("dctcp", |c| c.d2tcp_d_min = Some(0.3)));
        assert_eq!(k, "transport.d2tcp_d_min");
        let k = err_key(&cfg("d2tcp", |c| c.d2tcp_d_max = Some(0.3)));
        assert_eq!(k, "transport.d2tcp_d_max");
        let k = err_key(&cfg("dctcp", |c| c.d2tcp_late = Some("close".into())));
        assert_eq!(k, "transport.d2tcp_late");
        let k = err_key(&cfg("d2tcp", |c| c.d2tcp_late = Some("kill".into())));
        assert_eq!(k, "transport.d2tcp_late");
        let p = read(&cfg("d2tcp", |_| {})).unwrap();
        use crate::protocols::d2tcp::Late;
        assert_eq!(
            p.variant,
            Variant::D2tcp {
                d_min: 0.5,
                d_max: 2.0,
                late: Late::DMin,
            }
        );
        for (name, late) in [
            ("d_min", Late::DMin),
            ("dctcp", Late::Dctcp),
            ("d_max", Late::DMax),
            ("close", Late::Close),
        ] {
            let p = read(&cfg("d2tcp", |c| c.d2tcp_late = Some(name.into())));
            assert!(matches!(p.unwrap().variant, Variant::D2tcp { late: l, .. } if l == late));
        }
        assert!(read(&cfg("dctcp", |c| c.dctcp_g = Some(0.1))).is_ok());
    }

    #[test]
    fn bad_values_are_refused_naming_the_key() {
        let cases: Vec<(&str, (&str, TcpConfig))> = vec![
            ("transport.mss_bytes", cfg("tcp", |c| c.mss_bytes = Some(0))),
            (
                "transport.header_bytes",
                cfg("tcp", |c| c.header_bytes = Some(0)),
            ),
            (
                "transport.init_cwnd_pkts",
                cfg("tcp", |c| c.init_cwnd_pkts = Some(0)),
            ),
            (
                "transport.min_rto_us",
                cfg("tcp", |c| c.min_rto_us = Some(0.0)),
            ),
            (
                "transport.min_rto_us",
                cfg("tcp", |c| c.min_rto_us = Some(f64::NAN)),
            ),
            (
                "transport.max_rto_us",
                cfg("tcp", |c| c.max_rto_us = Some(500.0)),
            ),
            (
                "transport.initial_rto_us",
                cfg("tcp", |c| c.initial_rto_us = Some(10.0)),
            ),
            (
                "transport.initial_rto_us",
                cfg("tcp", |c| c.initial_rto_us = Some(-1.0)),
            ),
            (
                "transport.dupack_threshold",
                cfg("tcp", |c| c.dupack_threshold = Some(0)),
            ),
            ("transport.rwnd_pkts", cfg("tcp", |c| c.rwnd_pkts = Some(0))),
            ("transport.dctcp_g", cfg("dctcp", |c| c.dctcp_g = Some(0.0))),
            ("transport.dctcp_g", cfg("dctcp", |c| c.dctcp_g = Some(1.5))),
            (
                "transport.dctcp_init_alpha",
                cfg("dctcp", |c| c.dctcp_init_alpha = Some(1.01)),
            ),
            (
                "transport.dctcp_init_alpha",
                cfg("dctcp", |c| c.dctcp_init_alpha = Some(-0.1)),
            ),
            ("transport.protocol", cfg("rcp", |_| {})),
        ];
        for (key, c) in cases {
            assert_eq!(err_key(&c), key, "{c:?}");
        }
        // Boundary values that are valid.
        let ok = cfg("dctcp", |c| {
            c.dctcp_g = Some(1.0);
            c.dctcp_init_alpha = Some(0.0);
            c.initial_rto_us = Some(1000.0);
            c.max_rto_us = Some(1000.0);
        });
        assert!(read(&ok).is_ok());
    }

    #[test]
    fn ecn_threshold_defaults_by_port_rate() {
        let d = read(&cfg("dctcp", |_| {})).unwrap();
        let k = |r: Rate| d.default_ecn_k_pkts(r);
        assert_eq!(k(Rate::mbps(100)), Some(20));
        assert_eq!(k(Rate::gbps(1)), Some(20));
        assert_eq!(k(Rate::mbps(2500)), Some(65));
        assert_eq!(k(Rate::gbps(10)), Some(65));
        assert_eq!(k(Rate::gbps(25)), Some(163)); // 162.5 rounds up
        assert_eq!(k(Rate::gbps(40)), Some(260));
        assert_eq!(k(Rate::gbps(100)), Some(650));
        let tcp = read(&cfg("tcp", |_| {})).unwrap();
        assert_eq!(tcp.default_ecn_k_pkts(Rate::gbps(10)), None);
    }
}
