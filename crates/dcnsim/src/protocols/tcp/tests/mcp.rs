//! MCP's update clock on the two-endpoint harness: every flight arrives at one instant, so a
//! window that ended at the data in flight when the last update ran (rather than at data sent
//! after it) closes twice per round.

use super::*;
use crate::protocols::tcp::cc::Controller;

/// A 3 MB flow due in 10 ms needs 4 segments per 20 µs round. Marks on a tenth of the data
/// (segments 0–4 of every 50) cut the window now and then, and the deficit lifts it again.
/// Over the flow, at most 1.1 updates per RTT, and at least 0.8 (0.92 here: a window after a
/// cut waits for the old flight to drain).
#[test]
fn mcp_updates_once_per_rtt() {
    let p = params("mcp", |_| {});
    let size = 3_000_000;
    let mut pair = Pair::new(&p, size);
    let f = FlowSetup {
        deadline: Some(Time::from_ms(10)),
        path: crate::protocols::PathFacts {
            bottleneck: crate::units::Rate::gbps(10),
            fastest: crate::units::Rate::gbps(10),
            ecn_k_pkts: Some(64),
        },
        ..flow(size)
    };
    pair.s = TcpSender::new(&p, &f);
    pair.fwd = Box::new(|p| {
        if p.kind == PacketKind::Data && (p.seq / MSS) % 50 < 5 {
            Fate::Mark
        } else {
            Fate::Pass
        }
    });
    pair.start();
    pair.run();
    pair.assert_completed(size);
    let first = pair.data_sent().next().unwrap().0;
    let done = pair.s_events[0].0;
    let rounds = (done - first).as_secs_f64() / RTT.as_secs_f64();
    let Controller::Mcp(m) = pair.s.controller() else {
        panic!("an MCP flow with a deadline runs MCP")
    };
    let per_rtt = m.updates as f64 / rounds;
    assert!(
        (0.8..=1.1).contains(&per_rtt),
        "{} updates in {rounds} RTTs",
        m.updates
    );
    assert!(
        pair.acks.iter().any(|a| a.cwnd < a.cwnd_before),
        "the marks cut"
    );
    assert!(done <= Time::from_ms(10), "met its deadline: {done:?}");
}
