//! The one list of path choices (`routing.lb`): each entry's name, [`LbKind`] variant,
//! `[routing]` keys, whether it keeps a flow on one path, and its `dcnsim list` line. Adding a
//! path choice is its file, one entry here, and its arms in [`super::PathChoice`] and in
//! [`super::LbParams`] where its behaviour differs (state, topology).

use super::RoutingConfig;

/// Generates [`LbKind`], its lookups both ways, the keys each kind reads and
/// [`PATH_CHOICES`] from one list, so that they cannot disagree.
macro_rules! path_choices {
    ($(
        $(#[$doc:meta])*
        $kind:ident = $name:literal {
            keys: [$($key:ident),* $(,)?],
            one_path_per_flow: $one_path:literal,
            about: $about:literal $(,)?
        }
    )*) => {
        /// Which path choice (`routing.lb`).
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum LbKind {
            $($(#[$doc])* $kind,)*
        }

        impl LbKind {
            /// Every path choice, in the catalogue's order.
            pub const ALL: &'static [LbKind] = &[$(LbKind::$kind),*];

            /// Its `routing.lb` value.
            pub fn name(self) -> &'static str {
                match self {
                    $(LbKind::$kind => $name,)*
                }
            }

            /// The path choice whose `routing.lb` value is `name`.
            pub fn from_name(name: &str) -> Option<LbKind> {
                match name {
                    $($name => Some(LbKind::$kind),)*
                    _ => None,
                }
            }

            /// The `[routing]` keys it reads besides `reroute_delay_us`; any other set with
            /// it is refused (by the catalogue's `check_keys`).
            pub fn keys(self) -> &'static [&'static str] {
                match self {
                    $(LbKind::$kind => &[$(stringify!($key)),*],)*
                }
            }

            /// Whether every packet of a flow (of a subflow, for M-PDQ) takes one path.
            pub fn keeps_a_flow_on_one_path(self) -> bool {
                match self {
                    $(LbKind::$kind => $one_path,)*
                }
            }
        }

        /// Every path choice with its line for `dcnsim list` (and the error of an unknown one).
        pub const PATH_CHOICES: &[(&str, &str)] = &[$(($name, $about)),*];

        // The same keys, as the checks of the one reader of kind-tagged tables: a key that
        // is not a field of `RoutingConfig` does not compile.
        crate::tagged::variant_keys! {
            /// Checks that `cfg` sets only keys of its path choice (every one takes
            /// `reroute_delay_us`); `None` for an unknown one.
            pub(super) fn check_keys(RoutingConfig, tag lb) common [reroute_delay_us] {
                $($kind = $name [$($key),*],)*
            }
        }
    };
}

path_choices! {
    Ecmp = "ecmp" {
        keys: [],
        one_path_per_flow: true,
        about: "per-flow hash-threshold ECMP (RFC 2992) with a per-switch hash seed",
    }
    Rps = "rps" {
        keys: [],
        one_path_per_flow: false,
        about: "random packet spraying (Dixit et al., INFOCOM 2013): uniform random next hop per packet",
    }
    Drb = "drb" {
        keys: [reorder_timeout_us],
        one_path_per_flow: false,
        about: "digit-reversal bouncing (Cao et al., CoNEXT 2013) with receiver resequencing",
    }
    Presto = "presto" {
        keys: [flowcell_bytes, reorder_timeout_us],
        one_path_per_flow: false,
        about: "64 KB flowcells round-robin at the sender's edge (He et al., SIGCOMM 2015) + receiver GRO buffer",
    }
    LetFlow = "letflow" {
        keys: [flowlet_gap_us],
        one_path_per_flow: false,
        about: "random path per flowlet (Vanini et al., NSDI 2017), gap 500 us",
    }
    Conga = "conga" {
        keys: [flowlet_gap_us, conga_tau_us, conga_metric_bits, conga_aging_us],
        one_path_per_flow: false,
        about: "congestion-aware flowlets from leaf-to-leaf feedback (Alizadeh et al., SIGCOMM 2014)",
    }
    Drill = "drill" {
        keys: [drill_samples, drill_memory],
        one_path_per_flow: false,
        about: "per-packet power of two choices over local queues with memory (Ghorbani et al., SIGCOMM 2017)",
    }
    Tr = "tr" {
        keys: [tr_long_bytes, tr_queue_bits, tr_inactive_us, tr_ack_path],
        one_path_per_flow: false,
        about: "traffic-aware rerouting (Zhang et al., JCC 2021): per packet at the source leaf, no reordering by Time to Next Leaf; short flows fastest, long flows away from short ones (leaf-spine only)",
    }
    BcubePaths = "bcube_paths" {
        keys: [],
        one_path_per_flow: true,
        about: "BCube only: per-flow hash onto BuildPathSet's k+1 parallel paths (Guo et al., SIGCOMM 2009), shortest or not",
    }
    /// MERP's route control: the MERP switch agent routes MERP packets; the rest go by ECMP.
    Memr = "memr" {
        keys: [],
        one_path_per_flow: true,
        about: "MERP only: MEMR route control (MERP §5): at a SYN each switch takes the next hop of least expansion ratio, then highest tail rate; pinned per flow",
    }
}
