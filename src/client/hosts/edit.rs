//! `baton host add` and `rm`: `[hosts.NAME]` written into the config file with `toml_edit`, so
//! the user's comments and layout stay; the file is written whole, 0600, and renamed into
//! place. The checks of what is added are pure (see ARCHITECTURE.md, "Other hosts").

use std::path::Path;

use toml_edit::{value, DocumentMut, Item, Table};

use crate::config::{Config, HostConfig};
use crate::error::BatonError;

/// Why a host's name is refused, if it is: it is typed before `:` in `HOST:NAME` and names a
/// config table.
pub fn check_name(name: &str) -> Result<(), String> {
    let ok_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.');
    if name.is_empty() || name.len() > 64 {
        Err("it must be 1 to 64 characters".into())
    } else if !name.chars().all(ok_char) {
        Err("use letters, digits, `-`, `_` or `.`".into())
    } else if name.starts_with(['-', '.']) {
        Err("it starts with `-` or `.`".into())
    } else {
        Ok(())
    }
}

/// Why an ssh target is refused, if it is: ssh would read a leading `-` as an option.
pub fn check_target(target: &str) -> Result<(), String> {
    if target.is_empty() {
        Err("it is empty".into())
    } else if target.starts_with('-') {
        Err("it starts with `-` (ssh would read it as an option)".into())
    } else if target.chars().any(|c| c.is_whitespace() || c.is_control()) {
        Err("it contains whitespace or control characters".into())
    } else {
        Ok(())
    }
}

/// Why a remote data directory is refused, if it is: the remote shell gets it quoted, so `~`
/// would not expand.
pub fn check_data_dir(dir: &str) -> Result<(), String> {
    if dir.starts_with('/') && !dir.contains('\0') {
        Ok(())
    } else {
        Err("give an absolute path on that host".into())
    }
}

/// The config text with host `name` added; refused when it exists.
pub fn added(text: &str, name: &str, host: &HostConfig) -> Result<String, BatonError> {
    let mut doc = parse(text)?;
    let hosts = doc
        .entry("hosts")
        .or_insert(Item::Table(Table::new()))
        .as_table_like_mut()
        .ok_or_else(|| BatonError::bad_input("`hosts` in the config is not a table: fix it"))?;
    if hosts.contains_key(name) {
        return Err(BatonError::bad_input(format!(
            "host {name} is already configured (`baton host rm {name}` first to change it)"
        )));
    }
    let mut t = Table::new();
    t["ssh"] = value(host.ssh.as_str());
    if let Some(b) = &host.baton {
        t["baton"] = value(b.as_str());
    }
    if let Some(d) = &host.data_dir {
        t["data_dir"] = value(d.as_str());
    }
    hosts.insert(name, Item::Table(t));
    if let Some(t) = doc.get_mut("hosts").and_then(Item::as_table_mut) {
        t.set_implicit(true);
    }
    Ok(doc.to_string())
}

/// The config text without host `name`, or `None` when it has none.
pub fn removed(text: &str, name: &str) -> Result<Option<String>, BatonError> {
    let mut doc = parse(text)?;
    let gone = doc
        .get_mut("hosts")
        .and_then(Item::as_table_like_mut)
        .and_then(|h| h.remove(name));
    Ok(gone.map(|_| doc.to_string()))
}

fn parse(text: &str) -> Result<DocumentMut, BatonError> {
    text.parse::<DocumentMut>().map_err(|e| {
        BatonError::bad_input(format!(
            "the config is not valid TOML ({}): fix it first",
            e.to_string().lines().next().unwrap_or("")
        ))
    })
}

/// Reads the config file (empty when missing).
pub fn read(path: &Path) -> Result<String, BatonError> {
    match std::fs::read_to_string(path) {
        Ok(t) => Ok(t),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
        Err(e) => Err(BatonError::failed(format!(
            "cannot read {}: {e}",
            path.display()
        ))),
    }
}

/// Writes `text` as the config at `path`, once it reads as baton's config: a new file (0600)
/// renamed over the old one.
pub fn write(path: &Path, text: &str) -> Result<(), BatonError> {
    Config::parse(text)
        .map_err(|e| BatonError::bad_input(format!("the config would not read: {e}")))?;
    let fail =
        |e: std::io::Error| BatonError::failed(format!("cannot write {}: {e}", path.display()));
    let dir = path.parent().unwrap_or(Path::new("."));
    crate::paths::ensure_private_dir(dir).map_err(fail)?;
    crate::paths::replace_private(path, text.as_bytes()).map_err(fail)
}

#[cfg(test)]
#[path = "edit_tests.rs"]
mod tests;
