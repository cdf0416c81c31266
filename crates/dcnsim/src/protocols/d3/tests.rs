//! D3's router on hand-built request sequences: the counters N, D, A, greedy FCFS allocation,
//! the fair share of spare capacity, returns by FIN, quench flag, the granularity of the rate
//! unit, the adjusted capacity and the previous router's cap; the keys; and the sender's
//! requests across a retransmission timeout and at a rate slower than one packet per RTT.

use super::switch::Counters;
use super::*;
use crate::net::header::Header;
use crate::net::packet::{Packet, PacketKind};
use crate::protocols::agent::Admission;
use crate::protocols::SwitchAgent;
use crate::protocols::{Endpoint, Protocol, SenderEndpoint, SwitchHooks};
use crate::protocols::{EndpointEvent, Transport};
use crate::topo::TopologyConfig;

/// A two-host star: ports 0 (h0→sw), 1 (sw→h0), 2 (h1→sw), 3 (sw→h1), all at `gbps`, with
/// D3 configured by `cfg` (its protocol set here), and the network.
fn star_switch_with(gbps: f64, cfg: D3Config) -> (D3Switch, crate::net::Network) {
    let topo_cfg = TopologyConfig {
        hosts: Some(2),
        link_gbps: gbps,
        ..TopologyConfig::of_kind("star")
    };
    let topo = crate::topo::build(&topo_cfg, std::path::Path::new("."), 1).unwrap();
    let net = crate::net::Network::build(&topo, crate::net::queue::Discipline::Fifo, &|_| None);
    let t = Transport::D3(D3Params::from_config("d3", &cfg).unwrap());
    match SwitchAgent::new(&t, &net, false) {
        Some(SwitchAgent::D3(s)) => (s, net),
        _ => panic!("d3 has a switch agent"),
    }
}

/// The router as it was before issue 32 — 1 B/µs units (8 Mb/s), the raw link rate — so that
/// the hand values below are in bytes/µs (10 Gb/s = 1250).
fn star_switch(gbps: f64) -> D3Switch {
    star_switch_with(gbps, bytes_per_us_link()).0
}

fn bytes_per_us_link() -> D3Config {
    D3Config {
        d3_rate_unit_mbps: Some(8.0),
        d3_capacity: Some("link".into()),
        ..Default::default()
    }
}

const PORT: u32 = 3;

/// A request of a flow at this port's hop (slot 0): it returns `prev` (its previous allocation
/// here) and `prev_desired`, and asks for `desired`.
fn request(kind: PacketKind, desired: u16, prev_desired: u16, prev: u16) -> Packet {
    let mut alloc = [0; MAX_HOPS];
    alloc[0] = prev;
    Packet {
        kind,
        size: 62,
        header: Header::of(D3Header {
            alloc,
            desired,
            prev_desired,
            hop: 0,
            flags: FLAG_REQUEST,
        }),
        ..Default::default()
    }
}

fn header(p: &Packet) -> D3Header {
    p.header.read().expect("not a D3 header")
}

/// `s.on_enqueue` at time 0, the port having sent nothing.
fn enqueue(s: &mut D3Switch, port: u32, p: &mut Packet) -> Admission {
    s.serve(Time::ZERO, port, 0, p)
}

/// Serves the request at [`PORT`] and returns the allocation written in slot 0.
fn serve(s: &mut D3Switch, mut p: Packet) -> u16 {
    assert_eq!(enqueue(s, PORT, &mut p), Admission::Protected);
    let h = header(&p);
    assert_eq!(h.hop, 1, "the router moves the hop index on");
    h.alloc[0]
}

fn counters(n: u64, d: u64, a: u64) -> Counters {
    Counters {
        capacity: 1250,
        flows: n,
        demand: d,
        allocated: a,
    }
}

#[test]
fn first_come_takes_its_demand_plus_fair_share_later_ones_get_what_is_left() {
    let mut s = star_switch(10.0); // C = 1250 B/µs
    assert_eq!(s.counters(PORT), counters(0, 0, 0));
    // Deadline flow X asks 1000: N = 1, D = 1000, fs = 250, left = 1250 > 1000 → 1250.
    assert_eq!(serve(&mut s, request(PacketKind::Syn, 1000, 0, 0)), 1250);
    assert_eq!(s.counters(PORT), counters(1, 1000, 1250));
    // Y asks 600: left = 0 is not > 600 → Y gets what is left, nothing (the base rate).
    assert_eq!(serve(&mut s, request(PacketKind::Syn, 600, 0, 0)), 0);
    assert_eq!(s.counters(PORT), counters(2, 1600, 1250));
    // X's next request returns 1250 and 1000, asks 1000 again: D = 1600 > C so fs = 0;
    // left = 1250 > 1000 → exactly its demand.
    assert_eq!(
        serve(&mut s, request(PacketKind::Data, 1000, 1000, 1250)),
        1000
    );
    assert_eq!(s.counters(PORT), counters(2, 1600, 1000));
    // Y again: left = 250 is not > 600 → greedy, 250 (not 0, not 600).
    assert_eq!(serve(&mut s, request(PacketKind::Data, 600, 600, 0)), 250);
    assert_eq!(s.counters(PORT), counters(2, 1600, 1250));
    // X's FIN returns 1000 and its demand; N = 1.
    let mut fin = request(PacketKind::Fin, 0, 1000, 1000);
    // A FIN is served for its kind, request flag or not.
    fin.header.update(|h: &mut D3Header| h.flags = 0);
    assert_eq!(enqueue(&mut s, PORT, &mut fin), Admission::Protected);
    assert_eq!(s.counters(PORT), counters(1, 600, 250));
    // Y now: fs = 1250 − 600 = 650, left = 1250 → 600 + 650 = 1250.
    assert_eq!(
        serve(&mut s, request(PacketKind::Data, 600, 600, 250)),
        1250
    );
    assert_eq!(s.counters(PORT), counters(1, 600, 1250));
}

#[test]
fn flows_without_deadline_converge_to_equal_shares() {
    let mut s = star_switch(10.0);
    // Four SYNs asking 0: the first takes everything (fs = C/1), the rest get nothing.
    let mut alloc = vec![serve(&mut s, request(PacketKind::Syn, 0, 0, 0))];
    for _ in 1..4 {
        alloc.push(serve(&mut s, request(PacketKind::Syn, 0, 0, 0)));
    }
    assert_eq!(alloc, [1250, 0, 0, 0]);
    // One more round of requests, each returning its allocation: ⌊1250/4⌋ = 312 each.
    for a in alloc.iter_mut() {
        *a = serve(&mut s, request(PacketKind::Data, 0, 0, *a));
    }
    assert_eq!(alloc, [312; 4]);
    assert_eq!(s.counters(PORT), counters(4, 0, 1248));
    // Rounding residue of 2 B/µs: a fifth newcomer gets just that, not a fair share beyond it.
    assert_eq!(serve(&mut s, request(PacketKind::Syn, 0, 0, 0)), 2);
    assert_eq!(s.counters(PORT).allocated, 1250);
}

#[test]
fn data_without_a_request_and_acks_leave_the_counters_alone() {
    let mut s = star_switch(10.0);
    serve(&mut s, request(PacketKind::Syn, 100, 0, 0));
    let before = s.counters(PORT);
    let mut plain = request(PacketKind::Data, 999, 0, 0);
    plain.header = Header::of(D3Header::default());
    assert_eq!(enqueue(&mut s, PORT, &mut plain), Admission::Normal);
    assert_eq!(header(&plain).hop, 0);
    // A reply (the ACK that echoes a request, or the SYN-ACK) is protected, as the request
    // was: losing it would leave the allocations it carries back unknown to the sender, which
    // could then never return them. A plain ACK is not. Neither is served.
    let mut reply = request(PacketKind::Ack, 999, 5, 5);
    assert_eq!(enqueue(&mut s, PORT, &mut reply), Admission::Protected);
    let mut syn_ack = request(PacketKind::SynAck, 999, 5, 5);
    assert_eq!(enqueue(&mut s, PORT, &mut syn_ack), Admission::Protected);
    let mut ack = request(PacketKind::Ack, 999, 5, 5);
    ack.header = Header::of(D3Header::default());
    assert_eq!(enqueue(&mut s, PORT, &mut ack), Admission::Normal);
    assert_eq!((header(&reply).hop, header(&syn_ack).hop), (0, 0));
    assert_eq!(s.counters(PORT), before);
}

#[test]
fn each_hop_reads_and_writes_its_own_slot() {
    let mut s = star_switch(10.0);
    // A request crosses port 2 (hop 0, the NIC) then port 3 (hop 1).
    let mut p = request(PacketKind::Syn, 0, 0, 0);
    enqueue(&mut s, 2, &mut p);
    enqueue(&mut s, 3, &mut p);
    let h = header(&p);
    assert_eq!((h.hop, h.alloc[0], h.alloc[1]), (2, 1250, 1250));
    // A second flow's SYN at port 3 only: it takes hop 0's slot there.
    assert_eq!(serve(&mut s, request(PacketKind::Syn, 0, 0, 0)), 0);
    // The first flow's next request returns 1250 at each hop from its own slot.
    let mut next = request(PacketKind::Data, 0, 0, 0);
    next.header = Header::of(D3Header {
        hop: 0,
        flags: FLAG_REQUEST,
        ..h
    });
    enqueue(&mut s, 2, &mut next);
    enqueue(&mut s, 3, &mut next);
    let h = header(&next);
    assert_eq!((h.alloc[0], h.alloc[1]), (1250, 625));
    assert_eq!(h.path_minimum(), 625);
    assert_eq!(s.counters(2), counters(1, 0, 1250));
    assert_eq!(s.counters(3), counters(2, 0, 625));
}

#[test]
fn hop_zero_flags_a_desired_rate_beyond_the_uplink() {
    let mut s = star_switch(10.0);
    let mut p = request(PacketKind::Syn, 1251, 0, 0);
    enqueue(&mut s, 2, &mut p);
    assert!(header(&p).has(FLAG_QUENCH));
    // Beyond hop 0 the flag is not the router's business (that would be a core link).
    let mut q = request(PacketKind::Syn, 1251, 0, 0);
    q.header.update(|h: &mut D3Header| {
        h.hop = 1;
    });
    enqueue(&mut s, 3, &mut q);
    assert!(!header(&q).has(FLAG_QUENCH));
    let mut ok = request(PacketKind::Syn, 1250, 0, 0);
    enqueue(&mut s, 0, &mut ok);
    assert!(!header(&ok).has(FLAG_QUENCH));
}

#[test]
fn a_path_longer_than_the_vector_passes_unmanaged() {
    let mut s = star_switch(10.0);
    let mut p = request(PacketKind::Syn, 10, 0, 0);
    p.header.update(|h: &mut D3Header| {
        h.hop = MAX_HOPS as u8;
    });
    assert_eq!(enqueue(&mut s, PORT, &mut p), Admission::Protected);
    assert!(header(&p).has(FLAG_LONG_PATH));
    assert_eq!(s.counters(PORT), counters(0, 0, 0));
}

/// PACE §6: at 1 Gb/s (125 B/µs) the fair share of 125 flows is 1 B/µs; one flow more and it
/// rounds to 0 for all of them.
/// The allocations of `n` flows without deadline that open at once (SYN) and then renew
/// twice, each returning what it was given: the port's steady shares.
fn steady_shares(s: &mut D3Switch, n: u64) -> Vec<u16> {
    let mut alloc: Vec<u16> = (0..n)
        .map(|_| serve(s, request(PacketKind::Syn, 0, 0, 0)))
        .collect();
    for _ in 0..2 {
        for a in alloc.iter_mut() {
            *a = serve(s, request(PacketKind::Data, 0, 0, *a));
        }
    }
    alloc
}

#[test]
fn granularity_limits_a_1g_link_to_125_flows() {
    for (n, share) in [(125u64, 1u16), (126, 0)] {
        let mut s = star_switch(1.0);
        assert_eq!(s.counters(PORT).capacity, 125);
        let alloc = steady_shares(&mut s, n);
        assert!(alloc.iter().all(|&a| a == share), "{n} flows: {alloc:?}");
        assert_eq!(s.counters(PORT).allocated, n * share as u64);
    }
}

#[test]
fn header_fits_the_packet_budget() {
    assert_eq!(std::mem::size_of::<D3Header>(), HEADER_BYTES as usize);
    assert!(std::mem::size_of::<Header>() <= 24);
}

/// A sender of `size` bytes in 1 B/µs units (the hand values of the tests below).
fn sender_of(size: u64) -> D3Sender {
    sender_with(size, None, 8.0)
}

fn sender_with(size: u64, deadline: Option<Time>, unit_mbps: f64) -> D3Sender {
    let params = D3Params::from_config(
        "d3",
        &D3Config {
            d3_rate_unit_mbps: Some(unit_mbps),
            ..Default::default()
        },
    )
    .unwrap();
    let setup = crate::protocols::FlowSetup {
        deadline,
        ..crate::protocols::FlowSetup::for_tests(size)
    };
    let mut s = D3Sender::new(&params, &setup);
    s.start(Time::ZERO);
    s
}

/// The receiver's answer to `p`: the cumulative `ack`, `p`'s header echoed with one hop's
/// allocation `alloc` written in (as the routers left it).
fn answer(kind: PacketKind, p: &Packet, ack: u64, alloc: u16) -> Packet {
    let mut h = header(p);
    h.alloc[0] = alloc;
    h.hop = 1;
    Packet {
        kind,
        ack,
        ts_echo: p.ts,
        header: Header::of(h),
        ..Default::default()
    }
}

/// Every packet the sender lets out up to `until`, as the engine's timer would wake it.
fn sent_until(s: &mut D3Sender, from: Time, until: Time) -> Vec<Packet> {
    let mut out = Vec::new();
    let mut now = from;
    loop {
        while let Some(p) = s.poll_transmit(now) {
            out.push(p);
        }
        match s.poll_timeout() {
            Some(t) if t <= until => {
                now = t.max(now);
                s.handle_timeout(now);
            }
            _ => return out,
        }
    }
}

/// Data lost and the timer fired while a request was in flight: the request was not lost
/// (requests and replies are protected), so the sender must not ask again before its reply.
/// A second request in flight would stay for good: each reply re-enables a request while the
/// other is still out, each request returns the allocation the *other's* reply brought, and
/// the FIN returns only one of the two, so a router never gets the other back (it once held
/// a whole link for ever, and every later flow through it sat at the base rate).
#[test]
fn a_retransmission_timeout_adds_no_second_request() {
    let request_flag = |p: &Packet| header(p).has(FLAG_REQUEST);
    let mut s = sender_of(1000 * 1460);
    let syn = s.poll_transmit(Time::ZERO).expect("the SYN");
    assert!(request_flag(&syn));
    let t = Time::from_us(10);
    s.handle_packet(t, &answer(PacketKind::SynAck, &syn, 0, 1250));
    // Established at 10 Gb/s: the first data packet carries the next request.
    let burst = sent_until(&mut s, t, t + Time::from_us(20));
    assert!(burst.len() > 5, "{} packets", burst.len());
    assert!(request_flag(&burst[0]));
    assert!(burst[1..].iter().all(|p| !request_flag(p)));
    // Its reply comes back, with the ACK of that packet alone; the next packet asks again.
    let t2 = t + Time::from_us(25);
    s.handle_packet(t2, &answer(PacketKind::Ack, &burst[0], 1460, 625));
    let t2_end = t2 + Time::from_us(2);
    let second = sent_until(&mut s, t2, t2_end);
    assert!(request_flag(&second[0]), "a request after the reply");
    // Nothing more is ACKed (the rest was lost), and the timer (1 ms) fires while that
    // second request's reply is still on its way: no later packet, the retransmissions
    // included, carries a request.
    let t3 = t2 + Time::from_us(1_500);
    let after = sent_until(&mut s, t2_end, t3);
    assert!(
        after.iter().any(|p| p.retransmit),
        "go-back after the timeout"
    );
    assert!(
        after.iter().all(|p| !request_flag(p)),
        "a second request while one is in flight"
    );
    // The reply arrives: the next request returns what it brought (625 → 300 here).
    s.handle_packet(t3, &answer(PacketKind::Ack, &second[0], 2 * 1460, 300));
    let next = sent_until(&mut s, t3, t3 + Time::from_us(100));
    let asks: Vec<_> = next.iter().filter(|p| request_flag(p)).collect();
    assert_eq!(asks.len(), 1, "{} packets", next.len());
    assert_eq!(header(asks[0]).alloc[0], 300);
}

/// A paused flow (base rate) whose header-only request goes unanswered for a whole timeout
/// (only a failed link loses one) asks again rather than waiting for ever.
#[test]
fn a_paused_flow_whose_request_is_lost_asks_again() {
    let mut s = sender_of(10 * 1460);
    let syn = s.poll_transmit(Time::ZERO).expect("the SYN");
    let t = Time::from_us(10);
    s.handle_packet(t, &answer(PacketKind::SynAck, &syn, 0, 0)); // the base rate
    let first = s.poll_transmit(t).expect("a header-only request");
    assert!(header(&first).has(FLAG_HEADER_ONLY) && header(&first).has(FLAG_REQUEST));
    assert!(s.poll_transmit(t).is_none(), "one request per reply");
    let rto = s.poll_timeout().expect("the request's timer");
    let again = sent_until(&mut s, t, rto);
    assert_eq!(again.len(), 1);
    assert!(header(&again[0]).has(FLAG_REQUEST));
}

/// The application aborts the flow (`workload.abort_at_deadline`) while the request on a data
/// packet is in flight: the routers have already taken back the allocation the sender holds
/// (625) and given a new one (300) that only the reply brings. The FIN waits for that reply
/// and returns 300; had it gone at once with 625, 625 would have been taken back twice and
/// 300 never. Aborted with no request in flight, the FIN goes at once with what it holds; with
/// the reply lost (a failed link), it goes after a timeout.
#[test]
fn an_aborted_flow_returns_the_allocation_of_its_last_reply() {
    let request_flag = |p: &Packet| header(p).has(FLAG_REQUEST);
    let established = || {
        let mut s = sender_of(1000 * 1460);
        let syn = s.poll_transmit(Time::ZERO).expect("the SYN");
        let t = Time::from_us(10);
        s.handle_packet(t, &answer(PacketKind::SynAck, &syn, 0, 625));
        (s, t)
    };
    // A request in flight, then the abort: nothing is sent until its reply.
    let (mut s, t) = established();
    let burst = sent_until(&mut s, t, t + Time::from_us(5));
    assert!(request_flag(&burst[0]) && header(&burst[0]).alloc[0] == 625);
    let t_abort = t + Time::from_us(6);
    assert!(!s.abort(t_abort), "no FIN before the reply");
    assert!(s.is_closing());
    assert!(s.poll_transmit(t_abort).is_none());
    // An ACK without the reply changes nothing; the reply releases the FIN.
    s.handle_packet(t_abort, &answer(PacketKind::Ack, &burst[1], 1460, 0));
    assert!(s.poll_transmit(t_abort).is_none());
    s.handle_packet(t_abort, &answer(PacketKind::Ack, &burst[0], 1460, 300));
    let fin = s.poll_transmit(t_abort).expect("the FIN");
    assert_eq!(fin.kind, PacketKind::Fin);
    assert_eq!(header(&fin).alloc[0], 300);
    assert_eq!(s.poll_event(), Some(EndpointEvent::Terminated));
    assert!(!s.is_closing());

    // Nothing in flight (the reply is in): the FIN goes at once with what the sender holds.
    let (mut s, t) = established();
    assert!(s.abort(t));
    assert!(!s.is_closing());
    let fin = s.poll_transmit(t).expect("the FIN");
    assert_eq!((fin.kind, header(&fin).alloc[0]), (PacketKind::Fin, 625));

    // The reply never comes: after the timeout the FIN goes with what the sender holds.
    let (mut s, t) = established();
    let _ = sent_until(&mut s, t, t + Time::from_us(5));
    assert!(!s.abort(t + Time::from_us(6)));
    let late = sent_until(&mut s, t + Time::from_us(6), t + Time::from_ms(5));
    assert_eq!(late.len(), 1);
    assert_eq!(
        (late[0].kind, header(&late[0]).alloc[0]),
        (PacketKind::Fin, 625)
    );
}

/// The default unit, 1 Mb/s, on a 1 Gb/s link (1 000 units): N flows without deadline get
/// ⌊1000/N⌋ each once every one has asked twice — 42 flows 23 (96.6 % of the link), 64 flows
/// 15 (96.0 %), 250 flows 4 (all of it), where 1 B/µs units gave ⌊125/N⌋: 2 (67.2 %), 1
/// (51.2 %) and 0 (nothing). No interval has passed, so the adjusted capacity is the link's.
#[test]
fn a_1_mbps_unit_shares_a_1g_link_within_a_unit_per_flow() {
    for (n, share) in [(42u64, 23u16), (64, 15), (250, 4)] {
        let (mut s, _) = star_switch_with(1.0, D3Config::default());
        assert_eq!(s.counters(PORT).capacity, 1000);
        let alloc = steady_shares(&mut s, n);
        assert!(alloc.iter().all(|&a| a == share), "{n} flows: {alloc:?}");
        assert_eq!(s.counters(PORT).allocated, n * share as u64);
    }
}

/// The adjustment by hand, at C = 10 Gb/s and an interval of 10 µs: a port that sent at
/// 7.5 Gb/s with an empty queue hands out C + α·(C − u) = 10.25 Gb/s; half an interval moves
/// it half as far; one queued full packet (12 000 bits) takes β·q/T = 1.2 Gb/s off; the
/// result stays within [C, 2C].
#[test]
fn adjusted_capacity_by_hand() {
    let (c, t) = (10e9, 10e-6);
    let adj = |cap: f64, dt: f64, u: f64, q: f64| adjusted_capacity(cap, c, dt, t, u, q, 0.1, 1.0);
    let close = |a: f64, b: f64| (a - b).abs() < 1.0; // bit/s
    assert!(close(adj(c, t, 7.5e9, 0.0), 10.25e9));
    assert!(close(adj(c, t / 2.0, 7.5e9, 0.0), 10.125e9));
    assert!(close(adj(12e9, t, 7.5e9, 12_000.0), 12e9 + 0.25e9 - 1.2e9));
    assert_eq!(
        adj(10.5e9, t, 1e10, 12_000.0),
        c,
        "never below the link rate"
    );
    assert_eq!(
        adj(19.9e9, t, 0.0, 0.0),
        2.0 * c,
        "never above twice the link rate"
    );
    assert_eq!(MAX_CAPACITY_FACTOR, 2.0);
}

/// The adjustment in the router, by hand, at 10 Gb/s with 1 Mb/s units and a 10 µs interval.
#[test]
fn the_router_hands_out_the_adjusted_capacity_and_resets_it_when_idle() {
    let cfg = D3Config {
        d3_interval_us: Some(10.0),
        ..Default::default()
    };
    let (mut s, mut net) = star_switch_with(10.0, cfg);
    assert_eq!(s.poll_timeout(), None, "no flow, no timer");
    // A first flow wakes the port and takes the whole link (fs = C/1).
    assert_eq!(serve(&mut s, request(PacketKind::Syn, 0, 0, 0)), 10_000);
    assert_eq!(s.poll_timeout(), Some(Time::from_us(10)));
    // In its first interval the port sent 9 375 bytes: 7.5 Gb/s. C ← 10 + 0.1 · 2.5 Gb/s.
    net.ports[PORT as usize].counters.tx_bytes = 9_375;
    s.handle_timeout(Time::from_us(10), &net.ports);
    assert!((s.capacity_bps(PORT) - 10.25e9).abs() < 1.0);
    assert_eq!(s.poll_timeout(), Some(Time::from_us(20)));
    // 10 250 units to hand out: a second flow gets the 250 the first leaves; the first, asking
    // again, its fair share ⌊10 250 / 2⌋ = 5 125 (never more than the link, 10 000).
    assert_eq!(serve(&mut s, request(PacketKind::Syn, 0, 0, 0)), 250);
    assert_eq!(
        serve(&mut s, request(PacketKind::Data, 0, 0, 10_000)),
        5_125
    );
    assert_eq!(s.counters(PORT).allocated, 5_375);
    // A full interval at line rate (12 500 bytes) and an empty queue: no change.
    net.ports[PORT as usize].counters.tx_bytes += 12_500;
    s.handle_timeout(Time::from_us(20), &net.ports);
    assert!((s.capacity_bps(PORT) - 10.25e9).abs() < 1.0);
    // Again, with a 1 500-byte packet queued: β·q/T = 1.2 Gb/s, 9.05 Gb/s, held at C.
    let mut pool = crate::net::packet::PacketPool::default();
    let queued = pool.insert(Packet {
        size: 1500,
        ..Default::default()
    });
    let port = &mut net.ports[PORT as usize];
    port.queue.enqueue(&mut pool, queued);
    port.counters.tx_bytes += 12_500;
    s.handle_timeout(Time::from_us(30), &net.ports);
    assert_eq!(s.capacity_bps(PORT), 10e9);
    // The queue drains and the link idles for an interval: 10 + 0.1 · 10 = 11 Gb/s.
    let port = &mut net.ports[PORT as usize];
    assert_eq!(port.queue.dequeue(&pool), Some(queued));
    s.handle_timeout(Time::from_us(40), &net.ports);
    assert!((s.capacity_bps(PORT) - 11e9).abs() < 1.0);
    // Both flows end: at the next update the port hands out the link rate again and sleeps.
    for a in [250, 5_125] {
        let mut fin = request(PacketKind::Fin, 0, 0, a);
        enqueue(&mut s, PORT, &mut fin);
    }
    assert_eq!(
        s.counters(PORT),
        Counters {
            capacity: 10_000,
            ..Default::default()
        }
    );
    s.handle_timeout(Time::from_us(50), &net.ports);
    assert_eq!(s.capacity_bps(PORT), 10e9);
    assert_eq!(s.poll_timeout(), None);
}

/// §4: a router gives no more than the previous router did (slot hop − 1 of the vector), so a
/// flow held back upstream holds nothing more downstream. A SYN that the port before gave
/// 2 500 units reaches port 3, where it is alone (fair share 10 000): `adjusted` gives it
/// 2 500, `link` (the router before issue 32) 10 000.
#[test]
fn no_allocation_beyond_the_previous_routers() {
    for (cfg, want) in [(D3Config::default(), 2_500u16), (link_1mbps(), 10_000)] {
        let (mut s, _) = star_switch_with(10.0, cfg);
        let mut p = request(PacketKind::Syn, 0, 0, 0);
        p.header.update(|h: &mut D3Header| {
            h.alloc[0] = 2_500;
            h.hop = 1;
        });
        assert_eq!(enqueue(&mut s, PORT, &mut p), Admission::Protected);
        assert_eq!(header(&p).alloc[1], want);
        assert_eq!(s.counters(PORT).allocated, want as u64);
    }
}

fn link_1mbps() -> D3Config {
    D3Config {
        d3_capacity: Some("link".into()),
        ..Default::default()
    }
}

/// The keys: bad values are refused with a message naming the key.
#[test]
fn keys_are_validated() {
    let params = |cfg: D3Config| D3Params::from_config("d3", &D3Config { ..cfg });
    let unit = |mbps: f64| {
        params(D3Config {
            d3_rate_unit_mbps: Some(mbps),
            ..Default::default()
        })
    };
    assert_eq!(unit(1.0).unwrap().unit_bps, 1_000_000);
    assert_eq!(unit(8.0).unwrap().unit_bps, 8_000_000);
    assert_eq!(unit(0.001).unwrap().unit_bps, 1_000);
    for bad in [0.0, -1.0, f64::NAN, f64::INFINITY, 2e6, 1.5e-6, 1e-7] {
        let err = unit(bad).unwrap_err();
        assert_eq!(err.path, "transport.d3_rate_unit_mbps", "{bad}");
    }
    let p = params(D3Config::default()).unwrap();
    assert_eq!(
        p.capacity,
        Capacity::Adjusted {
            alpha: 0.1,
            beta: 1.0,
            interval: Time::from_us(10)
        }
    );
    let err = params(D3Config {
        d3_capacity: Some("raw".into()),
        ..Default::default()
    })
    .unwrap_err();
    assert_eq!(err.path, "transport.d3_capacity");
    let err = params(D3Config {
        d3_capacity: Some("link".into()),
        d3_alpha: Some(0.2),
        ..Default::default()
    })
    .unwrap_err();
    assert_eq!(err.path, "transport.d3_alpha");
    for (cfg, key) in [
        (
            D3Config {
                d3_beta: Some(-1.0),
                ..Default::default()
            },
            "transport.d3_beta",
        ),
        (
            D3Config {
                d3_interval_us: Some(0.0),
                ..Default::default()
            },
            "transport.d3_interval_us",
        ),
    ] {
        assert_eq!(params(cfg).unwrap_err().path, key);
    }
    // A unit the network's links cannot use: 100 Gb/s is 100 000 units of 1 Mb/s (the header
    // holds 65 534); a 1 Gb/s link is less than one unit of 2 Gb/s.
    use crate::units::Rate;
    let p = unit(1.0).unwrap();
    assert!(p
        .check_link_rates(&mut [Rate(65_534_000_000)].into_iter())
        .is_ok());
    let err = p
        .check_link_rates(&mut [Rate(1_000_000_000), Rate(100_000_000_000)].into_iter())
        .unwrap_err();
    assert_eq!(err.path, "transport.d3_rate_unit_mbps");
    assert!(err.to_string().contains("at least 1.525"), "{err}");
    let err = unit(2000.0)
        .unwrap()
        .check_link_rates(&mut [Rate(1_000_000_000)].into_iter())
        .unwrap_err();
    assert_eq!(err.path, "transport.d3_rate_unit_mbps");
}

/// The defaults a network gives: 1 Mb/s, or the smallest whole Mb/s that holds the fastest
/// link in 16 bits; α = 0.1, β = 1 and the longest path's RTT under `adjusted`, nothing more
/// under `link`.
#[test]
fn defaults_from_the_network() {
    use crate::net::scale::PathScale;
    use crate::units::Rate;
    let scale = PathScale {
        rtt: Time::from_ns(6_490),
        rate: Rate(10_000_000_000),
    };
    let defaults = |capacity: Option<&str>, fastest_gbps: u64| {
        let mut cfg = D3Config {
            d3_capacity: capacity.map(str::to_string),
            ..Default::default()
        };
        network_defaults(&mut cfg, Some(&scale), Rate(fastest_gbps * 1_000_000_000));
        cfg
    };
    let cfg = defaults(None, 40);
    assert_eq!(cfg.d3_rate_unit_mbps, Some(1.0));
    assert_eq!(
        (cfg.d3_alpha, cfg.d3_beta, cfg.d3_interval_us),
        (Some(0.1), Some(1.0), Some(6.49))
    );
    assert_eq!(defaults(None, 100).d3_rate_unit_mbps, Some(2.0));
    assert_eq!(defaults(None, 400).d3_rate_unit_mbps, Some(7.0));
    let cfg = defaults(Some("link"), 10);
    assert_eq!(
        (cfg.d3_alpha, cfg.d3_beta, cfg.d3_interval_us),
        (None, None, None)
    );
    assert!(D3Params::from_config("d3", &cfg).is_ok());
}

/// A deadline flow asks for its remaining wire bytes over the time left, rounded up to a
/// whole unit: 1 MB in 685 packets of 62 header bytes is 1 042 470 bytes, 8 339 760 bits; with
/// a 1 ms deadline that is 8 339.76 Mb/s: 8 340 units of 1 Mb/s, 1 043 of 8 Mb/s.
#[test]
fn the_desired_rate_rounds_up_to_a_unit() {
    for (unit, want) in [(1.0, 8_340u16), (8.0, 1_043)] {
        let mut s = sender_with(1_000_000, Some(Time::from_ms(1)), unit);
        let syn = s.poll_transmit(Time::ZERO).expect("the SYN");
        assert_eq!(header(&syn).desired, want, "unit {unit} Mb/s");
    }
}

/// A higher rate re-times the packet waiting for its turn: it leaves its wire size at the new
/// rate after the previous packet, not at the old one. At 1 B/µs (8 Mb/s) a 1 522-byte packet
/// waits 1 522 µs for the next; the reply to the request it carried brings 625 B/µs an RTT
/// (10 µs) later, and the second packet, due 1 522 / 625 = 2.4352 µs after the first, leaves
/// at once.
#[test]
fn a_higher_rate_speeds_up_the_waiting_packet() {
    let mut s = sender_of(100 * 1460);
    let syn = s.poll_transmit(Time::ZERO).expect("the SYN");
    let t = Time::from_us(10);
    s.handle_packet(t, &answer(PacketKind::SynAck, &syn, 0, 1)); // 1 B/µs
    let first = s.poll_transmit(t).expect("a data packet with the request");
    assert!(header(&first).has(FLAG_REQUEST) && first.payload > 0);
    assert!(s.poll_transmit(t + Time::from_us(5)).is_none());
    let t2 = t + Time::from_us(10);
    s.handle_packet(t2, &answer(PacketKind::Ack, &first, 1460, 625));
    let next = s.poll_transmit(t2).expect("the second data packet");
    assert_eq!((next.seq, next.payload), (1460, 1460));
    assert_eq!(
        s.poll_timeout(),
        Some(t2 + Time::from_ps(1_522 * 8 * 1_000_000 / 5_000)),
        "paced at 5 Gb/s from here"
    );
}

#[test]
fn the_header_round_trips_through_the_slot() {
    assert!(D3Params::HEADER_TAGS.contains(&D3Header::TAG));
    crate::net::header::assert_round_trips(D3Header {
        alloc: [1, 2, 3, 4, 5, 6, 7, u16::MAX],
        desired: 40_000,
        prev_desired: 9,
        hop: 7,
        flags: FLAG_REQUEST | FLAG_QUENCH,
    });
}
