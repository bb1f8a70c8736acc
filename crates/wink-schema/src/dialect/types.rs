//! Type names and the constructs that depend on them: aliases and type arrays,
//! `enum`s that contradict their type, `null`s the conservative dialect removes,
//! draft 4 tuples.

use super::*;

impl Normalizer<'_> {
    pub(super) fn normalize_type(&self, map: &mut Map<String, Value>) -> Result<(), SchemaError> {
        let Some(declared) = map.get("type") else {
            return Ok(());
        };
        let names: Vec<&Value> = match declared {
            Value::Array(names) => names.iter().collect(),
            Value::String(_) => vec![declared],
            _ => return Err(self.invalid("type", "must be a string or an array of strings")),
        };
        if names.is_empty() {
            return Err(self.invalid("type", "must not be an empty array"));
        }
        let mut canonical: Vec<&'static str> = Vec::new();
        let mut any = false;
        for name in names {
            let Some(text) = name.as_str() else {
                return Err(self.invalid("type", "must be a string or an array of strings"));
            };
            match type_name(text) {
                Some(TypeName::Json(json_type)) => {
                    if !canonical.contains(&json_type) {
                        canonical.push(json_type);
                    }
                }
                Some(TypeName::Any) => any = true,
                None => {
                    return Err(SchemaError::UnknownType {
                        path: self.here(),
                        name: text.to_owned(),
                    });
                }
            }
        }
        if any {
            map.shift_remove("type");
        } else {
            map.insert("type".to_owned(), types_value(&canonical));
        }
        Ok(())
    }

    pub(super) fn reconcile_enum(&self, map: &mut Map<String, Value>) -> Result<(), SchemaError> {
        let options = match map.get("enum") {
            None => return Ok(()),
            Some(Value::Array(options)) => options,
            Some(_) => return Err(self.invalid("enum", "must be an array")),
        };
        let declared = declared_types(map);
        if declared.is_empty() {
            return Ok(());
        }
        if declared == ["array"] && !options.iter().any(Value::is_array) {
            // BFCL: "an array of these choices" written as an enum on the array.
            let Some(options) = map.shift_remove("enum") else {
                return Ok(());
            };
            let items = map.entry("items").or_insert_with(|| json!({}));
            if let Value::Object(items) = items
                && !items.contains_key("enum")
            {
                items.insert("enum".to_owned(), options);
            }
            return Ok(());
        }
        let admitted = |option: &Value| {
            declared
                .iter()
                .any(|json_type| value_has_type(option, json_type))
        };
        if options.iter().all(admitted) {
            return Ok(());
        }
        let mut found: Vec<&'static str> = Vec::new();
        for option in options {
            let json_type = type_of(option);
            if !found.contains(&json_type) {
                found.push(json_type);
            }
        }
        if found.contains(&"number") {
            found.retain(|json_type| *json_type != "integer");
        }
        map.insert("type".to_owned(), types_value(&found));
        Ok(())
    }

    /// Conservative dialect: removes `null` from type arrays, enums and `anyOf`,
    /// splits multi-type arrays into `anyOf`, merges one-branch `anyOf`.
    /// Returns (node changed in a way that needs another round, null removed).
    pub(super) fn remove_nulls(
        &self,
        map: &mut Map<String, Value>,
    ) -> Result<(bool, bool), SchemaError> {
        let mut removed_null = false;
        let mut changed = false;
        if let Some(Value::Array(names)) = map.get("type") {
            let mut remaining: Vec<Value> = names
                .iter()
                .filter(|name| *name != "null")
                .cloned()
                .collect();
            removed_null = remaining.len() < names.len();
            match remaining.len() {
                0 => {
                    map.insert("type".to_owned(), json!("null"));
                    removed_null = false;
                }
                1 => {
                    map.insert("type".to_owned(), remaining.remove(0));
                }
                _ => {
                    if map.contains_key("anyOf") {
                        return Err(self.unsupported("a type array next to `anyOf`"));
                    }
                    map.shift_remove("type");
                    let branches = remaining
                        .into_iter()
                        .map(|name| json!({ "type": name }))
                        .collect();
                    map.insert("anyOf".to_owned(), Value::Array(branches));
                    changed = true;
                }
            }
        }
        if let Some(Value::Array(options)) = map.get_mut("enum")
            && options.iter().any(Value::is_null)
            && !options.iter().all(Value::is_null)
        {
            options.retain(|option| !option.is_null());
            removed_null = true;
        }
        if let Some(branches) = map.get("anyOf") {
            let Value::Array(branches) = branches else {
                return Err(self.invalid("anyOf", "must be an array of schemas"));
            };
            let mut remaining: Vec<Value> = branches
                .iter()
                .filter(|branch| !self.is_null_like(branch, 0))
                .cloned()
                .collect();
            if remaining.len() < branches.len() && !remaining.is_empty() {
                removed_null = true;
            }
            if remaining.is_empty() {
                // Only `null` is allowed: keep one such branch, merged below.
                remaining.extend(branches.first().cloned());
            }
            if remaining.len() == 1 {
                map.shift_remove("anyOf");
                if let Some(Value::Object(branch)) = remaining.into_iter().next() {
                    for (key, value) in branch {
                        map.entry(key).or_insert(value);
                    }
                }
                changed = true;
            } else if remaining.len() < branches.len() && !remaining.is_empty() {
                map.insert("anyOf".to_owned(), Value::Array(remaining));
            }
        }
        Ok((changed, removed_null))
    }

    /// Whether a schema admits only `null`, looking through `$ref`s and
    /// alternatives whose every branch admits only `null`.
    pub(super) fn is_null_like(&self, schema: &Value, hops: usize) -> bool {
        if is_null_schema(schema) {
            return true;
        }
        let Some(map) = schema.as_object() else {
            return false;
        };
        if hops >= MAX_REWRITE_ROUNDS || map.contains_key("type") {
            return false;
        }
        if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
            return resolve_ref(self.root, reference)
                .is_some_and(|target| self.is_null_like(target, hops + 1));
        }
        let branches: Vec<&Value> = ["anyOf", "oneOf"]
            .iter()
            .filter_map(|key| map.get(*key).and_then(Value::as_array))
            .flatten()
            .collect();
        !branches.is_empty()
            && branches
                .iter()
                .all(|branch| self.is_null_like(branch, hops + 1))
    }

    /// `prefixItems` / draft 4 tuple `items`: kept as `prefixItems` where the
    /// dialect allows it, else folded into one `items` schema.
    pub(super) fn normalize_tuple(&self, map: &mut Map<String, Value>) -> Result<(), SchemaError> {
        if !self.dialect.restricts_keywords() && map.contains_key("prefixItems") {
            return Ok(());
        }
        let (prefix, rest) = if let Some(prefix) = map.shift_remove("prefixItems") {
            (prefix, map.shift_remove("items"))
        } else if matches!(map.get("items"), Some(Value::Array(_))) {
            (
                map.shift_remove("items").unwrap_or(Value::Null),
                map.shift_remove("additionalItems"),
            )
        } else {
            return Ok(());
        };
        let Value::Array(prefix) = prefix else {
            return Err(self.invalid("prefixItems", "must be an array of schemas"));
        };
        if !self.dialect.restricts_keywords() {
            map.insert("prefixItems".to_owned(), Value::Array(prefix));
            if let Some(rest) = rest {
                map.insert("items".to_owned(), rest);
            }
            return Ok(());
        }
        let closed = matches!(rest, Some(Value::Bool(false)));
        let mut distinct: Vec<Value> = Vec::new();
        let open_rest = match rest {
            Some(Value::Bool(false) | Value::Bool(true)) | None => None,
            Some(other) => Some(other),
        };
        for schema in prefix.iter().cloned().chain(open_rest) {
            if !distinct.contains(&schema) {
                distinct.push(schema);
            }
        }
        let items = match distinct.len() {
            0 => json!({}),
            1 => distinct.remove(0),
            _ => json!({ "anyOf": distinct }),
        };
        map.insert("items".to_owned(), items);
        if closed && !map.contains_key("maxItems") {
            map.insert("maxItems".to_owned(), json!(prefix.len()));
        }
        Ok(())
    }
}
