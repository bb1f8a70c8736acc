//! Rendering cost of 100- and 1,000-section prompts (`cargo bench -p wink-core --bench render`).
//!
//! Each prompt mixes root sections with two children each, typed params and templates with
//! placeholders; every fifth root section is summarized (so its children are skipped and the
//! builtin `read_section` tool is added).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use wink_core::{MarkdownSection, Prompt, PromptTemplate};

#[derive(Clone, Serialize, Deserialize, JsonSchema)]
struct Doc {
    project: String,
    owner: String,
}

fn main() {
    divan::main();
}

fn prompt(sections: usize) -> Prompt {
    let roots = sections / 3;
    let mut builder = PromptTemplate::builder("bench", "render");
    for i in 0..roots {
        let mut root = MarkdownSection::new(format!("Section {i}"), format!("s{i}"), "Guidance for ${project}, maintained by ${owner}.\nFollow the conventions below and keep answers short.")
            .params::<Doc>()
            .summary("Summary of section for ${project}.")
            .child(MarkdownSection::new("Details", "details", "Details of ${project}: build, test, release.").params::<Doc>())
            .child(MarkdownSection::new("Examples", "examples", "Example for ${owner}.").params::<Doc>());
        if i % 5 == 0 {
            root = root.summarized();
        }
        builder = builder.section(root);
    }
    let template = builder.build().unwrap();
    Prompt::new(template).bind(Doc {
        project: "wink".into(),
        owner: "the team".into(),
    })
}

#[divan::bench(args = [100, 1000])]
fn render(bencher: divan::Bencher, sections: usize) {
    let p = prompt(sections);
    bencher.bench_local(|| divan::black_box(p.render().unwrap()));
}

#[divan::bench(args = [100, 1000])]
fn build_template(bencher: divan::Bencher, sections: usize) {
    bencher.bench_local(|| divan::black_box(prompt(sections)));
}
