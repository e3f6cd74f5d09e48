//! `baton integrate NAME|PATH [--json]`: the integration lane's report for the repository a
//! terminal works in, or the one at a path (an argument with a `/`, or `.`/`..`).

use std::path::PathBuf;

use clap::Args;

use super::send::absolute;
use crate::client::{commands, render_lane, Client};
use crate::error::{BatonError, EXIT_FAILED};
use crate::protocol::lane::IntegrateView;
use crate::protocol::Request;

#[derive(Args)]
pub struct IntegrateArgs {
    /// A terminal (its repository, onto its base branch), or a path in a repository (with a
    /// `/`: `./app`, `.`)
    pub target: String,
    #[arg(long)]
    pub json: bool,
}

/// Whether the argument names a path rather than a terminal.
pub fn is_path(target: &str) -> bool {
    target.contains('/') || target == "." || target == ".."
}

impl IntegrateArgs {
    /// The request (pure but for making a relative path absolute).
    pub fn request(&self) -> Request {
        if is_path(&self.target) {
            Request::Integrate {
                name: None,
                dir: Some(absolute(PathBuf::from(&self.target))),
            }
        } else {
            Request::Integrate {
                name: Some(self.target.clone()),
                dir: None,
            }
        }
    }

    /// Exit 0 when every terminal merged cleanly (and passed the check), else 1.
    pub(super) fn run(self, client: &Client) -> Result<i32, BatonError> {
        let mut req = self.request();
        let c = match &mut req {
            Request::Integrate {
                name: Some(name), ..
            } => super::terminal::on(client, name)?,
            _ => client.clone(),
        };
        let view: IntegrateView = commands::shown(&c, &req, self.json, render_lane::integrated)?;
        Ok(if view.all_clean() { 0 } else { EXIT_FAILED })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slash_or_a_dot_makes_a_path() {
        for (arg, path) in [
            ("api", false),
            ("host:api", false),
            (".", true),
            ("..", true),
            ("./app", true),
            ("/abs/app", true),
        ] {
            assert_eq!(is_path(arg), path, "{arg}");
        }
    }
}
