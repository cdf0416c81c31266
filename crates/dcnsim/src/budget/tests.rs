use super::estimate::certainly_active;
use super::*;
use crate::workload::FlowSpec;

#[test]
fn sizes_parse_with_their_units() {
    assert_eq!(parse_bytes("123"), Ok(123));
    assert_eq!(parse_bytes("8G"), Ok(8_000_000_000));
    assert_eq!(parse_bytes("8 gb"), Ok(8_000_000_000));
    assert_eq!(parse_bytes("1.5GiB"), Ok(1_610_612_736));
    assert_eq!(parse_bytes("500M"), Ok(500_000_000));
    assert_eq!(parse_bytes("2e9"), Ok(2_000_000_000));
    assert_eq!(parse_bytes("64kib"), Ok(65_536));
    for bad in ["", "0", "-1G", "8X", "G", "nan", "inf", "1e30", "1.2.3G"] {
        let err = parse_bytes(bad).unwrap_err();
        assert!(err.contains("not a memory size"), "{bad}: {err}");
    }
    assert_eq!(Budget::parse("Unlimited"), Ok(Budget::unlimited()));
    assert_eq!(Budget::parse("1k"), Ok(Budget::given(1000)));
}

#[test]
fn a_shared_budget_is_an_equal_share_and_says_so() {
    let b = Budget::given(8_000_000_000).shared_by(3);
    assert_eq!(b.bytes(), Some(2_666_666_666));
    assert_eq!(
        b.origin(),
        Origin::Shared {
            total: 8_000_000_000,
            by: 3
        }
    );
    let text = b.to_string();
    assert!(
        text.starts_with("2.7 GB (1/3 of the sweep's 8.0 GB: 3 points"),
        "{text}"
    );
    // One run alone has it all; unlimited stays unlimited.
    assert_eq!(Budget::given(5).shared_by(1), Budget::given(5));
    assert_eq!(Budget::unlimited().shared_by(4), Budget::unlimited());
    // A run refused at its share names the share in its message.
    let est = Estimate {
        parts: vec![Part {
            what: "flows".into(),
            bytes: 5e9,
            key: "workload.flows".into(),
        }],
    };
    assert!(est.check(&Budget::given(8_000_000_000)).is_ok());
    let e = est
        .check(&Budget::given(8_000_000_000).shared_by(2))
        .unwrap_err();
    assert_eq!(e.path, "workload.flows");
    assert!(e.message.contains("1/2 of the sweep's 8.0 GB"), "{e}");
}

#[test]
fn sizes_print_in_powers_of_1000() {
    assert_eq!(human(999.0), "999 B");
    assert_eq!(human(1234.0), "1.2 KB");
    assert_eq!(human(328e9), "328 GB");
    assert_eq!(human(4.4e21), "4.40e6 PB");
}

#[test]
fn the_machine_has_some_memory() {
    let b = Budget::machine();
    assert!(b.bytes().is_some_and(|b| b > 0));
    if cfg!(target_os = "linux") {
        assert_eq!(b.origin(), Origin::Available);
        assert!(resident_bytes().is_some_and(|r| r > 0));
    }
}

#[test]
fn flows_certainly_active_overlap_at_line_rate() {
    let flow = |start_us: u64, size: u64| FlowSpec {
        src: 0,
        dst: 1,
        size_bytes: size,
        start: Time::from_us(start_us),
        deadline: None,
        weight: 1.0,
    };
    // 10 Gb/s: 1 250 bytes take 1 µs. All from host 0 to host 1: the 10 µs flow is
    // preempted by the short ones (shortest first), so two are active at 5 µs and at 9 µs,
    // and the link is busy until 13 µs of work have been done.
    let flows = [
        flow(0, 12_500),
        flow(5, 1250),
        flow(9, 1250),
        flow(20, 1250),
    ];
    let (active, until) = certainly_active(&flows, 10_000_000_000);
    assert_eq!(active, 2);
    assert_eq!(until, Time::from_us(21));
    // An incast: 100 flows of 1 µs each, into one host, a nanosecond apart: at least 99
    // are still there when the last arrives, and the last leaves after 100 µs.
    let incast: Vec<FlowSpec> = (0..100)
        .map(|i| FlowSpec {
            src: i + 2,
            start: Time::from_ps(1000 * i as u64),
            ..flow(0, 1250)
        })
        .collect();
    let (active, until) = certainly_active(&incast, 10_000_000_000);
    assert!((99..=100).contains(&active), "{active}");
    assert_eq!(until, Time::from_us(100));
    // A flow with a deadline may end early: it does not count.
    let with_deadline = FlowSpec {
        deadline: Some(Time::from_us(1)),
        ..flow(0, 12_500)
    };
    assert_eq!(certainly_active(&[with_deadline], 10_000_000_000).0, 0);
}
