//! What `baton doctor` found and did, as the typed view `--json` prints (field names in
//! `docs/reference.md`) and as text: one line per finding, grouped by check, then a summary line. The
//! counts and the exit code are pure functions of the findings.

use serde::Serialize;

use crate::words::ProviderKind;

/// One finding's outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Checked and well.
    Ok,
    /// Worth knowing, nothing wrong (a torn last journal line, a branch left by `baton rm`).
    Note,
    /// Something is wrong and was not fixed.
    Fault,
    /// Something was wrong and `--fix` repaired it.
    Fixed,
}

impl Status {
    fn word(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Note => "note",
            Status::Fault => "fault",
            Status::Fixed => "fixed",
        }
    }
}

/// Which check a finding belongs to (the text output's groups, in this order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Check {
    Config,
    Permissions,
    Server,
    Index,
    Journals,
    Worktrees,
    Removals,
    Branches,
    Clis,
}

impl Check {
    fn word(self) -> &'static str {
        match self {
            Check::Config => "config",
            Check::Permissions => "permissions",
            Check::Server => "server",
            Check::Index => "index",
            Check::Journals => "journals",
            Check::Worktrees => "worktrees",
            Check::Removals => "removals",
            Check::Branches => "branches",
            Check::Clis => "clis",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub check: Check,
    pub status: Status,
    /// What it is about: a path (`file:line` for a journal line), a terminal, a branch, a CLI.
    pub subject: String,
    /// What was found and what to do (or what `--fix` did).
    pub detail: String,
}

/// Disk use of one terminal, in bytes actually allocated (not followed through links).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DiskUse {
    pub name: String,
    /// Its `terminals/<id>` folder: journal, raw turn streams, screenshots.
    pub data_bytes: u64,
    /// Its checkout, when it has a worktree of its own that exists.
    pub worktree_bytes: Option<u64>,
}

/// Whether a CLI's own fence (sandbox) can work here.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FenceState {
    /// Probed and it works.
    Works,
    /// Probed and it cannot start here.
    Broken,
    /// Nothing to probe (the CLI is missing, or its fence needs no sandbox).
    Unchecked,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FenceView {
    pub state: FenceState,
    pub detail: String,
}

/// One configured CLI.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CliView {
    pub provider: ProviderKind,
    /// As configured (`[providers.*] bin`), else the provider's usual name.
    pub bin: String,
    pub found: bool,
    /// Where it was found.
    pub path: Option<String>,
    /// The first line its `--version` printed.
    pub version: Option<String>,
    /// The terminals whose provider it is.
    pub used_by: Vec<String>,
    pub fence: FenceView,
}

/// `baton doctor --json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DoctorView {
    /// No fault is left (notes allowed): the exit code is 0.
    pub ok: bool,
    pub faults: usize,
    pub fixed: usize,
    pub notes: usize,
    pub data_dir: String,
    pub checks: Vec<Finding>,
    pub disk: Vec<DiskUse>,
    pub clis: Vec<CliView>,
}

impl DoctorView {
    pub fn new(
        data_dir: String,
        checks: Vec<Finding>,
        disk: Vec<DiskUse>,
        clis: Vec<CliView>,
    ) -> DoctorView {
        let count = |s: Status| checks.iter().filter(|f| f.status == s).count();
        let (faults, fixed, notes) = (
            count(Status::Fault),
            count(Status::Fixed),
            count(Status::Note),
        );
        DoctorView {
            ok: faults == 0,
            faults,
            fixed,
            notes,
            data_dir,
            checks,
            disk,
            clis,
        }
    }

    /// 0 when all is well (notes and fixed faults allowed), 1 when a fault is left.
    pub fn exit_code(&self) -> i32 {
        if self.ok {
            0
        } else {
            crate::error::EXIT_FAILED
        }
    }
}

/// `1 fault`, `2 faults`.
pub(super) fn plural(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

/// The summary line; `fix`: whether this run was asked to repair.
pub fn summary(v: &DoctorView, fix: bool) -> String {
    let mut parts = vec![plural(v.faults, "fault")];
    if v.fixed > 0 {
        parts.push(format!("{} fixed", v.fixed));
    }
    parts.push(plural(v.notes, "note"));
    let head = if v.ok {
        "all is well"
    } else {
        "something is wrong"
    };
    let hint = match (v.ok, fix) {
        (false, false) => " (run `baton doctor --fix` to repair what it can)",
        (false, true) => " (the lines marked fault say what to do)",
        (true, _) => "",
    };
    format!("doctor: {head}: {}{hint}", parts.join(", "))
}

/// Bytes in a short human form (1.5 KiB).
pub fn size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut v = bytes as f64 / 1024.0;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    format!("{v:.1} {}", UNITS[unit])
}

/// The whole text output (the CLIs are among the findings; `clis` repeats them for scripts).
pub fn text(v: &DoctorView, fix: bool) -> String {
    let mut out = String::new();
    let mut group = None;
    for f in &v.checks {
        if group != Some(f.check) {
            out.push_str(f.check.word());
            out.push('\n');
            group = Some(f.check);
        }
        out.push_str(&format!(
            "  {:<6} {}: {}\n",
            f.status.word(),
            f.subject,
            f.detail
        ));
    }
    if !v.disk.is_empty() {
        out.push_str("disk\n");
        for d in &v.disk {
            let wt = d
                .worktree_bytes
                .map(|b| format!(", worktree {}", size(b)))
                .unwrap_or_default();
            out.push_str(&format!("  {}: data {}{wt}\n", d.name, size(d.data_bytes)));
        }
    }
    out.push_str(&summary(v, fix));
    out.push('\n');
    out
}

#[cfg(test)]
#[path = "report_tests.rs"]
mod tests;
