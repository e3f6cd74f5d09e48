//! The command prompt (prefix `:`, as tmux's): baton's own commands typed as on the command
//! line without `baton` (`new api --dir ~/src/api`, `rename a b`, `send a some prompt`),
//! parsed here into the request the CLI would make, run through the UI's client, the one-line
//! result or error shown in the status line. Pure: the parser is table-tested.
//!
//! Why a table rather than `main.rs`'s clap definitions: those live in the binary, which the
//! library cannot reach, and moving them is a change of the command line of its own. This
//! table takes the commands that act on terminals, with the same names, arguments and flags;
//! what only prints (`ls`, `log`, `show`) or works on the whole data directory is left to the
//! shell. Words split as a shell splits them ('…', "…", \ escapes, `~/` is the home folder).

use std::collections::BTreeMap;

use crate::protocol::{
    InstructionsAction, QueueAction, QueueChange, Request, SendModeArg, SendRequest,
};

/// The commands the prompt takes, as its error lists them.
pub const COMMANDS: &str = "new, send, rename, interrupt, fork, rewind, archive, unarchive, rm, \
                            merge, revert, instructions, queue";

/// How a command's answer is put in one line (the CLI's text for its view, first line).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    Created,
    Accepted,
    Renamed,
    Titled,
    Interrupted,
    Forked,
    Rewound,
    Archived,
    Removed,
    Merged,
    Reverted,
    Instructions,
    Queue,
    /// `/cost`: the terminal's log, said as its costs (`cost::line`).
    Cost,
}

/// A line the prompt refused, said in one line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CommandError {
    #[error("a quote is not closed")]
    Quote,
    #[error("{0}: no such command (the prompt takes {COMMANDS})")]
    Unknown(String),
    #[error("{cmd}: {what} (as `baton {cmd}` takes it: {usage})")]
    Usage {
        cmd: String,
        what: String,
        usage: &'static str,
    },
}

/// The line split into words as a shell splits them.
pub fn words(line: &str) -> Result<Vec<String>, CommandError> {
    let (mut out, mut word, mut quote, mut any) = (Vec::new(), String::new(), None, false);
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('"'), '\\') | (None, '\\') => {
                if let Some(n) = chars.next() {
                    word.push(n);
                }
                any = true;
            }
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                any = true;
            }
            (None, c) if c.is_whitespace() => {
                if any || !word.is_empty() {
                    out.push(std::mem::take(&mut word));
                }
                any = false;
            }
            (None, c) => word.push(c),
        }
    }
    if quote.is_some() {
        return Err(CommandError::Quote);
    }
    if any || !word.is_empty() {
        out.push(word);
    }
    Ok(out)
}

/// The words after the command: positionals, `--name value` (or `--name=value`) options and
/// `--flag` switches, checked against what the command takes.
struct Args {
    pos: Vec<String>,
    opts: BTreeMap<String, String>,
    cmd: String,
    usage: &'static str,
}

impl Args {
    fn parse(
        cmd: &str,
        rest: &[String],
        values: &[&str],
        flags: &[&str],
        usage: &'static str,
    ) -> Result<Args, CommandError> {
        let mut args = Args {
            pos: Vec::new(),
            opts: BTreeMap::new(),
            cmd: cmd.to_string(),
            usage,
        };
        let mut it = rest.iter();
        let mut only_pos = false;
        while let Some(w) = it.next() {
            let Some(name) = w.strip_prefix("--").filter(|_| !only_pos) else {
                args.pos.push(w.clone());
                continue;
            };
            if name.is_empty() {
                only_pos = true;
                continue;
            }
            let (name, inline) = match name.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (name, None),
            };
            if values.contains(&name) {
                let value = match inline.or_else(|| it.next().cloned()) {
                    Some(v) => v,
                    None => return Err(args.usage(format!("--{name} needs a value"))),
                };
                args.opts.insert(name.to_string(), value);
            } else if flags.contains(&name) && inline.is_none() {
                args.opts.insert(name.to_string(), String::new());
            } else {
                return Err(args.usage(format!("no option --{name}")));
            }
        }
        Ok(args)
    }

    fn usage(&self, what: String) -> CommandError {
        CommandError::Usage {
            cmd: self.cmd.clone(),
            what,
            usage: self.usage,
        }
    }

    fn opt(&self, name: &str) -> Option<String> {
        self.opts.get(name).cloned()
    }

    fn flag(&self, name: &str) -> bool {
        self.opts.contains_key(name)
    }

    /// Positional `i`, which must be there (named `what` in the error).
    fn need(&self, i: usize, what: &str) -> Result<String, CommandError> {
        self.pos
            .get(i)
            .cloned()
            .ok_or_else(|| self.usage(format!("{what} is missing")))
    }

    /// Positional `i` as a number.
    fn number(&self, i: usize, what: &str) -> Result<u32, CommandError> {
        let w = self.need(i, what)?;
        w.parse()
            .map_err(|_| self.usage(format!("{what} must be a number, not {w:?}")))
    }

    /// At most `n` positionals.
    fn at_most(&self, n: usize) -> Result<(), CommandError> {
        match self.pos.get(n) {
            Some(extra) => Err(self.usage(format!("unexpected {extra:?}"))),
            None => Ok(()),
        }
    }

    /// The positionals from `i` on, joined by spaces (a prompt or a line of text).
    fn text_from(&self, i: usize, what: &str) -> Result<String, CommandError> {
        let text = self.pos.get(i..).unwrap_or_default().join(" ");
        if text.is_empty() {
            return Err(self.usage(format!("{what} is missing")));
        }
        Ok(text)
    }
}

/// `dir` as the server needs it: `~/` the home folder, relative to `cwd`.
pub fn absolute(dir: &str, cwd: &str, home: Option<&str>) -> String {
    let dir = match (dir.strip_prefix('~'), home) {
        (Some(rest), Some(home)) if rest.is_empty() || rest.starts_with('/') => {
            format!("{home}{rest}")
        }
        _ => dir.to_string(),
    };
    if dir.starts_with('/') {
        return dir;
    }
    std::path::Path::new(cwd)
        .join(dir)
        .to_string_lossy()
        .into_owned()
}

/// One line typed at the prompt: the request it makes and how its answer reads. None for an
/// empty line.
pub fn parse(
    line: &str,
    cwd: &str,
    home: Option<&str>,
) -> Result<Option<(Request, Answer)>, CommandError> {
    parse_words(&words(line)?, cwd, home)
}

/// [`parse`] on a line already split into words (the composer's slash commands build them).
pub fn parse_words(
    words: &[String],
    cwd: &str,
    home: Option<&str>,
) -> Result<Option<(Request, Answer)>, CommandError> {
    let Some((cmd, rest)) = words.split_first() else {
        return Ok(None);
    };
    let cmd = cmd.as_str();
    let args =
        |values: &[&str], flags: &[&str], usage| Args::parse(cmd, rest, values, flags, usage);
    let dir = |d: String| absolute(&d, cwd, home);
    let made = match cmd {
        "new" => {
            let a = args(
                &["dir", "provider", "model", "brief"],
                &["in-place"],
                "new [NAME] [--dir D] [--provider P] [--model M] [--brief TEXT] [--in-place]",
            )?;
            a.at_most(1)?;
            let request = Request::New {
                name: a.pos.first().cloned(),
                dir: dir(a.opt("dir").unwrap_or_else(|| cwd.to_string())),
                provider: a.opt("provider"),
                model: a.opt("model"),
                brief: a.opt("brief"),
                in_place: a.flag("in-place"),
            };
            (request, Answer::Created)
        }
        "send" => {
            let a = args(
                &["provider", "model", "dir"],
                &["queue", "steer", "jump", "fresh"],
                "send NAME PROMPT… [--steer | --jump] [--fresh] [--provider P] [--model M]",
            )?;
            let mode = match (a.flag("steer"), a.flag("jump")) {
                (true, true) => return Err(a.usage("--steer or --jump, not both".into())),
                (true, false) => SendModeArg::Steer,
                (false, true) => SendModeArg::Jump,
                (false, false) => SendModeArg::Queue,
            };
            let request = Request::Send {
                name: a.need(0, "NAME")?,
                send: SendRequest {
                    prompt: a.text_from(1, "PROMPT")?,
                    provider: a.opt("provider"),
                    model: a.opt("model"),
                    dir: a.opt("dir").map(dir),
                    mode,
                    fresh: a.flag("fresh"),
                },
                detach: true,
            };
            (request, Answer::Accepted)
        }
        "rename" => {
            let a = args(
                &["conversation"],
                &[],
                "rename NAME NEW | NAME --conversation TITLE",
            )?;
            let name = a.need(0, "NAME")?;
            match a.opt("conversation") {
                Some(title) => {
                    a.at_most(1)?;
                    (Request::Title { name, title }, Answer::Titled)
                }
                None => {
                    a.at_most(2)?;
                    let new_name = a.need(1, "NEW")?;
                    (Request::Rename { name, new_name }, Answer::Renamed)
                }
            }
        }
        "interrupt" | "archive" | "unarchive" | "merge" => {
            let a = args(&[], &[], "interrupt | archive | unarchive | merge NAME")?;
            a.at_most(1)?;
            let name = a.need(0, "NAME")?;
            match cmd {
                "interrupt" => (Request::Interrupt { name }, Answer::Interrupted),
                "merge" => (Request::Merge { name }, Answer::Merged),
                _ => {
                    let archived = cmd == "archive";
                    (Request::Archive { name, archived }, Answer::Archived)
                }
            }
        }
        "fork" => {
            let a = args(&[], &[], "fork NAME [NEW]")?;
            a.at_most(2)?;
            let (name, new) = (a.need(0, "NAME")?, a.pos.get(1).cloned());
            (Request::Fork { name, new }, Answer::Forked)
        }
        "rewind" => {
            let a = args(&[], &[], "rewind NAME TURN [NEW]")?;
            a.at_most(3)?;
            let request = Request::Rewind {
                name: a.need(0, "NAME")?,
                turn: a.number(1, "TURN")?,
                new: a.pos.get(2).cloned(),
            };
            (request, Answer::Rewound)
        }
        "revert" => {
            let a = args(&[], &[], "revert NAME TURN")?;
            a.at_most(2)?;
            let (name, turn) = (a.need(0, "NAME")?, a.number(1, "TURN")?);
            (Request::Revert { name, turn }, Answer::Reverted)
        }
        "rm" => {
            let a = args(
                &[],
                &["delete-branch", "force"],
                "rm NAME [--delete-branch [--force]]",
            )?;
            a.at_most(1)?;
            let request = Request::Rm {
                name: a.need(0, "NAME")?,
                delete_branch: a.flag("delete-branch"),
                force: a.flag("force"),
            };
            (request, Answer::Removed)
        }
        "instructions" => {
            let a = args(
                &[],
                &[],
                "instructions NAME [add TEXT | rm N | edit N TEXT | clear]",
            )?;
            let name = a.need(0, "NAME")?;
            let action = match a.pos.get(1).map(String::as_str) {
                None => InstructionsAction::List,
                Some("add") => InstructionsAction::Add {
                    text: a.text_from(2, "TEXT")?,
                },
                Some("rm") => {
                    a.at_most(3)?;
                    InstructionsAction::Rm {
                        number: a.number(2, "N")?,
                    }
                }
                Some("edit") => InstructionsAction::Edit {
                    number: a.number(2, "N")?,
                    text: a.text_from(3, "TEXT")?,
                },
                Some("clear") => {
                    a.at_most(2)?;
                    InstructionsAction::Clear
                }
                Some(other) => return Err(a.usage(format!("no action {other:?}"))),
            };
            (Request::Instructions { name, action }, Answer::Instructions)
        }
        "queue" => {
            let a = args(
                &[],
                &[],
                "queue NAME [edit N TEXT | rm N | move N POSITION | steer N | jump N]",
            )?;
            let name = a.need(0, "NAME")?;
            let action = match a.pos.get(1).map(String::as_str) {
                None => None,
                Some("edit") => Some(QueueAction::Edit {
                    text: a.text_from(3, "TEXT")?,
                }),
                Some("move") => {
                    a.at_most(4)?;
                    Some(QueueAction::Move {
                        position: a.number(3, "POSITION")?,
                    })
                }
                Some(word @ ("rm" | "steer" | "jump")) => {
                    a.at_most(3)?;
                    Some(match word {
                        "rm" => QueueAction::Rm,
                        "steer" => QueueAction::Steer,
                        _ => QueueAction::Jump,
                    })
                }
                Some(other) => return Err(a.usage(format!("no action {other:?}"))),
            };
            let change = match action {
                Some(action) => Some(QueueChange {
                    input: a.number(2, "N")?,
                    action,
                }),
                None => None,
            };
            (Request::Queue { name, change }, Answer::Queue)
        }
        other => return Err(CommandError::Unknown(other.to_string())),
    };
    Ok(Some(made))
}

#[cfg(test)]
#[path = "command_tests.rs"]
mod tests;
