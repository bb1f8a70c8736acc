//! The registry of child prompts `dispatch_subagent` may run.

use std::fmt;
use std::sync::{Arc, PoisonError, RwLock};

use indexmap::IndexMap;
use serde_json::Value;
use wink_core::{ParamsValue, Prompt, PromptError, PromptTemplate, SectionParams};

use super::{DispatchSubagent, PromptRegistryError};

/// A child prompt ready to compose: a template plus params bound as JSON (kept as JSON so they
/// can be bound again on the template composed with the tool suite).
#[derive(Debug, Clone)]
pub struct ChildPrompt {
    template: PromptTemplate,
    bindings: Vec<Result<(String, Value), PromptError>>,
}

impl ChildPrompt {
    /// `template` with nothing bound (section defaults apply).
    pub fn new<O>(template: impl Into<PromptTemplate<O>>) -> Self {
        Self {
            template: template.into().erase(),
            bindings: Vec::new(),
        }
    }

    /// Bind a typed params instance.
    #[must_use]
    pub fn bind<P: SectionParams>(mut self, params: P) -> Self {
        self.bindings.push(
            ParamsValue::from_typed(params)
                .map(|v| (v.type_name().to_owned(), Value::Object(v.fields().clone()))),
        );
        self
    }

    /// Bind params given as JSON for the params type named `type_name`.
    #[must_use]
    pub fn bind_json(mut self, type_name: impl Into<String>, value: Value) -> Self {
        self.bindings.push(Ok((type_name.into(), value)));
        self
    }

    /// The template.
    pub fn template(&self) -> &PromptTemplate {
        &self.template
    }

    pub(super) fn into_prompt(self, template: PromptTemplate) -> Result<Prompt, PromptError> {
        let mut prompt = Prompt::new(template);
        for binding in self.bindings {
            let (type_name, value) = binding?;
            prompt = prompt.bind_json(type_name, value);
        }
        prompt.param_lookup()?;
        Ok(prompt)
    }
}

/// Builds a child prompt for a (validated) dispatch request — e.g. to bind the instructions into
/// a params section. Closures `Fn(&DispatchSubagent) -> Result<ChildPrompt, PromptError>` are
/// factories.
pub trait PromptFactory: Send + Sync {
    /// The child prompt for `request`.
    fn build(&self, request: &DispatchSubagent) -> Result<ChildPrompt, PromptError>;
}

impl<F> PromptFactory for F
where
    F: Fn(&DispatchSubagent) -> Result<ChildPrompt, PromptError> + Send + Sync,
{
    fn build(&self, request: &DispatchSubagent) -> Result<ChildPrompt, PromptError> {
        self(request)
    }
}

/// Where a registered child prompt comes from.
#[non_exhaustive]
#[derive(Clone)]
pub enum PromptSource {
    /// A fixed template, rendered with its section defaults.
    Template(PromptTemplate),
    /// A factory called for each dispatch.
    Factory(Arc<dyn PromptFactory>),
}

impl fmt::Debug for PromptSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Template(t) => f.debug_tuple("Template").field(&t.display_name()).finish(),
            Self::Factory(_) => f.write_str("Factory"),
        }
    }
}

impl PromptSource {
    pub(super) fn child_prompt(
        &self,
        request: &DispatchSubagent,
    ) -> Result<ChildPrompt, PromptError> {
        match self {
            Self::Template(t) => Ok(ChildPrompt::new(t)),
            Self::Factory(f) => f.build(request),
        }
    }
}

#[derive(Debug, Clone)]
struct RegistryEntry {
    source: PromptSource,
    description: Option<String>,
    enabled: bool,
}

/// Child prompts that `dispatch_subagent` may run, keyed by `(ns, key)`, each enabled or
/// disabled. Clones share the same entries, so enabling a prompt after the section was built is
/// seen by the next render and the next call.
#[derive(Clone, Default)]
pub struct PromptRegistry {
    entries: Arc<RwLock<IndexMap<(String, String), RegistryEntry>>>,
}

impl fmt::Debug for PromptRegistry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PromptRegistry")
            .field("prompts", &self.keys())
            .finish()
    }
}

fn registry_key(ns: &str, key: &str) -> Result<(String, String), PromptRegistryError> {
    let (ns, key) = (ns.trim(), key.trim());
    if ns.is_empty() || key.is_empty() {
        return Err(PromptRegistryError::EmptyKey);
    }
    Ok((ns.to_owned(), key.to_owned()))
}

impl PromptRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, IndexMap<(String, String), RegistryEntry>> {
        self.entries.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, IndexMap<(String, String), RegistryEntry>> {
        self.entries.write().unwrap_or_else(PoisonError::into_inner)
    }

    fn insert(
        &self,
        ns: &str,
        key: &str,
        source: PromptSource,
        description: Option<String>,
    ) -> Result<(), PromptRegistryError> {
        let id = registry_key(ns, key)?;
        let mut entries = self.write();
        if entries.contains_key(&id) {
            return Err(PromptRegistryError::Duplicate {
                ns: id.0,
                key: id.1,
            });
        }
        entries.insert(
            id,
            RegistryEntry {
                source,
                description,
                enabled: true,
            },
        );
        Ok(())
    }

    /// Register `template` (enabled) under its own `(ns, key)`; its name, when set, describes it
    /// in the section's list.
    pub fn register<O>(
        &self,
        template: impl Into<PromptTemplate<O>>,
    ) -> Result<(), PromptRegistryError> {
        let template: PromptTemplate = template.into().erase();
        let (ns, key) = (template.ns().to_owned(), template.key().to_owned());
        let description = template.name().map(str::to_owned);
        self.insert(&ns, &key, PromptSource::Template(template), description)
    }

    /// Register a factory (enabled) under `(ns, key)`, described by `description` in the
    /// section's list.
    pub fn register_factory(
        &self,
        ns: &str,
        key: &str,
        description: impl Into<String>,
        factory: impl PromptFactory + 'static,
    ) -> Result<(), PromptRegistryError> {
        self.insert(
            ns,
            key,
            PromptSource::Factory(Arc::new(factory)),
            Some(description.into()),
        )
    }

    fn set_enabled(&self, ns: &str, key: &str, enabled: bool) -> Result<(), PromptRegistryError> {
        let id = registry_key(ns, key)?;
        match self.write().get_mut(&id) {
            Some(entry) => {
                entry.enabled = enabled;
                Ok(())
            }
            None => Err(PromptRegistryError::Unknown {
                ns: id.0,
                key: id.1,
            }),
        }
    }

    /// Allow dispatches of `(ns, key)`.
    pub fn enable(&self, ns: &str, key: &str) -> Result<(), PromptRegistryError> {
        self.set_enabled(ns, key, true)
    }

    /// Refuse dispatches of `(ns, key)` (it stays registered).
    pub fn disable(&self, ns: &str, key: &str) -> Result<(), PromptRegistryError> {
        self.set_enabled(ns, key, false)
    }

    /// The source registered under `(ns, key)`, enabled or not.
    pub fn get(&self, ns: &str, key: &str) -> Option<PromptSource> {
        let id = registry_key(ns, key).ok()?;
        self.read().get(&id).map(|e| e.source.clone())
    }

    /// Whether `(ns, key)` is registered and enabled.
    pub fn is_enabled(&self, ns: &str, key: &str) -> bool {
        registry_key(ns, key)
            .ok()
            .and_then(|id| self.read().get(&id).map(|e| e.enabled))
            .unwrap_or(false)
    }

    /// Every registered `(ns, key)`, in registration order.
    pub fn keys(&self) -> Vec<(String, String)> {
        self.read().keys().cloned().collect()
    }

    /// The enabled `(ns, key)`s, in registration order.
    pub fn enabled_keys(&self) -> Vec<(String, String)> {
        self.read()
            .iter()
            .filter(|(_, e)| e.enabled)
            .map(|(k, _)| k.clone())
            .collect()
    }

    pub(super) fn enabled_listing(&self) -> Vec<(String, String, Option<String>)> {
        self.read()
            .iter()
            .filter(|(_, e)| e.enabled)
            .map(|((ns, key), e)| (ns.clone(), key.clone(), e.description.clone()))
            .collect()
    }

    pub(super) fn enabled_names(&self) -> String {
        let names: Vec<String> = self
            .enabled_keys()
            .into_iter()
            .map(|(ns, key)| format!("'{ns}:{key}'"))
            .collect();
        if names.is_empty() {
            "none".to_owned()
        } else {
            names.join(", ")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wink_core::MarkdownSection;

    fn template(ns: &str, key: &str) -> Arc<PromptTemplate> {
        Arc::new(
            PromptTemplate::builder(ns, key)
                .section(MarkdownSection::new("Role", "role", "Investigate."))
                .build()
                .unwrap(),
        )
    }

    #[test]
    fn registry_registers_enables_disables_and_gets() {
        let registry = PromptRegistry::new();
        registry
            .register(template("research", "investigate"))
            .unwrap();
        assert_eq!(
            registry.register(template("research", "investigate")),
            Err(PromptRegistryError::Duplicate {
                ns: "research".into(),
                key: "investigate".into()
            })
        );
        registry
            .register_factory("research", "bound", "Bound task", |_: &DispatchSubagent| {
                Ok(ChildPrompt::new(template("research", "bound")))
            })
            .unwrap();
        assert!(registry.is_enabled(" research ", "investigate"));
        registry.disable("research", "investigate").unwrap();
        assert!(!registry.is_enabled("research", "investigate"));
        assert!(matches!(
            registry.get("research", "investigate"),
            Some(PromptSource::Template(_))
        ));
        assert!(matches!(
            registry.get("research", "bound"),
            Some(PromptSource::Factory(_))
        ));
        assert_eq!(
            registry.enabled_keys(),
            [("research".to_owned(), "bound".to_owned())]
        );
        assert_eq!(registry.keys().len(), 2);
        registry.enable("research", "investigate").unwrap();
        assert_eq!(registry.enabled_keys().len(), 2);
        assert_eq!(
            registry.enable("x", "y").unwrap_err().to_string(),
            "No subagent prompt is registered as 'x:y'."
        );
        assert_eq!(
            registry.disable(" ", "y"),
            Err(PromptRegistryError::EmptyKey)
        );
        assert!(registry.get("nope", "nope").is_none());
    }
}
