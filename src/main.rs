//! `baton`: parses the command line (`cli`), runs the command and maps errors to exit codes.
//! Nothing else happens here (see ARCHITECTURE.md, "Code map").

#![deny(clippy::unwrap_used, clippy::expect_used)]

use std::process::ExitCode;

use clap::CommandFactory;

use baton::cli::{self, Cli, Cmd, ServerCmd};
use baton::client::{commands, hosts, manual, out, Client};
use baton::error::BatonError;
use baton::paths::{DataDir, EnvDirs};

fn main() -> ExitCode {
    baton::log::phase("client-start");
    let cli = cli::parse();
    let ran = run(cli.cmd);
    baton::log::phase("client-exit");
    out::exit_code(ran)
}

fn run(cmd: Option<Cmd>) -> Result<i32, BatonError> {
    // Answered without a data directory: they describe the command line itself, or need only
    // their server's stdin pipe (the warden; it must not depend on the environment).
    match cmd {
        Some(Cmd::Completions { shell }) => return manual::completions(Cli::command(), shell),
        Some(Cmd::Man) => return manual::man(Cli::command()),
        Some(Cmd::Server {
            action: ServerCmd::Warden,
        }) => return Ok(baton::providers::warden::serve()),
        Some(Cmd::Server {
            action: ServerCmd::Bridge { data_dir },
        }) => return hosts::bridge::run(data_dir),
        _ => {}
    }
    let c = &Client::from_env()?;
    match cmd {
        None => baton::tui::run(c, None),
        Some(Cmd::Attach { name }) => baton::tui::run(c, name),
        Some(Cmd::Client(cmd)) => cmd.run(c),
        Some(Cmd::Server { action }) => server(c, action),
        Some(Cmd::Reindex { json }) => cli::reindex(c, json),
        Some(Cmd::Web(a)) => a.run(c),
        Some(Cmd::Trust { path }) => cli::trust(c, &path),
        Some(Cmd::Doctor { fix, json }) => baton::doctor::run(c, fix, json),
        Some(Cmd::Demo {
            stop: Some(dir), ..
        }) => baton::demo::stop(&dir),
        Some(Cmd::Demo { script, stop: None }) => baton::demo::run(script),
        // Answered above.
        Some(Cmd::Completions { .. } | Cmd::Man) => Ok(0),
    }
}

fn server(client: &Client, action: ServerCmd) -> Result<i32, BatonError> {
    match action {
        ServerCmd::Start => commands::server_start(client),
        ServerCmd::Stop => commands::server_stop(client),
        ServerCmd::Status { json } => commands::server_status(client, json),
        // Answered before a data directory is opened.
        ServerCmd::Warden | ServerCmd::Bridge { .. } => Ok(0),
        ServerCmd::Run => {
            let env = EnvDirs::from_env();
            let config = baton::config::Config::load(env.config_file().as_deref())?;
            baton::server::run(DataDir::new(client.data.root.clone()), config)?;
            Ok(0)
        }
    }
}
