//! Where Claude Code keeps its sessions on disk: `projects/<encoded cwd>/<id>.jsonl` under
//! `$CLAUDE_CONFIG_DIR` (the encoding is Claude Code's own, [`encode_cwd`]), found there or in
//! any project folder, and the last model call such a file records.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{CallUsage, SYNTHETIC_MODEL};
use crate::providers::process::read_file_tail;
use crate::providers::ProviderHomes;

/// Claude Code's limit for an encoded project directory name (`MAX_SANITIZED_LENGTH`).
const MAX_ENCODED_LEN: usize = 200;
/// How much of a session file's end is read to find the last model call, smallest first (the
/// common case: the call is among the last few lines, a few KiB), then the whole file. Every
/// turn pays for the first read before its result is reported: 16 KiB takes ~10 µs here,
/// 64 KiB ~90 µs when its pages are fresh (a page fault costs ~5 µs on this VM).
pub(super) const SESSION_TAILS: [u64; 3] = [16 * 1024, 256 * 1024, 4 * 1024 * 1024];

/// Claude Code's project directory name for a working directory: every UTF-16 unit outside
/// `[A-Za-z0-9]` becomes `-`; a name longer than 200 is cut to 200 and gets `-` plus a hash.
///
/// The rule is Claude Code's `sanitizePath` (`MAX_SANITIZED_LENGTH = 200`). The hash is its
/// Node fallback `simpleHash`: `Math.abs(djb2Hash(name)).toString(36)`, where `djb2Hash` is
/// `h = (h << 5) - h + unit` over UTF-16 units in wrapping 32-bit arithmetic. Builds running on
/// Bun use `Bun.hash` (wyhash) instead, so [`session_exists`] also searches every project
/// directory by session id rather than trusting the suffix.
pub fn encode_cwd(path: &Path) -> String {
    let name = path.to_string_lossy();
    let units: Vec<u16> = name.encode_utf16().collect();
    let encoded: String = units
        .iter()
        .map(|&u| match u8::try_from(u) {
            Ok(b) if b.is_ascii_alphanumeric() => char::from(b),
            _ => '-',
        })
        .collect();
    if encoded.len() <= MAX_ENCODED_LEN {
        return encoded;
    }
    let hash = units
        .iter()
        .fold(0i32, |h, &u| h.wrapping_mul(31).wrapping_add(i32::from(u)));
    format!(
        "{}-{}",
        &encoded[..MAX_ENCODED_LEN],
        to_base36(i64::from(hash).unsigned_abs())
    )
}

pub(super) fn to_base36(mut n: u64) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = Vec::new();
    loop {
        out.push(DIGITS[(n % 36) as usize]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    out.reverse();
    String::from_utf8_lossy(&out).into_owned()
}

/// Where Claude Code keeps session `id` for runs in `cwd` (its physical path, like the CLI's
/// own `process.cwd()`).
pub fn session_file(homes: &ProviderHomes, cwd: &Path, id: &str) -> PathBuf {
    let cwd = std::fs::canonicalize(cwd).unwrap_or_else(|_| cwd.to_path_buf());
    homes
        .claude
        .join("projects")
        .join(encode_cwd(&cwd))
        .join(format!("{id}.jsonl"))
}

/// Whether Claude Code can still resume session `id`: its file in the cwd's project directory,
/// else in any project directory (2.1.332 finds sessions across projects).
pub fn session_exists(homes: &ProviderHomes, cwd: &Path, id: &str) -> bool {
    find_session_file(homes, cwd, id).is_some()
}

pub(crate) fn find_session_file(homes: &ProviderHomes, cwd: &Path, id: &str) -> Option<PathBuf> {
    // A session id names a file: anything path-like is not one.
    if id.is_empty() || id.contains('/') || id.starts_with('.') {
        return None;
    }
    // Claude Code treats an empty file as no session.
    let usable = |p: &Path| std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.len() > 0);
    let direct = session_file(homes, cwd, id);
    if usable(&direct) {
        return Some(direct);
    }
    let file_name = format!("{id}.jsonl");
    std::fs::read_dir(homes.claude.join("projects"))
        .ok()?
        .filter_map(Result::ok)
        .map(|entry| entry.path().join(&file_name))
        .find(|p| usable(p))
}

/// The message id and usage of the last real model call recorded in a session file.
pub(in crate::providers) fn last_call_in_session_file(
    file: &Path,
) -> Option<(Option<String>, CallUsage)> {
    let find = |text: &str| {
        text.lines().rev().find_map(|line| {
            let value: Value = serde_json::from_str(line).ok()?;
            if value["type"].as_str() != Some("assistant")
                || value["message"]["model"].as_str() == Some(SYNTHETIC_MODEL)
            {
                return None;
            }
            let usage = CallUsage::from_json(&value["message"]["usage"])?;
            let id = value["message"]["id"].as_str().map(str::to_owned);
            Some((id, usage))
        })
    };
    // The last call is nearly always in the last few lines: a small tail first (each turn
    // pays for this read before its result is reported), then larger ones.
    for max in SESSION_TAILS.into_iter().chain([u64::MAX]) {
        let (tail, whole) = read_file_tail(file, max).ok()?;
        if let Some(call) = find(&tail) {
            return Some(call);
        }
        if whole {
            return None;
        }
    }
    None
}
