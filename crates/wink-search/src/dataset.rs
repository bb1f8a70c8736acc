//! Loading evaluation catalogs and queries from files the caller names.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

use crate::document::ToolDocument;
use crate::error::SearchError;
use crate::eval::Query;
use crate::task_eval::Task;

/// Loads the pooled BFCL retrieval set from `dir`.
///
/// Every `BFCL_v4_*.json` question file that has an answer file — `BFCL_v4_*.ans.json` beside it,
/// or `possible_answer/BFCL_v4_*.json` as in the upstream repository — is read (JSON lines). The
/// catalog is the union of the offered functions, deduplicated by (name, description) in order
/// of first appearance; each question becomes a [`Query`] whose text is its user turns joined by
/// newlines, whose `relevant` names are the functions called in `ground_truth`, and whose
/// `relevant_documents` are the catalog positions of those functions as offered with that
/// question (the same name can denote different functions in different files). On the shared
/// data this is 1,883 functions and 2,135 queries.
pub fn load_bfcl(dir: &Path) -> Result<(Vec<ToolDocument>, Vec<Query>), SearchError> {
    let entries = fs::read_dir(dir).map_err(|source| SearchError::Read {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut question_files = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|source| SearchError::Read {
            path: dir.to_path_buf(),
            source,
        })?;
        let file_name = entry.file_name().to_string_lossy().into_owned();
        if file_name.starts_with("BFCL_v4_")
            && file_name.ends_with(".json")
            && !file_name.ends_with(".ans.json")
        {
            question_files.push(entry.path());
        }
    }
    question_files.sort();

    let mut pool = BfclPool::default();
    for questions in question_files {
        if let Some(answers) = answer_file(&questions) {
            pool.add_file(&questions, &answers)?;
        }
    }
    if pool.queries.is_empty() {
        return Err(SearchError::EmptyDataset {
            path: dir.to_path_buf(),
            what: "BFCL_v4_*.json question files with answer files",
        });
    }
    Ok((pool.documents, pool.queries))
}

fn answer_file(questions: &Path) -> Option<PathBuf> {
    let stem = questions.file_stem()?.to_string_lossy().into_owned();
    let beside = questions.with_file_name(format!("{stem}.ans.json"));
    if beside.is_file() {
        return Some(beside);
    }
    let upstream = questions
        .parent()?
        .join("possible_answer")
        .join(questions.file_name()?);
    upstream.is_file().then_some(upstream)
}

#[derive(Debug, Default)]
struct BfclPool {
    documents: Vec<ToolDocument>,
    by_name_and_description: HashMap<(String, String), usize>,
    queries: Vec<Query>,
}

#[derive(Debug, Deserialize)]
struct BfclQuestion {
    id: String,
    question: Vec<Vec<BfclTurn>>,
    function: Vec<BfclFunction>,
}

#[derive(Debug, Deserialize)]
struct BfclTurn {
    role: String,
    content: String,
}

#[derive(Debug, Deserialize)]
struct BfclFunction {
    name: String,
    #[serde(default)]
    description: String,
    #[serde(default)]
    parameters: Value,
}

#[derive(Debug, Deserialize)]
struct BfclAnswer {
    id: String,
    ground_truth: Vec<serde_json::Map<String, Value>>,
}

impl BfclPool {
    fn add_file(&mut self, questions: &Path, answers: &Path) -> Result<(), SearchError> {
        let mut called: HashMap<String, Vec<String>> = HashMap::new();
        for (line, text) in json_lines(answers)? {
            let answer: BfclAnswer = parse_line(answers, line, &text)?;
            let mut names: Vec<String> = Vec::new();
            for call in &answer.ground_truth {
                for name in call.keys() {
                    if !names.contains(name) {
                        names.push(name.clone());
                    }
                }
            }
            called.insert(answer.id, names);
        }
        for (line, text) in json_lines(questions)? {
            let question: BfclQuestion = parse_line(questions, line, &text)?;
            let mut offered: HashMap<&str, usize> = HashMap::new();
            for function in &question.function {
                let key = (function.name.clone(), function.description.clone());
                let position = match self.by_name_and_description.get(&key) {
                    Some(&position) => position,
                    None => {
                        let position = self.documents.len();
                        self.documents.push(ToolDocument::from_json_schema(
                            function.name.clone(),
                            function.description.clone(),
                            &function.parameters,
                        ));
                        self.by_name_and_description.insert(key, position);
                        position
                    }
                };
                offered.entry(function.name.as_str()).or_insert(position);
            }
            let relevant = called
                .remove(&question.id)
                .ok_or_else(|| SearchError::Invalid {
                    path: questions.to_path_buf(),
                    line,
                    message: format!(
                        "no answer for id `{}` in {}",
                        question.id,
                        answers.display()
                    ),
                })?;
            let mut relevant_documents = Vec::with_capacity(relevant.len());
            for name in &relevant {
                let position = offered.get(name.as_str()).ok_or_else(|| SearchError::Invalid {
                    path: questions.to_path_buf(),
                    line,
                    message: format!(
                        "ground truth of `{}` calls `{name}`, which the question does not offer",
                        question.id
                    ),
                })?;
                relevant_documents.push(*position);
            }
            let text = question
                .question
                .iter()
                .flatten()
                .filter(|turn| turn.role == "user")
                .map(|turn| turn.content.as_str())
                .collect::<Vec<_>>()
                .join("\n");
            self.queries.push(Query {
                query: text,
                relevant,
                relevant_documents: Some(relevant_documents),
            });
        }
        Ok(())
    }
}

/// One tool per line: `{"name", "description"?, "parameters"?, "tags"?}`; MCP's `inputSchema`
/// is accepted for `parameters`.
#[derive(Debug, Deserialize)]
struct ToolLine {
    name: String,
    #[serde(default)]
    description: String,
    #[serde(default, alias = "inputSchema", alias = "input_schema")]
    parameters: Value,
    #[serde(default)]
    tags: Vec<String>,
}

/// Loads a catalog from JSON lines, one `{"name", "description", "parameters"?, "tags"?}` per
/// line (`inputSchema` is accepted for `parameters`). Blank lines are skipped; a duplicate name is
/// an error naming both lines.
pub fn load_tools_jsonl(path: &Path) -> Result<Vec<ToolDocument>, SearchError> {
    let mut documents = Vec::new();
    let mut first_line: HashMap<String, usize> = HashMap::new();
    for (line, text) in json_lines(path)? {
        let tool: ToolLine = parse_line(path, line, &text)?;
        if tool.name.trim().is_empty() {
            return Err(SearchError::Invalid {
                path: path.to_path_buf(),
                line,
                message: "tool name is empty".to_owned(),
            });
        }
        if let Some(first) = first_line.insert(tool.name.clone(), line) {
            return Err(SearchError::Invalid {
                path: path.to_path_buf(),
                line,
                message: format!(
                    "duplicate tool name `{}` (first on line {first})",
                    tool.name
                ),
            });
        }
        documents.push(
            ToolDocument::from_json_schema(tool.name, tool.description, &tool.parameters)
                .with_tags(tool.tags),
        );
    }
    if documents.is_empty() {
        return Err(SearchError::EmptyDataset {
            path: path.to_path_buf(),
            what: "tools",
        });
    }
    Ok(documents)
}

#[derive(Debug, Deserialize)]
struct QueryLine {
    query: String,
    relevant: Vec<String>,
}

/// Loads labelled queries from JSON lines, one `{"query", "relevant": [names]}` per line. Blank
/// lines are skipped; an empty `relevant` list is an error.
pub fn load_queries_jsonl(path: &Path) -> Result<Vec<Query>, SearchError> {
    let mut queries = Vec::new();
    for (line, text) in json_lines(path)? {
        let parsed: QueryLine = parse_line(path, line, &text)?;
        if parsed.relevant.is_empty() {
            return Err(SearchError::Invalid {
                path: path.to_path_buf(),
                line,
                message: "`relevant` lists no tool".to_owned(),
            });
        }
        queries.push(Query::new(parsed.query, parsed.relevant));
    }
    if queries.is_empty() {
        return Err(SearchError::EmptyDataset {
            path: path.to_path_buf(),
            what: "queries",
        });
    }
    Ok(queries)
}

/// Tasks loaded from a file, with the line each came from (for error messages).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskSet {
    /// The file.
    pub path: PathBuf,
    /// The tasks in file order.
    pub tasks: Vec<Task>,
    /// The 1-based line of each task.
    pub lines: Vec<usize>,
}

impl TaskSet {
    /// Checks that every tool a task names is known (`known` says whether a name is); the error
    /// names the file, the line, the task and the first unknown tool.
    pub fn check_names(&self, known: impl Fn(&str) -> bool) -> Result<(), SearchError> {
        for (task, &line) in self.tasks.iter().zip(&self.lines) {
            for needed in &task.tools {
                if let Some(name) = needed.names().iter().find(|name| !known(name)) {
                    return Err(SearchError::Invalid {
                        path: self.path.clone(),
                        line,
                        message: format!(
                            "task `{}` needs `{name}`, which is not in the catalog",
                            task.id
                        ),
                    });
                }
            }
        }
        Ok(())
    }

    /// The distinct splits named by the tasks, in order of first appearance.
    pub fn splits(&self) -> Vec<&str> {
        let mut splits: Vec<&str> = Vec::new();
        for split in self.tasks.iter().filter_map(|task| task.split.as_deref()) {
            if !splits.contains(&split) {
                splits.push(split);
            }
        }
        splits
    }
}

/// Loads tasks from JSON lines, one `{"id", "task", "tools": [name or [alternatives], …],
/// "split"?}` per line. Blank lines are skipped; an empty id, task or tool list, an empty
/// alternative list or name, and a repeated id are errors naming the line.
pub fn load_tasks_jsonl(path: &Path) -> Result<TaskSet, SearchError> {
    let mut set = TaskSet {
        path: path.to_path_buf(),
        tasks: Vec::new(),
        lines: Vec::new(),
    };
    let mut first_line: HashMap<String, usize> = HashMap::new();
    for (line, text) in json_lines(path)? {
        let task: Task = parse_line(path, line, &text)?;
        let invalid = |message: String| SearchError::Invalid {
            path: path.to_path_buf(),
            line,
            message,
        };
        if task.id.trim().is_empty() {
            return Err(invalid("`id` is empty".to_owned()));
        }
        if task.task.trim().is_empty() {
            return Err(invalid(format!("task `{}`: `task` is empty", task.id)));
        }
        if task.tools.is_empty() {
            return Err(invalid(format!(
                "task `{}`: `tools` lists no tool",
                task.id
            )));
        }
        if task.tools.iter().any(|needed| {
            needed.names().is_empty() || needed.names().iter().any(|n| n.trim().is_empty())
        }) {
            return Err(invalid(format!(
                "task `{}`: a tool name or list of alternatives is empty",
                task.id
            )));
        }
        if let Some(first) = first_line.insert(task.id.clone(), line) {
            return Err(invalid(format!(
                "duplicate task id `{}` (first on line {first})",
                task.id
            )));
        }
        set.tasks.push(task);
        set.lines.push(line);
    }
    if set.tasks.is_empty() {
        return Err(SearchError::EmptyDataset {
            path: path.to_path_buf(),
            what: "tasks",
        });
    }
    Ok(set)
}

/// Non-blank lines of `path` with their 1-based line numbers.
fn json_lines(path: &Path) -> Result<Vec<(usize, String)>, SearchError> {
    let text = fs::read_to_string(path).map_err(|source| SearchError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(text
        .lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(index, line)| (index + 1, line.to_owned()))
        .collect())
}

fn parse_line<T: for<'de> Deserialize<'de>>(
    path: &Path,
    line: usize,
    text: &str,
) -> Result<T, SearchError> {
    serde_json::from_str(text).map_err(|error| SearchError::Invalid {
        path: path.to_path_buf(),
        line,
        message: error.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    struct TempDir(PathBuf);

    impl TempDir {
        fn new(label: &str) -> Self {
            let path = std::env::temp_dir().join(format!(
                "wink-search-{label}-{}-{:?}",
                std::process::id(),
                std::thread::current().id()
            ));
            let _ = fs::remove_dir_all(&path);
            fs::create_dir_all(&path).unwrap();
            Self(path)
        }

        fn write(&self, name: &str, text: &str) -> PathBuf {
            let path = self.0.join(name);
            if let Some(parent) = path.parent() {
                fs::create_dir_all(parent).unwrap();
            }
            fs::write(&path, text).unwrap();
            path
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn tools_and_queries_load_from_json_lines() {
        let dir = TempDir::new("jsonl");
        let tools = dir.write(
            "tools.jsonl",
            concat!(
                r#"{"name": "file.read", "description": "Reads a file. Fast.", "parameters": {"properties": {"path": {"description": "Where."}}}}"#,
                "\n\n",
                r#"{"name": "web_search", "inputSchema": {"properties": {"q": {}}}, "tags": ["web"]}"#,
                "\n"
            ),
        );
        let documents = load_tools_jsonl(&tools).unwrap();
        assert_eq!(documents.len(), 2);
        assert_eq!(documents[0].summary, "Reads a file.");
        assert_eq!(documents[0].parameters[0].description, "Where.");
        assert_eq!(documents[1].parameters[0].name, "q");
        assert_eq!(documents[1].tags, ["web"]);

        let queries = dir.write(
            "q.jsonl",
            "{\"query\": \"read a file\", \"relevant\": [\"file.read\"]}\n",
        );
        assert_eq!(
            load_queries_jsonl(&queries).unwrap(),
            [Query::new("read a file", ["file.read"])]
        );
    }

    #[test]
    fn errors_name_the_file_and_line() {
        let dir = TempDir::new("errors");
        let bad = dir.write(
            "tools.jsonl",
            "{\"name\": \"a\"}\n{\"description\": \"x\"}\n",
        );
        let message = load_tools_jsonl(&bad).unwrap_err().to_string();
        assert!(
            message.starts_with(&format!("{}:2: missing field `name`", bad.display())),
            "{message}"
        );

        let duplicate = dir.write("dup.jsonl", "{\"name\": \"a\"}\n\n{\"name\": \"a\"}\n");
        let message = load_tools_jsonl(&duplicate).unwrap_err().to_string();
        assert_eq!(
            message,
            format!(
                "{}:3: duplicate tool name `a` (first on line 1)",
                duplicate.display()
            )
        );

        let empty_relevant = dir.write("q.jsonl", "{\"query\": \"x\", \"relevant\": []}\n");
        let message = load_queries_jsonl(&empty_relevant).unwrap_err().to_string();
        assert_eq!(
            message,
            format!("{}:1: `relevant` lists no tool", empty_relevant.display())
        );

        let blank = dir.write("blank.jsonl", "\n \n");
        let message = load_queries_jsonl(&blank).unwrap_err().to_string();
        assert_eq!(message, format!("{}: contains no queries", blank.display()));

        let missing = dir.0.join("absent.jsonl");
        let message = load_queries_jsonl(&missing).unwrap_err().to_string();
        assert!(
            message.starts_with(&format!("cannot read {}: ", missing.display())),
            "{message}"
        );
    }

    #[test]
    fn tasks_load_with_their_lines_and_bad_lines_are_named() {
        let dir = TempDir::new("tasks");
        let good = dir.write(
            "tasks.jsonl",
            concat!(
                r#"{"id": "a", "task": "Find x, then chart it.", "tools": ["t.find", ["t.bar", "t.line"]], "split": "dev"}"#,
                "\n\n",
                r#"{"id": "b", "task": "Save it.", "tools": ["t.save"], "split": "held-out"}"#,
                "\n"
            ),
        );
        let set = load_tasks_jsonl(&good).unwrap();
        assert_eq!(set.lines, [1, 3]);
        assert_eq!(set.splits(), ["dev", "held-out"]);
        assert_eq!(set.tasks[0].tools[1].names(), ["t.bar", "t.line"]);
        set.check_names(|name| name.starts_with("t.")).unwrap();
        let message = set
            .check_names(|name| name != "t.line")
            .unwrap_err()
            .to_string();
        assert_eq!(
            message,
            format!(
                "{}:1: task `a` needs `t.line`, which is not in the catalog",
                good.display()
            )
        );
        for (text, error) in [
            (
                r#"{"id": "", "task": "x", "tools": ["a"]}"#,
                "`id` is empty",
            ),
            (
                r#"{"id": "a", "task": " ", "tools": ["a"]}"#,
                "task `a`: `task` is empty",
            ),
            (
                r#"{"id": "a", "task": "x", "tools": []}"#,
                "task `a`: `tools` lists no tool",
            ),
            (
                r#"{"id": "a", "task": "x", "tools": [[]]}"#,
                "task `a`: a tool name or list of alternatives is empty",
            ),
        ] {
            let path = dir.write("bad.jsonl", text);
            let message = load_tasks_jsonl(&path).unwrap_err().to_string();
            assert_eq!(message, format!("{}:1: {error}", path.display()));
        }
        let duplicate = dir.write(
            "dup.jsonl",
            "{\"id\": \"a\", \"task\": \"x\", \"tools\": [\"t\"]}\n{\"id\": \"a\", \"task\": \"y\", \"tools\": [\"t\"]}\n",
        );
        let message = load_tasks_jsonl(&duplicate).unwrap_err().to_string();
        assert_eq!(
            message,
            format!(
                "{}:2: duplicate task id `a` (first on line 1)",
                duplicate.display()
            )
        );
        let empty = dir.write("empty.jsonl", "\n");
        let message = load_tasks_jsonl(&empty).unwrap_err().to_string();
        assert_eq!(message, format!("{}: contains no tasks", empty.display()));
    }

    #[test]
    fn bfcl_files_are_pooled_with_per_question_relevance() {
        let dir = TempDir::new("bfcl");
        let f = |name: &str, description: &str| {
            format!(
                r#"{{"name": "{name}", "description": "{description}", "parameters": {{"type": "dict", "properties": {{}}}}}}"#
            )
        };
        let first = format!(
            r#"{{"id": "a0", "question": [[{{"role": "system", "content": "sys"}}, {{"role": "user", "content": "weather in Paris"}}]], "function": [{}, {}]}}"#,
            f("get_weather", "Weather v1."),
            f("get_time", "Time.")
        );
        let second = format!(
            r#"{{"id": "a1", "question": [[{{"role": "user", "content": "time please"}}]], "function": [{}]}}"#,
            f("get_time", "Time.")
        );
        dir.write("BFCL_v4_a.json", &format!("{first}\n{second}\n"));
        dir.write(
            "BFCL_v4_a.ans.json",
            "{\"id\": \"a1\", \"ground_truth\": [{\"get_time\": {}}]}\n{\"id\": \"a0\", \"ground_truth\": [{\"get_weather\": {}}, {\"get_weather\": {}}]}\n",
        );
        dir.write(
            "possible_answer/BFCL_v4_b.json",
            "{\"id\": \"b0\", \"ground_truth\": [{\"get_weather\": {}}]}\n",
        );
        dir.write(
            "BFCL_v4_b.json",
            &format!(
                r#"{{"id": "b0", "question": [[{{"role": "user", "content": "forecast"}}]], "function": [{}]}}"#,
                f("get_weather", "Weather v2.")
            ),
        );
        dir.write("BFCL_v4_irrelevance.json", "not even json\n");

        let (documents, queries) = load_bfcl(&dir.0).unwrap();
        let names: Vec<(&str, &str)> = documents
            .iter()
            .map(|d| (d.name.as_str(), d.description.as_str()))
            .collect();
        assert_eq!(
            names,
            [
                ("get_weather", "Weather v1."),
                ("get_time", "Time."),
                ("get_weather", "Weather v2.")
            ]
        );
        assert_eq!(
            queries,
            [
                Query {
                    query: "weather in Paris".into(),
                    relevant: vec!["get_weather".into()],
                    relevant_documents: Some(vec![0]),
                },
                Query {
                    query: "time please".into(),
                    relevant: vec!["get_time".into()],
                    relevant_documents: Some(vec![1]),
                },
                Query {
                    query: "forecast".into(),
                    relevant: vec!["get_weather".into()],
                    relevant_documents: Some(vec![2]),
                },
            ]
        );
    }

    #[test]
    fn bfcl_errors_name_the_question_line() {
        let dir = TempDir::new("bfcl-errors");
        dir.write(
            "BFCL_v4_x.json",
            "\n{\"id\": \"x0\", \"question\": [[{\"role\": \"user\", \"content\": \"q\"}]], \"function\": [{\"name\": \"f\"}]}\n",
        );
        dir.write(
            "BFCL_v4_x.ans.json",
            "{\"id\": \"x0\", \"ground_truth\": [{\"g\": {}}]}\n",
        );
        let message = load_bfcl(&dir.0).unwrap_err().to_string();
        assert_eq!(
            message,
            format!(
                "{}:2: ground truth of `x0` calls `g`, which the question does not offer",
                dir.0.join("BFCL_v4_x.json").display()
            )
        );
        let empty = TempDir::new("bfcl-empty");
        let message = load_bfcl(&empty.0).unwrap_err().to_string();
        assert_eq!(
            message,
            format!(
                "{}: contains no BFCL_v4_*.json question files with answer files",
                empty.0.display()
            )
        );
    }
}
