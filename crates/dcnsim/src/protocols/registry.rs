//! The one list of transports, and what each must tell the engine.
//!
//! A transport is a parameter type that implements [`Protocol`]: its names, its own
//! `[transport]` keys ([`Protocol::Config`], a struct in its folder) and how it validates them,
//! what it needs of the network ([`Caps`]), and its sender, receiver and switch agent. The
//! macro `transports!` takes one line per transport and generates the enums the engine holds
//! ([`Transport`], [`Sender`], [`Receiver`], [`SwitchAgent`]), the typed keys
//! ([`TransportKeys`]), the catalogue [`PROTOCOLS`] and the `match` dispatch between them.
//! Dispatch stays by enum, not by trait object: it is on the per-packet path and inlines.
//! Adding a transport touches its folder and one line here, not a shared table of keys.
//!
//! ## Reading `[transport]`
//!
//! The scenario holds the table raw ([`TransportConfig`]: `protocol` and the other keys).
//! [`TransportKeys::read`] picks the transport by `protocol` and reads the other keys into its
//! `Config` with [`crate::tagged::read`]: a key it does not declare is refused at
//! `transport.<key>`, listing its keys. [`TransportKeys::transport`] validates them into the
//! [`Transport`].
//!
//! ## Defaults from the network
//!
//! A transport whose defaults depend on the network ([`Caps::derives_defaults_from_network`])
//! fills them into a copy of its keys ([`TransportKeys::with_network_defaults`]), which
//! `run::prepare` validates again and keeps as the keys the run used; `scenario.json` writes
//! those (the keys set plus the derived ones), while the scenario's own table is left as
//! given.

use super::agent::SwitchHooks;
use super::endpoint::{Endpoint, EndpointEvent, ReceiverEndpoint, SenderEndpoint, SenderStats};
use super::{FlowSetup, TransportConfig};
use crate::error::{ConfigError, ConfigResult};
use crate::net::network::{Network, Port};
use crate::net::packet::Packet;
use crate::net::queue::Discipline;
use crate::net::scale::PathScale;
use crate::net::{NodeIdx, PortIdx};
use crate::units::{Rate, Time};
use crate::workload::FlowSpec;
use serde::de::DeserializeOwned;
use serde::Serialize;

/// A transport: a validated parameter set that makes the endpoints of each flow and the
/// switch agent of the network.
pub trait Protocol: Sized {
    /// The `transport.protocol` names this transport reads, each with its `dcnsim list` line.
    const NAMES: &'static [(&'static str, &'static str)];
    /// The [`WireHeader::TAG`](crate::net::header::WireHeader::TAG) of every header type it
    /// puts in packets (none for TCP's plain variants): distinct across the registry, so that
    /// no transport's header reads as another's (a test checks).
    const HEADER_TAGS: &'static [u8];
    type Sender: SenderEndpoint;
    type Receiver: ReceiverEndpoint;
    /// The switch half ([`NoAgent`] for a transport without one).
    type Agent: SwitchHooks;

    /// The `[transport]` keys this transport reads, declared with
    /// `transport_keys!` (in `protocols`): its field names are the keys
    /// [`TransportKeys::read`] accepts under this transport's names.
    type Config: DeserializeOwned + Serialize + Default + Clone + std::fmt::Debug + PartialEq;

    /// Validates the keys `cfg` of `[transport]`, whose `protocol` is `name`, one of
    /// [`Self::NAMES`].
    fn from_config(name: &str, cfg: &Self::Config) -> ConfigResult<Self>;

    /// The name of this parameter set, one of [`Self::NAMES`].
    fn name(&self) -> &'static str {
        Self::NAMES[0].0
    }

    fn caps(&self) -> Caps;

    /// The marking threshold, in packets, of a port of this rate whose link sets none (for a
    /// transport that uses ECN).
    fn default_ecn_k_pkts(&self, rate: Rate) -> Option<u32> {
        let _ = rate;
        None
    }

    /// Fills the keys `cfg` leaves unset that are defined relative to the network
    /// ([`Caps::derives_defaults_from_network`]), from the scale of its longest path (`None`
    /// when no two hosts are connected) and its ports. `cfg` is a copy of the scenario's keys
    /// ([`TransportKeys::with_network_defaults`]), never the scenario itself.
    fn network_defaults(&self, cfg: &mut Self::Config, scale: Option<&PathScale>, net: &Network) {
        let _ = (cfg, scale, net);
    }

    /// The sender of `flow`, whose host sends at `nic_rate` (its first port's line rate).
    fn new_sender(&self, flow: &FlowSetup, nic_rate: Rate) -> Self::Sender;

    fn new_receiver(&self, flow: &FlowSetup) -> Self::Receiver;

    /// The subflows a flow of `size` payload bytes is split into (M-PDQ); 1 by default.
    fn subflows_of(&self, size: u64) -> u32 {
        let _ = size;
        1
    }

    /// The path entropy of subflow `sub` of a flow whose own is `flow_key` (the flow's for a
    /// transport that does not split flows). The flow-level model routes subflows by it.
    fn subflow_path_key(&self, flow_key: u32, sub: u32) -> u32 {
        let _ = sub;
        flow_key
    }

    /// Refuses, at packet level, a network some link of which its header cannot describe
    /// (D3's 16-bit rate fields). `rates`: every port's rate.
    fn check_link_rates(&self, rates: &mut dyn Iterator<Item = Rate>) -> ConfigResult<()> {
        let _ = rates;
        Ok(())
    }

    /// Refuses flows it cannot carry (PACE: weights its header cannot hold).
    fn check_flows(&self, flows: &[FlowSpec]) -> ConfigResult<()> {
        let _ = flows;
        Ok(())
    }

    /// The switch agent of this network, if the transport has switch logic. `memr`: the path
    /// choice is MERP's route control, which MERP's agent carries out.
    fn new_agent(&self, net: &Network, memr: bool) -> Option<Self::Agent> {
        let _ = (net, memr);
        None
    }
}

/// What a transport needs of the network and the engines. Every transport states each field
/// (there is no default to forget: RPS would spray the packets of a protocol that keeps
/// per-flow state at switches if `keeps_state_along_its_path` were left out).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Caps {
    /// Payload and header bytes of a full data packet on the wire (for the ideal FCT).
    pub data_packet_sizes: (u32, u32),
    /// The queue discipline of every port (switches and host NICs).
    pub discipline: Discipline,
    /// Buffer of every port, in packets, when the scenario sets none (`None`: the topology's
    /// default).
    pub default_buffer_pkts: Option<u64>,
    /// Whether the data packets are ECN-capable (only those are ever marked).
    pub uses_ecn: bool,
    /// Whether the switches keep state for each flow (or request) at the ports of its path,
    /// so that every packet of a (sub)flow must take one path.
    pub keeps_state_along_its_path: bool,
    /// Whether some defaults are defined relative to the network
    /// ([`Protocol::network_defaults`]): then the network is measured before the run.
    pub derives_defaults_from_network: bool,
    /// How the flow-level model shares rates among this transport's flows.
    pub fluid: FluidPolicy,
    /// What its flows take of memory at packet level, for the estimate that refuses a run too
    /// large before it starts ([`crate::budget`]).
    pub memory: FlowMemory,
}

/// What a transport's flows take of memory at packet level, measured (peak RSS of runs of
/// 10⁵–10⁶ flows and of incasts, against the estimate: `docs/performance.md`, "Memory budget").
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlowMemory {
    /// Bytes per flow for the whole run: its spec, its state, its record and its line of
    /// `flows.csv`.
    pub per_flow: f64,
    /// Which flows hold their endpoints at once, and what each holds.
    pub at_once: AtOnce,
}

impl FlowMemory {
    /// A transport whose endpoints live while the flow sends: ≈ 410 B per flow and ≈ 1 000 B
    /// per active flow measured with TCP (10⁵–10⁶ flows; an incast of 150 000), with margins.
    pub const WHILE_SENDING: FlowMemory = FlowMemory {
        per_flow: 450.0,
        at_once: AtOnce::Active { bytes: 1100.0 },
    };
}

/// Which flows hold their endpoints (and their state at switches) at once.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AtOnce {
    /// Those certainly active: each from its start for its size at its host's line rate,
    /// `bytes` each.
    Active { bytes: f64 },
    /// Every started flow: the links hold a flow paused until its turn, for as long as the
    /// protocol's own pace makes it wait, which no bound from the flows alone gives (a
    /// ceiling). `bytes` each, and `per_extra_subflow` for each subflow beyond the first
    /// ([`Protocol::subflows_of`]).
    EveryStarted { bytes: f64, per_extra_subflow: f64 },
}

/// How the rates of the flows present are shared out in the flow-level model
/// ([`crate::flowsim`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FluidPolicy {
    /// Max-min fair (TCP and its variants, RCP).
    MaxMin,
    /// D3's greedy first-come first-served allocation of desired rates plus fair share, in
    /// whole units of `unit_bps` bit/s.
    D3 { quench: bool, unit_bps: u64 },
    /// Weighted max-min by `FlowSpec::weight` (PACE).
    WeightedMaxMin,
    /// Preemptive shortest remaining size first, per link (pFabric).
    Srpt,
    /// Preemptive priority by PDQ's comparator: earliest deadline, then smallest remaining;
    /// `aging_rate`: flow aging's α (0: none).
    Pdq {
        early_termination: bool,
        aging_rate: f64,
    },
    /// Preemptive priority by MERP's virtual deadlines (VDG per link, smallest esr of a path).
    Merp,
}

/// The switch agent of a transport without switch logic: it is never made.
pub enum NoAgent {}

impl SwitchHooks for NoAgent {}

/// Generates, from one `Variant => ParamType` line per transport, the enums [`Transport`],
/// [`Sender`], [`Receiver`] and [`SwitchAgent`], the catalogue [`PROTOCOLS`] and their
/// dispatch.
macro_rules! transports {
    ($($variant:ident => $params:ty),+ $(,)?) => {
        /// A validated transport choice, from which the engine makes endpoints and switch
        /// settings.
        #[derive(Clone, Debug, PartialEq)]
        pub enum Transport {
            $($variant($params)),+
        }

        /// A flow's sender, of its transport.
        pub enum Sender {
            $($variant(<$params as Protocol>::Sender)),+
        }

        /// A flow's receiver, of its transport.
        pub enum Receiver {
            $($variant(<$params as Protocol>::Receiver)),+
        }

        /// The switch half of the transport, holding the state of every port
        /// ([`crate::protocols::agent`]).
        pub enum SwitchAgent {
            $($variant(<$params as Protocol>::Agent)),+
        }

        /// The protocols this build knows, with one line each (for `dcnsim list`), in the
        /// order of the registry.
        pub const PROTOCOLS: &[(&str, &str)] = &{
            const N: usize = 0 $(+ <$params as Protocol>::NAMES.len())+;
            let mut all = [("", ""); N];
            let mut i = 0;
            $(
                let names = <$params as Protocol>::NAMES;
                let mut j = 0;
                while j < names.len() {
                    all[i] = names[j];
                    i += 1;
                    j += 1;
                }
            )+
            all
        };

        /// Each transport's header tags ([`Protocol::HEADER_TAGS`]), for the test that they
        /// are distinct.
        #[cfg(test)]
        const HEADER_TAGS: &[(&str, &[u8])] =
            &[$((stringify!($variant), <$params as Protocol>::HEADER_TAGS)),+];

        /// A `[transport]` table read into its protocol's own keys ([`Protocol::Config`]),
        /// with the protocol's name: the keys the scenario sets, and after
        /// [`with_network_defaults`](Self::with_network_defaults) the defaults the network
        /// gives too.
        #[derive(Clone, Debug, PartialEq)]
        pub enum TransportKeys {
            $($variant(&'static str, <$params as Protocol>::Config)),+
        }

        impl TransportKeys {
            /// Reads `cfg` by its `protocol`: a protocol this build does not know, a key the
            /// protocol does not read (listing those it reads) and a value of the wrong type
            /// are refused, naming the key path. A key set to `null` (JSON) is unset, if some
            /// transport reads it: an older `scenario.json` wrote every key so.
            pub fn read(cfg: &TransportConfig) -> ConfigResult<TransportKeys> {
                refuse_moved_keys(cfg)?;
                let known = Self::all_keys();
                let mut keys = cfg.keys.clone();
                keys.retain(|k, v| {
                    !(v.is_null() && (known.contains(&k.as_str()) || k == "ecn_k_pkts"))
                });
                $(
                    let names = <$params as Protocol>::NAMES;
                    if let Some(&(name, _)) = names.iter().find(|(n, _)| *n == cfg.protocol) {
                        let variant = format!("protocol '{name}'");
                        let c = crate::tagged::read("transport", &variant, &keys)?;
                        return Ok(TransportKeys::$variant(name, c));
                    }
                )+
                Err(ConfigError::new(
                    "transport.protocol",
                    format!(
                        "unknown protocol '{}'; valid: {}",
                        cfg.protocol,
                        PROTOCOLS.iter().map(|p| p.0).collect::<Vec<_>>().join(", ")
                    ),
                ))
            }

            /// Every key some transport of the registry reads.
            pub fn all_keys() -> Vec<&'static str> {
                let mut all = Vec::new();
                $(all.extend(crate::tagged::field_names::<<$params as Protocol>::Config>());)+
                all
            }

            /// The `transport.protocol` name.
            pub fn name(&self) -> &'static str {
                match self { $(TransportKeys::$variant(n, _) => n),+ }
            }

            /// The keys this protocol reads, in the order its type declares them.
            pub fn valid_keys(&self) -> &'static [&'static str] {
                match self {
                    $(TransportKeys::$variant(..) => {
                        crate::tagged::field_names::<<$params as Protocol>::Config>()
                    })+
                }
            }

            /// Validates the keys into the transport.
            pub fn transport(&self) -> ConfigResult<Transport> {
                match self {
                    $(TransportKeys::$variant(n, c) => {
                        Ok(Transport::$variant(<$params as Protocol>::from_config(n, c)?))
                    })+
                }
            }

            /// A copy of these keys with the unset ones that `transport` (read from them)
            /// defines relative to the network filled in ([`Protocol::network_defaults`]).
            /// Keys the scenario sets win.
            pub fn with_network_defaults(
                &self,
                transport: &Transport,
                scale: Option<&PathScale>,
                net: &Network,
            ) -> TransportKeys {
                let mut keys = self.clone();
                match (&mut keys, transport) {
                    $((TransportKeys::$variant(_, c), Transport::$variant(p)) => {
                        p.network_defaults(c, scale, net)
                    })+
                    _ => panic!("keys of protocol {} for transport {}", self.name(), transport.name()),
                }
                keys
            }

            /// The keys set, as a `[transport]` table (what `scenario.json` writes).
            pub fn to_table(&self) -> TransportConfig {
                let value = match self {
                    $(TransportKeys::$variant(_, c) => serde_json::to_value(c)),+
                }
                .expect("transport keys always serialise");
                let serde_json::Value::Object(mut keys) = value else {
                    unreachable!("a struct serialises to an object")
                };
                keys.retain(|_, v| !v.is_null());
                TransportConfig { protocol: self.name().into(), keys }
            }
        }

        impl Transport {
            /// Reads and validates `[transport]` ([`TransportKeys::read`]), with the defaults
            /// that need no network.
            pub fn from_config(cfg: &TransportConfig) -> ConfigResult<Transport> {
                TransportKeys::read(cfg)?.transport()
            }

            pub fn name(&self) -> &'static str {
                match self { $(Transport::$variant(p) => p.name()),+ }
            }

            pub fn caps(&self) -> Caps {
                match self { $(Transport::$variant(p) => p.caps()),+ }
            }

            /// See [`Protocol::subflows_of`].
            pub fn subflows_of(&self, size: u64) -> u32 {
                match self { $(Transport::$variant(p) => p.subflows_of(size)),+ }
            }

            /// See [`Protocol::subflow_path_key`].
            pub fn subflow_path_key(&self, flow_key: u32, sub: u32) -> u32 {
                match self { $(Transport::$variant(p) => p.subflow_path_key(flow_key, sub)),+ }
            }

            /// See [`Protocol::check_link_rates`].
            pub fn check_link_rates(
                &self,
                rates: &mut dyn Iterator<Item = Rate>,
            ) -> ConfigResult<()> {
                match self { $(Transport::$variant(p) => p.check_link_rates(rates)),+ }
            }

            /// See [`Protocol::check_flows`].
            pub fn check_flows(&self, flows: &[FlowSpec]) -> ConfigResult<()> {
                match self { $(Transport::$variant(p) => p.check_flows(flows)),+ }
            }

            pub fn default_ecn_k_pkts(&self, rate: Rate) -> Option<u32> {
                match self { $(Transport::$variant(p) => p.default_ecn_k_pkts(rate)),+ }
            }

            pub fn new_sender(&self, flow: &FlowSetup, nic_rate: Rate) -> Sender {
                match self {
                    $(Transport::$variant(p) => Sender::$variant(p.new_sender(flow, nic_rate))),+
                }
            }

            pub fn new_receiver(&self, flow: &FlowSetup) -> Receiver {
                match self {
                    $(Transport::$variant(p) => Receiver::$variant(p.new_receiver(flow))),+
                }
            }
        }

        impl SwitchAgent {
            /// The agent of `transport` for this network, if the protocol has switch logic.
            /// `memr`: the path choice is MERP's route control.
            pub fn new(transport: &Transport, net: &Network, memr: bool) -> Option<SwitchAgent> {
                match transport {
                    $(Transport::$variant(p) => p.new_agent(net, memr).map(SwitchAgent::$variant)),+
                }
            }

            /// A packet is offered to `port`'s queue (see the module doc of `agent`).
            pub fn on_enqueue(
                &mut self,
                now: Time,
                port: PortIdx,
                at: &Port,
                pkt: &mut Packet,
            ) -> Admission {
                match self { $(SwitchAgent::$variant(a) => a.on_enqueue(now, port, at, pkt)),+ }
            }

            /// The egress port `pkt` takes at `node` when the agent decides its route, or
            /// `None` for the path choice among `candidates`.
            #[inline]
            pub fn route(
                &mut self,
                now: Time,
                node: NodeIdx,
                pkt: &Packet,
                candidates: &[PortIdx],
                ports: &[Port],
            ) -> Option<PortIdx> {
                match self {
                    $(SwitchAgent::$variant(a) => a.route(now, node, pkt, candidates, ports)),+
                }
            }

            /// A packet leaves `port`'s queue and starts serialising.
            pub fn on_dequeue(&mut self, now: Time, port: PortIdx, at: &Port, pkt: &mut Packet) {
                match self { $(SwitchAgent::$variant(a) => a.on_dequeue(now, port, at, pkt)),+ }
            }

            /// When the agent next wants [`handle_timeout`](Self::handle_timeout).
            pub fn poll_timeout(&self) -> Option<Time> {
                match self { $(SwitchAgent::$variant(a) => a.poll_timeout()),+ }
            }

            /// Periodic work due at `now`; `ports` is every port of the network, by index.
            pub fn handle_timeout(&mut self, now: Time, ports: &[Port]) {
                match self { $(SwitchAgent::$variant(a) => a.handle_timeout(now, ports)),+ }
            }
        }

        impl Sender {
            /// Called once at the flow's start time.
            pub fn start(&mut self, now: Time) {
                match self { $(Sender::$variant(s) => s.start(now)),+ }
            }
            /// See [`Endpoint::abort`].
            pub fn abort(&mut self, now: Time) -> bool {
                match self { $(Sender::$variant(s) => s.abort(now)),+ }
            }
            /// See [`SenderEndpoint::is_closing`].
            pub fn is_closing(&self) -> bool {
                match self { $(Sender::$variant(s) => s.is_closing()),+ }
            }
            pub fn handle_packet(&mut self, now: Time, pkt: &Packet) {
                match self { $(Sender::$variant(s) => s.handle_packet(now, pkt)),+ }
            }
            pub fn handle_timeout(&mut self, now: Time) {
                match self { $(Sender::$variant(s) => s.handle_timeout(now)),+ }
            }
            pub fn poll_transmit(&mut self, now: Time) -> Option<Packet> {
                match self { $(Sender::$variant(s) => s.poll_transmit(now)),+ }
            }
            pub fn poll_timeout(&self) -> Option<Time> {
                match self { $(Sender::$variant(s) => s.poll_timeout()),+ }
            }
            pub fn poll_event(&mut self) -> Option<EndpointEvent> {
                match self { $(Sender::$variant(s) => s.poll_event()),+ }
            }
            pub fn stats(&self) -> SenderStats {
                match self { $(Sender::$variant(s) => s.stats()),+ }
            }
            /// Congestion window in bytes, for traces (protocols without one report 0).
            pub fn cwnd_bytes(&self) -> u64 {
                match self { $(Sender::$variant(s) => s.cwnd()),+ }
            }
            /// See [`SenderEndpoint::bytes_in_flight`].
            pub fn bytes_in_flight(&self) -> u64 {
                match self { $(Sender::$variant(s) => s.bytes_in_flight()),+ }
            }
            /// See [`SenderEndpoint::snd_una`].
            pub fn snd_una(&self) -> u64 {
                match self { $(Sender::$variant(s) => s.snd_una()),+ }
            }
        }

        impl Receiver {
            /// See [`Endpoint::abort`].
            pub fn abort(&mut self, now: Time) -> bool {
                match self { $(Receiver::$variant(r) => r.abort(now)),+ }
            }
            pub fn handle_packet(&mut self, now: Time, pkt: &Packet) {
                match self { $(Receiver::$variant(r) => r.handle_packet(now, pkt)),+ }
            }
            pub fn handle_timeout(&mut self, now: Time) {
                match self { $(Receiver::$variant(r) => r.handle_timeout(now)),+ }
            }
            pub fn poll_transmit(&mut self, now: Time) -> Option<Packet> {
                match self { $(Receiver::$variant(r) => r.poll_transmit(now)),+ }
            }
            pub fn poll_timeout(&self) -> Option<Time> {
                match self { $(Receiver::$variant(r) => r.poll_timeout()),+ }
            }
            pub fn poll_event(&mut self) -> Option<EndpointEvent> {
                match self { $(Receiver::$variant(r) => r.poll_event()),+ }
            }
            /// Payload bytes delivered in order to the application so far.
            pub fn bytes_delivered(&self) -> u64 {
                match self { $(Receiver::$variant(r) => r.bytes_delivered()),+ }
            }
        }
    };
}

use super::agent::Admission;
use super::{d3, merp, pace, pdq, pfabric, rcp, tcp};

// The registry: one line per transport, in the order `dcnsim list` shows them.
transports! {
    Tcp => tcp::TcpParams,
    Pfabric => pfabric::PfabricParams,
    Pdq => pdq::PdqParams,
    Rcp => rcp::RcpParams,
    D3 => d3::D3Params,
    Merp => merp::MerpParams,
    Pace => pace::PaceParams,
}

/// Keys that have moved out of `[transport]`, refused with where they went.
fn refuse_moved_keys(cfg: &TransportConfig) -> ConfigResult<()> {
    if cfg.keys.get("ecn_k_pkts").is_some_and(|v| !v.is_null()) {
        return Err(ConfigError::new(
            "transport.ecn_k_pkts",
            "has moved: the ECN marking threshold belongs to the switch queues, beside the \
             buffer; set topology.ecn_k_pkts (every port) or ecn_k_pkts in a \
             [[topology.link_overrides]] entry (one link)",
        ));
    }
    Ok(())
}

impl Transport {
    /// Payload and header bytes of a full data packet ([`Caps::data_packet_sizes`]).
    pub fn data_packet_sizes(&self) -> (u32, u32) {
        self.caps().data_packet_sizes
    }

    /// The queue discipline of every port ([`Caps::discipline`]).
    pub fn discipline(&self) -> Discipline {
        self.caps().discipline
    }

    /// [`Caps::default_buffer_pkts`].
    pub fn default_buffer_pkts(&self) -> Option<u64> {
        self.caps().default_buffer_pkts
    }

    /// [`Caps::keeps_state_along_its_path`]: D3's allocations, PDQ's and M-PDQ's flow lists,
    /// MERP's flow tables, PACE's grants and outstanding credits. Such a protocol needs every
    /// packet of a (sub)flow on one path.
    pub fn keeps_state_along_its_path(&self) -> bool {
        self.caps().keeps_state_along_its_path
    }

    /// [`Caps::derives_defaults_from_network`]: pFabric's window and RTO, RCP's initial RTT
    /// and β, D3's rate unit and capacity adjustment, MERP's RTT, MCP-Opt's intervals.
    pub fn derives_defaults_from_network(&self) -> bool {
        self.caps().derives_defaults_from_network
    }

    /// [`Caps::uses_ecn`].
    pub fn uses_ecn(&self) -> bool {
        self.caps().uses_ecn
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn header_tags_are_distinct_and_not_the_empty_slot() {
        let mut seen: Vec<(u8, &str)> = Vec::new();
        for &(transport, tags) in HEADER_TAGS {
            for &tag in tags {
                assert_ne!(tag, 0, "{transport}: tag 0 is the empty slot");
                if let Some((_, other)) = seen.iter().find(|(t, _)| *t == tag) {
                    panic!("{transport} and {other} both use header tag {tag}");
                }
                seen.push((tag, transport));
            }
        }
    }

    /// Under every protocol of the catalogue, a key no transport reads and a key of another
    /// transport are refused naming `transport.<key>` and listing the protocol's keys.
    #[test]
    fn a_key_the_protocol_does_not_read_is_refused_naming_it_and_listing_its_keys() {
        let all = TransportKeys::all_keys();
        for &(name, _) in PROTOCOLS {
            let keys = TransportKeys::read(&TransportConfig::from_keys(name, &[])).unwrap();
            assert_eq!(keys.name(), name);
            let valid = keys.valid_keys();
            assert!(valid.contains(&"mss_bytes"), "{name}: {valid:?}");
            let foreign = all.iter().find(|k| !valid.contains(k)).unwrap();
            for key in ["no_such_key", foreign] {
                let cfg = TransportConfig::from_keys(name, &[(key, json!(1))]);
                let e = Transport::from_config(&cfg).unwrap_err();
                assert_eq!(e.path, format!("transport.{key}"), "{name}");
                assert_eq!(
                    e.message,
                    format!(
                        "not used by protocol '{name}'; its keys are: {}",
                        valid.join(", ")
                    ),
                );
            }
            // Each of its own keys is read (a string is the wrong type for every one of
            // them), with its path.
            for key in valid {
                let cfg = TransportConfig::from_keys(name, &[(key, json!([]))]);
                let e = Transport::from_config(&cfg).unwrap_err();
                assert_eq!(e.path, format!("transport.{key}"), "{name}");
                assert!(e.message.contains("invalid type"), "{name}: {e}");
            }
        }
    }

    /// A key set to `null` is unset if some transport reads it (older `scenario.json` files
    /// wrote all of them so); a `null` key no transport reads is still refused.
    #[test]
    fn null_is_unset_for_a_known_key_only() {
        let cfg = TransportConfig::from_keys("tcp", &[("rcp_alpha", json!(null))]);
        let t = Transport::from_config(&cfg).unwrap();
        assert_eq!(
            t,
            Transport::from_config(&TransportConfig::from_keys("tcp", &[])).unwrap()
        );
        let cfg = TransportConfig::from_keys("tcp", &[("rcp_alfa", json!(null))]);
        assert_eq!(
            Transport::from_config(&cfg).unwrap_err().path,
            "transport.rcp_alfa"
        );
    }

    /// The keys read back from their table are the same keys.
    #[test]
    fn keys_round_trip_through_their_table() {
        let cfg = TransportConfig::from_keys(
            "mpdq",
            &[("subflows", json!(3)), ("pdq_dampening", json!(false))],
        );
        let keys = TransportKeys::read(&cfg).unwrap();
        assert_eq!(keys.to_table(), cfg);
        assert_eq!(TransportKeys::read(&keys.to_table()).unwrap(), keys);
    }
}
