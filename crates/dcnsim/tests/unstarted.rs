//! Flows a `stop_s` came before are counted apart from those that started and did not finish
//! (issue 37), under both engines.

mod common;

use common::flow_dir;
use dcnsim::metrics::summary::summarize;
use dcnsim::Format;

#[test]
fn flows_after_stop_s_are_unstarted_not_unfinished() {
    // 0: 1 KB, done at once; 1: 100 MB, still running at 2 ms; 2 and 3: due after the stop.
    let csv = "src,dst,size_bytes,start_s\n0,1,1000,0\n1,2,100000000,0.0001\n2,3,1000,0.005\n3,0,1000,0.01\n";
    let dir = flow_dir("unstarted", csv);
    for engine in ["packet", "flow"] {
        let text = format!(
            "engine = \"{engine}\"\nstop_s = 0.002\n{}",
            common::star_with_flow_file(4, 10, "dctcp", "")
        );
        let p = dcnsim::prepare_text(&text, Format::Toml, &[], &dir).expect("valid");
        let out = dcnsim::run_prepared(p, &mut |_| true).expect("runs");
        let started: Vec<bool> = out.flows.iter().map(|f| f.started).collect();
        assert_eq!(started, [true, true, false, false], "{engine}");
        let f = &summarize(&out)["flows"];
        assert_eq!(
            (
                &f["total"],
                &f["finished"],
                &f["unfinished"],
                &f["unstarted"]
            ),
            (&4.into(), &1.into(), &1.into(), &2.into()),
            "{engine}: {f}"
        );
    }
}
