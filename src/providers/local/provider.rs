//! What baton does with a local endpoint, as the [`Provider`] interface asks: no CLI and no
//! session on disk. Its history is baton's own (journalled, trimmed per request): a fork
//! copies it, and its writes are kept in the checkout by baton's own fence (`local::fence`).

use std::ffi::OsString;
use std::path::Path;

use crate::config::{Config, ProviderConfig};
use crate::providers::provider::{Carrying, Provider, SessionFiles, StreamParser, WriteFence};
use crate::providers::ProviderHomes;
use crate::words::ProviderKind;

pub struct Local;

impl Provider for Local {
    fn kind(&self) -> ProviderKind {
        ProviderKind::Local
    }

    /// It runs no CLI: every CLI setting is its default, and none stays warm.
    fn settings<'a>(&self, _config: &'a Config) -> &'a ProviderConfig {
        static NO_CLI: ProviderConfig = ProviderConfig {
            bin: None,
            model: None,
            args: Vec::new(),
            permission_mode: None,
            sandbox: None,
            warm: Some(0),
            warm_idle_secs: None,
        };
        &NO_CLI
    }

    fn write_fence(&self, _config: &Config) -> WriteFence {
        WriteFence::Unchecked("baton's own write fence".into())
    }

    /// Its session id is baton's own.
    fn session_on_disk(&self, _homes: &ProviderHomes, _cwd: &Path, _id: &str) -> bool {
        true
    }

    fn steer_note(&self, _handed: bool) -> String {
        "a local endpoint's turn cannot take input mid-turn: it runs next".to_string()
    }

    fn carrying(&self) -> Carrying {
        Carrying::History
    }

    /// A local turn's raw stream is the endpoint's; its messages are journalled.
    fn parser(&self, _dir: Option<&Path>) -> Option<Box<dyn StreamParser>> {
        None
    }

    fn oneshot_args(&self, _model: Option<&str>) -> Option<Vec<OsString>> {
        None
    }

    fn session_files(&self) -> Option<&dyn SessionFiles> {
        None
    }
}
