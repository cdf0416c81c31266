//! # D2TCP: deadline-aware DCTCP
//!
//! B. Vamanan, J. Hasan, T. N. Vijaykumar, "Deadline-Aware Datacenter TCP (D2TCP)",
//! SIGCOMM 2012, §3 (the "gamma correction" of DCTCP's window cut). Everything of DCTCP stays —
//! switches mark at K on the instantaneous queue, receivers echo CE per packet, the sender keeps
//! α with gain g once per window (see [`crate::protocols::tcp`] and its DCTCP controller) —
//! except the cut on ECE. This file is D2TCP's congestion controller ([`D2tcp`], DCTCP's hooks
//! with another penalty) and that penalty:
//!
//! ```text
//!   p = α^d,      W ← W · (1 − p/2)
//! ```
//!
//! with the *deadline imminence factor* d = Tc / D:
//!
//! * **Tc** — time the flow still needs at the current window: its remaining bytes B sent at
//!   the average rate of a DCTCP sawtooth whose peak is W, i.e. 3W/4 per RTT:
//!   `Tc = B · RTT / (0.75 · W)` (paper §3.2; FujiZ's ns-3 `d2tcp-socket.cc` computes the same).
//!   B = flow size − `snd_una` (bytes not yet acknowledged — remaining, never the total size),
//!   W = cwnd in bytes, RTT = the sender's smoothed RTT (RFC 6298 SRTT). Both B and W are bytes,
//!   Tc and D picoseconds.
//! * **D** — time left until the flow's absolute deadline, `deadline − now`.
//! * d is clamped to **[0.5, 2]** (paper §3.2). Flows **without a deadline use d = 1**, i.e.
//!   exactly DCTCP. At the deadline (D = 0) d = 2, the limit of Tc/D as D → 0; after it, see
//!   "A flow past its deadline" below.
//!
//! Direction (a classic inversion bug): α ≤ 1, so a near-deadline flow (d > 1) gets p = α^d
//! *smaller* than α and backs off *less*; a far-deadline flow (d < 1) gets a larger p and backs
//! off more.
//!
//! Sources: the paper's text was not within reach of this work (issue 32): its abstract and the
//! first slides of the authors' SIGCOMM talk were; the section numbers and the formulas above
//! are those of the project's baselines digest (§3), which checked them against FujiZ's ns-3
//! code. The abstract states the objective: fewer missed deadlines ("reduces the fraction of
//! missed deadlines compared to DCTCP and D3 by 75% and 50%") for OLDI fan-in bursts, with a
//! protocol that is "readily deployable" beside TCP.
//!
//! ## Parameters
//!
//! `transport.protocol = "d2tcp"` takes every key of `dctcp` (`dctcp_g`, `dctcp_init_alpha`
//! and the TCP keys) with the same defaults, and the same default marking threshold of the
//! ports (`topology.ecn_k_pkts`). D2TCP itself adds:
//!
//! | key | default | source |
//! |---|---|---|
//! | `d2tcp_d_min` | 0.5 | paper §3.2 (lower clamp of d) |
//! | `d2tcp_d_max` | 2.0 | paper §3.2 (upper clamp of d) |
//! | `d2tcp_late` | `"d_min"` | ours, the paper being silent as far as we could read: below |
//!
//! They are refused for any other protocol. Deadlines come from the workload (`deadline` or the
//! flow file's `deadline_s`).
//!
//! ## A flow past its deadline (`d2tcp_late`)
//!
//! Nothing we could read of the paper says what a flow does once its deadline has passed (the
//! formula breaks down: D ≤ 0). The public implementations differ: FujiZ's ns-3
//! `D2tcpSocket` (where the baselines digest took its d = 2 for D ≤ 0) also refuses to send
//! after the deadline and closes the socket; a Linux D2TCP module (ycaoae/D2TCP_Kernel) and an
//! ns-3 `TcpD2tcp` (liyilun2019/ns3-d2tcp) stop the gamma correction (d = 1, DCTCP). Until
//! issue 32 this simulator gave d = 2 and kept the flow going to its end: the most urgent flow
//! for the rest of its life, which matches none of them and, measured, made D2TCP miss more
//! deadlines than DCTCP (issue 32's second case: 62.7 % and 68.4 % against 61.2 % and 63.7 %,
//! seeds 1 and 2; 68.8 % and 71.2 % against 65.2 % and 68.2 % with drop-tail host NICs;
//! `bench/d2tcp/README.md`).
//!
//! Our default, `"d_min"`, chosen for the paper's objective: the flow **keeps sending, with
//! d = `d2tcp_d_min`** from the first instant after its deadline. It can no longer meet its
//! deadline, so for the count of met deadlines it is the least urgent flow there is, and it
//! should give way to every flow that can still make it, as a flow with the most slack does in
//! the gamma correction. It is not given up: a transport delivers what the application handed
//! it, and giving up is the application's decision (`workload.abort_at_deadline`, which ends
//! flows of every protocol alike, so comparisons stay fair). A flow whose last byte arrives
//! exactly at its deadline meets it, so at D = 0 d is still 2; d jumps to `d2tcp_d_min` just
//! after. Measured on issue 32's cases, the default misses fewer deadlines than DCTCP (and than
//! `"dctcp"`); on a 10 Gb/s star a 1 MB flow due at 1.5 ms next to a 1 MB flow already late
//! ends at 1.40 ms under `"d_min"`, 1.55 ms under `"dctcp"`, 1.65 ms under `"d_max"` (all with
//! α starting at 0; `tests/d2tcp.rs`).
//!
//! The other values: `"dctcp"` (d = 1: the Linux module's and the ns-3 `TcpD2tcp`'s),
//! `"d_max"` (d = `d2tcp_d_max`, the flow keeps sending: this simulator before issue 32, output
//! for output), `"close"` (FujiZ's ns-3: the sender gives the flow up at the first packet or
//! timer it handles after the deadline, usually within an RTT of it, and the flow ends
//! terminated, with `terminated_s` set; `workload.abort_at_deadline` ends the flows of every
//! protocol so, at the deadline itself).
//!
//! ## When the gamma correction can act (measured, `bench/d2tcp/README.md`)
//!
//! D2TCP moves bandwidth between flows that share a bottleneck *and have different d*, by
//! giving them cuts of different size, a little at each marked window. So:
//!
//! * **A fan-in burst's responses that share one deadline get one d**, and split the parent's
//!   link as under DCTCP; near the deadline all get d = 2 together. 20 responses of 200 KB
//!   into one 10 Gb/s port, all due at 3.2 ms: the last ends at 3.295 ms under both, and
//!   D2TCP, which makes them end together, misses 17 where DCTCP's unevenness lets 12 through.
//! * **α is the lever, and it moves slowly**: with α starting at 1 (RFC 8257, Linux; our
//!   default), 1^d = 1 and the first cuts are DCTCP's whatever d; with α starting at 0 (the
//!   DCTCP patches of the paper's time), 0^d = 0 and they are nothing for every d. With
//!   g = 1/16 the gap opens over ten windows or so: a response of a few windows never sees it.
//! * **Many flows per port leave no room**: 20 flows into a 10 Gb/s port with K = 65 have
//!   windows of 2–8 packets, and the cut's floor of 2 SMSS evens out their cuts.
//! * **Losses are outside its reach**: in issue 32's leaf-spine cases (8 200–9 300 drops, none
//!   at the hosts' NICs, 200–310 timeouts per run; with drop-tail host NICs ~25 000 drops,
//!   60–70 % of them at the senders' own NICs, and 700–1 200 timeouts) 60–70 % of the flows
//!   that miss lost a packet and 14–16 % timed out; D2TCP handles losses as DCTCP does.
//!
//! Where flows with different deadlines do share a port for many windows it works as the paper
//! says: two 1 MB flows into one 10 Gb/s port, due at 1.58 and 10 ms, end at 1.64 and 1.65 ms
//! under DCTCP, at 1.51 and 1.65 ms under D2TCP, which meets both deadlines. In our OLDI
//! fan-in sweep D2TCP is within a few points of DCTCP, 16 % fewer misses at best with α
//! starting at 1 (24 % with α starting at 0, fan-in 20, a deadline per response, load 0.3:
//! 6.5 % against 8.5 %), never the paper's 75 %. Unchanged by host NICs that push back.
//!
//! ## Choices where the paper is silent
//!
//! * **When d is computed.** Once per window: at the window's single ECE cut (the cut happens at
//!   most once per observation window, see the DCTCP choices), with the α of that moment, the
//!   current cwnd, SRTT and remaining bytes. No per-ACK recomputation from noisy samples.
//! * **A flow past its deadline**: above (`d2tcp_late`).
//! * **No RTT sample yet** (cannot happen after the handshake, kept for safety): d = 1.

use crate::error::{ConfigError, ConfigResult};
use crate::protocols::tcp::cc::{Ack, CongestionControl, Conn, Dctcp, Window};
use crate::units::Time;

pub const DEFAULT_D_MIN: f64 = 0.5;
pub const DEFAULT_D_MAX: f64 = 2.0;

/// What a flow still unfinished after its deadline does (`transport.d2tcp_late`; see the
/// module doc for the reasons).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Late {
    /// `"d_min"` (default): d = `d2tcp_d_min` from the deadline on. The flow keeps sending
    /// and backs off as the least urgent flow, giving way to flows that can still meet theirs.
    DMin,
    /// `"dctcp"`: d = 1 from the deadline on. The flow keeps sending as a flow without a
    /// deadline, i.e. as DCTCP (the Linux module and the ns-3 `TcpD2tcp` we read do this).
    Dctcp,
    /// `"d_max"`: d = `d2tcp_d_max` from the deadline on, and the flow keeps sending: the most
    /// imminent flow for the rest of its life (this simulator's behaviour before issue 32).
    DMax,
    /// `"close"`: the sender gives the flow up at the first packet or timer it handles after
    /// the deadline (FujiZ's ns-3 `D2tcpSocket`); the flow ends terminated.
    Close,
}

impl Late {
    /// The `transport.d2tcp_late` value (`None`: the default).
    pub fn from_config(v: Option<&str>) -> ConfigResult<Late> {
        match v {
            None | Some("d_min") => Ok(Late::DMin),
            Some("dctcp") => Ok(Late::Dctcp),
            Some("d_max") => Ok(Late::DMax),
            Some("close") => Ok(Late::Close),
            Some(other) => Err(ConfigError::new(
                "transport.d2tcp_late",
                format!(
                    "'{other}' is not one of \"d_min\" (the default: d = d2tcp_d_min after the \
                     deadline), \"dctcp\" (d = 1), \"d_max\" (d = d2tcp_d_max) or \"close\" \
                     (the sender gives the flow up after its deadline)"
                ),
            )),
        }
    }
}

/// D2TCP's congestion controller ([`crate::protocols::tcp::cc`]): DCTCP's hooks and state,
/// with the cut's α replaced by this flow's [`Penalty`].
#[derive(Clone, Debug)]
pub struct D2tcp {
    dctcp: Dctcp,
    penalty: Penalty,
}

impl D2tcp {
    /// `deadline` is the flow's absolute deadline (`None`: plain DCTCP); `[d_min, d_max]` the
    /// clamp of d; `late` what the flow does after its deadline.
    pub fn new(dctcp: Dctcp, deadline: Option<Time>, d_min: f64, d_max: f64, late: Late) -> D2tcp {
        D2tcp {
            dctcp,
            penalty: Penalty {
                deadline,
                d_min,
                d_max,
                late,
            },
        }
    }

    /// The DCTCP state underneath (α, counters).
    pub fn dctcp(&self) -> &Dctcp {
        &self.dctcp
    }
}

impl CongestionControl for D2tcp {
    #[inline]
    fn on_ack(&mut self, c: &Conn, a: Ack, w: &mut Window) {
        let pen = self.penalty;
        self.dctcp.on_ack_with(c, a, w, |alpha, cwnd| {
            pen.penalty(alpha, c.now, c.remaining(), cwnd, c.srtt)
        });
    }

    #[inline]
    fn on_dupack(&mut self, c: &Conn, ece: bool, w: &mut Window) {
        let pen = self.penalty;
        self.dctcp.on_dupack_with(c, ece, w, |alpha, cwnd| {
            pen.penalty(alpha, c.now, c.remaining(), cwnd, c.srtt)
        });
    }

    #[inline]
    fn on_fast_retransmit(&mut self, c: &Conn, flight: u64, w: &mut Window) {
        self.dctcp.on_fast_retransmit(c, flight, w);
    }

    #[inline]
    fn on_timeout(&mut self, c: &Conn, flight: u64, w: &mut Window) {
        self.dctcp.on_timeout(c, flight, w);
    }

    #[inline]
    fn ect(&self) -> bool {
        true
    }

    /// `d2tcp_late = "close"`: give the flow up once its deadline has passed.
    #[inline]
    fn wants_abort(&self, now: Time) -> bool {
        self.penalty.late == Late::Close && self.penalty.is_late(now)
    }
}

/// The deadline-imminence penalty of one flow.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Penalty {
    /// Absolute deadline of the flow; `None` behaves as DCTCP (d = 1).
    pub deadline: Option<Time>,
    pub d_min: f64,
    pub d_max: f64,
    /// What d is once the deadline has passed.
    pub late: Late,
}

impl Penalty {
    /// Whether the flow's deadline has passed at `now` (strictly: a flow whose last byte
    /// arrives at its deadline meets it).
    pub fn is_late(&self, now: Time) -> bool {
        self.deadline.is_some_and(|d| now > d)
    }

    /// The deadline imminence factor d at `now` (see the module doc).
    pub fn imminence(&self, now: Time, remaining: u64, cwnd: u64, srtt: Option<Time>) -> f64 {
        let (Some(deadline), Some(rtt)) = (self.deadline, srtt) else {
            return 1.0;
        };
        if now > deadline {
            return match self.late {
                Late::Dctcp => 1.0,
                Late::DMin => self.d_min,
                // `Close` only gets here between the deadline and the sender's next check.
                Late::DMax | Late::Close => self.d_max,
            };
        }
        if now == deadline {
            // D = 0: Tc/D is unbounded, d takes its upper clamp (the limit as D → 0+).
            return self.d_max;
        }
        let time_left = (deadline - now).ps() as f64;
        let tc = remaining as f64 * rtt.ps() as f64 / (0.75 * cwnd.max(1) as f64);
        (tc / time_left).clamp(self.d_min, self.d_max)
    }

    /// The penalty p = α^d that replaces α in DCTCP's cut `W ← W·(1 − p/2)`.
    pub fn penalty(
        &self,
        alpha: f64,
        now: Time,
        remaining: u64,
        cwnd: u64,
        srtt: Option<Time>,
    ) -> f64 {
        alpha.powf(self.imminence(now, remaining, cwnd, srtt))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d2(deadline_us: Option<u64>) -> Penalty {
        with_late(deadline_us, Late::from_config(None).unwrap())
    }

    fn with_late(deadline_us: Option<u64>, late: Late) -> Penalty {
        Penalty {
            deadline: deadline_us.map(Time::from_us),
            d_min: DEFAULT_D_MIN,
            d_max: DEFAULT_D_MAX,
            late,
        }
    }

    #[test]
    fn imminence_is_tc_over_d_hand_computed() {
        // B = 146 000 B, W = 14 600 B, RTT = 100 µs: Tc = 146000·100/(0.75·14600) = 1333.3 µs.
        let rtt = Some(Time::from_us(100));
        let at = |deadline_us| d2(Some(deadline_us)).imminence(Time::ZERO, 146_000, 14_600, rtt);
        assert!((at(1000) - 1.333_333).abs() < 1e-5, "{}", at(1000));
        assert!((at(2000) - 0.666_667).abs() < 1e-5);
        // Clamped at both ends.
        assert_eq!(at(100_000), 0.5);
        assert_eq!(at(100), 2.0);
        // No deadline: plain DCTCP.
        assert_eq!(d2(None).imminence(Time::ZERO, 146_000, 14_600, rtt), 1.0);
    }

    /// d just before, at and just after the deadline, under each `d2tcp_late`. Tc = 1333.3 µs
    /// as above; the deadline is at 1000 µs.
    #[test]
    fn imminence_around_the_deadline() {
        let rtt = Some(Time::from_us(100));
        let ps = |p: u64| Time::from_ps(p);
        let deadline = Time::from_us(1000);
        for late in [Late::DMin, Late::Dctcp, Late::DMax, Late::Close] {
            let p = with_late(Some(1000), late);
            let d = |now: Time| p.imminence(now, 146_000, 14_600, rtt);
            // 500 µs left: d = 1333.3/500 = 2.67 → 2. 800 µs left: 1.67, unclamped.
            assert_eq!(d(Time::from_us(500)), 2.0, "{late:?}");
            assert!((d(Time::from_us(200)) - 1.666_667).abs() < 1e-5, "{late:?}");
            // One picosecond before: Tc/D is huge, clamped to d_max.
            assert_eq!(d(deadline - ps(1)), 2.0, "{late:?}");
            // At the deadline (D = 0) the flow can still meet it: d_max, for every policy.
            assert_eq!(d(deadline), 2.0, "{late:?}");
            assert!(!p.is_late(deadline) && p.is_late(deadline + ps(1)));
        }
        // One picosecond after, and long after: the policy decides.
        for after in [deadline + ps(1), deadline + Time::from_ms(50)] {
            let d = |late| with_late(Some(1000), late).imminence(after, 146_000, 14_600, rtt);
            assert_eq!(d(Late::DMin), 0.5);
            assert_eq!(d(Late::Dctcp), 1.0);
            assert_eq!(d(Late::DMax), 2.0);
            assert_eq!(d(Late::Close), 2.0);
        }
        // A late flow under the default is the least urgent: p = α^0.5, the largest cut.
        let late = d2(Some(5)).penalty(0.25, Time::from_us(6), 1, 1, rtt);
        assert_eq!(late, 0.5);
        // Remaining bytes and window do not matter after the deadline (here they would give
        // d far above 2 if they were used).
        assert_eq!(
            d2(Some(5)).imminence(Time::from_us(6), 1 << 30, 1, rtt),
            0.5
        );
    }

    #[test]
    fn near_deadline_backs_off_less_than_far_deadline() {
        let rtt = Some(Time::from_us(100));
        let alpha = 0.5;
        let p = |deadline_us| d2(deadline_us).penalty(alpha, Time::ZERO, 146_000, 14_600, rtt);
        let (near, none, far) = (p(Some(100)), p(None), p(Some(100_000)));
        // d = 2 → 0.25, d = 1 → 0.5, d = 0.5 → 0.7071.
        assert!((near - 0.25).abs() < 1e-12);
        assert!((none - 0.5).abs() < 1e-12);
        assert!((far - 0.5f64.sqrt()).abs() < 1e-12);
        assert!(near < none && none < far);
    }

    #[test]
    fn only_close_gives_a_late_flow_up() {
        let dctcp = || {
            let p = <crate::protocols::tcp::TcpParams as crate::protocols::Protocol>::from_config(
                "d2tcp",
                &Default::default(),
            )
            .unwrap();
            Dctcp::new(&p)
        };
        let deadline = Some(Time::from_us(1000));
        let mk = |late| D2tcp::new(dctcp(), deadline, 0.5, 2.0, late);
        let (at, after) = (Time::from_us(1000), Time::from_us(1000) + Time::from_ps(1));
        for late in [Late::DMin, Late::Dctcp, Late::DMax, Late::Close] {
            assert!(!mk(late).wants_abort(at), "{late:?}");
            assert_eq!(mk(late).wants_abort(after), late == Late::Close, "{late:?}");
        }
        // Without a deadline nothing is ever late.
        assert!(!D2tcp::new(dctcp(), None, 0.5, 2.0, Late::Close).wants_abort(after));
    }

    #[test]
    fn late_values_parse_and_bad_ones_name_the_key() {
        assert_eq!(Late::from_config(None).unwrap(), Late::DMin);
        assert_eq!(Late::from_config(Some("d_min")).unwrap(), Late::DMin);
        assert_eq!(Late::from_config(Some("dctcp")).unwrap(), Late::Dctcp);
        assert_eq!(Late::from_config(Some("d_max")).unwrap(), Late::DMax);
        assert_eq!(Late::from_config(Some("close")).unwrap(), Late::Close);
        let e = Late::from_config(Some("kill")).unwrap_err();
        assert_eq!(e.path, "transport.d2tcp_late");
        assert!(e.message.contains("'kill'"), "{e}");
    }
}
