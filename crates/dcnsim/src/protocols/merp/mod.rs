//! # MERP: flow scheduling by minimum expansion ratio
//!
//! The seed `000_57a1f87c1f24689a` (IEEE TPDS 28(11), 2017; its title and authors are not in
//! the seed's text), §3–4 for rate control. A flow's *expansion ratio* is its FCT over its FCT
//! alone on the network (Definition 1); MERP orders competing flows so that the largest ratio
//! is as small as possible (eq. (4)): short flows usually go first, as in SRPT, but a flow's
//! ratio grows while it waits, so no flow starves.
//!
//! * **Packets** ([`header`]): nine types in three priorities (Table 2) — SYN, SYNACK, BOOST
//!   high; DATA, DATAACK, FIN, FINACK middle; DET, DETACK low. Every packet carries the flow's
//!   size, the actual sending rate asr, the expected sending rate esr and the detecting rate
//!   threshold Q (§4.1).
//! * **Switch** ([`switch`]), on every egress port: a flow state table T (id, size, remaining
//!   size rs, arrival aT, virtual deadline vdl, esr). When a packet arrives, Algorithm 1 (DRC):
//!   a FIN deletes its flow; a SYN inserts its flow and runs VDG (Algorithm 2, [`schedule`]),
//!   which orders the table for the least maximum expansion ratio and gives every flow a vdl
//!   and esr; a SYN, DATA or DET then takes the smaller of its own and the table's esr, both
//!   ways, and the flow's vdl = aT + size/esr. When the packet leaves, Algorithm 3 (RateAdj)
//!   lowers its asr: the flow with the smallest vdl to α·C; the second to (n − 1)(1 − α)C —
//!   or α·C if the first will be done within an RTT (early start); the others to (1 − α)C;
//!   detection capped at Q. The buffer is a priority queue: highest priority out first; when
//!   full, the lowest-priority packet is dropped, the arriving one included
//!   ([`Discipline::Rank`] with rank = priority).
//! * **Sender** (`sender`): SYN; then DATA while the asr its replies bring exceeds Q, DETs
//!   while it does not, paced at asr; a BOOST starts DATA at once; RTO from the TCP estimator
//!   (EWMA RTT + 4 × deviation, §4.1).
//! * **Receiver** (`receiver`): copies asr and esr into every ACK; a DET whose asr exceeds Q
//!   gets a BOOST instead of a DETACK (§4.2).
//!
//! ## Parameters (`[transport]` keys)
//!
//! | key | default | source |
//! |---|---|---|
//! | `merp_alpha` | 0.999 | α, the largest share of C a flow sends DATA at (§6.1) |
//! | `merp_q` | 0.8 | Q as a fraction of a link's rate, the smallest along the path (§6.1: "Q = 0.8 Gbps", 80 % of 1 Gb/s) |
//! | `merp_rtt_us` | the network's RTT | the RTT early start looks ahead by, the window the ACK rate is measured over and the wait before the hand-over calls a flow held downstream: the base RTT of the longest path ([`crate::net::scale`]) |
//! | `merp_entry_timeout_us` | 100 000 | a link forgets a flow that sent nothing across it for this long (below) |
//! | `merp_handover` | `work_conserving` | who gets α·C when the first flow is held on another link: `work_conserving` (the next flow too, below) or `paper` (no one: Algorithm 3 as written) |
//! | `mss_bytes`, `header_bytes` | 1460, 40 | §6.1: 1500-byte packets including a 40-byte header |
//! | `min_rto_us` | the network's RTT, or an `initial_rto_us` set below it | floor of the RTO (see below) |
//! | `initial_rto_us` | 3 × the network's RTT, moved into `[min_rto_us, max_rto_us]` | RTO before the first RTT sample; set outside those bounds it is refused, as under TCP ([`crate::validate#rto-bounds`]) |
//! | `max_rto_us` | 1 000 000 | as TCP |
//!
//! The network-derived values are shown in `scenario.json`; keys the scenario sets win.
//!
//! ## Choices where the paper is silent or garbled
//!
//! * **Per link.** The flow table, C and the algorithms belong to each egress port, host NICs
//!   included: a host's flows compete for its link as for any other (§4.3 speaks of "each
//!   MERP switch" with "link capacity C").
//! * **rs** is the flow's size less its wire bytes up to the highest DATA byte that has reached
//!   the link, read from sequence numbers; sizes are wire bytes, as the paper's flow sizes
//!   "include the packet header". Counting every DATA packet offered to the port instead
//!   counted dropped and resent segments twice: rs reached 0 early, early start fired and two
//!   flows sent at α·C at once (on the tree at 60 % load, seed 1, 92 875 DATA drops; 2 207
//!   with rs from sequence numbers).
//! * **Room for the ACKs.** The full grant is α·(C − A), A the rate of the DATAACKs and
//!   FINACKs that left the link in the last complete window of `merp_rtt_us` (DETACKs yield to
//!   DATA; SYNACKs and BOOSTs answer the handshake and detection, and a burst of BOOSTs once
//!   measured a whole link as ACKs). The full grant never falls to Q or below: it must still
//!   read as "send" (§4.4: Q ≤ α·C). α·(C − A) under 0.8·C made a first flow detect, at up to
//!   733 Mb/s, instead of sending, and a zero grant silenced a flow for good. So with the
//!   default Q there is room for ACKs up to ~20 % of C; beyond that, the link is over-booked
//!   by the rest (a review case with 27 % of ACKs: the 2 MB flow ends at 28.2 ms, pFabric 23.5;
//!   57.7 ms when it detected instead). Scaling Q with the room instead set a link's Q below
//!   the detecting rate of a link without ACKs when Q is small: at Q = 0.001, flows held on
//!   another link were BOOSTed, and the mean FCT at 20 % load was 758 ms against 1.68 ms.
//!   Why room at all: RateAdj budgets a link for its flows' DATA and DETs only; the ACKs of
//!   flows going the other way (40 B per 1500 B, 2.7 % of C at line rate) come on top, and
//!   DATA at α·C = 999 Mb/s with them is 102.6 % of the link. MERP has no window, so the
//!   queue then grows until it drops. The paper reserves 1 − α for
//!   detection and says α and Q change little; it does not count ACKs. A constant room
//!   (α ≈ 0.973) would cost 2.6 % on links that carry no ACKs (Fig. 13 at 74 ms); measured,
//!   it costs nothing there. Two opposite 20 MB flows through one switch: 278 ms each with
//!   9 412 retransmissions before (slowdown 1.69), 169.2 ms and none now (pFabric 168.8 ms).
//! * **The hand-over** (`merp_handover`). RateAdj gives α·C to the flow with the smallest vdl
//!   only; when that flow is postponed on another link of its path, this link idles, which
//!   breaks the paper's own objective, eq. (4) (MERP has no "paused by" signal, unlike PDQ).
//!   The signal is there, though, in the flow's DETs. One that arrives with a detecting asr
//!   shows that a link before this one holds the flow. One that arrives more than an RTT
//!   after a packet of the flow left here with the full grant, free of any hold before, shows
//!   that the flow heard of the grant and a link after this one holds it. `work_conserving`,
//!   the default, then gives the next flow in vdl order α·C as well, and so on down the order
//!   while flows are held; the flow after the last full grant is the second (early start
//!   applies to it). A flow whose DETs come free of the links before, but none of whose
//!   packets has yet left here with the grant, is not held: its DETs may wait in this queue
//!   behind the borrower's DATA (review case: a first flow counted as held until its DATA
//!   arrived lost its link for 40 ms). When the held flow comes back, the borrower's next
//!   packet brings it back to detecting, and the two overlap for an RTT or two. 100-packet
//!   buffers absorb that; with 10–20 packets it costs drops and timeouts, which `paper` does
//!   not have. `paper` keeps Algorithm 3's letter. Case (one 1 Gb/s switch): A h0→h3
//!   4 MB at 0, B h1→h3 8 MB at 1 ms, C h1→h2 20 MB at 2 ms. B waits behind A at sw→h3 but is
//!   first on h1's link: under `paper` h1's link is 0.2 % used from 2 to 33 ms, C ends at
//!   263.6 ms and the largest expansion ratio is 1.591; under `work_conserving` C ends at
//!   232.4 ms (pFabric 232.4) and the largest ratio is B's 1.487, the least any order gives.
//! * **Loss recovery** resends only what is missing (the paced core's selective recovery:
//!   each DATAACK names the segment it answers, as SACK would): on expiry every unreported
//!   segment below the highest sent, on three duplicate ACKs every unreported one below the
//!   highest reported. The paper does not say what is resent; going back to the first
//!   unacknowledged byte at α·C resent whole windows that had arrived.
//! * **esr on packets.** The sender stamps every packet with the esr its receiver echoed last
//!   (∞ before the first echo, §4.1): switches then hold the smallest esr along the whole path,
//!   which is how a flow's vdl becomes the same on every link and how GMER (route control)
//!   sees downstream links. Since DRC only takes minima, a flow's esr only falls between VDG
//!   runs; the order of vdl is what RateAdj uses. asr is reset to the sender's link rate on
//!   every packet, so that switches can raise a flow's rate again.
//! * **DRC before RateAdj.** Algorithm 1 calls RateAdj at its end; §4.3 says RateAdj runs when
//!   the packet *leaves*. We run DRC at arrival and RateAdj at departure, with the table as it
//!   is then.
//! * **Ties** go to the lower flow id: it has the smaller vdl, and VDG puts it first.
//! * **One arrival time per flow.** Algorithm 2 (line 1) sets aT to when the SYN reaches each
//!   switch, and vdl = aT + size/esr (Algorithm 1, line 11). esr brings the path's smallest
//!   rate to every link, but such an aT differs from link to link by the SYN's queueing (up
//!   to a packet, 12 µs at 1 Gb/s, per hop), so two flows whose deadlines lie closer than that
//!   can be ordered one way on one link and the other way on the next: each is first where
//!   the other is postponed, neither sends, and as esr only falls no later VDG undoes it. On
//!   the 9-server tree (150 KB Pareto flows at 80 % of the ToR–root links, seed 2 of
//!   `dcnsim reproduce merp`) this held 814 of 4000 flows for good from 1.46 s on, two flows
//!   into h0 each first on one of root→tor0 and tor0→h0. aT is therefore the time the sender
//!   sent the SYN (the packet's timestamp), the same on every link (test
//!   `links_of_a_path_order_flows_alike`), also for a packet of a flow the link does not know
//!   (below).
//! * **A packet of a flow a link does not know** (its SYN went elsewhere before a reroute, or
//!   the link forgot it, below) enters it as a new flow, as a SYN would, with the time its
//!   sender sent the SYN as aT. The switch agent keeps that time per flow: it stands for a
//!   header field carrying it, for which the header's size budget has no room. Taking the
//!   link's own time instead let two links order two flows oppositely after a reroute, each
//!   first where the other waits, for good (15 of 200 flows on seed 3 of the failure example
//!   below).
//! * **Entries expire** (`merp_entry_timeout_us`, 100 ms). A flow rerouted around a failed
//!   link sends its FIN the new way, and the links of its old path would keep its entry for
//!   good; as their first flow it holds them. A link forgets a flow that sent no packet
//!   across it for the timeout (it looks at its table every quarter of it, when a packet
//!   arrives); the paper is silent. Live flows can be quiet a long time: DETs have the lowest
//!   priority and wait behind DATA. With a 10 ms timeout entries of live flows expired on
//!   `examples/tree_pareto.toml` (1 Gb/s) and the outputs changed; from 30 ms none did there
//!   or in the runs below, and 100 ms leaves a margin. Without failures the outputs are
//!   those of the code before expiry (MERP on `bench/identity/matrix_base.toml` with and
//!   without deadlines and with `memr`, a k = 8 fat-tree, an incast and a leaf-spine of mixed
//!   rates). On `examples/leafspine_failure.toml` with web-search sizes, 25 of 200 flows
//!   never finished on seed 1 (36 on seed 3); now all do on seeds 1–6 (test
//!   `tests/failures.rs`).
//! * **DET and FIN.** A DET is header only (40 B). The FIN goes out when every byte is
//!   acknowledged, is resent on timeout until its FINACK, and the sender is done then. A flow
//!   the application aborts (`workload.abort_at_deadline`) sends one FIN and is done.
//!   DET round trips are not RTT samples (they queue behind everything).
//! * **Q on a path of several rates.** The paper sets Q for links of one rate ("80 percent of
//!   the link capacity", §6.1) and asks α²C ≤ Q ≤ αC (§4.3). The sender starts the packet's Q
//!   at `merp_q` of its own link and every link lowers it to `merp_q` of its own capacity on
//!   the way out, as it lowers asr; the receiver and the sender compare asr with the Q the
//!   packet brings. Without that, a flow whose path crosses a slower link than its NIC could
//!   never get an asr above Q (α·C of the slow link is below Q of the fast one): it detected
//!   for ever, at α·C of the slow link, in 40-byte DETs. On `examples/leafspine_failure.toml`
//!   (a 3.3 Gb/s spine) under MERP that flooded the slow link (6 M drops in 0.3 s) and held 19
//!   of 200 flows. With links of one rate nothing changes.
//! * **RTO floor.** §4.1 gives RTO = EWMA RTT + 4 deviations and no minimum; we floor it at the
//!   network's base RTT and start at 3 base RTTs (pFabric's rule), so that no timeout fires
//!   before an answer could have come.
//! * **Header bytes.** The four fields ride in the paper's 40-byte header: MERP adds no bytes.
//!   `size` saturates at 4 GiB.

//!
//! ## What the evaluation gives (tests/merp.rs; the figures: `dcnsim reproduce merp`)
//!
//! * **Motivating example** (Table 1, Fig. 1c), at 1 Gb/s with 1 MB units: A, then C, then B;
//!   mean FCT 5.69 units (paper 17/3 = 5.67), largest expansion ratio 2.34 (7/3 = 2.33).
//! * **Flow switching** (Fig. 13): 72.46 ms for 3 × 2000 packets (paper 72.25 ms, ideal 72).
//! * **Incast** (Fig. 14): 78.7 % utilisation over 10–18 ms; the paper measures 91.8 %. While
//!   a flow sends DATA at α·C, its link has (1 − α)·C = 1 Mb/s left, one 40-byte DET per
//!   ≈ 320 µs at 1 Gb/s, and DETs queue behind DATA (the lowest priority). So the next flow's
//!   DET rarely passes during the current flow's last RTT, and early start (Algorithm 3,
//!   lines 5–8) seldom hides the hand-over: each costs the next flow's DET reaching the
//!   receiver, its BOOST returning and its first DATA reaching the switch, ≈ 53 µs against the
//!   240 µs of a 20-packet flow. The paper's 91.8 % needs DETs that pass while DATA flows; it
//!   does not say how its detecting packets get through a link that α = 0.999 keeps busy.
//! * **One bottleneck at load.** 8 senders into one 1 Gb/s receiver link at 80 %, 1 000
//!   Pareto flows of mean 150 KB: mean FCT 5.07 ms (pFabric 5.08), largest expansion ratio
//!   15.8 (pFabric 19.1), 99.9th percentile 544 ms (pFabric 667). MERP does what the paper
//!   says: the largest ratio falls, the mean stays.
//! * **Multi-hop capacity** (issue 33, item 5). On the 9-server tree with random pairs the
//!   ToR–root links carry 2.25 times a host link's load (the reproduction states its load
//!   relative to them). MERP's fluid model (`engine = "flow"`: the same VDG order, signalled
//!   at once) there at 80 % gives a largest ratio of 9.0 against SRPT's 13.7 and a mean of
//!   2.21 against 1.68: the order is right. Packet by packet, with 1 000 flows of mean 150
//!   KB, MERP is stable at 60 % (mean ratio 2.73, largest 12.4; pFabric 1.77 and 11.8) but
//!   not from 70 %: the mean ratio grows from 3.7 in the first quarter of the flows to 9.0 in
//!   the last at 70 %, from 5.7 to 18.7 at 80 %. Over 0.1–0.3 s at 80 % its ToR–root links
//!   carried 49–68 % of their capacity while flows waited (pFabric 80–93 %). The cost is the
//!   signalling a hand-over across links needs. A link learns that its first flow is held
//!   elsewhere from that flow's DETs: at once when a link before it holds the flow (the DET
//!   comes with a detecting rate), else only from a DET an RTT after the grant, and DETs come
//!   at (1 − α)·C, one per 320 µs at 1 Gb/s. The next flow then learns of its grant from its
//!   own next DET and starts an RTT later. That is several hundred µs per hand-over, against
//!   1.2 ms on the wire for a 150 KB flow. What we tried at 80 % (mean / largest ratio; 13.9
//!   / 46.7 before the upstream signal):
//!   - the upstream signal (kept): 13.3 / 40.4;
//!   - the second flow detecting at least once per RTT (§4.4's bound with d = RTT): 13.7 / 43.8;
//!   - DETs served by vdl among themselves, so that stale DETs do not pass first: 15.7 / 49.0;
//!   - 3× the detecting rates: 9.3 / 27.3. At 10× the DETs' own load drops 30× more packets
//!     and gives 11.7 / 36.6;
//!   - a shorter `merp_rtt_us` (40 µs): 16.5 / 41.1;
//!   - 1 000-packet buffers: no change.
//!
//!   None comes near the fluid model's 2.2 / 9.0, and we keep the paper's rates. The paper
//!   does not say how its DETs cross a link that α = 0.999 keeps busy (Fig. 14 below).
//! * **A slow first hop.** A link gives α·C of itself to one flow. When that flow's NIC is
//!   slower (1 Gb/s hosts behind a 10 Gb/s link), the rest of the fast link idles while the
//!   others wait: four 2 MB flows from four such hosts run one after another, slowdowns up to
//!   3.85 (pFabric 1.00 for all four). That follows from Algorithm 3, written for links of one
//!   rate; the hand-over does not help, since the first flow does send DATA.
//! * **Before issue 33** three faults of ours added to this, and each is fixed now. rs counted
//!   resent segments. Go-back-N resent whole windows. DATA at α·C plus the reverse ACKs
//!   overloaded two-way links: at 10 % load with 1500 KB flows, 90 of 3 000 flows
//!   retransmitted. A link also served only its first flow when that flow was held elsewhere.
//!   MERP then fell behind its load beyond ~50 % of the ToR–root links.

pub mod header;
mod receiver;
pub mod route;
pub mod schedule;
mod sender;
pub mod switch;
#[cfg(test)]
mod tests;

pub use receiver::MerpReceiver;
pub use sender::MerpSender;
pub use switch::MerpSwitch;

use crate::error::{ConfigError, ConfigResult};
use crate::net::header::WireHeader;
use crate::net::network::Network;
use crate::net::queue::Discipline;
use crate::net::scale::PathScale;
use crate::protocols::tcp::DEFAULT_MAX_RTO_US;
use crate::protocols::{AtOnce, Caps, FlowMemory, FlowSetup, FluidPolicy, Protocol};
use crate::units::{Rate, Time};
use crate::validate::{choice, micros_or, rto_bounds, RtoDefaults};

pub const DEFAULT_ALPHA: f64 = 0.999;
pub const DEFAULT_Q: f64 = 0.8;
pub const DEFAULT_ENTRY_TIMEOUT_US: f64 = 100_000.0;
/// Where no network is known (unit tests): the RTT of MERP's 1 Gb/s tree with 10 µs links,
/// four hops each way (2 × 4 × 10 µs + 4 × (12 + 0.32) µs).
pub const FALLBACK_RTT_US: f64 = 129.28;

crate::protocols::transport_keys! {
    /// The `[transport]` keys `merp` reads (module doc); any other is refused.
    pub struct MerpConfig uses [segment, rto] {
        /// α, the largest share of a link a flow sends DATA at.
        pub merp_alpha: Option<f64>,
        /// The detecting rate threshold Q, as a fraction of the sender's link rate.
        pub merp_q: Option<f64>,
        /// The RTT switches' early start looks ahead by.
        pub merp_rtt_us: Option<f64>,
        /// A link forgets a flow that sent nothing across it for this long.
        pub merp_entry_timeout_us: Option<f64>,
        /// `work_conserving` (a first flow held elsewhere passes its grant on) or `paper`
        /// (Algorithm 3 as written).
        pub merp_handover: Option<String>,
    }
}

/// How a link passes its full grant on when its first flow cannot use it
/// (`transport.merp_handover`; module doc, "The hand-over").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Handover {
    /// `work_conserving` (the default): a first flow held on another link of its path passes
    /// α·C on to the next flow in vdl order, which keeps eq. (4)'s objective.
    WorkConserving,
    /// `paper`: Algorithm 3 as written; only the first flow (and early start) gets α·C.
    Paper,
}

impl Handover {
    pub fn from_config(cfg: &MerpConfig) -> ConfigResult<Handover> {
        choice(
            "transport.merp_handover",
            "hand-over",
            cfg.merp_handover.as_deref(),
            &[
                ("work_conserving", Handover::WorkConserving),
                ("paper", Handover::Paper),
            ],
        )
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct MerpParams {
    pub mss: u32,
    pub header: u32,
    pub alpha: f64,
    /// Q as a fraction of a link's rate (the sender's to start with, then each link's).
    pub q: f64,
    pub rtt: Time,
    /// A link forgets a flow that sent nothing across it for this long.
    pub entry_timeout: Time,
    pub handover: Handover,
    pub min_rto: Time,
    pub initial_rto: Time,
    pub max_rto: Time,
}

fn fraction(key: &str, v: Option<f64>, default: f64) -> ConfigResult<f64> {
    let v = v.unwrap_or(default);
    if !(v > 0.0 && v <= 1.0) {
        return Err(ConfigError::new(
            format!("transport.{key}"),
            format!("must be a number in (0, 1] (got {v})"),
        ));
    }
    Ok(v)
}

/// α must leave postponed flows a detecting rate, (1 − α)·C > 0 (§4.4: α < 1 − size/((n − 1)dC)).
fn below_one(key: &str, v: Option<f64>, default: f64) -> ConfigResult<f64> {
    let v = fraction(key, v, default)?;
    if v >= 1.0 {
        return Err(ConfigError::new(
            format!("transport.{key}"),
            "must be below 1: postponed flows detect at (1 − α)·C",
        ));
    }
    Ok(v)
}

/// Memory at packet level: every started flow counts as held, its endpoints and an entry in
/// the flow table of every link of its path (≈ 1 700 B measured), with a margin.
const MEMORY: FlowMemory = FlowMemory {
    at_once: AtOnce::EveryStarted {
        bytes: 1900.0,
        per_extra_subflow: 0.0,
    },
    ..FlowMemory::WHILE_SENDING
};

impl Protocol for MerpParams {
    const HEADER_TAGS: &'static [u8] = &[header::MerpHeader::TAG];
    const NAMES: &'static [(&'static str, &'static str)] = &[(
        "merp",
        "MERP (IEEE TPDS 2017): switches order flows for the least maximum expansion ratio (virtual deadlines)",
    )];
    type Sender = MerpSender;
    type Receiver = MerpReceiver;
    type Agent = MerpSwitch;

    type Config = MerpConfig;

    fn from_config(_protocol: &str, cfg: &MerpConfig) -> ConfigResult<MerpParams> {
        let (mss, header) = crate::protocols::segment_sizes(cfg.mss_bytes, cfg.header_bytes)?;
        let rtt = micros_or("transport.merp_rtt_us", cfg.merp_rtt_us, FALLBACK_RTT_US)?;
        let rto = rto_bounds(
            cfg.min_rto_us,
            cfg.initial_rto_us,
            cfg.max_rto_us,
            rto_defaults(rtt.as_us_f64(), cfg.initial_rto_us),
        )?;
        Ok(MerpParams {
            mss,
            header,
            alpha: below_one("merp_alpha", cfg.merp_alpha, DEFAULT_ALPHA)?,
            q: fraction("merp_q", cfg.merp_q, DEFAULT_Q)?,
            rtt,
            entry_timeout: micros_or(
                "transport.merp_entry_timeout_us",
                cfg.merp_entry_timeout_us,
                DEFAULT_ENTRY_TIMEOUT_US,
            )?,
            handover: Handover::from_config(cfg)?,
            min_rto: rto.min,
            initial_rto: rto.initial,
            max_rto: rto.max,
        })
    }

    fn caps(&self) -> Caps {
        Caps {
            data_packet_sizes: (self.mss, self.header),
            // The priority buffer of Table 2: rank = priority class.
            discipline: Discipline::Rank,
            default_buffer_pkts: None,
            uses_ecn: false,
            keeps_state_along_its_path: true,
            derives_defaults_from_network: true,
            memory: MEMORY,
            fluid: FluidPolicy::Merp,
        }
    }

    fn network_defaults(&self, cfg: &mut MerpConfig, scale: Option<&PathScale>, _net: &Network) {
        if let Some(scale) = scale {
            network_defaults(cfg, scale);
        }
    }

    fn new_sender(&self, flow: &FlowSetup, nic_rate: Rate) -> MerpSender {
        MerpSender::new(self, flow, nic_rate)
    }

    fn new_receiver(&self, flow: &FlowSetup) -> MerpReceiver {
        MerpReceiver::new(self, flow)
    }

    fn new_agent(&self, net: &Network, memr: bool) -> Option<MerpSwitch> {
        Some(MerpSwitch::new(self, net, memr))
    }
}

/// The keys defined by the network, where the scenario leaves them unset: the RTT early start
/// looks ahead by, the RTO floor (one RTT) and the initial RTO (three).
pub fn network_defaults(cfg: &mut MerpConfig, scale: &PathScale) {
    let rtt = *cfg
        .merp_rtt_us
        .get_or_insert_with(|| scale.rtt.as_us_rounded_to_ns());
    let d = rto_defaults(rtt, cfg.initial_rto_us);
    let min = *cfg.min_rto_us.get_or_insert(d.min_us);
    // The initial RTO written is the one that runs: three RTTs moved into the bounds in effect
    // (a `min_rto_us` set above them raises it), as `rto_bounds` does with an unset key.
    let max = cfg.max_rto_us.unwrap_or(d.max_us);
    cfg.initial_rto_us.get_or_insert_with(|| {
        Time::from_us_f64(d.initial_us)
            .as_us_rounded_to_ns()
            .max(min)
            .min(max)
    });
}

/// MERP's RTO defaults on a network of base RTT `rtt_us`: the floor one RTT, the initial RTO
/// three, the cap TCP's. The floor is derived, not the user's, so it gives way to an
/// `initial_rto_us` the scenario sets below it (the floor becomes that value) instead of
/// refusing it ([`crate::validate#rto-bounds`]).
fn rto_defaults(rtt_us: f64, initial_set: Option<f64>) -> RtoDefaults {
    let min_us = match initial_set {
        Some(i) if i > 0.0 && i < rtt_us => i,
        _ => rtt_us,
    };
    RtoDefaults {
        min_us,
        initial_us: 3.0 * rtt_us,
        max_us: DEFAULT_MAX_RTO_US,
    }
}
