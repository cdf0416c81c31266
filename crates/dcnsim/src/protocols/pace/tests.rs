//! PACE on hand-built packet sequences: the forwarder's eqs. (5)–(7), A(t), expiry, feedback,
//! terminate and dynamic periods on a three-host star; the sender spreading its credits and
//! never exceeding them; the receiver's allocations and demand.

use super::header::*;
use super::*;
use crate::net::header::Header;
use crate::net::packet::{Packet, PacketKind};
use crate::net::Network;
use crate::protocols::agent::Admission;
use crate::protocols::SwitchAgent;
use crate::protocols::{Endpoint, Protocol, ReceiverEndpoint, SenderEndpoint, SwitchHooks};
use crate::protocols::{EndpointEvent, FlowSetup, Transport};
use crate::topo::TopologyConfig;
use crate::units::{Rate, Time};

fn params() -> PaceParams {
    PaceParams::from_config(
        "pace",
        &PaceConfig {
            ..Default::default()
        },
    )
    .unwrap()
}

/// A star of `hosts` hosts at 1 Gb/s: port 2i is hi→sw, port 2i+1 is sw→hi.
fn star(hosts: u32) -> (Network, PaceForwarder) {
    let cfg = TopologyConfig {
        hosts: Some(hosts as usize),
        link_gbps: 1.0,
        ..TopologyConfig::of_kind("star")
    };
    let topo = crate::topo::build(&cfg, std::path::Path::new("."), 1).unwrap();
    let net = Network::build(&topo, crate::net::queue::Discipline::Fifo, &|_| None);
    let t = Transport::Pace(params());
    match SwitchAgent::new(&t, &net, false) {
        Some(SwitchAgent::Pace(f)) => (net, f),
        _ => panic!("pace has a switch agent"),
    }
}

const W1: u16 = WEIGHT_ONE;

fn hdr(p: &Packet) -> PaceHeader {
    p.header.read().expect("not a PACE header")
}

fn request(flow: u32) -> Packet {
    Packet {
        flow,
        kind: PacketKind::Syn,
        size: 54,
        header: Header::of(PaceHeader {
            msg: MSG_REQUEST,
            period: 10,
            potential: 3125,
            w_sender: W1,
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// An allocation as a receiver issues it: d = a = `demand` credits, d_p = 3125 (200 µs at
/// 1 Gb/s), period 200 µs.
fn allocation(flow: u32, epoch: u8, demand: u16, w_sender: u16) -> Packet {
    Packet {
        flow,
        kind: PacketKind::Ack,
        size: 54,
        header: Header::of(PaceHeader {
            msg: MSG_ALLOCATION,
            epoch,
            period: 10,
            potential: 3125,
            demand,
            alloc: demand,
            w_sender,
            w_receiver: W1,
            flags: 0,
        }),
        ..Default::default()
    }
}

/// Offers `pkt` to `port` at `t_us` and returns it as the port passes it on.
fn offer(net: &Network, f: &mut PaceForwarder, t_us: u64, port: u32, mut pkt: Packet) -> Packet {
    let verdict = f.on_enqueue(
        Time::from_us(t_us),
        port,
        &net.ports[port as usize],
        &mut pkt,
    );
    let control = pkt.payload == 0;
    assert_eq!(verdict == Admission::Protected, control, "{pkt:?}");
    pkt
}

/// Flow `flow` from host `src` to host `dst` registers its path (request over sw→dst's
/// forward ports: src's NIC, then sw→dst).
fn open(net: &Network, f: &mut PaceForwarder, flow: u32, src: u32, dst: u32) {
    for port in [2 * src, 2 * dst + 1] {
        offer(net, f, 0, port, request(flow));
        f.mirror_queue(port, &net.ports[port as usize]); // the request moves on
    }
}

/// The allocation crosses the path back: dst's NIC (serving sw→dst), then sw→src (serving
/// src's NIC).
fn allocate(
    net: &Network,
    f: &mut PaceForwarder,
    t_us: u64,
    src: u32,
    dst: u32,
    a: Packet,
) -> PaceHeader {
    let a = offer(net, f, t_us, 2 * dst, a);
    hdr(&offer(net, f, t_us, 2 * src + 1, a))
}

fn data(flow: u32, bytes: u32) -> Packet {
    Packet {
        flow,
        kind: PacketKind::Data,
        payload: bytes - 54,
        size: bytes,
        header: Header::of(PaceHeader {
            msg: MSG_DATA,
            ..Default::default()
        }),
        ..Default::default()
    }
}

#[test]
fn allocations_retrace_the_requests_path() {
    let (net, mut f) = star(3);
    open(&net, &mut f, 0, 0, 2);
    let sw = net.ports[1].node;
    let a = allocation(0, 1, 3125, W1);
    assert_eq!(f.reverse_route(net.ports[5].peer, &a), Some(4)); // at h2: its NIC
    assert_eq!(f.reverse_route(sw, &a), Some(1)); // at the switch: towards h0
    assert_eq!(
        f.reverse_route(sw, &request(0)),
        None,
        "forward packets follow routing"
    );
    assert_eq!(
        f.reverse_route(sw, &allocation(9, 1, 1, W1)),
        None,
        "unknown flow"
    );
}

/// Two flows to h2 share sw→h2 (port 5). By hand, at 1 Gb/s and 200 µs, C(p) = 25 000 B.
#[test]
fn eqs_5_to_7_by_hand_with_outstanding_credits_and_queue() {
    let (net, mut f) = star(3);
    open(&net, &mut f, 0, 0, 2);
    open(&net, &mut f, 1, 1, 2);
    // A alone asks for everything: the offline part gives it the whole link (a_w = 1/w),
    // eq. (7): 2·C0 − A − Q = 50 000 − 0 − 0.
    let h = allocate(&net, &mut f, 0, 0, 2, allocation(0, 1, 3125, W1));
    assert_eq!(
        (h.demand, h.potential, h.alloc, h.period),
        (3125, 3125, 3125, 10)
    );
    assert_eq!(f.ports[5].outstanding, 25_000);
    // B 10 µs later: the offline part runs once per period, so a_w is still A's alone and
    // B's fair share is the whole link; eq. (7) leaves it 50 000 − 25 000.
    let h = allocate(&net, &mut f, 10, 1, 2, allocation(1, 1, 3125, W1));
    assert_eq!((h.demand, h.alloc), (3125, 3125));
    assert_eq!(f.ports[5].outstanding, 50_000);
    // A third allocation now would find nothing left.
    open(&net, &mut f, 2, 0, 2);
    // (flow 2 shares h0's NIC with A: its grant there is cut too)
    let h = allocate(&net, &mut f, 20, 0, 2, allocation(2, 1, 3125, W1));
    assert_eq!(h.alloc, 0);
    // A sends one packet: A(t) falls by its wire size, the queue holds it.
    offer(&net, &mut f, 30, 5, data(0, 1514));
    assert_eq!(f.ports[5].outstanding, 50_000 - 1514);
    assert_eq!(f.ports[5].queue_bytes, 1514);
    f.mirror_queue(5, &net.ports[5]);
    assert_eq!(f.ports[5].queue_bytes, 0);
    // A period later A asks again: the offline part now sees three flows wanting all of it:
    // fair = 25 000 / 3 = 8333 B (eq. 5, rounded up to credits in the field: 1042);
    // eq. (7): 50 000 − 48 486 − 0 = 1514 → 189 credits (1512 B).
    let h = allocate(&net, &mut f, 210, 0, 2, allocation(0, 2, 3125, W1));
    assert_eq!(h.demand, 1042);
    assert_eq!(h.alloc, 189);
    assert_eq!(f.ports[5].offline().levels, 1);
}

#[test]
fn weights_split_the_link_2_1_4() {
    let (net, mut f) = star(4);
    for (flow, src) in [(0, 0), (1, 1), (2, 2)] {
        open(&net, &mut f, flow, src, 3);
    }
    // First round registers the three flows; a period later each gets C·w/W.
    for (flow, src, w) in [(0, 0, 2), (1, 1, 1), (2, 2, 4)] {
        allocate(&net, &mut f, 0, src, 3, allocation(flow, 1, 3125, w * W1));
    }
    for (flow, src, w) in [(0u32, 0, 2u16), (1, 1, 1), (2, 2, 4)] {
        let h = allocate(&net, &mut f, 300, src, 3, allocation(flow, 2, 3125, w * W1));
        // d = ⌊25 000 · w / 7⌋ B (eq. 5), as credits rounded up
        let want = (25_000 * w as u64 / 7).div_ceil(8) as u16;
        assert_eq!(h.demand, want, "flow {flow}");
    }
}

/// A flow that wants little leaves the rest to the others (a second level): 25 000 B over
/// three flows, one wanting 2 000 B: the other two get 11 500 each. With everyone satisfied,
/// the potential demand carries the remainder.
#[test]
fn light_flows_leave_their_share_and_the_remainder_goes_to_potential_demand() {
    let (net, mut f) = star(4);
    for (flow, src) in [(0, 0), (1, 1), (2, 2)] {
        open(&net, &mut f, flow, src, 3);
    }
    for (flow, src, d) in [(0, 0, 250), (1, 1, 3125), (2, 2, 3125)] {
        allocate(&net, &mut f, 0, src, 3, allocation(flow, 1, d, W1));
    }
    let h = allocate(&net, &mut f, 300, 1, 3, allocation(1, 2, 3125, W1));
    assert_eq!(h.demand, 11_500 / 8 + 1); // 11 500 B rounded up to whole credits
    assert_eq!(f.ports[7].offline().levels, 2);
    assert_eq!(f.ports[7].offline().remainder, 0);
    // Now all three want only 2 000 B: level 0 satisfies them, r = 19 000 B of 25 000.
    for (flow, src) in [(0, 0), (1, 1), (2, 2)] {
        allocate(&net, &mut f, 600, src, 3, allocation(flow, 3, 250, W1));
    }
    let h = allocate(&net, &mut f, 900, 0, 3, allocation(0, 4, 250, W1));
    assert_eq!(h.demand, 250);
    // eq. (6): C·(w·a_w + r) = 25 000·(1/3 + 0.76), capped by d_p = 3125 credits
    assert_eq!(h.potential, 3125);
    let r = f.ports[7].offline().remainder as f64 / NORM_ONE as f64;
    assert!((r - 0.76).abs() < 1e-9, "{r}");
}

#[test]
fn credits_expire_after_two_periods_and_feedback_returns_a_cut() {
    let (net, mut f) = star(3);
    open(&net, &mut f, 0, 0, 2);
    allocate(&net, &mut f, 0, 0, 2, allocation(0, 1, 3125, W1));
    offer(&net, &mut f, 10, 5, data(0, 10_000));
    assert_eq!(f.ports[5].outstanding, 15_000);
    // Epoch 2: epoch 1's 15 000 unused stay valid (2p), both live.
    allocate(&net, &mut f, 200, 0, 2, allocation(0, 2, 1250, W1));
    assert_eq!(f.ports[5].outstanding, 25_000);
    // The sender reports it got only 500 credits of epoch 2 (a forwarder nearer it cut the
    // grant): the 6 000 it cannot use are released here at once.
    let mut fb = data(0, 54);
    fb.payload = 0;
    fb.header = Header::of(PaceHeader {
        msg: MSG_DATA,
        flags: FLAG_FEEDBACK,
        epoch: 2,
        alloc: 500,
        ..Default::default()
    });
    offer(&net, &mut f, 210, 5, fb);
    assert_eq!(f.ports[5].outstanding, 19_000);
    // Data uses the oldest credits first.
    offer(&net, &mut f, 220, 5, data(0, 5_000));
    let g = f.grants(0, 5).unwrap();
    assert_eq!(
        (g[0].epoch, g[0].left, g[1].epoch, g[1].left),
        (1, 10_000, 2, 4_000)
    );
    // Epoch 3: epoch 1 expires (10 000 back), epoch 2 stays.
    allocate(&net, &mut f, 400, 0, 2, allocation(0, 3, 0, W1));
    assert_eq!(f.ports[5].outstanding, 4_000);
    let g = f.grants(0, 5).unwrap();
    assert_eq!((g[0].epoch, g[1].epoch, g[1].granted), (2, 3, 0));
}

#[test]
fn terminate_releases_the_flow_and_the_period_follows_the_flows() {
    let (net, mut f) = star(12);
    for flow in 0..10 {
        open(&net, &mut f, flow, flow, 11);
    }
    for flow in 0..10 {
        allocate(&net, &mut f, 0, flow, 11, allocation(flow, 1, 3125, W1));
    }
    // A period on, ten flows of weight 1: 25 000 / 10 = 2 500 B < two 1514 B packets. The
    // period grows to the smallest multiple of 20 µs with C(p)/10 ≥ 3028 B: 242.2 µs → 260.
    let h = allocate(&net, &mut f, 300, 0, 11, allocation(0, 2, 3125, W1));
    assert_eq!(f.ports[23].period, 13);
    assert_eq!(h.period, 13);
    // Fields scale to the longer period: d = C(260 µs)/10 = 3 250 B.
    assert_eq!(h.demand, 3250 / 8 + 1);
    assert_eq!(f.flows_at(23), 10);
    // Nine terminate: their credits return and, a period later, the period shrinks.
    let before = f.ports[23].outstanding;
    for flow in 1..10 {
        let mut t = allocation(flow, 0, 0, W1);
        t.header = Header::of(PaceHeader {
            msg: MSG_TERMINATE,
            ..Default::default()
        });
        let t = offer(&net, &mut f, 400, 22, t);
        offer(&net, &mut f, 400, 2 * flow + 1, t);
    }
    assert_eq!(f.flows_at(23), 1);
    assert!(f.ports[23].outstanding < before);
    let h = allocate(&net, &mut f, 700, 0, 11, allocation(0, 3, 3125, W1));
    assert_eq!((f.ports[23].period, h.period), (10, 10));
}

// --- sender -----------------------------------------------------------------------------------

fn setup(size: u64, weight: f64) -> FlowSetup {
    FlowSetup {
        flow: 3,
        src: 0,
        dst: 1,
        size,
        start: Time::ZERO,
        deadline: None,
        weight,
        path_key: 9,
        path: Default::default(),
    }
}

fn drain_sender(s: &mut PaceSender, now: Time) -> Vec<Packet> {
    std::iter::from_fn(|| s.poll_transmit(now)).collect()
}

/// The allocation as the sender receives it.
fn grant(epoch: u8, alloc: u16, period: u8, flags: u8, ack: u64) -> Packet {
    let mut p = allocation(3, epoch, alloc, W1);
    p.ack = ack;
    p.header.update(|h: &mut PaceHeader| {
        h.period = period;
        h.flags = flags;
    });
    p
}

/// Runs the sender through its timer until `until`, collecting (time, packet).
fn run_sender(s: &mut PaceSender, from: Time, until: Time) -> Vec<(Time, Packet)> {
    let mut out = Vec::new();
    let mut now = from;
    loop {
        out.extend(drain_sender(s, now).into_iter().map(|p| (now, p)));
        match s.poll_timeout() {
            Some(t) if t <= until => {
                now = t.max(now);
                s.handle_timeout(now);
            }
            _ => return out,
        }
    }
}

#[test]
fn sender_spreads_its_credits_over_the_period_and_never_exceeds_them() {
    let p = params();
    let mut s = PaceSender::new(&p, &setup(1_000_000, 2.0), Rate::gbps(1));
    s.start(Time::ZERO);
    let req = drain_sender(&mut s, Time::ZERO);
    assert_eq!(req.len(), 1);
    let h = hdr(&req[0]);
    assert_eq!(
        (req[0].kind, h.msg, h.period, h.potential, h.w_sender),
        (PacketKind::Syn, MSG_REQUEST, 10, 3125, 512)
    );
    // 1 250 credits = 10 000 B over 200 µs: six full packets (1 514 B) and one of 916 B,
    // each gap = its size × 200 µs / 10 000 B.
    let t0 = Time::from_us(100);
    s.handle_packet(t0, &grant(1, 1250, 10, 0, 0));
    let sent = run_sender(&mut s, t0, Time::from_ms(10));
    let sizes: Vec<u32> = sent.iter().map(|(_, p)| p.size).collect();
    assert_eq!(sizes, [1514, 1514, 1514, 1514, 1514, 1514, 916]);
    let times: Vec<u64> = sent.iter().map(|(t, _)| t.ps() - t0.ps()).collect();
    let gap = 1514 * 200_000_000 / 10_000;
    assert_eq!(times, (0..7).map(|i| i * gap).collect::<Vec<_>>());
    assert!(times[6] < 200_000_000, "all within the period");
    // The first data message returns the allocation: a, period, and d_p no more than what
    // is left after these credits.
    let fb = hdr(&sent[0].1);
    assert!(fb.has(FLAG_FEEDBACK) && !hdr(&sent[1].1).has(FLAG_FEEDBACK));
    assert_eq!(
        (fb.epoch, fb.alloc, fb.period, fb.potential),
        (1, 1250, 10, 3125)
    );
    assert_eq!(s.credit_bytes(), 0);
}

#[test]
fn sender_credits_expire_after_two_periods() {
    let p = params();
    let mut s = PaceSender::new(&p, &setup(1_000_000, 1.0), Rate::gbps(1));
    s.start(Time::ZERO);
    drain_sender(&mut s, Time::ZERO);
    s.handle_packet(Time::from_us(100), &grant(1, 1250, 10, 0, 0));
    // Nothing is sent (the engine would have); epochs 2 and 3 grant nothing.
    s.handle_packet(Time::from_us(300), &grant(2, 0, 10, 0, 0));
    assert_eq!(s.credit_bytes(), 10_000, "still valid one period on");
    s.handle_packet(Time::from_us(500), &grant(3, 0, 10, 0, 0));
    assert_eq!(s.credit_bytes(), 0, "two periods on: expired");
    // With no credits the feedback of epoch 3 goes alone, header only.
    let out = drain_sender(&mut s, Time::from_us(500));
    assert_eq!(out.len(), 1);
    assert_eq!((out[0].payload, out[0].size), (0, 54));
    assert!(hdr(&out[0]).has(FLAG_FEEDBACK) && hdr(&out[0]).epoch == 3);
}

/// Random allocations and times: the wire bytes of data sent never exceed the credits
/// granted, and a packet never spends credits older than two periods.
#[test]
fn sender_never_sends_beyond_its_credits() {
    use rand::RngExt;
    use rand_chacha::rand_core::SeedableRng;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
    let p = params();
    for case in 0..200 {
        let mut s = PaceSender::new(&p, &setup(rng.random_range(1..200_000), 1.0), Rate::gbps(1));
        s.start(Time::ZERO);
        drain_sender(&mut s, Time::ZERO);
        let mut granted = [0u64; 256];
        let (mut sent, mut now) = (0u64, Time::ZERO);
        for epoch in 1..40u8 {
            let a = rng.random_range(0..2_000u16);
            granted[epoch as usize] = bytes_of(a);
            s.handle_packet(now, &grant(epoch, a, rng.random_range(1..20), 0, 0));
            let until = now + Time::from_us(rng.random_range(1..400));
            for (_, pkt) in run_sender(&mut s, now, until) {
                sent += (pkt.payload > 0) as u64 * pkt.size as u64;
            }
            now = until;
            let valid: u64 = granted[..=epoch as usize].iter().sum();
            assert!(sent <= valid, "case {case}: sent {sent} > granted {valid}");
            // Credits held never exceed the last two grants.
            let last_two = granted[epoch as usize] + granted[epoch as usize - 1];
            assert!(s.credit_bytes() <= last_two, "case {case}");
        }
    }
}

#[test]
fn sender_resends_from_a_reported_gap_and_stops_on_terminate() {
    let p = params();
    let mut s = PaceSender::new(&p, &setup(20_000, 1.0), Rate::gbps(1));
    s.start(Time::ZERO);
    drain_sender(&mut s, Time::ZERO);
    s.handle_packet(Time::from_us(100), &grant(1, 3125, 10, 0, 0));
    let sent = run_sender(&mut s, Time::from_us(100), Time::from_us(300));
    assert_eq!(
        sent.last().unwrap().1.seq + sent.last().unwrap().1.payload as u64,
        20_000
    );
    // The receiver reports a hole at 2 920: the sender goes back there.
    s.handle_packet(Time::from_us(300), &grant(2, 3125, 10, FLAG_GAP, 2920));
    let again = drain_sender(&mut s, Time::from_us(300));
    assert_eq!(again[0].seq, 2920);
    assert_eq!(s.stats().retransmits, 1);
    let mut t = grant(3, 0, 10, 0, 20_000);
    t.header = Header::of(PaceHeader {
        msg: MSG_TERMINATE,
        ..Default::default()
    });
    s.handle_packet(Time::from_us(600), &t);
    assert_eq!(s.poll_event(), Some(EndpointEvent::SenderDone));
    assert_eq!(s.poll_timeout(), None);
}

// --- receiver ---------------------------------------------------------------------------------

#[test]
fn receiver_allocates_every_period_with_the_returned_demand() {
    let p = params();
    let mut r = PaceReceiver::new(&p, &setup(3_000, 2.0));
    let mut req = request(3);
    req.header.update(|h: &mut PaceHeader| {
        h.w_sender = 512;
    });
    r.handle_packet(Time::ZERO, &req);
    let a = r.poll_transmit(Time::ZERO).unwrap();
    let h = hdr(&a);
    assert_eq!(
        (a.kind, h.msg, h.epoch, h.period),
        (PacketKind::Ack, MSG_ALLOCATION, 1, 10)
    );
    assert_eq!(
        (h.potential, h.demand, h.alloc, h.w_sender, h.w_receiver),
        (3125, 3125, 3125, 512, W1)
    );
    assert_eq!(r.poll_timeout(), Some(Time::from_us(200)));
    // The sender returns d_p = 500 credits for a 400 µs period: the next allocation asks
    // for 500 × 200/400 = 250 credits at the initial period, and comes 400 µs after.
    let mut fb = data(3, 1514);
    fb.seq = 0;
    fb.header = Header::of(PaceHeader {
        msg: MSG_DATA,
        flags: FLAG_FEEDBACK,
        epoch: 1,
        period: 20,
        potential: 500,
        ..Default::default()
    });
    r.handle_packet(Time::from_us(150), &fb);
    r.handle_timeout(Time::from_us(200));
    let h = hdr(&r.poll_transmit(Time::from_us(200)).unwrap());
    assert_eq!(
        (h.epoch, h.period, h.demand, h.alloc, h.potential),
        (2, 10, 250, 250, 3125)
    );
    assert_eq!(r.poll_timeout(), Some(Time::from_us(600)));
    // Out of order: the next allocation reports the gap; then the missing bytes complete
    // the flow and the receiver terminates it.
    let mut late = data(3, 1054);
    late.seq = 2_460;
    r.handle_packet(Time::from_us(300), &late);
    r.handle_timeout(Time::from_us(600));
    let a = r.poll_transmit(Time::from_us(600)).unwrap();
    assert!(hdr(&a).has(FLAG_GAP));
    assert_eq!(a.ack, 1_460);
    let mut rest = data(3, 1054);
    rest.seq = 1_460;
    r.handle_packet(Time::from_us(700), &rest);
    rest.seq = 2_460;
    r.handle_packet(Time::from_us(701), &rest);
    assert_eq!(r.bytes_delivered(), 3_000);
    assert_eq!(r.poll_event(), Some(EndpointEvent::Completed));
    assert_eq!(
        hdr(&r.poll_transmit(Time::from_us(701)).unwrap()).msg,
        MSG_TERMINATE
    );
    assert_eq!(r.poll_timeout(), None);
}

#[test]
fn bad_keys_and_weights_are_refused_with_the_key() {
    let bad = |us: f64| {
        PaceParams::from_config(
            "pace",
            &PaceConfig {
                pace_period_us: Some(us),
                ..Default::default()
            },
        )
        .unwrap_err()
    };
    for us in [0.0, 30.0, 5120.0, f64::NAN] {
        let e = bad(us);
        assert_eq!(e.path, "transport.pace_period_us");
        assert!(e.message.contains("multiple of 20"), "{e}");
    }
    assert_eq!(params().period_units, 10);
    let e = crate::protocols::refused("pace", "rcp_alpha", serde_json::json!(0.1));
    assert_eq!(e.path, "transport.rcp_alpha");
    let flow = |w: f64| crate::workload::FlowSpec {
        src: 0,
        dst: 1,
        size_bytes: 1,
        start: Time::ZERO,
        deadline: None,
        weight: w,
    };
    assert!(check_weights(&[flow(1.0), flow(255.0)]).is_ok());
    let e = check_weights(&[flow(1.0), flow(300.0)]).unwrap_err();
    assert_eq!(e.path, "workload.weight");
    assert!(e.message.contains("flow 1"));
}
