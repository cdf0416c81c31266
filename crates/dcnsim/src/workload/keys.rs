//! Which keys each kind of `[workload]`, each size `dist` and each deadline `dist` takes,
//! declared once per variant (see the module doc of [`super`] for their meaning and
//! defaults). A key of another variant is refused by [`crate::tagged::read`], naming it,
//! listing the variant's keys and the variants it is for.

/// The kinds of `[workload]`; every kind takes the deadline, the weight and the abort rule.
pub(super) mod kind {
    use crate::workload::WorkloadConfig;

    crate::tagged::variant_keys! {
        /// Checks that `cfg` sets only keys of its kind; `None` for an unknown kind.
        pub(in crate::workload) fn check(WorkloadConfig, tag kind)
            common [deadline, weight, abort_at_deadline]
        {
            PoissonKeys = "poisson" [sizes, load, flows, pattern, src_group, dst_group, start_s],
            FlowsKeys = "flows" [file],
            IncastKeys = "incast" [sizes, senders, receiver, start_s, rounds, interval_s],
            PermutationKeys = "permutation" [sizes, start_s],
        }
    }
}

/// The `dist`s of a `sizes` table; every `*_kb` key has its `*_bytes` twin.
pub(super) mod size_dist {
    use crate::workload::SizeTable;

    crate::tagged::variant_keys! {
        /// Checks that `table` sets only keys of its `dist`; `None` for an unknown one.
        pub(in crate::workload) fn check(SizeTable, tag dist) common [] {
            ParetoKeys = "pareto" [mean_kb, mean_bytes, shape, max_kb, max_bytes],
            ExponentialKeys = "exponential" [mean_kb, mean_bytes],
            UniformKeys = "uniform" [min_kb, min_bytes, max_kb, max_bytes],
            FixedKeys = "fixed" [kb, bytes],
            CdfKeys = "cdf" [file],
        }
    }
}

/// The `dist`s of a `deadline` table.
pub(super) mod deadline_dist {
    use crate::workload::DeadlineSpec;

    crate::tagged::variant_keys! {
        /// Checks that `spec` sets only keys of its `dist`; `None` for an unknown one.
        pub(in crate::workload) fn check(DeadlineSpec, tag dist) common [] {
            FixedKeys = "fixed" [ms],
            UniformKeys = "uniform" [min_ms, max_ms],
            ExponentialKeys = "exponential" [mean_ms, min_ms],
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::tagged::field_names;
    use crate::workload::{DeadlineSpec, SizeTable, WorkloadConfig, WORKLOADS};

    /// Every kind of the catalogue has its keys declared, and every key of each table is a key
    /// of some variant (or of all).
    #[test]
    fn every_kind_and_every_key_is_declared() {
        for (kind, _) in WORKLOADS {
            let cfg = WorkloadConfig {
                kind: kind.to_string(),
                ..WorkloadConfig::default()
            };
            assert!(
                matches!(super::kind::check(&cfg, "w"), Some(Ok(()))),
                "{kind}"
            );
        }
        // `size`: serde lists the alias of `sizes` among the fields; the table writes `sizes`.
        let common = ["kind", "size", "deadline", "weight", "abort_at_deadline"];
        for key in field_names::<WorkloadConfig>() {
            let declared = common.contains(key) || !super::kind::variants_taking(key).is_empty();
            assert!(declared, "workload.{key} is a key of no kind");
        }
        for key in field_names::<SizeTable>() {
            let declared = *key == "dist" || !super::size_dist::variants_taking(key).is_empty();
            assert!(declared, "sizes.{key} is a key of no dist");
        }
        for key in field_names::<DeadlineSpec>() {
            let declared = *key == "dist" || !super::deadline_dist::variants_taking(key).is_empty();
            assert!(declared, "deadline.{key} is a key of no dist");
        }
    }
}
