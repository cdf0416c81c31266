//! MERP's switch (§4.3): a flow state table per egress link, the distributed rate controller
//! (Algorithm 1) when a packet arrives, rate adjustment (Algorithm 3) when it leaves. The
//! module doc of [`super`] lists every choice made here.

use super::header::{kbps, MerpHeader, MerpKind};
use super::route::Memr;
use super::schedule::{vdg, FlowEntry};
use super::{Handover, MerpParams};
use crate::net::network::{Network, Port};
use crate::net::packet::Packet;
use crate::net::{NodeIdx, PortIdx};
use crate::protocols::agent::{Admission, SilenceSweep, SwitchHooks};
use crate::units::Time;

/// The rate of the ACKs (of flows going the other way) that leave a link, measured over
/// windows of one RTT: the rate of the last complete window.
#[derive(Clone, Debug, Default)]
pub struct AckMeter {
    window_start: Time,
    bytes: u64,
    /// Bytes/s over the last complete window.
    rate: f64,
}

impl AckMeter {
    /// Closes the windows that ended before `now` (a window with no ACK measures 0).
    fn roll(&mut self, now: Time, window: Time) {
        let elapsed = now.saturating_sub(self.window_start);
        if elapsed < window {
            return;
        }
        self.rate = if elapsed < window + window {
            self.bytes as f64 / window.as_secs_f64()
        } else {
            0.0
        };
        self.bytes = 0;
        self.window_start = now - Time::from_ps(elapsed.ps() % window.ps());
    }

    fn add(&mut self, now: Time, window: Time, bytes: u32) {
        self.roll(now, window);
        self.bytes += bytes as u64;
    }

    /// Bytes/s of ACKs in the last complete window before `now`.
    pub fn rate(&mut self, now: Time, window: Time) -> f64 {
        self.roll(now, window);
        self.rate
    }
}

/// One egress link: its capacity, flow state table and the ACK rate it carries.
#[derive(Clone, Debug)]
pub struct Link {
    /// C, bytes/s.
    pub capacity: f64,
    /// T, kept in vdl order (ties: the lower flow id first), so that RateAdj reads the first
    /// flows off its front.
    pub table: Vec<FlowEntry>,
    pub acks: AckMeter,
    sweep: SilenceSweep,
}

/// What RateAdj gives a flow on a link.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Grant {
    /// α·(C − ACK rate): the first flow, early start, and flows behind a first flow that is
    /// held elsewhere (work-conserving hand-over).
    Full,
    /// The second flow's detecting rate, (n − 1)(1 − α)·C.
    Second,
    /// The others' detecting rate, (1 − α)·C.
    Other,
}

fn order_key(f: &FlowEntry) -> (Time, u32) {
    (f.vdl, f.flow)
}

impl Link {
    /// A link of `capacity` bytes/s with an empty table.
    pub fn new(capacity: f64) -> Link {
        Link {
            capacity,
            table: Vec::new(),
            acks: AckMeter::default(),
            sweep: SilenceSweep::default(),
        }
    }

    fn position(&self, flow: u32) -> Option<usize> {
        self.table.iter().position(|f| f.flow == flow)
    }

    /// Restores vdl order after VDG (whose order is the schedule's, ties aside): an insertion
    /// sort, linear on a table that is nearly in order.
    fn sort(&mut self) {
        for end in 1..self.table.len() {
            self.sift_left(end);
        }
    }

    /// Moves the entry at `i` left past every entry it precedes in vdl order; returns where.
    fn sift_left(&mut self, mut i: usize) -> usize {
        let t = &mut self.table;
        while i > 0 && order_key(&t[i]) < order_key(&t[i - 1]) {
            t.swap(i, i - 1);
            i -= 1;
        }
        i
    }

    /// Moves the entry at `i`, whose vdl changed, to its place in vdl order; returns where.
    fn reposition(&mut self, i: usize) -> usize {
        let mut i = self.sift_left(i);
        let t = &mut self.table;
        while i + 1 < t.len() && order_key(&t[i]) > order_key(&t[i + 1]) {
            t.swap(i, i + 1);
            i += 1;
        }
        i
    }

    /// Algorithm 3's choice for the flow at `me`. Flows are taken in vdl order: the first
    /// gets the full grant and, under the work-conserving hand-over, so does each next one
    /// while every flow before it is held on another link of its path (`held`). The flow after
    /// the last full grant is the second: full too when that one will end within `window`
    /// bytes here (early start).
    fn grant(&self, me: usize, window: f64, held: impl Fn(&FlowEntry) -> bool) -> Grant {
        let mut i = 0;
        while i < me && held(&self.table[i]) {
            i += 1;
        }
        if i == me {
            Grant::Full
        } else if i + 1 < me {
            Grant::Other
        } else if (self.table[i].rs as f64) < window {
            Grant::Full // early start
        } else {
            Grant::Second
        }
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
    handover: Handover,
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
            handover: p.handover,
            ended: Vec::new(),
            syn_sent: Vec::new(),
            memr: memr.then(Memr::default),
        }
    }

    /// MEMR's next hop for `pkt` at `node` (see [`super::route`]); `None` without route
    /// control, or for packets it leaves to ECMP.
    pub fn memr_route(
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
    /// adjustment (line 12) waits until the packet leaves ([`Self::packet_leaves`], as §4.3 says).
    pub fn packet_arrives(&mut self, now: Time, port: PortIdx, pkt: &mut Packet) {
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
                link.table.remove(i);
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
                    link.table.push(FlowEntry::new(
                        pkt.flow,
                        pkt.dst,
                        h.size as u64,
                        arrival,
                        now,
                    ));
                }
                vdg(&mut link.table, now, link.capacity);
                link.sort();
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
        let i = link.reposition(i);
        let f = &mut link.table[i];
        match h.kind {
            MerpKind::Data if pkt.payload > 0 => {
                f.last_data = now;
                f.rs = f.rs.min(remaining_after(h.size as u64, pkt));
            }
            MerpKind::Det => {
                f.last_det = now;
                // Its asr is already a detecting rate: a link before this one holds it.
                f.held_upstream = h.asr_kbps <= h.q_kbps;
            }
            _ => {}
        }
        h.write(pkt);
    }

    /// Algorithm 3 (RateAdj), when a SYN, DATA or DET packet leaves `port`: the first flow (the
    /// smallest vdl) may send at α·C; the second detects at (n − 1)·(1 − α)·C, or sends at α·C
    /// if the first will finish within an RTT (early start); the others detect at (1 − α)·C;
    /// detection is capped at Q. The packet's Q comes down to this link's share of its own
    /// capacity first, as asr does (see "Q on a path of several rates" in the module doc).
    /// C for DATA is what the ACKs leaving this link leave of it ("Room for the ACKs"), and
    /// the work-conserving hand-over passes the full grant on past a first flow held elsewhere
    /// ("The hand-over"; both in the module doc). ACKs are measured here.
    pub fn packet_leaves(&mut self, now: Time, port: PortIdx, pkt: &mut Packet) {
        let Some(mut h) = MerpHeader::read(pkt) else {
            return;
        };
        let link = &mut self.links[port as usize];
        if !h.kind.is_forward() {
            // The replies to DATA and FIN, DATA's own class: SYNACKs and BOOSTs answer the
            // handshake and detection, DETACKs yield to DATA.
            if matches!(h.kind, MerpKind::DataAck | MerpKind::FinAck) {
                link.acks.add(now, self.rtt, pkt.size);
            }
            return;
        }
        if h.kind == MerpKind::Fin {
            return;
        }
        let Some(me) = link.position(pkt.flow) else {
            return;
        };
        // Whether the links before this one let the flow send (its asr is not yet a
        // detecting rate).
        let free_upstream = h.asr_kbps > h.q_kbps;
        let (alpha, c) = (self.alpha, link.capacity * 8.0);
        h.q_kbps = h.q_kbps.min(kbps(self.q * c));
        let q = h.q_kbps as f64 * 1000.0;
        // What the ACKs leave of the link, but the full grant stays above Q, so that it still
        // reads as "send" (§4.4: Q ≤ α·C): with Q = 0.8·C, room for ACKs up to ~20 % of C.
        let free = (c - 8.0 * link.acks.rate(now, self.rtt)).max((self.q * c + 1e3) / alpha);
        let n = link.table.len() as f64;
        let window = alpha * link.capacity * self.rtt.as_secs_f64();
        let rtt = self.rtt;
        let grant = match self.handover {
            Handover::Paper => link.grant(me, window, |_| false),
            Handover::WorkConserving => link.grant(me, window, |f| held_elsewhere(f, rtt)),
        };
        let rate = match grant {
            Grant::Full => alpha * free,
            Grant::Second => ((n - 1.0) * (1.0 - alpha) * c).min(q),
            Grant::Other => ((1.0 - alpha) * c).min(q),
        };
        // The hand-over's clock starts when a packet leaves with the full grant and nothing
        // before this link holds the flow: from then on the flow can hear of it.
        let f = &mut link.table[me];
        f.granted_at = match grant {
            Grant::Full if free_upstream => f.granted_at.min(now),
            _ => Time::MAX,
        };
        h.asr_kbps = h.asr_kbps.min(kbps(rate));
        h.write(pkt);
    }
}

/// The flow's bytes still to cross the link once the DATA packet `pkt` has: its wire size
/// less the wire bytes up to the packet's last byte. Segments are `mss` bytes but the last, so
/// a packet's segments up to its end are ⌈end / payload⌉: exact for a full segment, at least
/// the flow's whole count for the last one (which leaves 0, as it should).
fn remaining_after(wire_size: u64, pkt: &Packet) -> u64 {
    let end = pkt.seq + pkt.payload as u64;
    let header = pkt.size.saturating_sub(pkt.payload) as u64;
    let through = end + end.div_ceil(pkt.payload as u64) * header;
    wire_size.saturating_sub(through)
}

/// Whether a flow first here is held on another link of its path: it still sends DETs, and
/// either its latest DET arrived with a detecting rate (a link before this one holds it) or
/// a DET arrived more than an RTT after one of its packets left here with the full grant and
/// nothing before holding it (it has heard of the grant, so a link after this one holds it).
/// A flow whose latest DET comes free from the links before, but whose grant has not yet
/// left here, is not held: its DETs may be waiting in this link's queue behind the DATA of
/// the flow that borrowed its grant.
fn held_elsewhere(f: &FlowEntry, rtt: Time) -> bool {
    f.last_det > f.last_data
        && (f.held_upstream || (f.granted_at != Time::MAX && f.last_det > f.granted_at + rtt))
}

impl SwitchHooks for MerpSwitch {
    fn on_enqueue(&mut self, now: Time, port: PortIdx, _at: &Port, pkt: &mut Packet) -> Admission {
        self.packet_arrives(now, port, pkt);
        Admission::Normal
    }

    fn route(
        &mut self,
        now: Time,
        node: NodeIdx,
        pkt: &Packet,
        candidates: &[PortIdx],
        _ports: &[Port],
    ) -> Option<PortIdx> {
        self.memr_route(now, node, pkt, candidates)
    }

    fn on_dequeue(&mut self, now: Time, port: PortIdx, _at: &Port, pkt: &mut Packet) {
        self.packet_leaves(now, port, pkt);
    }
}
