//! Subcommands.

pub mod call;
pub mod common;
pub mod render;
