//! The subcommands a client runs alone (`ClientCmd`): their help texts, in the order `baton
//! --help` lists them, and the run of each (its arguments build its request).

use clap::Subcommand;

use super::approvals::{ApprovalsArgs, ApproveArgs, DenyArgs};
use super::data::{HostCmd, LsArgs, PruneArgs};
use super::input::{InstructionsArgs, QueueArgs};
use super::integrate::IntegrateArgs;
use super::send::{self, SendArgs};
use super::terminal::{
    DiffArgs, ExportArgs, ForkArgs, ImportArgs, NameArgs, NewArgs, RenameArgs, RevertArgs,
    RewindArgs, RmArgs, WatchArgs,
};
use crate::client::Client;
use crate::error::BatonError;

#[derive(Subcommand)]
pub enum ClientCmd {
    /// Create a terminal working in a directory
    New(NewArgs),
    /// The terminal's branch against the commit it started from
    Diff(DiffArgs),
    /// Squash-merge the terminal's branch into the branch it was created from
    Merge(NameArgs),
    /// Revert one turn's automatic commit on the terminal's branch
    Revert(RevertArgs),
    /// Remove a terminal: its work is committed and its branch kept
    Rm(RmArgs),
    /// Give a terminal another name (its history, worktree and branch stay), or title its live
    /// conversation (--conversation)
    Rename(RenameArgs),
    /// A new terminal that carries on from where NAME is now: its own worktree on a new branch
    /// at NAME's head, the same instructions, and a fork of NAME's provider session
    Fork(ForkArgs),
    /// A new terminal that carries on from just before NAME's turn TURN: the files as they were
    /// when it was sent, the provider's history before it; prints its prompt to edit and resend
    Rewind(RewindArgs),
    /// Hide a terminal from `ls` and the multiplexer's list (nothing else changes)
    Archive(NameArgs),
    /// Merge every live terminal's branch of a repository onto its base branch, oldest first,
    /// in baton's own worktree, and say which merge cleanly, conflict (with whom, on which
    /// files) or fail the repository's check; moves no branch. Exit 1 when one is not clean
    Integrate(IntegrateArgs),
    /// Remove archived terminals idle for DAYS: their worktree, baton's data of them, and
    /// their branch when it is merged (or with --force)
    Prune(PruneArgs),
    /// Write a terminal (journal, turn streams, the CLIs' session files, a SHA-256 manifest)
    /// into a zip: <data>/exports/NAME-<UTC time>.zip, or into --out DIR
    Export(ExportArgs),
    /// Make a terminal of a zip `baton export` wrote (on this or another machine)
    Import(ImportArgs),
    /// Show an archived terminal again
    Unarchive(NameArgs),
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
    Ls(LsArgs),
    /// Show one terminal: conversation, sessions, context, instructions
    Show(NameArgs),
    /// Every turn of a terminal, across conversations
    Log(NameArgs),
    /// List or edit a terminal's standing instructions; `baton instructions extract` prints
    /// what the configured extractor keeps of a prompt read on stdin
    Instructions(InstructionsArgs),
    /// Interrupt the running turn (SIGINT to the CLI's process group)
    Interrupt { name: String },
    /// The requests waiting for approval, of every terminal: what a CLI may not do on its own
    /// (a write outside its checkout, a command its mode will not run unasked)
    Approvals(ApprovalsArgs),
    /// Let a waiting request run (--always: the same from now on, for this terminal)
    Approve(ApproveArgs),
    /// Refuse a waiting request (--reason: what the model reads in the tool's answer)
    Deny(DenyArgs),
    /// Follow the running turn as `send` shows it: from its start (what already streamed,
    /// then live), ending with its summary and `send`'s exit code. Ctrl-c stops watching (exit
    /// 130); the turn goes on
    #[command(alias = "follow")]
    Watch(WatchArgs),
    /// Other hosts whose terminals are addressed HOST:NAME (over ssh; kept in the config as
    /// [hosts.NAME])
    Host {
        #[command(subcommand)]
        action: HostCmd,
    },
}

impl ClientCmd {
    /// Runs the command through `c` (a terminal named `HOST:NAME`: through that host's
    /// server); the exit code.
    pub fn run(self, c: &Client) -> Result<i32, BatonError> {
        match self {
            ClientCmd::New(a) => a.run(c),
            ClientCmd::Diff(a) => a.run(c),
            ClientCmd::Merge(a) => a.merge(c),
            ClientCmd::Revert(a) => a.run(c),
            ClientCmd::Rm(a) => a.run(c),
            ClientCmd::Rename(a) => a.run(c),
            ClientCmd::Fork(a) => a.run(c),
            ClientCmd::Rewind(a) => a.run(c),
            ClientCmd::Archive(a) => a.archive(c, true),
            ClientCmd::Unarchive(a) => a.archive(c, false),
            ClientCmd::Integrate(a) => a.run(c),
            ClientCmd::Prune(a) => a.run(c),
            ClientCmd::Export(a) => a.run(c),
            ClientCmd::Import(a) => a.run(c),
            ClientCmd::Send(a) => send::run(c, a),
            ClientCmd::Queue(a) => a.run(c),
            ClientCmd::Ls(a) => a.run(c),
            ClientCmd::Show(a) => a.show(c),
            ClientCmd::Log(a) => a.log(c),
            ClientCmd::Instructions(a) => a.run(c),
            ClientCmd::Interrupt { name } => super::terminal::interrupt(c, name),
            ClientCmd::Approvals(a) => a.run(c),
            ClientCmd::Approve(a) => a.run(c),
            ClientCmd::Deny(a) => a.run(c),
            ClientCmd::Watch(a) => a.run(c),
            ClientCmd::Host { action } => action.run(c),
        }
    }
}
