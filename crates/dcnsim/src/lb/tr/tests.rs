//! TR on hand-built packets over small leaf-spines built by the real topology code. Times are
//! worked out by hand: 1 Gb/s, so a 1500-byte packet takes 12 µs on a link.

use super::*;
use crate::lb::testnet;
use crate::lb::RoutingConfig;
use crate::net::packet::{PacketKind, PacketPool};
use crate::net::routing::RoutingTable;

const FULL: u32 = 1500;

/// 2 leaves, `spines` spines, 2 hosts per leaf (hosts 0–1 under leaf0, 2–3 under leaf1), 1 Gb/s
/// links of 25 µs and 250-packet buffers; the last spine's two links are 75 µs (a bad path:
/// 150 µs leaf to leaf against 50).
fn net(spines: usize) -> Network {
    let bad = spines - 1;
    testnet::build(&format!(
        "kind = \"leafspine\"\nleaves = 2\nspines = {spines}\nhosts_per_leaf = 2\n\
         link_gbps = 1\nlink_delay_us = 25\nbuffer_pkts = 250\n\
         link_overrides = [{{ between = [\"leaf0\", \"spine{bad}\"], delay_us = 75 }},\n\
                           {{ between = [\"leaf1\", \"spine{bad}\"], delay_us = 75 }}]"
    ))
}

fn tr(net: &Network, flows: usize, f: impl FnOnce(&mut RoutingConfig)) -> Tr {
    let mut cfg = RoutingConfig {
        lb: "tr".into(),
        ..Default::default()
    };
    f(&mut cfg);
    let params = LbParams::from_config(&cfg).unwrap();
    Tr::new(SourceEdge::new(net), net, flows, &params, 1)
}

fn node(net: &Network, name: &str) -> NodeIdx {
    net.nodes.iter().position(|n| n.name == name).unwrap() as NodeIdx
}

fn port(net: &Network, from: &str, to: &str) -> PortIdx {
    let (a, b) = (node(net, from), node(net, to));
    net.nodes[a as usize]
        .ports
        .iter()
        .copied()
        .find(|&p| net.ports[p as usize].peer == b)
        .unwrap()
}

/// Puts `pkts` full packets on a port's schedule at `now` (the first starts at once).
fn load(net: &mut Network, pool: &mut PacketPool, p: PortIdx, pkts: u32, now: Time) {
    for _ in 0..pkts {
        let r = pool.insert(Packet::default());
        net.ports[p as usize].schedule(now, r, FULL as u64);
    }
}

fn data(flow: u32, payload: u32) -> Packet {
    Packet {
        flow,
        src: 0,
        dst: 2,
        payload,
        size: payload + 40,
        ..Default::default()
    }
}

/// Routes `pkt` at leaf0 at `now` and puts it on the chosen uplink, as the engine would.
fn send(t: &mut Tr, net: &mut Network, pool: &mut PacketPool, pkt: Packet, now: Time) -> PortIdx {
    let leaf0 = node(net, "leaf0");
    let cands = net.routing.next_hops(leaf0, pkt.dst).to_vec();
    let routing = std::mem::replace(&mut net.routing, RoutingTable::empty());
    let mut p = pkt;
    let chosen = {
        let mut fabric = Fabric {
            now,
            routing: &routing,
            ports: &mut net.ports,
        };
        t.choose(leaf0, &mut p, &cands, &mut fabric)
    };
    net.routing = routing;
    let size = p.size as u64;
    let r = pool.insert(p);
    net.ports[chosen as usize].schedule(now, r, size);
    chosen
}

fn path(t: &Tr, net: &Network, spine: &str) -> Path {
    let j = t.uplink_of_port[port(net, "leaf0", spine) as usize] as usize;
    t.paths[(t.leaf_of_node[node(net, "leaf0") as usize] as usize * t.leaves
        + t.leaf_of_node[node(net, "leaf1") as usize] as usize)
        * t.width
        + j]
}

fn set_spine_wait(t: &mut Tr, net: &Network, spine: &str, wait: Time) {
    let j = t.uplink_of_port[port(net, "leaf0", spine) as usize] as usize;
    let i = (t.leaf_of_node[node(net, "leaf0") as usize] as usize * t.leaves
        + t.leaf_of_node[node(net, "leaf1") as usize] as usize)
        * t.width
        + j;
    t.paths[i].spine_wait = wait;
}

#[test]
fn queue_codes_are_bs_over_2_to_the_k_steps_exactly() {
    let mut n = net(2);
    let mut pool = PacketPool::default();
    let p = port(&n, "spine0", "leaf1");
    // 250 packets in 32 steps of 7.8125: 7 waiting → 0, 8 → 1, 100 → ⌊12.8⌋ = 12.
    for (waiting, code) in [(0, 0), (7, 0), (8, 1), (100, 12), (249, 31), (250, 31)] {
        let mut m = net(2);
        load(&mut m, &mut pool, p, waiting + 1, Time::ZERO); // one is on the wire
        assert_eq!(
            encode(&mut m.ports[p as usize], Time::ZERO, 5),
            code,
            "{waiting}"
        );
    }
    // Code 12 is 12 · 250/32 = 93.75 packets of 1500 B at 1 Gb/s: 1125 µs.
    assert_eq!(decode(12, &n.ports[p as usize], 5), Time::from_us(1125));
    assert_eq!(decode(0, &n.ports[p as usize], 5), Time::ZERO);
    // With k = 3 the step is 250/8 packets: 100 waiting → ⌊3.2⌋ = 3 → 93.75 packets again.
    load(&mut n, &mut pool, p, 101, Time::ZERO);
    assert_eq!(encode(&mut n.ports[p as usize], Time::ZERO, 3), 3);
    assert_eq!(decode(3, &n.ports[p as usize], 3), Time::from_us(1125));
    // A buffer in bytes (TR §4.2: 375 KB at 40 Gb/s): steps of 11 718.75 B, 2.34375 µs.
    let m = testnet::build(
        "kind = \"leafspine\"\nleaves = 2\nspines = 2\nhosts_per_leaf = 1\nlink_gbps = 40\n\
         buffer_kb = 375",
    );
    let q = port(&m, "spine0", "leaf1");
    assert_eq!(decode(1, &m.ports[q as usize], 5), Time::from_ps(2_343_750));
    assert_eq!(
        decode(31, &m.ports[q as usize], 5),
        Time::from_ps(31 * 2_343_750)
    );
}

#[test]
fn spines_write_their_queue_into_the_ack_ttl_and_the_leaf_restores_it() {
    let mut n = net(2);
    let mut pool = PacketPool::default();
    let mut t = tr(&n, 1, |_| {});
    // spine0's queue towards leaf1 holds 100 packets: code 12.
    let q = port(&n, "spine0", "leaf1");
    load(&mut n, &mut pool, q, 101, Time::ZERO);
    let mut ack = Packet {
        src: 2,
        dst: 0,
        kind: PacketKind::Ack,
        size: 40,
        ..Default::default()
    };
    assert_eq!(ack.lb.ttl, 64, "what hosts send");
    let up = port(&n, "leaf1", "spine0");
    t.on_arrive(up, &mut ack, &mut n.ports, Time::ZERO);
    assert_eq!(
        ack.lb.ttl,
        12 << 3,
        "code in the upper 5 bits, hop bits kept"
    );
    let down = port(&n, "spine0", "leaf0");
    t.on_arrive(down, &mut ack, &mut n.ports, Time::from_us(37));
    assert_eq!(ack.lb.ttl, 64, "the host sees the TTL it would have seen");
    assert_eq!(path(&t, &n, "spine0").spine_wait, Time::from_us(1125));
    assert_eq!(path(&t, &n, "spine1").spine_wait, Time::ZERO);
    assert_eq!((t.stats.stamped, t.stats.restored), (1, 1));
    // Data packets are not touched, nor ACKs between a host and its leaf.
    let mut d = data(0, 1460);
    t.on_arrive(
        port(&n, "leaf0", "spine0"),
        &mut d,
        &mut n.ports,
        Time::ZERO,
    );
    let mut ack2 = Packet {
        kind: PacketKind::Ack,
        src: 2,
        dst: 0,
        ..Default::default()
    };
    let host2 = n.hosts[2];
    let nic = n.nodes[host2 as usize].ports[0];
    t.on_arrive(nic, &mut ack2, &mut n.ports, Time::ZERO);
    assert_eq!((d.lb.ttl, ack2.lb.ttl), (64, 64));
    assert_eq!(t.stats.stamped, 1);
}

/// Eq. (1) by hand, and a short flow's packet goes to the smallest TNL.
#[test]
fn short_flows_take_the_smallest_time_to_next_leaf() {
    let mut n = net(2);
    let mut pool = PacketPool::default();
    let mut t = tr(&n, 2, |_| {});
    let (good, bad) = (port(&n, "leaf0", "spine0"), port(&n, "leaf0", "spine1"));
    assert_eq!(path(&t, &n, "spine0").prop, Time::from_us(50));
    assert_eq!(path(&t, &n, "spine1").prop, Time::from_us(150));
    // Idle: TNL = 12 + 50 + 12 = 74 µs over spine0, 174 over spine1.
    assert_eq!(
        send(&mut t, &mut n, &mut pool, data(0, 1460), Time::ZERO),
        good
    );
    assert_eq!(t.dirs[0].p_tnl, Time::from_us(74));
    // Nine packets wait on the good uplink (busy until 12 + 108 µs): TNL 12 + 108 + 74 = 194
    // against 12 + 174 = 186 µs on the bad one.
    load(&mut n, &mut pool, good, 9, Time::from_us(12));
    assert_eq!(
        send(&mut t, &mut n, &mut pool, data(1, 1460), Time::from_us(12)),
        bad
    );
    assert_eq!(t.dirs[2].p_tnl, Time::from_us(12 + 174));
    // A spine queue reported on spine1 (1125 µs) sends the next packet back to spine0.
    set_spine_wait(&mut t, &n, "spine1", Time::from_us(1125));
    let p = send(&mut t, &mut n, &mut pool, data(1, 1460), Time::from_us(24));
    assert_eq!(p, good);
    assert_eq!(t.dirs[2].p_tnl, Time::from_us(108 + 12 + 12 + 50 + 12));
}

/// The reordering filter: an uplink whose TNL is below the previous packet's is not used, even
/// when it is the fastest; with no uplink left, the previous packet's uplink.
#[test]
fn uplinks_that_would_overtake_the_previous_packet_are_excluded() {
    let mut n = net(2);
    let mut pool = PacketPool::default();
    let mut t = tr(&n, 1, |_| {});
    let (good, bad) = (port(&n, "leaf0", "spine0"), port(&n, "leaf0", "spine1"));
    // spine0 reported congested: the first packet takes spine1, p.TNL = 174 µs.
    set_spine_wait(&mut t, &n, "spine0", Time::from_us(1125));
    assert_eq!(
        send(&mut t, &mut n, &mut pool, data(0, 1460), Time::ZERO),
        bad
    );
    // spine0 reported empty again: at 12 µs its TNL is 86 µs < 174, so the packet stays on
    // spine1 (TNL 12 + 174 = 186) though spine0 would be faster.
    set_spine_wait(&mut t, &n, "spine0", Time::ZERO);
    assert_eq!(
        send(&mut t, &mut n, &mut pool, data(0, 1460), Time::from_us(12)),
        bad
    );
    // 100 µs after the last one, spine0's TNL (300 + 74) passes p.TNL (186) and wins.
    assert_eq!(
        send(&mut t, &mut n, &mut pool, data(0, 1460), Time::from_us(300)),
        good
    );
    assert_eq!(t.stats.no_ordered_uplink, 0);

    // Both uplinks fall below p.TNL: a spine1 report of 1125 µs made p.TNL 1299 µs, then it
    // clears; the packet keeps to its previous uplink and p.TNL stays.
    let mut t = tr(&n, 1, |_| {});
    set_spine_wait(&mut t, &n, "spine0", Time::from_us(5000));
    set_spine_wait(&mut t, &n, "spine1", Time::from_us(1125));
    assert_eq!(
        send(
            &mut t,
            &mut n,
            &mut pool,
            data(0, 1460),
            Time::from_us(1000)
        ),
        bad
    );
    let before = t.dirs[0].p_tnl;
    set_spine_wait(&mut t, &n, "spine0", Time::ZERO);
    set_spine_wait(&mut t, &n, "spine1", Time::ZERO);
    assert_eq!(
        send(
            &mut t,
            &mut n,
            &mut pool,
            data(0, 1460),
            Time::from_us(1012)
        ),
        bad
    );
    assert_eq!(t.stats.no_ordered_uplink, 1);
    assert_eq!(t.dirs[0].p_tnl, before);
}

/// A long flow goes where the fewest short flows are, ties to the smallest TNL — onto a slow
/// path if that is where no short flow is.
#[test]
fn long_flows_avoid_the_uplinks_of_short_flows() {
    let mut n = net(3); // spine2 is the bad path
    let mut pool = PacketPool::default();
    let mut t = tr(&n, 3, |c| c.tr_long_bytes = Some(1000));
    let ups: Vec<PortIdx> = (0..3)
        .map(|s| port(&n, "leaf0", &format!("spine{s}")))
        .collect();
    // Short flows 0 and 1 are each counted on one good uplink.
    t.count(0, ups[0], Time::ZERO);
    t.count(1, ups[1], Time::ZERO);
    assert_eq!((t.ns[ups[0] as usize], t.ns[ups[1] as usize]), (1, 1));
    // Flow 2 has sent 1460 > 1000 bytes: long. Fewest short flows: spine2, though slower.
    assert_eq!(
        send(&mut t, &mut n, &mut pool, data(2, 1460), Time::from_us(1)),
        ups[2]
    );
    // Flow 1 turns long too (its second packet): it leaves spine1's count.
    t.dirs[2].sent = 1000;
    send(&mut t, &mut n, &mut pool, data(1, 1460), Time::from_us(2));
    assert_eq!(t.ns[ups[1] as usize], 0);
    // At 3 µs flow 2 may not move to spine1 (TNL 3 + 11 + 74 = 88 µs is below its previous
    // packet's 175): it stays on spine2.
    assert_eq!(
        send(&mut t, &mut n, &mut pool, data(2, 1460), Time::from_us(3)),
        ups[2]
    );
    // At 150 µs spine1 and spine2 tie at no short flow (flow 0 still counts on spine0), both
    // pass the filter, and the faster, spine1, wins.
    let p = send(&mut t, &mut n, &mut pool, data(2, 1460), Time::from_us(150));
    assert_eq!(p, ups[1]);
}

/// ns: a flow joins an uplink's count on its first packet there, leaves one RTT after its
/// last, joins again when it comes back, and leaves every count when it turns long.
#[test]
fn short_flow_counts_follow_the_one_rtt_inactivity_rule() {
    let n = net(2);
    let mut t = tr(&n, 2, |c| c.tr_long_bytes = Some(3000));
    // The default threshold: the good round trip, 2 · (25 + 25 + 25 + 25) µs.
    assert_eq!(t.inactive(), Time::from_us(200));
    let (a, b) = (port(&n, "leaf0", "spine0"), port(&n, "leaf0", "spine1"));
    t.count(0, a, Time::ZERO);
    t.count(0, a, Time::from_us(50));
    assert_eq!(t.ns[a as usize], 1, "counted once");
    t.expire(a, Time::from_us(250));
    assert_eq!(
        t.ns[a as usize], 1,
        "exactly one RTT after its last packet: still active"
    );
    t.expire(a, Time::from_us(250) + Time::from_ps(1));
    assert_eq!(t.ns[a as usize], 0, "inactive");
    t.count(0, a, Time::from_us(400));
    assert_eq!(t.ns[a as usize], 1, "active again");
    // Flow 1 sprayed over both uplinks is counted on both, until it sends its 3001st byte.
    t.count(1, a, Time::from_us(400));
    t.count(1, b, Time::from_us(401));
    assert_eq!((t.ns[a as usize], t.ns[b as usize]), (2, 1));
    t.dirs[2].sent = 3000;
    let mut pool = PacketPool::default();
    let mut n = n;
    send(&mut t, &mut n, &mut pool, data(1, 1), Time::from_us(402));
    assert_eq!((t.ns[a as usize], t.ns[b as usize]), (1, 0));
    // The leftover entries of flow 1 expire without touching flow 0's count... which expires
    // on its own 200 µs after 400 µs.
    t.expire(a, Time::from_us(600));
    assert_eq!(t.ns[a as usize], 1);
    t.expire(a, Time::from_us(601));
    assert_eq!(t.ns[a as usize], 0);
}

#[test]
fn acks_are_routed_in_order_but_never_counted_as_short_flows() {
    let mut n = net(2);
    let mut t = tr(&n, 1, |_| {});
    let leaf1 = node(&n, "leaf1");
    let cands = n.routing.next_hops(leaf1, 0).to_vec();
    let routing = std::mem::replace(&mut n.routing, RoutingTable::empty());
    let mut fabric = Fabric {
        now: Time::ZERO,
        routing: &routing,
        ports: &mut n.ports,
    };
    let mut ack = Packet {
        src: 2,
        dst: 0,
        kind: PacketKind::Ack,
        size: 40,
        ..Default::default()
    };
    let p = t.choose(leaf1, &mut ack, &cands, &mut fabric);
    assert_eq!(
        p,
        port(&n, "leaf1", "spine0"),
        "spine0 is the fast path back"
    );
    assert_eq!(t.stats.decisions, 1);
    assert!(t.ns.iter().all(|&c| c == 0));
    // The reverse direction has its own p.TNL: 40 B take 0.32 µs per link.
    assert_eq!(t.dirs[1].p_tnl, Time::from_us(50) + Time::from_ps(640_000));
    assert_eq!(t.dirs[0].p_tnl, Time::ZERO);
}

/// Equal TNLs go to one of the tied at random, packet by packet: a long flow alone on idle
/// good paths is spread over them.
#[test]
fn ties_go_at_random() {
    let mut n = net(3); // spine0 and spine1 good, idle: always tied
    let mut pool = PacketPool::default();
    let mut t = tr(&n, 1, |c| c.tr_long_bytes = Some(0));
    let good = [port(&n, "leaf0", "spine0"), port(&n, "leaf0", "spine1")];
    let mut on0 = 0;
    for k in 0..40u64 {
        // one packet every 100 µs: the uplinks are idle again each time
        let p = send(
            &mut t,
            &mut n,
            &mut pool,
            data(0, 1460),
            Time::from_us(100 * k),
        );
        assert!(good.contains(&p));
        on0 += (p == good[0]) as u32;
    }
    assert!((10..=30).contains(&on0), "{on0} of 40 on spine0");
}

#[test]
fn sprayed_acks_take_every_uplink_and_leave_no_state() {
    let mut n = net(2);
    let mut t = tr(&n, 1, |c| c.tr_ack_path = Some("spray".into()));
    let leaf1 = node(&n, "leaf1");
    let leaf0 = node(&n, "leaf0");
    let cands = n.routing.next_hops(leaf1, 0).to_vec();
    let routing = std::mem::replace(&mut n.routing, RoutingTable::empty());
    let mut fabric = Fabric {
        now: Time::ZERO,
        routing: &routing,
        ports: &mut n.ports,
    };
    let mut counts = [0; 2];
    for _ in 0..200 {
        let mut ack = Packet {
            src: 2,
            dst: 0,
            kind: PacketKind::Ack,
            size: 40,
            ..Default::default()
        };
        let p = t.choose(leaf1, &mut ack, &cands, &mut fabric);
        counts[cands.iter().position(|&c| c == p).unwrap()] += 1;
    }
    assert!(counts.iter().all(|&c| c > 70), "{counts:?}");
    assert_eq!(t.stats.decisions, 0);
    // Data still goes by TR.
    let up = routing.next_hops(leaf0, 2).to_vec();
    let mut d = data(0, 1460);
    t.choose(leaf0, &mut d, &up, &mut fabric);
    assert_eq!(t.stats.decisions, 1);
}
