//! PDQ's switch: one [`LinkState`] per egress link (flow list, capacity, dampening clock) and
//! the three algorithms of §3.3 as sans-IO functions of a header; [`PdqAgent`] installs them on
//! every port of the network. The module doc of [`super`] lists every choice made here.

use super::header::{kbps_to_bps, link_id, PdqHeader};
use crate::net::network::{Network, Port};
use crate::net::packet::{Packet, PacketKind};
use crate::net::{NodeIdx, PortIdx};
use crate::protocols::agent::{Admission, SilenceSweep, SwitchHooks};
use crate::units::Time;

/// The switch-side knobs (each optimisation can be turned off).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SwitchConfig {
    /// Early Start look-ahead K in RTTs; `None` = off.
    pub early_start_k: Option<f64>,
    /// Early Start's RTT: the asker's RTT_H, capped by the finishing flow's own (`true`), or
    /// the finishing flow's own alone.
    pub early_start_asker_rtt: bool,
    /// Suppressed Probing factor X; `None` = off.
    pub probing_x: Option<f64>,
    /// Dampening: the least time between accepting two paused flows; `None` = off.
    pub dampening: Option<Time>,
    /// The rate controller C = max(0, r − q / (g·RTT)); off: C = line rate.
    pub rate_controller: bool,
    /// How often the rate controller updates C, and with what drain time g·RTT.
    pub rate_update: RateUpdate,
    /// Whether SYN / SYN-ACK go through Algorithms 1 and 3 (request a rate).
    pub syn_requests_rate: bool,
    /// A listed flow that sent nothing across the link for this long is forgotten.
    pub entry_timeout: Time,
    /// Accounting over the whole path (`pdq_accounting = "whole_path"`): a link that did not
    /// pause a flow still caps R_H, a commit lists the flow (within what is left) at a link
    /// that had dropped it, and Algorithm 2 counts a sending flow this link limits at what it
    /// asks; Dampening's clock lets go once the accepted flow's commit is back. Off: the
    /// digest's Algorithms 1–3 as written (`"literal"`).
    pub whole_path: bool,
    /// Bytes on the wire of a full data packet: the rate controller's drain time is at least
    /// two of them at the link's rate.
    pub packet_bytes: u32,
}

/// How the rate controller updates C = max(0, r − q / (g·RTT)) (`pdq_rate_update`; the module
/// doc of [`super`] weighs the two).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RateUpdate {
    /// Every 2 RTTs with g = 2, as §3.3.3 gives it.
    Literal,
    /// Every RTT with g = 4: the fastest drain of a one-off queue that does not overshoot
    /// into an idle link when senders follow C one RTT later. r is the line rate less the
    /// ACKs the link carried since the last update (traffic no rate counts), which the loop
    /// would otherwise hold a standing queue against.
    Damped,
}

impl RateUpdate {
    /// (update period, drain time g), both in RTTs.
    fn rtts(self) -> (u64, u64) {
        match self {
            RateUpdate::Damped => (1, 4),
            RateUpdate::Literal => (2, 2),
        }
    }
}

/// A flow's identity at the switch: flow index and subflow.
pub type PdqFlowId = u64;

pub fn flow_id(flow: u32, subflow: u8) -> PdqFlowId {
    ((flow as u64) << 8) | subflow as u64
}

/// One entry of a link's flow list: the flow's latest header values and its committed state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub id: PdqFlowId,
    /// R_i, committed by the reverse path.
    pub rate_bps: u64,
    /// P_i: 0 = ø, else the link that paused it.
    pub pause_by: u32,
    pub deadline: u32,
    pub expected_ns: u32,
    pub rtt_ns: u32,
    /// When the flow last sent a data packet, probe or SYN across the link.
    pub last_seen: Time,
    /// R_H as the flow's last packet reached the link: what it asks of it.
    pub demand_bps: u64,
    /// The least rate this link offered the flow in its RTT under way and the one before.
    pub least_offers: [u64; 2],
    /// When the RTT under way (for `least_offers`) began.
    pub offers_since: Time,
    /// The last commit reached this link's least recent offer: this link limits the flow.
    pub limited_here: bool,
    /// This link proposed to accept the flow while it was paused here, and no commit has come
    /// back yet: its packets until then are re-proposals, not new acceptances (Dampening).
    pub accept_pending: bool,
}

/// The comparator: earlier deadline, then smaller expected transmission time, then id.
fn criticality(deadline: u32, expected_ns: u32, id: PdqFlowId) -> (u32, u32, PdqFlowId) {
    (deadline, expected_ns, id)
}

impl Entry {
    /// A new entry, paused, from the header its flow's packet carries.
    fn new(now: Time, id: PdqFlowId, h: &PdqHeader) -> Entry {
        Entry {
            id,
            rate_bps: 0,
            pause_by: 0,
            deadline: h.deadline,
            expected_ns: h.expected_ns,
            rtt_ns: h.rtt_ns,
            last_seen: now,
            demand_bps: kbps_to_bps(h.rate_kbps),
            least_offers: [u64::MAX; 2],
            offers_since: now,
            limited_here: false,
            accept_pending: false,
        }
    }

    fn criticality(&self) -> (u32, u32, PdqFlowId) {
        criticality(self.deadline, self.expected_ns, self.id)
    }

    /// Notes an offer (0 for a pause), keeping the least of the flow's current RTT and of
    /// the one before: the commit that answers an offer comes back about one RTT later.
    fn note_offer(&mut self, now: Time, offer_bps: u64) {
        let rtt = Time::from_ns(self.rtt_ns.max(1) as u64);
        if now < self.offers_since + rtt {
            self.least_offers[0] = self.least_offers[0].min(offer_bps);
            return;
        }
        let previous = if now < self.offers_since + rtt * 2 {
            self.least_offers[0]
        } else {
            u64::MAX
        };
        self.least_offers = [offer_bps, previous];
        self.offers_since = now;
    }

    fn least_recent_offer(&self) -> u64 {
        self.least_offers[0].min(self.least_offers[1])
    }
}

/// The PDQ state of one egress link.
#[derive(Clone, Debug)]
pub struct LinkState {
    /// This link's pause-by value.
    pub me: u32,
    pub line_rate_bps: u64,
    /// C: the capacity PDQ may allocate (rate controller output).
    pub capacity_bps: u64,
    /// The most critical flows, most critical first; about 2·max(κ, 1) (a commit can list a
    /// flow beyond it, and the list shrinks only as flows leave or are displaced).
    pub list: Vec<Entry>,
    /// When this link last accepted a paused flow, and which (Dampening).
    pub last_paused_accept: Option<(Time, PdqFlowId)>,
    next_rate_update: Time,
    /// Bytes of ACKs sent on the link since the given time, its last update of C (the damped
    /// loop's r_PDQ); `None` before its first update.
    acks: Option<(Time, u64)>,
    sweep: SilenceSweep,
}

impl LinkState {
    pub fn new(port: PortIdx, line_rate_bps: u64) -> LinkState {
        LinkState {
            me: link_id(port),
            line_rate_bps,
            capacity_bps: line_rate_bps,
            list: Vec::new(),
            last_paused_accept: None,
            next_rate_update: Time::ZERO,
            acks: None,
            sweep: SilenceSweep::default(),
        }
    }

    pub fn position(&self, id: PdqFlowId) -> Option<usize> {
        self.list.iter().position(|e| e.id == id)
    }

    /// κ: flows in the list with a committed rate.
    pub fn sending(&self) -> usize {
        self.list.iter().filter(|e| e.rate_bps > 0).count()
    }

    /// The list keeps at most 2κ flows; at least 2 so that an idle link admits a first flow.
    pub fn list_limit(&self) -> usize {
        2 * self.sending().max(1)
    }

    pub fn remove(&mut self, id: PdqFlowId) {
        if let Some(i) = self.position(id) {
            self.list.remove(i);
        }
    }

    fn insert_sorted(&mut self, e: Entry) -> usize {
        let i = self
            .list
            .partition_point(|x| x.criticality() < e.criticality());
        self.list.insert(i, e);
        i
    }

    /// Two full data packets' time at this link, in ns (saturating).
    fn two_packets_ns(&self, cfg: &SwitchConfig) -> u32 {
        (2 * cfg.packet_bytes as u64 * 8_000_000_000 / self.line_rate_bps.max(1))
            .min(u32::MAX as u64) as u32
    }

    /// Algorithm 2: the bandwidth left to entry `j` by the more critical entries; with Early
    /// Start, entries that finish within K RTTs (up to K RTTs of them in all) are not counted.
    pub fn availbw(&self, j: usize, asker_rtt_ns: u32, cfg: &SwitchConfig) -> u64 {
        let c = self.capacity_bps;
        let mut budget = 0.0;
        let mut allocated = 0u64;
        // Early Start's look-ahead covers the round trip of the asker's grant (module doc).
        let by_asker = cfg.early_start_asker_rtt && asker_rtt_ns > 0;
        for e in &self.list[..j] {
            let rtts = if e.rtt_ns > 0 {
                let rtt_ns = if by_asker {
                    e.rtt_ns.min(asker_rtt_ns.max(self.two_packets_ns(cfg)))
                } else {
                    e.rtt_ns
                };
                e.expected_ns as f64 / rtt_ns as f64
            } else {
                f64::INFINITY
            };
            match cfg.early_start_k {
                Some(k) if rtts < k && budget < k => budget += rtts,
                // Its next packet takes what it asks, up to what is left: offering that to a
                // less critical flow now would overcommit the link until then.
                _ if cfg.whole_path && e.rate_bps > 0 && e.limited_here => {
                    allocated += e.rate_bps.max(e.demand_bps.min(c - allocated))
                }
                _ => allocated += e.rate_bps,
            }
            if allocated >= c {
                return 0;
            }
        }
        c - allocated
    }

    /// The rate controller, run lazily when a forward packet passes and the update period
    /// (1 or 2 average RTTs: [`RateUpdate`]) has elapsed since the last update:
    /// C = max(0, r − q / (g·RTT)), the RTT at least two full data packet times at this link.
    pub fn update_capacity(&mut self, now: Time, queued_bytes: u64, cfg: &SwitchConfig) {
        if now < self.next_rate_update {
            return;
        }
        let (sum, n) = self
            .list
            .iter()
            .filter(|e| e.rtt_ns > 0)
            .fold((0u64, 0u64), |(s, n), e| (s + e.rtt_ns as u64, n + 1));
        if n == 0 {
            self.capacity_bps = self.line_rate_bps;
            return;
        }
        let packet_ps = (cfg.packet_bytes as u128 * 8 * Time::PS_PER_SEC as u128
            / self.line_rate_bps.max(1) as u128)
            .min(u64::MAX as u128 / 4) as u64;
        let rtt_ps = ((sum / n) * 1000).max(2 * packet_ps);
        let (period, drain) = cfg.rate_update.rtts();
        let r = self.rate_for_pdq(now, cfg);
        let drain_bps = (queued_bytes as u128 * 8 * Time::PS_PER_SEC as u128
            / (drain as u128 * rtt_ps as u128))
            .min(u64::MAX as u128) as u64;
        self.capacity_bps = r.saturating_sub(drain_bps);
        self.next_rate_update = now + Time::from_ps(period * rtt_ps);
    }

    /// r_PDQ: the line rate, less (damped loop) the ACKs the link carried since its last update
    /// of C, at least one update period ago. The first update has no such window and takes the
    /// line rate.
    fn rate_for_pdq(&mut self, now: Time, cfg: &SwitchConfig) -> u64 {
        if cfg.rate_update != RateUpdate::Damped {
            return self.line_rate_bps;
        }
        let Some((since, bytes)) = self.acks.replace((now, 0)) else {
            return self.line_rate_bps;
        };
        let window = now.saturating_sub(since).ps();
        if window == 0 {
            return self.line_rate_bps;
        }
        let bps = bytes as u128 * 8 * Time::PS_PER_SEC as u128 / window as u128;
        self.line_rate_bps
            .saturating_sub(bps.min(u64::MAX as u128) as u64)
    }

    /// An ACK (or SYN-ACK) is sent on this link: traffic no rate counts, which the damped loop
    /// takes out of r from the link's first update on.
    pub fn note_acks(&mut self, bytes: u32) {
        if let Some((_, sum)) = &mut self.acks {
            *sum += bytes as u64;
        }
    }

    /// Algorithm 1: a data packet, probe or (rate-requesting) SYN of flow `id` leaves by this
    /// link. Proposes accept (R_H lowered to what is available) or pause (P_H = me, R_H = 0).
    /// If the packet leaves paused by this link, it notes that it crossed its pauser.
    pub fn forward(&mut self, now: Time, cfg: &SwitchConfig, id: PdqFlowId, h: &mut PdqHeader) {
        self.propose(now, cfg, id, h);
        if h.pause_by == self.me {
            h.pauser_crossed = true;
        }
    }

    fn propose(&mut self, now: Time, cfg: &SwitchConfig, id: PdqFlowId, h: &mut PdqHeader) {
        // Soft state: a flow rerouted around a failed link sends its TERM the new way. Swept
        // before anything reads the list (the cap below counts its entries too).
        self.sweep
            .forget_silent(&mut self.list, now, cfg.entry_timeout, |e| e.last_seen);
        if h.pause_by != 0 && h.pause_by != self.me {
            // Paused elsewhere: only the pausing link re-evaluates the flow.
            self.remove(id);
            if cfg.whole_path {
                // The pauser lifts the pause at the R_H it receives: cap it at what this link
                // has for the flow, so that the pauser's accept holds here too.
                let key = criticality(h.deadline, h.expected_ns, id);
                let j = self.list.partition_point(|e| e.criticality() < key);
                let free_kbps = (self.availbw(j, h.rtt_ns, cfg) / 1000).min(u32::MAX as u64) as u32;
                h.rate_kbps = h.rate_kbps.min(free_kbps);
            }
            return;
        }
        let fresh = Entry::new(now, id, h);
        let i = match self.position(id) {
            Some(i) => {
                // Refresh D, T, RTT; the committed R and P stay.
                let old = self.list.remove(i);
                self.insert_sorted(Entry {
                    rate_bps: old.rate_bps,
                    pause_by: old.pause_by,
                    least_offers: old.least_offers,
                    offers_since: old.offers_since,
                    limited_here: old.limited_here,
                    accept_pending: old.accept_pending,
                    ..fresh
                })
            }
            None => {
                let limit = self.list_limit();
                let more_critical = self
                    .list
                    .last()
                    .is_none_or(|last| fresh.criticality() < last.criticality());
                if self.list.len() >= limit && !more_critical {
                    // Not among the 2κ most critical: paused here, not remembered.
                    h.rate_kbps = 0;
                    h.pause_by = self.me;
                    return;
                }
                let i = self.insert_sorted(fresh);
                if self.list.len() > limit {
                    // The least critical, never the flow just admitted. If it was sending, its
                    // next commit lists it again or pauses it (`adopt`).
                    self.list.pop();
                }
                i
            }
        };
        // Rates travel in whole kbit/s: less than one is nothing.
        let offered = (self.availbw(i, h.rtt_ns, cfg) / 1000).min(h.rate_kbps as u64) as u32;
        if offered > 0 {
            let entry = &self.list[i];
            // Paused here: paused by this link, or not yet sending (a new flow starts paused).
            let was_paused = entry.pause_by != 0 || entry.rate_bps == 0;
            // Its re-proposals (every packet before the commit returns) are neither held back
            // nor restart the clock: that would keep a more critical flow out for as long.
            let new_accept = was_paused && !entry.accept_pending;
            let damped = new_accept && self.damps(now, cfg, id);
            let entry = &mut self.list[i];
            if !damped {
                h.pause_by = 0;
                h.rate_kbps = offered;
                entry.note_offer(now, offered as u64 * 1000);
                if new_accept {
                    entry.accept_pending = true;
                    self.last_paused_accept = Some((now, id));
                }
                return;
            }
        }
        h.pause_by = self.me;
        h.rate_kbps = 0;
        let entry = &mut self.list[i];
        entry.pause_by = self.me;
        entry.note_offer(now, 0);
    }

    /// Dampening: another paused flow was accepted here less than the interval ago and the
    /// commit answering that accept has not come back. Once it has (or the flow has left the
    /// list: done, or dropped from it, when its commit is capped as `adopt` does), the
    /// interval has done its job; holding the next flow longer would cap the link at one new
    /// flow per interval whatever the flows' sizes.
    fn damps(&self, now: Time, cfg: &SwitchConfig, id: PdqFlowId) -> bool {
        let (Some(gap), Some((t, other))) = (cfg.dampening, self.last_paused_accept) else {
            return false;
        };
        other != id
            && now.saturating_sub(t) < gap
            && (!cfg.whole_path || self.list.iter().any(|e| e.id == other && e.accept_pending))
    }

    /// Algorithm 3: the ACK of flow `id` passes on the reverse path; commits the decision the
    /// whole path reached into this (forward) link's list, and suppresses probing by position.
    /// `ended`: the flow has sent its TERM (its last ACKs may still be on their way).
    pub fn reverse(
        &mut self,
        now: Time,
        cfg: &SwitchConfig,
        id: PdqFlowId,
        h: &mut PdqHeader,
        ended: bool,
    ) {
        self.sweep
            .forget_silent(&mut self.list, now, cfg.entry_timeout, |e| e.last_seen);
        if h.pause_by != 0 && h.pause_by != self.me {
            self.remove(id);
        }
        if h.pause_by != 0 {
            h.rate_kbps = 0;
        }
        if cfg.whole_path
            && h.rate_kbps > 0
            && !ended
            && self.position(id).is_none()
            && !self.adopt(now, cfg, id, h)
        {
            // Not among the 2κ most critical any more, or no room left for it: paused here, as
            // Algorithm 1 would.
            h.pause_by = self.me;
            h.rate_kbps = 0;
        }
        if let Some(i) = self.position(id) {
            let e = &mut self.list[i];
            e.pause_by = h.pause_by;
            e.rate_bps = kbps_to_bps(h.rate_kbps);
            if h.pause_by != self.me {
                // A commit this link paused answers an older packet, not its accept.
                e.accept_pending = false;
            }
            e.limited_here = e.rate_bps > 0 && e.rate_bps >= e.least_recent_offer();
            if let Some(x) = cfg.probing_x {
                let hundredths = (x * i as f64 * 100.0).round().min(u16::MAX as f64) as u16;
                h.inter_probe = h.inter_probe.max(hundredths);
            }
        }
    }

    /// A commit accepts a flow that this link dropped from its list after its proposal
    /// (evicted by a more critical arrival, or removed while paused elsewhere): the flow will
    /// send across the link at R_H, so the link lists it if it is among the 2κ most critical,
    /// making room as Algorithm 1 does, and lowers R_H to what the more critical flows leave
    /// it (Algorithm 2; a flow let in meanwhile may hold the rest). Returns whether the flow
    /// may send; if not, it stays listed when it got in, and the caller pauses it.
    fn adopt(&mut self, now: Time, cfg: &SwitchConfig, id: PdqFlowId, h: &mut PdqHeader) -> bool {
        let entry = Entry::new(now, id, h);
        if self.list.len() >= self.list_limit() {
            match self.least_critical_idle() {
                Some(v) if entry.criticality() < self.list[v].criticality() => {
                    self.list.remove(v);
                }
                _ => return false,
            }
        }
        let i = self.insert_sorted(entry);
        let room_kbps = (self.availbw(i, h.rtt_ns, cfg) / 1000).min(u32::MAX as u64) as u32;
        h.rate_kbps = h.rate_kbps.min(room_kbps);
        self.list[i].rate_bps = kbps_to_bps(h.rate_kbps);
        h.rate_kbps > 0
    }

    /// The least critical entry that does not send: the one `adopt` forgets to make room (a
    /// sender it forgot would send uncounted until its next commit).
    fn least_critical_idle(&self) -> Option<usize> {
        self.list.iter().rposition(|e| e.rate_bps == 0)
    }
}

/// PDQ's switch agent: the state of every egress link, and the forward path of every
/// (sub)flow so that its ACKs retrace it.
pub struct PdqAgent {
    cfg: SwitchConfig,
    links: Vec<LinkState>,
    /// Per flow·subflows + subflow: the forward hops seen, as (node the hop reaches, the port
    /// from that node back over the same link).
    paths: Vec<Vec<(NodeIdx, PortIdx)>>,
    /// Per flow·subflows + subflow: its TERM has been sent.
    ended: Vec<bool>,
    subflows: u32,
}

impl PdqAgent {
    pub fn new(cfg: SwitchConfig, subflows: u32, net: &Network) -> PdqAgent {
        PdqAgent {
            cfg,
            links: net
                .ports
                .iter()
                .enumerate()
                .map(|(i, p)| LinkState::new(i as PortIdx, p.rate.bits_per_sec()))
                .collect(),
            paths: Vec::new(),
            ended: Vec::new(),
            subflows,
        }
    }

    pub fn link(&self, port: PortIdx) -> &LinkState {
        &self.links[port as usize]
    }

    fn path_slot(&mut self, pkt: &Packet, subflow: u8) -> &mut Vec<(NodeIdx, PortIdx)> {
        let i = pkt.flow as usize * self.subflows as usize + subflow as usize;
        if i >= self.paths.len() {
            self.paths.resize_with(i + 1, Vec::new);
        }
        &mut self.paths[i]
    }

    /// The port a reverse packet (ACK) leaves `node` by: back over the link its flow's data
    /// came in on, so that Algorithm 3 runs on the links Algorithm 1 ran on.
    pub fn reverse_route(&self, node: NodeIdx, pkt: &Packet) -> Option<PortIdx> {
        if !pkt.kind.is_reverse() {
            return None;
        }
        let h = PdqHeader::read(pkt)?;
        let i = pkt.flow as usize * self.subflows as usize + h.subflow as usize;
        self.paths
            .get(i)?
            .iter()
            .find(|(n, _)| *n == node)
            .map(|&(_, p)| p)
    }
}

impl SwitchHooks for PdqAgent {
    /// PDQ's ACKs retrace their data's path, whatever the candidates.
    fn route(
        &mut self,
        _now: Time,
        node: NodeIdx,
        pkt: &Packet,
        _candidates: &[PortIdx],
        _ports: &[Port],
    ) -> Option<PortIdx> {
        self.reverse_route(node, pkt)
    }

    fn on_enqueue(&mut self, now: Time, port: PortIdx, at: &Port, pkt: &mut Packet) -> Admission {
        let Some(mut h) = PdqHeader::read(pkt) else {
            return Admission::Normal;
        };
        let id = flow_id(pkt.flow, h.subflow);
        let requests = match pkt.kind {
            PacketKind::Data | PacketKind::Ack => true,
            PacketKind::Syn | PacketKind::SynAck => self.cfg.syn_requests_rate,
            _ => false,
        };
        let slot = pkt.flow as usize * self.subflows as usize + h.subflow as usize;
        if pkt.kind.is_reverse() {
            if self.cfg.rate_update == RateUpdate::Damped {
                self.links[port as usize].note_acks(pkt.size);
            }
            if requests {
                let ended = self.ended.get(slot).copied().unwrap_or(false);
                self.links[at.reverse as usize].reverse(now, &self.cfg, id, &mut h, ended);
            }
        } else {
            let hop = (at.peer, at.reverse);
            let path = self.path_slot(pkt, h.subflow);
            match path.iter_mut().find(|(n, _)| *n == hop.0) {
                Some(slot) => *slot = hop,
                None => path.push(hop),
            }
            let link = &mut self.links[port as usize];
            if pkt.kind == PacketKind::Fin {
                link.remove(id); // TERM
                if slot >= self.ended.len() {
                    self.ended.resize(slot + 1, false);
                }
                self.ended[slot] = true;
            } else if requests {
                if self.cfg.rate_controller {
                    link.update_capacity(now, at.queue.len_bytes(), &self.cfg);
                }
                link.forward(now, &self.cfg, id, &mut h);
            }
        }
        h.write(pkt);
        if pkt.payload == 0 {
            Admission::Protected // control packets (probe, SYN, ACK, TERM) are never lost
        } else {
            Admission::Normal
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocols::pdq::header::NO_DEADLINE;

    const C: u64 = 10_000_000_000;
    const ME: u32 = 5;

    fn cfg() -> SwitchConfig {
        SwitchConfig {
            early_start_k: Some(2.0),
            early_start_asker_rtt: true,
            probing_x: Some(0.2),
            dampening: Some(Time::from_us(10)),
            rate_controller: true,
            rate_update: RateUpdate::Literal,
            syn_requests_rate: true,
            entry_timeout: Time::from_ms(10),
            whole_path: true,
            packet_bytes: 1516,
        }
    }

    /// Neither Dampening nor Early Start: Algorithm 2 alone decides.
    fn without_spacing() -> SwitchConfig {
        SwitchConfig {
            dampening: None,
            early_start_k: None,
            ..cfg()
        }
    }

    /// `c` with the digest's literal accounting.
    fn literal(c: SwitchConfig) -> SwitchConfig {
        SwitchConfig {
            whole_path: false,
            ..c
        }
    }

    fn link() -> LinkState {
        LinkState::new(ME - 1, C)
    }

    /// A header as a sender at 10 Gb/s writes it: T in µs, RTT 10 µs.
    fn hdr(deadline: u32, t_us: u32) -> PdqHeader {
        PdqHeader {
            rate_kbps: 10_000_000,
            pause_by: 0,
            deadline,
            expected_ns: t_us * 1000,
            rtt_ns: 10_000,
            inter_probe: 0,
            subflow: 0,
            pauser_crossed: false,
        }
    }

    /// One round trip on a one-link path: forward proposal, then the ACK commits it.
    fn round(
        l: &mut LinkState,
        now_us: u64,
        id: PdqFlowId,
        h: PdqHeader,
        c: &SwitchConfig,
    ) -> PdqHeader {
        let mut h = h;
        l.forward(Time::from_us(now_us), c, id, &mut h);
        l.reverse(Time::from_us(now_us), c, id, &mut h, false);
        h
    }

    fn ids(l: &LinkState) -> Vec<PdqFlowId> {
        l.list.iter().map(|e| e.id).collect()
    }

    #[test]
    fn list_is_ordered_by_deadline_then_expected_time_then_id() {
        let mut l = link();
        let c = cfg();
        // Flow 1 sends (κ = 1, room for 2); then give it room for more by committing others.
        round(&mut l, 0, 1, hdr(NO_DEADLINE, 500), &c);
        l.list[0].rate_bps = 1; // pretend more flows are sending so the list can grow
        for e in [(2, 400), (3, 400)] {
            let mut h = hdr(NO_DEADLINE, e.1);
            l.forward(Time::ZERO, &c, e.0, &mut h);
            let i = l.position(e.0).unwrap();
            l.list[i].rate_bps = 1;
        }
        let mut h = hdr(900, 5000); // a deadline beats any expected time
        l.forward(Time::ZERO, &c, 9, &mut h);
        assert_eq!(ids(&l), vec![9, 2, 3, 1]);
        // A refreshed T moves the entry.
        let mut h = hdr(NO_DEADLINE, 100);
        l.forward(Time::ZERO, &c, 1, &mut h);
        assert_eq!(ids(&l), vec![9, 1, 2, 3]);
    }

    #[test]
    fn list_keeps_only_the_two_kappa_most_critical_flows() {
        let mut l = link();
        let c = cfg();
        // Flow 10 is accepted and committed: κ = 1, the list holds 2.
        let h = round(&mut l, 0, 10, hdr(NO_DEADLINE, 100), &c);
        assert_eq!(h.pause_by, 0);
        assert_eq!(l.sending(), 1);
        // Flow 20 (less critical) fills the second slot, paused.
        let h = round(&mut l, 1, 20, hdr(NO_DEADLINE, 300), &c);
        assert_eq!((h.pause_by, h.rate_kbps), (ME, 0));
        assert_eq!(ids(&l), vec![10, 20]);
        // Flow 30, less critical than everything: paused and not remembered.
        let h = round(&mut l, 2, 30, hdr(NO_DEADLINE, 400), &c);
        assert_eq!(h.pause_by, ME);
        assert_eq!(ids(&l), vec![10, 20]);
        // Flow 40, more critical than 20: admitted, and 20 (the least critical) is evicted.
        let mut h = hdr(NO_DEADLINE, 200);
        l.forward(Time::from_us(3), &c, 40, &mut h);
        assert_eq!(ids(&l), vec![10, 40]);
    }

    #[test]
    fn accept_is_proposed_forward_and_committed_on_the_ack() {
        let mut l = link();
        let c = cfg();
        let mut h = hdr(NO_DEADLINE, 100);
        l.forward(Time::ZERO, &c, 1, &mut h);
        assert_eq!((h.pause_by, h.rate_kbps), (0, 10_000_000));
        assert_eq!(l.list[0].rate_bps, 0, "nothing reserved before the ACK");
        // Another link paused it on the way: the ACK commits a pause here too.
        let mut ack = PdqHeader { pause_by: 77, ..h };
        l.reverse(Time::ZERO, &c, 1, &mut ack, false);
        assert_eq!(ack.rate_kbps, 0);
        assert!(
            l.position(1).is_none(),
            "paused by another link: forgotten here"
        );
        // Accepted everywhere: committed.
        let mut h = hdr(NO_DEADLINE, 100);
        l.forward(Time::ZERO, &c, 1, &mut h);
        l.reverse(Time::ZERO, &c, 1, &mut h, false);
        assert_eq!((l.list[0].rate_bps, l.list[0].pause_by), (C, 0));
    }

    #[test]
    fn a_more_critical_flow_preempts_and_the_other_is_paused() {
        let mut l = link();
        let c = SwitchConfig {
            early_start_k: None,
            dampening: None,
            ..cfg()
        };
        round(&mut l, 0, 1, hdr(NO_DEADLINE, 1000), &c);
        // A shorter flow arrives: the list ranks it first, the whole link is available to it.
        let h = round(&mut l, 1, 2, hdr(NO_DEADLINE, 50), &c);
        assert_eq!((h.pause_by, h.rate_kbps), (0, 10_000_000));
        // The long flow's next packet finds nothing left: paused by this link.
        let h = round(&mut l, 2, 1, hdr(NO_DEADLINE, 999), &c);
        assert_eq!((h.pause_by, h.rate_kbps), (ME, 0));
        assert_eq!(l.list[1].pause_by, ME);
        // A flow paused elsewhere that reaches this link is dropped from the list untouched.
        let mut h = PdqHeader {
            pause_by: 99,
            ..hdr(NO_DEADLINE, 999)
        };
        l.forward(Time::from_us(3), &c, 1, &mut h);
        assert_eq!((h.pause_by, ids(&l)), (99, vec![2]));
    }

    #[test]
    fn early_start_lets_the_next_flow_in_k_rtts_before_the_end() {
        let c = SwitchConfig {
            dampening: None,
            ..cfg()
        };
        let off = SwitchConfig {
            early_start_k: None,
            ..c
        };
        let mut l = link();
        round(&mut l, 0, 1, hdr(NO_DEADLINE, 15), &c); // 1.5 RTTs left
        l.list[0].rate_bps = C;
        let mut h = hdr(NO_DEADLINE, 500);
        l.forward(Time::ZERO, &off, 2, &mut h);
        assert_eq!(h.pause_by, ME, "without Early Start the link is full");
        let mut h = hdr(NO_DEADLINE, 500);
        l.forward(Time::ZERO, &c, 2, &mut h);
        assert_eq!(
            h.rate_kbps, 10_000_000,
            "with K = 2 the ending flow is not counted"
        );
        // 2.5 RTTs left: not yet.
        l.list[0].expected_ns = 25_000;
        assert_eq!(l.availbw(1, 10_000, &c), 0);
    }

    /// Issue 35's seed-2 loss: a flow whose first data packet met a queue carries RTT_H = 78 µs
    /// on a path of 25 µs. With 100 µs left it is 1.3 of its own RTTs from its end, so read
    /// per flow Early Start ignores it and grants a less critical flow the whole link beside
    /// it; by the RTT of the flow asking (25 µs) it is 4 RTTs from its end and still counted.
    /// An asker with a longer RTT than the finishing flow's does not lengthen the look-ahead.
    #[test]
    fn early_start_looks_ahead_by_the_asker_s_rtt_at_most_the_finishing_flow_s() {
        let c = SwitchConfig {
            dampening: None,
            ..cfg()
        };
        let mut l = link();
        let inflated = PdqHeader {
            rtt_ns: 78_000,
            ..hdr(NO_DEADLINE, 100)
        };
        round(&mut l, 0, 1, inflated, &c);
        l.list[0].rate_bps = C;
        let asker = PdqHeader {
            rtt_ns: 25_000,
            ..hdr(NO_DEADLINE, 5_000)
        };
        let mut h = asker;
        l.forward(Time::ZERO, &c, 2, &mut h);
        assert_eq!(h.pause_by, ME, "the link is still the first flow's");
        let per_flow = SwitchConfig {
            early_start_asker_rtt: false,
            ..c
        };
        let mut h = asker;
        l.forward(Time::ZERO, &per_flow, 2, &mut h);
        assert_eq!(
            h.rate_kbps, 10_000_000,
            "per flow, the first is 'finishing'"
        );
        // 25 µs left of a 10 µs RTT: 2.5 RTTs, not yet, even for an asker of 200 µs.
        l.list[0].rtt_ns = 10_000;
        l.list[0].expected_ns = 25_000;
        assert_eq!(l.availbw(1, 200_000, &c), 0);
        assert_eq!(l.availbw(1, 0, &c), 0, "an asker with no RTT yet");
    }

    fn entry(id: PdqFlowId, rate_bps: u64, pause_by: u32, t_us: u32) -> Entry {
        Entry {
            rate_bps,
            pause_by,
            ..Entry::new(Time::ZERO, id, &hdr(NO_DEADLINE, t_us))
        }
    }

    #[test]
    fn dampening_spaces_the_acceptance_of_paused_flows() {
        let c = SwitchConfig {
            early_start_k: None,
            ..cfg()
        };
        let mut l = link();
        // Flow 1 holds half the link; flows 2 and 3 are paused here.
        l.list = vec![
            entry(1, C / 2, 0, 100),
            entry(2, 0, ME, 200),
            entry(3, 0, ME, 300),
        ];
        let mut h = hdr(NO_DEADLINE, 200);
        l.forward(Time::from_us(20), &c, 2, &mut h);
        assert_eq!((h.pause_by, h.rate_kbps), (0, 5_000_000));
        assert_eq!(l.last_paused_accept, Some((Time::from_us(20), 2)));
        // Flow 3, 5 µs later, is held back although half the link is free (flow 2's
        // acceptance is not committed yet).
        let before = l.clone();
        let mut h = hdr(NO_DEADLINE, 300);
        l.forward(Time::from_us(25), &c, 3, &mut h);
        assert_eq!((h.pause_by, h.rate_kbps), (ME, 0));
        // 10 µs after the last acceptance it goes through, and the clock moves.
        let mut h = hdr(NO_DEADLINE, 300);
        l.forward(Time::from_us(30), &c, 3, &mut h);
        assert_eq!(h.rate_kbps, 5_000_000);
        assert_eq!(l.last_paused_accept, Some((Time::from_us(30), 3)));
        // Without dampening there is no spacing.
        let mut l = before;
        let no = SwitchConfig {
            dampening: None,
            ..c
        };
        let mut h = hdr(NO_DEADLINE, 300);
        l.forward(Time::from_us(25), &no, 3, &mut h);
        assert_eq!(h.rate_kbps, 5_000_000);
    }

    #[test]
    fn dampening_ends_when_the_accepted_flow_commits_or_leaves() {
        let c = SwitchConfig {
            early_start_k: None,
            ..cfg()
        };
        let paused_pair = || {
            let mut l = link();
            l.list = vec![
                entry(1, C / 4, 0, 100),
                entry(2, 0, ME, 200),
                entry(3, 0, ME, 300),
            ];
            let mut h = hdr(NO_DEADLINE, 200);
            l.forward(Time::from_us(20), &c, 2, &mut h);
            assert_eq!(h.rate_kbps, 7_500_000);
            l
        };
        let propose_3 = |l: &mut LinkState, c: &SwitchConfig| {
            let mut h = hdr(NO_DEADLINE, 300);
            l.forward(Time::from_us(23), c, 3, &mut h);
            (h.pause_by, h.rate_kbps)
        };
        // Flow 2's commit (at a quarter of the link, limited elsewhere) is back 2 µs later:
        // flow 3 gets what flows 1 and 2 leave without waiting out the 10 µs.
        let mut l = paused_pair();
        let mut ack = PdqHeader {
            rate_kbps: 2_500_000,
            ..hdr(NO_DEADLINE, 200)
        };
        l.reverse(Time::from_us(22), &c, 2, &mut ack, false);
        assert_eq!(propose_3(&mut l.clone(), &c), (0, 5_000_000));
        // Read literally, the clock holds for the whole interval.
        let literal = SwitchConfig {
            whole_path: false,
            ..c
        };
        assert_eq!(propose_3(&mut l, &literal), (ME, 0));
        // Flow 2 gone (its TERM) before its commit: nothing is pending either.
        let mut l = paused_pair();
        l.remove(2);
        assert_eq!(propose_3(&mut l, &c), (0, 7_500_000));
        // An ACK this link paused (it answers a packet before the accepted one) is not the
        // accept's commit: flow 3 waits.
        let mut l = paused_pair();
        let mut stale = PdqHeader {
            pause_by: ME,
            ..hdr(NO_DEADLINE, 200)
        };
        l.reverse(Time::from_us(22), &c, 2, &mut stale, false);
        assert_eq!(propose_3(&mut l, &c), (ME, 0));
    }

    #[test]
    fn an_evicted_flow_let_go_of_the_clock_is_committed_only_into_what_is_left() {
        // Found in review: flow 2 is accepted here at 7.5 Gb/s; flow 9, more critical, evicts
        // it from the list (κ = 1, room for 2) and, the clock's flow gone, is accepted at
        // 7.5 Gb/s too. Both commits come back, flow 9's first: flow 2's must not list it
        // at 7.5 Gb/s beside flows 1 and 9 (17.5 Gb/s on a 10 Gb/s link).
        let c = SwitchConfig {
            early_start_k: None,
            ..cfg()
        };
        let mut l = link();
        l.list = vec![entry(1, C / 4, 0, 100)];
        let mut h2 = hdr(NO_DEADLINE, 200);
        l.forward(Time::from_us(20), &c, 2, &mut h2);
        let mut h9 = hdr(NO_DEADLINE, 150);
        l.forward(Time::from_us(21), &c, 9, &mut h9);
        assert_eq!(ids(&l), vec![1, 9], "flow 2 evicted");
        assert_eq!((h2.rate_kbps, h9.rate_kbps), (7_500_000, 7_500_000));
        l.reverse(Time::from_us(24), &c, 9, &mut h9, false);
        l.reverse(Time::from_us(25), &c, 2, &mut h2, false);
        assert_eq!(
            (h2.pause_by, h2.rate_kbps),
            (ME, 0),
            "no room left for flow 2"
        );
        let committed: u64 = l.list.iter().map(|e| e.rate_bps).sum();
        assert_eq!(committed, C);
    }

    #[test]
    fn suppressed_probing_raises_the_inter_probe_time_by_list_position() {
        let c = cfg();
        let mut l = link();
        l.list = (0..12u64).map(|id| entry(id, 1, 0, id as u32)).collect();
        let mut ack = PdqHeader {
            pause_by: ME,
            ..hdr(NO_DEADLINE, 10)
        };
        l.reverse(Time::ZERO, &c, 10, &mut ack, false);
        assert_eq!(ack.inter_probe, 200, "position 10 × 0.2 = 2 RTTs");
        let mut ack = PdqHeader {
            pause_by: ME,
            inter_probe: 300,
            ..hdr(NO_DEADLINE, 10)
        };
        l.reverse(Time::ZERO, &c, 3, &mut ack, false);
        assert_eq!(ack.inter_probe, 300, "never lowered");
        let mut ack = hdr(NO_DEADLINE, 10);
        let off = SwitchConfig {
            probing_x: None,
            ..c
        };
        l.reverse(Time::ZERO, &off, 10, &mut ack, false);
        assert_eq!(ack.inter_probe, 0);
    }

    #[test]
    fn rate_controller_drains_the_queue_within_two_rtts() {
        let mut l = link();
        let c = cfg();
        round(&mut l, 0, 1, hdr(NO_DEADLINE, 100), &c);
        // 25 000 queued bytes over 2 × 10 µs: 10 Gb/s of drain → C = 0.
        l.update_capacity(Time::from_us(1), 25_000, &c);
        assert_eq!(l.capacity_bps, 0);
        // Not again before 2 RTTs.
        l.update_capacity(Time::from_us(15), 0, &c);
        assert_eq!(l.capacity_bps, 0);
        // 12 500 bytes: half the link.
        l.update_capacity(Time::from_us(21), 12_500, &c);
        assert_eq!(l.capacity_bps, C / 2);
        let mut h = hdr(NO_DEADLINE, 100);
        l.forward(Time::from_us(22), &c, 1, &mut h);
        assert_eq!(h.rate_kbps, 5_000_000);
    }

    fn damped() -> SwitchConfig {
        SwitchConfig {
            rate_update: RateUpdate::Damped,
            ..cfg()
        }
    }

    #[test]
    fn the_damped_rate_controller_drains_over_four_rtts_updating_every_rtt() {
        let mut l = link();
        let c = damped();
        round(&mut l, 0, 1, hdr(NO_DEADLINE, 100), &c);
        // 50 000 queued bytes over 4 × 10 µs: 10 Gb/s of drain → C = 0.
        l.update_capacity(Time::from_us(1), 50_000, &c);
        assert_eq!(l.capacity_bps, 0);
        // Not again before one RTT.
        l.update_capacity(Time::from_us(10), 0, &c);
        assert_eq!(l.capacity_bps, 0);
        // 25 000 bytes: half the link.
        l.update_capacity(Time::from_us(11), 25_000, &c);
        assert_eq!(l.capacity_bps, C / 2);
    }

    #[test]
    fn the_damped_loop_takes_the_acks_out_of_the_line_rate() {
        // 5 000 queued bytes: 1 Gb/s of drain over 4 RTTs of 10 µs, 2 Gb/s over 2. And 6 250
        // bytes of ACKs in the 20 µs since the last update: 2.5 Gb/s, which only the damped
        // loop takes out of r.
        for (c, expected) in [(damped(), 6_500_000_000), (cfg(), 8_000_000_000)] {
            let mut l = link();
            round(&mut l, 0, 1, hdr(NO_DEADLINE, 100), &c);
            // Before the first update: no window to count it in.
            l.note_acks(56);
            l.update_capacity(Time::from_us(1), 0, &c);
            assert_eq!(l.capacity_bps, C);
            l.note_acks(6_250);
            l.update_capacity(Time::from_us(21), 5_000, &c);
            assert_eq!(l.capacity_bps, expected, "{:?}", c.rate_update);
        }
    }

    /// The queue of a link whose flows follow C one RTT after each update (their commits come
    /// back with the ACKs), over `rtts` RTTs from `q0` bytes: (the least it reached, where it
    /// ended). Below 0 is capacity the link left idle.
    fn queue_under_the_loop(c: &SwitchConfig, q0: i64, rtts: u64) -> (i64, i64) {
        let mut l = link();
        round(&mut l, 0, 1, hdr(NO_DEADLINE, 100), c);
        let rtt = Time::from_us(10);
        let (mut queue, mut least) = (q0, q0);
        let mut in_flight = 0; // bytes per RTT the last update takes off, felt one RTT later
        for n in 0..rtts {
            l.update_capacity(rtt * n + Time::from_ns(1), queue.max(0) as u64, c);
            queue -= in_flight;
            least = least.min(queue);
            in_flight = ((C - l.capacity_bps) as u128 * 10 / 8 / 1_000_000) as i64;
        }
        (least, queue)
    }

    /// The two loops on a one-off queue. With an update every RTT the queue obeys
    /// q(n+1) = q(n) − q(n−1)/g, and g = 4 is its double root 1/2: Q drains as Q, Q, 3Q/4,
    /// Q/2, 5Q/16 … and never below 0. The literal loop (g = 2, every 2 RTTs) drains Q in two
    /// RTTs, Q, Q/2, 0, then its second cut, made at Q/2, holds for two more: Q/2 of idle link.
    #[test]
    fn on_a_one_off_queue_the_damped_loop_does_not_idle_the_link_and_the_literal_one_does() {
        let q0 = 20_000; // 8 Gb/s of drain over the literal 2 RTTs: C stays above 0
        let (least, end) = queue_under_the_loop(&damped(), q0, 12);
        assert!(least >= 0, "the queue overshot to {least} bytes");
        assert!(end < q0 / 50, "after 12 RTTs {end} of {q0} bytes are left");
        let (least, end) = queue_under_the_loop(&cfg(), q0, 12);
        assert_eq!(least, -q0 / 2, "the literal loop idles half the queue");
        assert_eq!(end, least, "and drains nothing more");
    }

    #[test]
    fn a_silent_entry_is_forgotten_and_frees_the_link() {
        let mut l = link();
        let c = cfg(); // entry timeout 10 ms
                       // Flow 1 is granted the link, then goes quiet (rerouted elsewhere).
        let h = round(&mut l, 0, 1, hdr(NO_DEADLINE, 100), &c);
        assert_eq!(h.pause_by, 0);
        // Flow 2, less critical, is paused behind it while flow 1 is within its timeout.
        let h = round(&mut l, 9_000, 2, hdr(NO_DEADLINE, 500), &c);
        assert_eq!((h.pause_by, h.rate_kbps), (ME, 0));
        assert_eq!(ids(&l), vec![1, 2]);
        // Past 1.25 timeouts of silence flow 1's entry is gone and flow 2 gets the link.
        let h = round(&mut l, 12_600, 2, hdr(NO_DEADLINE, 500), &c);
        assert_eq!(ids(&l), vec![2]);
        assert_eq!((h.pause_by, h.rate_kbps), (0, 10_000_000));
    }

    #[test]
    fn a_packet_notes_that_it_crossed_its_pausing_link() {
        let mut l = link();
        let c = cfg();
        round(&mut l, 0, 1, hdr(NO_DEADLINE, 100), &c);
        // Paused here: the packet leaves marked.
        let mut h = hdr(NO_DEADLINE, 500);
        l.forward(Time::from_us(100), &c, 2, &mut h);
        assert_eq!(h.pause_by, ME);
        assert!(h.pauser_crossed);
        // Paused by another link: this one leaves the mark alone.
        let mut h = PdqHeader {
            pause_by: ME + 1,
            ..hdr(NO_DEADLINE, 500)
        };
        l.forward(Time::from_us(101), &c, 3, &mut h);
        assert!(!h.pauser_crossed);
        // Accepted: no pause, no mark needed.
        let mut h = hdr(NO_DEADLINE, 50);
        l.forward(Time::from_us(102), &c, 4, &mut h);
        assert_eq!(h.pause_by, 0);
    }

    #[test]
    fn a_re_proposal_does_not_restart_the_dampening_clock() {
        // Issue 35's two-host case: a less critical flow, accepted while paused, proposes
        // again with every packet until its commit returns; a more critical flow arriving
        // 10 µs after the first accept gets in.
        let c = SwitchConfig {
            early_start_k: None,
            ..cfg()
        };
        let mut l = link();
        let mut h = hdr(NO_DEADLINE, 500);
        l.forward(Time::from_us(17), &c, 2, &mut h);
        assert_eq!(h.rate_kbps, 10_000_000);
        for t in [20, 24, 27] {
            let mut h = hdr(NO_DEADLINE, 500);
            l.forward(Time::from_us(t), &c, 2, &mut h);
            assert_eq!(h.pause_by, 0, "its own re-proposal is not damped");
        }
        assert_eq!(l.last_paused_accept, Some((Time::from_us(17), 2)));
        let mut h = hdr(NO_DEADLINE, 3);
        l.forward(Time::from_us(25), &c, 1, &mut h);
        assert_eq!(h.pause_by, ME, "within 10 µs of the first accept: damped");
        let mut h = hdr(NO_DEADLINE, 3);
        l.forward(Time::from_us(28), &c, 1, &mut h);
        assert_eq!((h.pause_by, h.rate_kbps), (0, 10_000_000));
    }

    #[test]
    fn the_drain_time_is_at_least_two_packet_times() {
        // 1 Gb/s, a handshake RTT of 8.5 µs (less than one 12 µs packet time): one queued
        // packet would otherwise take C to 1 − 12/17 of the line rate.
        let c = cfg();
        let mut l = LinkState::new(ME - 1, 1_000_000_000);
        round(
            &mut l,
            0,
            1,
            PdqHeader {
                rtt_ns: 8_500,
                ..hdr(NO_DEADLINE, 100)
            },
            &c,
        );
        l.update_capacity(Time::from_us(1), 1516, &c);
        // Drain over 2 × 2 × 12.128 µs: 1516 B in 48.5 µs = 250 Mb/s.
        assert_eq!(l.capacity_bps, 750_000_000);
    }

    #[test]
    fn a_link_that_did_not_pause_a_flow_caps_the_rate_the_pauser_may_grant() {
        let c = without_spacing();
        let mut l = link();
        l.list = vec![entry(1, C * 7 / 10, 0, 100)];
        // Flow 2 is paused by another link (77): this link leaves the pause to it but lowers
        // R_H to the 3 Gb/s it has for flow 2.
        let mut h = PdqHeader {
            pause_by: 77,
            ..hdr(NO_DEADLINE, 500)
        };
        l.forward(Time::ZERO, &c, 2, &mut h);
        assert_eq!((h.pause_by, h.rate_kbps), (77, 3_000_000));
        assert_eq!(ids(&l), vec![1]);
        // A more critical flow is capped only by flows more critical than itself.
        let mut h = PdqHeader {
            pause_by: 77,
            ..hdr(NO_DEADLINE, 50)
        };
        l.forward(Time::ZERO, &c, 3, &mut h);
        assert_eq!(h.rate_kbps, 10_000_000);
        // The digest's literal rule leaves R_H alone.
        let literal = literal(c);
        let mut h = PdqHeader {
            pause_by: 77,
            ..hdr(NO_DEADLINE, 500)
        };
        l.forward(Time::ZERO, &literal, 2, &mut h);
        assert_eq!(h.rate_kbps, 10_000_000);
    }

    #[test]
    fn a_commit_lists_a_flow_the_link_had_dropped() {
        let c = without_spacing();
        // Flow 2 was accepted here, then removed (its packet met a pause elsewhere); the pauser
        // lifted the pause and the ACK commits 3 Gb/s: listed at that rate.
        let mut l = link();
        l.list = vec![entry(1, C * 7 / 10, 0, 100)];
        let mut ack = PdqHeader {
            rate_kbps: 3_000_000,
            ..hdr(NO_DEADLINE, 500)
        };
        l.reverse(Time::ZERO, &c, 2, &mut ack, false);
        assert_eq!((ack.pause_by, ack.rate_kbps), (0, 3_000_000));
        assert_eq!(ids(&l), vec![1, 2]);
        assert_eq!(l.list[1].rate_bps, 3_000_000_000);
        assert_eq!(l.availbw(2, 10_000, &c), 0, "the link counts it");
        // A full list makes room by forgetting the least critical flow that does not send,
        // never a sender. κ = 1 and four entries: senders that ended left it above its 2κ.
        let mut l = link();
        l.list = vec![
            entry(1, 0, ME, 100),
            entry(2, 0, ME, 200),
            entry(3, 0, ME, 300),
            entry(50, C / 10, 0, 900),
        ];
        let mut ack = PdqHeader {
            rate_kbps: 1_000_000,
            ..hdr(NO_DEADLINE, 250)
        };
        l.reverse(Time::ZERO, &c, 4, &mut ack, false);
        assert_eq!((ack.pause_by, ack.rate_kbps), (0, 1_000_000));
        assert_eq!(ids(&l), vec![1, 2, 4, 50], "flow 3 (paused) makes room");
        // A flow less critical than every flow that could make room is no longer among the
        // 2κ most critical: the commit pauses it here, as Algorithm 1 would.
        let mut ack = PdqHeader {
            rate_kbps: 1_000_000,
            ..hdr(NO_DEADLINE, 800)
        };
        l.reverse(Time::ZERO, &c, 5, &mut ack, false);
        assert_eq!((ack.pause_by, ack.rate_kbps), (ME, 0));
        assert_eq!(ids(&l), vec![1, 2, 4, 50]);
        // A commit after the flow's TERM (its last ACKs) lists nothing.
        let mut ack = PdqHeader {
            rate_kbps: 1_000_000,
            ..hdr(NO_DEADLINE, 300)
        };
        l.reverse(Time::ZERO, &c, 7, &mut ack, true);
        assert_eq!(ids(&l), vec![1, 2, 4, 50]);
        // Literally, the commit passes a link that does not list the flow untouched.
        let literal = literal(c);
        let mut ack = PdqHeader {
            rate_kbps: 1_000_000,
            ..hdr(NO_DEADLINE, 500)
        };
        l.reverse(Time::ZERO, &literal, 9, &mut ack, false);
        assert_eq!((ack.pause_by, ack.rate_kbps), (0, 1_000_000));
        assert_eq!(ids(&l), vec![1, 2, 4, 50]);
    }

    #[test]
    fn a_silent_entry_is_forgotten_also_when_only_flows_paused_elsewhere_pass() {
        // A listed flow went quiet (rerouted, or a dead entry); the only packets crossing the
        // link are paused by another link. The cap they get must not count the silent entry
        // for ever, or their pauser could never lift the pause.
        let c = cfg(); // entry timeout 10 ms
        let mut l = link();
        round(&mut l, 0, 1, hdr(900, 100), &c);
        let paused_elsewhere = || PdqHeader {
            pause_by: 77,
            ..hdr(NO_DEADLINE, 500)
        };
        let mut h = paused_elsewhere();
        l.forward(Time::from_ms(5), &c, 2, &mut h);
        assert_eq!(h.rate_kbps, 0, "flow 1 holds the link");
        let mut h = paused_elsewhere();
        l.forward(Time::from_ms(13), &c, 2, &mut h);
        assert_eq!(
            h.rate_kbps, 10_000_000,
            "flow 1 silent past the timeout: forgotten"
        );
    }

    #[test]
    fn a_paused_flow_accepted_again_restarts_the_dampening_clock() {
        // The exemption is for re-proposals of one acceptance: once committed, paused here
        // and accepted anew, the flow sets the clock again and the next paused flow waits.
        let c = SwitchConfig {
            early_start_k: None,
            ..cfg()
        };
        let mut l = link();
        round(&mut l, 0, 7, hdr(NO_DEADLINE, 300), &c);
        l.capacity_bps = 0;
        let h = round(&mut l, 50, 7, hdr(NO_DEADLINE, 300), &c);
        assert_eq!(h.pause_by, ME);
        l.capacity_bps = C;
        let mut h = hdr(NO_DEADLINE, 300);
        l.forward(Time::from_us(100), &c, 7, &mut h);
        assert_eq!(h.pause_by, 0);
        assert_eq!(l.last_paused_accept, Some((Time::from_us(100), 7)));
        let mut h = hdr(NO_DEADLINE, 400);
        l.forward(Time::from_us(101), &c, 8, &mut h);
        assert_eq!(h.pause_by, ME, "two paused flows accepted 1 µs apart");
    }

    #[test]
    fn the_drain_floor_holds_huge_packets_without_overflow() {
        let c = SwitchConfig {
            packet_bytes: 3_000_000,
            ..cfg()
        };
        let mut l = link();
        round(&mut l, 0, 1, hdr(NO_DEADLINE, 100), &c);
        l.update_capacity(Time::from_us(1), 1516, &c);
        // RTT floored at 2 × 2.4 ms: 1516 B drain over 9.6 ms is 1.26 Mb/s.
        assert_eq!(l.capacity_bps, C - 1_263_333);
        // Drained over 4 such RTTs instead.
        let d = SwitchConfig {
            rate_update: RateUpdate::Damped,
            ..c
        };
        let mut l = link();
        round(&mut l, 0, 1, hdr(NO_DEADLINE, 100), &d);
        l.update_capacity(Time::from_us(1), 1516, &d);
        assert_eq!(l.capacity_bps, C - 631_666);
    }

    #[test]
    fn a_sending_flow_this_link_limits_is_counted_at_what_it_asks() {
        // Issue 35's six-flow race at one 10 Gb/s port: flow 1 holds 5.6 Gb/s committed and
        // has been offered all 10; before its commit catches up, a less critical flow must
        // not be given the difference.
        let c = without_spacing();
        let mut l = link();
        round(&mut l, 0, 1, hdr(NO_DEADLINE, 100), &c);
        l.list[0].rate_bps = 5_600_000_000;
        l.list[0].least_offers = [5_600_000_000; 2];
        let mut ack = PdqHeader {
            rate_kbps: 5_600_000,
            ..hdr(NO_DEADLINE, 100)
        };
        l.reverse(Time::ZERO, &c, 1, &mut ack, false);
        assert!(l.list[0].limited_here);
        let mut h = hdr(NO_DEADLINE, 500);
        l.forward(Time::from_us(1), &c, 2, &mut h);
        assert_eq!(h.pause_by, ME, "flow 1 asks for the whole link");
        // A flow limited elsewhere (committed 3 Gb/s against offers of 10) is counted at its
        // commit, and the rest goes to the next flow.
        let mut l = link();
        let mut h = hdr(NO_DEADLINE, 100);
        l.forward(Time::ZERO, &c, 1, &mut h);
        let mut ack = PdqHeader {
            rate_kbps: 3_000_000,
            ..h
        };
        l.reverse(Time::ZERO, &c, 1, &mut ack, false);
        assert!(!l.list[0].limited_here);
        let mut h = hdr(NO_DEADLINE, 500);
        l.forward(Time::from_us(1), &c, 2, &mut h);
        assert_eq!(h.rate_kbps, 7_000_000);
        // Literally, the committed rate is all that counts.
        let literal = literal(c);
        let mut l = link();
        round(&mut l, 0, 1, hdr(NO_DEADLINE, 100), &literal);
        l.list[0].rate_bps = 5_600_000_000;
        l.list[0].limited_here = true;
        assert_eq!(l.availbw(1, 10_000, &literal), 4_400_000_000);
    }
}
