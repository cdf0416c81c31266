//! MERP's switch (§4.3): a flow state table per egress link, the distributed rate controller
//! (Algorithm 1) when a packet arrives, rate adjustment (Algorithm 3) when it leaves. The
//! module doc of [`super`] lists every choice made here.

use super::header::{kbps, MerpHeader, MerpKind};
use super::route::Memr;
use super::schedule::{vdg, FlowEntry};
use super::MerpParams;
use crate::net::network::Network;
use crate::net::packet::Packet;
use crate::net::{NodeIdx, PortIdx};
use crate::protocols::agent::SilenceSweep;
use crate::units::Time;

/// One egress link: its capacity and flow state table.
#[derive(Clone, Debug)]
pub struct Link {
    /// C, bytes/s.
    pub capacity: f64,
    pub table: Vec<FlowEntry>,
    sweep: SilenceSweep,
}

impl Link {
    /// A link of `capacity` bytes/s with an empty table.
    pub fn new(capacity: f64) -> Link {
        Link {
            capacity,
            table: Vec::new(),
            sweep: SilenceSweep::default(),
        }
    }

    fn position(&self, flow: u32) -> Option<usize> {
        self.table.iter().position(|f| f.flow == flow)
    }

    /// Indices of the flows with the smallest and second smallest virtual deadline (ties: the
    /// lower flow id first).
    fn first_two(&self) -> (Option<usize>, Option<usize>) {
        let key = |i: usize| (self.table[i].vdl, self.table[i].flow);
        let (mut first, mut second): (Option<usize>, Option<usize>) = (None, None);
        for i in 0..self.table.len() {
            if first.is_none_or(|f| key(i) < key(f)) {
                second = first;
                first = Some(i);
            } else if second.is_none_or(|s| key(i) < key(s)) {
                second = Some(i);
            }
        }
        (first, second)
    }
}

/// The MERP switch half of every port of the network.
pub struct MerpSwitch {
    pub links: Vec<Link>,
    /// α, Q as a fraction of a link's capacity, and the RTT that early start looks ahead by.
    alpha: f64,
    q: f64,
    rtt: Time,
    entry_timeout: Time,
    /// Flows whose FIN has passed a link, by flow id. A DET queued behind the FIN (it has the
    /// lowest priority, the FIN the middle one) or a late duplicate SYN must not bring such a
    /// flow back into a table: nothing would remove it again, and a stale first flow blocks
    /// its link for good.
    ended: Vec<bool>,
    /// When each flow's sender sent its SYN (`Time::MAX`: not seen yet), by flow id: the aT of
    /// a flow that enters a link without its SYN (a reroute, or an entry forgotten while it was
    /// silent). It is what a header field carrying the SYN's send time would give each link;
    /// the header's size budget has no room for one.
    syn_sent: Vec<Time>,
    /// Route control, when `routing.lb = "memr"`.
    memr: Option<Memr>,
}

impl MerpSwitch {
    /// The switch of every port of `net`; `memr` turns route control on.
    pub fn new(p: &MerpParams, net: &Network, memr: bool) -> MerpSwitch {
        MerpSwitch {
            links: net
                .ports
                .iter()
                .map(|port| Link::new(port.rate.bits_per_sec() as f64 / 8.0))
                .collect(),
            alpha: p.alpha,
            q: p.q,
            rtt: p.rtt,
            entry_timeout: p.entry_timeout,
            ended: Vec::new(),
            syn_sent: Vec::new(),
            memr: memr.then(Memr::default),
        }
    }

    /// MEMR's next hop for `pkt` at `node` (see [`super::route`]); `None` without route
    /// control, or for packets it leaves to ECMP.
    pub fn route(
        &mut self,
        now: Time,
        node: NodeIdx,
        pkt: &Packet,
        candidates: &[PortIdx],
    ) -> Option<PortIdx> {
        let memr = self.memr.as_mut()?;
        memr.route(now, node, pkt, candidates, &self.links)
    }

    /// Algorithm 1 (DRC), lines 1–11, when a packet arrives at `port`'s queue. Rate
    /// adjustment (line 12) waits until the packet leaves ([`Self::on_dequeue`], as §4.3 says).
    pub fn on_enqueue(&mut self, now: Time, port: PortIdx, pkt: &mut Packet) {
        let Some(mut h) = MerpHeader::read(pkt) else {
            return;
        };
        if !h.kind.is_forward() {
            return;
        }
        let id = pkt.flow as usize;
        if h.kind == MerpKind::Syn {
            if id >= self.syn_sent.len() {
                self.syn_sent.resize(id + 1, Time::MAX);
            }
            let sent = &mut self.syn_sent[id];
            *sent = (*sent).min(pkt.ts.min(now));
        }
        if h.kind == MerpKind::Fin {
            if id >= self.ended.len() {
                self.ended.resize(id + 1, false);
            }
            self.ended[id] = true;
        }
        let link = &mut self.links[port as usize];
        // Soft state: a flow rerouted around a failed link sends its FIN the new way.
        link.sweep
            .forget_silent(&mut link.table, now, self.entry_timeout, |f| f.last_seen);
        let at = link.position(pkt.flow);
        if h.kind == MerpKind::Fin {
            if let Some(i) = at {
                link.table.swap_remove(i);
            }
            return;
        }
        if at.is_none() && self.ended.get(id) == Some(&true) {
            return;
        }
        // A SYN, or a packet of a flow this link has not seen (its SYN took another path
        // before a reroute): a new flow here, and VDG reorders the table.
        let i = match at {
            Some(i) if h.kind != MerpKind::Syn => i,
            _ => {
                if at.is_none() {
                    // aT: when the sender sent the SYN (its timestamp), the same on every link
                    // of the path, rather than this link's own arrival time (module doc,
                    // "One arrival time per flow": per-link times let two links order two
                    // flows oppositely, for good).
                    let arrival = match self.syn_sent.get(id) {
                        Some(&t) if t != Time::MAX => t,
                        _ => now,
                    };
                    link.table.push(FlowEntry {
                        flow: pkt.flow,
                        dst: pkt.dst,
                        size: h.size as u64,
                        rs: h.size as u64,
                        arrival,
                        vdl: Time::ZERO,
                        esr: f64::INFINITY,
                        last_seen: now,
                    });
                }
                vdg(&mut link.table, now, link.capacity);
                link.position(pkt.flow).expect("just inserted")
            }
        };
        let f = &mut link.table[i];
        f.last_seen = now;
        // Lines 9–11: the smaller of the packet's and the table's esr, both ways; vdl follows.
        let esr = (h.esr as f64).min(f.esr);
        f.esr = esr;
        f.vdl = f.deadline_from_esr();
        h.esr = esr as f32;
        if h.kind == MerpKind::Data {
            f.rs = f.rs.saturating_sub(pkt.size as u64);
        }
        h.write(pkt);
    }

    /// Algorithm 3 (RateAdj), when a SYN, DATA or DET packet leaves `port`: the first flow (the
    /// smallest vdl) may send at α·C; the second detects at (n − 1)·(1 − α)·C, or sends at α·C
    /// if the first will finish within an RTT (early start); the others detect at (1 − α)·C;
    /// detection is capped at Q. The packet's Q comes down to this link's share of its own
    /// capacity first, as asr does (see "Q on a path of several rates" in the module doc).
    pub fn on_dequeue(&mut self, port: PortIdx, pkt: &mut Packet) {
        let Some(mut h) = MerpHeader::read(pkt) else {
            return;
        };
        if !matches!(h.kind, MerpKind::Syn | MerpKind::Data | MerpKind::Det) {
            return;
        }
        let link = &self.links[port as usize];
        let Some(me) = link.position(pkt.flow) else {
            return;
        };
        let (alpha, c) = (self.alpha, link.capacity * 8.0);
        h.q_kbps = h.q_kbps.min(kbps(self.q * c));
        let q = h.q_kbps as f64 * 1000.0;
        let n = link.table.len() as f64;
        let (first, second) = link.first_two();
        let rate = if first == Some(me) {
            alpha * c
        } else if second == Some(me) {
            let fk = &link.table[first.expect("a second implies a first")];
            let window = alpha * link.capacity * self.rtt.as_secs_f64();
            if (fk.rs as f64) < window {
                alpha * c // early start
            } else {
                ((n - 1.0) * (1.0 - alpha) * c).min(q)
            }
        } else {
            ((1.0 - alpha) * c).min(q)
        };
        h.asr_kbps = h.asr_kbps.min(kbps(rate));
        h.write(pkt);
    }
}
