//! The offered load the flows of a run realise, next to the nominal `workload.load`
//! (`summary.json`'s `load` and `warnings`).
//!
//! A heavy-tailed size distribution (web search, data mining) gives samples whose mean size is
//! far from the distribution's: a few thousand flows can offer 0.5 or 0.76 at a nominal 0.7.
//! This is measured from the flows alone, before the run, so it says what was offered, not what
//! the network carried (`ports.csv` has that).
//!
//! **Window.** From the workload's start (`workload.start_s`, 0 by default) to the last flow's
//! arrival. A Poisson workload's first flow arrives one gap after `start_s`, so the window
//! holds exactly as many gaps as flows: bytes over the window is then an unbiased measure of the
//! rate the generator aimed at (first-to-last arrival would miss one gap and read N/(N−1) high).
//! With a window of zero (all flows at one instant: incast, permutation) no load is defined and
//! the loads are null.
//!
//! **Per host link.** Host `h`'s uplink load = 8 × bytes of the flows `h` sends / (its link
//! rate × window); its downlink load likewise with the bytes it receives and the rate into it.
//! A host with several links (BCube) counts their rates together. The most loaded link is the
//! largest of these (the first in host order, uplinks before downlinks, on a tie); fabric links
//! are not counted, as their share depends on path choice.
//!
//! **Aggregate and warning.** `realised` = 8 × all bytes / (senders × host rate × window), in
//! the terms of the generator's λ (`senders` as it counts them: every host, or the
//! `src_group`), so it compares directly with `workload.load`. When it differs from the
//! nominal by more than [`DRIFT_WARN`] (relative) the summary carries a warning, and the
//! command-line run prints it on stderr: the sample's mean size is off the distribution's, and
//! results at this "load" are results at another one.

use crate::topo::TopoSpec;
use crate::units::{num, Rate, Time};
use crate::workload::FlowSpec;
use serde_json::{json, Value};

/// Relative drift of the realised load from the nominal above which a run warns (5 %).
pub const DRIFT_WARN: f64 = 0.05;

/// One host's access links, and the bytes its flows offer them.
#[derive(Clone, Debug, PartialEq)]
pub struct HostLinks {
    /// Names of the host's link(s): `h3->tor0` and `tor0->h3`, or `h3 (2 links)`.
    pub up_name: String,
    pub down_name: String,
    pub up_rate: Rate,
    pub down_rate: Rate,
    pub sent_bytes: u64,
    pub received_bytes: u64,
}

/// The load the flows offer (see the module doc).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OfferedLoad {
    /// `workload.load` of a Poisson workload, default applied; `None` for other kinds.
    pub nominal: Option<f64>,
    /// The generator's sending hosts (Poisson), else the hosts that send at least one flow.
    pub senders: usize,
    /// The rate `workload.load` is a fraction of (the first host's link).
    pub host_rate: Rate,
    pub window: (Time, Time),
    pub bytes: u64,
    pub hosts: Vec<HostLinks>,
}

impl OfferedLoad {
    /// The load `flows` offer on `topo`'s host links. `nominal` and `senders` are the Poisson
    /// workload's (`None` otherwise); `start` is `workload.start_s`.
    pub fn of(
        topo: &TopoSpec,
        flows: &[FlowSpec],
        start: Time,
        host_rate: Rate,
        nominal: Option<f64>,
        senders: Option<usize>,
    ) -> OfferedLoad {
        // One pass over the links: per node, the rates out of and into it, its links, and
        // the peer of its first link.
        let n = topo.nodes.len();
        let (mut up, mut down) = (vec![0u64; n], vec![0u64; n]);
        let (mut links, mut peer) = (vec![0usize; n], vec![0usize; n]);
        for l in &topo.links {
            for (from, to, out, into) in [
                (l.a, l.b, l.rate_ab, l.rate_ba),
                (l.b, l.a, l.rate_ba, l.rate_ab),
            ] {
                up[from] += out.bits_per_sec();
                down[from] += into.bits_per_sec();
                if links[from] == 0 {
                    peer[from] = to;
                }
                links[from] += 1;
            }
        }
        let mut hosts: Vec<HostLinks> = topo
            .hosts
            .iter()
            .map(|&h| {
                let name = &topo.nodes[h].name;
                let (up_name, down_name) = match links[h] {
                    1 => {
                        let peer = &topo.nodes[peer[h]].name;
                        (format!("{name}->{peer}"), format!("{peer}->{name}"))
                    }
                    k => {
                        let all = format!("{name} ({k} links)");
                        (all.clone(), all)
                    }
                };
                HostLinks {
                    up_name,
                    down_name,
                    up_rate: Rate::bps(up[h]),
                    down_rate: Rate::bps(down[h]),
                    sent_bytes: 0,
                    received_bytes: 0,
                }
            })
            .collect();
        for f in flows {
            hosts[f.src as usize].sent_bytes += f.size_bytes;
            hosts[f.dst as usize].received_bytes += f.size_bytes;
        }
        let end = flows.iter().map(|f| f.start).max().unwrap_or(start);
        OfferedLoad {
            nominal,
            senders: senders.unwrap_or_else(|| hosts.iter().filter(|h| h.sent_bytes > 0).count()),
            host_rate,
            window: (start, end.max(start)),
            bytes: flows.iter().map(|f| f.size_bytes).sum(),
            hosts,
        }
    }

    fn window_s(&self) -> Option<f64> {
        let w = (self.window.1 - self.window.0).as_secs_f64();
        (w > 0.0).then_some(w)
    }

    fn fraction(&self, bytes: u64, rate: Rate) -> Option<f64> {
        let bps = rate.bits_per_sec();
        (bps > 0).then_some(())?;
        Some(bytes as f64 * 8.0 / (bps as f64 * self.window_s()?))
    }

    /// All bytes over the senders' nominal capacity and the window.
    pub fn realised(&self) -> Option<f64> {
        let cap = self.senders as u64 * self.host_rate.bits_per_sec();
        self.fraction(self.bytes, Rate::bps(cap))
    }

    pub fn uplink(&self, host: usize) -> Option<f64> {
        let h = &self.hosts[host];
        self.fraction(h.sent_bytes, h.up_rate)
    }

    pub fn downlink(&self, host: usize) -> Option<f64> {
        let h = &self.hosts[host];
        self.fraction(h.received_bytes, h.down_rate)
    }

    /// The most loaded host link: its name, direction, host and load.
    pub fn most_loaded(&self) -> Option<(&str, &'static str, usize, f64)> {
        let mut best: Option<(&str, &'static str, usize, f64)> = None;
        for dir in ["uplink", "downlink"] {
            for (i, h) in self.hosts.iter().enumerate() {
                let (load, name) = match dir {
                    "uplink" => (self.uplink(i), &h.up_name),
                    _ => (self.downlink(i), &h.down_name),
                };
                if let Some(l) = load.filter(|&l| best.is_none_or(|b| l > b.3)) {
                    best = Some((name, dir, i, l));
                }
            }
        }
        best
    }

    /// The realised load relative to the nominal, minus 1.
    pub fn drift(&self) -> Option<f64> {
        Some(self.realised()? / self.nominal? - 1.0)
    }

    /// One line per problem: today only a drift beyond [`DRIFT_WARN`].
    pub fn warnings(&self) -> Vec<String> {
        match (self.drift(), self.nominal, self.realised()) {
            (Some(d), Some(n), Some(r)) if d.abs() > DRIFT_WARN => vec![format!(
                "realised offered load {} differs from workload.load = {} by {:+.1} % \
                 (the sampled flow sizes' mean is off the distribution's; more flows, \
                 workload.flows, give a steadier load)",
                round4(r),
                num(n),
                100.0 * d
            )],
            _ => Vec::new(),
        }
    }

    /// `summary.json`'s `load`.
    pub fn to_json(&self) -> Value {
        let per = |f: &dyn Fn(usize) -> Option<f64>| -> Value {
            if self.window_s().is_none() {
                return Value::Null;
            }
            json!((0..self.hosts.len()).map(f).collect::<Vec<_>>())
        };
        let most = self.most_loaded().map(|(link, dir, host, load)| {
            json!({ "link": link, "direction": dir, "host": host, "load": load })
        });
        json!({
            "nominal": self.nominal,
            "realised": self.realised(),
            "drift": self.drift(),
            "window_s": [self.window.0.as_secs_f64(), self.window.1.as_secs_f64()],
            "senders": self.senders,
            "offered_bytes": self.bytes,
            "host_uplink": per(&|i| self.uplink(i)),
            "host_downlink": per(&|i| self.downlink(i)),
            "most_loaded": most,
        })
    }
}

/// Four decimals, for a message (the summary keeps full precision).
fn round4(v: f64) -> f64 {
    (v * 1e4).round() / 1e4
}
