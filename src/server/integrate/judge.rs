//! The lane's pure decisions: which check command runs (the user's `[repos."…"] check`, else
//! the repository's `.baton.toml` `[integrate] check` once trusted), and each terminal's row
//! of the report from what the merges and checks found.

use std::path::Path;
use std::time::Duration;

use crate::config::{IntegrateFile, RepoConfig, DEFAULT_CHECK_TIMEOUT_SECS};
use crate::protocol::lane::{LaneStatus, LaneTerminalView};

/// The repository's `.baton.toml`, as read for its `[integrate]` table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileFacts {
    Absent,
    /// It does not parse (the parser's one line).
    Invalid(String),
    Found {
        file: IntegrateFile,
        trusted: bool,
    },
}

/// The check to run (and for how long at most), and what to tell the user.
pub fn check_plan(
    user: Option<&RepoConfig>,
    facts: &FileFacts,
    path: &Path,
) -> (Option<(String, Duration)>, Vec<String>) {
    let none = IntegrateFile::default();
    let mut notes = Vec::new();
    let (file, trusted) = match facts {
        FileFacts::Absent => (&none, false),
        FileFacts::Invalid(why) => {
            notes.push(format!(
                "{} is not valid: {why}; its check is not run (fix it)",
                path.display()
            ));
            (&none, false)
        }
        FileFacts::Found { file, trusted } => (file, *trusted),
    };
    let user_check = user.and_then(|u| u.check.clone());
    let timeout = Duration::from_secs(
        user.and_then(|u| u.check_timeout_secs)
            .or(file.check_timeout_secs)
            .unwrap_or(DEFAULT_CHECK_TIMEOUT_SECS),
    );
    let run = match (user_check, &file.check) {
        (Some(cmd), _) => Some(cmd),
        (None, Some(cmd)) if trusted => Some(cmd.clone()),
        (None, Some(cmd)) => {
            notes.push(format!(
                "{} asks to check with `{cmd}`: not run until you trust it (baton trust {})",
                path.display(),
                path.display()
            ));
            None
        }
        (None, None) => None,
    };
    let run = run.filter(|c| !c.trim().is_empty()).map(|c| (c, timeout));
    (run, notes)
}

/// A terminal as the lane takes it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Member {
    pub name: String,
    pub branch: String,
    /// Its branch's tip (none: it cannot be merged, `skip` says why).
    pub tip: Option<String>,
    pub skip: Option<String>,
    /// Something to tell about it that did not stop it.
    pub note: Option<String>,
}

/// What happened to a member in the lane, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LaneStep {
    /// Merged, and in the final state.
    Merged,
    /// It conflicted with what the lane held when its turn came.
    Conflicts(Vec<String>),
    /// Its merge was the first to make the check fail (the end of the output).
    CheckFailed(String),
    /// Not merged (see its `skip`).
    Skipped,
}

/// What the merges and checks found, member by member (same index as `members`).
pub struct Facts<'a> {
    pub members: &'a [Member],
    /// The paths on which each conflicts with the base branch's tip.
    pub with_base: Vec<Vec<String>>,
    /// Each pair of members that conflict, and on which paths.
    pub pairs: Vec<(usize, usize, Vec<String>)>,
    pub lane: Vec<LaneStep>,
}

/// Each member's row: skipped, else check_failed when blamed, else conflict when it conflicts
/// with anything (a pair, the base, the lane), else clean.
pub fn judge(f: &Facts<'_>) -> Vec<LaneTerminalView> {
    f.members
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let mut files: Vec<String> = f.with_base.get(i).cloned().unwrap_or_default();
            let mut with = Vec::new();
            for (a, b, paths) in &f.pairs {
                let other = match (*a == i, *b == i) {
                    (true, _) => *b,
                    (_, true) => *a,
                    _ => continue,
                };
                with.push(f.members[other].name.clone());
                files.extend(paths.iter().cloned());
            }
            let step = f.lane.get(i).unwrap_or(&LaneStep::Skipped);
            if let LaneStep::Conflicts(paths) = step {
                files.extend(paths.iter().cloned());
            }
            files.sort();
            files.dedup();
            let status = match (step, &m.skip) {
                (_, Some(_)) | (LaneStep::Skipped, None) => LaneStatus::Skipped,
                (LaneStep::CheckFailed(_), None) => LaneStatus::CheckFailed,
                (LaneStep::Merged | LaneStep::Conflicts(_), None) if !files.is_empty() => {
                    LaneStatus::Conflict
                }
                (LaneStep::Conflicts(_), None) => LaneStatus::Conflict,
                (LaneStep::Merged, None) => LaneStatus::Clean,
            };
            LaneTerminalView {
                name: m.name.clone(),
                branch: m.branch.clone(),
                commit: m.tip.clone(),
                status,
                conflicts_with: with,
                conflicts_with_base: f.with_base.get(i).is_some_and(|v| !v.is_empty()),
                files,
                merged: *step == LaneStep::Merged,
                check_output: match step {
                    LaneStep::CheckFailed(out) => Some(out.clone()),
                    _ => None,
                },
                note: m.skip.clone().or_else(|| m.note.clone()),
            }
        })
        .collect()
}

#[cfg(test)]
#[path = "judge_tests.rs"]
mod tests;
