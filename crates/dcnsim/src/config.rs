//! The one scenario schema. Every table refuses unknown keys; every error names its key path.
//!
//! A scenario arrives as TOML text (a file) or JSON text (a Python dict), with optional
//! `key.path=value` overrides from the command line; both become one tree that is deserialised
//! here, so both front ends give the same errors.
//!
//! TOML holds values JSON cannot: NaN and ±inf floats, and dates and times. No key takes
//! either, and turning them into JSON would silently make them `null` (a default, or a key
//! left out), so they are refused with their key path, in a file as in an override. Times and
//! rates must also fit the limits of [`crate::units`] (the simulation horizon, 10⁶ s).

use crate::error::{AtKey, ConfigError, ConfigResult};
/// The `[routing]` table lives with the path choices that read it.
pub use crate::lb::RoutingConfig;
use crate::protocols::{TransportConfig, TransportKeys};
use crate::topo::TopologyConfig;
use crate::units::{num, Time};
use crate::workload::WorkloadConfig;
use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// A label carried into the summary.
    #[serde(default)]
    pub name: Option<String>,
    /// Seed of every random stream of the run.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Simulated time at which the run stops; by default it runs until every flow finished.
    #[serde(default)]
    pub stop_s: Option<f64>,
    pub topology: TopologyConfig,
    #[serde(default)]
    pub transport: TransportConfig,
    #[serde(default)]
    pub routing: RoutingConfig,
    pub workload: WorkloadConfig,
    #[serde(default)]
    pub output: OutputConfig,
    /// Links that go down (and maybe up again) at given times.
    #[serde(default)]
    pub failures: Vec<FailureConfig>,
    /// Which model runs the scenario: `packet` (default) or `flow` (the fluid model of
    /// [`crate::flowsim`]). Left out of `scenario.json` when it is the default, so packet-level
    /// outputs are unchanged by the key's existence.
    #[serde(default, skip_serializing_if = "Engine::is_packet")]
    pub engine: Engine,
}

/// The `engine` key.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Engine {
    /// The packet-level event loop ([`crate::engine::Simulation`]).
    #[default]
    Packet,
    /// The flow-level (fluid) model ([`crate::flowsim::FlowSimulation`]).
    Flow,
}

impl Engine {
    pub fn is_packet(&self) -> bool {
        *self == Engine::Packet
    }
}

fn default_seed() -> u64 {
    1
}

/// The `[output]` table.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct OutputConfig {
    /// Sampling interval of the time series; 0 turns them off.
    #[serde(default)]
    pub series_interval_us: f64,
    /// Flow ids whose senders are traced packet by packet into `trace.csv` (for debugging and
    /// for comparisons with other simulators): one id or a list of distinct ids; none by
    /// default, and an empty list traces none.
    #[serde(default, deserialize_with = "flow_id_or_list")]
    pub trace_flow: Vec<u32>,
    /// Write `paths.csv`, the ports each flow's data crossed. Off by default: at packet level
    /// it counts every data packet at every hop (about 10 % of a run's time, bench/RESULTS.md).
    #[serde(default)]
    pub paths: bool,
}

/// One `[[failures]]` entry: the link between two named nodes fails at `down_s` and, if
/// `up_s` is given, recovers then.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FailureConfig {
    pub link: [String; 2],
    pub down_s: f64,
    #[serde(default)]
    pub up_s: Option<f64>,
}

impl Scenario {
    /// Parses TOML text and applies `key.path=value` overrides.
    pub fn from_toml_str(text: &str, overrides: &[String]) -> ConfigResult<Scenario> {
        let table: toml::Table =
            toml::from_str(text).map_err(|e| ConfigError::new("", format!("TOML syntax: {e}")))?;
        let value = toml_to_json(toml::Value::Table(table), "")?;
        Scenario::from_value(value, overrides)
    }

    /// Parses JSON text (what the Python front end sends) and applies overrides.
    pub fn from_json_str(text: &str, overrides: &[String]) -> ConfigResult<Scenario> {
        let value: Value =
            serde_json::from_str(text).map_err(|e| ConfigError::new("", format!("JSON: {e}")))?;
        Scenario::from_value(value, overrides)
    }

    pub fn from_value(mut value: Value, overrides: &[String]) -> ConfigResult<Scenario> {
        if !value.is_object() {
            return Err(ConfigError::new("", "a scenario must be a table of keys"));
        }
        for o in overrides {
            apply_override(&mut value, o)?;
        }
        let scenario: Scenario = serde_path_to_error::deserialize(value).map_err(|e| {
            let path = e.path().to_string();
            let path = if path == "." { String::new() } else { path };
            ConfigError::new(path, e.into_inner().to_string())
        })?;
        scenario.check()?;
        Ok(scenario)
    }

    /// Checks of single values that the types alone cannot express. Every time must fit the
    /// simulation horizon ([`crate::units`]); the engines convert the same values again, to
    /// the same times.
    fn check(&self) -> ConfigResult<()> {
        // The `[transport]` table is held raw; its protocol reads its own keys
        // ([`TransportKeys::read`]): an unknown key or a mistyped value is refused here, as a
        // key of any other table is.
        TransportKeys::read(&self.transport)?;
        if let Some(s) = self.stop_s {
            if Time::try_from_secs_f64(s).at_key("stop_s")? == Time::ZERO {
                return Err(ConfigError::new(
                    "stop_s",
                    format!("must be a positive number of seconds, got {}", num(s)),
                ));
            }
        }
        Time::try_from_us_f64(self.routing.reroute_delay_us).at_key("routing.reroute_delay_us")?;
        Time::try_from_us_f64(self.output.series_interval_us)
            .map_err(|e| format!("{e} (0 turns series off)"))
            .at_key("output.series_interval_us")?;
        check_distinct(&self.output.trace_flow, "output.trace_flow")?;
        for (i, f) in self.failures.iter().enumerate() {
            let down = Time::try_from_secs_f64(f.down_s).at_key(format!("failures[{i}].down_s"))?;
            if let Some(up) = f.up_s {
                let key = format!("failures[{i}].up_s");
                if Time::try_from_secs_f64(up).at_key(&key)? <= down {
                    return Err(ConfigError::new(
                        key,
                        format!(
                            "must be later than down_s ({} s), got {}",
                            num(f.down_s),
                            num(up)
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// The scenario as JSON, with every default filled in (written next to results).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a scenario always serialises")
    }
}

/// Refuses a flow id listed twice under `key`.
fn check_distinct(ids: &[u32], key: &str) -> ConfigResult<()> {
    for (i, id) in ids.iter().enumerate() {
        if ids[..i].contains(id) {
            return Err(ConfigError::new(
                key,
                format!("flow {id} is listed twice; list each flow id once"),
            ));
        }
    }
    Ok(())
}

/// Reads a key that takes one flow id (`6`) or a list of them (`[6, 415]`); `null`, as an
/// older scenario.json writes an untraced run, is no id.
fn flow_id_or_list<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<u32>, D::Error> {
    d.deserialize_any(FlowIds { in_list: false })
}

/// A flow id, or (outside a list) a list of them.
struct FlowIds {
    in_list: bool,
}

/// One flow id inside a list.
struct FlowId(u32);

impl<'de> Deserialize<'de> for FlowId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<FlowId, D::Error> {
        let ids = d.deserialize_any(FlowIds { in_list: true })?;
        Ok(FlowId(ids[0]))
    }
}

impl<'de> serde::de::Visitor<'de> for FlowIds {
    type Value = Vec<u32>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(if self.in_list {
            "a flow id (an integer from 0)"
        } else {
            "a flow id (an integer from 0) or a list of flow ids"
        })
    }

    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Vec<u32>, E> {
        u32::try_from(v)
            .map(|id| vec![id])
            .map_err(|_| E::invalid_value(serde::de::Unexpected::Unsigned(v), &self))
    }

    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Vec<u32>, E> {
        match u64::try_from(v) {
            Ok(v) => self.visit_u64(v),
            Err(_) => Err(E::invalid_value(serde::de::Unexpected::Signed(v), &self)),
        }
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<Vec<u32>, E> {
        if self.in_list {
            return Err(E::invalid_type(serde::de::Unexpected::Unit, &self));
        }
        Ok(Vec::new())
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<u32>, A::Error> {
        if self.in_list {
            return Err(serde::de::Error::invalid_type(
                serde::de::Unexpected::Seq,
                &self,
            ));
        }
        let mut ids = Vec::new();
        while let Some(FlowId(id)) = seq.next_element()? {
            ids.push(id);
        }
        Ok(ids)
    }
}

/// Applies one `a.b.c=value` override. The value is read as a TOML value (number, boolean,
/// string in quotes, array, inline table); anything that does not parse is taken as a string,
/// so `--set transport.protocol=tcp` works without quotes.
fn apply_override(root: &mut Value, spec: &str) -> ConfigResult<()> {
    let (path, raw) = spec
        .split_once('=')
        .ok_or_else(|| ConfigError::new(spec, "an override must look like key.path=value"))?;
    let path = path.trim();
    if path.is_empty() || path.split('.').any(|p| p.is_empty()) {
        return Err(ConfigError::new(
            spec,
            "an override must look like key.path=value",
        ));
    }
    let value: Value = match toml::from_str::<toml::Table>(&format!("v = {}", raw.trim())) {
        Ok(mut t) => toml_to_json(t.remove("v").expect("parsed key v"), path)?,
        Err(_) => Value::String(raw.trim().to_string()),
    };
    let mut node = root;
    let parts: Vec<&str> = path.split('.').collect();
    for (i, part) in parts.iter().enumerate() {
        let obj = node.as_object_mut().ok_or_else(|| {
            ConfigError::new(
                parts[..i].join("."),
                "is not a table, cannot set a key inside it",
            )
        })?;
        if i + 1 == parts.len() {
            obj.insert(part.to_string(), value);
            return Ok(());
        }
        node = obj
            .entry(part.to_string())
            .or_insert_with(|| Value::Object(Default::default()));
    }
    unreachable!("the loop returns at the last part")
}

/// A TOML value as JSON, `path` being its key path (`""` at the root). NaN, ±inf and dates or
/// times are refused naming their key (module doc), where a plain conversion would make them
/// `null`.
fn toml_to_json(v: toml::Value, path: &str) -> ConfigResult<Value> {
    Ok(match v {
        toml::Value::String(s) => Value::String(s),
        toml::Value::Integer(i) => Value::from(i),
        toml::Value::Float(f) => match serde_json::Number::from_f64(f) {
            Some(n) => Value::Number(n),
            None => {
                return Err(ConfigError::new(
                    path,
                    format!("must be a finite number, got {}", num(f)),
                ))
            }
        },
        toml::Value::Boolean(b) => Value::Bool(b),
        toml::Value::Datetime(d) => {
            return Err(ConfigError::new(
                path,
                format!(
                    "a date or time ({d}) is not a valid value: no key takes one; give a number, \
                     or text in quotes"
                ),
            ))
        }
        toml::Value::Array(a) => Value::Array(
            a.into_iter()
                .enumerate()
                .map(|(i, x)| toml_to_json(x, &format!("{path}[{i}]")))
                .collect::<ConfigResult<_>>()?,
        ),
        toml::Value::Table(t) => Value::Object(
            t.into_iter()
                .map(|(k, x)| {
                    let p = if path.is_empty() {
                        k.clone()
                    } else {
                        format!("{path}.{k}")
                    };
                    toml_to_json(x, &p).map(|x| (k, x))
                })
                .collect::<ConfigResult<_>>()?,
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = r#"
seed = 3
[topology]
kind = "star"
hosts = 4
[workload]
kind = "poisson"
"#;

    #[test]
    fn overrides_set_nested_keys_and_types() {
        let s = Scenario::from_toml_str(BASE, &["transport.protocol=tcp".into(), "seed=9".into()])
            .unwrap();
        assert_eq!(s.transport.protocol, "tcp");
        assert_eq!(s.seed, 9);
    }

    #[test]
    fn unknown_key_is_named_with_its_path() {
        let err = Scenario::from_toml_str(BASE, &["topology.colour=3".into()]).unwrap_err();
        assert_eq!(err.path, "topology.colour");
        assert!(err.message.contains("expected one of"), "{err}");
    }

    /// `[transport]` is read by its protocol when the scenario is parsed: a key it does not
    /// read and a value of the wrong type are named with their path, as in any other table.
    #[test]
    fn transport_keys_are_named_with_their_path() {
        let err = |o: &str| Scenario::from_toml_str(BASE, &[o.into()]).unwrap_err();
        let e = err("transport.rcp_alpha=0.1");
        assert_eq!(e.path, "transport.rcp_alpha");
        assert!(e.message.contains("protocol 'dctcp'"), "{e}");
        assert_eq!(err("transport.dctcp_g=\"x\"").path, "transport.dctcp_g");
        assert_eq!(err("transport.protocol=5").path, "transport.protocol");
        assert_eq!(err("transport.protocol=\"tpc\"").path, "transport.protocol");
    }

    #[test]
    fn wrong_type_is_named_with_its_path() {
        let err =
            Scenario::from_toml_str(BASE, &["topology.link_gbps=\"fast\"".into()]).unwrap_err();
        assert_eq!(err.path, "topology.link_gbps");
    }

    #[test]
    fn json_and_toml_agree() {
        let t = Scenario::from_toml_str(BASE, &[]).unwrap();
        let j = Scenario::from_json_str(&t.to_json(), &[]).unwrap();
        assert_eq!(t, j);
    }

    /// `output.trace_flow` takes one id or a list; scenario.json writes it as a list, and an
    /// older scenario.json's `null` still reads as no trace.
    #[test]
    fn trace_flow_is_one_id_or_a_list() {
        let traced = |value: &str| {
            let set = format!("output.trace_flow={value}");
            Scenario::from_toml_str(BASE, &[set])
                .unwrap()
                .output
                .trace_flow
        };
        assert_eq!(traced("6"), vec![6]);
        assert_eq!(traced("[6, 415]"), vec![6, 415]);
        assert!(traced("[]").is_empty());
        let listed = Scenario::from_toml_str(BASE, &["output.trace_flow=[2, 5]".into()]).unwrap();
        assert!(listed
            .to_json()
            .contains("\"trace_flow\": [\n      2,\n      5\n    ]"));
        assert_eq!(
            Scenario::from_json_str(&listed.to_json(), &[]).unwrap(),
            listed
        );
        let old = listed
            .to_json()
            .replace("[\n      2,\n      5\n    ]", "null");
        let read = Scenario::from_json_str(&old, &[]).unwrap();
        assert!(read.output.trace_flow.is_empty());
    }
}
