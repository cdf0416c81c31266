//! Time series under the flow-level model (`output.series_interval_us` with `engine = "flow"`),
//! against values derived by hand.

mod common;
use common::flow_dir;
use dcnsim::metrics::series::SeriesKind;
use dcnsim::metrics::RunOutput;
use dcnsim::Format;

fn run(extra_output: &str, csv: &str) -> RunOutput {
    let dir = flow_dir("fss", csv);
    let text = format!(
        "{}\n[output]\n{extra_output}\n",
        common::star_with_flow_file(3, 10, "dctcp", "")
    );
    let p = dcnsim::prepare_text(&text, Format::Toml, &["engine=flow".into()], &dir)
        .expect("scenario is valid");
    dcnsim::run_prepared(p, &mut |_| true).expect("run completes")
}

/// Rows of one kind and id, as (time, value).
fn rows(out: &RunOutput, kind: SeriesKind, id: u32) -> Vec<(f64, f64)> {
    let s = out.series.as_ref().expect("series on");
    (0..s.len())
        .filter(|&i| s.kind[i] == kind && s.id[i] == id)
        .map(|i| (s.time_s[i], s.value[i]))
        .collect()
}

/// h0 → h1 (A, 1 MB) from 0, h2 → h1 (B, 1 MB) from 400 µs, 10 Gb/s, samples every 200 µs.
/// Wire bytes W = 1 MB + 40 per 1460-byte segment = 1 027 400. A runs alone at C until 400 µs
/// (500 000 bytes), then both share h1's link at C/2: A's 527 400 bytes left take 843.84 µs,
/// so A ends at 1243.84 µs; B has sent as much by then and its last 500 000 bytes take 400 µs
/// at C: it ends at 1643.84 µs. Goodput is the wire rate times the payload share 10⁶/W.
/// Samples at 0.2, 0.4, …, 1.8 ms: the one at 1.8 ms is the last (taken while B was still
/// running, then no flow is left). h1's link is busy the whole time: utilisation 1, but
/// 43.84 µs of the last 200 µs (0.2192). Every flow's goodput over the samples adds up to
/// its payload.
#[test]
fn fluid_series_match_the_rates_by_hand() {
    let out = run(
        "series_interval_us = 200",
        "src,dst,size_bytes,start_s\n0,1,1000000,0\n2,1,1000000,0.0004\n",
    );
    let c = 10e9;
    let share = 1e6 / 1_027_400.0;
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1.0);
    let a = rows(&out, SeriesKind::FlowGoodputBps, 0);
    let b = rows(&out, SeriesKind::FlowGoodputBps, 1);
    let times: Vec<f64> = a.iter().map(|r| r.0).collect();
    assert_eq!(
        a.len(),
        7,
        "A is present in the samples to 1.4 ms: {times:?}"
    );
    assert!(
        close(a[0].1, c * share) && close(a[1].1, c * share),
        "{a:?}"
    );
    assert!(
        close(a[2].1, c / 2.0 * share) && close(a[5].1, c / 2.0 * share),
        "{a:?}"
    );
    // 1.2–1.4 ms: A sends 43.84 µs at C/2; B that at C/2 and 156.16 µs at C.
    assert!(
        close(a[6].1, 43.84e-6 * c / 2.0 * share / 200e-6),
        "{:?}",
        a[6]
    );
    let b_14 = b.iter().find(|r| close(r.0, 1.4e-3)).unwrap().1;
    assert!(close(
        b_14,
        (43.84e-6 * c / 2.0 + 156.16e-6 * c) * share / 200e-6
    ));
    for flow in [&a, &b] {
        let payload: f64 = flow.iter().map(|r| r.1 * 200e-6).sum();
        assert!(close(payload, 8e6), "payload {payload}");
    }
    let port = out.ports.iter().position(|p| p.peer == "h1").unwrap() as u32;
    let util = rows(&out, SeriesKind::LinkUtil, port);
    let times: Vec<f64> = util.iter().map(|r| r.0).collect();
    assert_eq!(util.len(), 9, "{times:?}");
    assert!(close(times[8], 1.8e-3));
    assert!(util[..8].iter().all(|r| close(r.1, 1.0)), "{util:?}");
    assert!(close(util[8].1, 43.84e-6 / 200e-6), "{:?}", util[8]);
    // No queues in a fluid.
    let s = out.series.as_ref().unwrap();
    assert!((0..s.len())
        .filter(|&i| s.kind[i] == SeriesKind::QueueBytes)
        .all(|i| s.value[i] == 0.0));
}

/// Samples end once nothing is left to simulate (every flow has ended), even with a `stop_s`
/// long after, as at packet level: the run still reports the stop as its end. A `stop_s` of
/// 10⁶ s with 100 µs samples would otherwise take 10¹⁰ samples.
#[test]
fn fluid_series_end_with_the_last_flow_even_before_the_stop() {
    let out = run(
        "series_interval_us = 100",
        "src,dst,size_bytes,start_s\n0,1,10000,0\n",
    );
    let last = |o: &RunOutput| o.series.as_ref().unwrap().time_s.last().copied().unwrap();
    assert!((last(&out) - 1e-4).abs() < 1e-12, "ends with its flow");
    let dir = flow_dir("fss-stop", "src,dst,size_bytes,start_s\n0,1,10000,0\n");
    for stop in ["0.001", "1e6"] {
        let text = format!(
            "stop_s = {stop}\n{}\n[output]\nseries_interval_us = 100\n",
            common::star_with_flow_file(3, 10, "dctcp", "")
        );
        let p = dcnsim::prepare_text(&text, Format::Toml, &["engine=flow".into()], &dir).unwrap();
        let out = dcnsim::run_prepared(p, &mut |_| true).unwrap();
        assert!(
            (last(&out) - 1e-4).abs() < 1e-12,
            "stop {stop}: {}",
            last(&out)
        );
        assert_eq!(
            out.cost.sim_time.as_secs_f64(),
            stop.parse::<f64>().unwrap()
        );
    }
}
