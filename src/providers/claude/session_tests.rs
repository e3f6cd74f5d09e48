//! Tests of `claude_session`: pure parts against the captures, and runs of the shim.
use super::*;
use crate::providers::testing::{home, Home};
use pretty_assertions::assert_eq;

#[test]
fn only_the_kept_system_text_of_prompt_snapshots_is_replaced() {
    let old = "rules for /w/a \"quoted\"\nline";
    let new = "rules for /w/b";
    let snap = |part: &str| {
        serde_json::json!({"type": "attachment", "uuid": "u1",
            "attachment": {"type": "prompt_snapshot", "systemPrompt": ["cli's own", part]}})
        .to_string()
    };
    let user = serde_json::json!({"type": "user", "message": {"content": old}}).to_string();
    let rows: Vec<(String, String)> = vec![
        (snap(old), snap(new)),
        (snap("something else"), snap("something else")),
        // A prompt that quotes the text is the user's: left alone.
        (user.clone(), user),
        ("not json at all".into(), "not json at all".into()),
    ];
    for (line, want) in rows {
        let got = rewrite_snapshots(format!("{line}\n").as_bytes(), old, new);
        assert_eq!(String::from_utf8(got).unwrap(), format!("{want}\n"));
    }
    // A torn last line without its newline stays as it was.
    assert_eq!(rewrite_snapshots(b"{\"type\":", old, new), b"{\"type\":");
}
use std::io::Write;
use std::process::{Command, Stdio};

const S: &str = "f0f0aaaa-0000-4000-8000-000000000001";
const ST: &str = "f0f0bbbb-0000-4000-8000-000000000002";
const VERSIONS: [&str; 2] = ["2.1.332", "2.1.197"];

fn fixture(version: &str, step: &str, folder: &str, id: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/captures/fork/claude")
        .join(version)
        .join(step)
        .join("sessions")
        .join(folder)
        .join(format!("{id}.jsonl"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn texts(text: &str) -> Vec<String> {
    prompts(text).into_iter().map(|p| p.text).collect()
}

fn cut_json(version: &str, name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/captures/fork/claude")
        .join(version)
        .join(name);
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The captured session files: prompts (steers, tool results, attachments left out) and the
/// cut the real CLIs were given (recorded in cut*.json, each rewind run rc 0).
#[test]
fn captured_sessions_table() {
    for version in VERSIONS {
        let three = fixture(version, "03-turn3", "-home-dev-A", S);
        assert_eq!(
            texts(&three),
            [
                "turn one: hello",
                "turn two: use a tool [[tools:1]]",
                "turn three: last one"
            ],
            "{version}"
        );
        let cut = cut_json(version, "cut.json");
        assert_eq!(
            cut_in(&three, S, 2, "turn three: last one").unwrap(),
            cut["last_assistant_before_prompt3"].as_str().unwrap(),
            "{version}: prompt 3's parent is turn 2's last assistant entry"
        );
        // The steered session: the steer joined turn 2 and is no prompt.
        let steered = steer_session(version);
        assert_eq!(
            texts(&steered),
            [
                "steer session turn one",
                "turn two with a steer [[tools:1]] [[toolms:3000]]",
                "steer session turn three"
            ],
            "{version}"
        );
        assert!(steered.contains("queued_command"), "{version}");
        let cut = cut_json(version, "cut-steer.json");
        assert_eq!(
            cut_in(&steered, ST, 2, "steer session turn three").unwrap(),
            cut["last_assistant_before_prompt3"].as_str().unwrap()
        );
        let cut = cut_json(version, "cut-keep1.json");
        assert_eq!(
            cut_in(
                &steered,
                ST,
                1,
                "turn two with a steer [[tools:1]] [[toolms:3000]]"
            )
            .unwrap(),
            cut["prompt2_parentUuid"].as_str().unwrap()
        );
    }
}

fn steer_session(version: &str) -> String {
    let step = if version == "2.1.332" {
        "16-steer-turn3"
    } else {
        "20-steer-turn3"
    };
    fixture(version, step, "-home-dev-A", ST)
}

#[test]
fn forks_and_branches_follow_the_active_chain() {
    // 2.1.332's fork file holds S's entries (same uuids) then the fork's prompt.
    let fork = fixture(
        "2.1.332",
        "04-fork-into-B",
        "-home-dev-B",
        "f0f0f0b0-0000-4000-8000-0000000000b1",
    );
    assert_eq!(texts(&fork).last().unwrap(), "fork prompt in B");
    assert_eq!(texts(&fork).len(), 4);
    // A rewind fork holds turns 1–2 and its own prompt.
    let rewound = fixture(
        "2.1.332",
        "07-rewind-at-last-assistant",
        "-home-dev-B",
        "f0f0e0e0-0000-4000-8000-000000000001",
    );
    assert_eq!(
        texts(&rewound),
        [
            "turn one: hello",
            "turn two: use a tool [[tools:1]]",
            "rewound prompt 3"
        ]
    );
    // --resume-session-at without --fork-session branched S itself: the active chain is
    // the new branch, turns 3 and 4 are left behind.
    let branched = fixture("2.1.332", "11-rewind-without-fork", "-home-dev-A", S);
    assert_eq!(
        texts(&branched),
        [
            "turn one: hello",
            "turn two: use a tool [[tools:1]]",
            "rewind without --fork-session"
        ]
    );
}

#[test]
fn cut_errors_say_why() {
    let three = fixture("2.1.197", "03-turn3", "-home-dev-A", S);
    let e = cut_in(&three, S, 3, "x").unwrap_err();
    assert!(
        matches!(e, CutError::TooFewPrompts { found: 3, .. }),
        "{e:?}"
    );
    assert!(e.to_string().contains("holds 3 prompt(s)"), "{e}");
    let e = cut_in(&three, S, 2, "turn two: use a tool [[tools:1]]").unwrap_err();
    assert!(matches!(e, CutError::PromptMismatch { .. }), "{e:?}");
    assert!(e.to_string().contains("\"turn three: last one\""), "{e}");
    let e = cut_in(&three, S, 0, "turn one: hello").unwrap_err();
    assert!(matches!(e, CutError::NoParent { .. }), "{e:?}");
    // Rows that are not prompts.
    let rows = [
        r#"{"type":"user","uuid":"u1","parentUuid":null,"message":{"content":"one"}}"#,
        r#"{"type":"assistant","uuid":"a1","parentUuid":"u1","message":{"content":[]}}"#,
        r#"{"type":"user","uuid":"m1","parentUuid":"a1","isMeta":true,"message":{"content":"meta"}}"#,
        r#"{"type":"user","uuid":"i1","parentUuid":"m1","message":{"content":[{"type":"text","text":"[Request interrupted by user]"}]}}"#,
        r#"{"type":"user","uuid":"t1","parentUuid":"i1","message":{"content":[{"type":"tool_result","content":"x"}]}}"#,
        r#"{"type":"user","uuid":"s1","parentUuid":"t1","isSidechain":true,"message":{"content":"side"}}"#,
        "not json",
        r#"{"type":"user","uuid":"u2","parentUuid":"t1","message":{"content":[{"type":"text","text":"two"}]}}"#,
    ]
    .join("\n");
    assert_eq!(texts(&rows), ["one", "two"]);
    assert_eq!(cut_in(&rows, "x", 1, "two").unwrap(), "t1");

    let home = home();
    let a = home.dir.path().join("A");
    std::fs::create_dir_all(&a).unwrap();
    assert!(matches!(
        cut_point(&home.homes, &a, S, 1, "x"),
        Err(CutError::Missing { .. })
    ));
    assert_eq!(cut_point(&home.homes, &a, S, 0, "x").unwrap(), None);
}

#[test]
fn prepare_fork_copies_into_the_new_folder_and_removes_the_copy() {
    let home = home();
    let (a, b) = (home.dir.path().join("A"), home.dir.path().join("B"));
    std::fs::create_dir_all(&a).unwrap();
    std::fs::create_dir_all(&b).unwrap();
    assert_eq!(
        prepare_fork(&home.homes, S, &a, &b, None)
            .unwrap_err()
            .kind(),
        io::ErrorKind::NotFound
    );
    let source = session_file(&home.homes, &a, S);
    std::fs::create_dir_all(source.parent().unwrap()).unwrap();
    std::fs::write(&source, "{\"v\":1}\n").unwrap();
    let same = prepare_fork(&home.homes, S, &a, &a, None).unwrap();
    assert_eq!(same.path(), None);
    same.remove().unwrap();
    // A stale copy is replaced by the file as it is now.
    let target = session_file(&home.homes, &b, S);
    std::fs::create_dir_all(target.parent().unwrap()).unwrap();
    std::fs::write(&target, "{\"v\":0}\n").unwrap();
    let copy = prepare_fork(&home.homes, S, &a, &b, None).unwrap();
    assert_eq!(copy.path(), Some(target.as_path()));
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "{\"v\":1}\n");
    copy.remove().unwrap();
    assert!(!target.exists());
    assert!(source.exists());
    let names: Vec<_> = std::fs::read_dir(target.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(names.is_empty(), "no temporary file left: {names:?}");
}

/// One turn of the claude shim with baton's input mode: the prompt as a JSON line, stdin
/// closed after it (the shim finishes the turn, then exits).
fn shim_turn(home: &Home, version: &str, cwd: &Path, args: &[&str], prompt: &str) -> bool {
    let shim = Path::new(env!("CARGO_MANIFEST_DIR")).join("shims/claude");
    let mut child = Command::new("python3")
        .arg(shim)
        .args([
            "-p",
            "--output-format",
            "stream-json",
            "--verbose",
            "--include-partial-messages",
            "--input-format",
            "stream-json",
            "--replay-user-messages",
        ])
        .args(args)
        .current_dir(cwd)
        .env("HOME", home.dir.path())
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("BATON_SHIM_LOG")
        .env_remove("BATON_SHIM_DELAY_MS")
        .env("BATON_SHIM_CLAUDE_VERSION", version)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3 runs the shim");
    let line = super::super::user_line(prompt);
    child
        .stdin
        .take()
        .unwrap()
        .write_all(line.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    out.status.success()
}

/// Three turns on the shim, the cut before turn 3, a rewind fork from another checkout: the
/// fork's session file holds turns 1–2 and its own prompt, nothing of turn 3.
#[test]
fn rewind_fork_on_the_shim_keeps_turns_one_and_two() {
    const NEW: &str = "f0f0e0e0-0000-4000-8000-0000000000aa";
    let turns = ["first [[calls:2]]", "second", "third"];
    for version in VERSIONS {
        let home = home();
        let (a, b) = (home.dir.path().join("A"), home.dir.path().join("B"));
        std::fs::create_dir_all(&a).unwrap();
        std::fs::create_dir_all(&b).unwrap();
        assert!(shim_turn(
            &home,
            version,
            &a,
            &["--session-id", S],
            turns[0]
        ));
        for prompt in &turns[1..] {
            assert!(shim_turn(&home, version, &a, &["--resume", S], prompt));
        }
        let cut = cut_point(&home.homes, &a, S, 2, turns[2]).unwrap().unwrap();
        let fork = [
            "--resume",
            S,
            "--fork-session",
            "--session-id",
            NEW,
            "--resume-session-at",
            cut.as_str(),
        ];
        if version == "2.1.197" {
            assert!(
                !shim_turn(&home, version, &b, &fork, "rewound"),
                "2.1.197 finds S only from A"
            );
        }
        let copy = prepare_fork(&home.homes, S, &a, &b, None).unwrap();
        assert!(shim_turn(&home, version, &b, &fork, "rewound"), "{version}");
        copy.remove().unwrap();
        let forked = std::fs::read_to_string(session_file(&home.homes, &b, NEW)).unwrap();
        assert_eq!(texts(&forked), [turns[0], turns[1], "rewound"], "{version}");
        assert!(!forked.contains(turns[2]), "{version}: nothing of turn 3");
        assert!(
            !forked.contains(&format!("\"sessionId\":\"{S}\"")),
            "{version}"
        );
        let original = std::fs::read_to_string(session_file(&home.homes, &a, S)).unwrap();
        assert_eq!(texts(&original), turns, "{version}: S untouched");
    }
}
