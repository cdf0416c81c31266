//! D2TCP: the deadline-imminence penalty on a hand-checked first cut.

use super::*;

/// Runs a 100-segment flow whose every data packet is marked and returns the sender's state
/// around its first window cut. The first ACK (1 MSS, at 40 µs: handshake 20 µs + one RTT)
/// carries ECE and cuts, with α = 0.5 (no window closed yet), cwnd = 10 MSS, SRTT = 20 µs and
/// 99 MSS remaining: Tc = 99·1460·20 µs / (0.75·14 600) = 264 µs.
fn first_cut(deadline: Option<Time>) -> Snap {
    let p = params("d2tcp", |c| c.dctcp_init_alpha = Some(0.5));
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
    // A deadline already passed is the most imminent: d = 2.
    let late = first_cut(at(30));
    assert_eq!(late.cwnd, 12_775);
    assert!(near.cwnd > mid.cwnd && mid.cwnd > none.cwnd && none.cwnd > far.cwnd);
}
