//! A topology read from a plain-text file (`kind = "file"`, `file = "net.topo"`, the path
//! relative to the scenario's folder), for layouts no builder makes.
//!
//! ```text
//! # two racks joined by two switches
//! host h0
//! host h1
//! switch tor0
//! switch tor1
//! link h0 tor0                      # link_gbps, link_delay_us, buffer of [topology]
//! link h1 tor1 gbps=10 delay_us=1
//! link tor0 tor1 gbps=40 delay_us=2.5 buffer_pkts=200 ecn_k_pkts=65
//! ```
//!
//! - One statement per line; `#` starts a comment; blank lines are ignored.
//! - `host NAME` and `switch NAME` declare a node. Names are unique, contain no `=`, and a
//!   node is declared before a link uses it. Host ids follow the order of the `host` lines.
//! - `link A B [gbps=G] [delay_us=D] [buffer_pkts=P | buffer_kb=K] [ecn_k_pkts=N]` joins two
//!   different nodes, full duplex, same values both ways. Omitted values come from
//!   `[topology]` (`link_gbps`, `link_delay_us`, `buffer_pkts`/`buffer_kb`, `ecn_k_pkts`,
//!   which defaults to the transport's marking threshold). At most one link per pair of
//!   nodes, so a failure named by its two ends is never ambiguous.
//! - A host may have several links (server-centric layouts such as BCube need that).
//! - Every node must be reachable from every other.
//!
//! Racks group hosts by the switch at the other end of their first link (hosts whose first
//! link goes to another host form a rack of their own), ordered by their first host.
//! Errors name the file and line (`net.topo line 7`) and what was expected there.

use super::builder::{Builder, LinkParams};
use super::check;
use super::generated::Built;
use super::{NodeKind, TopologyConfig};
use crate::error::{ConfigError, ConfigResult};
use std::collections::HashMap;
use std::path::Path;

pub(super) fn build(cfg: &TopologyConfig, base_dir: &Path, p: &LinkParams) -> ConfigResult<Built> {
    let name = cfg.file.as_deref().ok_or_else(|| {
        ConfigError::new(
            "topology.file",
            "kind = \"file\" needs file = \"path/to/net.topo\" (relative to the scenario)",
        )
    })?;
    let text = crate::error::read_text_file(&base_dir.join(name), "topology.file", name)?;
    let b = parse(&text, name, p)?;
    Ok((b, format!("file {name}")))
}

/// Parses the text of a topology file; `name` is used in error paths.
pub(super) fn parse(text: &str, name: &str, defaults: &LinkParams) -> ConfigResult<Builder> {
    let mut b = Builder::new();
    // Line of each node's declaration and of each pair's link, for "already on line N".
    let mut declared: Vec<usize> = Vec::new();
    let mut linked: HashMap<(usize, usize), usize> = HashMap::new();
    for (i, raw) in text.lines().enumerate() {
        let line_no = i + 1;
        let at = || format!("{name} line {line_no}");
        let line = raw.split('#').next().unwrap_or("");
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some((&first, args)) = words.split_first() else {
            continue;
        };
        match first {
            "host" | "switch" => {
                let [node] = args else {
                    return Err(ConfigError::new(
                        at(),
                        format!(
                            "expected '{first} NAME' (one name), got {} words after '{first}'",
                            args.len()
                        ),
                    ));
                };
                if node.contains('=') {
                    return Err(ConfigError::new(
                        at(),
                        format!("'{node}' is not a valid name: names cannot contain '='"),
                    ));
                }
                let kind = if first == "host" {
                    NodeKind::Host
                } else {
                    NodeKind::Switch
                };
                if let Err(old) = b.try_add(kind, node) {
                    return Err(ConfigError::new(
                        at(),
                        format!(
                            "duplicate name '{node}', already declared on line {}",
                            declared[old]
                        ),
                    ));
                }
                declared.push(line_no);
            }
            "link" => {
                if args.len() < 2 || args[0].contains('=') || args[1].contains('=') {
                    return Err(ConfigError::new(
                        at(),
                        "expected 'link A B [gbps=G] [delay_us=D] [buffer_pkts=P | buffer_kb=K]'",
                    ));
                }
                let mut ends = [0usize; 2];
                for (end, node) in ends.iter_mut().zip(&args[..2]) {
                    *end = b.index_of(node).ok_or_else(|| {
                        ConfigError::new(
                            at(),
                            format!("unknown node '{node}'; declare it with 'host {node}' or 'switch {node}' on an earlier line"),
                        )
                    })?;
                }
                if ends[0] == ends[1] {
                    return Err(ConfigError::new(
                        at(),
                        format!(
                            "link from '{}' to itself; a link joins two different nodes",
                            args[0]
                        ),
                    ));
                }
                let pair = (ends[0].min(ends[1]), ends[0].max(ends[1]));
                if let Some(old) = linked.insert(pair, line_no) {
                    return Err(ConfigError::new(
                        at(),
                        format!(
                            "'{}' and '{}' are already linked on line {old}; give one link per pair",
                            args[0], args[1]
                        ),
                    ));
                }
                let params = link_params(&args[2..], defaults, &at())?;
                b.link_on_line(ends[0], ends[1], params, line_no as u32);
            }
            other => {
                return Err(ConfigError::new(
                    at(),
                    format!("unknown statement '{other}'; expected host, switch or link"),
                ))
            }
        }
    }
    if b.host_nodes().is_empty() {
        return Err(ConfigError::new(
            name,
            "declares no host; add at least one 'host NAME' line",
        ));
    }
    racks(&mut b);
    Ok(b)
}

/// Reads the `key=value` words of a link line.
fn link_params(words: &[&str], defaults: &LinkParams, at: &str) -> ConfigResult<LinkParams> {
    let mut p = *defaults;
    let mut seen: Vec<&str> = Vec::new();
    for w in words {
        let Some((key, value)) = w.split_once('=') else {
            return Err(ConfigError::new(
                at,
                format!("expected key=value after the two node names, got '{w}'"),
            ));
        };
        if seen.contains(&key) {
            return Err(ConfigError::new(at, format!("'{key}' given twice")));
        }
        let buffer_keys = ["buffer_pkts", "buffer_kb"];
        if buffer_keys.contains(&key) && seen.iter().any(|s| buffer_keys.contains(s)) {
            return Err(ConfigError::new(
                at,
                "give only one of buffer_pkts and buffer_kb",
            ));
        }
        seen.push(key);
        let ctx = format!("{at}: {key}");
        let number = || -> ConfigResult<f64> {
            value
                .parse::<f64>()
                .map_err(|_| ConfigError::new(at, format!("bad number '{value}' for {key}")))
        };
        match key {
            "gbps" => p.rate = check::rate(number()?, &ctx)?,
            "delay_us" => p.delay = crate::validate::micros(&ctx, number()?)?,
            "buffer_kb" => p.buffer = check::buffer_kb(number()?, &ctx)?,
            "buffer_pkts" => p.buffer = check::buffer_pkts(whole(value, key, at)?, &ctx)?,
            "ecn_k_pkts" => {
                let k = whole(value, key, at)?;
                p.ecn_k_pkts = Some(u32::try_from(k).map_err(|_| {
                    ConfigError::new(at, format!("ecn_k_pkts={value} does not fit 32 bits"))
                })?);
            }
            _ => {
                return Err(ConfigError::new(
                    at,
                    format!(
                    "unknown link key '{key}'; expected gbps, delay_us, buffer_pkts or buffer_kb, ecn_k_pkts"
                ),
                ))
            }
        }
    }
    Ok(p)
}

/// A whole number of packets.
fn whole(value: &str, key: &str, at: &str) -> ConfigResult<u64> {
    value.parse::<u64>().map_err(|_| {
        ConfigError::new(
            at,
            format!("bad number '{value}' for {key}: expected a whole number of packets"),
        )
    })
}

/// Groups hosts by the switch of their first link (see the module doc).
fn racks(b: &mut Builder) {
    let hosts = b.host_nodes().to_vec();
    let mut first_link: HashMap<usize, usize> = HashMap::new();
    for l in b.links() {
        for (me, other) in [(l.a, l.b), (l.b, l.a)] {
            first_link.entry(me).or_insert(other);
        }
    }
    let mut key_to_rack: HashMap<usize, usize> = HashMap::new();
    let mut racks: Vec<Vec<usize>> = Vec::new();
    for h in hosts {
        // A host with no link is caught by the connectivity check later; give it its own rack.
        let key = match first_link.get(&h) {
            Some(&sw) if b.node(sw).kind == NodeKind::Switch => sw,
            _ => h,
        };
        let r = *key_to_rack.entry(key).or_insert_with(|| {
            racks.push(Vec::new());
            racks.len() - 1
        });
        racks[r].push(h);
    }
    for r in racks {
        b.rack(&r);
    }
}

#[cfg(test)]
mod tests {
    use super::super::{build, BufferSize, TopologyConfig};
    use super::*;
    use crate::units::{Rate, Time};

    const EXAMPLE: &str = include_str!("example.topo");

    fn defaults() -> LinkParams {
        LinkParams {
            rate: Rate::gbps(10),
            delay: Time::from_us(1),
            buffer: BufferSize::Packets(100),
            ecn_k_pkts: None,
        }
    }

    fn parse_err(text: &str) -> ConfigError {
        match parse(text, "net.topo", &defaults()) {
            Ok(_) => panic!("expected an error for:\n{text}"),
            Err(e) => e,
        }
    }

    #[test]
    fn example_file_builds_from_the_scenario_folder() {
        let mut cfg = TopologyConfig::of_kind("file");
        cfg.file = Some("example.topo".into());
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/topo");
        let t = build(&cfg, &dir, 1).unwrap();
        assert_eq!(t.hosts.len(), 4);
        assert_eq!(t.nodes.len(), 7);
        assert_eq!(t.links.len(), 7);
        assert_eq!(
            t.description,
            "file example.topo: 4 hosts, 3 switches, 7 links"
        );
        assert_eq!(t.racks, vec![vec![0, 1], vec![2, 3]]);
        let core = t
            .links
            .iter()
            .find(|l| t.nodes[l.b].name == "core")
            .unwrap();
        assert_eq!(core.rate_ab, Rate::gbps(40));
        assert_eq!(core.delay_ba, Time::from_ns(2500));
        assert_eq!(core.buffer, BufferSize::Bytes(150_000));
        assert_eq!(core.ecn_k_pkts, None, "K left to the transport");
        let between_tors = t
            .links
            .iter()
            .find(|l| t.nodes[l.a].name == "tor0" && t.nodes[l.b].name == "tor1");
        assert_eq!(between_tors.unwrap().ecn_k_pkts, Some(40));
    }

    /// Writing a spec back in the file format and reading it again gives the same spec.
    #[test]
    fn round_trip() {
        let b = parse(EXAMPLE, "example.topo", &defaults()).unwrap();
        let t = b.finish("x", "example.topo").unwrap();
        let mut text = String::new();
        for n in &t.nodes {
            let word = if n.kind == NodeKind::Host {
                "host"
            } else {
                "switch"
            };
            text += &format!("{word} {}\n", n.name);
        }
        for l in &t.links {
            let buffer = match l.buffer {
                BufferSize::Packets(p) => format!("buffer_pkts={p}"),
                BufferSize::Bytes(b) => format!("buffer_kb={}", b as f64 / 1000.0),
            };
            let k = l
                .ecn_k_pkts
                .map_or(String::new(), |k| format!(" ecn_k_pkts={k}"));
            text += &format!(
                "link {} {} gbps={} delay_us={} {buffer}{k}\n",
                t.nodes[l.a].name,
                t.nodes[l.b].name,
                l.rate_ab.as_gbps_f64(),
                l.delay_ab.as_us_f64()
            );
        }
        let other = LinkParams {
            rate: Rate::gbps(1),
            delay: Time::from_us(7),
            buffer: BufferSize::Packets(3),
            ecn_k_pkts: None,
        };
        let mut again = parse(&text, "copy.topo", &other)
            .unwrap()
            .finish("x", "copy.topo")
            .unwrap();
        // Nodes first, then links: the copy declares link i on line nodes + i + 1.
        let first = t.nodes.len() as u32 + 1;
        assert_eq!(
            again.link_lines,
            (first..first + t.links.len() as u32).collect::<Vec<_>>()
        );
        again.link_lines.clone_from(&t.link_lines);
        assert_eq!(again, t);
    }

    #[test]
    fn defaults_fill_omitted_values() {
        let b = parse("host a\nhost b\nlink a b gbps=2.5", "n", &defaults()).unwrap();
        let l = &b.links()[0];
        assert_eq!(l.rate_ab, Rate::mbps(2500));
        assert_eq!(l.delay_ab, Time::from_us(1));
        assert_eq!(l.buffer, BufferSize::Packets(100));
    }

    #[test]
    fn each_error_names_its_line() {
        let cases: &[(&str, &str, &str)] = &[
            (
                "host a\nhost b\nlink a c",
                "net.topo line 3",
                "unknown node 'c'",
            ),
            (
                "host a\nswitch a",
                "net.topo line 2",
                "duplicate name 'a', already declared on line 1",
            ),
            (
                "host a\nhost b\nlink a b gbps=fast",
                "net.topo line 3",
                "bad number 'fast' for gbps",
            ),
            (
                "host a\nhost b\nlink a b buffer_pkts=1.5",
                "net.topo line 3",
                "bad number '1.5'",
            ),
            ("host a\n\n# c\nlink a a", "net.topo line 4", "to itself"),
            (
                "host a\nhost b\nlink a b gbps=-1",
                "net.topo line 3: gbps",
                "positive rate",
            ),
            (
                "host a\nhost b\nlink a b delay_us=0",
                "net.topo line 3: delay_us",
                "must be a finite time > 0 µs (got 0)",
            ),
            (
                "host a\nhost b\nlink a b colour=red",
                "net.topo line 3",
                "unknown link key 'colour'",
            ),
            (
                "host a\nhost b\nlink a b 10",
                "net.topo line 3",
                "expected key=value",
            ),
            (
                "host a\nhost b\nlink a b gbps=1 gbps=2",
                "net.topo line 3",
                "given twice",
            ),
            (
                "host a\nhost b\nlink a b buffer_kb=1 buffer_pkts=2",
                "net.topo line 3",
                "only one of",
            ),
            (
                "host a\nhost b\nlink a b\nlink b a",
                "net.topo line 4",
                "already linked on line 3",
            ),
            (
                "host a\nhost b\nlink a",
                "net.topo line 3",
                "expected 'link A B",
            ),
            ("host a b", "net.topo line 1", "expected 'host NAME'"),
            ("host x=1", "net.topo line 1", "cannot contain '='"),
            ("router r", "net.topo line 1", "unknown statement 'router'"),
            ("switch s\n", "net.topo", "declares no host"),
        ];
        for (text, path, msg) in cases {
            let e = parse_err(text);
            assert_eq!(e.path, *path, "{text:?}: {e}");
            assert!(e.message.contains(msg), "{text:?}: {e}");
        }
    }

    #[test]
    fn disconnected_and_missing_files_are_errors() {
        let mut cfg = TopologyConfig::of_kind("file");
        let dir = std::env::temp_dir().join(format!("dcnsim-topo-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("split.topo"),
            "host a\nhost b\nswitch s\nlink a s\n",
        )
        .unwrap();
        cfg.file = Some("split.topo".into());
        let e = build(&cfg, &dir, 1).unwrap_err();
        assert_eq!(e.path, "split.topo");
        assert!(
            e.message.contains("not connected") && e.message.contains("'b'"),
            "{e}"
        );
        cfg.file = Some("missing.topo".into());
        let e = build(&cfg, &dir, 1).unwrap_err();
        assert_eq!(e.path, "topology.file");
        assert!(e.message.contains("cannot read"), "{e}");
        cfg.file = None;
        assert_eq!(build(&cfg, &dir, 1).unwrap_err().path, "topology.file");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
