//! The arguments of the commands about every terminal or the whole set-up (ls, prune,
//! reindex, host) and their runs.

use clap::{Args, Subcommand};

use crate::client::{commands, hosts, prune, render, Client};
use crate::error::BatonError;
use crate::protocol::Request;

#[derive(Args)]
pub struct LsArgs {
    /// Archived terminals too (marked)
    #[arg(long)]
    pub all: bool,
    #[arg(long)]
    pub json: bool,
}

impl LsArgs {
    pub(super) fn run(self, c: &Client) -> Result<i32, BatonError> {
        hosts::list::ls(c, self.all, self.json)
    }
}

#[derive(Args)]
pub struct PruneArgs {
    /// Days since a terminal's last activity (0: any age)
    #[arg(long, value_name = "DAYS", default_value = "30", allow_hyphen_values = true,
          value_parser = prune::days)]
    pub older_than: u32,
    /// Say what would be removed; change nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Delete unmerged branches too
    #[arg(long)]
    pub force: bool,
    #[arg(long)]
    pub json: bool,
}

impl PruneArgs {
    pub(super) fn run(self, c: &Client) -> Result<i32, BatonError> {
        let req = Request::Prune {
            older_than_days: self.older_than,
            dry_run: self.dry_run,
            force: self.force,
        };
        prune::run(c, &req, self.json)
    }
}

/// `baton reindex`.
pub fn reindex(c: &Client, json: bool) -> Result<i32, BatonError> {
    commands::simple(c, &Request::Reindex, json, render::reindexed)
}

/// `baton trust PATH`: the repository's `.baton.toml` may run its set-up in new worktrees,
/// while its content stays as it is now.
pub fn trust(c: &Client, path: &std::path::Path) -> Result<i32, BatonError> {
    let (file, parsed) = crate::trust::record(&c.data, path)?;
    let setup = (parsed.worktree.setup.as_ref())
        .map(|cmd| format!("its set-up `{cmd}` runs in each new worktree"));
    let check = (parsed.integrate.check.as_ref())
        .map(|cmd| format!("its check `{cmd}` runs in `baton integrate`'s lane"));
    let runs: Vec<String> = setup.into_iter().chain(check).collect();
    let runs = match runs.is_empty() {
        true => "it runs nothing yet".to_string(),
        false => runs.join("; "),
    };
    crate::client::out::line(&format!(
        "trusted {} as it is now: {runs} (a change asks again)",
        file.display()
    ));
    Ok(0)
}

#[derive(Subcommand)]
pub enum HostCmd {
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

impl HostCmd {
    pub(super) fn run(self, c: &Client) -> Result<i32, BatonError> {
        match self {
            HostCmd::Add {
                name,
                ssh_target,
                baton,
                data_dir,
            } => {
                let host = crate::config::HostConfig {
                    ssh: ssh_target,
                    baton,
                    data_dir,
                };
                hosts::add(&name, host)
            }
            HostCmd::Ls { json } => hosts::list::host_ls(c, json),
            HostCmd::Rm { name } => hosts::rm(&name),
        }
    }
}
