//! The manifest's checks: paths an import may write, members against their digests.

use pretty_assertions::assert_eq;

use super::*;

fn manifest(files: Vec<FileEntry>) -> Manifest {
    Manifest {
        format: FORMAT,
        baton_version: "0.1.0".into(),
        exported_at: "2026-12-01T10:00:00.000Z".into(),
        terminal: TerminalInfo {
            id: "019ad1c2-aaaa-7bbb-8ccc-0123456789ab".into(),
            name: "api".into(),
            provider: ProviderKind::Claude,
            model: None,
            dir: "/w/api".into(),
            source: "/w/api".into(),
            mode: CheckoutMode::Folder,
            screenshots: "/d/t/screenshots".into(),
        },
        checkout: None,
        files,
        sessions: vec![],
        missing: vec![],
    }
}

fn file(path: &str, kind: FileKind, bytes: &[u8]) -> FileEntry {
    FileEntry {
        path: path.into(),
        kind,
        size: bytes.len() as u64,
        sha256: sha256_hex(bytes),
    }
}

#[test]
fn sha256_is_lower_case_hex() {
    assert_eq!(
        sha256_hex(b"abc"),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
}

#[test]
fn only_baton_shaped_relative_paths_pass() {
    use FileKind::*;
    let cases = [
        ("baton/journal.jsonl", Journal, true),
        ("baton/turns/0199-a.jsonl", Turn, true),
        ("claude/projects/-w-api/5e1.jsonl", ClaudeSession, true),
        (
            "codex/sessions/2026/12/01/rollout-2026-12-01T10-00-00-0199.jsonl",
            CodexRollout,
            true,
        ),
        ("/etc/passwd", Journal, false),
        ("baton/../../x.jsonl", Turn, false),
        ("baton/turns/../journal.jsonl", Turn, false),
        ("claude/projects/../../.bashrc", ClaudeSession, false),
        ("claude/projects/a/b/c.jsonl", ClaudeSession, false),
        ("codex/sessions/2026/12/01/other.jsonl", CodexRollout, false),
        (
            "codex/sessions/yy/12/01/rollout-x.jsonl",
            CodexRollout,
            false,
        ),
        ("baton/turns/a\\b.jsonl", Turn, false),
        ("baton/turns//a.jsonl", Turn, false),
        ("baton/turns/.hidden.jsonl", Turn, false),
        ("baton/turns/a b.jsonl", Turn, false),
        ("baton/turns/!x.jsonl", Turn, false),
        ("baton/turns/.jsonl", Turn, false),
        ("baton/journal.jsonl", Turn, false),
        ("claude/projects/x/y.jsonl", Turn, false),
    ];
    for (path, kind, ok) in cases {
        assert_eq!(check_path(path, kind).is_ok(), ok, "{path} as {kind:?}");
    }
}

#[test]
fn members_are_checked_by_size_and_digest_and_must_be_listed() {
    let m = manifest(vec![file(JOURNAL, FileKind::Journal, b"{}\n")]);
    let cases: [(&str, &[u8], Result<(), ArchiveError>); 5] = [
        (JOURNAL, b"{}\n", Ok(())),
        (
            JOURNAL,
            b"{}\n\n",
            Err(ArchiveError::Size {
                path: JOURNAL.into(),
                want: 3,
                got: 4,
            }),
        ),
        (JOURNAL, b"[]\n", Err(ArchiveError::Digest(JOURNAL.into()))),
        (
            "baton/extra.txt",
            b"",
            Err(ArchiveError::Unknown("baton/extra.txt".into())),
        ),
        ("../x", b"", Err(ArchiveError::UnsafePath("../x".into()))),
    ];
    for (path, bytes, want) in cases {
        let got = m.check_member(path, bytes.len() as u64, &sha256_hex(bytes));
        assert_eq!(got, want, "{path}");
    }
    assert_eq!(m.check_complete(|p| p == JOURNAL), Ok(()));
    assert_eq!(
        m.check_complete(|_| false),
        Err(ArchiveError::Absent(JOURNAL.into()))
    );
}

#[test]
fn a_manifest_is_checked_for_itself() {
    let ok = manifest(vec![file(JOURNAL, FileKind::Journal, b"")]);
    let bytes = |m: &Manifest| serde_json::to_vec(m).unwrap();
    assert_eq!(Manifest::parse(&bytes(&ok)), Ok(ok.clone()));

    let mut newer = ok.clone();
    newer.format = FORMAT + 1;
    let mut no_journal = ok.clone();
    no_journal.files.clear();
    let mut twice = ok.clone();
    twice.files.push(twice.files[0].clone());
    let mut bad_id = ok.clone();
    bad_id.terminal.id = "../x".into();
    let mut unsafe_path = ok.clone();
    unsafe_path
        .files
        .push(file("/tmp/x.jsonl", FileKind::Turn, b""));
    let mut dangling = ok.clone();
    dangling.sessions.push(SessionEntry {
        provider: ProviderKind::Codex,
        session_id: "t".into(),
        file: Some("codex/sessions/2026/01/01/rollout-t.jsonl".into()),
    });
    let refused = [
        (newer, "newer baton"),
        (no_journal, "no journal"),
        (twice, "twice"),
        (bad_id, "terminal id"),
        (unsafe_path, "/tmp/x.jsonl"),
        (dangling, "not listed"),
    ];
    for (m, needle) in refused {
        let err = Manifest::parse(&bytes(&m)).unwrap_err().to_string();
        assert!(err.contains(needle), "{needle}: {err}");
    }
    assert!(Manifest::parse(b"not json").is_err());
}
