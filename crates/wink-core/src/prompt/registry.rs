//! The registry that validates a section tree while flattening it: keys and paths,
//! parameter types and defaults, tool names, placeholders, numbering.

use std::borrow::Cow;

use super::*;
use crate::key::normalized_section_key;
use crate::quick_hash::QuickHashBuilder;

/// The registry of one build. `'a` is the borrow of the template's sections: the sets of keys and
/// tool names borrow them rather than copy them (issue 22).
#[derive(Default)]
pub(super) struct Registry<'a> {
    pub(super) nodes: Vec<SectionNode>,
    pub(super) params_types: Vec<ParamsType>,
    pub(super) defaults_by_type: HashMap<ParamsTypeId, ParamsValue>,
    /// Every registered tool name: a name may appear once per prompt.
    pub(super) tool_names: HashSet<&'a str, QuickHashBuilder>,
    pub(super) numbering: Vec<usize>,
    /// Every registered path, as (index of the parent node or `usize::MAX` for a root, normalised
    /// key): duplicate keys are found in O(1), so loading stays linear.
    pub(super) paths: HashSet<(usize, Cow<'a, str>), QuickHashBuilder>,
    /// Name → id of every registered params type.
    pub(super) params_type_names: HashMap<String, ParamsTypeId>,
}

impl<'a> Registry<'a> {
    /// Room for `sections` sections.
    pub(super) fn reserve(&mut self, sections: usize) {
        self.nodes.reserve(sections);
        self.paths.reserve(sections);
    }

    pub(super) fn next_number(&mut self, depth: usize) -> String {
        self.numbering.truncate(depth + 1);
        if self.numbering.len() <= depth {
            self.numbering.resize(depth + 1, 1);
        } else if let Some(last) = self.numbering.last_mut() {
            *last += 1;
        }
        let mut number = String::with_capacity(4 * self.numbering.len());
        for (i, n) in self.numbering.iter().enumerate() {
            if i > 0 {
                number.push('.');
            }
            push_decimal(&mut number, *n);
        }
        number
    }

    /// Registers `section` (and its subtree) under the node at index `parent` (`None`: a root).
    pub(super) fn register(
        &mut self,
        section: &'a SectionRef,
        parent: Option<usize>,
        depth: usize,
    ) -> Result<(), PromptError> {
        let (key, path) = self.new_path(section.as_ref(), parent)?;
        if let Some(error) = section.construction_error() {
            return Err(error.clone().with_section_path(&path));
        }
        let params_type = section.params_type();
        self.check_placeholders(section.as_ref(), &path, params_type)?;
        self.register_default(section.as_ref(), &path, params_type)?;
        if let Some(ty) = params_type {
            self.register_params_type(ty, &path)?;
        }
        self.register_tools(section.as_ref(), &path)?;
        check_summary_suffix(section.as_ref(), &path)?;
        let number = self.next_number(depth);
        let index = self.nodes.len();
        let has_tools = !section.tools().is_empty();
        self.nodes.push(SectionNode {
            section: Arc::clone(section),
            key,
            path,
            depth,
            number,
            index,
            subtree_end: index + 1,
            subtree_has_tools: has_tools,
        });
        let mut descendants_have_tools = false;
        for child in section.children() {
            let child_index = self.nodes.len();
            self.register(child, Some(index), depth + 1)?;
            descendants_have_tools |= self.nodes[child_index].subtree_has_tools;
        }
        let end = self.nodes.len();
        let node = &mut self.nodes[index];
        node.subtree_end = end;
        node.subtree_has_tools = has_tools || descendants_have_tools;
        Ok(())
    }

    /// The section's normalised key and its path under `parent`; a path seen before is an error.
    fn new_path(
        &mut self,
        section: &'a dyn Section,
        parent: Option<usize>,
    ) -> Result<(String, SectionPath), PromptError> {
        let parent_path = parent.and_then(|i| self.nodes.get(i)).map(|n| &n.path);
        let key = normalized_section_key(section.key()).map_err(|e| {
            let raw = python_strip(section.key()).to_lowercase();
            match parent_path {
                Some(p) => e.with_section_path(&p.child(raw)),
                None => e.with_section_path(&SectionPath::root(raw)),
            }
        })?;
        let owned = key.clone().into_owned();
        let path = match parent_path {
            Some(p) => p.child(owned.clone()),
            None => SectionPath::root(owned.clone()),
        };
        if !self.paths.insert((parent.unwrap_or(usize::MAX), key)) {
            return Err(
                PromptError::validation(format!("Duplicate section key '{owned}'."))
                    .with_section_path(&path),
            );
        }
        Ok((owned, path))
    }

    /// Records the section's default parameters, which must be of its own parameters type.
    fn register_default(
        &mut self,
        section: &dyn Section,
        path: &SectionPath,
        params_type: Option<&ParamsType>,
    ) -> Result<(), PromptError> {
        if let Some(default) = section.default_params() {
            let Some(ty) = params_type else {
                return Err(PromptError::validation(
                    "Section without parameters cannot define default_params.",
                )
                .with_section_path(path));
            };
            if default.type_id() != ty.id() {
                return Err(PromptError::validation(
                    "Section defaults must match section params type.",
                )
                .with_section_path(path)
                .with_params_type(ty.name()));
            }
            self.defaults_by_type
                .entry(ty.id().clone())
                .or_insert_with(|| default.clone());
        }
        Ok(())
    }

    /// Records a parameters type; two different types may not share a name.
    fn register_params_type(
        &mut self,
        ty: &ParamsType,
        path: &SectionPath,
    ) -> Result<(), PromptError> {
        match self.params_type_names.get(ty.name()) {
            Some(id) if id == ty.id() => {}
            Some(_) => {
                return Err(PromptError::validation(format!(
                    "Two different params types are named '{}'.",
                    ty.name()
                ))
                .with_section_path(path)
                .with_params_type(ty.name()));
            }
            None => {
                self.params_type_names
                    .insert(ty.name().to_owned(), ty.id().clone());
                self.params_types.push(ty.clone());
            }
        }
        Ok(())
    }

    /// Records the section's tools; a tool name may appear once per prompt.
    fn register_tools(
        &mut self,
        section: &'a dyn Section,
        path: &SectionPath,
    ) -> Result<(), PromptError> {
        for tool in section.tools() {
            if !self.tool_names.insert(tool.name()) {
                return Err(
                    PromptError::validation("Duplicate tool name registered for prompt.")
                        .with_section_path(path)
                        .with_placeholder(tool.name()),
                );
            }
        }
        Ok(())
    }

    pub(super) fn check_placeholders(
        &self,
        section: &dyn Section,
        path: &SectionPath,
        params_type: Option<&ParamsType>,
    ) -> Result<(), PromptError> {
        let known = |name: &str| params_type.is_some_and(|ty| ty.has_field(name));
        let Some(unknown) = section.unknown_placeholder(&known) else {
            return Ok(());
        };
        Err(match params_type {
            None => PromptError::validation(
                "Section does not accept parameters but declares placeholders.",
            )
            .with_section_path(path)
            .with_placeholder(unknown),
            Some(ty) => PromptError::validation("Template references unknown placeholder.")
                .with_section_path(path)
                .with_params_type(ty.name())
                .with_placeholder(unknown),
        })
    }
}

/// A summary suffix may use only the suffix placeholders.
fn check_summary_suffix(section: &dyn Section, path: &SectionPath) -> Result<(), PromptError> {
    if let Some(suffix) = section.summary_suffix() {
        let t = Template::parse_section(suffix);
        if let Some((line, col)) = t.first_invalid_placeholder() {
            return Err(PromptError::validation(format!(
                "Invalid placeholder in string: line {line}, col {col}"
            ))
            .with_section_path(path)
            .with_placeholder("summary_suffix"));
        }
        if let Some(bad) = t
            .placeholder_names()
            .into_iter()
            .find(|p| !SUFFIX_PLACEHOLDERS.contains(p))
        {
            return Err(
                PromptError::validation("Summary suffix references unknown placeholder.")
                    .with_section_path(path)
                    .with_placeholder(bad),
            );
        }
    }
    Ok(())
}

/// Appends `n` in decimal (without the formatting machinery: one call per section).
fn push_decimal(out: &mut String, n: usize) {
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    let mut rest = n;
    loop {
        start -= 1;
        digits[start] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    for &digit in &digits[start..] {
        out.push(char::from(digit));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_are_written_like_display() {
        for n in [0, 7, 10, 99, 1234, usize::MAX] {
            let mut out = String::from("x");
            push_decimal(&mut out, n);
            assert_eq!(out, format!("x{n}"));
        }
    }
}
