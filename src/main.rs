//! `baton-full`, the whole `baton` command (the `baton` front runs it for all but `send`):
//! parses arguments, turns each subcommand into its request, runs it and maps errors to exit
//! codes. Nothing else happens here (see ARCHITECTURE.md, "Code map" and "Two binaries").

#![deny(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use baton::client::send_cmd::{self, absolute, remote_dir, SendArgs};
use baton::client::{commands, hosts, out, prune, render, Client};
use baton::error::BatonError;
use baton::paths::{DataDir, EnvDirs};
use baton::protocol::{InstructionsAction, QueueAction, QueueChange, Request};

#[derive(Parser)]
#[command(
    name = "baton",
    version,
    about = "A terminal multiplexer for AI coding CLIs (Claude Code, Codex)"
)]
struct Cli {
    /// With no command: open the multiplexer (like `baton attach`)
    #[command(subcommand)]
    cmd: Option<Cmd>,
}

/// The command line, parsed (`send` by its own parser first, see [`send_cmd::parse`]).
fn parse() -> Cli {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if let Some(send) = send_cmd::parse(&args) {
        return Cli {
            cmd: Some(Cmd::Send(send)),
        };
    }
    match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(e) if e.kind() == clap::error::ErrorKind::InvalidUtf8 => {
            let why = baton::validate::non_utf8_argument(&args)
                .unwrap_or_else(|| BatonError::bad_input("an argument is not valid UTF-8"));
            out::side(&format!("baton: {why}"));
            std::process::exit(why.exit_code());
        }
        Err(e) => e.exit(),
    }
}

#[derive(Subcommand)]
enum Cmd {
    /// Create a terminal working in a directory
    New(NewArgs),
    /// The terminal's branch against the commit it started from
    Diff {
        name: String,
        /// The full diff instead of a summary
        #[arg(long)]
        patch: bool,
        #[arg(long)]
        json: bool,
    },
    /// Squash-merge the terminal's branch into the branch it was created from
    Merge {
        name: String,
        #[arg(long)]
        json: bool,
    },
    /// Revert one turn's automatic commit on the terminal's branch
    Revert {
        name: String,
        /// The turn's number (as `baton log` shows it)
        turn: u32,
        #[arg(long)]
        json: bool,
    },
    /// Remove a terminal: its work is committed and its branch kept
    Rm {
        name: String,
        /// Delete its branch too (refused when unmerged, unless --force)
        #[arg(long)]
        delete_branch: bool,
        /// With --delete-branch: delete it even when unmerged
        #[arg(long)]
        force: bool,
        #[arg(long)]
        json: bool,
    },
    /// Give a terminal another name (its history, worktree and branch stay), or title its live
    /// conversation (--conversation)
    Rename {
        name: String,
        #[arg(required_unless_present = "conversation")]
        new_name: Option<String>,
        /// Title the live conversation instead (it is titled from its first prompt until then)
        #[arg(long, value_name = "TITLE", conflicts_with = "new_name")]
        conversation: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// A new terminal that carries on from where NAME is now: its own worktree on a new branch
    /// at NAME's head, the same instructions, and a fork of NAME's provider session
    Fork {
        name: String,
        /// The new terminal's name (default: NAME-2, NAME-3…)
        new: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// A new terminal that carries on from just before NAME's turn TURN: the files as they were
    /// when it was sent, the provider's history before it; prints its prompt to edit and resend
    Rewind {
        name: String,
        turn: u32,
        /// The new terminal's name (default: NAME-2, NAME-3…)
        new: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Hide a terminal from `ls` and the multiplexer's list (nothing else changes)
    Archive {
        name: String,
        #[arg(long)]
        json: bool,
    },
    /// Remove archived terminals idle for DAYS: their worktree, baton's data of them, and
    /// their branch when it is merged (or with --force)
    Prune {
        /// Days since a terminal's last activity (0: any age)
        #[arg(long, value_name = "DAYS", default_value = "30", allow_hyphen_values = true,
              value_parser = prune::days)]
        older_than: u32,
        /// Say what would be removed; change nothing
        #[arg(long)]
        dry_run: bool,
        /// Delete unmerged branches too
        #[arg(long)]
        force: bool,
        #[arg(long)]
        json: bool,
    },
    /// Write a terminal (journal, turn streams, the CLIs' session files, a SHA-256 manifest)
    /// into a zip: <data>/exports/NAME-<UTC time>.zip, or into --out DIR
    Export {
        name: String,
        /// The folder to write the zip into (it must exist)
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// Make a terminal of a zip `baton export` wrote (on this or another machine)
    Import {
        file: PathBuf,
        /// Import it under this name
        #[arg(long, value_name = "NEW")]
        name: Option<String>,
        /// The repository on this machine to make its worktree in (or a plain folder to work
        /// in); without it, a fresh folder
        #[arg(long, value_name = "D")]
        dir: Option<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// Show an archived terminal again
    Unarchive {
        name: String,
        #[arg(long)]
        json: bool,
    },
    /// Run a prompt in a terminal and stream the turn (`-` reads the prompt from stdin)
    ///
    /// Ctrl-c interrupts the turn (its partial output kept), prints the interrupted summary
    /// and exits 130; a second Ctrl-c exits at once and leaves the turn running (`baton watch
    /// NAME` follows it). While the prompt still waits behind another turn, Ctrl-c exits 130
    /// and leaves it queued (`baton queue NAME rm N` withdraws it).
    Send(SendArgs),
    /// The terminal's waiting input, in order; edit, withdraw, move, steer or jump one
    Queue(QueueArgs),
    /// List terminals
    Ls {
        /// Archived terminals too (marked)
        #[arg(long)]
        all: bool,
        #[arg(long)]
        json: bool,
    },
    /// Show one terminal: conversation, sessions, context, instructions
    Show {
        name: String,
        #[arg(long)]
        json: bool,
    },
    /// Every turn of a terminal, across conversations
    Log {
        name: String,
        #[arg(long)]
        json: bool,
    },
    /// List or edit a terminal's standing instructions; `baton instructions extract` prints
    /// what the configured extractor keeps of a prompt read on stdin
    Instructions(InstructionsArgs),
    /// Interrupt the running turn (SIGINT to the CLI's process group)
    Interrupt { name: String },
    /// Follow the running turn as `send` shows it: from its start (what already streamed,
    /// then live), ending with its summary and `send`'s exit code. Ctrl-c stops watching (exit
    /// 130); the turn goes on
    #[command(alias = "follow")]
    Watch {
        name: String,
        /// With no turn running, wait for the next one to start
        #[arg(long)]
        next: bool,
        /// The stream as JSON lines, as `send --json`
        #[arg(long)]
        json: bool,
    },
    /// Other hosts whose terminals are addressed HOST:NAME (over ssh; kept in the config as
    /// [hosts.NAME])
    Host {
        #[command(subcommand)]
        action: HostCmd,
    },
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
        stop: Option<std::path::PathBuf>,
    },
    /// Open the multiplexer attached to the server (what `baton` alone does); with NAME,
    /// focused on that terminal (its pane if one shows it, else the focused pane shows it)
    Attach { name: Option<String> },
    /// Print a completion script for SHELL (bash: `baton completions bash >
    /// ~/.local/share/bash-completion/completions/baton`; zsh: into a folder on `$fpath` as
    /// `_baton`; fish: `~/.config/fish/completions/baton.fish`)
    Completions {
        #[arg(value_enum)]
        shell: baton::client::manual::Shell,
    },
    /// Print baton's man page, in roff (`baton man | man -l -`, or save it as
    /// `~/.local/share/man/man1/baton.1`)
    Man,
}

#[derive(Args)]
struct NewArgs {
    /// Terminal name (default: the directory's name)
    name: Option<String>,
    /// The directory its runs work in (default: the current directory)
    #[arg(long)]
    dir: Option<PathBuf>,
    /// claude or codex (default: claude)
    #[arg(long)]
    provider: Option<String>,
    /// Model to use (default: the provider's configured or own default)
    #[arg(long)]
    model: Option<String>,
    /// What this terminal is for; rides into every conversation's system instructions
    #[arg(long)]
    brief: Option<String>,
    /// Run in the directory itself instead of a git worktree of its own
    #[arg(long)]
    in_place: bool,
    #[arg(long)]
    json: bool,
}

impl NewArgs {
    /// The request to `client`'s server, for the bare `name` (a remote one needs its `--dir`,
    /// absolute on that host).
    fn request(self, client: &Client, name: Option<String>) -> Result<Request, BatonError> {
        let dir = match (self.dir, &client.via) {
            (Some(d), None) => absolute(d),
            (None, None) => absolute(
                std::env::current_dir()
                    .map_err(|e| BatonError::bad_input(format!("no current directory: {e}")))?,
            ),
            (d, Some(_)) => remote_dir(client, d)?.unwrap_or_default(),
        };
        Ok(Request::New {
            name,
            dir,
            provider: self.provider,
            model: self.model,
            brief: self.brief,
            in_place: self.in_place,
        })
    }
}

#[derive(Args)]
struct QueueArgs {
    name: String,
    #[command(subcommand)]
    action: Option<QueueCmd>,
    #[arg(long, global = true)]
    json: bool,
}

#[derive(Subcommand)]
enum QueueCmd {
    /// Replace waiting input N's text (`-` or nothing: read it from stdin)
    Edit { input: u32, text: Option<String> },
    /// Withdraw waiting input N
    Rm { input: u32 },
    /// Move waiting input N to POSITION (1 = next to run)
    Move { input: u32, position: u32 },
    /// Hand waiting input N to the running turn
    Steer { input: u32 },
    /// Interrupt the running turn and run waiting input N next
    Jump { input: u32 },
    /// Run the queue held after an interrupt (an interrupt holds waiting input)
    Run,
}

impl QueueArgs {
    fn request(self) -> Result<Request, BatonError> {
        let change = match self.action {
            None => None,
            Some(QueueCmd::Run) => return Ok(Request::QueueRun { name: self.name }),
            Some(QueueCmd::Edit { input, text }) => {
                let text = commands::read_prompt(Some(text.unwrap_or_else(|| "-".into())))?;
                Some((input, QueueAction::Edit { text }))
            }
            Some(QueueCmd::Rm { input }) => Some((input, QueueAction::Rm)),
            Some(QueueCmd::Move { input, position }) => {
                Some((input, QueueAction::Move { position }))
            }
            Some(QueueCmd::Steer { input }) => Some((input, QueueAction::Steer)),
            Some(QueueCmd::Jump { input }) => Some((input, QueueAction::Jump)),
        };
        Ok(Request::Queue {
            name: self.name,
            change: change.map(|(input, action)| QueueChange { input, action }),
        })
    }
}

#[derive(Args)]
struct InstructionsArgs {
    /// A terminal, or `extract`
    name: String,
    #[command(subcommand)]
    action: Option<InstrCmd>,
    /// With `extract`: the provider a model-backed extractor asks (default: claude)
    #[arg(long)]
    provider: Option<String>,
    #[arg(long, global = true)]
    json: bool,
}

impl InstructionsArgs {
    fn run(self, client: &Client) -> Result<i32, BatonError> {
        let action = match self.action {
            None if self.name == "extract" => {
                let prompt = commands::read_prompt(Some("-".to_string()))?;
                return commands::extract(client, prompt, self.provider, self.json);
            }
            None => InstructionsAction::List,
            Some(InstrCmd::Add { text }) => InstructionsAction::Add { text },
            Some(InstrCmd::Rm { number }) => InstructionsAction::Rm { number },
            Some(InstrCmd::Edit { number, text }) => InstructionsAction::Edit { number, text },
            Some(InstrCmd::Clear) => InstructionsAction::Clear,
        };
        let req = Request::Instructions {
            name: self.name,
            action,
        };
        commands::simple(client, &req, self.json, render::instructions)
    }
}

#[derive(Subcommand)]
enum InstrCmd {
    /// Add a line by hand
    Add { text: String },
    /// Remove line N (as numbered by the list)
    Rm { number: u32 },
    /// Replace line N's text, keeping its place
    Edit { number: u32, text: String },
    /// Remove every line
    Clear,
}

#[derive(Subcommand)]
enum HostCmd {
    /// Add a host: NAME is what goes before `:` in HOST:NAME, SSH_TARGET what `ssh` is given
    /// (`me@10.0.0.5`, or an alias of ~/.ssh/config)
    Add {
        name: String,
        ssh_target: String,
        /// The baton binary on that host (default: `baton` on its PATH)
        #[arg(long, value_name = "PATH")]
        baton: Option<String>,
        /// The data directory of that host's server (default: its own default)
        #[arg(long, value_name = "D")]
        data_dir: Option<String>,
    },
    /// Every host: reachable or not, round-trip time, its baton's version, its terminals
    Ls {
        #[arg(long)]
        json: bool,
    },
    /// Forget a host (its terminals stay on it)
    Rm { name: String },
}

#[derive(Subcommand)]
enum ServerCmd {
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

/// The client and bare name a terminal argument addresses (`HOST:NAME`: that host's server).
fn on(client: &Client, name: String) -> Result<(Client, String), BatonError> {
    hosts::route(client, &name)
}

fn main() -> ExitCode {
    baton::log::phase("client-start");
    let cli = parse();
    let ran = run(cli.cmd);
    baton::log::phase("client-exit");
    out::exit_code(ran)
}

fn run(cmd: Option<Cmd>) -> Result<i32, BatonError> {
    use clap::CommandFactory;
    // Answered without a data directory (they describe the command line itself).
    match cmd {
        Some(Cmd::Completions { shell }) => {
            return baton::client::manual::completions(Cli::command(), shell)
        }
        Some(Cmd::Man) => return baton::client::manual::man(Cli::command()),
        // Its server's stdin pipe is all it needs (and must not depend on the environment).
        Some(Cmd::Server {
            action: ServerCmd::Warden,
        }) => return Ok(baton::providers::warden::serve()),
        Some(Cmd::Server {
            action: ServerCmd::Bridge { data_dir },
        }) => return hosts::bridge::run(data_dir),
        _ => {}
    }
    let client = Client::from_env()?;
    let c = &client;
    match cmd {
        None => baton::tui::run(c, None),
        Some(Cmd::Attach { name }) => baton::tui::run(c, name),
        // Answered above.
        Some(Cmd::Completions { .. } | Cmd::Man) => Ok(0),
        Some(Cmd::New(mut args)) => {
            let (c, name) = match args.name.take() {
                Some(n) => on(c, n).map(|(c, n)| (c, Some(n)))?,
                None => (c.clone(), None),
            };
            let json = args.json;
            commands::simple(&c, &args.request(&c, name)?, json, render::show)
        }
        Some(Cmd::Send(args)) => send_cmd::run(c, args),
        Some(Cmd::Queue(mut args)) => {
            let (c, name) = on(c, std::mem::take(&mut args.name))?;
            args.name = name;
            let json = args.json;
            commands::simple(&c, &args.request()?, json, render::queue)
        }
        Some(Cmd::Diff { name, patch, json }) => {
            let (c, name) = on(c, name)?;
            commands::simple(&c, &Request::Diff { name, patch }, json, render::diff)
        }
        Some(Cmd::Merge { name, json }) => {
            let (c, name) = on(c, name)?;
            commands::simple(&c, &Request::Merge { name }, json, render::merge)
        }
        Some(Cmd::Revert { name, turn, json }) => {
            let (c, name) = on(c, name)?;
            commands::simple(&c, &Request::Revert { name, turn }, json, render::revert)
        }
        Some(Cmd::Rename {
            name,
            new_name,
            conversation: Some(title),
            json,
        }) if new_name.is_none() => {
            let (c, name) = on(c, name)?;
            commands::simple(&c, &Request::Title { name, title }, json, render::titled)
        }
        Some(Cmd::Rename {
            name,
            new_name,
            conversation: _,
            json,
        }) => {
            let (c, name) = on(c, name)?;
            let new_name = new_name.unwrap_or_default();
            let req = Request::Rename { name, new_name };
            commands::simple(&c, &req, json, render::renamed)
        }
        Some(Cmd::Fork { name, new, json }) => {
            let (c, name) = on(c, name)?;
            commands::simple(&c, &Request::Fork { name, new }, json, render::forked)
        }
        Some(Cmd::Rewind {
            name,
            turn,
            new,
            json,
        }) => {
            let (c, name) = on(c, name)?;
            let req = Request::Rewind { name, turn, new };
            commands::simple(&c, &req, json, render::rewound)
        }
        Some(Cmd::Archive { name, json }) => {
            let (c, name) = on(c, name)?;
            let req = Request::Archive {
                name,
                archived: true,
            };
            commands::simple(&c, &req, json, render::archived)
        }
        Some(Cmd::Prune {
            older_than,
            dry_run,
            force,
            json,
        }) => {
            let req = Request::Prune {
                older_than_days: older_than,
                dry_run,
                force,
            };
            prune::run(c, &req, json)
        }
        Some(Cmd::Export { name, out, json }) => {
            let out = out.map(absolute);
            commands::simple(c, &Request::Export { name, out }, json, render::exported)
        }
        Some(Cmd::Import {
            file,
            name,
            dir,
            json,
        }) => {
            let (file, dir) = (absolute(file), dir.map(absolute));
            let req = Request::Import { file, name, dir };
            commands::simple(c, &req, json, render::imported)
        }
        Some(Cmd::Unarchive { name, json }) => {
            let (c, name) = on(c, name)?;
            let req = Request::Archive {
                name,
                archived: false,
            };
            commands::simple(&c, &req, json, render::archived)
        }
        Some(Cmd::Rm {
            name,
            delete_branch,
            force,
            json,
        }) => {
            let (c, name) = on(c, name)?;
            let req = Request::Rm {
                name,
                delete_branch,
                force,
            };
            commands::simple(&c, &req, json, render::removed)
        }
        Some(Cmd::Ls { all, json }) => hosts::list::ls(c, all, json),
        Some(Cmd::Show { name, json }) => {
            let (c, name) = on(c, name)?;
            commands::simple(&c, &Request::Show { name }, json, render::show)
        }
        Some(Cmd::Log { name, json }) => {
            let (c, name) = on(c, name)?;
            commands::simple(&c, &Request::Log { name }, json, render::log)
        }
        Some(Cmd::Instructions(mut args)) if args.name != "extract" => {
            let (c, name) = on(c, std::mem::take(&mut args.name))?;
            args.name = name;
            args.run(&c)
        }
        Some(Cmd::Instructions(args)) => args.run(c),
        Some(Cmd::Watch { name, next, json }) => {
            let (c, name) = on(c, name)?;
            baton::client::ctrl_c::install(&c, &name, true);
            let req = Request::Follow {
                name: name.clone(),
                next,
            };
            commands::send(&c, req, &name, json)
        }
        Some(Cmd::Interrupt { name }) => {
            let (c, name) = on(c, name)?;
            commands::simple(&c, &Request::Interrupt { name }, false, render::interrupted)
        }
        Some(Cmd::Host { action }) => match action {
            HostCmd::Add {
                name,
                ssh_target,
                baton,
                data_dir,
            } => hosts::add(
                &name,
                baton::config::HostConfig {
                    ssh: ssh_target,
                    baton,
                    data_dir,
                },
            ),
            HostCmd::Ls { json } => hosts::list::host_ls(c, json),
            HostCmd::Rm { name } => hosts::rm(&name),
        },
        Some(Cmd::Server { action }) => server(c, action),
        Some(Cmd::Reindex { json }) => {
            commands::simple(c, &Request::Reindex, json, render::reindexed)
        }
        Some(Cmd::Doctor { fix, json }) => baton::doctor::run(c, fix, json),
        Some(Cmd::Demo {
            stop: Some(dir), ..
        }) => baton::demo::stop(&dir),
        Some(Cmd::Demo { script, stop: None }) => baton::demo::run(script),
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
