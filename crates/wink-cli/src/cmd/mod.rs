//! Subcommands.

pub mod call;
pub mod common;
pub mod model;
pub mod render;
pub mod run;
pub mod session;
