//! baton: a terminal multiplexer for AI coding CLIs. The binary (`main.rs`) only parses
//! arguments (`cli`) and runs the command; everything else lives in these layers.

#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

pub mod approvals;
pub mod cli;
pub mod client;
pub mod config;
pub mod demo;
pub mod doctor;
pub mod engine;
pub mod error;
pub mod git;
pub mod instructions;
pub mod log;
pub mod paths;
#[cfg(test)]
mod props;
pub mod protocol;
pub mod providers;
pub mod server;
pub mod store;
pub mod suggest;
pub mod trust;
pub mod tui;
pub mod validate;
pub mod web;
pub mod words;
