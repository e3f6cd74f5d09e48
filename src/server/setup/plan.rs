//! What a new worktree's repository asks for, decided from the user's `[repos."…"]` table and
//! the repository's own `.baton.toml`: the set-up command (the user's, or the file's once the
//! user trusted its content), its timeout, the ports, and what to tell the user. Pure.

use std::path::Path;
use std::time::Duration;

use crate::config::{RepoConfig, DEFAULT_SETUP_TIMEOUT_SECS};

/// The repository's `.baton.toml`, as read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RepoFileFacts {
    Absent,
    /// It does not parse (the parser's one line).
    Invalid(String),
    Found {
        file: RepoConfig,
        trusted: bool,
    },
}

/// What the new worktree gets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// The command to run, and for how long at most.
    pub run: Option<(String, Duration)>,
    /// A command the file asks for that waits for the user's trust.
    pub untrusted: Option<String>,
    pub ports: Option<u16>,
    pub notes: Vec<String>,
}

/// The decision. `path` is the `.baton.toml`'s, for the notes.
pub fn plan(user: Option<&RepoConfig>, facts: &RepoFileFacts, path: &Path) -> Plan {
    let none = RepoConfig::default();
    let user = user.unwrap_or(&none);
    let mut notes = Vec::new();
    let (file, trusted) = match facts {
        RepoFileFacts::Absent => (&none, false),
        RepoFileFacts::Invalid(why) => {
            notes.push(format!(
                "{} is not valid: {why}; nothing in it is used (fix it)",
                path.display()
            ));
            (&none, false)
        }
        RepoFileFacts::Found { file, trusted } => (file, *trusted),
    };
    let timeout = Duration::from_secs(
        user.setup_timeout_secs
            .or(file.setup_timeout_secs)
            .unwrap_or(DEFAULT_SETUP_TIMEOUT_SECS),
    );
    let (run, untrusted) = match (&user.setup, &file.setup) {
        (Some(cmd), _) => (Some(cmd.clone()), None),
        (None, Some(cmd)) if trusted => (Some(cmd.clone()), None),
        (None, Some(cmd)) => {
            notes.push(format!(
                "{} asks to run `{cmd}` in each new worktree: not run until you trust it (baton trust {})",
                path.display(),
                path.display()
            ));
            (None, Some(cmd.clone()))
        }
        (None, None) => (None, None),
    };
    Plan {
        run: run.filter(|c| !c.trim().is_empty()).map(|c| (c, timeout)),
        untrusted,
        ports: user.ports.or(file.ports).filter(|n| *n > 0),
        notes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn conf(setup: Option<&str>, ports: Option<u16>, timeout: Option<u64>) -> RepoConfig {
        RepoConfig {
            setup: setup.map(str::to_string),
            setup_timeout_secs: timeout,
            ports,
            ..RepoConfig::default()
        }
    }

    #[test]
    fn each_source_of_a_command_and_its_trust() {
        let path = Path::new("/r/.baton.toml");
        let ten = Duration::from_secs(DEFAULT_SETUP_TIMEOUT_SECS);
        let found = |c, trusted| RepoFileFacts::Found { file: c, trusted };
        // (user's table, the file, command run, command untrusted, ports, how many notes)
        type Row<'a> = (
            Option<RepoConfig>,
            RepoFileFacts,
            Option<(&'a str, Duration)>,
            Option<&'a str>,
            Option<u16>,
            usize,
        );
        let rows: Vec<Row<'_>> = vec![
            // nothing anywhere
            (None, RepoFileFacts::Absent, None, None, None, 0),
            // the user's own: trusted as it is
            (
                Some(conf(Some("npm ci"), Some(3), Some(5))),
                RepoFileFacts::Absent,
                Some(("npm ci", Duration::from_secs(5))),
                None,
                Some(3),
                0,
            ),
            // the file's, trusted
            (
                None,
                found(conf(Some("make"), Some(2), None), true),
                Some(("make", ten)),
                None,
                Some(2),
                0,
            ),
            // the file's, untrusted: said, not run; its ports still hold (they run nothing)
            (
                None,
                found(conf(Some("make"), Some(2), None), false),
                None,
                Some("make"),
                Some(2),
                1,
            ),
            // the user's keys win over the file's, which then needs no trust
            (
                Some(conf(Some("npm ci"), None, None)),
                found(conf(Some("make"), Some(4), Some(9)), false),
                Some(("npm ci", Duration::from_secs(9))),
                None,
                Some(4),
                0,
            ),
            // an invalid file: said, nothing of it used
            (
                None,
                RepoFileFacts::Invalid("line 1: oops".into()),
                None,
                None,
                None,
                1,
            ),
            // ports = 0 is none; a blank command is none
            (
                Some(conf(Some("  "), Some(0), None)),
                RepoFileFacts::Absent,
                None,
                None,
                None,
                0,
            ),
        ];
        for (user, facts, run, untrusted, ports, notes) in rows {
            let got = plan(user.as_ref(), &facts, path);
            assert_eq!(
                (
                    got.run,
                    got.untrusted.as_deref(),
                    got.ports,
                    got.notes.len()
                ),
                (
                    run.map(|(c, d)| (c.to_string(), d)),
                    untrusted,
                    ports,
                    notes
                ),
                "{user:?} {facts:?}"
            );
        }
    }

    #[test]
    fn an_untrusted_command_is_said_in_one_line_with_how_to_allow_it() {
        let facts = RepoFileFacts::Found {
            file: conf(Some("npm ci"), None, None),
            trusted: false,
        };
        let got = plan(None, &facts, Path::new("/r/.baton.toml"));
        assert_eq!(
            got.notes,
            vec!["/r/.baton.toml asks to run `npm ci` in each new worktree: not run until you trust it (baton trust /r/.baton.toml)"]
        );
    }
}
