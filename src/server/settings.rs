//! The settings a request asks for, checked before anything changes: the provider (and, for
//! `local`, which endpoint), the model, a directory. Pure checks over the config and the
//! terminal as the index has it; the write side applies what they return.

use std::path::Path;

use super::state::Server;
use crate::error::BatonError;
use crate::protocol::DEFAULT_MODEL;
use crate::store::TerminalRow;
use crate::words::ProviderKind;

/// The physical path of an existing directory given with `--dir`.
pub fn existing_dir(dir: &str) -> Result<String, BatonError> {
    let canonical = Path::new(dir).canonicalize().map_err(|e| {
        BatonError::bad_input(format!(
            "--dir {dir}: {e} (create the directory first or fix the path)"
        ))
    })?;
    if !canonical.is_dir() {
        return Err(BatonError::bad_input(format!(
            "--dir {dir} is not a directory"
        )));
    }
    Ok(canonical.to_string_lossy().into_owned())
}

/// A provider name as typed (`claude`, `codex`, `local`, `local:ENDPOINT`); the endpoint is
/// left to [`choose_provider`].
pub fn parse_provider(p: Option<&str>) -> Result<Option<ProviderKind>, BatonError> {
    match p {
        None => Ok(None),
        Some(s) => {
            let kind = s.strip_prefix("local:").map_or(s, |_| "local");
            match ProviderKind::parse(kind) {
                Some(k) => Ok(Some(k)),
                None => Err(BatonError::bad_input(format!(
                    "unknown provider {s:?} (use claude, codex or local[:ENDPOINT])"
                ))),
            }
        }
    }
}

/// A provider with, for `local`, the configured endpoint it runs on (by default: the default
/// provider).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProviderChoice {
    pub kind: ProviderKind,
    pub endpoint: Option<String>,
}

/// What `--provider` asks for: `local` takes the endpoint named, else the terminal's own, else
/// the only one configured, and it must be configured. With no `--provider`, a local
/// terminal's endpoint is checked the same way (None is returned: nothing changes).
pub fn choose_provider(
    srv: &Server,
    requested: Option<&str>,
    terminal: Option<&TerminalRow>,
) -> Result<Option<ProviderChoice>, BatonError> {
    let kind = parse_provider(requested)?;
    let named = requested.and_then(|s| s.strip_prefix("local:"));
    let (kind, named) = match (kind, terminal) {
        (Some(k), _) => (k, named),
        (None, Some(t)) => (t.provider, t.endpoint.as_deref()),
        (None, None) => return Ok(None),
    };
    let endpoint = if kind.is_cli() {
        None
    } else {
        // The terminal's own: the one it runs on, else (back from another provider) the one
        // it last ran on.
        let own = match terminal {
            Some(t) if !t.provider.is_cli() => t.endpoint.clone(),
            Some(t) if named.is_none() => srv.store.last_local_endpoint(&t.id)?,
            _ => None,
        };
        let (name, _) = srv
            .config
            .endpoint(named.or(own.as_deref()))
            .map_err(BatonError::bad_input)?;
        Some(name)
    };
    Ok(requested.map(|_| ProviderChoice { kind, endpoint }))
}

pub fn validate_model(m: &str) -> Result<(), BatonError> {
    if m.trim().is_empty() || m.chars().any(char::is_control) || m.starts_with('-') {
        return Err(BatonError::bad_input(format!(
            "invalid model name {m:?} (e.g. sonnet, opus, gpt-5.5; `{DEFAULT_MODEL}`: back to the provider's default)"
        )));
    }
    Ok(())
}

/// The model a terminal is pinned to once `asked` applies: [`DEFAULT_MODEL`] unpins it.
pub fn pinned(asked: &str) -> Option<String> {
    (asked != DEFAULT_MODEL).then(|| asked.to_string())
}
