mod common;

mod architecture;
mod bad_input;
mod config;
mod git;
mod instructions;
mod json_contract;
mod local;
mod rename;
mod send_path;
mod server;
mod shell;
mod shims;
mod storage;
mod system_text;
mod tui;
mod watch;
