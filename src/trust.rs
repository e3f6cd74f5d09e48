//! Which repositories' own `.baton.toml` files the user trusted to run commands: each file's
//! absolute path and the SHA-256 of the content trusted, in `<data>/trusted.json` (0600). A
//! changed file is no longer trusted; the user's own config needs no trust. `baton trust PATH`
//! writes here (the client, no server needed); the server reads it at each new worktree.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::config::{RepoFile, REPO_FILE};
use crate::error::BatonError;
use crate::paths::DataDir;

/// The hex SHA-256 of a file's content.
pub fn digest(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn store_file(data: &DataDir) -> PathBuf {
    data.root.join("trusted.json")
}

/// The trusted files: path → digest. A missing or unreadable store trusts nothing.
pub fn load(data: &DataDir) -> BTreeMap<String, String> {
    fs::read(store_file(data))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

/// Whether `file` (absolute, symlinks resolved) with content `bytes` is trusted.
pub fn trusted(data: &DataDir, file: &Path, bytes: &[u8]) -> bool {
    load(data).get(&file.to_string_lossy().into_owned()) == Some(&digest(bytes))
}

/// `baton trust PATH`: records the `.baton.toml` at PATH (the file, or a folder holding it)
/// as trusted with its current content, which must parse. Returns the file and what it runs.
pub fn record(data: &DataDir, path: &Path) -> Result<(PathBuf, RepoFile), BatonError> {
    let file = if path.is_dir() {
        path.join(REPO_FILE)
    } else {
        path.to_path_buf()
    };
    let file = file.canonicalize().map_err(|e| {
        BatonError::bad_input(format!(
            "cannot read {}: {e} (give a repository's folder or its {REPO_FILE})",
            file.display()
        ))
    })?;
    let bytes = fs::read(&file)
        .map_err(|e| BatonError::bad_input(format!("cannot read {}: {e}", file.display())))?;
    let text = String::from_utf8_lossy(&bytes);
    let parsed = RepoFile::parse(&text).map_err(|e| {
        BatonError::bad_input(format!(
            "{} is not valid: {e} (fix it, then trust it)",
            file.display()
        ))
    })?;
    let mut all = load(data);
    all.insert(file.to_string_lossy().into_owned(), digest(&bytes));
    write_store(data, &all)?;
    Ok((file, parsed))
}

/// Writes the store whole under a temporary name, renamed into place.
fn write_store(data: &DataDir, all: &BTreeMap<String, String>) -> Result<(), BatonError> {
    let fail = |e: std::io::Error| {
        BatonError::failed(format!("cannot write {}: {e}", store_file(data).display()))
    };
    data.ensure().map_err(fail)?;
    let text = serde_json::to_vec_pretty(all).map_err(|e| BatonError::failed(e.to_string()))?;
    crate::paths::replace_private(&store_file(data), &text).map_err(fail)
}
