//! # D3: Deadline-Driven Delivery
//!
//! C. Wilson, H. Ballani, T. Karagiannis, A. Rowstron, "Better Never than Late: Meeting
//! Deadlines in Datacenter Networks", SIGCOMM 2011 (§4 rate control, §6.1.3 quenching);
//! `/work/shared/baselines.md` §5. Routers hand out rates once per RTT, first come first
//! served, keeping no per-flow state; senders pace at the smallest rate on their path.
//!
//! * **Sender** ([`D3Sender`]), once per RTT: a deadline flow asks for
//!   `r = remaining bytes / time to deadline`, a flow without deadline asks for 0. The SYN
//!   carries the first request (no data before the SYN-ACK brings an allocation back); later
//!   requests ride the first data packet sent after the previous request's reply arrived
//!   (so never more than one per RTT). A flow allocated nothing (the *base rate*) sends no
//!   data and one header-only request per RTT, as soon as each reply arrives. Every request
//!   carries the flow's previous desired rate and previous allocations, so that routers can
//!   return them. When every byte is acknowledged the sender sends a FIN that returns them for
//!   good.
//! * **Router, per request** ([`D3Switch`], every egress port, host NICs included), with C the
//!   capacity it hands out (below), N the flows, D the sum of desired rates and A the sum of
//!   allocations:
//!   1. `A ← A − a_prev`, `D ← D − r_prev + r` (a SYN also does `N ← N + 1`);
//!   2. `left = C − A`, fair share of spare capacity `fs = max(0, C − D) / N`;
//!   3. `a = r + fs` if `left > r`, else `a = left` (greedy: whoever asks first takes the
//!      capacity; later flows get what is left, possibly nothing), here capped at `left`, at
//!      the link rate, and (§4, `adjusted`) at what the previous router on the path gave;
//!   4. `A ← A + a`, and `a` is written into the packet's allocation vector.
//!
//!   A FIN does step 1 with `r = 0` and `N ← N − 1`. The receiver echoes the header in its
//!   ACK; the sender's rate for the next RTT is the minimum of the vector.
//! * **Router, every interval T** (§4, `d3_capacity = "adjusted"`): the capacity it hands
//!   out follows the port's utilisation and queue, `C ← C + α·(C_link − u) − β·q/T`, with u
//!   the rate the port sent at over the interval and q its queue (below).
//! * **Quenching** (§6.1.3, `d3_quench`): a deadline flow gives up — FIN, then
//!   [`EndpointEvent::Terminated`](crate::protocols::EndpointEvent::Terminated) — when its
//!   deadline has passed or its desired rate exceeds the capacity of its own uplink. The flow
//!   counts as a deadline miss.
//!
//! ## The rate unit (`d3_rate_unit_mbps`)
//!
//! D3's equations are real-valued; a header carries rates in some unit. Every rate in the
//! header and in the router counters is a whole number of units: 1 Mb/s by default. Link
//! rates and fair shares round down (a router never hands out more than it has), a deadline
//! flow's desired rate rounds *up* (getting what it asked for meets the deadline). So N flows
//! without deadline on a link of C units get ⌊C/N⌋ each and leave less than N units unused:
//! on a 1 Gb/s link (1 000 units) 42 flows carry 96.6 % of it, 64 flows 96.0 %, 250 flows all
//! of it, and the fair share reaches 0 (every flow paused at the base rate for as long as they
//! are all there) only beyond 1 000 flows (10 000 at 10 Gb/s).
//!
//! *Why 1 Mb/s.* The unit must fit the header's 16-bit fields: a link of more than 65 534
//! units (the quench test needs a saturated desired rate, 65 535, above every uplink) is
//! refused, naming the key. 1 Mb/s holds every link up to 65.5 Gb/s, so 1, 10 and 40 Gb/s
//! networks take it as it is, and its loss, under N Mb/s per link, is below 1 % for up to
//! 100 flows per 10 Gb/s link; a finer unit would not fit a 40 Gb/s link. Where the network
//! has a link faster than 65 534 Mb/s, the default is the smallest whole number of Mb/s that
//! holds it (2 Mb/s at 100 Gb/s, 7 at 400), shown in `scenario.json` like the other
//! network-derived defaults. All arithmetic is in integers: counters in `u64` units, the
//! desired rate as ⌈bits·10¹²/(ps left · unit)⌉ in 128 bits, a rate as units × unit bit/s.
//!
//! *PACE's unit.* The PACE paper describes its D3 with "units of 1bytes/µs" (8 Mb/s): a
//! 1 Gb/s link is then 125 units, the fair share of more than 125 flows without deadline is
//! 0, and D3 "has a theoretical limit of 125 flows for 1 Gbps link"; 42 flows carry
//! 42·⌊125/42⌋/125 = 67.2 % of it and 64 flows 51.2 %. That was this module's only unit
//! before issue 32; `reproduce pace` sets `d3_rate_unit_mbps = 8` to keep PACE's D3.
//!
//! ## The capacity a router hands out (`d3_capacity`)
//!
//! D3's §4 has routers adjust the capacity they allocate, borrowing RCP's law, because what
//! they hand out is not always used: a flow may be bottlenecked downstream, an endhost may
//! not return its allocation, and a burst of new flows may be allocated more than the link
//! (queueing). Every update interval T the capacity becomes
//! `C(t + T) = C(t) + α·(C_link − u(t)/T) − β·q/T` — u the bytes the port sent over the
//! interval, q its queue — so that an under-used link hands out more and a queue hands out
//! less. A router never gives a request more than the previous router on its path gave it
//! (the allocation vector holds that), so a flow held back upstream holds nothing more
//! downstream. This is `d3_capacity = "adjusted"`, the default; `"link"` hands out the raw
//! link rate and allocates at each router on its own (the behaviour before issue 32).
//!
//! *What could not be checked.* The paper's text could not be retrieved while this was
//! written (only its abstract is in the stored copies): the law above is read from memory of
//! §4 and from PACE's description of D3 ("adjust their allocations based on queue usage and
//! link utilization", "convergence to full utilization is done by adjusting the total
//! allocated capacity, which takes several RTTs"); Aequitas' D3 (baselines.md) has no
//! adjustment. Check against the paper: the exact form (whether the spare term uses the link
//! rate or the current capacity; u as bytes sent), and the values of α, β and T, if it gives
//! them.
//!
//! *Choices here.*
//! * **α = 0.1, β = 1** (`d3_alpha`, `d3_beta`): RCP's published gains, which D3 borrows.
//!   **T = the base RTT of the network's longest path** (`d3_interval_us`; 10 µs where no
//!   network is known), as RCP's control interval is an RTT; a port updates only while it
//!   has flows, and one that has none hands out its link rate again.
//! * **u is what the port sent** (bytes that crossed the link in the interval, header-only
//!   requests and ACKs included): under-use shows in it directly, and a burst of packets
//!   arriving at once (the first packets of many paced flows) shows only as queue, not as a
//!   rate above the link.
//! * **C stays within [C_link, 2·C_link]** ([`MAX_CAPACITY_FACTOR`]). Never below the link:
//!   this router never hands out more than `left`, so A ≤ C always and the link rate alone
//!   never over-allocates; a capacity below it would only leave the link idle, and with a
//!   coarse unit stall everyone (125 flows at 8 Mb/s need all 125 units). Never above twice
//!   the link: a port whose flows are all bottlenecked elsewhere would otherwise raise it
//!   for ever, and hand it all out when they no longer are. Each allocation is also capped at
//!   the link rate (a flow cannot use more), which keeps it within the header's 16 bits.
//! * **β = 1 rather than a β scaled to the network** (as RCP's `ps` defaults do): with the
//!   capacity floored at the link rate the queue term cannot leave the link idle, and it is
//!   the only brake on what the capacity added above the link. β = 0.00027 (RCP's `ps` value
//!   for a 10 Gb/s rack) hands out nearly all a downstream bottleneck leaves (Z below:
//!   11.18 ms of an ideal 11.12) but, on the k = 4 fat-tree below at 60 % load (seed 3),
//!   builds queues that drop 419 000 packets, for a mean slowdown of 26.1 and a mean FCT of
//!   16.4 ms against β = 1's 7.9 and 9.2 ms (7 000 drops); with drop-tail host NICs 531 000
//!   drops, 28.3 and 18.2 ms against 7.7 and 9.2 ms (6 600).
//!
//! Measured (`tests/d3.rs`; 10 Gb/s star, 1 µs links unless said; re-run with host NICs that
//! push back, issue 32's item 1: unchanged, as are the two-deadline-flow case and *Small buffers*
//! below):
//!
//! | case | `link` | `adjusted` (default) | by hand |
//! |---|---|---|---|
//! | Z: 10 MB sharing h0's uplink with X, held to C/4 downstream | 16.69 ms (C/2) | 15.51 ms | 16.68 ms at C/2; 11.12 ms at 0.75 C (all X leaves) |
//! | 42 / 64 / 250 flows on a 1 Gb/s star, 1 Mb/s | 96.6 / 96.0 / 99.9 % | 97.3 / 96.5 / 99.9 % | 96.6 / 96.0 / 100 % |
//! | the same at 8 Mb/s | 68.0 / 51.4 % / stalls | 79.6 / 65.1 % / stalls | 67.2 / 51.2 % / stalls |
//!
//! On a k = 4 fat-tree (10 Gb/s, 100-packet buffers; web-search sizes, Poisson at 30 % and
//! 60 % load, 1 500 flows, seeds 3 and 5), mean slowdown (mean FCT) per configuration, and
//! with deadlines uniform in 2–20 ms the share of deadlines met. **Measured with drop-tail
//! host NICs** (before issue 32's item 1; `topology.host_nic = "droptail"` reproduces them —
//! checked for 1 Mb/s `adjusted` at 30 %, seed 3):
//!
//! | | 8 Mb/s, `link` (before issue 32) | 8 Mb/s, `link`, re-timed pacing | 1 Mb/s, `link` | 8 Mb/s, `adjusted` | 1 Mb/s, `adjusted` (default) |
//! |---|---|---|---|---|---|
//! | 30 %, seed 3 | 4.80 (4.58 ms) | 4.44 (4.58 ms) | 5.90 (4.63 ms) | 3.79 (4.38 ms) | 4.10 (4.42 ms) |
//! | 30 %, seed 5 | 4.05 (3.66 ms) | 3.86 (3.64 ms) | 6.41 (3.80 ms) | 3.46 (3.53 ms) | 3.87 (3.57 ms) |
//! | 60 %, seed 3 | 9.87 (9.68 ms) | 7.56 (9.54 ms) | 12.08 (9.84 ms) | 6.80 (9.07 ms) | 7.73 (9.19 ms) |
//! | 60 %, seed 5 | 9.45 (9.00 ms) | 7.43 (8.84 ms) | 7.74 (8.99 ms) | 6.51 (8.28 ms) | 8.12 (8.35 ms) |
//! | deadlines met, 40 % (seeds 3, 5) | — | 89.9, 91.1 % | 88.9, 89.0 % | — | 89.9, 90.7 % |
//! | deadlines met, 70 % (seeds 3, 5) | — | 82.8, 83.1 % | 80.2, 78.3 % | — | 84.3, 84.5 % |
//!
//! Re-measured with host NICs that push back (the default now): D3 is paced, but a host's
//! flows together can be handed more than its NIC (the adjusted capacity exceeds the link),
//! and the drop-tail NICs lost some of it (985 of 12 847 drops in the run checked). The same
//! runs (the first column's code is gone):
//!
//! | | 8 Mb/s, `link`, re-timed pacing | 1 Mb/s, `link` | 8 Mb/s, `adjusted` | 1 Mb/s, `adjusted` (default) |
//! |---|---|---|---|---|
//! | 30 %, seed 3 | 4.31 (4.52 ms) | 6.57 (4.69 ms) | 3.85 (4.35 ms) | 4.06 (4.35 ms) |
//! | 30 %, seed 5 | 3.85 (3.58 ms) | 6.65 (3.76 ms) | 3.39 (3.49 ms) | 3.92 (3.55 ms) |
//! | 60 %, seed 3 | 8.00 (9.53 ms) | 12.52 (9.79 ms) | 6.97 (9.09 ms) | 7.93 (9.18 ms) |
//! | 60 %, seed 5 | 7.41 (8.79 ms) | 9.83 (9.01 ms) | 6.77 (8.25 ms) | 7.90 (8.40 ms) |
//! | deadlines met, 40 % (seeds 3, 5) | 90.4, 91.3 % | 88.4, 89.1 % | — | 89.8, 90.1 % |
//! | deadlines met, 70 % (seeds 3, 5) | 83.1, 83.5 % | 80.2, 79.1 % | — | 84.5, 84.9 % |
//!
//! Against drop-tail NICs, mean FCTs moved by −1.6 % to +1.3 %, mean slowdowns by −3 % to
//! +6 %, except 1 Mb/s `link` (+4 % to +27 %, 7.74 → 9.83 at 60 %, seed 5), and deadlines met
//! by −0.6 to +0.8 points. No run drops at a host NIC any more.
//!
//! The adjustment now helps in all eight runs without deadlines (with drop-tail NICs seven:
//! not 1 Mb/s at 60 %, seed 5, 8.12 against 7.74), and with deadlines (against `link` at the
//! same unit; the default still meets 0.6–1.2 points fewer than 8 Mb/s `link` at 40 %). The
//! 1 Mb/s unit costs some of it on this fat-tree (mean FCT 0–2 % longer, mean slowdown 5–17 %
//! higher than at 8 Mb/s; with drop-tail NICs about 1 % and 8–25 %): where 8 Mb/s units leave
//! a late flow at the base rate, asking again every RTT, 1 Mb/s units give it the few Mb/s
//! left, and it asks again only with its next data packet, milliseconds later (see the choices
//! below). It drops more packets than the raw link rate in seven of the eight pairs (data
//! behind protected requests in full buffers: 6 400–11 500 packets against 5 000–12 400 per
//! run; with drop-tail NICs 6 600–14 500 against 5 400–13 900).
//!
//! The adjustment can also hurt a deadline flow: two 1 MB flows with 1 ms deadlines into one
//! host, the second 10 µs later, without quenching. The first flow's handshake leaves the
//! link idle for an interval, the capacity rises to 10 992 units and the second flow takes
//! what the first leaves, then 2 628 at its next request; when the queue this builds brings
//! the capacity back to 10 000, the first flow finds 7 372 of its 8 340 left, and the greedy
//! split holds. It ends at 1.20 ms instead of 0.998 ms (`link`). With quenching (the default)
//! the second flow gives up first and both capacities meet the first one's deadline.
//!
//! ## Parameters (`[transport]` keys)
//!
//! | key | default | source |
//! |---|---|---|
//! | `mss_bytes`, `header_bytes` | 1460, 40 | as TCP; D3 adds [`HEADER_BYTES`] = 22 to every packet |
//! | `min_rto_us`, `initial_rto_us`, `max_rto_us` | as TCP | the paced core's loss recovery (`crate::protocols::paced`); an `initial_rto_us` set outside `[min_rto_us, max_rto_us]` is refused, as under TCP ([`crate::validate#rto-bounds`]) |
//! | `d3_quench` | true | §6.1.3 flow quenching (Aequitas `d3_flow.cpp` applies it too) |
//! | `d3_rate_unit_mbps` | 1 (the smallest whole number of Mb/s that holds the fastest link in 16 bits, where 1 does not) | the unit of every rate; a whole number of bit/s from 10⁻⁶ to 10⁶ Mb/s; a link of more than 65 534 units or less than one is refused (packet level) |
//! | `d3_capacity` | `adjusted` | `adjusted` (§4's adjustment, above) or `link` (the raw link rate) |
//! | `d3_alpha`, `d3_beta` | 0.1, 1 | `adjusted` only: the gains of the adjustment |
//! | `d3_interval_us` | the network's RTT | `adjusted` only: its update interval T, the base RTT of the longest path; 10 µs where no network is known |
//!
//! ## Choices where the sources are silent (or could not be checked)
//!
//! * **The header** ([`D3Header`], 22 bytes, also its wire size): an allocation vector of
//!   [`MAX_HOPS`] = 8 `u16` slots, the desired and previous desired rates (`u16` each), the
//!   index of the next hop and flags. The vector does double duty: the sender fills it with
//!   the allocations of its previous request, and the router at hop *i* reads slot *i* (the
//!   allocation *it* gave last time) before overwriting it with the new one. So each router
//!   returns exactly what it handed out, and A stays the sum of its own live allocations
//!   (Aequitas returns the path minimum instead, which lets A drift upwards at hops that gave
//!   more than the minimum). Eight slots cover a fat-tree path (6 egress ports, NIC included)
//!   and BCube(n, 3) (8); ports beyond the eighth hop do not take part (they forward the
//!   packet as a FIFO would, and set [`FLAG_LONG_PATH`]).
//! * **Where the router allocates**: when the request is offered to the port's queue, before
//!   admission ("first come" = first to reach the port). Aequitas allocates at dequeue; both
//!   serve requests in arrival order.
//! * **The capacity** is §4's adjusted one by default, the raw link rate under `link`
//!   (Aequitas' choice): *The capacity a router hands out* above.
//! * **`a = min(r + fs, left)`**: the rule as baselines.md gives it (Aequitas, "Snippet 1")
//!   hands out `r + fs` whenever `left > r`, even when that exceeds `left`; the cap keeps
//!   A ≤ C, so that rounding residues and flows holding an older, larger fair share never
//!   make the routers promise more than the link carries.
//! * **Base rate = allocation 0**, not counted in A (Aequitas). A flow at the base rate sends
//!   one header-only request per RTT.
//! * **A flow sending slower than one packet per RTT asks with its next data packet**, not
//!   every RTT by header-only request. Asking every RTT (as the paused do) lowered the mean
//!   slowdown on the k = 4 fat-tree above by 5–18 %, but adds a header packet per RTT per slow
//!   flow: at 1 Gb/s, 125 flows at 8 Mb/s then bring more than the link (data plus requests)
//!   and time out, and 250 flows at 1 Mb/s units carried 62–80 % of the link instead of
//!   99.9 %. Left as it was; a candidate for a key if an experiment needs it.
//! * **A new rate re-times the waiting packet** (`PacedCore::set_rate`): the next packet
//!   leaves its wire size at the new rate after the previous one, not at the rate that one
//!   left at. Before, a flow given more waited out the gap of its old rate — 12 ms per full
//!   packet at 1 Mb/s, 1.5 ms at 8 Mb/s — which on the fat-tree below made 1 Mb/s units
//!   worse than 8 Mb/s (mean slowdown 12.9 against 4.8 at 30 % load).
//! * **Desired rate** uses the bytes not yet acknowledged, with their packet headers (the
//!   rate is on the wire), over the time left to the deadline; 0 once quenching is off and
//!   the deadline has passed.
//! * **Quenching by uplink capacity**: the sender learns that its desired rate exceeds its
//!   uplink from the first router (its own NIC, hop 0), which sets [`FLAG_QUENCH`] in the
//!   request when `r > C`.
//! * **Never-lost control packets**: SYN, FIN and every request are
//!   [`Admission::Protected`](crate::protocols::agent::Admission::Protected) (a full queue
//!   strips a request's payload, never its header; Aequitas does the same), and so are the
//!   replies that carry a request's allocations back (the SYN-ACK, and the ACK that echoes a
//!   request): a sender that never learns an allocation can never return it. Only a failed
//!   link can still lose one; the counters of the routers it already crossed then keep its
//!   numbers (D3 has no per-flow state to repair them).
//! * **An aborted flow** (`workload.abort_at_deadline`) closes as a quenched one: its FIN
//!   returns the numbers of its last answered request. With a request in flight (the SYN, or
//!   one on a data packet) the routers have already taken back what the sender holds and
//!   handed out allocations that only the reply tells it, so the sender sends nothing more
//!   and its FIN waits for that reply (the engine keeps both endpoints until then); after a
//!   timeout without it (a failed link) the FIN goes with what the sender holds. Test
//!   `d3_aborted_before_its_syn_ack_returns_the_allocation_it_carries`: a FIN sent at once
//!   left a whole link allocated to a flow aborted before its SYN-ACK.
//! * **One request in flight, whatever the timer does**: a retransmission timeout with data
//!   outstanding sends no new request (the one in flight was not lost). A second one would
//!   stay in flight for good, each returning the allocations the other's reply brought, and
//!   the FIN would return only one of them. A paused flow (base rate, nothing in flight)
//!   whose header-only request goes unanswered for a whole RTO asks again, so that a request
//!   lost with a failed link cannot hang it. (Before both rules, losses of SYN-ACKs and
//!   timeouts on a lossy fat-tree left routers holding whole links for good, and the flows
//!   behind them at the base rate for ever: test `no_flow_hangs_on_a_lossy_fat_tree`.)
//! * **Every packet carries the D3 header** on the wire (22 B), requests or not, so that a
//!   full data packet is 1522 B by default.
//!
//! ## Small buffers
//!
//! D3 allocates rates, not buffer: its control packets are protected and its header-only
//! requests of paused flows are not counted in A. With buffers of a few packets these fill the
//! queue, and the requests that ride data packets lose their payload to it. 47 senders of
//! 256 KB into one host of a 10 Gb/s star: with 100-packet buffers every flow ends at its
//! fair share (10.06 ms, no loss; 10.25 ms with 8 Mb/s units and the raw link rate); with
//! 12-packet buffers the mean FCT is 10.3 ms and the last 11.3 ms, with one packet dropped
//! but 46 timeouts and up to 109 retransmissions of a 176-packet flow, all of stripped
//! payloads (at 1/47 of the link a flow sends less than a packet per RTT, so each of its data
//! packets carries a request). With 8 Mb/s units and the raw link rate, as before issue 32:
//! mean 26.2 ms, last 63.5 ms, 162 timeouts, up to 528 retransmissions.

mod sender;
mod switch;
#[cfg(test)]
mod tests;

pub use sender::D3Sender;
pub use switch::{adjusted_capacity, D3Switch, MAX_CAPACITY_FACTOR};

use crate::error::{ConfigError, ConfigResult};
use crate::net::header::{Reader, WireHeader, Writer};
use crate::net::network::Network;
use crate::net::queue::Discipline;
use crate::net::scale::PathScale;
use crate::protocols::tcp::rto_bounds;
use crate::protocols::tcp::TcpReceiver;
use crate::protocols::{Caps, FlowMemory, FlowSetup, FluidPolicy, Protocol};
use crate::units::{Rate, Time};
use crate::validate::{choice, micros_or, number_in};

/// Slots of the allocation vector: the longest path (in egress ports) D3 manages in full.
pub const MAX_HOPS: usize = 8;
/// Wire bytes of D3's header: 8 allocations, desired and previous desired rate (2 B each),
/// hop index and flags (1 B each).
pub const HEADER_BYTES: u32 = 22;
/// The default unit of every D3 rate, Mb/s (module doc).
pub const DEFAULT_RATE_UNIT_MBPS: f64 = 1.0;
/// The largest link rate, in units, a port may have: the 16-bit rate fields hold up to
/// 65 535, and a desired rate that saturates them must still exceed every uplink for the
/// quench test (`desired > C` at hop 0).
pub const MAX_LINK_UNITS: u64 = u16::MAX as u64 - 1;
/// The coarsest unit accepted: 1 Tb/s.
const MAX_RATE_UNIT_MBPS: f64 = 1e6;
/// `d3_capacity = "adjusted"`: α and β, RCP's published gains (D3 borrows RCP's law).
pub const DEFAULT_ALPHA: f64 = 0.1;
pub const DEFAULT_BETA: f64 = 1.0;
/// The update interval where no network is known (unit tests of the endpoints).
const FALLBACK_INTERVAL_US: f64 = 10.0;

/// The packet carries a rate request (SYN, first data packet of an RTT, header-only request).
pub const FLAG_REQUEST: u8 = 1;
/// Set by hop 0 (the sender's own NIC) when the desired rate exceeds its capacity.
pub const FLAG_QUENCH: u8 = 2;
/// A header-only request (no payload was ever attached).
pub const FLAG_HEADER_ONLY: u8 = 4;
/// The path has more than [`MAX_HOPS`] egress ports: the ports beyond took no part.
pub const FLAG_LONG_PATH: u8 = 8;

crate::protocols::transport_keys! {
    /// The `[transport]` keys `d3` reads (module doc); any other is refused.
    pub struct D3Config uses [segment, rto] {
        /// Terminate deadline flows that can no longer meet their deadline.
        pub d3_quench: Option<bool>,
        /// The unit of every rate in its header and router counters, Mb/s.
        pub d3_rate_unit_mbps: Option<f64>,
        /// The capacity a router hands out: `adjusted` (the paper's C, adjusted every interval
        /// from utilisation and queue) or `link` (the raw link rate).
        pub d3_capacity: Option<String>,
        /// `adjusted`: gain on spare capacity, gain on the queue, and the update interval.
        pub d3_alpha: Option<f64>,
        pub d3_beta: Option<f64>,
        pub d3_interval_us: Option<f64>,
    }
}

/// D3's header fields. Rates in units of `d3_rate_unit_mbps` ([`D3Params::unit_bps`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct D3Header {
    /// Sender → router: the allocations of the previous request, by hop. Router → sender: the
    /// allocations of this request, by hop (slots `0..hop`).
    pub alloc: [u16; MAX_HOPS],
    /// r: the rate wanted for the next RTT (0 without a deadline).
    pub desired: u16,
    /// The desired rate of the previous request, for the routers to return.
    pub prev_desired: u16,
    /// Index of the next hop's slot: routers increment it.
    pub hop: u8,
    pub flags: u8,
}

impl WireHeader for D3Header {
    const TAG: u8 = 2;
    #[inline(always)]
    fn pack(&self, to: &mut Writer) {
        self.alloc.iter().for_each(|&a| to.u16(a));
        to.u16(self.desired);
        to.u16(self.prev_desired);
        to.u8(self.hop);
        to.u8(self.flags);
    }
    #[inline(always)]
    fn unpack(from: &mut Reader) -> Self {
        D3Header {
            alloc: std::array::from_fn(|_| from.u16()),
            desired: from.u16(),
            prev_desired: from.u16(),
            hop: from.u8(),
            flags: from.u8(),
        }
    }
}

impl D3Header {
    pub fn has(&self, flag: u8) -> bool {
        self.flags & flag != 0
    }

    /// The smallest allocation on the path (what the sender may send at).
    pub fn path_minimum(&self) -> u16 {
        let hops = (self.hop as usize).min(MAX_HOPS);
        self.alloc[..hops].iter().copied().min().unwrap_or(0)
    }
}

/// A D3 rate of `units` units of `unit_bps` bit/s as a [`Rate`] (exact: at most
/// 65 535 × 10¹² bit/s).
pub fn rate_of(units: u16, unit_bps: u64) -> Rate {
    Rate(units as u64 * unit_bps)
}

/// A link rate in whole units of `unit_bps` bit/s, rounded down.
pub fn units_of(rate: Rate, unit_bps: u64) -> u64 {
    rate.bits_per_sec() / unit_bps
}

/// The capacity a router hands out (`d3_capacity`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Capacity {
    /// `adjusted` (the default): the paper's C, moved every `interval` by
    /// `α·(C_link − u) − β·q/interval` from the rate u the port sent at and its queue q, in
    /// [C_link, 2·C_link]; no allocation beyond the previous router's (module doc).
    Adjusted {
        alpha: f64,
        beta: f64,
        interval: Time,
    },
    /// `link`: the raw link rate, and each router allocates on its own (the behaviour before
    /// issue 32).
    Link,
}

#[derive(Clone, Debug, PartialEq)]
pub struct D3Params {
    pub mss: u32,
    /// Base header bytes (without D3's own [`HEADER_BYTES`]).
    pub header: u32,
    pub quench: bool,
    /// The unit of every rate in the header and the router counters, bit/s.
    pub unit_bps: u64,
    pub capacity: Capacity,
    pub min_rto: Time,
    pub initial_rto: Time,
    pub max_rto: Time,
}

/// `d3_rate_unit_mbps` as a whole number of bit/s, or the error naming the key.
fn unit_bps(cfg: &D3Config) -> ConfigResult<u64> {
    let mbps = cfg.d3_rate_unit_mbps.unwrap_or(DEFAULT_RATE_UNIT_MBPS);
    let bps = mbps * 1e6;
    let whole = bps.round();
    if !(mbps.is_finite() && (1.0..=MAX_RATE_UNIT_MBPS * 1e6).contains(&whole))
        || (bps - whole).abs() > 1e-6 * whole
    {
        return Err(ConfigError::new(
            "transport.d3_rate_unit_mbps",
            format!(
                "must be a whole number of bit/s from 0.000001 to {MAX_RATE_UNIT_MBPS} Mb/s \
                 (got {mbps})"
            ),
        ));
    }
    Ok(whole as u64)
}

/// The capacity mode and its gains; the gains only under `adjusted`.
fn capacity(cfg: &D3Config) -> ConfigResult<Capacity> {
    let adjusted = choice(
        "transport.d3_capacity",
        "capacity",
        cfg.d3_capacity.as_deref(),
        &[("adjusted", true), ("link", false)],
    )?;
    if !adjusted {
        for (key, set) in [
            ("d3_alpha", cfg.d3_alpha.is_some()),
            ("d3_beta", cfg.d3_beta.is_some()),
            ("d3_interval_us", cfg.d3_interval_us.is_some()),
        ] {
            if set {
                return Err(ConfigError::new(
                    format!("transport.{key}"),
                    "only for d3_capacity = \"adjusted\" (the raw link rate is not adjusted)",
                ));
            }
        }
        return Ok(Capacity::Link);
    }
    Ok(Capacity::Adjusted {
        alpha: number_in("transport.d3_alpha", cfg.d3_alpha, DEFAULT_ALPHA, 0.0, 10.0)?,
        beta: number_in("transport.d3_beta", cfg.d3_beta, DEFAULT_BETA, 0.0, 10.0)?,
        interval: micros_or(
            "transport.d3_interval_us",
            cfg.d3_interval_us,
            FALLBACK_INTERVAL_US,
        )?,
    })
}

impl Protocol for D3Params {
    const HEADER_TAGS: &'static [u8] = &[D3Header::TAG];
    const NAMES: &'static [(&'static str, &'static str)] = &[(
        "d3",
        "D3 (Wilson et al., SIGCOMM 2011): per-RTT rate requests, greedy FCFS allocation in bytes/us",
    )];
    type Sender = D3Sender;
    /// TCP's cumulative-ACK receiver, whose replies carry D3's header.
    type Receiver = TcpReceiver;
    type Agent = D3Switch;

    type Config = D3Config;

    fn from_config(_protocol: &str, cfg: &D3Config) -> ConfigResult<D3Params> {
        let (mss, header) = crate::protocols::segment_sizes(cfg.mss_bytes, cfg.header_bytes)?;
        let rto = rto_bounds(cfg.min_rto_us, cfg.initial_rto_us, cfg.max_rto_us)?;
        Ok(D3Params {
            mss,
            header,
            quench: cfg.d3_quench.unwrap_or(true),
            unit_bps: unit_bps(cfg)?,
            capacity: capacity(cfg)?,
            min_rto: rto.min,
            initial_rto: rto.initial,
            max_rto: rto.max,
        })
    }

    fn caps(&self) -> Caps {
        Caps {
            data_packet_sizes: (self.mss, self.header + HEADER_BYTES),
            discipline: Discipline::Fifo,
            default_buffer_pkts: None,
            uses_ecn: false,
            keeps_state_along_its_path: true,
            derives_defaults_from_network: true,
            memory: FlowMemory::WHILE_SENDING,
            fluid: FluidPolicy::D3 {
                quench: self.quench,
                unit_bps: self.unit_bps,
            },
        }
    }

    /// The rate unit comes from the fastest port, connected hosts or not.
    fn network_defaults(&self, cfg: &mut D3Config, scale: Option<&PathScale>, net: &Network) {
        let fastest = net.ports.iter().map(|p| p.rate).max().unwrap_or_default();
        network_defaults(cfg, scale, fastest);
    }

    /// Refuses a network some link of which the unit cannot express: faster than
    /// [`MAX_LINK_UNITS`] units (the 16-bit header fields), or slower than one unit (it could
    /// never allocate anything). `rates`: every port's rate.
    fn check_link_rates(&self, rates: &mut dyn Iterator<Item = Rate>) -> ConfigResult<()> {
        let unit = format!("{} Mb/s", self.unit_bps as f64 / 1e6);
        for rate in rates {
            let units = units_of(rate, self.unit_bps);
            if units > MAX_LINK_UNITS {
                return Err(ConfigError::new(
                    "transport.d3_rate_unit_mbps",
                    format!(
                        "a {rate} link is {units} units of {unit}, more than D3's 16-bit rate \
                         fields hold ({MAX_LINK_UNITS}); set a unit of at least {} Mb/s",
                        rate.bits_per_sec().div_ceil(MAX_LINK_UNITS) as f64 / 1e6
                    ),
                ));
            }
            if units == 0 {
                return Err(ConfigError::new(
                    "transport.d3_rate_unit_mbps",
                    format!(
                        "a {rate} link is less than one unit of {unit}: it could allocate nothing"
                    ),
                ));
            }
        }
        Ok(())
    }

    fn new_sender(&self, flow: &FlowSetup, _nic_rate: Rate) -> D3Sender {
        D3Sender::new(self, flow)
    }

    fn new_receiver(&self, flow: &FlowSetup) -> TcpReceiver {
        TcpReceiver::with_header_bytes(self.header + HEADER_BYTES, flow)
    }

    fn new_agent(&self, net: &Network, _memr: bool) -> Option<D3Switch> {
        Some(D3Switch::new(self, net))
    }
}

/// Fills what the scenario leaves unset from the network: the unit is 1 Mb/s, or, where the
/// fastest link `fastest` has more than [`MAX_LINK_UNITS`] of those, the smallest whole number
/// of Mb/s that holds it; under `adjusted` capacity, α = 0.1, β = 1 and the interval the base
/// RTT of the network's longest path (`scale`, when two hosts are connected). The values used
/// are shown in `scenario.json`.
pub fn network_defaults(cfg: &mut D3Config, scale: Option<&PathScale>, fastest: Rate) {
    cfg.d3_rate_unit_mbps.get_or_insert_with(|| {
        let mbps = fastest.bits_per_sec().div_ceil(MAX_LINK_UNITS * 1_000_000);
        mbps.max(1) as f64
    });
    if matches!(cfg.d3_capacity.as_deref(), None | Some("adjusted")) {
        cfg.d3_alpha.get_or_insert(DEFAULT_ALPHA);
        cfg.d3_beta.get_or_insert(DEFAULT_BETA);
        if let Some(scale) = scale {
            cfg.d3_interval_us
                .get_or_insert_with(|| scale.rtt.as_us_rounded_to_ns());
        }
    }
}
