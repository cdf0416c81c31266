//! The congestion-control seam (`tcp/cc`): the sender calls each hook at the event its doc
//! names, and a controller can do what MCP will need (a window after the first RTT sample, a
//! window set on ACKs, ECT data, giving the flow up) with no change to the sender.

use super::*;
use crate::protocols::tcp::cc::probe::{Calls, Probe};
use crate::protocols::tcp::cc::Controller;
use crate::protocols::{Endpoint, SenderEndpoint};

fn probe_pair(probe: Probe, size: u64) -> Pair {
    let p = params("tcp", |_| {});
    let mut pair = Pair::new(&p, size);
    pair.s = TcpSender::with_controller(&p, &flow(size), Controller::Probe(probe));
    pair
}

fn probe_of(pair: &Pair) -> &Probe {
    match pair.s.controller() {
        Controller::Probe(p) => p,
        _ => unreachable!("a probe pair"),
    }
}

/// Data packets per round trip (round 1 is the first flight).
fn per_round(pair: &Pair) -> Vec<usize> {
    let mut rounds: Vec<usize> = Vec::new();
    for (t, _) in pair.data_sent() {
        let round = (t.ps() / RTT.ps()) as usize;
        if rounds.len() < round {
            rounds.resize(round, 0);
        }
        rounds[round - 1] += 1;
    }
    rounds
}

#[test]
fn each_hook_runs_at_its_event_and_newreno_rules_give_newreno_packets() {
    // Segment 50 and its fast retransmission are lost: one fast retransmit, then a timeout.
    let size = 400 * MSS;
    let mut pair = probe_pair(Probe::default(), size);
    pair.fwd = drop_segments(&[(50, 2)]);
    pair.start();
    pair.run();
    pair.assert_completed(size);
    let st = pair.s.stats();
    assert_eq!(st.fast_retransmits, 1);
    assert!(st.timeouts >= 1);
    let new_acks = pair.acks.iter().filter(|s| s.ack > s.una_before).count() as u64;
    // DupACKs outside recovery that did not start it (limited transmit's, go-back-N's).
    let plain_dupacks = pair
        .acks
        .iter()
        .filter(|s| s.ack == s.una_before && s.flight_before > 0 && !s.rec_before && !s.rec)
        .count() as u64;
    assert!(plain_dupacks >= 2);
    assert_eq!(
        probe_of(&pair).calls,
        Calls {
            established: 1,
            acks: new_acks,
            dupacks: plain_dupacks,
            dupacks_ece: 0,
            fast_retransmits: st.fast_retransmits,
            timeouts: st.timeouts,
        }
    );
    // The probe's window rules are NewReno's, so the sender sends exactly NewReno's packets.
    let mut reno = Pair::new(&params("tcp", |_| {}), size);
    reno.fwd = drop_segments(&[(50, 2)]);
    reno.start();
    reno.run();
    let trace = |p: &Pair| -> Vec<(Time, u64, bool)> {
        p.data_sent()
            .map(|(t, d)| (*t, d.seq, d.retransmit))
            .collect()
    };
    assert_eq!(trace(&pair), trace(&reno));
}

#[test]
fn a_controller_sets_the_initial_window_after_the_first_rtt_sample_and_marks_data_ect() {
    let probe = Probe {
        initial_window: Some(3 * MSS),
        ect: true,
        ..Default::default()
    };
    let mut pair = probe_pair(probe, 60 * MSS);
    pair.start();
    pair.run_until(RTT);
    assert_eq!(
        pair.data_sent().count(),
        3,
        "the first flight is the controller's"
    );
    let seen = probe_of(&pair).established.expect("on_established ran");
    assert_eq!((seen.srtt, seen.snd_una, seen.snd_max), (Some(RTT), 0, 0));
    pair.run();
    pair.assert_completed(60 * MSS);
    // Slow start from 3 segments instead of 10.
    assert_eq!(&per_round(&pair)[..4], &[3, 6, 12, 24]);
    assert!(pair.data_sent().all(|p| p.1.ecn == Ecn::Ect));
}

#[test]
fn a_controller_sets_the_window_directly_on_acks() {
    let probe = Probe {
        window_on_ack: Some(4 * MSS),
        ..Default::default()
    };
    let mut pair = probe_pair(probe, 40 * MSS);
    pair.start();
    pair.run();
    pair.assert_completed(40 * MSS);
    assert!(pair.acks.iter().all(|s| s.cwnd == 4 * MSS));
    // The first flight is the initial window; from then on 4 segments per round trip.
    let rounds = per_round(&pair);
    assert_eq!(rounds[0], 10);
    let (last, middle) = rounds[1..].split_last().unwrap();
    assert!(middle.iter().all(|&n| n == 4), "{rounds:?}");
    assert_eq!((*last, rounds.iter().sum::<usize>()), (2, 40));
}

#[test]
fn a_controller_can_end_the_flow() {
    let probe = Probe {
        abort_after_acks: Some(3),
        ..Default::default()
    };
    let mut pair = probe_pair(probe, 100 * MSS);
    pair.start();
    pair.run();
    // The initial flight's ACKs all arrive at 2 RTT: the first two let slow start send two
    // segments each; at the third the flow ends, before it sends anything more.
    assert_eq!(pair.s_events, [(RTT * 2, EndpointEvent::Terminated)]);
    assert_eq!(pair.data_sent().count(), 14);
    assert_eq!(pair.data_sent().last().unwrap().0, RTT * 2);
    assert_eq!(pair.s.poll_timeout(), None, "no timer after the end");
    assert!(pair.r_events.is_empty(), "the receiver never completed");
    assert_eq!(pair.s.stats().timeouts, 0);
}
