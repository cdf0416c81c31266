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
    Transport, TransportKeys, PROTOCOLS,
};

/// The `[transport]` table of a scenario, as written: the protocol's name and its other keys,
/// raw. Each protocol reads its own keys into its own type ([`Protocol::Config`]) through
/// [`TransportKeys::read`], which refuses a key the protocol does not read, naming it and
/// listing the protocol's keys ([`crate::tagged`]).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
pub struct TransportConfig {
    /// One of [`PROTOCOLS`]; `dctcp` when left out.
    #[serde(default = "default_protocol")]
    pub protocol: String,
    /// Every other key of the table, as given.
    #[serde(flatten)]
    pub keys: serde_json::Map<String, serde_json::Value>,
}

fn default_protocol() -> String {
    "dctcp".into()
}

impl Default for TransportConfig {
    fn default() -> Self {
        TransportConfig {
            protocol: default_protocol(),
            keys: serde_json::Map::new(),
        }
    }
}

impl TransportConfig {
    /// The table of `protocol` with `keys` (a short way to write one in tests and tools):
    /// `TransportConfig::from_keys("pdq", &[("pdq_dampening", json!(false))])`.
    pub fn from_keys(protocol: &str, keys: &[(&str, serde_json::Value)]) -> TransportConfig {
        TransportConfig {
            protocol: protocol.into(),
            keys: keys
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
        }
    }
}

/// Declares a protocol's `[transport]` keys type ([`Protocol::Config`]): a struct of `Option`
/// fields, one per key, that refuses unknown keys, and its `is_set(key)` (whether the key has
/// a value, for checks that name keys: TCP's variant-only keys). Keys several protocols share
/// are declared once here, in groups the protocol names after `uses` (in the order its keys
/// are listed):
///
/// * `segment`: `mss_bytes`, `header_bytes` (read by [`segment_sizes`]);
/// * `init_cwnd`: `init_cwnd_pkts`;
/// * `rto`: `min_rto_us`, `initial_rto_us`, `max_rto_us` (read by
///   [`crate::validate::rto_bounds`]);
/// * `min_rto`: `min_rto_us` alone.
///
/// (`#[serde(flatten)]` of a shared struct would do this too, but serde refuses no unknown
/// key through a flattened struct.)
///
/// ```ignore
/// transport_keys! {
///     /// PACE's `[transport]` keys.
///     pub struct PaceConfig uses [segment] {
///         pub pace_period_us: Option<f64>,
///     }
/// }
/// ```
macro_rules! transport_keys {
    ($(#[$m:meta])* $vis:vis struct $name:ident uses [$($group:ident),*] { $($own:tt)* }) => {
        $crate::protocols::transport_keys!(
            @munch [$(#[$m])* $vis $name] [$($group)*] {} { $($own)* }
        );
    };
    (@munch $head:tt [] { $($acc:tt)* } { $($own:tt)* }) => {
        $crate::protocols::transport_keys!(@emit $head { $($acc)* $($own)* });
    };
    (@emit [$(#[$m:meta])* $vis:vis $name:ident] {
        $($(#[$fm:meta])* $fvis:vis $field:ident: $fty:ty),* $(,)?
    }) => {
        $(#[$m])*
        #[derive(Clone, Debug, Default, PartialEq, serde::Deserialize, serde::Serialize)]
        #[serde(deny_unknown_fields)]
        $vis struct $name {
            $($(#[$fm])* $fvis $field: $fty,)*
        }

        impl $name {
            /// Whether the scenario sets the key `key` (`false` for a name that is not one).
            #[allow(dead_code)] // only the TCP family's checks ask
            pub fn is_set(&self, key: &str) -> bool {
                match key {
                    $(stringify!($field) => self.$field.is_some(),)*
                    _ => false,
                }
            }
        }
    };
    (@munch $head:tt [segment $($rest:ident)*] { $($acc:tt)* } $own:tt) => {
        $crate::protocols::transport_keys!(@munch $head [$($rest)*] {
            $($acc)*
            /// Payload bytes per full segment.
            pub mss_bytes: Option<u32>,
            /// Transport + network header bytes added to every packet on the wire.
            pub header_bytes: Option<u32>,
        } $own);
    };
    (@munch $head:tt [init_cwnd $($rest:ident)*] { $($acc:tt)* } $own:tt) => {
        $crate::protocols::transport_keys!(@munch $head [$($rest)*] {
            $($acc)*
            /// Initial congestion window, in segments.
            pub init_cwnd_pkts: Option<u32>,
        } $own);
    };
    (@munch $head:tt [rto $($rest:ident)*] { $($acc:tt)* } $own:tt) => {
        $crate::protocols::transport_keys!(@munch $head [$($rest)*] {
            $($acc)*
            /// Lower bound of the retransmission timeout.
            pub min_rto_us: Option<f64>,
            /// Retransmission timeout before the first RTT sample.
            pub initial_rto_us: Option<f64>,
            /// Upper bound of the retransmission timeout.
            pub max_rto_us: Option<f64>,
        } $own);
    };
    (@munch $head:tt [min_rto $($rest:ident)*] { $($acc:tt)* } $own:tt) => {
        $crate::protocols::transport_keys!(@munch $head [$($rest)*] {
            $($acc)*
            /// Lower bound of the retransmission timeout.
            pub min_rto_us: Option<f64>,
        } $own);
    };
}
pub(crate) use transport_keys;

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
pub(crate) fn segment_sizes(
    mss_bytes: Option<u32>,
    header_bytes: Option<u32>,
) -> ConfigResult<(u32, u32)> {
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
        mss_bytes,
        tcp::DEFAULT_MSS_BYTES,
        MAX_MSS_BYTES,
        "the most an IP packet carries",
    )?;
    let header = check(
        "header_bytes",
        header_bytes,
        tcp::DEFAULT_HEADER_BYTES,
        MAX_HEADER_BYTES,
        "the headers of a packet on the wire; 40 for IPv4 and TCP",
    )?;
    Ok((mss, header))
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

/// The error of `[transport]` with protocol `protocol` and the one key `key` = `value`, read
/// as a scenario's table is ([`Transport::from_config`]); panics if it is accepted.
#[cfg(test)]
pub(crate) fn refused(protocol: &str, key: &str, value: serde_json::Value) -> ConfigError {
    Transport::from_config(&TransportConfig::from_keys(protocol, &[(key, value)]))
        .expect_err("the key is refused")
}
