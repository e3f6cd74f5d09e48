//! Checks on what users type: terminal names and prompts. Pure; each failure says how to fix it.

use crate::error::BatonError;

/// Longest accepted terminal name, in characters.
pub const MAX_NAME_CHARS: usize = 64;
/// Largest accepted prompt. Prompts travel on stdin, so this is not an argv limit: it keeps a
/// stray `cat big.log | baton send t -` from sending megabytes to a model.
pub const MAX_PROMPT_BYTES: usize = 1024 * 1024;

/// A terminal name is used in paths, branch names and command lines: no `/`, no `..`, no
/// control characters, no surrounding whitespace, not starting with `-`.
pub fn terminal_name(name: &str) -> Result<(), BatonError> {
    let why = if name.trim().is_empty() {
        Some("it is empty")
    } else if name.chars().count() > MAX_NAME_CHARS {
        Some("it is longer than 64 characters")
    } else if name.contains('/') || name.contains('\\') {
        Some("it contains a slash")
    } else if name.contains("..") || name == "." {
        Some("it contains `..` or is `.`")
    } else if name.chars().any(char::is_control) {
        Some("it contains control characters")
    } else if name.trim() != name {
        Some("it starts or ends with whitespace")
    } else if name.starts_with('-') {
        Some("it starts with `-`")
    } else if name == "extract" {
        Some("`extract` is reserved for `baton instructions extract`")
    } else {
        None
    };
    match why {
        None => Ok(()),
        Some(why) => Err(BatonError::bad_input(format!(
            "invalid terminal name {name:?}: {why} (use letters, digits, `-`, `_` or `.`, e.g. `api`)"
        ))),
    }
}

/// A prompt must say something and fit the size limit.
pub fn prompt(text: &str) -> Result<(), BatonError> {
    if text.trim().is_empty() {
        return Err(BatonError::bad_input(
            "the prompt is empty (type it after the terminal name, or pass `-` and pipe it on stdin)",
        ));
    }
    if text.len() > MAX_PROMPT_BYTES {
        return Err(BatonError::bad_input(format!(
            "the prompt is {} bytes, more than the {} byte limit (send a shorter prompt, or point the agent at a file)",
            text.len(),
            MAX_PROMPT_BYTES
        )));
    }
    Ok(())
}

/// Turns raw bytes (stdin) into a prompt, refusing invalid UTF-8.
pub fn prompt_bytes(bytes: Vec<u8>) -> Result<String, BatonError> {
    String::from_utf8(bytes).map_err(|e| {
        BatonError::bad_input(format!(
            "the prompt on stdin is not valid UTF-8 (byte {} is not; convert it with iconv first)",
            e.utf8_error().valid_up_to()
        ))
    })
}

/// A default terminal name derived from a directory's last component.
pub fn name_from_dir(dir: &std::path::Path) -> String {
    let base = dir
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let cleaned: String = base
        .chars()
        .map(|c| if c.is_control() || c == '/' { '-' } else { c })
        .take(MAX_NAME_CHARS)
        .collect::<String>()
        .replace("..", "-");
    let cleaned = cleaned.trim().trim_start_matches('-').to_string();
    if cleaned.is_empty() || cleaned == "." {
        "main".to_string()
    } else {
        cleaned
    }
}

#[cfg(test)]
#[path = "validate_tests.rs"]
mod tests;
