//! Unit tests of the catalogue, the parameters and the dispatch.

use super::*;
use crate::error::ConfigResult;
use crate::net::network::Port;
use crate::net::packet::Packet;
use crate::net::routing::RoutingTable;
use crate::units::Time;

fn params(lb: &str, f: impl FnOnce(&mut RoutingConfig)) -> ConfigResult<LbParams> {
    let mut c = RoutingConfig {
        lb: lb.into(),
        ..Default::default()
    };
    f(&mut c);
    LbParams::from_config(&c)
}

#[test]
fn hash_threshold_cuts_key_space_in_equal_regions() {
    assert_eq!(hash_threshold(0, 4), 0);
    assert_eq!(hash_threshold(u64::MAX / 4 - 1, 4), 0);
    assert_eq!(hash_threshold(u64::MAX / 4 + 1, 4), 1);
    assert_eq!(hash_threshold(u64::MAX, 4), 3);
}

fn ecmp(nodes: usize) -> PathChoice {
    PathChoice::Ecmp {
        seeds: (0..nodes as u64)
            .map(|n| rng::derive_u64(1, "ecmp", n))
            .collect(),
    }
}

#[test]
fn ecmp_is_per_flow_and_spreads_flows() {
    let routing = RoutingTable::empty();
    let mut ports: Vec<Port> = Vec::new();
    let mut fabric = Fabric {
        now: Time::ZERO,
        routing: &routing,
        ports: &mut ports,
    };
    let mut lb = ecmp(2);
    let cands = [10, 11, 12, 13];
    let mut counts = [0usize; 4];
    for key in 0..4000u32 {
        let mut p = Packet {
            src: 1,
            dst: 2,
            path_key: key,
            ..Default::default()
        };
        let first = lb.choose(0, &mut p, &cands, &mut fabric);
        let again = lb.choose(
            0,
            &mut Packet {
                seq: 99,
                ..p.clone()
            },
            &cands,
            &mut fabric,
        );
        assert_eq!(first, again, "a flow's packets take one path");
        counts[(first - 10) as usize] += 1;
    }
    assert!(
        counts.iter().all(|&c| (900..1100).contains(&c)),
        "{counts:?}"
    );
}

#[test]
fn seeds_differ_per_switch() {
    let routing = RoutingTable::empty();
    let mut ports: Vec<Port> = Vec::new();
    let mut fabric = Fabric {
        now: Time::ZERO,
        routing: &routing,
        ports: &mut ports,
    };
    let mut lb = ecmp(2);
    let cands = [0, 1];
    let same = (0..1000u32)
        .filter(|&k| {
            let mut p = Packet {
                path_key: k,
                ..Default::default()
            };
            lb.choose(0, &mut p, &cands, &mut fabric) == lb.choose(1, &mut p, &cands, &mut fabric)
        })
        .count();
    assert!(
        (400..600).contains(&same),
        "choices at two switches look correlated: {same}"
    );
}

#[test]
fn unknown_lb_names_the_valid_ones() {
    let err = params("magic", |_| {}).unwrap_err();
    assert_eq!(err.path, "routing.lb");
    for (name, _) in PATH_CHOICES {
        assert!(err.message.contains(name), "{}", err.message);
    }
}

#[test]
fn defaults_match_the_documented_table() {
    let p = params("conga", |_| {}).unwrap();
    assert_eq!(p.flowlet_gap, Time::from_us(500));
    assert_eq!(p.flowcell_bytes, 65_536);
    assert_eq!(p.reorder_timeout, Time::from_us(100));
    assert_eq!(p.conga_tau, Time::from_us(160));
    assert_eq!(p.conga_metric_bits, 3);
    assert_eq!(p.conga_aging, Time::from_ms(10));
    assert_eq!((p.drill_samples, p.drill_memory), (2, 1));
    let p = params("tr", |_| {}).unwrap();
    assert_eq!((p.tr_long_bytes, p.tr_queue_bits), (100_000, 5));
    assert_eq!(p.tr_inactive, None, "one RTT, from the network");
}

#[test]
fn keys_of_other_schemes_are_refused_by_name() {
    let err = params("ecmp", |c| c.flowlet_gap_us = Some(100.0)).unwrap_err();
    assert_eq!(err.path, "routing.flowlet_gap_us");
    assert!(
        err.message
            .contains("flowlet_gap_us is for lb 'letflow' or 'conga'"),
        "{}",
        err.message
    );
    let err = params("rps", |c| c.drill_samples = Some(3)).unwrap_err();
    assert_eq!(err.path, "routing.drill_samples");
    let err = params("letflow", |c| c.flowcell_bytes = Some(1000)).unwrap_err();
    assert_eq!(err.path, "routing.flowcell_bytes");
    assert!(params("drb", |c| c.reorder_timeout_us = Some(50.0)).is_ok());
    assert!(params("presto", |c| c.flowcell_bytes = Some(1000)).is_ok());
}

#[test]
fn bad_values_are_refused_by_name() {
    let err = params("letflow", |c| c.flowlet_gap_us = Some(0.0)).unwrap_err();
    assert_eq!(err.path, "routing.flowlet_gap_us");
    let err = params("conga", |c| c.conga_metric_bits = Some(9)).unwrap_err();
    assert_eq!(err.path, "routing.conga_metric_bits");
    let err = params("drill", |c| c.drill_samples = Some(0)).unwrap_err();
    assert_eq!(err.path, "routing.drill_samples");
    let err = params("presto", |c| c.flowcell_bytes = Some(0)).unwrap_err();
    assert_eq!(err.path, "routing.flowcell_bytes");
}

#[test]
fn transports_with_state_on_the_path_need_one_path_per_flow() {
    for &kind in LbKind::ALL {
        let lb = kind.name();
        let p = params(lb, |_| {}).unwrap();
        let moves_flows = !p.keeps_a_flow_on_one_path();
        assert_eq!(
            moves_flows,
            !matches!(kind, LbKind::Ecmp | LbKind::BcubePaths | LbKind::Memr)
        );
        let stateful = p.check_transport("pdq", true);
        if moves_flows {
            let err = stateful.unwrap_err();
            assert_eq!(err.path, "routing.lb");
            assert!(err.message.contains(lb) && err.message.contains("pdq"));
            assert!(err.message.contains("use ecmp"), "{}", err.message);
            let err = p.check_transport("merp", true).unwrap_err();
            assert!(err.message.contains("or memr"), "{}", err.message);
            assert!(p.check_transport("dctcp", false).is_ok(), "{lb}");
        } else if kind != LbKind::Memr {
            assert!(stateful.is_ok(), "{lb}");
        }
    }
    let memr = params("memr", |_| {}).unwrap();
    assert!(memr.check_transport("merp", true).is_ok());
    let err = memr.check_transport("tcp", false).unwrap_err();
    assert_eq!(err.path, "routing.lb");
    assert!(err.message.contains("'tcp'"), "{}", err.message);
}

#[test]
fn every_key_belongs_to_a_scheme_and_the_table_says_which() {
    let doc = include_str!("mod.rs");
    let not_a_scheme_key = ["lb", "reroute_delay_us"];
    for &key in crate::tagged::field_names::<RoutingConfig>()
        .iter()
        .filter(|k| !not_a_scheme_key.contains(k))
    {
        let users: Vec<&str> = LbKind::ALL
            .iter()
            .filter(|k| k.keys().contains(&key))
            .map(|k| k.name())
            .collect();
        assert!(!users.is_empty(), "no scheme reads routing.{key}");
        // The row of the module doc's key table, and the schemes its last column names.
        let row = doc
            .lines()
            .find(|l| l.starts_with(&format!("//! | `{key}` |")))
            .unwrap_or_else(|| panic!("routing.{key} is missing from the module doc's table"));
        let used_by = row.rsplit_once(" | ").unwrap().1;
        let documented: Vec<&str> = LbKind::ALL
            .iter()
            .map(|k| k.name())
            .filter(|n| used_by.contains(&format!("`{n}`")))
            .collect();
        assert_eq!(documented, users, "the module doc's row of routing.{key}");
    }
}

#[test]
fn the_module_doc_has_a_row_for_every_scheme() {
    let doc = include_str!("mod.rs");
    for &kind in LbKind::ALL {
        let n = kind.name();
        let row = [format!("//! | `{n}`"), format!("//! | [`{n}`]")];
        assert!(
            doc.lines()
                .any(|l| row.iter().any(|r| l.starts_with(r.as_str()))),
            "lb {n} has no row in the module doc's table of schemes"
        );
    }
}

#[test]
fn bcube_paths_only_on_bcube() {
    let p = params("bcube_paths", |_| {}).unwrap();
    assert!(p.check_topology("bcube").is_ok());
    let err = p.check_topology("fattree").unwrap_err();
    assert_eq!(err.path, "routing.lb");
    assert!(err.message.contains("fattree"), "{}", err.message);
    assert!(params("ecmp", |_| {})
        .unwrap()
        .check_topology("fattree")
        .is_ok());
}

#[test]
fn tr_only_on_leaf_spines_and_its_keys_checked() {
    let p = params("tr", |_| {}).unwrap();
    assert!(p.check_topology("leafspine").is_ok());
    let err = p.check_topology("fattree").unwrap_err();
    assert_eq!(err.path, "routing.lb");
    assert!(err.message.contains("leafspine"), "{}", err.message);
    let err = params("tr", |c| c.tr_queue_bits = Some(6)).unwrap_err();
    assert_eq!(err.path, "routing.tr_queue_bits");
    let err = params("tr", |c| c.tr_inactive_us = Some(-1.0)).unwrap_err();
    assert_eq!(err.path, "routing.tr_inactive_us");
    let err = params("ecmp", |c| c.tr_long_bytes = Some(1)).unwrap_err();
    assert_eq!(err.path, "routing.tr_long_bytes");
    assert!(
        err.message.contains("tr_long_bytes is for lb 'tr'"),
        "{}",
        err.message
    );
    let p = params("tr", |c| c.tr_inactive_us = Some(300.0)).unwrap();
    assert_eq!(p.tr_inactive, Some(Time::from_us(300)));
    assert!(!p.tr_spray_acks);
    let p = params("tr", |c| c.tr_ack_path = Some("spray".into())).unwrap();
    assert!(p.tr_spray_acks);
    let err = params("tr", |c| c.tr_ack_path = Some("ecmp".into())).unwrap_err();
    assert_eq!(err.path, "routing.tr_ack_path");
    assert!(err.message.contains("spray"), "{}", err.message);
}

#[test]
fn path_digits_are_consumed_least_significant_first() {
    let mut p = Packet::default();
    // 2 uplinks at the edge, then 3 at the next choice point: path 5 = 1 + 2·2.
    assert_eq!(start_path(&mut p, 5, &[10, 11]), 11);
    let net = testnet::build("kind = \"star\"\nhosts = 2");
    let edge = SourceEdge::new(&net);
    p.src = 0;
    assert_eq!(edge.follow(99, &mut p, &[20, 21, 22]), 22);
    assert_eq!(p.lb.path, 0);
}
