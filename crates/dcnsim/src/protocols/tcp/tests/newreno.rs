//! NewReno loss recovery (RFC 5681 §3.2, RFC 6582 §3.2) and window growth.

use super::*;
use crate::protocols::{Endpoint, SenderEndpoint};

#[test]
fn one_drop_one_fast_retransmit_one_halving_no_timeout() {
    let size = 400 * MSS;
    let mut pair = Pair::new(&params("tcp", |_| {}), size);
    pair.fwd = drop_segments(&[(50, 1)]);
    pair.start();
    pair.run();
    pair.assert_completed(size);
    let st = pair.s.stats();
    assert_eq!(
        (st.fast_retransmits, st.retransmits, st.timeouts),
        (1, 1, 0)
    );
    let cuts = pair.ssthresh_changes();
    assert_eq!(cuts.len(), 1, "one reduction only");
    let c = cuts[0];
    // Limited transmit sent two new segments on the first two dupACKs; they are not part of
    // the FlightSize that sets ssthresh (RFC 5681 §3.2 step 2).
    assert_eq!(c.ssthresh, ((c.flight_before - 2 * MSS) / 2).max(2 * MSS));
    assert_eq!(
        c.cwnd,
        c.ssthresh + 3 * MSS,
        "window inflated by the three dupACKs"
    );
    assert!(!c.rec_before && c.rec);
    // The retransmission is segment 50, flagged, and goes out on the third dupACK.
    let retx: Vec<_> = pair.data_sent().filter(|p| p.1.retransmit).collect();
    assert_eq!(retx.len(), 1);
    assert_eq!((retx[0].0, retx[0].1.seq), (c.t, 50 * MSS));
    // Recovery ends once, with cwnd ≤ ssthresh, and ends by a full ACK.
    let exits: Vec<_> = pair
        .acks
        .iter()
        .filter(|s| s.rec_before && !s.rec)
        .collect();
    assert_eq!(exits.len(), 1);
    assert!(exits[0].cwnd <= exits[0].ssthresh);
    // No congestion-avoidance growth while the window is inflated: only +1 SMSS per dupACK.
    for s in pair
        .acks
        .iter()
        .filter(|s| s.rec_before && s.rec && s.ack == s.una_before)
    {
        assert_eq!(s.cwnd, s.cwnd_before + MSS);
    }
}

#[test]
fn two_drops_in_one_window_recovered_by_partial_ack_with_one_reduction() {
    let size = 400 * MSS;
    let mut pair = Pair::new(&params("tcp", |_| {}), size);
    pair.fwd = drop_segments(&[(50, 1), (53, 1)]);
    pair.start();
    pair.run();
    pair.assert_completed(size);
    let st = pair.s.stats();
    assert_eq!(
        (st.fast_retransmits, st.retransmits, st.timeouts),
        (1, 2, 0)
    );
    assert_eq!(pair.ssthresh_changes().len(), 1, "not two halvings");
    let partial: Vec<_> = pair
        .acks
        .iter()
        .filter(|s| s.rec_before && s.rec && s.ack > s.una_before)
        .collect();
    assert_eq!(partial.len(), 1);
    assert_eq!(partial[0].ack, 53 * MSS);
    // Deflated by the newly acked bytes, plus one SMSS back.
    let newly = partial[0].ack - partial[0].una_before;
    assert_eq!(partial[0].cwnd, partial[0].cwnd_before - newly + MSS);
    let retx: Vec<_> = pair
        .data_sent()
        .filter(|p| p.1.retransmit)
        .map(|p| p.1.seq)
        .collect();
    assert_eq!(retx, [50 * MSS, 53 * MSS]);
}

#[test]
fn timer_restarts_only_on_the_first_partial_ack() {
    let size = 400 * MSS;
    let mut pair = Pair::new(&params("tcp", |_| {}), size);
    pair.fwd = drop_segments(&[(50, 1), (53, 1), (56, 1)]);
    pair.start();
    pair.run();
    pair.assert_completed(size);
    assert_eq!(pair.s.stats().timeouts, 0);
    assert_eq!(pair.ssthresh_changes().len(), 1);
    let partial: Vec<_> = pair
        .acks
        .iter()
        .filter(|s| s.rec_before && s.rec && s.ack > s.una_before)
        .collect();
    assert_eq!(partial.len(), 2);
    assert!(partial[1].t > partial[0].t);
    let first = partial[0].deadline.unwrap();
    assert!(first > partial[0].t, "restarted at the first partial ACK");
    assert_eq!(partial[1].deadline, Some(first), "left alone at the second");
}

#[test]
fn dropping_the_retransmission_too_leads_to_a_timeout() {
    let size = 400 * MSS;
    let mut pair = Pair::new(&params("tcp", |_| {}), size);
    pair.fwd = drop_segments(&[(50, 2)]);
    pair.start();
    pair.run();
    pair.assert_completed(size);
    let st = pair.s.stats();
    assert_eq!((st.fast_retransmits, st.timeouts), (1, 1));
    assert_eq!(pair.timeouts.len(), 1);
    let (t, cwnd, ssthresh) = pair.timeouts[0];
    assert_eq!(cwnd, MSS, "loss window after the timeout");
    assert!(ssthresh >= 2 * MSS);
    // The timeout resends segment 50 at once (go-back-N from snd_una).
    let after: Vec<_> = pair.data_sent().filter(|p| p.0 == t).collect();
    assert_eq!(after.len(), 1);
    assert_eq!((after[0].1.seq, after[0].1.retransmit), (50 * MSS, true));
    // No fast retransmit triggered by dupACKs after the timeout.
    assert_eq!(pair.ssthresh_changes().len(), 1);
}

#[test]
fn a_timeout_during_fast_recovery_keeps_the_recoverys_ssthresh() {
    let p = params("tcp", |_| {});
    let mut s = established_sender(&p, 1000 * MSS);
    let t = RTT * 2;
    // Three dupACKs for a flight of 10: recovery with ssthresh 5 SMSS. Then 40 more dupACKs,
    // each letting one new segment out through the inflated window.
    for _ in 0..43 {
        s.handle_packet(t, &ack(0, false, RTT));
        std::iter::from_fn(|| s.poll_transmit(t)).for_each(drop);
    }
    assert!(s.in_recovery());
    assert_eq!(s.ssthresh(), 5 * MSS);
    let flight = s.bytes_in_flight();
    assert!(
        flight >= 40 * MSS,
        "the inflated window sent new data: {flight}"
    );
    // The timeout: FlightSize/2 would be over 20 SMSS; the recovery's 5 SMSS is kept.
    let d = s.poll_timeout().unwrap();
    s.handle_timeout(d);
    assert_eq!(
        (s.cwnd(), s.ssthresh(), s.in_recovery()),
        (MSS, 5 * MSS, false)
    );
}

#[test]
fn dupacks_after_a_timeout_do_not_cause_a_second_reduction() {
    let p = params("tcp", |_| {});
    // Control: without a timeout, three dupACKs do start fast retransmit.
    let mut s = established_sender(&p, 100 * MSS);
    for _ in 0..3 {
        s.handle_packet(RTT * 2, &ack(0, false, RTT));
    }
    assert_eq!(s.stats().fast_retransmits, 1);

    let mut s = established_sender(&p, 100 * MSS);
    let d = s.poll_timeout().unwrap();
    s.handle_timeout(d);
    assert_eq!(
        (s.cwnd(), s.ssthresh(), s.stats().timeouts),
        (MSS, 5 * MSS, 1)
    );
    let r = s.poll_transmit(d).unwrap();
    assert_eq!((r.seq, r.retransmit), (0, true));
    assert!(s.poll_transmit(d).is_none());
    // DupACKs from the old flight arrive after the timeout: recover guard, no reaction.
    for _ in 0..6 {
        s.handle_packet(d, &ack(0, false, RTT));
        assert!(s.poll_transmit(d).is_none());
    }
    assert_eq!(s.stats().fast_retransmits, 0);
    assert_eq!(
        (s.cwnd(), s.ssthresh(), s.in_recovery()),
        (MSS, 5 * MSS, false)
    );
    // The receiver held segments 1..9: the resent segment 0 brings the ACK to 10·MSS, equal
    // to recover; dupACKs for go-back-N duplicates at that point are still ignored.
    let t = d + RTT;
    s.handle_packet(t, &ack(10 * MSS, false, d));
    assert_eq!(s.cwnd(), 2 * MSS);
    let sent: Vec<_> = std::iter::from_fn(|| s.poll_transmit(t))
        .map(|p| p.seq)
        .collect();
    assert_eq!(sent, [10 * MSS, 11 * MSS]);
    for _ in 0..3 {
        s.handle_packet(t, &ack(10 * MSS, false, d));
    }
    assert_eq!(s.stats().fast_retransmits, 0);
    assert_eq!(s.ssthresh(), 5 * MSS);
    // Once the ACK covers more than recover, three dupACKs are a new loss again.
    s.handle_packet(t + RTT, &ack(11 * MSS, false, t));
    std::iter::from_fn(|| s.poll_transmit(t + RTT)).for_each(drop);
    for _ in 0..3 {
        s.handle_packet(t + RTT, &ack(11 * MSS, false, t));
    }
    assert_eq!(s.stats().fast_retransmits, 1);
    assert!(s.in_recovery());
}

#[test]
fn slow_start_counts_at_most_one_smss_per_ack_and_avoidance_adds_smss_squared_over_cwnd() {
    let p = params("tcp", |_| {});
    // A stretch ACK for 4 segments grows cwnd by 1 SMSS only (ABC, L = 1).
    let mut s = established_sender(&p, 100 * MSS);
    s.handle_packet(RTT * 2, &ack(4 * MSS, false, RTT));
    assert_eq!(s.cwnd(), 11 * MSS);

    // Reach congestion avoidance through a fast recovery: 9 dupACKs for a flight of 10.
    let mut s = established_sender(&p, 100 * MSS);
    for _ in 0..9 {
        s.handle_packet(RTT * 2, &ack(0, false, RTT));
    }
    assert_eq!((s.ssthresh(), s.cwnd()), (5 * MSS, 14 * MSS));
    let out: Vec<_> = std::iter::from_fn(|| s.poll_transmit(RTT * 2)).collect();
    // The fast retransmission of segment 0, then 4 new segments let in by inflation.
    assert_eq!(
        out.iter().map(|p| p.seq / MSS).collect::<Vec<_>>(),
        [0, 10, 11, 12, 13]
    );
    assert!(out[0].retransmit && !out[1].retransmit);
    // Full ACK: cwnd = min(ssthresh, max(FlightSize, SMSS) + SMSS) = min(5, 4 + 1) SMSS.
    s.handle_packet(RTT * 3, &ack(10 * MSS, false, RTT * 2));
    assert!(!s.in_recovery());
    assert_eq!(s.cwnd(), 5 * MSS);
    // Congestion avoidance: + SMSS·SMSS/cwnd per ACK.
    s.handle_packet(RTT * 3, &ack(11 * MSS, false, RTT * 2));
    assert_eq!(s.cwnd(), 5 * MSS + MSS * MSS / (5 * MSS));
    assert_eq!(s.stats().fast_retransmits, 1);
}

#[test]
fn limited_transmit_sends_one_new_segment_on_each_of_the_first_two_dupacks() {
    let p = params("tcp", |_| {});
    let mut s = established_sender(&p, 100 * MSS);
    let t = RTT * 2;
    let sent_after_dupack = |s: &mut TcpSender| {
        s.handle_packet(t, &ack(0, false, RTT));
        std::iter::from_fn(|| s.poll_transmit(t))
            .map(|p| (p.seq / MSS, p.retransmit))
            .collect::<Vec<_>>()
    };
    assert_eq!(sent_after_dupack(&mut s), [(10, false)]);
    assert_eq!(sent_after_dupack(&mut s), [(11, false)]);
    // The third dupACK: fast retransmit; cwnd was 10 segments, the flight 12.
    assert_eq!(sent_after_dupack(&mut s), [(0, true)]);
    assert_eq!(
        s.ssthresh(),
        5 * MSS,
        "FlightSize without the limited-transmit segments"
    );
    assert_eq!(s.cwnd(), 8 * MSS);

    // Switched off: nothing new goes out before the third dupACK.
    let p = params("tcp", |c| c.limited_transmit = Some(false));
    let mut s = established_sender(&p, 100 * MSS);
    assert!(sent_after_dupack(&mut s).is_empty());
    assert!(sent_after_dupack(&mut s).is_empty());
    assert_eq!(sent_after_dupack(&mut s), [(0, true)]);
    assert_eq!(s.ssthresh(), 5 * MSS);
}

#[test]
fn limited_transmit_respects_the_receiver_window() {
    // rwnd = cwnd = 10 segments: a dupACK lets nothing new out.
    let p = params("tcp", |c| c.rwnd_pkts = Some(10));
    let mut s = established_sender(&p, 100 * MSS);
    s.handle_packet(RTT * 2, &ack(0, false, RTT));
    assert!(s.poll_transmit(RTT * 2).is_none());
}
