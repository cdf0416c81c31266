//! MERP's endpoints and switch on hand-built packets.

use super::header::{MerpHeader, MerpKind};
use super::*;
use crate::net::packet::{Packet, PacketKind};
use crate::protocols::{Endpoint, Protocol, SenderEndpoint};
use crate::protocols::{EndpointEvent, FlowSetup};
use crate::topo::TopologyConfig;
use crate::units::{Rate, Time};

fn params() -> MerpParams {
    MerpParams::from_config(
        "merp",
        &MerpConfig {
            merp_rtt_us: Some(64.0),
            ..Default::default()
        },
    )
    .unwrap()
}

/// A 1 Gb/s star of four hosts; port 7 is sw → h3.
fn switch() -> MerpSwitch {
    switch_with(&params())
}

fn switch_with(params: &MerpParams) -> MerpSwitch {
    let cfg = TopologyConfig {
        hosts: Some(4),
        link_gbps: 1.0,
        ..TopologyConfig::of_kind("star")
    };
    let topo = crate::topo::build(&cfg, std::path::Path::new("."), 1).unwrap();
    let net = crate::net::Network::build(&topo, crate::net::queue::Discipline::Rank, &|_| None);
    MerpSwitch::new(params, &net, false)
}

const PORT: u32 = 7;

fn packet(flow: u32, kind: MerpKind, size: u32, wire: u32) -> Packet {
    let mut p = Packet {
        flow,
        dst: 3,
        size: wire,
        payload: wire.saturating_sub(40),
        ..Default::default()
    };
    MerpHeader {
        kind,
        size,
        asr_kbps: 1_000_000,
        esr: f32::INFINITY,
        q_kbps: 800_000,
    }
    .write(&mut p);
    p
}

/// The asr a packet of `flow` of `kind`, sent at `now` (its timestamp), leaves `port` with.
fn asr_at(s: &mut MerpSwitch, now: Time, port: u32, flow: u32, kind: MerpKind, size: u32) -> u32 {
    let wire = if kind == MerpKind::Data { 1500 } else { 40 };
    let mut p = packet(flow, kind, size, wire);
    p.ts = now;
    s.packet_arrives(now, port, &mut p);
    s.packet_leaves(now, port, &mut p);
    MerpHeader::read(&p).unwrap().asr_kbps
}

fn asr_through(s: &mut MerpSwitch, now: Time, flow: u32, kind: MerpKind, size: u32) -> u32 {
    asr_at(s, now, PORT, flow, kind, size)
}

/// The asr a full DATA segment of `flow` starting at byte `seq` leaves [`PORT`] with.
fn data_through(s: &mut MerpSwitch, now: Time, flow: u32, size: u32, seq: u64) -> u32 {
    let mut p = packet(flow, MerpKind::Data, size, 1500);
    p.ts = now;
    p.seq = seq;
    s.packet_arrives(now, PORT, &mut p);
    s.packet_leaves(now, PORT, &mut p);
    MerpHeader::read(&p).unwrap().asr_kbps
}

fn rs_of(s: &MerpSwitch, flow: u32) -> u64 {
    let table = &s.links[PORT as usize].table;
    table.iter().find(|f| f.flow == flow).unwrap().rs
}

/// Two flows cross two links of a path; their SYNs left the senders 5 µs apart, X first, but
/// X's SYN waits 12 µs behind a packet at the second link and Y's does not. Once both links
/// hold the same esr for both flows (the path's smallest, carried by their packets), the vdl
/// aT + size / esr must order them alike on both links. With each link's own arrival time as
/// aT, the second link would put Y first while the first puts X first: each flow first where
/// the other is held, and neither sends, for good (the deadlock the tree's runs met; module
/// doc, "One arrival time per flow"). With the SYN's send time, X is first on both.
#[test]
fn links_of_a_path_order_flows_alike() {
    let mut s = switch();
    let (first, second) = (5, PORT);
    let us = Time::from_us;
    let syn = |s: &mut MerpSwitch, port: u32, flow: u32, sent: Time, at: Time| {
        let mut p = packet(flow, MerpKind::Syn, 90_000, 40);
        p.ts = sent;
        s.packet_arrives(at, port, &mut p);
    };
    // X sent at 100 µs, Y at 105 µs; the first link 10 µs on, the second 22 µs after that,
    // X's SYN 12 µs later still.
    syn(&mut s, first, 0, us(100), us(110));
    syn(&mut s, first, 1, us(105), us(115));
    syn(&mut s, second, 1, us(105), us(137));
    syn(&mut s, second, 0, us(100), us(144));
    // Both flows' packets bring the same, smaller esr (from a busier link elsewhere).
    let det = |s: &mut MerpSwitch, port: u32, flow: u32| {
        let mut p = packet(flow, MerpKind::Det, 90_000, 40);
        p.header.update(|h: &mut MerpHeader| {
            h.esr = 10e6;
        });
        p.ts = us(300);
        s.packet_arrives(us(300), port, &mut p);
        s.packet_leaves(us(300), port, &mut p);
        MerpHeader::read(&p).unwrap().asr_kbps
    };
    for port in [first, second] {
        det(&mut s, port, 0);
        det(&mut s, port, 1);
    }
    for port in [first, second] {
        assert_eq!(det(&mut s, port, 0), 999_000, "X first at port {port}");
        assert_eq!(det(&mut s, port, 1), 1_000, "Y second at port {port}");
    }
    // vdl = aT + 90 000 B / 10 MB/s: 9 ms after each SYN was sent, on both links.
    for port in [first, second] {
        let t = &s.links[port as usize].table;
        let vdl = |f: u32| t.iter().find(|e| e.flow == f).unwrap().vdl;
        assert_eq!((vdl(0), vdl(1)), (us(9_100), us(9_105)), "port {port}");
    }
}

#[test]
fn rate_adjustment_first_second_and_others() {
    let mut s = switch();
    let t = Time::from_us(1);
    // Three flows arrive together: sizes 30, 60 and 90 KB. The smallest goes first.
    for (flow, size) in [(0, 90_000), (1, 30_000), (2, 60_000)] {
        asr_through(&mut s, t, flow, MerpKind::Syn, size);
    }
    let table = &s.links[PORT as usize].table;
    assert_eq!(table.len(), 3);
    // α·C = 999 Mb/s for the first flow.
    assert_eq!(data_through(&mut s, t, 1, 30_000, 0), 999_000);
    // The second: (n − 1)(1 − α)C = 2 Mb/s; the others (1 − α)C = 1 Mb/s.
    assert_eq!(asr_through(&mut s, t, 2, MerpKind::Det, 60_000), 2_000);
    assert_eq!(asr_through(&mut s, t, 0, MerpKind::Det, 90_000), 1_000);
    // Early start: once the first flow has less than α·C·RTT = 7992 B left at this link, the
    // second may send at α·C.
    for k in 1..16 {
        data_through(&mut s, t, 1, 30_000, k * 1460);
    }
    assert_eq!(rs_of(&s, 1), 30_000 - 16 * 1500);
    assert_eq!(asr_through(&mut s, t, 2, MerpKind::Det, 60_000), 999_000);
    assert_eq!(asr_through(&mut s, t, 0, MerpKind::Det, 90_000), 1_000);
    // The FIN removes the first flow: the second is first now.
    let mut fin = packet(1, MerpKind::Fin, 30_000, 40);
    s.packet_arrives(t, PORT, &mut fin);
    assert_eq!(s.links[PORT as usize].table.len(), 2);
    assert_eq!(asr_through(&mut s, t, 2, MerpKind::Det, 60_000), 999_000);
    // A DET of the finished flow that the FIN overtook does not bring it back.
    asr_through(&mut s, t, 1, MerpKind::Det, 30_000);
    assert_eq!(s.links[PORT as usize].table.len(), 2);
}

#[test]
fn esr_is_the_smaller_of_packet_and_table_both_ways() {
    let mut s = switch();
    let t = Time::from_us(1);
    asr_through(&mut s, t, 0, MerpKind::Syn, 125_000);
    let alone = s.links[PORT as usize].table[0].esr;
    // Alone on an empty 125 MB/s link: vdl = now + 1 ms, esr = size / 1 ms = C.
    assert!((alone - 125e6).abs() < 1.0, "{alone}");
    // A packet that carries a smaller esr from another link lowers the table's, and the vdl
    // moves out to aT + size / esr.
    let mut p = packet(0, MerpKind::Data, 125_000, 1500);
    p.header.update(|h: &mut MerpHeader| {
        h.esr = 62.5e6;
    });
    s.packet_arrives(t, PORT, &mut p);
    let f = s.links[PORT as usize].table[0];
    assert_eq!(f.esr, 62.5e6);
    assert_eq!(f.vdl, t + Time::from_ms(2));
    // A packet with a larger esr takes the table's.
    let mut p = packet(0, MerpKind::Data, 125_000, 1500);
    s.packet_arrives(t, PORT, &mut p);
    assert_eq!(MerpHeader::read(&p).unwrap().esr, 62.5e6);
}

/// rs is the flow's size less its wire bytes up to the highest byte that reached the link: a
/// segment offered again (dropped here or later and resent) lowers it once; a later segment
/// that overtakes a lost one counts the lost one's bytes too; the short last one leaves 0.
#[test]
fn rs_counts_each_byte_once() {
    let mut s = switch();
    let t = Time::from_us(1);
    // 4 380 B of payload in three 1 460 B segments: 4 500 wire bytes.
    asr_through(&mut s, t, 0, MerpKind::Syn, 4_500);
    data_through(&mut s, t, 0, 4_500, 0);
    assert_eq!(rs_of(&s, 0), 3_000);
    data_through(&mut s, t, 0, 4_500, 0); // resent: no change
    assert_eq!(rs_of(&s, 0), 3_000);
    // Segment 2 (bytes 2 920..4 380) arrives before a resent segment 1: rs = 0; segment 1
    // then changes nothing.
    data_through(&mut s, t, 0, 4_500, 2_920);
    assert_eq!(rs_of(&s, 0), 0);
    data_through(&mut s, t, 0, 4_500, 1_460);
    assert_eq!(rs_of(&s, 0), 0);
    // A short last segment: 2 000 B of payload, segments of 1 460 and 540 (+ 40 each).
    asr_through(&mut s, t, 1, MerpKind::Syn, 2_080);
    data_through(&mut s, t, 1, 2_080, 0);
    assert_eq!(rs_of(&s, 1), 580);
    let mut last = packet(1, MerpKind::Data, 2_080, 580);
    last.seq = 1_460;
    s.packet_arrives(t, PORT, &mut last);
    assert_eq!(rs_of(&s, 1), 0);
}

/// The full grant leaves room for the ACKs that leave the link: α·(C − A), A the rate of
/// DATAACKs and FINACKs measured over the last complete RTT window (64 µs here). SYNACKs,
/// BOOSTs and DETACKs are not counted. However many ACKs, the full grant stays above Q.
#[test]
fn the_full_grant_leaves_room_for_acks() {
    let mut s = switch();
    let us = Time::from_us;
    asr_through(&mut s, us(1), 0, MerpKind::Syn, 1_000_000);
    assert_eq!(data_through(&mut s, us(2), 0, 1_000_000, 0), 999_000);
    let reply = |s: &mut MerpSwitch, at: Time, kind: MerpKind| {
        let mut ack = packet(9, kind, 0, 40);
        s.packet_leaves(at, PORT, &mut ack);
    };
    // 40-byte DATAACKs of another flow, one every 12 µs, leave the same port from 64 µs on
    // (40 B / 12 µs = 26.67 Mb/s), with a BOOST, a SYNACK and a DETACK beside each. The
    // window [64, 128) µs holds 6 DATAACKs (64, 76, …, 124).
    for k in 0..11 {
        let at = us(64 + 12 * k);
        for kind in [
            MerpKind::DataAck,
            MerpKind::Boost,
            MerpKind::SynAck,
            MerpKind::DetAck,
        ] {
            reply(&mut s, at, kind);
        }
    }
    // In [128, 192) µs the last complete window's rate is 6 × 40 B / 64 µs = 30 Mb/s.
    let mut p = packet(0, MerpKind::Data, 1_000_000, 1500);
    p.seq = 1_460;
    s.packet_arrives(us(130), PORT, &mut p);
    s.packet_leaves(us(130), PORT, &mut p);
    let h = MerpHeader::read(&p).unwrap();
    assert_eq!(h.asr_kbps, (0.999f64 * (1e9 - 30e6) / 1e3) as u32);
    assert_eq!(h.q_kbps, 800_000);
    // Two windows without an ACK: the room is gone.
    assert_eq!(data_through(&mut s, us(400), 0, 1_000_000, 2_920), 999_000);
    // DATAACKs back to back at line rate for a whole window (A = C): the grant stays just
    // above Q, so that the flow still sends.
    let mut at = us(448);
    while at < us(512) {
        reply(&mut s, at, MerpKind::DataAck);
        at += Time::from_ps(320_000);
    }
    let mut p = packet(0, MerpKind::Data, 1_000_000, 1500);
    p.seq = 4_380;
    s.packet_arrives(us(520), PORT, &mut p);
    s.packet_leaves(us(520), PORT, &mut p);
    let h = MerpHeader::read(&p).unwrap();
    assert_eq!((h.asr_kbps, h.q_kbps), (800_001, 800_000));
}

/// The work-conserving hand-over: a first flow that has held the full grant here for more than
/// an RTT (64 µs) and still sends DETs is held on another link; the next flow in vdl order
/// gets α·C as well, the one after it the second's rate. Once the first sends DATA here again,
/// the next is back to detecting. `paper` keeps Algorithm 3's letter.
#[test]
fn a_first_flow_held_elsewhere_passes_its_grant_on() {
    for handover in ["work_conserving", "paper"] {
        let params = MerpParams::from_config(
            "merp",
            &MerpConfig {
                merp_rtt_us: Some(64.0),
                merp_handover: Some(handover.into()),
                ..Default::default()
            },
        )
        .unwrap();
        let mut s = switch_with(&params);
        let us = Time::from_us;
        for (flow, size) in [(0, 30_000), (1, 60_000), (2, 90_000)] {
            asr_through(&mut s, us(1), flow, MerpKind::Syn, size);
        }
        // Flow 0 is first: its DET leaves with the full grant at 10 µs.
        assert_eq!(
            asr_through(&mut s, us(10), 0, MerpKind::Det, 30_000),
            999_000
        );
        // Within an RTT of that, still DETs: not yet held (it may not have heard).
        assert_eq!(
            asr_through(&mut s, us(60), 0, MerpKind::Det, 30_000),
            999_000
        );
        assert_eq!(asr_through(&mut s, us(61), 1, MerpKind::Det, 60_000), 2_000);
        // A DET more than an RTT on: held elsewhere.
        assert_eq!(
            asr_through(&mut s, us(80), 0, MerpKind::Det, 30_000),
            999_000
        );
        let (next, after) = match handover {
            "paper" => (2_000, 1_000), // (n − 1)(1 − α)C and (1 − α)C
            _ => (999_000, 2_000),
        };
        assert_eq!(
            asr_through(&mut s, us(81), 1, MerpKind::Det, 60_000),
            next,
            "{handover}"
        );
        assert_eq!(
            asr_through(&mut s, us(82), 2, MerpKind::Det, 90_000),
            after,
            "{handover}"
        );
        // Flow 0 sends DATA here: it is not held; flow 1 detects again.
        data_through(&mut s, us(90), 0, 30_000, 0);
        assert_eq!(
            asr_through(&mut s, us(91), 1, MerpKind::Det, 60_000),
            2_000,
            "{handover}"
        );
    }
}

/// A DET that reaches the link with a detecting rate already (a link before this one holds
/// its flow) shows the hold at once, without waiting an RTT: the next flow gets α·C.
#[test]
fn a_flow_held_upstream_passes_its_grant_on_at_once() {
    let mut s = switch();
    let us = Time::from_us;
    for (flow, size) in [(0, 30_000), (1, 60_000)] {
        asr_through(&mut s, us(1), flow, MerpKind::Syn, size);
    }
    assert_eq!(
        asr_through(&mut s, us(10), 0, MerpKind::Det, 30_000),
        999_000
    );
    // Within the RTT, a DET of flow 0 that an upstream link lowered to 1 Mb/s.
    let mut det = packet(0, MerpKind::Det, 30_000, 40);
    det.header.update(|h: &mut MerpHeader| {
        h.asr_kbps = 1_000;
    });
    s.packet_arrives(us(20), PORT, &mut det);
    s.packet_leaves(us(20), PORT, &mut det);
    assert_eq!(
        asr_through(&mut s, us(21), 1, MerpKind::Det, 60_000),
        999_000
    );
    // Its next DET comes with the full rate (the upstream link let it go): not held.
    assert_eq!(
        asr_through(&mut s, us(30), 0, MerpKind::Det, 30_000),
        999_000
    );
    assert_eq!(asr_through(&mut s, us(31), 1, MerpKind::Det, 60_000), 1_000);
}

/// The table stays in (vdl, flow) order after VDG, ties included: flows with nothing left
/// here share the vdl of the flow before them, and VDG may put a higher id first among them.
#[test]
fn the_table_is_in_vdl_then_flow_order() {
    let entry = |flow, size, rs| schedule::FlowEntry {
        rs,
        ..schedule::FlowEntry::new(flow, 3, size, Time::ZERO, Time::ZERO)
    };
    let mut s = switch();
    let link = &mut s.links[PORT as usize];
    link.table = vec![
        entry(2, 1_000, 1_000),
        entry(5, 2_000, 0),
        entry(1, 3_000, 0),
    ];
    schedule::vdg(&mut link.table, Time::from_us(5), link.capacity);
    let mut sorted = switch();
    sorted.links[PORT as usize].table = link.table.clone();
    // A SYN of a new flow runs VDG and the sort.
    asr_through(&mut sorted, Time::from_us(5), 7, MerpKind::Syn, 90_000);
    let keys: Vec<(Time, u32)> = sorted.links[PORT as usize]
        .table
        .iter()
        .map(|f| (f.vdl, f.flow))
        .collect();
    let mut want = keys.clone();
    want.sort();
    assert_eq!(keys, want);
}

fn setup(size: u64) -> FlowSetup {
    FlowSetup {
        flow: 0,
        dst: 3,
        path_key: 7,
        ..FlowSetup::for_tests(size)
    }
}

fn reply(to: &Packet, kind: MerpKind, asr_kbps: u32, ack: u64) -> Packet {
    let h = MerpHeader::read(to).unwrap();
    let mut p = Packet {
        flow: 0,
        ack,
        ts_echo: to.ts,
        size: 40,
        ..Default::default()
    };
    MerpHeader {
        kind,
        asr_kbps,
        ..h
    }
    .write(&mut p);
    p
}

#[test]
fn sender_detects_below_q_sends_data_above_and_ends_with_a_fin() {
    let p = params();
    let mut s = MerpSender::new(&p, &setup(2920), Rate::gbps(1));
    s.start(Time::ZERO);
    let syn = s.poll_transmit(Time::ZERO).unwrap();
    let h = MerpHeader::read(&syn).unwrap();
    assert_eq!(
        (h.kind, syn.kind, syn.rank),
        (MerpKind::Syn, PacketKind::Syn, 0)
    );
    // Every packet carries the flow's wire size, the sender's link rate as asr, ∞ esr, Q.
    assert_eq!((h.size, h.asr_kbps, h.q_kbps), (3000, 1_000_000, 800_000));
    assert!(h.esr.is_infinite());
    // Postponed: 1 Mb/s. DETs of 40 B leave every 320 µs, lowest priority.
    let t = Time::from_us(50);
    s.handle_packet(t, &reply(&syn, MerpKind::SynAck, 1_000, 0));
    assert!(!s.sending_data());
    let det = s.poll_transmit(t).unwrap();
    assert_eq!(
        (MerpHeader::read(&det).unwrap().kind, det.size, det.rank),
        (MerpKind::Det, 40, 2)
    );
    assert!(s.poll_transmit(t).is_none());
    assert_eq!(s.poll_timeout(), Some(t + Time::from_us(320)));
    // A DETACK that raises the rate brings the next DET forward: 40 B at 4 Mb/s = 80 µs.
    s.handle_packet(
        t + Time::from_us(10),
        &reply(&det, MerpKind::DetAck, 4_000, 0),
    );
    assert_eq!(s.poll_timeout(), Some(t + Time::from_us(80)));
    // A BOOST starts DATA at once, at its asr.
    let t2 = t + Time::from_us(20);
    s.handle_packet(t2, &reply(&det, MerpKind::Boost, 999_000, 0));
    let d1 = s.poll_transmit(t2).unwrap();
    assert_eq!(
        (MerpHeader::read(&d1).unwrap().kind, d1.payload, d1.rank),
        (MerpKind::Data, 1460, 1)
    );
    assert!(s.poll_transmit(t2).is_none(), "paced at asr");
    let d2 = s
        .poll_transmit(t2 + Rate(999_000_000).tx_time(1500))
        .unwrap();
    // Both acknowledged: the FIN goes out; the FINACK ends the sender.
    s.handle_packet(
        t2 + Time::from_us(100),
        &reply(&d2, MerpKind::DataAck, 999_000, 2920),
    );
    let fin = s.poll_transmit(t2 + Time::from_us(100)).unwrap();
    assert_eq!(MerpHeader::read(&fin).unwrap().kind, MerpKind::Fin);
    s.handle_packet(
        t2 + Time::from_us(150),
        &reply(&fin, MerpKind::FinAck, 0, 2920),
    );
    assert_eq!(s.poll_event(), Some(EndpointEvent::SenderDone));
    assert_eq!(s.poll_timeout(), None);
    let _ = d1;
}

#[test]
fn receiver_boosts_a_det_whose_asr_exceeds_q() {
    let p = params();
    let mut r = MerpReceiver::new(&p, &setup(2920));
    let mut det = packet(0, MerpKind::Det, 3000, 40);
    r.handle_packet(Time::ZERO, &det);
    let a = r.poll_transmit(Time::ZERO).unwrap();
    assert_eq!(
        (MerpHeader::read(&a).unwrap().kind, a.kind, a.rank),
        (MerpKind::Boost, PacketKind::Ack, 0)
    );
    det.header.update(|h: &mut MerpHeader| {
        h.asr_kbps = 2_000;
    });
    r.handle_packet(Time::ZERO, &det);
    let a = r.poll_transmit(Time::ZERO).unwrap();
    assert_eq!(
        (MerpHeader::read(&a).unwrap().kind, a.rank),
        (MerpKind::DetAck, 2)
    );
    // Data: cumulative ACKs; the flow completes with its last byte.
    for seq in [1460, 0] {
        let mut d = packet(0, MerpKind::Data, 3000, 1500);
        d.seq = seq;
        d.payload = 1460;
        r.handle_packet(Time::ZERO, &d);
    }
    let acks: Vec<u64> = std::iter::from_fn(|| r.poll_transmit(Time::ZERO))
        .map(|a| a.ack)
        .collect();
    assert_eq!(acks, vec![0, 2920]);
    assert_eq!(r.poll_event(), Some(EndpointEvent::Completed));
}

#[test]
fn keys_are_validated_and_network_values_filled() {
    let bad = |f: fn(&mut MerpConfig)| {
        let mut c = MerpConfig::default();
        f(&mut c);
        MerpParams::from_config("merp", &c).unwrap_err().path
    };
    assert_eq!(bad(|c| c.merp_alpha = Some(1.5)), "transport.merp_alpha");
    assert_eq!(bad(|c| c.merp_alpha = Some(1.0)), "transport.merp_alpha");
    assert_eq!(bad(|c| c.merp_q = Some(0.0)), "transport.merp_q");
    assert_eq!(
        bad(|c| c.merp_entry_timeout_us = Some(f64::NAN)),
        "transport.merp_entry_timeout_us"
    );
    assert_eq!(bad(|c| c.merp_rtt_us = Some(-1.0)), "transport.merp_rtt_us");
    let e = crate::protocols::refused("merp", "dctcp_g", serde_json::json!(0.1));
    assert_eq!(e.path, "transport.dctcp_g");
    let mut c = MerpConfig::default();
    let scale = crate::net::scale::PathScale {
        rtt: Time::from_ns(64_640),
        rate: Rate::gbps(1),
    };
    network_defaults(&mut c, &scale);
    assert_eq!(
        (c.merp_rtt_us, c.min_rto_us, c.initial_rto_us),
        (Some(64.64), Some(64.64), Some(193.92))
    );
}

#[test]
fn the_header_round_trips_through_the_slot_for_every_kind() {
    use super::header::MerpKind::*;
    use crate::net::header::WireHeader;
    assert!(MerpParams::HEADER_TAGS.contains(&MerpHeader::TAG));
    for kind in [Syn, Det, Data, Fin, SynAck, DetAck, Boost, DataAck, FinAck] {
        crate::net::header::assert_round_trips(MerpHeader {
            kind,
            size: u32::MAX,
            asr_kbps: 1_000_000,
            esr: f32::INFINITY,
            q_kbps: 7,
        });
    }
}
