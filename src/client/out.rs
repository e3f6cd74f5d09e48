//! The client's stdout and stderr. A reader that goes away early (`baton ls | head -1`,
//! `baton log t | true`) ends the command quietly, as ripgrep does, where `println!` would
//! panic with "failed printing to stdout: Broken pipe"; any other write error is reported.
//! Every text goes out through [`words::shown_lines`](crate::words::shown_lines): an answer, a
//! tool line, a diff or an error a CLI printed may hold escape sequences, and none reaches the
//! user's terminal as one (a `--json` line is escaped as JSON instead: [`json_line`]).

use std::ffi::OsStr;
use std::io::{self, IsTerminal, Write};

use crate::words::shown_lines;

/// Exit status when stdout's reader went away: 0, as ripgrep's, since the reader got all it
/// asked for (a SIGPIPE death's 141 would fail a `set -o pipefail` pipeline over `head`).
pub const EXIT_STDOUT_CLOSED: i32 = 0;

/// Writes `text` to stdout, its control characters but newlines and tabs written out
/// ([`shown_lines`]), and flushes it. A closed pipe exits the process at once with
/// [`EXIT_STDOUT_CLOSED`] and no message (a streaming send's turn goes on in the server, as
/// after a detach); another error (a full disk) exits 1 saying so.
pub fn print(text: &str) {
    write_raw(&shown_lines(text));
}

/// [`print`] with a newline.
pub fn line(text: &str) {
    print(&format!("{text}\n"));
}

/// One line of JSON (`--json`): serde_json escapes the C0 controls but writes the C1 ones
/// (U+0080–U+009F, which a terminal may take as CSI or OSC) and DEL as they are; they can only
/// be inside a string, so they are escaped as `\u00XX` there, the same JSON value.
pub fn json_line(json: &str) {
    write_raw(&format!("{}\n", json_escaped(json)));
}

/// [`json_line`]'s rule, pure: each control character but a newline (pretty JSON's) as `\u00XX`.
fn json_escaped(json: &str) -> String {
    let mut text = String::with_capacity(json.len());
    for c in json.chars() {
        if c.is_control() && c != '\n' {
            text.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            text.push(c);
        }
    }
    text
}

/// Writes `text` to stdout as it is (the one place that does) and flushes it.
fn write_raw(text: &str) {
    let mut out = io::stdout().lock();
    let written = out.write_all(text.as_bytes()).and_then(|()| out.flush());
    if let Err(e) = written {
        std::process::exit(exit_for(&e));
    }
}

/// Writes one line to stderr, its control characters but newlines and tabs written out
/// ([`shown_lines`]): a CLI's warning or error may hold any. Errors are ignored: there is nowhere left to report them, and
/// the exit code still tells the outcome.
pub fn side(text: &str) {
    let _ = writeln!(io::stderr().lock(), "{}", shown_lines(text));
}

/// A command's exit: its code, or its error on stderr (`baton: …`) and the error's code.
pub fn exit_code(ran: Result<i32, crate::error::BatonError>) -> std::process::ExitCode {
    let code = match ran {
        Ok(code) => code,
        Err(e) => {
            side(&format!("baton: {e}"));
            e.exit_code()
        }
    };
    std::process::ExitCode::from(code as u8)
}

/// A line of `text` in bold when stdout may take colors ([`color_stdout`]), else as is: baton's
/// own style, the only escape sequence it writes (`text` itself is [`shown_lines`]).
pub fn bold_line(text: &str) {
    if color_stdout() {
        write_raw(&format!("\x1b[1m{}\x1b[0m\n", shown_lines(text)));
    } else {
        line(text);
    }
}

/// Whether stdout may take ANSI styles: it is a terminal and `NO_COLOR` is unset or empty
/// (<https://no-color.org>). A pipe or a file gets plain text.
pub fn color_stdout() -> bool {
    use_color(
        std::env::var_os("NO_COLOR").as_deref(),
        io::stdout().is_terminal(),
    )
}

/// [`color_stdout`]'s rule, pure.
fn use_color(no_color: Option<&OsStr>, terminal: bool) -> bool {
    terminal && no_color.is_none_or(OsStr::is_empty)
}

/// The exit status for a failed stdout write, reporting it on stderr unless it was a closed
/// pipe. Pure but for that report.
fn exit_for(e: &io::Error) -> i32 {
    if e.kind() == io::ErrorKind::BrokenPipe {
        return EXIT_STDOUT_CLOSED;
    }
    side(&format!(
        "baton: cannot write to stdout: {e} (check where it goes: a full disk, a closed file)"
    ));
    crate::error::EXIT_FAILED
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colors_only_on_a_terminal_without_no_color() {
        let rows = [
            (None, true, true),
            (Some(""), true, true),
            (Some("1"), true, false),
            (None, false, false),
            (Some("1"), false, false),
        ];
        for (no_color, terminal, want) in rows {
            let got = use_color(no_color.map(OsStr::new), terminal);
            assert_eq!(got, want, "{no_color:?} {terminal}");
        }
    }

    #[test]
    fn json_lines_escape_the_controls_serde_json_leaves_raw() {
        let value = serde_json::json!({"answer": "a\u{9b}31m\u{7f}\u{1b}[2J\u{85}b\nc"});
        for json in [
            serde_json::to_string(&value).unwrap(),
            serde_json::to_string_pretty(&value).unwrap(),
        ] {
            let escaped = json_escaped(&json);
            assert!(
                !escaped.contains(|c: char| c.is_control() && c != '\n'),
                "{escaped:?}"
            );
            let back: serde_json::Value = serde_json::from_str(&escaped).unwrap();
            assert_eq!(back, value);
        }
    }

    #[test]
    fn a_closed_pipe_is_quiet_and_other_errors_fail() {
        let rows = [
            (io::ErrorKind::BrokenPipe, EXIT_STDOUT_CLOSED),
            (io::ErrorKind::StorageFull, crate::error::EXIT_FAILED),
            (io::ErrorKind::PermissionDenied, crate::error::EXIT_FAILED),
        ];
        for (kind, want) in rows {
            assert_eq!(exit_for(&io::Error::from(kind)), want, "{kind:?}");
        }
    }
}
