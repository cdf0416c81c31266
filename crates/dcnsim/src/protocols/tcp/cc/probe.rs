//! A scripted controller for the tests of the seam itself (`tcp/tests/controller.rs`): it
//! counts the hooks the sender calls and can do what MCP will (set the window after the first
//! RTT sample and on ACKs, send ECT data, give the flow up), with NewReno's loss rules.

use super::newreno;
use super::{Ack, CongestionControl, Conn, Window};
use crate::units::Time;

/// How often the sender called each hook.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Calls {
    pub established: u64,
    pub acks: u64,
    pub dupacks: u64,
    pub dupacks_ece: u64,
    pub fast_retransmits: u64,
    pub timeouts: u64,
}

#[derive(Clone, Debug, Default)]
pub struct Probe {
    /// cwnd set at `on_established`.
    pub initial_window: Option<u64>,
    /// cwnd set on every new ACK outside recovery (instead of growth).
    pub window_on_ack: Option<u64>,
    pub ect: bool,
    /// Ask for the flow to end once this many new ACKs were seen.
    pub abort_after_acks: Option<u64>,
    pub calls: Calls,
    /// What `on_established` saw.
    pub established: Option<Conn>,
}

impl CongestionControl for Probe {
    fn on_established(&mut self, c: &Conn, w: &mut Window) {
        self.calls.established += 1;
        self.established = Some(*c);
        if let Some(iw) = self.initial_window {
            w.cwnd = iw;
        }
    }

    fn on_ack(&mut self, c: &Conn, a: Ack, w: &mut Window) {
        self.calls.acks += 1;
        if c.in_recovery || c.all_acked() {
            return;
        }
        match self.window_on_ack {
            Some(cwnd) => w.cwnd = cwnd,
            None => newreno::grow(c, a.newly_acked, w),
        }
    }

    fn on_dupack(&mut self, c: &Conn, ece: bool, w: &mut Window) {
        let _ = (c, w);
        self.calls.dupacks += 1;
        self.calls.dupacks_ece += u64::from(ece);
    }

    fn on_fast_retransmit(&mut self, c: &Conn, flight: u64, w: &mut Window) {
        self.calls.fast_retransmits += 1;
        newreno::halve(c, flight, w);
    }

    fn on_timeout(&mut self, c: &Conn, flight: u64, w: &mut Window) {
        self.calls.timeouts += 1;
        newreno::timeout(c, flight, w);
    }

    fn ect(&self) -> bool {
        self.ect
    }

    fn wants_abort(&self, _now: Time) -> bool {
        self.abort_after_acks.is_some_and(|n| self.calls.acks >= n)
    }
}
