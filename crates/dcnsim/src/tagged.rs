//! One reader of a kind-tagged table: a table whose tag key (`transport.protocol`, and in time
//! `routing.lb`, `topology.kind`, a size distribution's `dist`) names a variant, and whose
//! other keys are that variant's own.
//!
//! The scenario holds such a table raw: the tag and a [`Map`] of the other keys (for
//! `[transport]`, `TransportConfig` with a flattened map). Whoever owns the variants
//! dispatches by the tag and calls [`read`] with the
//! variant's own keys type, a `#[derive(Deserialize)] #[serde(deny_unknown_fields)]` struct of
//! `Option` fields. [`read`] refuses a key that type does not declare, naming the key path and
//! listing the variant's keys (the field names of the type, read from its derived
//! `Deserialize`: [`field_names`]), then deserialises the rest keeping the key path of any
//! error (`transport.pdq_dampening_us: invalid type: ...`).

use crate::error::{ConfigError, ConfigResult};
use serde::de::{self, DeserializeOwned, Visitor};
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
}
