//! Text for the integration lane's report (`baton integrate`): the base and order, one line
//! per terminal, then what the run could not do. Pure; see `render.rs`.

use crate::protocol::lane::{IntegrateView, LaneStatus, LaneTerminalView};

/// The word a terminal's status is shown by (`ls` marks the same).
pub fn status_word(s: LaneStatus) -> &'static str {
    match s {
        LaneStatus::Clean => "clean",
        LaneStatus::Conflict => "conflict",
        LaneStatus::CheckFailed => "check failed",
        LaneStatus::Skipped => "skipped",
    }
}

/// `baton integrate`.
pub fn integrated(v: &IntegrateView) -> String {
    let short = v.base_commit.get(..12).unwrap_or(&v.base_commit);
    let mut out = format!(
        "lane of {} onto {} ({short}), oldest terminal first, in {}\n",
        v.repo, v.base, v.lane
    );
    if let Some(check) = &v.check {
        let how = match v.check_passed {
            Some(true) => "passes on the lane",
            Some(false) => "fails on the lane",
            None => "not run",
        };
        out.push_str(&format!("check `{check}`: {how}\n"));
    }
    for t in &v.terminals {
        out.push_str(&terminal_line(t));
    }
    for n in &v.notes {
        out.push_str(&format!("note: {n}\n"));
    }
    out
}

/// `ls`'s line under the table for a terminal its lane marks: `api: conflict with web on
/// x.rs (baton integrate api)`.
pub fn mark_line(name: &str, t: &LaneTerminalView) -> String {
    format!(
        "{name}: {}{} (baton integrate {name})\n",
        status_word(t.status),
        conflict_text(t)
    )
}

fn terminal_line(t: &LaneTerminalView) -> String {
    let mut line = format!(
        "  {:<16} {}{}",
        t.name,
        status_word(t.status),
        conflict_text(t)
    );
    let with = !t.conflicts_with.is_empty() || t.conflicts_with_base;
    if t.status == LaneStatus::Conflict && !with {
        line.push_str(" (with the terminals merged before it, together)");
    }
    line.push('\n');
    if let Some(n) = &t.note {
        line.push_str(&format!("    {n}\n"));
    }
    if let Some(o) = &t.check_output {
        for l in o.lines() {
            line.push_str(&format!("    | {l}\n"));
        }
    }
    line
}

/// ` with a, the base on x.rs, y.rs` (empty: no conflict).
fn conflict_text(t: &LaneTerminalView) -> String {
    let mut line = String::new();
    let mut with: Vec<String> = t.conflicts_with.clone();
    if t.conflicts_with_base {
        with.push("the base".into());
    }
    if !with.is_empty() {
        line.push_str(&format!(" with {}", with.join(", ")));
    }
    if !t.files.is_empty() {
        line.push_str(&format!(" on {}", t.files.join(", ")));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn a_report_reads_one_line_per_terminal() {
        let v = IntegrateView {
            repo: "/r".into(),
            base: "main".into(),
            base_commit: "0123456789abcdef".into(),
            lane: "/d/lanes/r-1".into(),
            order: "created".into(),
            check: Some("make".into()),
            check_passed: Some(true),
            terminals: vec![
                LaneTerminalView {
                    name: "a".into(),
                    status: LaneStatus::Conflict,
                    conflicts_with: vec!["b".into()],
                    conflicts_with_base: true,
                    files: vec!["x.rs".into()],
                    ..LaneTerminalView::default()
                },
                LaneTerminalView {
                    name: "c".into(),
                    status: LaneStatus::CheckFailed,
                    check_output: Some("boom".into()),
                    ..LaneTerminalView::default()
                },
            ],
            notes: vec!["moved".into()],
            ..IntegrateView::default()
        };
        assert_eq!(
            integrated(&v),
            "lane of /r onto main (0123456789ab), oldest terminal first, in /d/lanes/r-1\n\
             check `make`: passes on the lane\n  \
             a                conflict with b, the base on x.rs\n  \
             c                check failed\n    | boom\n\
             note: moved\n"
        );
    }
}
