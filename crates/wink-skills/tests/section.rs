//! The skills section: summaries, `read_skill_file`'s sandbox, the `allowed-tools` policy and
//! which skill is active.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

use serde_json::json;
use wink_core::{CallOutcome, Prompt, PromptTemplate, ToolArguments, ToolCall, ToolExecutor};
use wink_session::Session;
use wink_skills::{Skill, SkillsSection, load_skills, read_skill_file};

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn skills_root() -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    write(
        &root.path().join("alpha/SKILL.md"),
        "---\nname: alpha\ndescription: First skill.\nallowed-tools: echo Bash(git:*)\n---\nAlpha body.\n",
    );
    write(
        &root.path().join("alpha/references/guide.md"),
        "Guide text.",
    );
    write(
        &root.path().join("beta/SKILL.md"),
        "---\nname: beta\ndescription: Second skill.\n---\nBeta body.\n",
    );
    write(&root.path().join("secret.txt"), "outside");
    root
}

fn skill(root: &Path, name: &str) -> Skill {
    load_skills(&[root.to_path_buf()])
        .unwrap()
        .into_iter()
        .find(|s| s.name == name)
        .unwrap()
}

#[test]
fn read_skill_file_stays_inside_the_skill_folder() {
    let root = skills_root();
    let alpha = skill(root.path(), "alpha");
    assert_eq!(
        read_skill_file(&alpha, "references/guide.md").unwrap(),
        "Guide text."
    );
    assert_eq!(
        read_skill_file(&alpha, "../secret.txt").unwrap_err(),
        "'../secret.txt' is not a path inside skill 'alpha' (use a relative path without '..')."
    );
    assert_eq!(
        read_skill_file(&alpha, "/etc/passwd").unwrap_err(),
        "'/etc/passwd' is not a path inside skill 'alpha' (use a relative path without '..')."
    );
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(
            root.path().join("secret.txt"),
            root.path().join("alpha/link.txt"),
        )
        .unwrap();
        assert_eq!(
            read_skill_file(&alpha, "link.txt").unwrap_err(),
            "'link.txt' leads outside skill 'alpha'; it cannot be read."
        );
        // Symbolic links are not listed as bundled files.
        assert_eq!(skill(root.path(), "alpha").files, ["references/guide.md"]);
    }
    assert_eq!(
        read_skill_file(&alpha, "nope.md").unwrap_err(),
        "Skill 'alpha' has no file 'nope.md'. Its files: references/guide.md."
    );
}

#[test]
fn read_skill_file_reads_no_more_than_it_shows() {
    let root = skills_root();
    write(&root.path().join("alpha/references/head.md"), "");
    // A sparse file of 64 GiB: reading it whole (as read_skill_file did before cutting it to
    // 64 KiB) would fill the memory; only its first 64 KiB are read.
    let huge = std::fs::OpenOptions::new()
        .write(true)
        .open(root.path().join("alpha/references/head.md"))
        .unwrap();
    huge.set_len(64 * 1024 * 1024 * 1024).unwrap();
    let alpha = skill(root.path(), "alpha");
    let text = read_skill_file(&alpha, "references/head.md").unwrap();
    assert_eq!(
        text.strip_prefix(&"\0".repeat(65_536)),
        Some("\n\n[Cut: the first 65536 of 68719476736 bytes are shown.]")
    );
}

#[test]
fn allowed_tools_entries_allow_the_tool_with_any_arguments() {
    let root = skills_root();
    let alpha = skill(root.path(), "alpha");
    assert!(alpha.allows("echo") && alpha.allows("Bash") && !alpha.allows("rm"));
    assert!(skill(root.path(), "beta").allows("rm"));
}

#[test]
fn summaries_are_capped_at_100_tokens_with_the_name() {
    let root = tempfile::tempdir().unwrap();
    let long = "word ".repeat(180);
    write(
        &root.path().join("long/SKILL.md"),
        &format!("---\nname: long\ndescription: {long}\n---\nBody.\n"),
    );
    let skills = load_skills(&[root.path().to_path_buf()]).unwrap();
    let counter = wink_tokens::TokenCounter::o200k().unwrap();
    let summary = wink_skills::summary_text(&skills[0], &counter);
    assert!(summary.ends_with(" …"), "{summary}");
    assert_eq!(counter.count(&format!("long: {summary}")), 100);
}

fn call(id: &str, name: &str, args: serde_json::Value) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: name.into(),
        arguments: ToolArguments::Json(args),
    }
}

#[test]
fn the_last_skill_read_is_active_and_restricts_the_other_tools() {
    let root = skills_root();
    let echo = wink_core::ToolBuilder::dynamic(
        "echo",
        "Echo.",
        json!({"type": "object", "properties": {}, "additionalProperties": false}),
        |_args, _ctx| Ok(wink_core::ToolResult::message("echoed")),
    )
    .build()
    .unwrap();
    let rm = wink_core::ToolBuilder::dynamic(
        "rm",
        "Remove.",
        json!({"type": "object", "properties": {}, "additionalProperties": false}),
        |_args, _ctx| Ok(wink_core::ToolResult::message("removed")),
    )
    .build()
    .unwrap();
    let skills = load_skills(&[root.path().to_path_buf()]).unwrap();
    let template = PromptTemplate::builder("t", "skills")
        .section(SkillsSection::new("Skills", "skills", skills).unwrap())
        .section(
            wink_core::MarkdownSection::new("Tools", "tools", "Tools.")
                .tool(echo)
                .tool(rm),
        )
        .build()
        .unwrap();
    let session = Session::new();
    let prompt = Prompt::new(template);
    let run = |c: ToolCall| {
        let rendered = prompt.render_with(&session).unwrap();
        let executor = ToolExecutor::new(session.clone(), "t:skills");
        match block_on(executor.execute(&c, &rendered.tools, Some(&rendered))).unwrap() {
            CallOutcome::Completed(outcome) => {
                (outcome.result.model_text(), outcome.result.success)
            }
            other => panic!("{other:?}"),
        }
    };
    assert_eq!(run(call("1", "rm", json!({}))), ("removed".into(), true));
    run(call(
        "2",
        "read_section",
        json!({"section_key": "skills.alpha"}),
    ));
    assert_eq!(
        run(call("3", "rm", json!({}))),
        ("Tool 'rm' is not allowed while skill 'alpha' is active: its allowed-tools are echo Bash(git:*). Read another skill's section to switch skills.".into(), false)
    );
    assert_eq!(run(call("4", "echo", json!({}))), ("echoed".into(), true));
    assert_eq!(
        run(call(
            "5",
            "read_skill_file",
            json!({"skill": "alpha", "path": "references/guide.md"})
        )),
        ("Guide text.".into(), true)
    );
    // Reading another skill (without allowed-tools) lifts the restriction.
    run(call(
        "6",
        "read_section",
        json!({"section_key": "skills.beta"}),
    ));
    assert_eq!(run(call("7", "rm", json!({}))), ("removed".into(), true));
}

/// Drive a future that never waits on I/O to completion.
fn block_on<F: std::future::Future>(future: F) -> F::Output {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    runtime.block_on(future)
}

#[test]
fn a_single_skill_expanded_by_the_session_is_active_before_any_read() {
    let root = skills_root();
    let skills = load_skills(&[root.path().to_path_buf()]).unwrap();
    let section = SkillsSection::new("Skills", "skills", skills).unwrap();
    let session = Session::new();
    let path = |name: &str| wink_core::SectionPath::new(vec!["skills".into(), name.into()]);
    let root_path = wink_core::SectionPath::root("skills");
    assert!(wink_skills::active_skill(&root_path, section.skills(), &session).is_none());
    let _ = session.dispatch(wink_session::SetVisibilityOverride {
        path: path("alpha"),
        visibility: wink_core::SectionVisibility::Full,
    });
    let active = wink_skills::active_skill(&root_path, section.skills(), &session).unwrap();
    assert_eq!(active.name, "alpha");
    // Two expanded skills: which one is meant is unknown, so none is active.
    let _ = session.dispatch(wink_session::SetVisibilityOverride {
        path: path("beta"),
        visibility: wink_core::SectionVisibility::Full,
    });
    assert!(wink_skills::active_skill(&root_path, section.skills(), &session).is_none());
}
