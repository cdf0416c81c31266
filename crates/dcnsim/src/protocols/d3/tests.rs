//! D3's router on hand-built request sequences: the counters N, D, A, greedy FCFS allocation,
//! the fair share of spare capacity, returns by FIN, quench flag, and the 1 B/µs granularity;
//! and the sender's requests across a retransmission timeout.

use super::switch::Counters;
use super::*;
use crate::net::packet::{Header, Packet, PacketKind};
use crate::protocols::agent::{Admission, SwitchAgent};
use crate::protocols::{EndpointEvent, Transport};
use crate::topo::TopologyConfig;

/// A two-host star: ports 0 (h0→sw), 1 (sw→h0), 2 (h1→sw), 3 (sw→h1), all at `gbps`.
fn star_switch(gbps: f64) -> D3Switch {
    let cfg = TopologyConfig {
        hosts: Some(2),
        link_gbps: gbps,
        ..TopologyConfig::of_kind("star")
    };
    let topo = crate::topo::build(&cfg, std::path::Path::new("."), 1).unwrap();
    let net = crate::net::Network::build(&topo, crate::net::queue::Discipline::Fifo, &|_| None);
    let t = Transport::from_config(&TransportConfig {
        protocol: "d3".into(),
        ..Default::default()
    })
    .unwrap();
    match SwitchAgent::new(&t, &net, crate::lb::LbKind::Ecmp) {
        Some(SwitchAgent::D3(s)) => s,
        _ => panic!("d3 has a switch agent"),
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
        header: Header::D3(D3Header {
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
    match p.header {
        Header::D3(h) => h,
        _ => panic!("not a D3 header"),
    }
}

/// Serves the request at [`PORT`] and returns the allocation written in slot 0.
fn serve(s: &mut D3Switch, mut p: Packet) -> u16 {
    assert_eq!(s.on_enqueue(PORT, &mut p), Admission::Protected);
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
    fin.header = match fin.header {
        Header::D3(mut h) => {
            h.flags = 0; // a FIN is served for its kind, request flag or not
            Header::D3(h)
        }
        h => h,
    };
    assert_eq!(s.on_enqueue(PORT, &mut fin), Admission::Protected);
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
    plain.header = Header::D3(D3Header::default());
    assert_eq!(s.on_enqueue(PORT, &mut plain), Admission::Normal);
    assert_eq!(header(&plain).hop, 0);
    // A reply (the ACK that echoes a request, or the SYN-ACK) is protected, as the request
    // was: losing it would leave the allocations it carries back unknown to the sender, which
    // could then never return them. A plain ACK is not. Neither is served.
    let mut reply = request(PacketKind::Ack, 999, 5, 5);
    assert_eq!(s.on_enqueue(PORT, &mut reply), Admission::Protected);
    let mut syn_ack = request(PacketKind::SynAck, 999, 5, 5);
    assert_eq!(s.on_enqueue(PORT, &mut syn_ack), Admission::Protected);
    let mut ack = request(PacketKind::Ack, 999, 5, 5);
    ack.header = Header::D3(D3Header::default());
    assert_eq!(s.on_enqueue(PORT, &mut ack), Admission::Normal);
    assert_eq!((header(&reply).hop, header(&syn_ack).hop), (0, 0));
    assert_eq!(s.counters(PORT), before);
}

#[test]
fn each_hop_reads_and_writes_its_own_slot() {
    let mut s = star_switch(10.0);
    // A request crosses port 2 (hop 0, the NIC) then port 3 (hop 1).
    let mut p = request(PacketKind::Syn, 0, 0, 0);
    s.on_enqueue(2, &mut p);
    s.on_enqueue(3, &mut p);
    let h = header(&p);
    assert_eq!((h.hop, h.alloc[0], h.alloc[1]), (2, 1250, 1250));
    // A second flow's SYN at port 3 only: it takes hop 0's slot there.
    assert_eq!(serve(&mut s, request(PacketKind::Syn, 0, 0, 0)), 0);
    // The first flow's next request returns 1250 at each hop from its own slot.
    let mut next = request(PacketKind::Data, 0, 0, 0);
    next.header = Header::D3(D3Header {
        hop: 0,
        flags: FLAG_REQUEST,
        ..h
    });
    s.on_enqueue(2, &mut next);
    s.on_enqueue(3, &mut next);
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
    s.on_enqueue(2, &mut p);
    assert!(header(&p).has(FLAG_QUENCH));
    // Beyond hop 0 the flag is not the router's business (that would be a core link).
    let mut q = request(PacketKind::Syn, 1251, 0, 0);
    if let Header::D3(h) = &mut q.header {
        h.hop = 1;
    }
    s.on_enqueue(3, &mut q);
    assert!(!header(&q).has(FLAG_QUENCH));
    let mut ok = request(PacketKind::Syn, 1250, 0, 0);
    s.on_enqueue(0, &mut ok);
    assert!(!header(&ok).has(FLAG_QUENCH));
}

#[test]
fn a_path_longer_than_the_vector_passes_unmanaged() {
    let mut s = star_switch(10.0);
    let mut p = request(PacketKind::Syn, 10, 0, 0);
    if let Header::D3(h) = &mut p.header {
        h.hop = MAX_HOPS as u8;
    }
    assert_eq!(s.on_enqueue(PORT, &mut p), Admission::Protected);
    assert!(header(&p).has(FLAG_LONG_PATH));
    assert_eq!(s.counters(PORT), counters(0, 0, 0));
}

/// PACE §6: at 1 Gb/s (125 B/µs) the fair share of 125 flows is 1 B/µs; one flow more and it
/// rounds to 0 for all of them.
#[test]
fn granularity_limits_a_1g_link_to_125_flows() {
    for (n, share) in [(125u64, 1u16), (126, 0)] {
        let mut s = star_switch(1.0);
        assert_eq!(s.counters(PORT).capacity, 125);
        let mut alloc: Vec<u16> = (0..n)
            .map(|_| serve(&mut s, request(PacketKind::Syn, 0, 0, 0)))
            .collect();
        for _ in 0..2 {
            for a in alloc.iter_mut() {
                *a = serve(&mut s, request(PacketKind::Data, 0, 0, *a));
            }
        }
        assert!(alloc.iter().all(|&a| a == share), "{n} flows: {alloc:?}");
        assert_eq!(s.counters(PORT).allocated, n * share as u64);
    }
}

#[test]
fn header_fits_the_packet_budget() {
    assert_eq!(std::mem::size_of::<D3Header>(), HEADER_BYTES as usize);
    assert!(std::mem::size_of::<Header>() <= 24);
}

fn sender_of(size: u64) -> D3Sender {
    let params = D3Params::from_config(&TransportConfig {
        protocol: "d3".into(),
        ..Default::default()
    })
    .unwrap();
    let mut s = D3Sender::new(&params, &crate::protocols::FlowSetup::for_tests(size));
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
        header: Header::D3(h),
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
