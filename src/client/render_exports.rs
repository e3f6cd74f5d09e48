//! Text for `baton export` and `baton import`. Pure; see `render.rs`.

use crate::protocol::views::{ExportView, ImportView};

/// The zip's path, then each warning.
pub fn exported(v: &ExportView) -> String {
    let mut out = format!("{}\n", v.path);
    for w in &v.warnings {
        out.push_str(&format!("  warning: {w}\n"));
    }
    out
}

/// Where the imported terminal works, its sessions, and the notes.
pub fn imported(v: &ImportView) -> String {
    let mut out = format!(
        "imported {} as {} ({}) in {}\n",
        v.from,
        v.name,
        v.mode.as_str(),
        crate::words::shown(&v.dir)
    );
    if let Some(b) = &v.branch {
        out.push_str(&format!("  branch: {b}\n"));
    }
    for s in &v.sessions {
        let placed = s
            .placed
            .as_deref()
            .unwrap_or("no file: a fresh session on the next send");
        out.push_str(&format!(
            "  {} session {}: {placed}\n",
            s.provider, s.session_id
        ));
    }
    for n in &v.notes {
        out.push_str(&format!("  note: {n}\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::views::ImportedSessionView;
    use crate::words::{CheckoutMode, ProviderKind};
    use pretty_assertions::assert_eq;

    #[test]
    fn export_and_import_answers_read_as_lines() {
        let e = ExportView {
            name: "api".into(),
            path: "/d/exports/api-20261201T100000Z.zip".into(),
            files: 3,
            bytes: 10,
            warnings: vec!["codex session t: gone".into()],
        };
        assert_eq!(
            exported(&e),
            "/d/exports/api-20261201T100000Z.zip\n  warning: codex session t: gone\n"
        );
        let i = ImportView {
            name: "api".into(),
            from: "api".into(),
            terminal_id: "0199".into(),
            dir: "/w/api".into(),
            mode: CheckoutMode::Worktree,
            branch: Some("baton/api".into()),
            worktree: Some("/w/api".into()),
            sessions: vec![ImportedSessionView {
                provider: ProviderKind::Claude,
                session_id: "s1".into(),
                placed: None,
            }],
            notes: vec!["n".into()],
        };
        assert_eq!(
            imported(&i),
            "imported api as api (worktree) in /w/api\n  branch: baton/api\n  claude session s1: no file: a fresh session on the next send\n  note: n\n"
        );
    }
}
