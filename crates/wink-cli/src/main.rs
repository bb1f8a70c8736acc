//! `wink` — render, call and run progressively disclosed prompts from the command line
//! (the arguments and the subcommands are `wink_cli`, in `src/lib.rs`).

use std::process::ExitCode;

/// mimalloc: see the dependency's note in Cargo.toml, and docs/tracing.md for what it saves.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    wink_cli::main()
}
