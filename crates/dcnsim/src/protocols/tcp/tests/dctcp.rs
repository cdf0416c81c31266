//! DCTCP: ECT data, the α estimator, the once-per-window cut.

use super::*;
use crate::protocols::{Endpoint, SenderEndpoint};

/// Snaps at which an α update happened (the ACK that closed a window).
fn window_closes(pair: &Pair) -> Vec<Snap> {
    let mut prev = 0;
    let mut out = Vec::new();
    for s in &pair.acks {
        if s.windows > prev {
            assert_eq!(s.windows, prev + 1, "one α update per ACK at most");
            out.push(*s);
            prev = s.windows;
        }
    }
    out
}

#[test]
fn dctcp_data_is_ect_and_tcp_data_is_not() {
    for (proto, ecn) in [("dctcp", Ecn::Ect), ("tcp", Ecn::NotEct)] {
        let mut pair = Pair::new(&params(proto, |_| {}), 20 * MSS);
        pair.fwd = drop_segments(&[(12, 1)]);
        pair.start();
        pair.run();
        assert!(pair.data_sent().all(|p| p.1.ecn == ecn), "{proto}");
        assert!(pair
            .sent
            .iter()
            .filter(|p| p.1.kind == PacketKind::Syn)
            .all(|p| p.1.ecn == Ecn::NotEct));
        assert_eq!(pair.s.stats().retransmits, 1);
    }
}

#[test]
fn dctcp_alpha_decays_by_one_minus_g_per_window_without_marks() {
    let mut pair = Pair::new(&params("dctcp", |_| {}), 3000 * MSS);
    pair.start();
    pair.run();
    pair.assert_completed(3000 * MSS);
    let closes = window_closes(&pair);
    assert!(closes.len() >= 6, "{} windows", closes.len());
    for c in &closes {
        let expect = (15.0f64 / 16.0).powi(c.windows as i32);
        assert!(
            (c.alpha - expect).abs() < 1e-12,
            "window {}: {}",
            c.windows,
            c.alpha
        );
    }
    // The first window is the initial flight of 10 segments.
    assert_eq!(closes[0].ack, 10 * MSS);
    assert_eq!(pair.s.dctcp_counters().1, 0, "no ECE, no cut");
    assert_eq!(pair.ssthresh_changes().len(), 0);
}

#[test]
fn dctcp_every_packet_marked_alpha_to_one_and_one_cut_per_window() {
    let mut pair = Pair::new(
        &params("dctcp", |c| c.dctcp_init_alpha = Some(0.0)),
        2000 * MSS,
    );
    pair.fwd = Box::new(|_| Fate::Mark);
    pair.start();
    pair.run();
    pair.assert_completed(2000 * MSS);
    assert!(pair
        .replies
        .iter()
        .filter(|p| p.1.kind == PacketKind::Ack)
        .all(|p| p.1.ece));
    let closes = window_closes(&pair);
    assert!(closes.len() >= 50, "{} windows", closes.len());
    for c in &closes {
        let expect = 1.0 - (15.0f64 / 16.0).powi(c.windows as i32);
        assert!(
            (c.alpha - expect).abs() < 1e-12,
            "window {}: {}",
            c.windows,
            c.alpha
        );
    }
    assert!(closes.last().unwrap().alpha > 0.95);
    // Cuts per window: exactly one (the window's first ECE), never more.
    let mut per_window: HashMap<u64, u64> = HashMap::new();
    let mut prev_cuts = 0;
    for s in &pair.acks {
        *per_window.entry(s.windows).or_default() += s.cuts - prev_cuts;
        prev_cuts = s.cuts;
    }
    assert!(per_window.values().all(|&n| n <= 1), "{per_window:?}");
    assert_eq!(
        per_window.values().filter(|&&n| n == 1).count() as u64,
        prev_cuts
    );
    assert!(prev_cuts as usize >= closes.len());
    // Each cut is cwnd·(1 − α/2), not below 2 SMSS; ECE never triggers a retransmission.
    for s in pair.acks.iter().filter(|s| s.ssthresh != s.ssthresh_before) {
        let target = (s.cwnd_before as f64 * (1.0 - s.alpha / 2.0)) as u64;
        assert_eq!(s.ssthresh, target.max(2 * MSS));
        assert_eq!(s.cwnd, s.cwnd_before.min(s.ssthresh));
    }
    assert_eq!(pair.s.stats().retransmits, 0);
    assert_eq!(pair.s.cwnd(), 2 * MSS, "held at the 2-SMSS floor");
}

#[test]
fn dctcp_alpha_tracks_the_marked_fraction() {
    // Every fourth segment (by sequence number) is marked: F = 1/4.
    let mut pair = Pair::new(&params("dctcp", |_| {}), 6000 * MSS);
    pair.fwd = Box::new(|p| {
        if (p.seq / MSS).is_multiple_of(4) {
            Fate::Mark
        } else {
            Fate::Pass
        }
    });
    pair.start();
    pair.run();
    pair.assert_completed(6000 * MSS);
    let closes = window_closes(&pair);
    assert!(closes.len() > 200, "{} windows", closes.len());
    let tail = &closes[100..];
    let mean = tail.iter().map(|c| c.alpha).sum::<f64>() / tail.len() as f64;
    assert!((mean - 0.25).abs() < 0.03, "mean α {mean}");
    assert!(tail.iter().all(|c| (c.alpha - 0.25).abs() < 0.1));
}

#[test]
fn a_loss_in_the_window_of_an_ecn_cut_does_not_reduce_again() {
    let p = params("dctcp", |_| {});
    let t = RTT * 2;
    // (flight before the dupACKs, ssthresh and cwnd after the third)
    let ack_then_three_dupacks = |first_ece: bool| {
        let mut s = established_sender(&p, 100 * MSS);
        // The first ACK of the flight of 10; with ECE and α = 1 it halves cwnd to 5 SMSS.
        s.handle_packet(t, &ack(MSS, first_ece, RTT));
        std::iter::from_fn(|| s.poll_transmit(t)).for_each(drop);
        let flight = s.bytes_in_flight();
        for _ in 0..3 {
            s.handle_packet(t, &ack(MSS, false, RTT));
        }
        assert!(s.in_recovery());
        (flight, s.ssthresh(), s.cwnd())
    };
    // Cut, then a loss in the same window: the cut's ssthresh stays (RFC 8257 §3.5), where
    // halving the 9 outstanding segments would give 4.5.
    assert_eq!(ack_then_three_dupacks(true), (9 * MSS, 5 * MSS, 8 * MSS));
    // Control: without the cut the loss halves FlightSize (limited-transmit segments left out).
    let (flight, ssthresh, cwnd) = ack_then_three_dupacks(false);
    assert_eq!(ssthresh, flight / 2);
    assert_eq!(cwnd, ssthresh + 3 * MSS);
}
