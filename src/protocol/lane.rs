//! The integration lane's answer (`baton integrate`, issue 44): [`IntegrateView`], one row per
//! live terminal of the repository ([`LaneTerminalView`]). See ARCHITECTURE.md, "The
//! integration lane".

use serde::{Deserialize, Serialize};

/// How one terminal's branch fits the others'.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LaneStatus {
    /// It merges cleanly onto the base with every other terminal's branch (and passed the
    /// check, when there is one).
    #[default]
    Clean,
    /// It conflicts with another terminal's branch, with the base branch's tip, or with what
    /// the lane held when its turn came (`conflicts_with`, `files`).
    Conflict,
    /// Its merge was the first to make the check fail.
    CheckFailed,
    /// It could not be merged at all (its branch is gone, or it is based on another branch):
    /// `note` says why.
    Skipped,
}

/// One terminal in the lane's report.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LaneTerminalView {
    pub name: String,
    pub branch: String,
    /// The tip of its branch the run merged (none: skipped).
    pub commit: Option<String>,
    pub status: LaneStatus,
    /// The terminals whose branch conflicts with this one's, merged pairwise.
    pub conflicts_with: Vec<String>,
    /// It conflicts with the base branch's tip (what `baton merge` would refuse).
    pub conflicts_with_base: bool,
    /// The paths of every conflict it has, sorted.
    pub files: Vec<String>,
    /// Its branch is in the lane's final state (checked out in the lane's worktree).
    pub merged: bool,
    /// The end of the check's output when it is blamed.
    pub check_output: Option<String>,
    pub note: Option<String>,
}

/// `integrate --json`: the lane's report for one repository.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IntegrateView {
    /// The repository (its main checkout).
    pub repo: String,
    /// The base branch the lane starts from.
    pub base: String,
    /// The base branch's tip the run merged onto.
    pub base_commit: String,
    /// The lane's worktree: baton's own, holding the last state that merged (and passed).
    pub lane: String,
    /// The order branches were added in: `created` (the oldest terminal first).
    pub order: String,
    /// The check command that ran (none: no check).
    pub check: Option<String>,
    /// Whether the check passed on the final state (none: no check ran).
    pub check_passed: Option<bool>,
    pub terminals: Vec<LaneTerminalView>,
    /// What the run could not do, or the user should know.
    pub notes: Vec<String>,
    /// When the run ended.
    pub at: String,
}

impl IntegrateView {
    /// Every terminal merged cleanly and passed the check.
    pub fn all_clean(&self) -> bool {
        self.terminals.iter().all(|t| t.status == LaneStatus::Clean)
    }
}
