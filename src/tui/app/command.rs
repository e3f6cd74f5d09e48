//! The command prompt (prefix `:`, as tmux's): baton's own commands typed as on the command
//! line without `baton` (`new api --dir ~/src/api`, `rename a b`, `send a some prompt`), split
//! into shell words (`shlex`) and parsed by the command line's own definitions (`cli::Cli`)
//! into the request the CLI would make, run through the UI's client, the one-line result or
//! error shown in the status line. Pure: the parser is table-tested.
//!
//! The prompt takes the commands that act on terminals; what only prints (`ls`, `log`, `show`)
//! or works on the whole data directory is left to the shell. Two differences from a shell: a
//! text (send's prompt, an instruction, a waiting input's new text) is every word left, joined
//! by spaces, and `~/` is the home folder (no shell expands it).

use clap::{ArgAction, ArgMatches, CommandFactory, FromArgMatches};

use crate::cli::{Cli, ClientCmd, Cmd, InstrCmd};
use crate::protocol::Request;

/// The commands the prompt takes.
const TAKEN: [&str; 16] = [
    "new",
    "send",
    "rename",
    "interrupt",
    "fork",
    "rewind",
    "archive",
    "unarchive",
    "rm",
    "merge",
    "revert",
    "instructions",
    "queue",
    "approve",
    "deny",
    "integrate",
];

/// The arguments that take every word left at the prompt: their subcommand's path, their id.
const TEXTS: [(&[&str], &str); 4] = [
    (&["send"], "prompt"),
    (&["instructions", "add"], "text"),
    (&["instructions", "edit"], "text"),
    (&["queue", "edit"], "text"),
];

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
    /// A waiting request answered by its keys (`approval`).
    Approval,
    /// `integrate`: the lane's report.
    Integrated,
}

/// A line the prompt refused, said in one line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CommandError {
    #[error("a quote is not closed")]
    Quote,
    #[error("{0}: no such command (the prompt takes {taken})", taken = TAKEN.join(", "))]
    Unknown(String),
    #[error("{0}: run it in a shell (`baton {0}`); the prompt takes {taken}", taken = TAKEN.join(", "))]
    Elsewhere(String),
    #[error("{cmd}: {what} (as `baton {cmd}` takes it: {usage})")]
    Usage {
        cmd: String,
        what: String,
        usage: String,
    },
}

/// The line split into words as a shell splits them.
pub fn words(line: &str) -> Result<Vec<String>, CommandError> {
    shlex::split(line).ok_or(CommandError::Quote)
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
    let Some(first) = words.first() else {
        return Ok(None);
    };
    if !TAKEN.contains(&first.as_str()) {
        let baton = Cli::command().find_subcommand(first).is_some();
        return Err(match baton {
            true => CommandError::Elsewhere(first.clone()),
            false => CommandError::Unknown(first.clone()),
        });
    }
    let refused = |e| refusal(first, e);
    let args = std::iter::once("baton").chain(words.iter().map(String::as_str));
    let mut matches = prompt_command()
        .try_get_matches_from(args)
        .map_err(refused)?;
    let text = joined_text(&matches);
    let cli = Cli::from_arg_matches_mut(&mut matches).map_err(refused)?;
    match cli.cmd {
        Some(Cmd::Client(cmd)) => request(first, cmd, text, cwd, home).map(Some),
        _ => Err(CommandError::Elsewhere(first.clone())),
    }
}

/// The command line's definitions, each text taking every word left.
fn prompt_command() -> clap::Command {
    fn rest(cmd: clap::Command, path: &[&str], id: &str) -> clap::Command {
        match path.split_first() {
            None => cmd.mut_arg(id, |a| a.num_args(1..).action(ArgAction::Append)),
            Some((sub, path)) => cmd.mut_subcommand(sub, |s| rest(s, path, id)),
        }
    }
    TEXTS
        .iter()
        .fold(Cli::command(), |cmd, (path, id)| rest(cmd, path, id))
}

/// The words of the text the line gave (see [`TEXTS`]), joined by spaces.
fn joined_text(matches: &ArgMatches) -> Option<String> {
    TEXTS.iter().find_map(|(path, id)| {
        let sub = path
            .iter()
            .try_fold(matches, |m, name| m.subcommand_matches(name))?;
        let words: Vec<&str> = sub.get_many::<String>(id)?.map(String::as_str).collect();
        Some(words.join(" "))
    })
}

/// clap's refusal of a line of command `cmd`, in one line: what is wrong, then its usage.
fn refusal(cmd: &str, e: clap::Error) -> CommandError {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    let what = match (e.kind(), e.get(ContextKind::InvalidArg)) {
        (ErrorKind::DisplayHelp | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand, _) => {
            format!("its help is `baton {cmd} --help`, in a shell")
        }
        (ErrorKind::MissingRequiredArgument, Some(ContextValue::Strings(args))) => {
            let names: Vec<&str> = args.iter().map(|a| a.trim_matches(['<', '>'])).collect();
            format!("{} is missing", names.join(", "))
        }
        _ => e
            .to_string()
            .lines()
            .take_while(|l| !l.trim().is_empty())
            .map(str::trim)
            .collect::<Vec<_>>()
            .join(" ")
            .trim_start_matches("error: ")
            .to_string(),
    };
    CommandError::Usage {
        cmd: cmd.to_string(),
        what,
        usage: usage(cmd),
    }
}

/// Command `cmd`'s usage as the prompt takes it (`send [OPTIONS] <NAME> [PROMPT]...`).
fn usage(cmd: &str) -> String {
    let mut all = prompt_command();
    all.build();
    let usage = all
        .find_subcommand_mut(cmd)
        .map(|c| c.render_usage().to_string())
        .unwrap_or_default();
    let usage = usage.trim_start_matches("Usage: ");
    usage.strip_prefix("baton ").unwrap_or(usage).to_string()
}

fn archive(name: String, archived: bool) -> Request {
    Request::Archive { name, archived }
}

/// `integrate TARGET`: a path (with a `/`, or `.`/`..`) is the repository there, else a name.
fn integrate(target: String, cwd: &str, home: Option<&str>) -> Request {
    match crate::cli::is_integrate_path(&target) {
        true => Request::Integrate {
            name: None,
            dir: Some(absolute(&target, cwd, home)),
        },
        false => Request::Integrate {
            name: Some(target),
            dir: None,
        },
    }
}

/// The request a parsed command makes at the prompt (`text`: its text's words joined) and how
/// its answer reads. A send is detached: its turn shows in its pane.
fn request(
    word: &str,
    cmd: ClientCmd,
    text: Option<String>,
    cwd: &str,
    home: Option<&str>,
) -> Result<(Request, Answer), CommandError> {
    let dir = |d: std::path::PathBuf| absolute(&d.to_string_lossy(), cwd, home);
    let missing = |what: &str| CommandError::Usage {
        cmd: word.to_string(),
        what: format!("{what} is missing"),
        usage: usage(word),
    };
    let made = match cmd {
        ClientCmd::New(mut a) => {
            let d = a.dir.take().map_or_else(|| cwd.to_string(), dir);
            (a.request(d), Answer::Created)
        }
        ClientCmd::Send(mut a) => {
            let prompt = text.ok_or_else(|| missing("PROMPT"))?;
            let (name, d) = (std::mem::take(&mut a.name), a.dir.take().map(dir));
            a.detach = true;
            (a.request_of(name, prompt, d), Answer::Accepted)
        }
        ClientCmd::Rename(a) => match a.request() {
            r @ Request::Title { .. } => (r, Answer::Titled),
            r => (r, Answer::Renamed),
        },
        ClientCmd::Interrupt { name } => (Request::Interrupt { name }, Answer::Interrupted),
        ClientCmd::Merge(a) => (Request::Merge { name: a.name }, Answer::Merged),
        ClientCmd::Archive(a) => (archive(a.name, true), Answer::Archived),
        ClientCmd::Unarchive(a) => (archive(a.name, false), Answer::Archived),
        ClientCmd::Fork(a) => (a.request(), Answer::Forked),
        ClientCmd::Rewind(a) => (a.request(), Answer::Rewound),
        ClientCmd::Revert(a) => (a.request(), Answer::Reverted),
        ClientCmd::Rm(a) => (a.request(), Answer::Removed),
        ClientCmd::Instructions(mut a) if !a.is_extract() => {
            if let (Some(InstrCmd::Add { text: t } | InstrCmd::Edit { text: t, .. }), Some(j)) =
                (a.action.as_mut(), text)
            {
                *t = j;
            }
            (a.request(), Answer::Instructions)
        }
        ClientCmd::Queue(a) => {
            let req = a.request(|typed| text.or(typed).ok_or_else(|| missing("TEXT")))?;
            (req, Answer::Queue)
        }
        ClientCmd::Approve(a) => (
            Request::Approve {
                id: a.id,
                always: a.always,
            },
            Answer::Approval,
        ),
        ClientCmd::Deny(a) => (
            Request::Deny {
                id: a.id,
                reason: a.reason,
            },
            Answer::Approval,
        ),
        ClientCmd::Integrate(a) => (integrate(a.target, cwd, home), Answer::Integrated),
        // `instructions extract` reads its prompt on stdin.
        ClientCmd::Instructions(_) => {
            return Err(CommandError::Elsewhere(format!("{word} extract")))
        }
        ClientCmd::Diff(_)
        | ClientCmd::Prune(_)
        | ClientCmd::Export(_)
        | ClientCmd::Import(_)
        | ClientCmd::Ls(_)
        | ClientCmd::Show(_)
        | ClientCmd::Log(_)
        | ClientCmd::Watch(_)
        | ClientCmd::Approvals(_)
        | ClientCmd::Host { .. } => return Err(CommandError::Elsewhere(word.to_string())),
    };
    Ok(made)
}

#[cfg(test)]
#[path = "command_tests.rs"]
mod tests;
