//! The last steps of a node: the keywords a dialect keeps, the children, and the
//! shape a dialect requires of an object (every property required, `null` added).

use super::*;

impl Normalizer<'_> {
    pub(super) fn keeps(&self, key: &str, value: &Value) -> bool {
        if ALWAYS_DROPPED.contains(&key) || key.starts_with("x-") {
            return false;
        }
        match self.dialect {
            SchemaDialect::OpenAiStrict => {
                STRICT_KEYWORDS.contains(&key)
                    && (key != "format"
                        || value
                            .as_str()
                            .is_some_and(|format| STRICT_FORMATS.contains(&format)))
            }
            SchemaDialect::Conservative => CONSERVATIVE_KEYWORDS.contains(&key),
            SchemaDialect::OpenAi | SchemaDialect::Anthropic => true,
        }
    }

    pub(super) fn filter_keywords(&self, map: &mut Map<String, Value>) {
        map.retain(|key, value| self.keeps(key, value));
    }

    pub(super) fn normalize_children(
        &mut self,
        map: &mut Map<String, Value>,
    ) -> Result<Vec<(String, bool)>, SchemaError> {
        let mut property_nullability = Vec::new();
        for key in SCHEMA_MAP_KEYS {
            let Some(entries) = map.get_mut(*key) else {
                continue;
            };
            let Value::Object(entries) = entries else {
                return Err(self.invalid(key, "must map names to schemas"));
            };
            for (name, child) in entries.iter_mut() {
                self.path.push((*key).to_owned());
                self.path.push(name.clone());
                let normalized = self.node(child);
                self.path.truncate(self.path.len() - 2);
                let normalized = normalized?;
                *child = normalized.value;
                if *key == "properties" {
                    property_nullability.push((name.clone(), normalized.nullable));
                }
            }
        }
        for key in SCHEMA_ARRAY_KEYS {
            let Some(branches) = map.get_mut(*key) else {
                continue;
            };
            let Value::Array(branches) = branches else {
                return Err(self.invalid(key, "must be an array of schemas"));
            };
            for (index, child) in branches.iter_mut().enumerate() {
                self.path.push((*key).to_owned());
                self.path.push(index.to_string());
                let normalized = self.node(child);
                self.path.truncate(self.path.len() - 2);
                *child = normalized?.value;
            }
        }
        for key in SCHEMA_KEYS {
            let Some(child) = map.get_mut(*key) else {
                continue;
            };
            match child {
                Value::Bool(_) => {}
                Value::Object(_) => {
                    self.path.push((*key).to_owned());
                    let normalized = self.node(child);
                    self.path.pop();
                    *child = normalized?.value;
                }
                other => {
                    return Err(SchemaError::NotASchema {
                        path: format!("{}/{key}", self.here()),
                        found: type_of(other),
                    });
                }
            }
        }
        Ok(property_nullability)
    }

    pub(super) fn finish(
        &self,
        map: &mut Map<String, Value>,
        property_nullability: &[(String, bool)],
        optional_properties: &[String],
    ) -> Result<(), SchemaError> {
        if map.contains_key("properties") && !map.contains_key("type") {
            insert_first(map, "type", json!("object"));
        }
        let mut required: Option<Vec<String>> = match map.get("required") {
            None => None,
            Some(Value::Array(names)) => {
                let mut collected: Vec<String> = Vec::with_capacity(names.len());
                for name in names {
                    let Some(name) = name.as_str() else {
                        return Err(self.invalid("required", "must be an array of property names"));
                    };
                    if !collected.iter().any(|seen| seen == name)
                        && !optional_properties.iter().any(|optional| optional == name)
                    {
                        collected.push(name.to_owned());
                    }
                }
                Some(collected)
            }
            Some(_) => return Err(self.invalid("required", "must be an array of property names")),
        };
        let is_object = declared_types(map).contains(&"object");
        match self.dialect {
            SchemaDialect::OpenAiStrict => {
                if is_object {
                    self.close_object(map, required.as_deref().unwrap_or_default());
                    required = None;
                }
                let declared = declared_types(map);
                if declared.contains(&"array") && !map.contains_key("items") {
                    map.insert("items".to_owned(), json!({ "type": ANY_VALUE_TYPES }));
                }
                let unconstrained = [
                    "type",
                    "anyOf",
                    "$ref",
                    "enum",
                    "const",
                    "properties",
                    "items",
                ]
                .iter()
                .all(|key| !map.contains_key(*key));
                if unconstrained {
                    insert_first(map, "type", json!(ANY_VALUE_TYPES));
                }
            }
            SchemaDialect::Conservative => {
                if let Some(names) = &mut required {
                    let properties = map.get("properties").and_then(Value::as_object);
                    names.retain(|name| {
                        properties.is_some_and(|properties| properties.contains_key(name))
                            && !property_nullability
                                .iter()
                                .any(|(property, nullable)| property == name && *nullable)
                    });
                }
            }
            SchemaDialect::OpenAi | SchemaDialect::Anthropic => {}
        }
        if let Some(names) = required {
            map.insert(
                "required".to_owned(),
                Value::Array(names.into_iter().map(Value::String).collect()),
            );
        }
        Ok(())
    }

    /// OpenAI strict objects: every property required (optional ones made
    /// nullable) and no additional properties.
    pub(super) fn close_object(
        &self,
        map: &mut Map<String, Value>,
        originally_required: &[String],
    ) {
        if !map.contains_key("properties") {
            insert_after(map, "type", "properties", json!({}));
        }
        let mut names = Vec::new();
        if let Some(Value::Object(properties)) = map.get_mut("properties") {
            for (name, schema) in properties.iter_mut() {
                if !originally_required.iter().any(|required| required == name) {
                    make_nullable(schema);
                }
                names.push(Value::String(name.clone()));
            }
        }
        insert_after(map, "properties", "required", Value::Array(names));
        insert_after(map, "required", "additionalProperties", Value::Bool(false));
    }
}

/// Records on every direct subschema of `map` that it descends from
/// `ancestry` (references inlined while merging an `allOf` branch), so that
/// recursion through them is still detected below, and only below, them.
pub(super) fn mark_subschemas(map: &mut Map<String, Value>, ancestry: &[String]) {
    let mark = |schema: &mut Value| {
        if let Value::Object(schema) = schema {
            let entry = schema
                .entry(ANCESTRY_KEY)
                .or_insert_with(|| Value::Array(Vec::new()));
            if let Value::Array(references) = entry {
                references.extend(ancestry.iter().cloned().map(Value::String));
            }
        }
    };
    for key in SCHEMA_KEYS {
        if let Some(child) = map.get_mut(*key) {
            mark(child);
        }
    }
    for key in SCHEMA_ARRAY_KEYS {
        if let Some(Value::Array(children)) = map.get_mut(*key) {
            children.iter_mut().for_each(mark);
        }
    }
    for key in SCHEMA_MAP_KEYS {
        if let Some(Value::Object(children)) = map.get_mut(*key) {
            children.values_mut().for_each(mark);
        }
    }
}

/// Names of properties marked with BFCL's non-standard `"optional": true`.
pub(super) fn optional_property_names(map: &Map<String, Value>) -> Vec<String> {
    map.get("properties")
        .and_then(Value::as_object)
        .map(|properties| {
            properties
                .iter()
                .filter(|(_, schema)| schema.get("optional") == Some(&Value::Bool(true)))
                .map(|(name, _)| name.clone())
                .collect()
        })
        .unwrap_or_default()
}

/// Whether two `type` values name the same set of JSON types (aliases resolved).
pub(super) fn same_types(left: &Value, right: &Value) -> bool {
    let canonical = |declared: &Value| {
        let mut map = Map::new();
        map.insert("type".to_owned(), declared.clone());
        let mut types = declared_types(&map);
        types.sort_unstable();
        types
    };
    json_equal(left, right) || canonical(left) == canonical(right)
}

pub(super) fn types_value(types: &[&str]) -> Value {
    match types {
        [single] => json!(single),
        several => json!(several),
    }
}

/// Adds `"null"` to a declared type (OpenAPI `nullable: true`).
pub(super) fn add_null(map: &mut Map<String, Value>) {
    match map.get_mut("type") {
        Some(Value::String(name)) if name != "null" => {
            let name = std::mem::take(name);
            map.insert("type".to_owned(), json!([name, "null"]));
        }
        Some(Value::Array(names)) if !names.iter().any(|name| name == "null") => {
            names.push(json!("null"));
        }
        Some(_) => {}
        None => {
            if let Some(Value::Array(branches)) = map.get_mut("anyOf")
                && !branches.iter().any(is_null_schema)
            {
                branches.push(json!({"type": "null"}));
            }
        }
    }
}

/// Draft 4 boolean exclusive bounds to draft 6+ numeric ones.
pub(super) fn normalize_exclusive_bounds(map: &mut Map<String, Value>) {
    for (flag, bound) in [
        ("exclusiveMinimum", "minimum"),
        ("exclusiveMaximum", "maximum"),
    ] {
        match map.get(flag) {
            Some(Value::Bool(true)) => match map.shift_remove(bound) {
                Some(value) => {
                    map.insert(flag.to_owned(), value);
                }
                None => {
                    map.shift_remove(flag);
                }
            },
            Some(Value::Bool(false)) => {
                map.shift_remove(flag);
            }
            _ => {}
        }
    }
}

/// Makes a normalised OpenAI-strict schema admit `null`.
pub(super) fn make_nullable(schema: &mut Value) {
    let Value::Object(map) = schema else {
        return;
    };
    let already = declared_types(map).contains(&"null")
        || map
            .get("anyOf")
            .and_then(Value::as_array)
            .is_some_and(|branches| branches.iter().any(is_null_schema))
        || is_null_schema(schema);
    if already {
        return;
    }
    let Value::Object(map) = schema else {
        return;
    };
    if map.contains_key("type") && !map.contains_key("const") {
        add_null(map);
        if let Some(Value::Array(options)) = map.get_mut("enum")
            && !options.iter().any(Value::is_null)
        {
            options.push(Value::Null);
        }
    } else if let Some(Value::Array(branches)) = map.get_mut("anyOf") {
        branches.push(json!({"type": "null"}));
    } else {
        let description = map.shift_remove("description");
        let inner = std::mem::take(map);
        map.insert(
            "anyOf".to_owned(),
            json!([Value::Object(inner), {"type": "null"}]),
        );
        if let Some(description) = description {
            map.insert("description".to_owned(), description);
        }
    }
}
