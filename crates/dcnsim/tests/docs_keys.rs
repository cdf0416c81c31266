//! No scenario key can go undocumented: every key the scenario parser accepts is a row of its
//! table's section in `docs/scenarios.md`, and every value of a kind-tagged key (protocol,
//! topology kind, workload kind, size distribution, path choice) is named on its page.
//!
//! The convention of `docs/scenarios.md`: a table's keys are documented under a `## ` heading
//! that names the table (`## [topology]`); each key is a table row of its own that starts
//! with the key in backticks: `` | `link_gbps` | 10 | Gb/s | ... ``. Sub-tables (a
//! `[[topology.link_overrides]]` entry, a `sizes` or `deadline` table) are rows of their
//! parent's section.

use dcnsim::config::{FailureConfig, OutputConfig, RoutingConfig, Scenario};
use dcnsim::protocols::{TransportConfig, TransportKeys, PROTOCOLS};
use dcnsim::tagged::field_names;
use dcnsim::topo::{LinkOverride, TopologyConfig, TOPOLOGIES};
use dcnsim::workload::{size_distributions, DeadlineSpec, SizeTable, WorkloadConfig, WORKLOADS};
use std::collections::BTreeMap;
use std::path::Path;

/// Every key the parser accepts, by the `## ` heading of its section in `docs/scenarios.md`.
/// The one place that lists keys from the code: adapt it when a table's keys move.
fn scenario_keys() -> Vec<(&'static str, Vec<String>)> {
    let names = |k: &[&str]| k.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let mut topology = names(field_names::<TopologyConfig>());
    topology.extend(names(field_names::<LinkOverride>()));
    let mut transport = vec!["protocol".to_string()];
    for &(protocol, _) in PROTOCOLS {
        let keys = TransportKeys::read(&TransportConfig::from_keys(protocol, &[]))
            .expect("an empty [transport] table reads under every protocol");
        transport.extend(names(keys.valid_keys()));
    }
    let mut workload = names(field_names::<WorkloadConfig>());
    workload.extend(names(field_names::<SizeTable>()));
    workload.extend(names(field_names::<DeadlineSpec>()));
    let mut all = vec![
        ("Top level", names(field_names::<Scenario>())),
        ("[topology]", topology),
        ("[transport]", transport),
        ("[routing]", names(field_names::<RoutingConfig>())),
        ("[workload]", workload),
        ("[output]", names(field_names::<OutputConfig>())),
        ("[[failures]]", names(field_names::<FailureConfig>())),
    ];
    for (_, keys) in &mut all {
        keys.sort();
        keys.dedup();
        assert!(!keys.is_empty(), "no keys read from the code");
    }
    all
}

/// The values of the kind-tagged keys, each with the page that must name it.
fn tag_values() -> Vec<(&'static str, &'static str, Vec<&'static str>)> {
    let first = |list: &[(&'static str, &'static str)]| list.iter().map(|p| p.0).collect();
    vec![
        ("scenarios.md", "transport.protocol", first(PROTOCOLS)),
        ("scenarios.md", "topology.kind", first(TOPOLOGIES)),
        ("scenarios.md", "workload.kind", first(WORKLOADS)),
        (
            "scenarios.md",
            "workload.sizes",
            first(size_distributions()),
        ),
        (
            "path-choices.md",
            "routing.lb",
            first(dcnsim::lb::PATH_CHOICES),
        ),
    ]
}

fn page(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../docs")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The sections of a page by their `## ` heading (without the hashes), each its lines.
fn sections(text: &str) -> BTreeMap<String, Vec<&str>> {
    let mut out: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    let mut current = String::new();
    for line in text.lines() {
        if let Some(h) = line.strip_prefix("## ") {
            current = h.trim().to_string();
        }
        out.entry(current.clone()).or_default().push(line);
    }
    out
}

/// Whether `key` has a table row of its own among `lines`.
fn has_row(lines: &[&str], key: &str) -> bool {
    let row = format!("| `{key}`");
    lines.iter().any(|l| l.trim_start().starts_with(&row))
}

#[test]
fn every_scenario_key_is_a_row_of_its_section_in_scenarios_md() {
    let text = page("scenarios.md");
    let by_heading = sections(&text);
    let mut missing = Vec::new();
    for (heading, keys) in scenario_keys() {
        let Some(lines) = by_heading.get(heading) else {
            missing.push(format!("the section `## {heading}` itself"));
            continue;
        };
        for key in keys {
            if !has_row(lines, &key) {
                missing.push(format!("{heading}: `{key}`"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "docs/scenarios.md does not document (as a row `| `key` | ...` under its `## ` \
         heading):\n  {}",
        missing.join("\n  ")
    );
}

#[test]
fn every_value_of_a_tag_key_is_named_on_its_page() {
    let mut missing = Vec::new();
    for (name, key, values) in tag_values() {
        let text = page(name);
        for v in values {
            if !text.contains(&format!("`{v}`")) {
                missing.push(format!("{name}: {key} = `{v}`"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "not documented:\n  {}",
        missing.join("\n  ")
    );
}

/// The section parser and the row rule, on a page of two sections.
#[test]
fn a_key_counts_only_as_a_row_of_its_own_section() {
    let text = "# t\n## [a]\n| `x` | 1 |\n`y` in a sentence\n## [b]\n| `y` | 2 |\n";
    let s = sections(text);
    assert!(has_row(&s["[a]"], "x"));
    assert!(!has_row(&s["[a]"], "y"));
    assert!(has_row(&s["[b]"], "y"));
}
