//! The command line, defined once: clap's definitions of every subcommand (`Cli`), the parse of
//! the process's arguments ([`parse`], `send` by its own parser first) and each client command's
//! run (a method on its arguments building its `Request`). `main.rs` runs the commands that
//! need more than a client; the multiplexer's `:` prompt parses its lines with the same
//! definitions (`tui::app::command`). See ARCHITECTURE.md, "Code map".

mod approvals;
mod commands;
mod data;
mod input;
mod integrate;
mod parse_error;
pub mod send;
mod terminal;
mod web;

use std::ffi::OsString;
use std::path::PathBuf;

use clap::error::ErrorKind;
use clap::{CommandFactory, Parser, Subcommand};

pub use commands::ClientCmd;
pub use data::{reindex, trust, HostCmd, LsArgs, PruneArgs};
pub use input::{InstrCmd, InstructionsArgs, QueueArgs, QueueCmd};
pub use integrate::{is_path as is_integrate_path, IntegrateArgs};
pub use send::SendArgs;
pub use terminal::{
    DiffArgs, ExportArgs, ForkArgs, ImportArgs, NameArgs, NewArgs, RenameArgs, RevertArgs,
    RewindArgs, RmArgs, WatchArgs,
};
pub use web::WebArgs;

use crate::client::out;
use crate::error::BatonError;

#[derive(Parser)]
#[command(
    name = "baton",
    version,
    about = "A terminal multiplexer for AI coding CLIs (Claude Code, Codex)"
)]
pub struct Cli {
    /// With no command: open the multiplexer (like `baton attach`)
    #[command(subcommand)]
    pub cmd: Option<Cmd>,
}

/// The command line, parsed (`send` by its own parser first, see [`send::parse`]). A refusal
/// is printed in one line and the process exits 2, as clap does.
pub fn parse() -> Cli {
    let args: Vec<OsString> = std::env::args_os().collect();
    if let Some(send) = send::parse(&args) {
        return Cli {
            cmd: Some(Cmd::Client(ClientCmd::Send(send))),
        };
    }
    match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(e) if e.kind() == ErrorKind::InvalidUtf8 => {
            let why = crate::validate::non_utf8_argument(&args)
                .unwrap_or_else(|| BatonError::bad_input("an argument is not valid UTF-8"));
            out::side(&format!("baton: {why}"));
            std::process::exit(why.exit_code());
        }
        // Help and the version (stdout), and a bare command's help, as clap prints them.
        Err(e)
            if !e.use_stderr()
                || e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand =>
        {
            e.exit()
        }
        Err(e) => {
            let command = parse_error::command_path(&Cli::command(), &args);
            let said = parse_error::one_line(&e.render().to_string(), &command);
            out::side(&format!("baton: {said}"));
            std::process::exit(crate::error::EXIT_BAD_INPUT);
        }
    }
}

/// Every subcommand: those a client runs alone ([`ClientCmd`], the `:` prompt's among them),
/// then those `main.rs` runs (the server, the checks, the demo, the multiplexer, the manual).
#[derive(Subcommand)]
pub enum Cmd {
    #[command(flatten)]
    Client(ClientCmd),
    /// Start, stop or inspect the server
    Server {
        #[command(subcommand)]
        action: ServerCmd,
    },
    /// Check the data directory, index, journals, worktrees and CLIs; --fix repairs what it
    /// can without losing anything (never starts the server)
    Doctor {
        /// Repair what can be repaired, then say what was done
        #[arg(long)]
        fix: bool,
        #[arg(long)]
        json: bool,
    },
    /// Serve the web client from the server (127.0.0.1 unless [web] bind says otherwise) and
    /// print its address with the access token (see docs/web.md)
    Web(WebArgs),
    /// Let the repository's own .baton.toml (PATH: the file or the repository's folder) run
    /// its set-up command in new worktrees, as long as the file stays as it is now
    Trust { path: PathBuf },
    /// Rebuild the index from the journals
    Reindex {
        #[arg(long)]
        json: bool,
    },
    /// Run baton on the built-in simulated CLIs, in a throw-away data directory: the
    /// multiplexer on a TTY, else (or with --script) a scripted walk-through
    Demo {
        /// Print the scripted walk-through instead of opening the multiplexer
        #[arg(long, conflicts_with = "stop")]
        script: bool,
        /// End a demo left running after a detach: remove the worktrees and branches it
        /// made, stop its server, delete its folder DIR (the one it printed)
        #[arg(long, value_name = "DIR")]
        stop: Option<PathBuf>,
    },
    /// Open the multiplexer attached to the server (what `baton` alone does); with NAME,
    /// focused on that terminal (its pane if one shows it, else the focused pane shows it)
    Attach { name: Option<String> },
    /// Print a completion script for SHELL (bash: `baton completions bash >
    /// ~/.local/share/bash-completion/completions/baton`; zsh: into a folder on `$fpath` as
    /// `_baton`; fish: `~/.config/fish/completions/baton.fish`)
    Completions {
        #[arg(value_enum)]
        shell: crate::client::manual::Shell,
    },
    /// Print baton's man page, in roff (`baton man | man -l -`, or save it as
    /// `~/.local/share/man/man1/baton.1`)
    Man,
}

#[derive(Subcommand)]
pub enum ServerCmd {
    Start,
    Stop,
    Status {
        #[arg(long)]
        json: bool,
    },
    /// Run the server in the foreground (what `start` launches)
    #[command(hide = true)]
    Run,
    /// The server's warden: interrupts its CLIs once it is gone (the server starts it)
    #[command(hide = true)]
    Warden,
    /// The far side of an ssh channel: says hello, then joins stdin and stdout to this data
    /// directory's server (started when needed)
    #[command(hide = true)]
    Bridge {
        #[arg(long, value_name = "D")]
        data_dir: Option<PathBuf>,
    },
}
