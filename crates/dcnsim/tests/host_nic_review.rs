//! Review of issue 32, item 1 (hosts that push back): cases that break it.

mod common;
use common::{flow_dir, run_in};

/// BCube(2, 1): four servers; servers 0 and 1 share a level-0 switch, 2 → 1 goes through
/// server 0 or server 3 (ECMP). A 20 MB TCP flow 0 → 1 fills server 0's NIC queue to its
/// level-0 switch; three of the four 1 MB flows 2 → 1 are relayed by server 0 through that
/// same queue.
///
/// Under `backpressure` the local flow's held packet takes every slot the moment it frees
/// (a release runs at the slot's `NicRoom`/`TxDone`, before any arrival of that instant), so
/// the queue is always full when a relayed packet arrives: the relayed flows lose their SYN
/// five times and start only after the local flow has ended (33 ms, against 2–4 ms with
/// `droptail`, where the local flow loses packets too and backs off). Linux gives a relaying
/// server no such priority: a local socket whose packets the qdisc drops is told so
/// (`NET_XMIT_DROP`/`_CN`) and enters CWR; TSQ does not reserve the queue for local sockets.
#[test]
fn relayed_flows_are_not_starved_by_a_local_flow_that_the_nic_holds() {
    let csv = "src,dst,size_bytes,start_s\n0,1,20000000,0\n2,1,1000000,0.001\n\
               2,1,1000000,0.0011\n2,1,1000000,0.0012\n2,1,1000000,0.0013\n";
    let dir = flow_dir("review-relay-starved", csv);
    let text = r#"
[topology]
kind = "bcube"
n = 2
k = 1
link_gbps = 10
link_delay_us = 1
[transport]
protocol = "tcp"
[workload]
kind = "flows"
file = "flows.csv"
"#;
    for mode in ["droptail", "backpressure"] {
        let out = run_in(text, &[&format!("topology.host_nic=\"{mode}\"")], &dir);
        let local_end = out.flows[0].finish.expect("the local flow finishes");
        for f in &out.flows[1..] {
            let end = f.finish.expect("every flow finishes");
            assert!(
                end < local_end,
                "{mode}: relayed flow {} ends at {end:?}, after the local flow ({local_end:?}), \
                 with {} timeouts",
                f.flow_id,
                f.timeouts
            );
        }
    }
}
