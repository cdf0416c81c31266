//! Which keys each `[topology]` kind takes, declared once per kind; the keys of the module
//! table ("Keys common to every kind") are every kind's. A key of another kind is refused by
//! [`crate::tagged::read`], naming it, listing the kind's keys and the kinds it is for.

use super::TopologyConfig;

crate::tagged::variant_keys! {
    /// Checks that `cfg` sets only keys of its kind; `None` for an unknown kind.
    pub(super) fn check(TopologyConfig, tag kind) common [
        link_gbps,
        link_delay_us,
        buffer_pkts,
        buffer_kb,
        ecn_k_pkts,
        host_nic,
        link_overrides,
    ] {
        StarKeys = "star" [hosts],
        DumbbellKeys = "dumbbell" [senders, receivers, bottleneck_gbps],
        TreeKeys = "tree" [tors, hosts_per_tor, core_gbps],
        FattreeKeys = "fattree" [k, agg_gbps, core_gbps],
        LeafspineKeys = "leafspine" [leaves, spines, hosts_per_leaf, spine_gbps],
        ParkinglotKeys = "parkinglot" [
            forwarders,
            hosts_per_group,
            receivers,
            cross_receivers,
            bottleneck_gbps,
        ],
        BcubeKeys = "bcube" [n, k],
        JellyfishKeys = "jellyfish" [switches, ports_per_switch, hosts_per_switch],
        FileKeys = "file" [file],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tagged::field_names;

    /// Every kind of the catalogue has its keys declared, and every key of the table is a
    /// key of some kind (or of all).
    #[test]
    fn every_kind_and_every_key_is_declared() {
        for (kind, _) in super::super::TOPOLOGIES {
            let cfg = TopologyConfig::of_kind(kind);
            assert!(matches!(check(&cfg, "topology"), Some(Ok(()))), "{kind}");
        }
        // StarKeys: the common keys and `hosts`, whose kind `variants_taking` names.
        let common = field_names::<StarKeys>();
        for key in field_names::<TopologyConfig>() {
            assert!(
                *key == "kind" || common.contains(key) || !variants_taking(key).is_empty(),
                "{key} is a key of no kind"
            );
        }
    }
}
