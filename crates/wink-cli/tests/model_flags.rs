//! The model flags of `wink run`, `wink eval` and `wink worker` as the adapter and the loop
//! take them: how the embedded model writes calls, the profile and its turn policies, the
//! context window.
#![allow(clippy::unwrap_used, clippy::panic)]

use clap::Parser;
use wink_cli::{Cli, Command};
use wink_local::{CallForm, CallWriteBack};
use wink_run::model::LocalOptions;

/// `wink run prompt.json ARGS…` parsed, its model flags' choices as `f` reads them.
fn run_flags<T>(args: &[&str], f: impl Fn(&wink_cli::RunArgs) -> T) -> Result<T, clap::Error> {
    let words = ["wink", "run", "prompt.json"]
        .into_iter()
        .chain(args.iter().copied());
    match Cli::try_parse_from(words)?.command {
        Command::Run(run) => Ok(f(&run)),
        other => panic!("not a run: {other:?}"),
    }
}

fn local_options(args: &[&str]) -> Result<LocalOptions, clap::Error> {
    run_flags(args, |run| run.model.options(false, false).local)
}

#[test]
fn tool_calls_are_written_back_canonically_unless_asked_for_verbatim() {
    let write_back = |args: &[&str]| local_options(args).unwrap().call_write_back;
    assert_eq!(write_back(&[]), CallWriteBack::Canonical);
    assert_eq!(
        write_back(&["--call-write-back", "canonical"]),
        CallWriteBack::Canonical
    );
    assert_eq!(
        write_back(&["--call-write-back", "verbatim"]),
        CallWriteBack::Verbatim
    );
    let error = local_options(&["--call-write-back", "raw"]).unwrap_err();
    let text = error.to_string();
    assert!(
        text.contains("invalid value 'raw' for '--call-write-back <FORM>'")
            && text.contains("[possible values: canonical, verbatim]"),
        "{text}"
    );
}

#[test]
fn tool_calls_take_the_profile_form_unless_asked_for_one() {
    let form = |args: &[&str]| local_options(args).unwrap().call_form;
    assert_eq!(form(&[]), None);
    assert_eq!(form(&["--call-form", "template"]), Some(CallForm::Template));
    assert_eq!(form(&["--call-form", "any"]), Some(CallForm::Any));
    let text = local_options(&["--call-form", "fenced"])
        .unwrap_err()
        .to_string();
    assert!(
        text.contains("invalid value 'fenced' for '--call-form <FORM>'")
            && text.contains("[possible values: template, any]"),
        "{text}"
    );
}

fn settings(args: &[&str]) -> wink_run::RunSettings {
    run_flags(args, |run| {
        run.model.turn_settings(wink_run::RunSettings::default())
    })
    .unwrap()
}

#[test]
fn repairs_and_the_answer_tool_are_the_profile_s_unless_switched_off() {
    let none = settings(&[]);
    assert_eq!(
        (none.profile, none.repairs.len(), none.answer_tool),
        (None, 0, None)
    );
    let some = settings(&[
        "--no-repair",
        "ungrounded",
        "--no-repair",
        "procedure",
        "--no-answer-tool",
        "--profile",
        "small-local",
    ]);
    assert_eq!(some.profile.as_deref(), Some("small-local"));
    assert_eq!(
        some.repairs.into_iter().collect::<Vec<_>>(),
        [
            ("procedure".to_owned(), false),
            ("ungrounded".to_owned(), false)
        ]
    );
    assert_eq!(some.answer_tool, Some(false));
    let all = settings(&["--no-call-repair"]);
    assert_eq!(
        all.repairs.len(),
        wink_agent::profile::ALL_TURN_POLICIES.len()
    );
    assert!(all.repairs.values().all(|on| !on));
}

#[test]
fn a_context_window_of_zero_tokens_is_refused() {
    let text = local_options(&["--context-size", "0"])
        .unwrap_err()
        .to_string();
    assert!(
        text.contains("invalid value '0' for '--context-size <TOKENS>': the context window must be at least 1 token"),
        "{text}"
    );
}
