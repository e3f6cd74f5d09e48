//! `baton approvals`, `approve`, `deny`: the inbox of what the terminals' CLIs ask before a
//! call their fence would refuse (`server::approvals`).

use clap::Args;

use super::terminal::on;
use crate::client::{commands, render, Client};
use crate::error::BatonError;
use crate::protocol::Request;

#[derive(Args)]
pub struct ApprovalsArgs {
    /// Only this terminal's requests
    pub name: Option<String>,
    /// Remove NAME's --always rule made by request ID (`baton show NAME` lists them)
    #[arg(long, value_name = "ID", requires = "name")]
    pub forget: Option<String>,
    #[arg(long)]
    pub json: bool,
}

impl ApprovalsArgs {
    pub(super) fn run(self, client: &Client) -> Result<i32, BatonError> {
        let json = self.json;
        match (self.name, self.forget) {
            (Some(mut name), Some(id)) => {
                let c = on(client, &mut name)?;
                commands::simple(&c, &Request::Forget { name, id }, json, render::show)
            }
            (Some(mut name), None) => {
                let c = on(client, &mut name)?;
                let req = Request::Approvals { name: Some(name) };
                commands::simple(&c, &req, json, render::approvals)
            }
            (None, _) => {
                let req = Request::Approvals { name: None };
                commands::simple(client, &req, json, render::approvals)
            }
        }
    }
}

#[derive(Args)]
pub struct ApproveArgs {
    /// The request's id (`baton approvals` lists them)
    pub id: String,
    /// Also run the same tool on the same target (a write: in the same folder) unasked for the
    /// rest of the terminal's life
    #[arg(long)]
    pub always: bool,
    #[arg(long)]
    pub json: bool,
}

impl ApproveArgs {
    pub(super) fn run(self, client: &Client) -> Result<i32, BatonError> {
        let req = Request::Approve {
            id: self.id,
            always: self.always,
        };
        commands::simple(client, &req, self.json, render::answered)
    }
}

#[derive(Args)]
pub struct DenyArgs {
    /// The request's id (`baton approvals` lists them)
    pub id: String,
    /// What the model reads in the tool's answer, so it can change course
    #[arg(long, value_name = "TEXT")]
    pub reason: Option<String>,
    #[arg(long)]
    pub json: bool,
}

impl DenyArgs {
    pub(super) fn run(self, client: &Client) -> Result<i32, BatonError> {
        let req = Request::Deny {
            id: self.id,
            reason: self.reason,
        };
        commands::simple(client, &req, self.json, render::answered)
    }
}
