//! The `[routing]` table and its reading into [`LbParams`]: the keys each path choice takes
//! come from the catalogue ([`LbKind::keys`], checked by [`crate::tagged::read`]), defaults
//! from the module table of [`super`].

use super::{tr, LbKind, PATH_CHOICES};
use crate::error::{ConfigError, ConfigResult};
use crate::rng;
use crate::units::Time;
use crate::validate::{choice, int_within, micros_or};
use serde::{Deserialize, Serialize};

/// The `[routing]` table.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RoutingConfig {
    /// Path choice at switches: a name of [`PATH_CHOICES`].
    #[serde(default = "default_lb")]
    pub lb: String,
    /// Time between a link failing (or recovering) and the routing tables reflecting it.
    #[serde(default)]
    pub reroute_delay_us: f64,
    // Parameters of the path choices ([`LbKind::keys`]); each is refused for a choice that
    // does not use it. Defaults and meaning: the table in [`crate::lb`].
    #[serde(default)]
    pub flowlet_gap_us: Option<f64>,
    #[serde(default)]
    pub flowcell_bytes: Option<u64>,
    #[serde(default)]
    pub reorder_timeout_us: Option<f64>,
    #[serde(default)]
    pub conga_tau_us: Option<f64>,
    #[serde(default)]
    pub conga_metric_bits: Option<u32>,
    #[serde(default)]
    pub conga_aging_us: Option<f64>,
    #[serde(default)]
    pub drill_samples: Option<u32>,
    #[serde(default)]
    pub drill_memory: Option<u32>,
    #[serde(default)]
    pub tr_long_bytes: Option<u64>,
    #[serde(default)]
    pub tr_queue_bits: Option<u32>,
    #[serde(default)]
    pub tr_inactive_us: Option<f64>,
    #[serde(default)]
    pub tr_ack_path: Option<String>,
}

fn default_lb() -> String {
    "ecmp".into()
}

impl Default for RoutingConfig {
    fn default() -> Self {
        RoutingConfig {
            lb: default_lb(),
            reroute_delay_us: 0.0,
            flowlet_gap_us: None,
            flowcell_bytes: None,
            reorder_timeout_us: None,
            conga_tau_us: None,
            conga_metric_bits: None,
            conga_aging_us: None,
            drill_samples: None,
            drill_memory: None,
            tr_long_bytes: None,
            tr_queue_bits: None,
            tr_inactive_us: None,
            tr_ack_path: None,
        }
    }
}

/// Validated `[routing]` parameters of the path choice (defaults in the module table).
#[derive(Clone, Debug, PartialEq)]
pub struct LbParams {
    pub kind: LbKind,
    pub flowlet_gap: Time,
    pub flowcell_bytes: u64,
    pub reorder_timeout: Time,
    pub conga_tau: Time,
    pub conga_metric_bits: u32,
    pub conga_aging: Time,
    pub drill_samples: u32,
    pub drill_memory: u32,
    pub tr_long_bytes: u64,
    pub tr_queue_bits: u32,
    /// `None`: one RTT of the network (see [`tr`]).
    pub tr_inactive: Option<Time>,
    /// `routing.tr_ack_path = "spray"`.
    pub tr_spray_acks: bool,
}

pub const DEFAULT_FLOWLET_GAP_US: f64 = 500.0;
pub const DEFAULT_FLOWCELL_BYTES: u64 = 65_536;
pub const DEFAULT_REORDER_TIMEOUT_US: f64 = 100.0;
pub const DEFAULT_CONGA_TAU_US: f64 = 160.0;
pub const DEFAULT_CONGA_METRIC_BITS: u32 = 3;
pub const DEFAULT_CONGA_AGING_US: f64 = 10_000.0;
pub const DEFAULT_DRILL_SAMPLES: u32 = 2;
pub const DEFAULT_DRILL_MEMORY: u32 = 1;
pub const DEFAULT_TR_LONG_BYTES: u64 = 100_000;
pub const DEFAULT_TR_QUEUE_BITS: u32 = 5;

impl LbParams {
    pub fn from_config(cfg: &RoutingConfig) -> ConfigResult<LbParams> {
        let kind = LbKind::from_name(&cfg.lb).ok_or_else(|| {
            ConfigError::new(
                "routing.lb",
                format!(
                    "unknown path choice '{}'; valid: {}",
                    cfg.lb,
                    PATH_CHOICES
                        .iter()
                        .map(|p| p.0)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
        })?;
        super::catalogue::check_keys(cfg, "routing").expect("lb checked above")?;
        let flowcell_bytes = cfg.flowcell_bytes.unwrap_or(DEFAULT_FLOWCELL_BYTES);
        if flowcell_bytes == 0 {
            return Err(ConfigError::new(
                "routing.flowcell_bytes",
                "must be at least 1 byte (Presto uses 65536, one TSO segment)",
            ));
        }
        Ok(LbParams {
            kind,
            flowlet_gap: micros_or(
                "routing.flowlet_gap_us",
                cfg.flowlet_gap_us,
                DEFAULT_FLOWLET_GAP_US,
            )?,
            flowcell_bytes,
            reorder_timeout: micros_or(
                "routing.reorder_timeout_us",
                cfg.reorder_timeout_us,
                DEFAULT_REORDER_TIMEOUT_US,
            )?,
            conga_tau: micros_or(
                "routing.conga_tau_us",
                cfg.conga_tau_us,
                DEFAULT_CONGA_TAU_US,
            )?,
            conga_metric_bits: int_within(
                "routing.conga_metric_bits",
                cfg.conga_metric_bits,
                DEFAULT_CONGA_METRIC_BITS,
                1,
                8,
            )?,
            conga_aging: micros_or(
                "routing.conga_aging_us",
                cfg.conga_aging_us,
                DEFAULT_CONGA_AGING_US,
            )?,
            drill_samples: int_within(
                "routing.drill_samples",
                cfg.drill_samples,
                DEFAULT_DRILL_SAMPLES,
                1,
                16,
            )?,
            drill_memory: int_within(
                "routing.drill_memory",
                cfg.drill_memory,
                DEFAULT_DRILL_MEMORY,
                0,
                4,
            )?,
            tr_long_bytes: cfg.tr_long_bytes.unwrap_or(DEFAULT_TR_LONG_BYTES),
            tr_queue_bits: int_within(
                "routing.tr_queue_bits",
                cfg.tr_queue_bits,
                DEFAULT_TR_QUEUE_BITS,
                1,
                tr::MAX_QUEUE_BITS,
            )?,
            tr_inactive: cfg
                .tr_inactive_us
                .map(|v| micros_or("routing.tr_inactive_us", Some(v), 0.0))
                .transpose()?,
            tr_spray_acks: choice(
                "routing.tr_ack_path",
                "ACK path",
                cfg.tr_ack_path.as_deref(),
                &[("tr", false), ("spray", true)],
            )?,
        })
    }

    /// Whether every packet of a flow (of a subflow, for M-PDQ) takes one path.
    pub fn keeps_a_flow_on_one_path(&self) -> bool {
        self.kind.keeps_a_flow_on_one_path()
    }

    /// Refuses a path choice that needs another transport (MEMR is MERP's route control), or
    /// that the transport cannot work with: one that keeps state for each flow at the switches
    /// of its path ([`crate::protocols::Transport::keeps_state_along_its_path`]: D3, PDQ, M-PDQ, MERP, PACE)
    /// needs every packet of a (sub)flow on that path. Moved between paths, a flow leaves its
    /// allocation or its place at switches it no longer crosses and takes what it never held
    /// at others. On a k = 4 fat-tree at 80 % load (`bench/identity/matrix_base.toml`), where
    /// every flow of theirs has ended by 0.1 s under ECMP, 38–80 % of PDQ's, M-PDQ's and
    /// MERP's flows were still running after 0.5 s under RPS, Presto and DRILL, and under
    /// Presto and CONGA a few D3 flows never ended. PACE's flows all end, but its credits no
    /// longer describe its data: the ports that granted them never see the data that spends
    /// them elsewhere (their outstanding credits wait to expire), and the ports that carry it
    /// granted nothing. Under RPS and DRILL its mean FCT there was 14.3 and 15.5 ms against
    /// 4.9 under ECMP, with 380 000 and 450 000 segments resent (its receiver takes data in
    /// order only, as on one lossless path).
    /// `protocol` is the transport's name; the caller (set-up, above both) asks the transport.
    pub fn check_transport(
        &self,
        protocol: &str,
        keeps_state_along_its_path: bool,
    ) -> ConfigResult<()> {
        if keeps_state_along_its_path && !self.keeps_a_flow_on_one_path() {
            return Err(ConfigError::new(
                "routing.lb",
                format!(
                    "'{}' moves a flow's packets between paths, but '{protocol}' keeps state \
                     for each flow at the switches of its path and needs all of a flow's \
                     packets there: use ecmp (or bcube_paths on a BCube{})",
                    self.kind.name(),
                    if protocol == "merp" { ", or memr" } else { "" }
                ),
            ));
        }
        if self.kind == LbKind::Memr && protocol != "merp" {
            return Err(ConfigError::new(
                "routing.lb",
                format!(
                    "'memr' is MERP's route control and reads MERP's switch flow tables: it needs \
                     transport.protocol = \"merp\" (this scenario runs '{protocol}'); use ecmp \
                     or another path choice"
                ),
            ));
        }
        Ok(())
    }

    /// Bytes the path choice's state takes ([`super::PathChoice::new`]) on a network of `nodes`
    /// nodes, `hosts` hosts and `ports` ports, whose hosts hang off `leaves` edge switches of
    /// at most `width` uplinks, carrying `flows` flows: per node (hash seeds, random
    /// streams), per flow direction (DRB, Presto, LetFlow, CONGA, TR), per pair of leaves
    /// (CONGA, TR) and per (node, host) (DRILL's memory). For the memory estimate
    /// ([`crate::budget`]); the element sizes are those of the schemes' records.
    pub fn state_bytes(
        &self,
        nodes: f64,
        hosts: f64,
        ports: f64,
        leaves: f64,
        width: f64,
        flows: f64,
    ) -> f64 {
        let rng = std::mem::size_of::<rng::StreamRng>() as f64;
        let edge = 8.0 * hosts; // SourceEdge: node and edge of each host
        match self.kind {
            LbKind::Ecmp | LbKind::Memr => 8.0 * nodes,
            LbKind::Rps => rng * nodes,
            LbKind::Drb => edge + 2.0 * flows * 2.0,
            LbKind::Presto => edge + 2.0 * flows * 16.0,
            LbKind::LetFlow => edge + 2.0 * flows * 24.0 + rng * nodes,
            LbKind::Conga => {
                // Its width is the leaf-to-leaf paths (up to 255): (k/2)² on a fat-tree,
                // whose edge switches have k links.
                let paths = (width / 2.0).powi(2).clamp(1.0, 255.0);
                edge + 2.0 * flows * 24.0
                    + (rng + 4.0) * nodes
                    + 24.0 * ports
                    + leaves * leaves * (paths * 27.0 + 4.0)
            }
            LbKind::Drill => rng * nodes + nodes * hosts * self.drill_memory as f64 * 4.0,
            LbKind::Tr => {
                edge + (rng + 5.0) * nodes
                    + 38.0 * ports
                    + leaves * leaves * width * 24.0
                    + flows * width * 8.0
                    + 2.0 * flows * 24.0
            }
            LbKind::BcubePaths => 16.0 * nodes + rng * nodes,
        }
    }

    /// Refuses a path choice that cannot work on the scenario's topology kind.
    pub fn check_topology(&self, topology_kind: &str) -> ConfigResult<()> {
        if self.kind == LbKind::BcubePaths && topology_kind != "bcube" {
            return Err(ConfigError::new(
                "routing.lb",
                format!(
                    "'bcube_paths' forwards along BCube's address-based parallel paths and \
                     needs topology.kind = \"bcube\" (this topology is '{topology_kind}'); \
                     use another path choice such as ecmp"
                ),
            ));
        }
        if self.kind == LbKind::Tr && topology_kind != "leafspine" {
            return Err(ConfigError::new(
                "routing.lb",
                format!(
                    "'tr' predicts each packet's arrival at the next leaf over one spine and \
                     needs topology.kind = \"leafspine\" (this topology is '{topology_kind}'); \
                     use another path choice such as ecmp"
                ),
            ));
        }
        Ok(())
    }
}
