//! Against the captured app-server sessions (`fixtures/captures/fork/codex/*.rpc.txt`) and,
//! end to end, against `shims/codex`.
use super::*;
use pretty_assertions::assert_eq;

fn capture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/captures/fork/codex")
}

/// The lines the app-server printed (`<< `) in a captured session.
fn printed(name: &str) -> Vec<String> {
    let path = capture_dir().join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter_map(|l| l.strip_prefix("<< "))
        .map(str::to_owned)
        .collect()
}

/// The answer to request `id` in a captured session.
fn answer(name: &str, id: u64) -> Incoming {
    printed(name)
        .iter()
        .map(|l| classify(l, id))
        .find(|c| *c != Incoming::Other)
        .unwrap_or_else(|| panic!("{name}: no answer to {id}"))
}

fn result(name: &str, id: u64) -> Value {
    match answer(name, id) {
        Incoming::Result(v) => v,
        other => panic!("{name} #{id}: {other:?}"),
    }
}

fn ids() -> Value {
    let text = std::fs::read_to_string(capture_dir().join("ids.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn turn(id: &str, text: &str) -> TurnInfo {
    TurnInfo {
        id: id.into(),
        user_text: text.into(),
    }
}

/// By hand against the real CLI: `BATON_REAL_CODEX_FORK=BIN:CODEX_HOME:THREAD:NEW_CWD cargo
/// test --lib codex_app::tests::real -- --ignored --nocapture` (THREAD with at least 3 turns,
/// e.g. `orig` of a `measure.py` world).
#[test]
#[ignore]
fn real_codex_fork_keeps_two_turns() {
    let spec = std::env::var("BATON_REAL_CODEX_FORK").unwrap();
    let parts: Vec<&str> = spec.split(':').collect();
    let [bin, home, thread, cwd] = parts[..] else {
        panic!("BIN:CODEX_HOME:THREAD:NEW_CWD")
    };
    let env = [(OsString::from("CODEX_HOME"), OsString::from(home))];
    let mut req = ForkRequest {
        bin: Path::new(bin),
        env: &env,
        cwd: Path::new(cwd),
        thread_id: thread,
        system_text: "real fork test: you work in the new checkout",
        model: None,
        keep: Some(Keep::first(2, "third prompt THREE")),
    };
    let started = Instant::now();
    let fork = fork_thread(&req).unwrap();
    println!("fork {fork} in {:?}", started.elapsed());
    req.keep = Some(Keep::first(2, "not the prompt"));
    println!("mismatch: {}", fork_thread(&req).unwrap_err());
    req.keep = None;
    println!("whole: {}", fork_thread(&req).unwrap());
    req.thread_id = "11111111-2222-4333-8444-555555555555";
    println!("missing: {}", fork_thread(&req).unwrap_err());
}

// ---- end to end against shims/codex

struct World {
    _dir: tempfile::TempDir,
    home: PathBuf,
    a: PathBuf,
    b: PathBuf,
    env: Vec<(OsString, OsString)>,
}

fn world() -> World {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let (home, a, b) = (root.join("codex-home"), root.join("a"), root.join("b"));
    for d in [&home, &a, &b] {
        std::fs::create_dir_all(d).unwrap();
    }
    let env = vec![
        (OsString::from("CODEX_HOME"), home.clone().into_os_string()),
        (OsString::from("HOME"), root.clone().into_os_string()),
    ];
    World {
        _dir: dir,
        home,
        a,
        b,
        env,
    }
}

fn shim() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("shims/codex")
}

impl World {
    /// One `codex exec` turn on the shim in `cwd`; the thread id it reports.
    fn turn(&self, cwd: &Path, resume: Option<&str>, prompt: &str) -> String {
        let mut args = vec![
            "exec",
            "--json",
            "--skip-git-repo-check",
            "-c",
            "developer_instructions=\"DEV A\"",
        ];
        if let Some(thread) = resume {
            args.extend(["resume", thread]);
        }
        args.push("-");
        let mut child = Command::new(shim())
            .args(&args)
            .current_dir(cwd)
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(prompt.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{prompt}: {:?}", out.status);
        let text = String::from_utf8(out.stdout).unwrap();
        let first: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
        first["thread_id"].as_str().unwrap().to_owned()
    }

    fn rollout(&self, thread: &str) -> PathBuf {
        super::super::find_rollout(&self.home, thread).unwrap()
    }

    /// The rows a thread's history is made of, a fork's `history_base` followed.
    fn history(&self, thread: &str) -> Vec<Value> {
        let rows: Vec<Value> = std::fs::read_to_string(self.rollout(thread))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let base = &rows[0]["payload"]["history_base"];
        let Some(parent) = base["thread_id"].as_str() else {
            return rows;
        };
        let end = base["end_ordinal_exclusive"].as_u64().unwrap();
        let mut all: Vec<Value> = self
            .history(parent)
            .into_iter()
            .filter(|r| r["ordinal"].as_u64().unwrap() < end)
            .collect();
        all.extend(rows);
        all
    }

    /// The texts of the thread's model-visible messages of `role` (environment contexts left out).
    fn texts(&self, thread: &str, role: &str) -> Vec<String> {
        self.history(thread)
            .iter()
            .filter(|r| r["type"] == "response_item" && r["payload"]["role"] == role)
            .map(|r| {
                r["payload"]["content"][0]["text"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned()
            })
            .filter(|t| !t.starts_with("<environment_context>"))
            .collect()
    }

    fn rollouts(&self) -> usize {
        walk(&self.home.join("sessions"))
    }
}

fn walk(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| {
                    if e.path().is_dir() {
                        walk(&e.path())
                    } else {
                        1
                    }
                })
                .sum()
        })
        .unwrap_or(0)
}

#[test]
fn fork_thread_on_the_shim_holds_the_kept_turns_only() {
    let w = world();
    let orig = w.turn(&w.a, None, "p one");
    w.turn(&w.a, Some(&orig), "p two");
    w.turn(&w.a, Some(&orig), "p three");
    let before = std::fs::read(w.rollout(&orig)).unwrap();
    let bin = shim();
    let mut req = ForkRequest {
        bin: &bin,
        env: &w.env,
        cwd: &w.b,
        thread_id: &orig,
        system_text: "You now work in the checkout B.",
        model: Some("gpt-test"),
        keep: Some(Keep::first(2, "p three")),
    };
    let fork = fork_thread(&req).unwrap();
    assert_ne!(fork, orig);
    let meta = &w
        .history(&fork)
        .iter()
        .find(|r| r["payload"]["id"] == fork.as_str())
        .unwrap()["payload"]
        .clone();
    assert_eq!(meta["forked_from_id"], orig.as_str());
    assert_eq!(meta["cwd"], w.b.to_str().unwrap());
    assert_eq!(w.texts(&fork, "user"), ["p one", "p two"]);
    // The original's developer message stays; baton's new text comes after the kept turns.
    let devs = w.texts(&fork, "developer");
    assert_eq!(
        (
            devs.first().unwrap().as_str(),
            devs.last().unwrap().as_str()
        ),
        ("DEV A", "You now work in the checkout B.")
    );
    // The fork carries on from the kept turns; the original is untouched.
    w.turn(&w.b, Some(&fork), "p four");
    assert_eq!(w.texts(&fork, "user"), ["p one", "p two", "p four"]);
    assert!(w
        .texts(&fork, "assistant")
        .last()
        .unwrap()
        .starts_with("MOCK-REPLY #3 "));
    assert_eq!(std::fs::read(w.rollout(&orig)).unwrap(), before);

    // A turn list that does not match is an error, and nothing is forked.
    let files = w.rollouts();
    req.keep = Some(Keep::first(2, "p two"));
    let err = fork_thread(&req).unwrap_err().to_string();
    assert!(
        err.contains("is \"p three\", not the prompt to cut at"),
        "{err}"
    );
    req.keep = Some(Keep::first(3, "p four"));
    assert!(fork_thread(&req)
        .unwrap_err()
        .to_string()
        .contains("has 3 turns"));
    assert_eq!(w.rollouts(), files);

    // Without a cut every turn is kept.
    req.keep = None;
    let whole = fork_thread(&req).unwrap();
    assert_eq!(w.texts(&whole, "user"), ["p one", "p two", "p three"]);
    req.thread_id = "11111111-2222-4333-8444-555555555555";
    let err = fork_thread(&req).unwrap_err().to_string();
    assert!(
        err.contains("refused thread/fork: no rollout found for thread id"),
        "{err}"
    );
    let missing = Path::new("/nonexistent/codex");
    req.bin = missing;
    assert!(matches!(
        fork_thread(&req),
        Err(ProviderError::NotFound { .. })
    ));
}

#[test]
fn a_silent_app_server_times_out_and_is_killed() {
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("codex");
    // Reads nothing, answers nothing; records its pid.
    let script = format!(
        "#!/bin/sh\necho $$ > {}/pid\nexec sleep 30\n",
        dir.path().display()
    );
    std::fs::write(&bin, script).unwrap();
    std::fs::set_permissions(&bin, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let req = ForkRequest {
        bin: &bin,
        env: &[],
        cwd: dir.path(),
        thread_id: "T",
        system_text: "x",
        model: None,
        keep: None,
    };
    let started = Instant::now();
    let err = fork_thread_within(&req, Duration::from_millis(300))
        .unwrap_err()
        .to_string();
    assert!(err.contains("did not answer initialize within"), "{err}");
    assert!(started.elapsed() < Duration::from_secs(5));
    let pid: i32 = std::fs::read_to_string(dir.path().join("pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert_eq!(
        process::start_time(pid)
            .map(|(_, alive)| alive)
            .unwrap_or(false),
        false,
        "still running"
    );
}

#[test]
fn classify_skips_notifications_and_finds_answers_and_errors() {
    let cases: &[(&str, u64, Incoming)] = &[
        (
            r#"{"id":1,"result":{"a":1}}"#,
            1,
            Incoming::Result(json!({"a": 1})),
        ),
        (r#"{"id":2,"result":{}}"#, 1, Incoming::Other),
        (
            r#"{"method":"configWarning","params":{}}"#,
            1,
            Incoming::Other,
        ),
        (
            r#"{"id":7,"method":"item/commandExecution/requestApproval","params":{}}"#,
            1,
            Incoming::ServerRequest(json!(7)),
        ),
        (
            r#"{"error":{"code":-32600,"message":"Not initialized"},"id":1}"#,
            1,
            Incoming::Error {
                code: -32600,
                message: "Not initialized".into(),
            },
        ),
        ("not json", 1, Incoming::Other),
        ("[1,2]", 1, Incoming::Other),
    ];
    for (line, id, want) in cases {
        assert_eq!(&classify(line, *id), want, "{line}");
    }
    // Every notification of a real session is skipped; only the answer counts.
    let lines = printed("c1-fork-inject.rpc.txt");
    let answers: Vec<u64> = (1..=5)
        .filter(|id| {
            lines
                .iter()
                .any(|l| matches!(classify(l, *id), Incoming::Result(_)))
        })
        .collect();
    assert_eq!(answers, vec![1, 2, 3, 4, 5]);
}

#[test]
fn captured_errors_come_back_as_code_and_message() {
    let cases: &[(&str, u64, &str)] = &[
        (
            "b5-errors.rpc.txt",
            2,
            "no rollout found for thread id 11111111-2222-4333-8444-555555555555",
        ),
        (
            "b5-errors.rpc.txt",
            5,
            "turn not found: 11111111-2222-4333-8444-555555555555",
        ),
        ("b6-no-initialize.rpc.txt", 1, "Not initialized"),
        ("c3-inject-unloaded.rpc.txt", 2, "thread not found: "),
    ];
    for (name, id, text) in cases {
        match answer(name, *id) {
            Incoming::Error { code, message } => {
                assert_eq!(code, -32600, "{name} #{id}");
                assert!(message.starts_with(text), "{name} #{id}: {message}");
            }
            other => panic!("{name} #{id}: {other:?}"),
        }
    }
}

#[test]
fn turns_and_fork_answers_parse() {
    let ids = ids();
    let (turns, next) = parse_turns(&result("c1-fork-inject.rpc.txt", 2)).unwrap();
    let texts: Vec<&str> = turns.iter().map(|t| t.user_text.as_str()).collect();
    assert_eq!(
        texts,
        [
            "first prompt ONE",
            "second prompt TWO",
            "third prompt THREE",
            "orig fourth SIX"
        ]
    );
    assert_eq!(next, None);
    let fork = ForkedThread::from_reply(&result("c1-fork-inject.rpc.txt", 3)).unwrap();
    assert_eq!(fork.id, ids["c1"].as_str().unwrap());
    let path = fork.path.unwrap();
    assert!(
        path.to_string_lossy()
            .ends_with(&format!("-{}.jsonl", fork.id)),
        "{}",
        path.display()
    );
    // The fork lists the kept turns with the original's ids.
    let (forked, _) = parse_turns(&result("c1-fork-inject.rpc.txt", 5)).unwrap();
    assert_eq!(forked, turns[..2].to_vec());
    assert_eq!(result("c1-fork-inject.rpc.txt", 4), json!({}));
    for bad in [json!({}), json!({"data": [{"items": []}]})] {
        assert!(parse_turns(&bad).is_err(), "{bad}");
    }
    assert!(ForkedThread::from_reply(&json!({"thread": {"id": ""}})).is_err());
    let paged = json!({"data": [{"id": "t", "items": [
        {"type": "agentMessage", "text": "no"},
        {"type": "userMessage", "content": [{"type": "text", "text": "a"}, {"type": "image", "url": "u"},
                                            {"type": "text", "text": "b"}]}]}], "nextCursor": "C"});
    assert_eq!(
        parse_turns(&paged).unwrap(),
        (vec![turn("t", "a\nb")], Some("C".into()))
    );
}

#[test]
fn check_keep_table() {
    let turns = [turn("1", "one"), turn("2", "two"), turn("3", "three\n")];
    let keep = |turns, next_prompt| Keep::first(turns, next_prompt);
    assert_eq!(
        check_keep("T", &turns, keep(2, "three")).unwrap(),
        &turns[..2]
    );
    assert_eq!(
        check_keep("T", &turns, keep(1, "two\n")).unwrap(),
        &turns[..1]
    );
    let err = |k| check_keep("T", &turns, k).unwrap_err().to_string();
    assert_eq!(err(keep(1, "three")),
               "turn 1 (0-based) of thread T is \"two\", not the prompt to cut at (\"three\"): nothing was forked");
    assert_eq!(
        err(keep(3, "x")),
        "thread T has 3 turns: keeping 3 needs turn 3 (0-based) to cut at"
    );
    assert_eq!(
        err(keep(0, "one")),
        "keeping 0 turns of thread T is not a fork: start a new thread instead"
    );
    assert!(check_cut("F", &turns[..2], &turns[..2]).is_ok());
    assert!(check_cut("F", &turns, &turns[..2]).is_err());
}

#[test]
fn request_lines() {
    let env = [];
    let req = ForkRequest {
        bin: Path::new("codex"),
        env: &env,
        cwd: Path::new("/work/new"),
        thread_id: "T",
        system_text: "You work in /work/new.\n\"quoted\"",
        model: Some("gpt-5.5"),
        keep: None,
    };
    assert_eq!(
        fork_params(&req, Some("turn2")),
        json!({"threadId": "T", "cwd": "/work/new",
        "excludeTurns": true, "model": "gpt-5.5", "lastTurnId": "turn2"})
    );
    let req = ForkRequest { model: None, ..req };
    assert_eq!(
        fork_params(&req, None),
        json!({"threadId": "T", "cwd": "/work/new", "excludeTurns": true})
    );
    assert_eq!(
        inject_params("F", req.system_text),
        json!({"threadId": "F", "items": [{"type": "message",
        "role": "developer", "content": [{"type": "input_text", "text": req.system_text}]}]})
    );
    assert_eq!(
        turns_params("T", Some("c")),
        json!({"threadId": "T", "sortDirection": "asc", "cursor": "c"})
    );
    let line = request_line(3, "thread/fork", &json!({"a": 1}));
    assert!(line.ends_with('\n') && !line[..line.len() - 1].contains('\n'));
    let sent: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(
        sent,
        json!({"jsonrpc": "2.0", "id": 3, "method": "thread/fork", "params": {"a": 1}})
    );
    assert_eq!(
        notification_line("initialized"),
        "{\"jsonrpc\":\"2.0\",\"method\":\"initialized\"}\n"
    );
    assert_eq!(
        strip_ansi("\u{1b}[2mtime\u{1b}[0m \u{1b}[31mERROR\u{1b}[0m x"),
        "time ERROR x"
    );
}
