//! Tests of a provider run against fake CLIs: stdin, streaming, interrupts, failures.

use super::*;
use crate::words::{ContextUsage, TurnStatus};
use pretty_assertions::assert_eq;
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::time::Duration;
use tokio::sync::mpsc;

const DEADLINE: Duration = Duration::from_secs(20);
const INIT: &str = r#"{"type":"system","subtype":"init","session_id":"s-1","model":"m"}"#;
const ASSISTANT: &str = r#"{"type":"assistant","message":{"id":"a1","model":"m","content":[{"type":"text","text":"hi"}],"usage":{"input_tokens":1,"cache_creation_input_tokens":2,"cache_read_input_tokens":3,"output_tokens":4}}}"#;
const RESULT: &str = r#"{"type":"result","is_error":false,"session_id":"s-1","modelUsage":{"m":{"contextWindow":100}}}"#;
/// The context a turn of [`ASSISTANT`] then [`RESULT`] ends at.
const CONTEXT: ContextUsage = ContextUsage {
    tokens: 10,
    window: 100,
};

struct Fake {
    dir: tempfile::TempDir,
    spec: RunSpec,
    homes: ProviderHomes,
}

/// A fake CLI: a shell script whose body can use `$OUT` (a scratch directory).
fn fake(provider: ProviderKind, body: &str) -> Fake {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let cwd = dir.path().join("work dir");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::create_dir_all(&cwd).unwrap();
    let bin = dir.path().join("fake-cli");
    std::fs::write(
        &bin,
        format!("#!/bin/sh\nOUT='{}'\n{body}\n", out.display()),
    )
    .unwrap();
    std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
    let spec = RunSpec {
        provider,
        bin,
        cwd,
        session: SessionMode::New {
            session_id: Some("s-1".into()),
        },
        model: None,
        system_text: "be brief".into(),
        run_name: "baton-t-u".into(),
        run_dir: dir.path().join("runs"),
        permission_mode: None,
        sandbox: None,
        add_dirs: Vec::new(),
        extra_args: Vec::new(),
        env: Vec::new(),
    };
    let homes = ProviderHomes {
        claude: dir.path().join("claude"),
        codex: dir.path().join("codex"),
    };
    Fake { dir, spec, homes }
}

impl Fake {
    fn out(&self, name: &str) -> PathBuf {
        self.dir.path().join("out").join(name)
    }

    /// Runs the turn, retrying while another test's fork still holds the script open for
    /// writing (ETXTBSY), which only happens in a test process writing executables.
    async fn run(
        &self,
        prompt: &[u8],
        tx: mpsc::Sender<RunMsg>,
        flag: Arc<AtomicBool>,
    ) -> TurnOutcome {
        self.run_with(prompt, tx, flag, Channels::default).await
    }

    /// [`Fake::run`] with the channels `channels` makes (once a try).
    async fn run_with(
        &self,
        prompt: &[u8],
        tx: mpsc::Sender<RunMsg>,
        flag: Arc<AtomicBool>,
        channels: impl Fn() -> Channels,
    ) -> TurnOutcome {
        for _ in 0..50 {
            let run = run_turn(
                &self.spec,
                prompt,
                &self.homes,
                None,
                tx.clone(),
                flag.clone(),
                channels(),
            );
            match tokio::time::timeout(DEADLINE, run)
                .await
                .expect("the turn hung")
            {
                Ok(outcome) => return outcome,
                Err(ProviderError::Spawn { source, .. }) if source.raw_os_error() == Some(26) => {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                Err(e) => panic!("{e}"),
            }
        }
        panic!("the fake CLI stayed busy")
    }
}

fn lines(lines: &[&str]) -> String {
    lines
        .iter()
        .map(|l| format!("printf '%s\\n' '{l}'\n"))
        .collect()
}

#[tokio::test]
async fn prompt_goes_byte_for_byte_on_stdin_in_the_cwd_and_lines_stream_out() {
    let body = format!(
        "cat > \"$OUT/stdin.bin\"\npwd -P > \"$OUT/cwd.txt\"\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done > \"$OUT/args.txt\"\n{}printf 'not json \\377\\n'\n{}",
        lines(&[INIT, ASSISTANT]),
        lines(&[RESULT])
    );
    let fake = fake(ProviderKind::Claude, &body);
    // Quotes, backslashes, newlines, control characters, wide characters, and more than a pipe
    // holds, so a blocking write would deadlock.
    let prompt: String = (0..1_100_000u32)
        .map(|i| ['a', '"', '\\', '\n', '\t', '\u{1}', 'é', '中', '✓', '$'][(i % 10) as usize])
        .collect();
    let (tx, mut rx) = mpsc::channel(1024);
    let outcome = fake.run(prompt.as_bytes(), tx, Arc::default()).await;
    // Claude reads its prompt as one stream-json user message: the text arrives byte for byte.
    let stdin = std::fs::read_to_string(fake.out("stdin.bin")).unwrap();
    assert_eq!(stdin.lines().count(), 1, "one line, then EOF");
    let line: serde_json::Value = serde_json::from_str(&stdin).unwrap();
    assert_eq!(line["type"], "user");
    assert_eq!(line["message"]["role"], "user");
    assert_eq!(line["message"]["content"].as_str(), Some(prompt.as_str()));
    let cwd = std::fs::read_to_string(fake.out("cwd.txt")).unwrap();
    assert_eq!(
        Path::new(cwd.trim_end()),
        std::fs::canonicalize(&fake.spec.cwd).unwrap()
    );
    let args = std::fs::read_to_string(fake.out("args.txt")).unwrap();
    assert_eq!(args, format!("-p\n--output-format\nstream-json\n--verbose\n--include-partial-messages\n--input-format\nstream-json\n--replay-user-messages\n--session-id\ns-1\n--append-system-prompt-file\n{}\n", fake.spec.run_dir.join("baton-t-u.txt").display()));

    let mut msgs = Vec::new();
    while let Ok(msg) = rx.try_recv() {
        msgs.push(msg);
    }
    assert!(
        matches!(msgs[0], RunMsg::Started { pid } if pid > 1),
        "{msgs:?}"
    );
    assert_eq!(
        msgs[1..].to_vec(),
        vec![
            RunMsg::Raw(INIT.into()),
            RunMsg::Event(TurnEvent::Session {
                session_id: "s-1".into(),
                model: Some("m".into())
            }),
            RunMsg::Raw(ASSISTANT.into()),
            RunMsg::Event(TurnEvent::Text { text: "hi".into() }),
            RunMsg::Event(TurnEvent::Usage { tokens: 10 }),
            RunMsg::Raw("not json \u{FFFD}".into()),
            RunMsg::Raw(RESULT.into()),
            RunMsg::Event(TurnEvent::End {
                status: TurnStatus::Completed,
                error: None
            }),
        ]
    );
    assert_eq!(outcome.status, Some(TurnStatus::Completed));
    assert_eq!(outcome.context, Some(CONTEXT));
}

/// A fake Claude that prints `out`, reads stdin to its end, prints `late` and exits once
/// `$OUT/go` exists.
fn lingering(out: &[&str]) -> Fake {
    let body = format!(
        "{}cat > /dev/null\nprintf 'late\\n'\nwhile [ ! -e \"$OUT/go\" ]; do sleep 0.01; done\n",
        lines(out)
    );
    fake(ProviderKind::Claude, &body)
}

/// Runs `fake`'s turn with a `closing` channel; the outcome and what came through it.
async fn run_closing(fake: &Fake) -> (TurnOutcome, Option<Closing>) {
    let (tx, _rx) = mpsc::channel(1024);
    let handed = std::sync::Mutex::new(None);
    let outcome = fake
        .run_with(b"go", tx, Arc::default(), || {
            let (to, from) = tokio::sync::oneshot::channel();
            *handed.lock().unwrap() = Some(from);
            Channels {
                closing: Some(to),
                ..Channels::default()
            }
        })
        .await;
    let cli = handed.lock().unwrap().take().unwrap().try_recv().ok();
    (outcome, cli)
}

#[tokio::test]
async fn a_clean_turn_ends_at_its_result_and_its_cli_is_handed_over_while_it_exits() {
    let fake = lingering(&[INIT, ASSISTANT, RESULT]);
    let (outcome, cli) = run_closing(&fake).await;
    assert_eq!(outcome.status, Some(TurnStatus::Completed));
    assert_eq!(outcome.context, Some(CONTEXT));
    let cli = cli.expect("the CLI handed over");
    assert!(
        process::start_time(cli.pid).is_some_and(|(_, running)| running),
        "it still runs"
    );
    let system_file = fake.spec.run_dir.join("baton-t-u.txt");
    assert!(system_file.exists(), "kept while the CLI runs");
    std::fs::write(fake.out("go"), "").unwrap();
    let after = tokio::time::timeout(DEADLINE, cli.wait(std::future::pending()))
        .await
        .expect("it exits");
    assert_eq!(after, ["late"], "what it printed after its result");
    assert!(!system_file.exists(), "removed once it exited");
}

#[tokio::test]
async fn a_failed_turn_waits_for_its_cli_to_exit_and_hands_nothing_over() {
    let failed = r#"{"type":"result","is_error":true,"subtype":"error_during_execution","session_id":"s-1","errors":["boom"]}"#;
    let fake = lingering(&[INIT, failed]);
    std::fs::write(fake.out("go"), "").unwrap();
    let (outcome, cli) = run_closing(&fake).await;
    assert_eq!(outcome.status, Some(TurnStatus::Failed));
    assert!(cli.is_none());
}

#[tokio::test]
async fn interrupt_ends_a_sleeping_child_leading_its_own_group() {
    let fake = fake(
        ProviderKind::Claude,
        &format!("{}exec sleep 30\n", lines(&[INIT])),
    );
    let (tx, mut rx) = mpsc::channel(16);
    let flag = Arc::new(AtomicBool::new(false));
    let watcher = async {
        let Some(RunMsg::Started { pid }) = rx.recv().await else {
            panic!("no Started")
        };
        let group = nix::unistd::getpgid(Some(nix::unistd::Pid::from_raw(pid))).unwrap();
        assert_eq!(group.as_raw(), pid, "the child leads its own process group");
        assert_ne!(group, nix::unistd::getpgrp());
        // The shell catches SIGINT while it runs a script; a signal that lands before the
        // exec would be swallowed, so wait until the child really is `sleep`.
        let comm = format!("/proc/{pid}/comm");
        let deadline = tokio::time::Instant::now() + DEADLINE;
        while std::fs::read_to_string(&comm).unwrap_or_default().trim() != "sleep" {
            assert!(
                tokio::time::Instant::now() < deadline,
                "the fake never slept"
            );
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        flag.store(true, Ordering::SeqCst);
        process::interrupt(pid).unwrap();
        while rx.recv().await.is_some() {}
    };
    let (outcome, ()) = tokio::join!(fake.run(b"prompt", tx, Arc::clone(&flag)), watcher);
    assert_eq!(outcome.status, Some(TurnStatus::Interrupted));
    assert_eq!(outcome.session_id.as_deref(), Some("s-1"));
}

#[tokio::test]
async fn a_gone_receiver_does_not_stop_the_drain() {
    // Far more than a pipe buffer: a reader that stopped would leave the CLI blocked.
    let body = format!(
        "{}yes '{ASSISTANT}' | head -n 20000\n{}",
        lines(&[INIT]),
        lines(&[RESULT])
    );
    let fake = fake(ProviderKind::Claude, &body);
    let (tx, rx) = mpsc::channel(1);
    drop(rx);
    let outcome = fake.run(b"", tx, Arc::default()).await;
    assert_eq!(outcome.status, Some(TurnStatus::Completed));
    assert_eq!(outcome.answer.len(), "hi\n\n".len() * 20000 - 2);
}

#[tokio::test]
async fn a_garbage_printing_cli_fails_clearly() {
    let fake = fake(
        ProviderKind::Claude,
        "echo 'Welcome to something else'\necho 'boom' >&2\nexit 3",
    );
    let (tx, _rx) = mpsc::channel(16);
    let outcome = fake.run(b"hello", tx, Arc::default()).await;
    assert_eq!(outcome.status, Some(TurnStatus::Failed));
    assert_eq!(
        outcome.error.as_deref(),
        Some("claude printed no stream-json events (is it a real Claude Code CLI?): 1 other stdout lines, then it exited with rc 3: boom")
    );
}

#[tokio::test]
async fn codex_resume_puts_the_thread_last_and_reads_the_rollout() {
    let thread = "01a22721-2de9-7bb3-bb7a-acb98d244678";
    let events = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/captures/codex/exec-json-success.stdout.jsonl"),
    )
    .unwrap();
    let body = format!(
        "cat > /dev/null\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done > \"$OUT/args.txt\"\ncat <<'JSONL'\n{events}JSONL"
    );
    let mut fake = fake(ProviderKind::Codex, &body);
    fake.spec.session = SessionMode::Resume {
        session_id: thread.into(),
    };
    let day = fake.homes.codex.join("sessions/2026/11/29");
    std::fs::create_dir_all(&day).unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/captures/codex/rollout-turn1.jsonl"),
        day.join(format!("rollout-2026-11-29T11-46-55-{thread}.jsonl")),
    )
    .unwrap();
    let (tx, _rx) = mpsc::channel(64);
    let outcome = fake.run(b"hello", tx, Arc::default()).await;
    let args = std::fs::read_to_string(fake.out("args.txt")).unwrap();
    assert!(args.ends_with(&format!("\nresume\n{thread}\n")), "{args}");
    assert_eq!(outcome.status, Some(TurnStatus::Completed));
    assert_eq!(
        outcome.context,
        Some(ContextUsage {
            tokens: 10145,
            window: 258400
        })
    );
    assert_eq!(outcome.model.as_deref(), Some("mock-model"));
}

#[tokio::test]
async fn a_missing_binary_names_the_install_step() {
    let mut fake = fake(ProviderKind::Codex, "");
    fake.spec.bin = "no-such-codex-binary".into();
    let (tx, _rx) = mpsc::channel(1);
    let empty = std::ffi::OsString::new();
    let err = run_turn(
        &fake.spec,
        b"",
        &fake.homes,
        Some(&empty),
        tx,
        Arc::default(),
        Channels::default(),
    )
    .await
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "codex was not found (no-such-codex-binary): install it with `npm install -g @openai/codex`, or set providers.codex.bin in baton's config.toml"
    );
}

/// A fake CLI body that keeps a copy of the file after `opt` (read from `dir` when given, as
/// `<dir>/<value>.config.toml`), its mode and its folder's, and where it was.
fn keep_file(opt: &str, dir: Option<&Path>) -> String {
    let path = match dir {
        Some(d) => format!("{}/$v.config.toml", d.display()),
        None => "$v".to_string(),
    };
    format!(
        "for a in \"$@\"; do printf '%s\\n' \"$a\"; done > \"$OUT/args.txt\"\n\
         while [ $# -gt 0 ]; do if [ \"$1\" = '{opt}' ]; then v=\"$2\"; fi; shift; done\n\
         f=\"{path}\"\nprintf '%s' \"$f\" > \"$OUT/path\"\ncp \"$f\" \"$OUT/system.bin\"\n\
         stat -c %a \"$f\" > \"$OUT/mode\"\nstat -c %a \"$(dirname \"$f\")\" > \"$OUT/dirmode\"\n"
    )
}

/// Text with everything a shell, TOML or JSON could mangle, and a trailing newline.
const AWKWARD: &str = "Say \"hi\" \\ $HOME `id` \t tab\n中文 ✓ 🎉\n";

#[tokio::test]
async fn claude_reads_the_system_text_from_a_private_file_gone_after_the_run() {
    let mut fake = fake(
        ProviderKind::Claude,
        &keep_file("--append-system-prompt-file", None),
    );
    fake.spec.system_text = AWKWARD.to_string();
    let (tx, _rx) = mpsc::channel(1024);
    fake.run(b"hi", tx, Arc::default()).await;
    let read = |name: &str| std::fs::read(fake.out(name)).unwrap();
    assert_eq!(read("system.bin"), AWKWARD.as_bytes(), "byte for byte");
    assert_eq!(read("mode"), b"600\n");
    assert_eq!(read("dirmode"), b"700\n");
    let path = PathBuf::from(String::from_utf8(read("path")).unwrap());
    assert_eq!(path, fake.spec.run_dir.join("baton-t-u.txt"));
    assert!(!path.exists(), "removed after the run");
    let args = String::from_utf8(read("args.txt")).unwrap();
    assert!(!args.contains("hi\""), "{args}");
}

#[tokio::test]
async fn a_new_codex_thread_reads_the_system_text_from_a_private_profile_gone_after() {
    let dir = tempfile::tempdir().unwrap();
    let codex_home = dir.path().join("codex");
    let mut fake = fake(ProviderKind::Codex, &keep_file("-p", Some(&codex_home)));
    fake.homes.codex = codex_home.clone();
    fake.spec.session = SessionMode::New { session_id: None };
    fake.spec.system_text = AWKWARD.to_string();
    let (tx, _rx) = mpsc::channel(1024);
    fake.run(b"hi", tx, Arc::default()).await;
    let read = |name: &str| std::fs::read(fake.out(name)).unwrap();
    let profile: toml::Table =
        toml::from_str(std::str::from_utf8(&read("system.bin")).unwrap()).unwrap();
    assert_eq!(profile["developer_instructions"].as_str(), Some(AWKWARD));
    assert_eq!(
        profile.len(),
        1,
        "nothing else of the user's config is touched"
    );
    assert_eq!(read("mode"), b"600\n");
    assert_eq!(read("dirmode"), b"700\n");
    let path = PathBuf::from(String::from_utf8(read("path")).unwrap());
    assert_eq!(path, codex_home.join("baton-t-u.config.toml"));
    assert!(!path.exists(), "removed after the run");
    assert!(!codex_home.join("config.toml").exists());
}

#[tokio::test]
async fn a_profile_of_the_users_own_in_codex_args_fails_before_the_cli_starts() {
    let mut fake = fake(ProviderKind::Codex, "touch \"$OUT/ran\"");
    fake.spec.system_text = "rules".into();
    fake.spec.extra_args = vec!["--profile".into(), "work".into()];
    let (tx, _rx) = mpsc::channel(1024);
    let err = run_turn(
        &fake.spec,
        b"hi",
        &fake.homes,
        None,
        tx,
        Arc::default(),
        Channels::default(),
    )
    .await
    .unwrap_err();
    assert!(
        matches!(&err, ProviderError::ProfileClash { name } if name == "work"),
        "{err}"
    );
    assert!(!fake.out("ran").exists());
}

/// Runs a gated turn of `fake`, sending `go` once the CLI has started (true) or dropping it
/// (false); retries on ETXTBSY like [`Fake::run`].
async fn gated_run(fake: &Fake, prompt: &'static [u8], open: bool) {
    for _ in 0..50 {
        let (tx, mut rx) = mpsc::channel(1024);
        let (go, gate) = tokio::sync::oneshot::channel();
        let (spec, homes) = (fake.spec.clone(), fake.homes.clone());
        let run = tokio::spawn(async move {
            let drain = tokio::spawn(async move { while rx.recv().await.is_some() {} });
            let ran = run_turn(
                &spec,
                prompt,
                &homes,
                None,
                tx,
                Arc::default(),
                Channels {
                    go: Some(gate),
                    ..Channels::default()
                },
            );
            let ran = ran.await;
            let _ = drain.await;
            ran
        });
        let started = fake.out("started");
        // The CLI is running and waits on stdin: nothing reached it yet.
        while !started.exists() && !run.is_finished() {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        if started.exists() {
            let read = std::fs::read(fake.out("stdin")).unwrap_or_default();
            assert_eq!(read, b"", "the prompt waited for the gate");
        }
        if open {
            let _ = go.send(());
        } else {
            drop(go);
        }
        let ran = tokio::time::timeout(DEADLINE, run)
            .await
            .expect("the turn hung")
            .unwrap();
        match ran {
            Err(ProviderError::Spawn { source, .. }) if source.raw_os_error() == Some(26) => {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            _ => return,
        }
    }
    panic!("the fake CLI stayed busy")
}

#[tokio::test]
async fn a_gated_cli_reads_its_prompt_only_once_the_gate_opens_and_none_if_it_closes() {
    for (open, expected) in [(true, &b"the prompt"[..]), (false, &b""[..])] {
        let fake = fake(
            ProviderKind::Codex,
            ": > \"$OUT/stdin\"; touch \"$OUT/started\"; cat > \"$OUT/stdin\"",
        );
        gated_run(&fake, b"the prompt", open).await;
        let read = std::fs::read(fake.out("stdin")).unwrap();
        assert_eq!(read, expected, "gate opened: {open}");
    }
}

/// Runs a Claude turn of `fake` with steers and interrupts open; sends one interrupt once the
/// CLI printed its first line. Returns the outcome and how long the turn took after it.
async fn interrupted_run(fake: &Fake) -> (TurnOutcome, Duration) {
    for _ in 0..50 {
        let (tx, mut rx) = mpsc::channel(1024);
        let (_steer_tx, steer) = mpsc::unbounded_channel();
        let (ask, interrupt) = mpsc::unbounded_channel();
        let (spec, homes) = (fake.spec.clone(), fake.homes.clone());
        let run = tokio::spawn(async move {
            run_turn(
                &spec,
                b"go",
                &homes,
                None,
                tx,
                Arc::default(),
                Channels {
                    steer: Some(steer),
                    interrupt: Some(interrupt),
                    ..Channels::default()
                },
            )
            .await
        });
        let mut asked_at = None;
        while let Some(msg) = rx.recv().await {
            if matches!(msg, RunMsg::Raw(_)) && asked_at.is_none() {
                ask.send(()).unwrap();
                asked_at = Some(std::time::Instant::now());
            }
        }
        let ran = tokio::time::timeout(DEADLINE, run)
            .await
            .expect("the turn hung")
            .unwrap();
        match ran {
            Err(ProviderError::Spawn { source, .. }) if source.raw_os_error() == Some(26) => {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            Ok(outcome) => return (outcome, asked_at.expect("a line").elapsed()),
            Err(e) => panic!("{e}"),
        }
    }
    panic!("the fake CLI stayed busy")
}

#[tokio::test]
async fn an_interrupt_is_asked_on_stdin_and_a_cli_that_ends_its_turn_is_not_signalled() {
    // As the real CLI: the request's control_response, an error result, and it reads on.
    let result = r#"{"type":"result","is_error":true,"subtype":"error_during_execution","session_id":"s-1"}"#;
    let body = format!(
        "IFS= read -r first\n{}while IFS= read -r l; do printf '%s\\n' \"$l\" >> \"$OUT/stdin\"; case \"$l\" in *control_request*) printf '%s\\n' '{result}';; esac; done\ntouch \"$OUT/eof\"",
        lines(&[INIT])
    );
    let fake = fake(ProviderKind::Claude, &body);
    let (outcome, _) = interrupted_run(&fake).await;
    let stdin = std::fs::read_to_string(fake.out("stdin")).unwrap();
    let line: serde_json::Value = serde_json::from_str(stdin.lines().next().unwrap()).unwrap();
    assert_eq!(line["type"], "control_request");
    assert_eq!(line["request"]["subtype"], "interrupt");
    assert_eq!(
        outcome.status,
        Some(TurnStatus::Failed),
        "the CLI's own result"
    );
    assert!(fake.out("eof").exists(), "it ended at EOF, not by a signal");
}

#[tokio::test]
async fn an_unanswered_interrupt_request_falls_back_to_sigint() {
    // A CLI that reads the request and does nothing about it.
    let body = format!(
        "IFS= read -r first\n{}while IFS= read -r l; do printf '%s\\n' \"$l\" >> \"$OUT/stdin\"; done",
        lines(&[INIT])
    );
    let fake = fake(ProviderKind::Claude, &body);
    let (outcome, after) = interrupted_run(&fake).await;
    assert!(after >= INTERRUPT_GRACE, "{after:?}");
    assert_eq!(outcome.status, Some(TurnStatus::Interrupted), "{outcome:?}");
    let stdin = std::fs::read_to_string(fake.out("stdin")).unwrap();
    assert!(stdin.contains("control_request"), "{stdin}");
}

#[test]
fn a_cli_is_reusable_only_after_a_turn_that_left_nothing_to_come() {
    let end = |status, interrupted, took_interrupt, steers_unread, subagent| TurnEnd {
        status,
        interrupted,
        took_interrupt,
        steers_unread,
        subagent,
    };
    use TurnStatus::{Completed, Failed};
    // (what, the end, reusable)
    let cases = [
        (
            "completed",
            end(Completed, false, false, false, false),
            true,
        ),
        ("failed", end(Failed, false, false, false, false), false),
        (
            "interrupted by its own request",
            end(Failed, true, true, false, false),
            true,
        ),
        (
            "interrupted by a signal",
            end(Failed, true, false, false, false),
            false,
        ),
        (
            "completed as an interrupt came",
            end(Completed, true, false, false, false),
            false,
        ),
        (
            "a steer it did not take in",
            end(Completed, false, false, true, false),
            false,
        ),
        (
            "a subagent",
            end(Completed, false, false, false, true),
            false,
        ),
        (
            "interrupted, with a steer unread",
            end(Failed, true, true, true, false),
            false,
        ),
    ];
    for (what, e, want) in cases {
        assert_eq!(e.leaves_cli_reusable(), want, "{what}");
    }
}
