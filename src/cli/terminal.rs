//! The arguments of the commands that act on one terminal (new, rename, fork, rewind, rm,
//! archive, diff, merge, revert, show, log, watch, interrupt, export, import): each builds its
//! request (`request`, pure: the `:` prompt builds the same) and runs it on the server its
//! terminal's name addresses (`HOST:NAME`: that host's).

use std::path::PathBuf;

use clap::Args;

use super::send::{absolute, remote_dir};
use crate::client::{commands, ctrl_c, hosts, render, Client};
use crate::error::BatonError;
use crate::protocol::{Answer, Request};

/// The client a terminal argument addresses (`HOST:NAME`: that host's server), `name` left
/// bare.
pub(super) fn on(client: &Client, name: &mut String) -> Result<Client, BatonError> {
    let (c, bare) = hosts::route(client, name)?;
    *name = bare;
    Ok(c)
}

#[derive(Args)]
pub struct NewArgs {
    /// Terminal name (default: the directory's name)
    pub name: Option<String>,
    /// The directory its runs work in (default: the current directory)
    #[arg(long)]
    pub dir: Option<PathBuf>,
    /// claude or codex (default: claude)
    #[arg(long)]
    pub provider: Option<String>,
    /// Model to use (default: the provider's configured or own default)
    #[arg(long)]
    pub model: Option<String>,
    /// What this terminal is for; rides into every conversation's system instructions
    #[arg(long)]
    pub brief: Option<String>,
    /// Run in the directory itself instead of a git worktree of its own
    #[arg(long)]
    pub in_place: bool,
    #[arg(long)]
    pub json: bool,
}

impl NewArgs {
    /// The request, for the terminal's `dir` as its server needs it (absolute there).
    pub fn request(self, dir: String) -> Request {
        Request::New {
            name: self.name,
            dir,
            provider: self.provider,
            model: self.model,
            brief: self.brief,
            in_place: self.in_place,
        }
    }

    pub(super) fn run(mut self, client: &Client) -> Result<i32, BatonError> {
        let c = match self.name.as_mut() {
            Some(name) => on(client, name)?,
            None => client.clone(),
        };
        let dir = match (self.dir.take(), &c.via) {
            (Some(d), None) => absolute(d),
            (None, None) => absolute(
                std::env::current_dir()
                    .map_err(|e| BatonError::bad_input(format!("no current directory: {e}")))?,
            ),
            (d, Some(_)) => remote_dir(&c, d)?.unwrap_or_default(),
        };
        let json = self.json;
        commands::simple(&c, &self.request(dir), json, render::show)
    }
}

/// A command taking a terminal's name alone.
#[derive(Args)]
pub struct NameArgs {
    pub name: String,
    #[arg(long)]
    pub json: bool,
}

impl NameArgs {
    /// Runs `req` of the bare name, its answer printed by `text`.
    fn simple<T: TryFrom<Answer, Error = BatonError>>(
        mut self,
        client: &Client,
        req: impl FnOnce(String) -> Request,
        text: fn(&T) -> String,
    ) -> Result<i32, BatonError> {
        let c = on(client, &mut self.name)?;
        commands::simple(&c, &req(self.name), self.json, text)
    }

    pub(super) fn merge(self, c: &Client) -> Result<i32, BatonError> {
        self.simple(c, |name| Request::Merge { name }, render::merge)
    }

    pub(super) fn show(self, c: &Client) -> Result<i32, BatonError> {
        self.simple(c, |name| Request::Show { name }, render::show)
    }

    pub(super) fn log(self, c: &Client) -> Result<i32, BatonError> {
        self.simple(c, |name| Request::Log { name }, render::log)
    }

    pub(super) fn archive(self, c: &Client, archived: bool) -> Result<i32, BatonError> {
        let req = |name| Request::Archive { name, archived };
        self.simple(c, req, render::archived)
    }
}

/// `baton interrupt NAME`.
pub(super) fn interrupt(client: &Client, mut name: String) -> Result<i32, BatonError> {
    let c = on(client, &mut name)?;
    commands::simple(&c, &Request::Interrupt { name }, false, render::interrupted)
}

#[derive(Args)]
pub struct DiffArgs {
    pub name: String,
    /// The full diff instead of a summary
    #[arg(long)]
    pub patch: bool,
    #[arg(long)]
    pub json: bool,
}

impl DiffArgs {
    pub(super) fn run(mut self, client: &Client) -> Result<i32, BatonError> {
        let c = on(client, &mut self.name)?;
        let req = Request::Diff {
            name: self.name,
            patch: self.patch,
        };
        commands::simple(&c, &req, self.json, render::diff)
    }
}

#[derive(Args)]
pub struct RevertArgs {
    pub name: String,
    /// The turn's number (as `baton log` shows it)
    pub turn: u32,
    #[arg(long)]
    pub json: bool,
}

impl RevertArgs {
    pub fn request(self) -> Request {
        Request::Revert {
            name: self.name,
            turn: self.turn,
        }
    }

    pub(super) fn run(mut self, client: &Client) -> Result<i32, BatonError> {
        let c = on(client, &mut self.name)?;
        let json = self.json;
        commands::simple(&c, &self.request(), json, render::revert)
    }
}

#[derive(Args)]
pub struct RmArgs {
    pub name: String,
    /// Delete its branch too (refused when unmerged, unless --force)
    #[arg(long)]
    pub delete_branch: bool,
    /// With --delete-branch: delete it even when unmerged
    #[arg(long)]
    pub force: bool,
    #[arg(long)]
    pub json: bool,
}

impl RmArgs {
    pub fn request(self) -> Request {
        Request::Rm {
            name: self.name,
            delete_branch: self.delete_branch,
            force: self.force,
        }
    }

    pub(super) fn run(mut self, client: &Client) -> Result<i32, BatonError> {
        let c = on(client, &mut self.name)?;
        let json = self.json;
        commands::simple(&c, &self.request(), json, render::removed)
    }
}

#[derive(Args)]
pub struct RenameArgs {
    pub name: String,
    #[arg(required_unless_present = "conversation")]
    pub new_name: Option<String>,
    /// Title the live conversation instead (it is titled from its first prompt until then)
    #[arg(long, value_name = "TITLE", conflicts_with = "new_name")]
    pub conversation: Option<String>,
    #[arg(long)]
    pub json: bool,
}

impl RenameArgs {
    /// A new name renames the terminal; a title alone titles its live conversation.
    pub fn request(self) -> Request {
        match (self.new_name, self.conversation) {
            (None, Some(title)) => Request::Title {
                name: self.name,
                title,
            },
            (new_name, _) => Request::Rename {
                name: self.name,
                new_name: new_name.unwrap_or_default(),
            },
        }
    }

    pub(super) fn run(mut self, client: &Client) -> Result<i32, BatonError> {
        let c = on(client, &mut self.name)?;
        let json = self.json;
        match self.request() {
            req @ Request::Title { .. } => commands::simple(&c, &req, json, render::titled),
            req => commands::simple(&c, &req, json, render::renamed),
        }
    }
}

#[derive(Args)]
pub struct ForkArgs {
    pub name: String,
    /// The new terminal's name (default: NAME-2, NAME-3…)
    pub new: Option<String>,
    #[arg(long)]
    pub json: bool,
}

impl ForkArgs {
    pub fn request(self) -> Request {
        Request::Fork {
            name: self.name,
            new: self.new,
        }
    }

    pub(super) fn run(mut self, client: &Client) -> Result<i32, BatonError> {
        let c = on(client, &mut self.name)?;
        let json = self.json;
        commands::simple(&c, &self.request(), json, render::forked)
    }
}

#[derive(Args)]
pub struct RewindArgs {
    pub name: String,
    pub turn: u32,
    /// The new terminal's name (default: NAME-2, NAME-3…)
    pub new: Option<String>,
    #[arg(long)]
    pub json: bool,
}

impl RewindArgs {
    pub fn request(self) -> Request {
        Request::Rewind {
            name: self.name,
            turn: self.turn,
            new: self.new,
        }
    }

    pub(super) fn run(mut self, client: &Client) -> Result<i32, BatonError> {
        let c = on(client, &mut self.name)?;
        let json = self.json;
        commands::simple(&c, &self.request(), json, render::rewound)
    }
}

#[derive(Args)]
pub struct WatchArgs {
    pub name: String,
    /// With no turn running, wait for the next one to start
    #[arg(long)]
    pub next: bool,
    /// The stream as JSON lines, as `send --json`
    #[arg(long)]
    pub json: bool,
}

impl WatchArgs {
    pub(super) fn run(mut self, client: &Client) -> Result<i32, BatonError> {
        let c = on(client, &mut self.name)?;
        ctrl_c::install(&c, &self.name, true);
        let req = Request::Follow {
            name: self.name.clone(),
            next: self.next,
        };
        commands::send(&c, req, &self.name, self.json)
    }
}

#[derive(Args)]
pub struct ExportArgs {
    pub name: String,
    /// The folder to write the zip into (it must exist)
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    #[arg(long)]
    pub json: bool,
}

impl ExportArgs {
    pub(super) fn run(self, c: &Client) -> Result<i32, BatonError> {
        let req = Request::Export {
            name: self.name,
            out: self.out.map(absolute),
        };
        commands::simple(c, &req, self.json, render::exported)
    }
}

#[derive(Args)]
pub struct ImportArgs {
    pub file: PathBuf,
    /// Import it under this name
    #[arg(long, value_name = "NEW")]
    pub name: Option<String>,
    /// The repository on this machine to make its worktree in (or a plain folder to work
    /// in); without it, a fresh folder
    #[arg(long, value_name = "D")]
    pub dir: Option<PathBuf>,
    /// The most the archive may unpack to (default 512M; K, M, G, T: binary units)
    #[arg(long, value_name = "SIZE", value_parser = size)]
    pub max_size: Option<u64>,
    #[arg(long)]
    pub json: bool,
}

impl ImportArgs {
    pub(super) fn run(self, c: &Client) -> Result<i32, BatonError> {
        let req = Request::Import {
            file: absolute(self.file),
            name: self.name,
            dir: self.dir.map(absolute),
            max_size: self.max_size,
        };
        commands::simple(c, &req, self.json, render::imported)
    }
}

/// A size in bytes: a whole number, with `K`, `M`, `G` or `T` (1024s; `KiB`, `MB`... too).
pub fn size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (n, unit) = t.split_at(digits);
    let unit = unit.trim().to_ascii_uppercase();
    let unit = unit.trim_end_matches('B').trim_end_matches('I');
    let shift = match unit {
        "" => Some(0),
        "K" => Some(10),
        "M" => Some(20),
        "G" => Some(30),
        "T" => Some(40),
        _ => None,
    };
    shift
        .zip(n.parse::<u64>().ok())
        .and_then(|(shift, n)| n.checked_mul(1u64 << shift))
        .filter(|n| *n > 0)
        .ok_or_else(|| format!("{s:?} is not a size: give a whole number of bytes, or one with K, M, G or T (e.g. 2G)"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn a_size_is_bytes_or_binary_units() {
        let cases: [(&str, Option<u64>); 12] = [
            ("1048576", Some(1 << 20)),
            ("512M", Some(512 << 20)),
            ("2G", Some(2 << 30)),
            ("2g", Some(2 << 30)),
            ("100KiB", Some(100 << 10)),
            ("3 MB", Some(3 << 20)),
            ("1T", Some(1 << 40)),
            ("0", None),
            ("", None),
            ("G", None),
            ("1.5G", None),
            ("99999999999T", None),
        ];
        for (s, want) in cases {
            assert_eq!(size(s).ok(), want, "{s:?}");
        }
    }
}
