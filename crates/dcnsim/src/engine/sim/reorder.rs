//! What a flow saw of reordering and loss: the bookkeeping behind the reordering columns of
//! `flows.csv` (out-of-order arrivals, duplicate ACKs by cause, spurious retransmissions).
//!
//! The engine tells [`ReorderStats`] what the sender sent and what reached the receiving host,
//! records the data segments the network dropped in [`DroppedSeqs`], and feeds the receiver
//! through [`ReceiverInput`], which classifies each duplicate ACK it causes as loss or
//! reordering. Nothing here changes what the endpoints see.

use crate::lb::resequencer::Resequencer;
use crate::net::packet::{Packet, PacketKind};
use crate::protocols::Receiver;
use crate::units::Time;

/// What a flow saw of reordering and queueing (the reordering columns of `flows.csv`).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct ReorderStats {
    /// First transmissions that reached the receiving host below the highest byte already
    /// there.
    pub ooo_arrivals: u64,
    pub dupacks_reorder: u64,
    pub dupacks_loss: u64,
    /// Retransmissions driven by duplicate ACKs (fast retransmit, NewReno's partial-ACK
    /// retransmit) of segments the network had never dropped: caused by reordering.
    pub spurious_retransmits: u64,
    /// One past the highest data byte the sender has sent, and its value at the sender's last
    /// timeout: resends below that are go-back-N after the timeout, not dupACK-driven (RFC 6582
    /// allows no fast retransmit below it).
    pub sent_max: u64,
    pub rto_high: u64,
    /// One past the highest data byte that reached the receiving host.
    pub max_end: u64,
}

impl ReorderStats {
    /// The sender emitted data packet `p` (any payload). A retransmission above the last
    /// timeout's high-water mark of a segment the network never dropped was caused by
    /// reordering.
    #[inline]
    pub fn on_data_sent(&mut self, p: &Packet, dropped: &DroppedSeqs) {
        if p.retransmit && p.seq >= self.rto_high && !dropped.contains(p.seq) {
            self.spurious_retransmits += 1;
        }
        self.sent_max = self.sent_max.max(p.seq + p.payload as u64);
    }

    /// A packet of the flow reached the receiving host (before any reordering buffer).
    #[inline]
    pub fn on_arrival(&mut self, p: &Packet) {
        if p.kind == PacketKind::Data && p.payload > 0 {
            if !p.retransmit && p.seq < self.max_end {
                self.ooo_arrivals += 1;
            }
            self.max_end = self.max_end.max(p.seq + p.payload as u64);
        }
    }

    /// The sender's retransmission timer fired: what it resends below `sent_max` now is
    /// go-back-N.
    #[inline]
    pub fn on_timeout(&mut self) {
        self.rto_high = self.sent_max;
    }
}

/// The first bytes of a flow's dropped segments at or above the sender's acknowledged prefix,
/// sorted, so that the per-packet questions ("was the segment below this one dropped?") cost a
/// binary search, not a scan of every drop.
///
/// Entries below the sender's `snd_una` ([`Sender::snd_una`](crate::protocols::Sender::snd_una))
/// are pruned at each insertion, so the list holds about one window of drops, not every drop of
/// a long lossy flow (and an insertion shifts that much, not the whole history).
#[derive(Default)]
pub(super) struct DroppedSeqs(Vec<u64>);

impl DroppedSeqs {
    /// Records the drop of the segment starting at `seq`, when the sender's acknowledged prefix
    /// is `snd_una`.
    ///
    /// Pruning below `snd_una` cannot change an answer: `snd_una` never decreases, and every
    /// later question is at or above it. The receiver asks about its next expected byte, which
    /// is at or above every acknowledgement it has sent. The sender side asks about the
    /// segments it retransmits: the TCP family, pFabric, RCP and D3 resend only from `snd_una`
    /// up, and PDQ never marks a packet as a retransmission.
    pub fn insert(&mut self, seq: u64, snd_una: u64) {
        let stale = self.0.partition_point(|&s| s < snd_una);
        self.0.drain(..stale);
        if seq < snd_una {
            return;
        }
        if let Err(at) = self.0.binary_search(&seq) {
            self.0.insert(at, seq);
        }
    }

    #[inline]
    pub fn contains(&self, seq: u64) -> bool {
        self.0.binary_search(&seq).is_ok()
    }
}

/// What the receiver is fed with, and where its duplicate ACKs are counted.
pub(super) struct ReceiverInput<'a> {
    pub stats: &'a mut ReorderStats,
    pub dropped: &'a DroppedSeqs,
    pub size: u64,
    pub now: Time,
}

impl ReceiverInput<'_> {
    /// Hands `pkt` to the receiver. A data packet that does not advance the receiver's next
    /// expected byte makes a duplicate ACK. Its cause is loss when the segment missing below
    /// it was dropped, or, for a second copy of a segment, when the copies come from a
    /// timeout's go-back-N; otherwise reordering (a late segment, or a copy of a segment that
    /// reordering made the sender retransmit).
    pub fn feed(&mut self, receiver: &mut Receiver, pkt: &Packet) {
        let before = receiver.bytes_delivered();
        receiver.handle_packet(self.now, pkt);
        let data = pkt.kind == PacketKind::Data && pkt.payload > 0;
        if data && before < self.size && receiver.bytes_delivered() == before {
            let loss = if pkt.seq > before {
                self.dropped.contains(before)
            } else {
                // A second copy: one sent before a timeout was resent by its go-back-N.
                pkt.seq < self.stats.rto_high
            };
            if loss {
                self.stats.dupacks_loss += 1;
            } else {
                self.stats.dupacks_reorder += 1;
            }
        }
    }

    /// Hands the receiver `first` (a packet the buffer let through) and every held packet that
    /// is in order now (or expired). Like GRO, contiguous data with the same ECN codepoint goes
    /// up as one merged segment, so TCP answers a released run with one ACK rather than a burst
    /// of partial ACKs.
    pub fn release_held(
        &mut self,
        rs: &mut Resequencer,
        receiver: &mut Receiver,
        first: Option<&Packet>,
    ) {
        let mut run: Option<Packet> = None;
        if let Some(p) = first {
            if p.payload > 0 {
                run = Some(p.clone());
            } else {
                self.feed(receiver, p);
            }
        }
        loop {
            // Where the receiver will stand once the run is in, counting what the buffer let
            // through out of order earlier.
            let delivered = rs.extend(receiver.bytes_delivered());
            let next = match &run {
                Some(r) if r.seq <= delivered => rs.extend(delivered.max(r.seq + r.payload as u64)),
                _ => delivered,
            };
            let Some(p) = rs.pop_ready(next) else {
                if let Some(r) = run.take() {
                    self.feed(receiver, &r);
                }
                break;
            };
            match run.as_mut() {
                // Contiguous with the run (through data the receiver already holds): one
                // merged segment from the run's start to the packet's end.
                Some(r) if r.seq <= delivered && p.seq <= next && r.ecn == p.ecn => {
                    let end = next.max(p.seq + p.payload as u64);
                    r.payload = (end - r.seq) as u32;
                    r.ts = p.ts;
                    r.retransmit |= p.retransmit;
                }
                _ => {
                    if let Some(r) = run.replace(p) {
                        self.feed(receiver, &r);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::DroppedSeqs;

    #[test]
    fn dropped_seqs_answer_membership_in_any_insertion_order() {
        let mut d = DroppedSeqs::default();
        for seq in [43_800, 1_460, 29_200, 1_460, 0] {
            d.insert(seq, 0);
        }
        assert_eq!(
            d.0,
            vec![0, 1_460, 29_200, 43_800],
            "sorted, without repeats"
        );
        assert!(d.contains(29_200) && d.contains(0));
        assert!(!d.contains(2_920) && !d.contains(50_000));
    }

    #[test]
    fn dropped_seqs_prune_below_snd_una_and_keep_every_answer_above_it() {
        let mut d = DroppedSeqs::default();
        for seq in [0, 2_920, 5_840, 8_760] {
            d.insert(seq, 0);
        }
        // The sender's snd_una has passed two of them: they go at the next insertion.
        d.insert(11_680, 5_840);
        assert_eq!(d.0, vec![5_840, 8_760, 11_680]);
        // A drop below snd_una (a late copy of acknowledged data) is not kept.
        d.insert(1_460, 5_840);
        assert_eq!(d.0, vec![5_840, 8_760, 11_680]);

        // A long flow losing every seventh segment, snd_una trailing the newest drop by a
        // window of 63 segments (so it often sits on a dropped segment): the list stays one
        // window long, and every question at or above snd_una gets the answer an unpruned
        // list would give.
        const MSS: u64 = 1_460;
        let (mut pruned, mut all) = (DroppedSeqs::default(), Vec::new());
        for seg in (0..100_000u64).step_by(7) {
            let snd_una = seg.saturating_sub(63) * MSS;
            pruned.insert(seg * MSS, snd_una);
            all.push(seg * MSS);
            assert!(pruned.0.len() <= 63 / 7 + 1, "{} entries", pruned.0.len());
            for q in (snd_una..(seg + 8) * MSS).step_by(MSS as usize) {
                assert_eq!(pruned.contains(q), all.binary_search(&q).is_ok(), "seq {q}");
            }
        }
        assert_eq!(all.len(), 14_286);
    }
}
