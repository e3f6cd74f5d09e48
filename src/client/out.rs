//! The client's stdout and stderr. A reader that goes away early (`baton ls | head -1`,
//! `baton log t | true`) ends the command quietly, as ripgrep does, where `println!` would
//! panic with "failed printing to stdout: Broken pipe"; any other write error is reported.

use std::ffi::OsStr;
use std::io::{self, IsTerminal, Write};

/// Exit status when stdout's reader went away: 0, as ripgrep's, since the reader got all it
/// asked for (a SIGPIPE death's 141 would fail a `set -o pipefail` pipeline over `head`).
pub const EXIT_STDOUT_CLOSED: i32 = 0;

/// Writes `text` to stdout and flushes it. A closed pipe exits the process at once with
/// [`EXIT_STDOUT_CLOSED`] and no message (a streaming send's turn goes on in the server, as
/// after a detach); another error (a full disk) exits 1 saying so.
pub fn print(text: &str) {
    let mut out = io::stdout().lock();
    let written = out.write_all(text.as_bytes()).and_then(|()| out.flush());
    if let Err(e) = written {
        std::process::exit(exit_for(&e));
    }
}

/// [`print`] with a newline.
pub fn line(text: &str) {
    print(&format!("{text}\n"));
}

/// Writes one line to stderr. Errors are ignored: there is nowhere left to report them, and
/// the exit code still tells the outcome.
pub fn side(text: &str) {
    let _ = writeln!(io::stderr().lock(), "{text}");
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

/// `text` in bold when stdout may take colors ([`color_stdout`]), else as is.
pub fn bold(text: &str) -> String {
    if color_stdout() {
        format!("\x1b[1m{text}\x1b[0m")
    } else {
        text.to_string()
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
