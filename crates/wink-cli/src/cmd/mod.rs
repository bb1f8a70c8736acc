//! Subcommands.

pub mod call;
pub mod catalog;
pub mod common;
pub mod docs;
pub mod eval;
pub mod local_model;
pub mod mcp;
pub mod queue;
pub mod render;
pub mod run;
pub mod session;
pub mod skills;
pub mod tools;
pub mod trace;
pub mod worker;
