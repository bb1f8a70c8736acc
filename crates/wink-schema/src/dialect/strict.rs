//! OpenAI strict mode: which schemas it can express without narrowing them, and
//! the `null`s it makes the model send, stripped from the arguments again.

use super::*;

/// Whether [`SchemaDialect::OpenAiStrict`] can express `schema` without
/// narrowing it: `false` when it contains an open map (an object without
/// `properties`, or with `additionalProperties` other than `false`), a value
/// with no constraint at all, or an array without `items`. Adapters send such
/// tools with `"strict": false` and [`SchemaDialect::OpenAi`].
#[must_use]
pub fn fits_openai_strict(schema: &Value) -> bool {
    let Value::Object(map) = schema else {
        return true;
    };
    // A top level without properties declares a tool without parameters.
    if !map.contains_key("properties") && !map.contains_key("additionalProperties") {
        return children(map).all(fits_strict_node);
    }
    fits_strict_node(schema)
}

pub(super) fn fits_strict_node(schema: &Value) -> bool {
    let Value::Object(map) = schema else {
        return true;
    };
    let types = declared_types(map);
    let unconstrained = map.get("type").is_none()
        && ![
            "anyOf",
            "oneOf",
            "allOf",
            "$ref",
            "enum",
            "const",
            "properties",
            "items",
            "prefixItems",
        ]
        .iter()
        .any(|key| map.contains_key(*key));
    let is_object = types.contains(&"object") || map.contains_key("properties");
    let open_object = is_object
        && (!map.contains_key("properties")
            || matches!(
                map.get("additionalProperties"),
                Some(Value::Bool(true) | Value::Object(_))
            ));
    let untyped_array =
        types.contains(&"array") && !map.contains_key("items") && !map.contains_key("prefixItems");
    let any_type = types.is_empty()
        && matches!(map.get("type"), Some(Value::String(name)) if type_name(name) == Some(TypeName::Any));
    if unconstrained || open_object || untyped_array || any_type {
        return false;
    }
    children(map).all(fits_strict_node)
}

/// Removes the `null`s a model sends for optional properties under
/// [`SchemaDialect::OpenAiStrict`] (which made them required and nullable), so
/// that `arguments` validate against the tool's original `schema` again. A
/// `null` is kept where the original schema admits it.
#[must_use]
pub fn strip_strict_nulls(schema: &Value, arguments: &Value) -> Value {
    strip_nulls(schema, schema, arguments, 0)
}

pub(super) fn strip_nulls(root: &Value, schema: &Value, value: &Value, hops: usize) -> Value {
    let Some(schema) = follow_refs(root, schema, hops) else {
        return value.clone();
    };
    match value {
        Value::Object(map) => {
            let properties = schema.get("properties").and_then(Value::as_object);
            let required: Vec<&str> = schema
                .get("required")
                .and_then(Value::as_array)
                .map(|names| names.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let branch = object_branch(root, schema);
            let mut out = Map::new();
            for (key, item) in map {
                let property = properties.and_then(|properties| properties.get(key));
                if let Some(property) = property {
                    if item.is_null()
                        && !required.contains(&key.as_str())
                        && !admits_null(root, property, 0)
                    {
                        continue;
                    }
                    out.insert(key.clone(), strip_nulls(root, property, item, 0));
                } else if let Some(additional @ Value::Object(_)) =
                    schema.get("additionalProperties")
                {
                    out.insert(key.clone(), strip_nulls(root, additional, item, 0));
                } else {
                    out.insert(key.clone(), item.clone());
                }
            }
            match branch {
                Some(branch) if properties.is_none() => {
                    strip_nulls(root, branch, &Value::Object(out), 0)
                }
                _ => Value::Object(out),
            }
        }
        Value::Array(items) => match schema.get("items") {
            Some(item_schema @ Value::Object(_)) => Value::Array(
                items
                    .iter()
                    .map(|item| strip_nulls(root, item_schema, item, 0))
                    .collect(),
            ),
            _ => value.clone(),
        },
        other => other.clone(),
    }
}

/// Follows `$ref`s (bounded) to a schema object.
pub(super) fn follow_refs<'a>(
    root: &'a Value,
    schema: &'a Value,
    hops: usize,
) -> Option<&'a Map<String, Value>> {
    let map = schema.as_object()?;
    match map.get("$ref").and_then(Value::as_str) {
        Some(reference) if hops < 64 => follow_refs(root, resolve_ref(root, reference)?, hops + 1),
        Some(_) => None,
        None => Some(map),
    }
}

/// The one `anyOf`/`oneOf` branch describing an object, if any.
pub(super) fn object_branch<'a>(
    root: &'a Value,
    schema: &'a Map<String, Value>,
) -> Option<&'a Value> {
    ["anyOf", "oneOf"]
        .iter()
        .filter_map(|key| schema.get(*key).and_then(Value::as_array))
        .flatten()
        .find(|branch| {
            follow_refs(root, branch, 0).is_some_and(|map| {
                declared_types(map).contains(&"object") || map.contains_key("properties")
            })
        })
}

pub(super) fn admits_null(root: &Value, schema: &Value, hops: usize) -> bool {
    let Some(map) = follow_refs(root, schema, hops) else {
        return matches!(schema, Value::Bool(true));
    };
    if let Some(declared) = map.get("type") {
        let names: Vec<&Value> = match declared {
            Value::Array(names) => names.iter().collect(),
            other => vec![other],
        };
        return names.iter().filter_map(|name| name.as_str()).any(|name| {
            matches!(
                type_name(name),
                Some(TypeName::Any | TypeName::Json("null"))
            )
        });
    }
    if let Some(Value::Array(options)) = map.get("enum") {
        return options.iter().any(Value::is_null);
    }
    if let Some(constant) = map.get("const") {
        return constant.is_null();
    }
    let branches: Vec<&Value> = ["anyOf", "oneOf"]
        .iter()
        .filter_map(|key| map.get(*key).and_then(Value::as_array))
        .flatten()
        .collect();
    if !branches.is_empty() {
        return branches
            .iter()
            .any(|branch| admits_null(root, branch, hops + 1));
    }
    true
}

/// The JSON type names a schema declares (after alias resolution).
pub(super) fn declared_types(map: &Map<String, Value>) -> Vec<&'static str> {
    let names: Vec<&Value> = match map.get("type") {
        Some(Value::Array(names)) => names.iter().collect(),
        Some(other) => vec![other],
        None => Vec::new(),
    };
    names
        .iter()
        .filter_map(|name| match name.as_str().and_then(type_name) {
            Some(TypeName::Json(json_type)) => Some(json_type),
            _ => None,
        })
        .collect()
}

/// Every direct subschema of a schema object.
pub(super) fn children(map: &Map<String, Value>) -> impl Iterator<Item = &Value> {
    let singles = SCHEMA_KEYS.iter().filter_map(|key| map.get(*key));
    let arrays = SCHEMA_ARRAY_KEYS
        .iter()
        .filter_map(|key| map.get(*key).and_then(Value::as_array))
        .flatten();
    let maps = SCHEMA_MAP_KEYS
        .iter()
        .filter_map(|key| map.get(*key).and_then(Value::as_object))
        .flat_map(|entries| entries.values());
    singles.chain(arrays).chain(maps)
}

pub(super) fn is_null_schema(schema: &Value) -> bool {
    let Some(map) = schema.as_object() else {
        return false;
    };
    match map.get("type") {
        Some(Value::String(name)) => return name == "null",
        Some(Value::Array(names)) => return names.len() == 1 && names[0] == "null",
        Some(_) => return false,
        None => {}
    }
    if let Some(Value::Array(options)) = map.get("enum") {
        return !options.is_empty() && options.iter().all(Value::is_null);
    }
    map.get("const").is_some_and(Value::is_null)
}
