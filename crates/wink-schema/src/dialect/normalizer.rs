//! The normaliser's walk: one node at a time, rewritten until nothing changes
//! (references inlined, `allOf` merged), then its children.

use super::*;

/// The result of normalising one schema node.
pub(super) struct Normalized {
    pub(super) value: Value,
    /// The node admitted `null` before the conservative dialect removed it.
    pub(super) nullable: bool,
}

pub(super) struct Normalizer<'a> {
    pub(super) root: &'a Value,
    pub(super) dialect: SchemaDialect,
    /// JSON Pointer tokens from the input root to the node being normalised.
    pub(super) path: Vec<String>,
    /// `$ref`s inlined on the way to the current node (recursion detection).
    pub(super) references: Vec<String>,
}

impl Normalizer<'_> {
    pub(super) fn here(&self) -> String {
        let mut out = String::from("#");
        for token in &self.path {
            out.push('/');
            out.push_str(&token.replace('~', "~0").replace('/', "~1"));
        }
        out
    }

    pub(super) fn invalid(&self, keyword: &str, reason: impl Into<String>) -> SchemaError {
        SchemaError::InvalidKeyword {
            path: self.here(),
            keyword: keyword.to_owned(),
            reason: reason.into(),
        }
    }

    pub(super) fn unsupported(&self, reason: impl Into<String>) -> SchemaError {
        SchemaError::Unsupported {
            path: self.here(),
            reason: reason.into(),
            dialect: self.dialect,
        }
    }

    pub(super) fn node(&mut self, schema: &Value) -> Result<Normalized, SchemaError> {
        match schema {
            Value::Bool(true) => self.node_map(Map::new()),
            Value::Bool(false) if self.dialect.restricts_keywords() => {
                Err(self.unsupported("the `false` schema (no value allowed)"))
            }
            Value::Bool(false) => Ok(Normalized {
                value: Value::Bool(false),
                nullable: false,
            }),
            Value::Object(map) => self.node_map(map.clone()),
            other => Err(SchemaError::NotASchema {
                path: self.here(),
                found: type_of(other),
            }),
        }
    }

    pub(super) fn node_map(&mut self, map: Map<String, Value>) -> Result<Normalized, SchemaError> {
        let depth = self.references.len();
        let result = self.normalize_map(map);
        self.references.truncate(depth);
        result
    }

    pub(super) fn normalize_map(
        &mut self,
        mut map: Map<String, Value>,
    ) -> Result<Normalized, SchemaError> {
        let nullable = self.rewrite(&mut map)?;
        let optional_properties = optional_property_names(&map);
        self.filter_keywords(&mut map);
        let property_nullability = self.normalize_children(&mut map)?;
        self.finish(&mut map, &property_nullability, &optional_properties)?;
        Ok(Normalized {
            value: Value::Object(map),
            nullable,
        })
    }

    /// Rewrites the node itself (not its children) until nothing changes;
    /// returns whether the conservative dialect removed a `null` from it.
    pub(super) fn rewrite(&mut self, map: &mut Map<String, Value>) -> Result<bool, SchemaError> {
        let mut nullable = false;
        for _ in 0..MAX_REWRITE_ROUNDS {
            self.absorb_ancestry(map);
            if let Some(reference) = map.get("$ref") {
                let Some(reference) = reference.as_str().map(str::to_owned) else {
                    return Err(self.invalid("$ref", "must be a string"));
                };
                if self.must_inline(map) {
                    let recursive = self.references.contains(&reference);
                    if recursive && self.dialect == SchemaDialect::OpenAiStrict {
                        // Strict keeps recursion as a bare `$ref`, dropping the siblings.
                        map.retain(|key, _| key == "$ref");
                    } else {
                        self.inline_reference(map, &reference)?;
                        continue;
                    }
                }
            }
            if self.dialect.restricts_keywords() {
                if map.contains_key("allOf") {
                    self.merge_all_of(map)?;
                    continue;
                }
                if let Some(branches) = map.shift_remove("oneOf") {
                    if map.contains_key("anyOf") {
                        return Err(self.unsupported("`oneOf` next to `anyOf`"));
                    }
                    map.insert("anyOf".to_owned(), branches);
                }
            }
            self.normalize_type(map)?;
            if map.shift_remove("nullable") == Some(Value::Bool(true)) {
                add_null(map);
            }
            normalize_exclusive_bounds(map);
            self.reconcile_enum(map)?;
            if self.dialect == SchemaDialect::Conservative {
                let (changed, removed_null) = self.remove_nulls(map)?;
                nullable |= removed_null;
                if let Some(constant) = map.shift_remove("const") {
                    if !map.contains_key("enum") {
                        map.insert("enum".to_owned(), Value::Array(vec![constant]));
                    }
                    continue;
                }
                if changed {
                    continue;
                }
            }
            self.normalize_tuple(map)?;
            return Ok(nullable);
        }
        Err(self.unsupported("a schema that does not stabilise under rewriting"))
    }

    /// Takes the ancestry marker left by [`mark_subschemas`] and puts those
    /// references on the recursion stack for this node's subtree.
    pub(super) fn absorb_ancestry(&mut self, map: &mut Map<String, Value>) {
        if let Some(Value::Array(references)) = map.shift_remove(ANCESTRY_KEY) {
            self.references.extend(references.into_iter().filter_map(
                |reference| match reference {
                    Value::String(reference) => Some(reference),
                    _ => None,
                },
            ));
        }
    }

    pub(super) fn must_inline(&self, map: &Map<String, Value>) -> bool {
        match self.dialect {
            SchemaDialect::Conservative => true,
            SchemaDialect::OpenAiStrict => map.iter().any(|(key, value)| {
                key != "$ref" && key != "$defs" && key != "definitions" && self.keeps(key, value)
            }),
            SchemaDialect::OpenAi | SchemaDialect::Anthropic => false,
        }
    }

    pub(super) fn inline_reference(
        &mut self,
        map: &mut Map<String, Value>,
        reference: &str,
    ) -> Result<(), SchemaError> {
        if self.references.iter().any(|seen| seen == reference) {
            return Err(SchemaError::RecursiveRef {
                path: self.here(),
                reference: reference.to_owned(),
                dialect: self.dialect,
            });
        }
        let target =
            resolve_ref(self.root, reference).ok_or_else(|| SchemaError::UnresolvedRef {
                path: self.here(),
                reference: reference.to_owned(),
            })?;
        let target = match target {
            Value::Object(target) => target.clone(),
            Value::Bool(true) => Map::new(),
            other => {
                return Err(SchemaError::NotASchema {
                    path: reference.to_owned(),
                    found: type_of(other),
                });
            }
        };
        self.references.push(reference.to_owned());
        let siblings = std::mem::replace(map, target);
        for (key, value) in siblings {
            if key != "$ref" {
                map.insert(key, value);
            }
        }
        Ok(())
    }

    pub(super) fn merge_all_of(&mut self, map: &mut Map<String, Value>) -> Result<(), SchemaError> {
        let Some(Value::Array(branches)) = map.shift_remove("allOf") else {
            return Err(self.invalid("allOf", "must be an array of schemas"));
        };
        for branch in branches {
            let mut branch = match branch {
                Value::Object(branch) => branch,
                Value::Bool(true) => continue,
                other => {
                    return Err(SchemaError::NotASchema {
                        path: format!("{}/allOf", self.here()),
                        found: type_of(&other),
                    });
                }
            };
            let depth = self.references.len();
            loop {
                if let Some(reference) = branch
                    .get("$ref")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
                {
                    self.inline_reference(&mut branch, &reference)?;
                } else if branch.contains_key("allOf") {
                    self.merge_all_of(&mut branch)?;
                } else {
                    break;
                }
            }
            // The references inlined for this branch are ancestors of its
            // subschemas only, not of the siblings merged from other branches.
            let ancestry = self.references.split_off(depth);
            if !ancestry.is_empty() {
                mark_subschemas(&mut branch, &ancestry);
            }
            for (key, value) in branch {
                match (key.as_str(), map.get_mut(&key)) {
                    ("properties", Some(Value::Object(existing))) => {
                        if let Value::Object(added) = value {
                            for (name, schema) in added {
                                existing.entry(name).or_insert(schema);
                            }
                        }
                    }
                    ("required", Some(Value::Array(existing))) => {
                        if let Value::Array(added) = value {
                            for name in added {
                                if !existing.contains(&name) {
                                    existing.push(name);
                                }
                            }
                        }
                    }
                    ("type", Some(existing)) => {
                        if !same_types(existing, &value) {
                            return Err(self.unsupported("`allOf` branches with different types"));
                        }
                    }
                    (_, Some(_)) => {}
                    (_, None) => {
                        map.insert(key, value);
                    }
                }
            }
        }
        Ok(())
    }
}
