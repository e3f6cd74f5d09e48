//! Checks on what users type: terminal names and prompts. Pure; each failure says how to fix it.

use unicode_width::UnicodeWidthChar;

use crate::error::BatonError;
use crate::words::hidden_char;

/// Longest accepted terminal name, in characters.
pub const MAX_NAME_CHARS: usize = 64;
/// Largest accepted prompt. Prompts travel on stdin, so this is not an argv limit: it keeps a
/// stray `cat big.log | baton send t -` from sending megabytes to a model.
pub const MAX_PROMPT_BYTES: usize = 1024 * 1024;

/// Why `text` is refused when it holds a [`hidden_char`], naming it as U+XXXX.
fn hidden_why(c: char) -> String {
    format!(
        "it contains U+{:04X}, an invisible or direction-changing character (retype it without that character; it often comes with copied text)",
        u32::from(c)
    )
}

/// A terminal name is used in paths, branch names and command lines: no `/`, no `:`, no `..`, no
/// control characters, no invisible or direction-changing ones ([`hidden_char`]), no
/// whitespace, not starting with `-`.
pub fn terminal_name(name: &str) -> Result<(), BatonError> {
    let hidden = hidden_char(name).map(hidden_why);
    let why = if name.trim().is_empty() {
        Some("it is empty")
    } else if name.chars().count() > MAX_NAME_CHARS {
        Some("it is longer than 64 characters")
    } else if name.contains('/') || name.contains('\\') {
        Some("it contains a slash")
    } else if name.contains(':') {
        // `HOST:NAME` addresses a terminal on another host. Names an older baton accepted
        // with `:` are still reached, with a leading `:` (`baton show :old:name`).
        Some("it contains `:`, which separates a host from a terminal (`HOST:NAME`)")
    } else if name.contains("..") || name == "." {
        Some("it contains `..` or is `.`")
    } else if name.chars().any(char::is_control) {
        Some("it contains control characters")
    } else if let Some(why) = &hidden {
        Some(why.as_str())
    } else if name.chars().any(char::is_whitespace) {
        // A name is typed on command lines: a space would need quoting everywhere. Names an
        // older baton accepted with spaces are still found by `ls`, `rm` and `rename`.
        Some("it contains whitespace")
    } else if name.starts_with('-') {
        Some("it starts with `-`")
    } else if name.chars().next().and_then(|c| c.width()) == Some(0) {
        // A combining mark (U+0301) has no character of its own to sit on: `ls` would draw
        // it over the column before, and a name of marks alone as a blank.
        Some("it starts with a combining mark, which shows on no character of its own")
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

/// A conversation title a user gives: one line, 1 to `max` characters, no control characters
/// and no [`hidden_char`] (a title is shown in `ls`, `log` and the UI like a name).
pub fn title(title: &str, max: usize) -> Result<(), BatonError> {
    if title.is_empty() || title.chars().any(char::is_control) || title.chars().count() > max {
        return Err(BatonError::bad_input(format!(
            "a conversation title is one line of text, 1 to {max} characters, without control characters"
        )));
    }
    match hidden_char(title) {
        Some(c) => Err(BatonError::bad_input(format!(
            "invalid conversation title {title:?}: {}",
            hidden_why(c)
        ))),
        None => Ok(()),
    }
}

/// Whether `id` (a terminal, conversation, turn or CLI session id read from a journal or an
/// archive) may be part of a path: 1 to 100 ASCII letters, digits, `-` or `_`, as every id
/// baton and the CLIs make (UUIDs). Anything else (`..`, `/`) could point outside its folder.
pub fn safe_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 100
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// A prompt must say something, fit the size limit and hold no NUL (a CLI reads its prompt as
/// a C string or a JSON line, and a terminal shows nothing for it). Any other character is
/// kept: a prompt may quote a log with its escapes, which the client writes out when it
/// prints them.
pub fn prompt(text: &str) -> Result<(), BatonError> {
    if text.trim().is_empty() {
        return Err(BatonError::bad_input(
            "the prompt is empty (type it after the terminal name, or pass `-` and pipe it on stdin)",
        ));
    }
    if text.len() > MAX_PROMPT_BYTES {
        return Err(too_big("the prompt", Some(text.len())));
    }
    if let Some(at) = text.find('\0') {
        return Err(BatonError::bad_input(format!(
            "the prompt contains a NUL character (U+0000) at byte {at}: remove it (`tr -d '\\000'` on a piped prompt)"
        )));
    }
    Ok(())
}

/// The refusal of `what` over [`MAX_PROMPT_BYTES`]: its size when known (a piped one is read
/// no further than the limit).
pub fn too_big(what: &str, size: Option<usize>) -> BatonError {
    let size = size
        .map(|n| format!(" {},", size_text(n)))
        .unwrap_or_default();
    BatonError::bad_input(format!(
        "{what} is{size} more than the {} MiB limit ({MAX_PROMPT_BYTES} bytes): send a shorter one, or write it to a file and point the agent at the file",
        MAX_PROMPT_BYTES / MIB
    ))
}

const MIB: usize = 1024 * 1024;

/// `bytes` as a size: `512 bytes`, `20.0 MiB (20971520 bytes)`.
fn size_text(bytes: usize) -> String {
    if bytes < MIB {
        return format!("{bytes} bytes");
    }
    format!("{:.1} MiB ({bytes} bytes)", bytes as f64 / MIB as f64)
}

/// Turns raw bytes (stdin) into `what` (`the prompt`), refusing invalid UTF-8.
pub fn stdin_text(bytes: Vec<u8>, what: &str) -> Result<String, BatonError> {
    String::from_utf8(bytes).map_err(|e| {
        BatonError::bad_input(format!(
            "{what} on stdin is not valid UTF-8 (byte {} is not; convert it with iconv first)",
            e.utf8_error().valid_up_to()
        ))
    })
}

/// The refusal of a command line with an argument that is not UTF-8 (clap says only that one
/// is): which argument, where, and what to do. None when every argument is UTF-8.
pub fn non_utf8_argument(args: &[std::ffi::OsString]) -> Option<BatonError> {
    use std::os::unix::ffi::OsStrExt;
    args.iter().enumerate().skip(1).find_map(|(n, arg)| {
        let bytes = arg.as_bytes();
        let at = std::str::from_utf8(bytes).err()?.valid_up_to();
        Some(BatonError::bad_input(format!(
            "argument {n} ({:?}) is not valid UTF-8 (byte {at} is not): retype it, or convert it with iconv first; a prompt can also come on stdin with `-`",
            String::from_utf8_lossy(bytes)
        )))
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
        .map(|c| {
            if c.is_control()
                || c == '/'
                || c == ':'
                || hidden_char(c.encode_utf8(&mut [0; 4])).is_some()
            {
                '-'
            } else {
                c
            }
        })
        .take(MAX_NAME_CHARS)
        .collect::<String>()
        .replace("..", "-");
    let cleaned = cleaned.split_whitespace().collect::<Vec<_>>().join("-");
    let cleaned = cleaned.trim_start_matches('-').to_string();
    if cleaned.is_empty() || cleaned == "." {
        "main".to_string()
    } else {
        cleaned
    }
}

#[cfg(test)]
#[path = "validate_tests.rs"]
mod tests;
