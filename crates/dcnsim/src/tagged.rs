//! One reader of a kind-tagged table: a table whose tag key (`transport.protocol`,
//! `topology.kind`, `workload.kind`, `routing.lb`, a size or deadline distribution's `dist`)
//! names a variant, and whose other keys are that variant's own.
//!
//! `[transport]` is held raw: the tag and a [`Map`] of the other keys (`TransportConfig` with
//! a flattened map). Its registry dispatches by the tag and calls [`read`] with the variant's
//! own keys type, a `#[derive(Deserialize)] #[serde(deny_unknown_fields)]` struct of `Option`
//! fields. [`read`] refuses a key that type does not declare, naming the key path and listing
//! the variant's keys (the field names of the type, read from its derived `Deserialize`:
//! [`field_names`]), then deserialises the rest keeping the key path of any error
//! (`transport.pdq_dampening_us: invalid type: ...`).
//!
//! The other tables are held flat, one typed struct with the keys of every variant: their
//! builders read it and `scenario.json` writes it. Each declares which keys each variant takes
//! with `variant_keys!` (in this module): one keys struct per variant, the same [`read`]
//! applied to the keys the table sets ([`keys_set`]), and the message also names the variants
//! that do take a refused key (`topology.k: not used by kind 'leafspine'; its keys are: ...;
//! k is for kind 'fattree' or 'bcube'`).

use crate::error::{ConfigError, ConfigResult};
use serde::de::{self, DeserializeOwned, Visitor};
use serde::Serialize;
use serde_json::{Map, Value};

/// Reads `keys` (a table's keys less its tag) into the variant's own keys type `T`. `at` is
/// the table's path (`transport`), `variant` how the message names the variant (`protocol
/// 'pdq'`). A key `T` does not declare is refused at `at.key`, listing `T`'s keys; a value of
/// the wrong type at `at.key` (or deeper), with serde's message.
pub fn read<T: DeserializeOwned>(
    at: &str,
    variant: &str,
    keys: &Map<String, Value>,
) -> ConfigResult<T> {
    let valid = field_names::<T>();
    if let Some(key) = keys.keys().find(|k| !valid.contains(&k.as_str())) {
        return Err(ConfigError::new(
            format!("{at}.{key}"),
            format!("not used by {variant}; its keys are: {}", valid.join(", ")),
        ));
    }
    serde_path_to_error::deserialize(Value::Object(keys.clone())).map_err(|e| {
        let path = e.path().to_string();
        let path = if path == "." {
            at.to_string()
        } else {
            format!("{at}.{path}")
        };
        ConfigError::new(path, e.into_inner().to_string())
    })
}

/// The keys a flat table sets, less its tag: the keys of its serialised form but those whose
/// value is `null` (an unset `Option`, when it is not skipped).
pub fn keys_set<T: Serialize>(table: &T, tag: &str) -> Map<String, Value> {
    match serde_json::to_value(table) {
        Ok(Value::Object(mut keys)) => {
            keys.remove(tag);
            keys.retain(|_, value| !value.is_null());
            keys
        }
        _ => unreachable!("a flat table serialises to a map"),
    }
}

/// Declares which keys each variant of a flat kind-tagged table takes, and generates the
/// check of a table against them. One invocation per table, in a module of its own (it
/// generates one struct per variant and two functions):
///
/// ```ignore
/// variant_keys! {
///     /// Checks the keys of `[topology]`.
///     pub(super) fn check(TopologyConfig, tag kind) common [link_gbps, host_nic] {
///         StarKeys = "star" [hosts],
///         TreeKeys = "tree" [tors, hosts_per_tor],
///     }
/// }
/// ```
///
/// `check(table, at)` returns `None` for a variant not declared, else [`read`]'s verdict on
/// the keys the table sets, at `at` (`topology`): a key the variant does not take is refused,
/// listing its own keys then the `common` ones, and naming the variants that do take it.
/// `variants_taking(key)` lists those. Every key must be a field of the table (else it does
/// not compile), so a declaration cannot drift from the type the builders read.
macro_rules! variant_keys {
    (@keys $Keys:ident [$($key:ident),*] [$($common:ident),* $(,)?]) => {
        /// The keys of one variant: only which it declares matters
        /// ([`crate::tagged::field_names`]), the table's own type reads the values.
        #[derive(serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        #[allow(dead_code)]
        struct $Keys {
            $($key: Option<serde::de::IgnoredAny>,)*
            $($common: Option<serde::de::IgnoredAny>,)*
        }
    };
    (@fields $table:ident [$($key:ident),* $(,)?]) => {
        $(let _ = &$table.$key;)*
    };
    (
        $(#[$m:meta])*
        $vis:vis fn $check:ident($Table:ty, tag $tag:ident) common $common:tt {
            $($Keys:ident = $name:literal [$($key:ident),* $(,)?],)*
        }
    ) => {
        $($crate::tagged::variant_keys!(@keys $Keys [$($key),*] $common);)*

        $(#[$m])*
        $vis fn $check(table: &$Table, at: &str) -> Option<$crate::error::ConfigResult<()>> {
            let keys = $crate::tagged::keys_set(table, stringify!($tag));
            let read = match table.$tag.as_str() {
                $($name => $crate::tagged::read::<$Keys>(
                    at,
                    concat!(stringify!($tag), " '", $name, "'"),
                    &keys,
                )
                .map(drop),)*
                _ => return None,
            };
            // A value of any type reads as `IgnoredAny`: the error is a key not declared.
            Some(read.map_err(|mut e| {
                let key = e.path.strip_prefix(at).and_then(|k| k.strip_prefix('.'));
                let key = key.unwrap_or_default().to_string();
                let taking = variants_taking(&key);
                if !taking.is_empty() {
                    e.message += &format!(
                        "; {key} is for {} '{}'",
                        stringify!($tag),
                        taking.join("' or '")
                    );
                }
                e
            }))
        }

        /// The variants that take `key` (none for a key of every variant).
        $vis fn variants_taking(key: &str) -> Vec<&'static str> {
            let mut taking = Vec::new();
            $(
                let own: &[&str] = &[$(stringify!($key)),*];
                if own.contains(&key) {
                    taking.push($name);
                }
            )*
            taking
        }

        // Every declared key is a field of the table.
        const _: fn(&$Table) = |table| {
            $($crate::tagged::variant_keys!(@fields table [$($key),*]);)*
            $crate::tagged::variant_keys!(@fields table $common);
        };
    };
}
pub(crate) use variant_keys;

/// The keys a derived `Deserialize` struct declares, in declaration order: the `fields` its
/// `Deserialize` impl hands the deserializer, caught by one that reads nothing else.
pub fn field_names<T: DeserializeOwned>() -> &'static [&'static str] {
    let mut names: &'static [&'static str] = &[];
    let _ = T::deserialize(FieldNames(&mut names));
    names
}

/// A deserializer that records the field names of the struct asked of it and fails.
struct FieldNames<'a>(&'a mut &'static [&'static str]);

#[derive(Debug)]
struct Caught;

impl std::fmt::Display for Caught {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("field names caught")
    }
}

impl std::error::Error for Caught {}

impl de::Error for Caught {
    fn custom<M: std::fmt::Display>(_: M) -> Caught {
        Caught
    }
}

impl<'de> de::Deserializer<'de> for FieldNames<'_> {
    type Error = Caught;

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        _visitor: V,
    ) -> Result<V::Value, Caught> {
        *self.0 = fields;
        Err(Caught)
    }

    fn deserialize_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, Caught> {
        Err(Caught)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
        ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Default, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Keys {
        alpha: Option<f64>,
        name: Option<String>,
    }

    fn table(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn reads_the_variants_keys_and_names_a_bad_one_with_its_path() {
        assert_eq!(field_names::<Keys>(), ["alpha", "name"]);
        let k: Keys = read("t", "kind 'x'", &table(json!({"alpha": 2}))).unwrap();
        assert_eq!(k.alpha, Some(2.0));
        let e = read::<Keys>("t", "kind 'x'", &table(json!({"beta": 1}))).unwrap_err();
        assert_eq!(e.path, "t.beta");
        assert_eq!(e.message, "not used by kind 'x'; its keys are: alpha, name");
        let e = read::<Keys>("t", "kind 'x'", &table(json!({"alpha": "no"}))).unwrap_err();
        assert_eq!(e.path, "t.alpha");
        assert!(e.message.contains("invalid type"), "{e}");
    }

    /// A table held flat: `b` is unset when `null`, as an `Option` not skipped writes it.
    #[derive(Serialize)]
    struct Flat {
        kind: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        a: Option<u32>,
        b: Option<u32>,
        c: f64,
    }

    variant_keys! {
        fn check(Flat, tag kind) common [c] {
            AKeys = "a" [a],
            BKeys = "b" [b],
        }
    }

    #[test]
    fn a_flat_table_sets_only_keys_of_its_variant() {
        let flat = |kind: &str, a, b| Flat {
            kind: kind.into(),
            a,
            b,
            c: 1.0,
        };
        assert!(matches!(
            check(&flat("a", Some(1), None), "t"),
            Some(Ok(()))
        ));
        assert!(matches!(check(&flat("b", None, None), "t"), Some(Ok(()))));
        assert!(check(&flat("z", None, None), "t").is_none());
        let e = check(&flat("a", None, Some(2)), "t").unwrap().unwrap_err();
        assert_eq!(e.path, "t.b");
        assert_eq!(
            e.message,
            "not used by kind 'a'; its keys are: a, c; b is for kind 'b'"
        );
        assert_eq!(variants_taking("c"), Vec::<&str>::new());
    }
}
