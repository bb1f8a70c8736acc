//! The command lines `wink` accepts, parsed as `wink` parses them (nothing is run).
//!
//! Every `wink` command the README and the pages under `docs/` show is one this binary accepts:
//! each line of a `sh`/`bash` block that starts with `wink` (and each `$ wink` line of a `text`
//! block) goes through the same argument parser as the command line. Synopsis notation is read
//! as a reader would: `[optional]` parts are left out, `a|b` means either (each alternative of a
//! subcommand is checked, the first of anything else), `DIR…` is one `DIR`, and a line that
//! elides arguments (`...`, `…`) only checks that its subcommand exists. Pipes, `&&` lists and
//! redirections are the shell's. `sh runnable` blocks are left to
//! `tests/doc_pages.rs`, which executes them; the commands of the other blocks that run without a
//! model or a service are executed by the tests of their features, and this test keeps every line
//! honest.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

use clap::error::ErrorKind;
use clap::{CommandFactory, Parser};
use wink_cli::{Cli, Command, RenderCommand, RenderOnly};

/// One command line shown in a page: where it is and its words.
struct Shown {
    place: String,
    words: Vec<Word>,
}

/// A shell word: its text with quotes removed, and whether it was quoted anywhere.
#[derive(Debug, Clone, PartialEq)]
struct Word {
    text: String,
    quoted: bool,
}

/// The words of a shell line up to an unquoted `#` comment.
fn shell_words(line: &str) -> Vec<Word> {
    let mut words = Vec::new();
    let mut current: Option<Word> = None;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' | '"' => {
                let word = current.get_or_insert(Word {
                    text: String::new(),
                    quoted: true,
                });
                word.quoted = true;
                for inner in chars.by_ref() {
                    if inner == c {
                        break;
                    }
                    word.text.push(inner);
                }
            }
            '#' if current.is_none() => break,
            c if c.is_whitespace() => words.extend(current.take()),
            c => current
                .get_or_insert(Word {
                    text: String::new(),
                    quoted: false,
                })
                .text
                .push(c),
        }
    }
    words.extend(current);
    words
}

/// The commands of `markdown`'s shell blocks (and `$ ` lines of its text blocks) that start
/// with `wink`, with backslash continuations joined and `&&`/`;` lists split.
fn shown_commands(file: &str, markdown: &str) -> Vec<Shown> {
    let mut shown = Vec::new();
    let mut block: Option<String> = None;
    let mut pending: Option<(usize, String)> = None;
    for (index, line) in markdown.lines().enumerate() {
        if let Some(info) = line.strip_prefix("```") {
            block = match block {
                None => Some(info.trim().to_owned()),
                Some(_) => None,
            };
            continue;
        }
        let Some(info) = &block else { continue };
        let mut info_words = info.split_whitespace();
        let text = match info_words.next() {
            // `sh runnable` blocks are executed by `tests/doc_pages.rs`.
            Some("sh" | "bash") if info_words.any(|w| w == "runnable") => continue,
            Some("sh" | "bash") => line,
            Some("text") => match line.strip_prefix("$ ") {
                Some(rest) => rest,
                None => continue,
            },
            _ => continue,
        };
        let (start, mut joined) = pending.take().unwrap_or((index + 1, String::new()));
        match text.strip_suffix('\\') {
            Some(head) => {
                joined.push_str(head);
                joined.push(' ');
                pending = Some((start, joined));
                continue;
            }
            None => joined.push_str(text),
        }
        let words = shell_words(&joined);
        let separator = |w: &Word| !w.quoted && matches!(w.text.as_str(), "&&" | ";" | "|" | "||");
        for command in words.split(separator) {
            let command: Vec<Word> = command
                .iter()
                .skip_while(|w| !w.quoted && w.text.contains('=') && !w.text.starts_with('-'))
                .filter(|w| !is_redirection(w))
                .cloned()
                .collect();
            if command.first().is_some_and(|w| w.text == "wink") {
                shown.push(Shown {
                    place: format!("{file}:{start}"),
                    words: command,
                });
            }
        }
    }
    shown
}

/// `2>err.txt`, `>out`, `2>&1`, `<in`: the shell's, not the command's.
fn is_redirection(word: &Word) -> bool {
    let text = word.text.trim_start_matches(|c: char| c.is_ascii_digit());
    !word.quoted && (text.starts_with('>') || text.starts_with('<'))
}

fn is_elision(word: &Word) -> bool {
    !word.quoted && (word.text == "..." || word.text == "…")
}

/// The words with `[optional]` groups left out and `DIR…` read as `DIR`.
fn without_optional(words: &[Word]) -> Vec<Word> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    for word in words {
        if word.quoted {
            if depth == 0 {
                out.push(word.clone());
            }
            continue;
        }
        let opens = word.text.matches('[').count();
        let closes = word.text.matches(']').count();
        if depth == 0 && opens == 0 {
            let text = word.text.trim_end_matches('…').trim_end_matches("...");
            if text.is_empty() && !word.text.is_empty() {
                out.push(word.clone());
            } else {
                out.push(Word {
                    text: text.to_owned(),
                    quoted: false,
                });
            }
        }
        depth = (depth + opens).saturating_sub(closes);
    }
    out
}

/// The command lines `shown` stands for: one per alternative of a subcommand written `a|b`.
fn alternatives(words: &[Word]) -> Vec<Vec<String>> {
    let mut lines = vec![Vec::new()];
    let mut in_subcommands = true;
    for word in words {
        let choices: Vec<&str> = if word.quoted {
            vec![word.text.as_str()]
        } else {
            word.text.split('|').collect()
        };
        in_subcommands &= !word.text.starts_with('-');
        if in_subcommands && choices.len() > 1 {
            lines = lines
                .into_iter()
                .flat_map(|line| {
                    choices.iter().map(move |choice| {
                        let mut line = line.clone();
                        line.push((*choice).to_owned());
                        line
                    })
                })
                .collect();
        } else {
            for line in &mut lines {
                line.push(choices[0].to_owned());
            }
        }
    }
    lines
}

/// Why `shown` is not a command this binary accepts, if it is not.
fn refusal(shown: &Shown) -> Option<String> {
    let words = without_optional(&shown.words);
    let elided = words.iter().any(is_elision);
    for line in alternatives(&words) {
        let outcome = if elided {
            // Only the subcommand path: the words before the first flag or elision.
            let mut path: Vec<String> = line
                .iter()
                .take_while(|w| !w.starts_with('-') && *w != "..." && *w != "…")
                .cloned()
                .collect();
            path.truncate(3);
            let mut outcome = Err(String::new());
            // `wink mcp serve FILE ...`: the path is as long as the subcommands go.
            while path.len() > 1 {
                let mut help = path.clone();
                help.push("--help".to_owned());
                match Cli::try_parse_from(&help) {
                    Err(e) if e.kind() == ErrorKind::DisplayHelp => {
                        outcome = Ok(());
                        break;
                    }
                    Err(e) => outcome = Err(e.to_string()),
                    Ok(_) => outcome = Err("parsed without --help".to_owned()),
                }
                path.pop();
            }
            outcome
        } else {
            Cli::try_parse_from(&line)
                .map(drop)
                .map_err(|e| e.to_string())
        };
        if let Err(error) = outcome {
            return Some(format!(
                "{}: `{}`: {}",
                shown.place,
                line.join(" "),
                error.lines().next().unwrap_or_default()
            ));
        }
    }
    None
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn pages() -> Vec<(String, String)> {
    let root = workspace_root();
    let mut files = vec![root.join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    files
        .into_iter()
        .map(|path| {
            let name = path.strip_prefix(&root).unwrap().display().to_string();
            (name, std::fs::read_to_string(&path).unwrap())
        })
        .collect()
}

#[test]
fn every_wink_command_in_the_readme_and_docs_parses() {
    let mut count = 0;
    let mut refused = Vec::new();
    for (name, text) in pages() {
        for shown in shown_commands(&name, &text) {
            count += 1;
            refused.extend(refusal(&shown));
        }
    }
    assert!(refused.is_empty(), "{}", refused.join("\n"));
    assert!(count >= 40, "only {count} wink commands found in the docs");
}

#[test]
fn synopsis_notation_is_read_as_a_reader_would() {
    let shown = shown_commands(
        "t.md",
        "```sh\nX=1 wink run p.json --model local|openai:gpt-4.1 [--verbose] 2>err.txt \\\n  --params '{\"a\": [1]}' | jq .  # note\nwink trace show|serve r.jsonl && wink mcp serve F [--expand KEY]...\n```\n```text\n$ wink render p.json\nwink render ignored.json\n```\n",
    );
    let lines: Vec<Vec<Vec<String>>> = shown
        .iter()
        .map(|s| alternatives(&without_optional(&s.words)))
        .collect();
    assert_eq!(
        lines,
        [
            vec![vec![
                "wink",
                "run",
                "p.json",
                "--model",
                "local",
                "--params",
                "{\"a\": [1]}"
            ]],
            vec![
                vec!["wink", "trace", "show", "r.jsonl"],
                vec!["wink", "trace", "serve", "r.jsonl"]
            ],
            vec![vec!["wink", "mcp", "serve", "F"]],
            vec![vec!["wink", "render", "p.json"]],
        ]
        .into_iter()
        .map(|alts| alts
            .into_iter()
            .map(|l| l.into_iter().map(str::to_owned).collect())
            .collect())
        .collect::<Vec<Vec<Vec<String>>>>()
    );
    assert_eq!(
        shown.iter().map(|s| s.place.as_str()).collect::<Vec<_>>(),
        ["t.md:2", "t.md:4", "t.md:4", "t.md:7"]
    );
    // A flag that does not exist is refused, naming the place.
    let wrong = &shown_commands("t.md", "```sh\nwink run p.json --no-such-flag\n```\n")[0];
    assert!(
        refusal(wrong).is_some_and(|r| r.starts_with("t.md:2: `wink run p.json --no-such-flag`")),
        "{:?}",
        refusal(wrong)
    );
    // An elided line checks its subcommand only.
    let elided = &shown_commands(
        "t.md",
        "```sh\nwink queue stats --redis ... --queue q\nwink nope ...\n```\n",
    );
    assert!(refusal(&elided[0]).is_none());
    assert!(refusal(&elided[1]).is_some());
}

// `wink render …` is parsed by `RenderOnly` (one subcommand, faster to build); it must read as the
// whole command line does.

fn render_help(mut command: clap::Command) -> (String, String) {
    command.build();
    let render = command.find_subcommand_mut("render").unwrap();
    (
        render.render_help().to_string(),
        render.render_long_help().to_string(),
    )
}

#[test]
fn render_only_describes_render_as_the_whole_cli_does() {
    assert_eq!(
        render_help(RenderOnly::command()),
        render_help(Cli::command())
    );
}

#[test]
fn render_only_parses_and_refuses_as_the_whole_cli_does() {
    for line in [
        "wink render p.json",
        "wink render p.json --format json --context-size 4096 --preopen 2 --input x",
        "wink render p.json --params {} --expand a --expand b --summarize c --disclosure wink",
        "wink render p.json --name-hidden-tools --defer always",
        "wink render p.json --name-hidden-tools false",
        "wink render",
        "wink render p.json --format xml",
        "wink render p.json --context-size many",
        "wink render p.json --expnd a",
        "wink render p.json extra",
        "wink render --help",
        "wink render -h",
        "wink render --version",
    ] {
        let words: Vec<&str> = line.split(' ').collect();
        let whole = Cli::try_parse_from(&words);
        let alone = RenderOnly::try_parse_from(&words);
        match (whole, alone) {
            (
                Ok(Cli {
                    command: Command::Render(expected),
                }),
                Ok(RenderOnly {
                    command: RenderCommand::Render(args),
                }),
            ) => assert_eq!(format!("{args:?}"), format!("{expected:?}"), "{line}"),
            (Err(expected), Err(error)) => {
                assert_eq!(error.kind(), expected.kind(), "{line}");
                assert_eq!(error.to_string(), expected.to_string(), "{line}");
                assert_eq!(error.exit_code(), expected.exit_code(), "{line}");
            }
            (whole, alone) => panic!("{line}: {whole:?} / {alone:?}"),
        }
    }
}
