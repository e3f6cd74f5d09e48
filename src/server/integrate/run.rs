//! One run of the lane: every member's branch merged pairwise (with each other and with the
//! base branch's tip) and one at a time into the lane, in order; then the check, on the whole
//! lane first and, when that fails, again from the base one merge at a time to blame the
//! first merge that makes it fail (left out, the next ones still tried). Git work runs on the
//! blocking pool; the lane's worktree ends on the last state that merged and passed.

use std::path::PathBuf;
use std::time::Duration;

use super::check::{check, Checked};
use super::judge::{judge, Facts, LaneStep, Member};
use crate::error::BatonError;
use crate::git::{self, Integration, Step};
use crate::protocol::lane::IntegrateView;

/// Everything a run needs, decided before it starts.
pub struct Plan {
    pub repo: PathBuf,
    pub base: String,
    pub base_commit: String,
    pub lane_dir: PathBuf,
    pub log: PathBuf,
    pub check: Option<(String, Duration)>,
    pub members: Vec<Member>,
    pub notes: Vec<String>,
}

/// What the merges found.
struct Merges {
    with_base: Vec<Vec<String>>,
    pairs: Vec<(usize, usize, Vec<String>)>,
    lane: Vec<LaneStep>,
    /// The lane's last state (the base's tip when nothing merged).
    state: String,
}

fn git_err(e: git::GitError) -> BatonError {
    BatonError::failed(e.to_string())
}

async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, git::GitError> + Send + 'static,
) -> Result<T, BatonError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| BatonError::failed(format!("internal: the lane's git work: {e}")))?
        .map_err(git_err)
}

pub async fn run(plan: Plan) -> Result<IntegrateView, BatonError> {
    let (repo, base, members) = (
        plan.repo.clone(),
        plan.base_commit.clone(),
        plan.members.clone(),
    );
    let mut merges = blocking(move || merge_all(&repo, &base, &members)).await?;
    let mut notes = plan.notes.clone();
    let check_passed = match &plan.check {
        Some((command, timeout)) => {
            Some(checked(&plan, &mut merges, command, *timeout, &mut notes).await?)
        }
        None => None,
    };
    lane_at(&plan, &merges.state).await?;
    let (repo, branch) = (plan.repo.clone(), plan.base.clone());
    let now = blocking(move || Ok(Integration::open(&repo)?.tip(&branch))).await?;
    if now.as_deref() != Some(plan.base_commit.as_str()) {
        notes.push(format!(
            "the base branch {} moved during the run (it was at {}, it is at {}): this report is of the former; run baton integrate again",
            plan.base,
            short(&plan.base_commit),
            now.as_deref().map_or("nothing: it was deleted", short),
        ));
    }
    let facts = Facts {
        members: &plan.members,
        with_base: merges.with_base,
        pairs: merges.pairs,
        lane: merges.lane,
    };
    Ok(IntegrateView {
        repo: plan.repo.display().to_string(),
        base: plan.base.clone(),
        base_commit: plan.base_commit.clone(),
        lane: plan.lane_dir.display().to_string(),
        order: "created".into(),
        check: plan.check.as_ref().map(|(c, _)| c.clone()),
        check_passed,
        terminals: judge(&facts),
        notes,
        at: chrono::Utc::now().to_rfc3339(),
    })
}

fn short(commit: &str) -> &str {
    commit.get(..12).unwrap_or(commit)
}

fn merge_all(
    repo: &std::path::Path,
    base: &str,
    members: &[Member],
) -> Result<Merges, git::GitError> {
    let lane = Integration::open(repo)?;
    let mut with_base = Vec::new();
    for m in members {
        with_base.push(match &m.tip {
            Some(tip) => lane.conflicts(base, tip)?,
            None => Vec::new(),
        });
    }
    let mut pairs = Vec::new();
    for (i, a) in members.iter().enumerate() {
        for (j, b) in members.iter().enumerate().skip(i + 1) {
            if let (Some(x), Some(y)) = (&a.tip, &b.tip) {
                let files = lane.conflicts(x, y)?;
                if !files.is_empty() {
                    pairs.push((i, j, files));
                }
            }
        }
    }
    let mut state = base.to_string();
    let mut steps = Vec::new();
    for m in members {
        steps.push(match (&m.tip, &m.skip) {
            (Some(tip), None) => match lane.merge(&state, tip)? {
                Step::Clean(next) => {
                    state = next;
                    LaneStep::Merged
                }
                Step::Conflicts(files) => LaneStep::Conflicts(files),
            },
            _ => LaneStep::Skipped,
        });
    }
    Ok(Merges {
        with_base,
        pairs,
        lane: steps,
        state,
    })
}

async fn lane_at(plan: &Plan, commit: &str) -> Result<(), BatonError> {
    let (repo, dir, commit) = (plan.repo.clone(), plan.lane_dir.clone(), commit.to_string());
    blocking(move || git::check_out_lane(&repo, &dir, &commit)).await
}

async fn check_at(
    plan: &Plan,
    commit: &str,
    command: &str,
    timeout: Duration,
) -> Result<Checked, BatonError> {
    lane_at(plan, commit).await?;
    Ok(check(&plan.lane_dir, command, timeout, &plan.log).await)
}

/// Whether the lane's final state passes the check, blaming (and leaving out) each merge
/// that first made it fail.
async fn checked(
    plan: &Plan,
    merges: &mut Merges,
    command: &str,
    timeout: Duration,
    notes: &mut Vec<String>,
) -> Result<bool, BatonError> {
    let Checked::Failed(_) = check_at(plan, &merges.state, command, timeout).await? else {
        return Ok(true);
    };
    if let Checked::Failed(out) = check_at(plan, &plan.base_commit, command, timeout).await? {
        notes.push(format!(
            "the check fails on the base branch's tip itself ({} at {}): no terminal is blamed. The end of its output:\n{out}",
            plan.base,
            short(&plan.base_commit)
        ));
        return Ok(false);
    }
    let mut state = plan.base_commit.clone();
    for (i, m) in plan.members.iter().enumerate() {
        let (LaneStep::Merged, Some(tip)) = (&merges.lane[i], &m.tip) else {
            continue;
        };
        let (repo, ours, theirs) = (plan.repo.clone(), state.clone(), tip.clone());
        let step = blocking(move || Integration::open(&repo)?.merge(&ours, &theirs)).await?;
        match step {
            Step::Conflicts(files) => merges.lane[i] = LaneStep::Conflicts(files),
            Step::Clean(next) => match check_at(plan, &next, command, timeout).await? {
                Checked::Passed => state = next,
                Checked::Failed(out) => merges.lane[i] = LaneStep::CheckFailed(out),
            },
        }
    }
    merges.state = state;
    Ok(true)
}
