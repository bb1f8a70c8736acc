//! `TokenCounter` against OpenAI's `tiktoken` (the Python package, pinned to 0.12.0 and installed
//! by `scripts/setup.sh`): the same token ids for the project's docs, tool schemas (LiveMCP,
//! BFCL's multilingual queries and functions), Rust source and generated text full of the
//! pre-tokenizer's edge cases — more than 100,000 tokens. Skips with a note where `tiktoken` is
//! not installed, and fails under `CI` then.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use wink_tokens::TokenCounter;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn tiktoken_installed() -> bool {
    let available = Command::new("python3")
        .args(["-c", "import tiktoken"])
        .status()
        .is_ok_and(|s| s.success());
    if !available {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI is set but the Python module tiktoken is missing: python3 -m pip install 'tiktoken==0.12.0'"
        );
        eprintln!(
            "note: skipping: the Python module tiktoken is not installed (python3 -m pip install 'tiktoken==0.12.0')"
        );
    }
    available
}

/// `tiktoken`'s token ids of each text (see `tiktoken_reference.py`).
fn reference(texts: &[String]) -> Vec<Vec<u32>> {
    let cache = std::env::temp_dir().join(format!("wink-tiktoken-cache-{}", std::process::id()));
    std::fs::create_dir_all(&cache).unwrap();
    // tiktoken's cache name for a download: the SHA-1 of its URL
    // ("https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken").
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("data/o200k_base.tiktoken"),
        cache.join("fb374d419588a4632f3f557e76b4b70aebbca790"),
    )
    .unwrap();
    let mut child = Command::new("python3")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tiktoken_reference.py"))
        .env("TIKTOKEN_CACHE_DIR", &cache)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let input = serde_json::to_vec(texts).unwrap();
    child.stdin.take().unwrap().write_all(&input).unwrap();
    let out = child.wait_with_output().unwrap();
    std::fs::remove_dir_all(&cache).ok();
    assert!(out.status.success(), "tiktoken_reference.py failed");
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Generated text: every kind of character class the pattern distinguishes, in many
/// combinations (whitespace runs before words, digits and punctuation; line breaks; case and
/// contractions; scripts without spaces; combining marks; emoji; special-token text).
fn varied_text() -> String {
    let atoms = [
        "word",
        "Word",
        "WORD",
        "wOrD",
        "it's",
        "IT'S",
        "we'll",
        "They'VE",
        "I'm",
        "x'd",
        "1",
        "12",
        "123",
        "1234567",
        "3.14159",
        "-42",
        "$",
        "$$",
        "!?",
        "...",
        "//",
        "/*",
        "*/",
        "==>",
        "&&",
        "->",
        "\u{a0}",
        "\u{3000}",
        "\t",
        " ",
        "  ",
        "   ",
        "\n",
        "\n\n",
        "\r\n",
        " \n ",
        "\t\n\t",
        "日本語",
        "中文文本",
        "한국어",
        "Привет",
        "Ελληνικά",
        "العربية",
        "עברית",
        "हिन्दी",
        "ไทย",
        "e\u{301}",
        "Ⅻ",
        "²",
        "½",
        "🙂",
        "👩‍💻",
        "🇫🇷",
        "<|endoftext|>",
        "<|fim_prefix|>",
        "ſ",
        "'S",
        "'ll",
        "Straße",
        "CamelCaseWord",
        "snake_case_name",
        "kebab-case-name",
        "https://example.com/a?b=c",
        "λx.x",
        "\u{200b}",
        "\u{feff}",
        "ǅ",
        "ʰ",
        "ー",
        "〜",
        "  \u{a0} ",
        "\u{2028}",
        "\u{85}",
        "\u{b}\u{c}",
    ];
    let mut text = String::new();
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    for _ in 0..40_000 {
        // xorshift: a fixed pseudo-random sequence of atoms.
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        text.push_str(atoms[(state % atoms.len() as u64) as usize]);
    }
    text
}

/// Pieces far longer than words: runs of letters (one lowercase alphabet, one letter, mixed case),
/// of letters without spaces in other scripts, of punctuation, emoji and spaces. The merge of a
/// long piece takes another path than a short one's (a heap instead of a scan).
fn long_runs() -> String {
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut pick = |alphabet: &[&str], len: usize| -> String {
        (0..len)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                alphabet[(state % alphabet.len() as u64) as usize]
            })
            .collect()
    };
    let lower: Vec<String> = ('a'..='z').map(String::from).collect();
    let lower: Vec<&str> = lower.iter().map(String::as_str).collect();
    [
        pick(&lower, 30_000),
        "a".repeat(20_000),
        pick(&["a", "B", "c", "D", "\u{301}"], 5_000),
        pick(&["日", "本", "語", "文", "字"], 3_000),
        pick(&["🙂", "👍", "🇫🇷"], 1_000),
        pick(&["!", "?", "*", "#", "="], 10_000),
        " ".repeat(5_000),
        pick(&["ab", "cd", "ef"], 4_000),
    ]
    .join(" ")
}

fn corpus() -> Vec<(String, String)> {
    let root = repo();
    let mut files: Vec<PathBuf> = ["README.md", "ARCHITECTURE.md"]
        .iter()
        .map(|f| root.join(f))
        .collect();
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        // The pages and the schema; not the screenshots.
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "md" || e == "json"))
        .collect();
    docs.sort();
    files.extend(docs);
    files.extend(
        [
            "data/livemcp/tools.json",
            "data/bfcl/BFCL_v4_live_multiple.json",
            "crates/wink-tokens/src/bpe.rs",
            "crates/wink-tokens/src/split.rs",
            "crates/wink-core/src/render/read_section.rs",
        ]
        .iter()
        .map(|f| root.join(f)),
    );
    let mut corpus: Vec<(String, String)> = files
        .iter()
        .map(|f| (f.display().to_string(), std::fs::read_to_string(f).unwrap()))
        .collect();
    corpus.push(("generated varied text".to_owned(), varied_text()));
    corpus.push(("generated long runs".to_owned(), long_runs()));
    corpus
}

#[test]
fn token_ids_match_tiktoken_on_the_corpus() {
    if !tiktoken_installed() {
        return;
    }
    let counter = TokenCounter::o200k().unwrap();
    let corpus = corpus();
    let texts: Vec<String> = corpus.iter().map(|(_, text)| text.clone()).collect();
    let expected = reference(&texts);
    let mut total = 0;
    for ((name, text), expected) in corpus.iter().zip(&expected) {
        let ours = counter.encode(text);
        if &ours != expected {
            let at = ours
                .iter()
                .zip(expected)
                .take_while(|(a, b)| a == b)
                .count();
            panic!(
                "{name}: token {at} differs: ours {:?}, tiktoken {:?}",
                &ours[at..(at + 8).min(ours.len())],
                &expected[at..(at + 8).min(expected.len())]
            );
        }
        assert_eq!(counter.count(text), expected.len(), "{name}");
        total += expected.len();
    }
    eprintln!("{total} tokens identical to tiktoken's");
    assert!(total >= 100_000, "corpus too small: {total} tokens");
}
