//! D2TCP: the deadline-imminence penalty on a hand-checked first cut, and what a flow still
//! running after its deadline does under each `d2tcp_late`.

use super::*;
use crate::protocols::Endpoint;

/// Runs a 100-segment flow whose every data packet is marked (D2TCP with `late`) and returns
/// the sender's state around its first window cut. The first ACK (1 MSS, at 40 µs: handshake
/// 20 µs + one RTT) carries ECE and cuts, with α = 0.5 (no window closed yet), cwnd = 10 MSS,
/// SRTT = 20 µs and 99 MSS remaining: Tc = 99·1460·20 µs / (0.75·14 600) = 264 µs.
fn first_cut_with(deadline: Option<Time>, late: &str) -> Snap {
    let p = params("d2tcp", |c| {
        c.dctcp_init_alpha = Some(0.5);
        c.d2tcp_late = Some(late.into());
    });
    let mut pair = Pair::new(&p, 100 * MSS);
    let f = FlowSetup {
        deadline,
        ..flow(100 * MSS)
    };
    pair.s = TcpSender::new(&p, &f);
    pair.fwd = Box::new(|_| Fate::Mark);
    pair.start();
    pair.run();
    pair.assert_completed(100 * MSS);
    let cut = pair.ssthresh_changes()[0];
    assert_eq!(
        (cut.t, cut.ack, cut.cwnd_before),
        (Time::from_us(40), MSS, 10 * MSS)
    );
    cut
}

fn first_cut(deadline: Option<Time>) -> Snap {
    first_cut_with(deadline, "d_min")
}

#[test]
fn near_deadline_flow_backs_off_less_than_far_deadline_flow() {
    let at = |us| Some(Time::from_us(us));
    // D = 100 µs left: d = 2.64 → clamped to 2, p = 0.25, cwnd = 14 600·(1 − 0.125).
    let near = first_cut(at(140));
    assert_eq!(near.cwnd, 12_775);
    // D = 176 µs: d = 1.5, p = 0.5^1.5 = 0.353 553, cwnd = 14 600·(1 − 0.176 777) = 12 019.
    let mid = first_cut(at(216));
    assert_eq!(mid.cwnd, 12_019);
    // No deadline: d = 1, DCTCP's cut 14 600·(1 − 0.25).
    let none = first_cut(None);
    assert_eq!(none.cwnd, 10_950);
    // D = 10 ms: d = 0.026 → clamped to 0.5, p = 0.707 107, cwnd = 14 600·(1 − 0.353 553).
    let far = first_cut(at(10_040));
    assert_eq!(far.cwnd, 9_438);
    assert!(near.cwnd > mid.cwnd && mid.cwnd > none.cwnd && none.cwnd > far.cwnd);
}

#[test]
fn the_cut_at_and_after_the_deadline() {
    let at = |us| Some(Time::from_us(us));
    // The cut is at 40 µs. A deadline at 40 µs is not passed yet (D = 0): d = d_max = 2.
    assert_eq!(first_cut(at(40)).cwnd, 12_775);
    // Passed (deadline 30 µs): by default d = d_min = 0.5, the far-deadline cut (p = 0.707).
    assert_eq!(first_cut(at(30)).cwnd, 9_438);
    // `d2tcp_late = "dctcp"`: d = 1, exactly DCTCP's cut.
    assert_eq!(first_cut_with(at(30), "dctcp").cwnd, 10_950);
    // `d2tcp_late = "d_max"` (the old behaviour): still the most imminent flow, d = 2.
    assert_eq!(first_cut_with(at(30), "d_max").cwnd, 12_775);
    assert_eq!(first_cut_with(at(40), "d_max").cwnd, 12_775);
}

/// A late flow keeps going under "d_min", "dctcp" and "d_max" and delivers every byte; under "close"
/// the sender gives up at the first packet it handles after the deadline: no data after it,
/// `Terminated`, and the receiver never completes.
#[test]
fn a_late_flow_finishes_unless_it_closes() {
    // 100 segments, unmarked: slow start from 10 MSS takes ~4 RTTs after the handshake, so a
    // 60 µs deadline (one data RTT) passes mid-flow.
    let run = |late: &str| {
        let p = params("d2tcp", |c| c.d2tcp_late = Some(late.into()));
        let mut pair = Pair::new(&p, 100 * MSS);
        let f = FlowSetup {
            deadline: Some(Time::from_us(60)),
            ..flow(100 * MSS)
        };
        pair.s = TcpSender::new(&p, &f);
        pair.start();
        pair.run();
        pair
    };
    for late in ["d_min", "dctcp", "d_max"] {
        let pair = run(late);
        pair.assert_completed(100 * MSS);
        assert!(pair.r_events.iter().any(|(t, _)| *t > Time::from_us(60)));
    }
    let pair = run("close");
    assert!(pair.r_events.is_empty(), "{:?}", pair.r_events);
    let ends: Vec<_> = pair.s_events.iter().collect();
    assert_eq!(ends.len(), 1, "{ends:?}");
    let (t_end, ev) = ends[0];
    assert_eq!(*ev, EndpointEvent::Terminated);
    // It ends at the first ACK after 60 µs (the second flight's, at 80 µs), sends nothing
    // after that and holds no timer.
    assert_eq!(*t_end, Time::from_us(80));
    assert!(pair.sent.iter().all(|(t, _)| *t <= *t_end));
    assert_eq!(pair.s.poll_timeout(), None);
    // Before its deadline it behaved as the other two.
    let other = run("dctcp");
    let before = |p: &Pair| {
        p.sent
            .iter()
            .filter(|(t, _)| *t <= Time::from_us(60))
            .count()
    };
    assert_eq!(before(&pair), before(&other));
}
