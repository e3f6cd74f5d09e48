//! The local loop against the stand-in server: streaming, tools, trimming, and every failure.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;
use serde_json::{json, Value};
use tokio::sync::mpsc;

use super::standin::{self, Reply, StandIn};
use super::*;

fn endpoint(base_url: &str) -> Endpoint {
    Endpoint {
        name: "test".into(),
        base_url: base_url.into(),
        model: Some("stand-in".into()),
        api_key: Some("sekret".into()),
        context_window: None,
        stall: Duration::from_secs(5),
        retries: 2,
        backoff: Duration::from_millis(10),
        command_timeout: Duration::from_secs(10),
    }
}

struct Ran {
    result: LocalResult,
    msgs: Vec<RunMsg>,
    dir: tempfile::TempDir,
}

impl Ran {
    fn events(&self) -> Vec<TurnEvent> {
        self.msgs
            .iter()
            .filter_map(|m| match m {
                RunMsg::Event(e) => Some(e.clone()),
                _ => None,
            })
            .collect()
    }
    fn notes(&self) -> Vec<String> {
        self.msgs
            .iter()
            .filter_map(|m| match m {
                RunMsg::Note(n) => Some(n.clone()),
                _ => None,
            })
            .collect()
    }
    fn warnings(&self) -> Vec<String> {
        self.events()
            .into_iter()
            .filter_map(|e| match e {
                TurnEvent::Warning { message } => Some(message),
                _ => None,
            })
            .collect()
    }
    fn status(&self) -> (Option<TurnStatus>, Option<String>) {
        (
            self.result.outcome.status,
            self.result.outcome.error.clone(),
        )
    }
}

fn local_run(ep: Endpoint, dir: &tempfile::TempDir, history: Vec<Vec<Value>>) -> LocalRun {
    LocalRun {
        endpoint: ep,
        cwd: dir.path().to_path_buf(),
        system_text: "house rules\n\nstanding text".into(),
        history,
        prompt: "the prompt".into(),
        session_id: "l-1".into(),
        last_context: None,
    }
}

async fn go(run: LocalRun, dir: tempfile::TempDir, flag: Arc<AtomicBool>) -> Ran {
    let (tx, mut rx) = mpsc::channel(4096);
    let result = tokio::time::timeout(Duration::from_secs(30), super::run(&run, tx, flag, None))
        .await
        .expect("the local run hung");
    let mut msgs = Vec::new();
    while let Ok(m) = rx.try_recv() {
        msgs.push(m);
    }
    Ran { result, msgs, dir }
}

async fn script(replies: Vec<Reply>, window: Option<u64>) -> StandIn {
    StandIn::start(
        standin::models("stand-in", window),
        StandIn::script(replies),
    )
    .await
}

async fn simple(replies: Vec<Reply>) -> (StandIn, Ran) {
    let s = script(replies, Some(4096)).await;
    let dir = tempfile::tempdir().unwrap();
    let run = local_run(endpoint(&s.base_url), &dir, vec![]);
    let ran = go(run, dir, Arc::default()).await;
    (s, ran)
}

#[tokio::test]
async fn an_answer_streams_by_paragraph_with_the_servers_usage_and_window() {
    let (s, ran) = simple(vec![Reply::Stream(standin::text(
        "Hello there.\n\nSecond part.",
        Some((50, 5)),
    ))])
    .await;
    assert_eq!(
        ran.events(),
        vec![
            TurnEvent::Session {
                session_id: "l-1".into(),
                model: Some("stand-in".into())
            },
            TurnEvent::Text {
                text: "Hello there.".into()
            },
            TurnEvent::Text {
                text: "Second part.".into()
            },
            TurnEvent::Usage { tokens: 55 },
            TurnEvent::End {
                status: TurnStatus::Completed,
                error: None
            },
        ]
    );
    assert_eq!(
        ran.result.outcome.context,
        Some(ContextUsage {
            tokens: 55,
            window: 4096
        })
    );
    assert_eq!(
        ran.result.messages,
        vec![
            json!({"role": "user", "content": "the prompt"}),
            json!({"role": "assistant", "content": "Hello there.\n\nSecond part."}),
        ]
    );
    assert!(ran.notes().is_empty(), "{:?}", ran.notes());
    let req = &s.requests()[0];
    assert_eq!(req["stream"], true);
    assert_eq!(req["stream_options"], json!({"include_usage": true}));
    assert_eq!(req["model"], "stand-in");
    assert_eq!(standin::system_of(req), "house rules\n\nstanding text");
    let tools: Vec<&str> = req["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        tools,
        [
            "read_file",
            "list_dir",
            "search",
            "write_file",
            "edit_file",
            "run_command"
        ]
    );
    // Every data line is kept raw for the turn file.
    let raw = ran
        .msgs
        .iter()
        .filter(|m| matches!(m, RunMsg::Raw(_)))
        .count();
    assert_eq!(
        raw,
        standin::text("Hello there.\n\nSecond part.", Some((1, 1))).len() + 1
    );
}

#[tokio::test]
async fn a_tool_call_runs_fenced_and_its_result_goes_back() {
    let (s, ran) = simple(vec![
        Reply::Stream(standin::tool_call(
            "c1",
            "write_file",
            json!({"path": "notes/a.txt", "content": "hi"}),
        )),
        Reply::Stream(standin::text("Wrote it.", None)),
    ])
    .await;
    assert_eq!(ran.status(), (Some(TurnStatus::Completed), None));
    assert_eq!(
        std::fs::read_to_string(ran.dir.path().join("notes/a.txt")).unwrap(),
        "hi"
    );
    assert!(ran
        .events()
        .contains(&TurnEvent::tool("write_file", "Write notes/a.txt".into())));
    let second = &s.requests()[1];
    assert_eq!(
        standin::last_of(second),
        json!({"role": "tool", "tool_call_id": "c1", "content": "wrote 2 bytes to notes/a.txt"})
    );
    assert_eq!(ran.result.messages.len(), 4);
    assert_eq!(ran.result.messages[1]["tool_calls"][0]["id"], "c1");
    // The last call reported no usage: the context is an estimate, and the notes say so.
    let notes = ran.notes();
    assert!(notes.iter().any(|n| n.contains("estimated")), "{notes:?}");
    let est = ran.result.outcome.context.unwrap();
    assert!(est.tokens > 100 && est.window == 4096, "{est:?}");
}

#[tokio::test]
async fn a_server_without_tools_still_chats() {
    let (s, ran) = simple(vec![
        Reply::Status(
            400,
            json!({"error": {"message": "this model does not support tools"}}).to_string(),
        ),
        Reply::Stream(standin::text("Plain chat.", Some((10, 2)))),
    ])
    .await;
    assert_eq!(ran.status(), (Some(TurnStatus::Completed), None));
    assert!(s.requests()[0].get("tools").is_some());
    assert!(s.requests()[1].get("tools").is_none());
    assert_eq!(ran.warnings().len(), 1);
}

#[tokio::test]
async fn temporary_errors_are_retried_with_backoff_and_shown() {
    let (s, ran) = simple(vec![
        Reply::Status(503, "{\"error\": \"loading model\"}".into()),
        Reply::Cut(vec![]),
        Reply::Stream(standin::text("Finally.", Some((10, 2)))),
    ])
    .await;
    assert_eq!(ran.status(), (Some(TurnStatus::Completed), None));
    let w = ran.warnings();
    assert_eq!(w.len(), 2, "{w:?}");
    assert!(
        w[0].contains("503") && w[0].contains("attempt 2 of 3"),
        "{w:?}"
    );
    assert!(w[1].contains("attempt 3 of 3"), "{w:?}");
    assert_eq!(s.requests().len(), 3);
}

#[tokio::test]
async fn retries_are_bounded() {
    let (_s, ran) = simple(vec![Reply::Status(500, "{}".into()); 5]).await;
    let (status, error) = ran.status();
    assert_eq!(status, Some(TurnStatus::Failed));
    assert!(error.unwrap().contains("gave up after 3 tries"));
    assert_eq!(ran.warnings().len(), 2);
    // Nothing of the conversation is lost: the prompt is kept.
    assert_eq!(
        ran.result.messages,
        vec![json!({"role": "user", "content": "the prompt"})]
    );
}

#[tokio::test]
async fn a_client_error_fails_at_once_and_says_what_to_check() {
    let (s, ran) = simple(vec![Reply::Status(
        404,
        "{\"error\": {\"message\": \"no such model\"}}".into(),
    )])
    .await;
    let (status, error) = ran.status();
    assert_eq!(status, Some(TurnStatus::Failed));
    let error = error.unwrap();
    assert!(
        error.contains("404") && error.contains("no such model") && error.contains("base_url"),
        "{error}"
    );
    assert_eq!(s.requests().len(), 1);
}

#[tokio::test]
async fn connection_refused_is_retried_then_fails_clearly() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let dir = tempfile::tempdir().unwrap();
    let mut ep = endpoint(&format!("http://127.0.0.1:{port}/v1"));
    ep.context_window = Some(4096);
    let ran = go(local_run(ep, &dir, vec![]), dir, Arc::default()).await;
    let (status, error) = ran.status();
    assert_eq!(status, Some(TurnStatus::Failed));
    let error = error.unwrap();
    assert!(
        error.contains("cannot connect") && error.contains("is the server running"),
        "{error}"
    );
    assert_eq!(ran.warnings().len(), 2);
}

#[tokio::test]
async fn a_stream_cut_mid_answer_fails_and_keeps_the_partial_answer() {
    let mut chunks = standin::text("A partial answer that never", None);
    chunks.truncate(4);
    let (_s, ran) = simple(vec![Reply::Cut(chunks)]).await;
    let (status, error) = ran.status();
    assert_eq!(status, Some(TurnStatus::Failed));
    assert!(error.unwrap().contains("the partial answer is kept"));
    assert_eq!(
        ran.result.messages[1],
        json!({"role": "assistant", "content": "A partial answe"})
    );
    assert!(ran.events().contains(&TurnEvent::Text {
        text: "A partial answe".into()
    }));
}

#[tokio::test]
async fn malformed_sse_fails_the_turn() {
    let mut chunks = standin::text("Fine so far", None);
    chunks.truncate(2);
    chunks.push("{\"choices\": [oops".into());
    let (_s, ran) = simple(vec![Reply::Stream(chunks)]).await;
    let (status, error) = ran.status();
    assert_eq!(status, Some(TurnStatus::Failed));
    assert!(error.unwrap().contains("malformed stream"));
    assert_eq!(ran.result.messages[1]["content"], "Fine ");
}

#[tokio::test]
async fn a_stalled_server_times_out_with_the_partial_answer() {
    let mut chunks = standin::text("Thinking hard", None);
    chunks.truncate(3);
    let s = script(vec![Reply::Stall(chunks)], Some(4096)).await;
    let dir = tempfile::tempdir().unwrap();
    let mut ep = endpoint(&s.base_url);
    ep.stall = Duration::from_secs(1);
    let started = Instant::now();
    let ran = go(local_run(ep, &dir, vec![]), dir, Arc::default()).await;
    let (status, error) = ran.status();
    assert_eq!(status, Some(TurnStatus::Failed));
    assert!(error.unwrap().contains("stalled"));
    assert_eq!(ran.result.messages[1]["content"], "Thinking h");
    assert!(started.elapsed() < Duration::from_secs(10));
}

#[tokio::test]
async fn interrupt_drops_the_stream_mid_answer() {
    let text = "word ".repeat(200);
    let s = script(
        vec![Reply::Slow(
            standin::text(&text, None),
            Duration::from_millis(20),
        )],
        Some(4096),
    )
    .await;
    let dir = tempfile::tempdir().unwrap();
    let run = local_run(endpoint(&s.base_url), &dir, vec![]);
    let flag = Arc::new(AtomicBool::new(false));
    let setter = {
        let flag = flag.clone();
        async move {
            tokio::time::sleep(Duration::from_millis(300)).await;
            flag.store(true, Ordering::SeqCst);
        }
    };
    let started = Instant::now();
    let (ran, ()) = tokio::join!(go(run, dir, flag), setter);
    assert_eq!(ran.status(), (Some(TurnStatus::Interrupted), None));
    let kept = ran.result.messages[1]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(!kept.is_empty() && kept.len() < text.len(), "{kept}");
    assert!(started.elapsed() < Duration::from_secs(3));
}

/// `n` earlier turns, each a short question and a long answer.
fn long_turns(n: usize) -> Vec<Vec<Value>> {
    (1..=n)
        .map(|i| {
            vec![
                json!({"role": "user", "content": format!("question {i}")}),
                json!({"role": "assistant", "content": "x".repeat(1200)}),
            ]
        })
        .collect()
}

#[tokio::test]
async fn old_whole_turns_are_left_out_when_the_window_is_small() {
    let s = script(
        vec![Reply::Stream(standin::text("ok", Some((10, 1))))],
        None,
    )
    .await;
    let dir = tempfile::tempdir().unwrap();
    let mut ep = endpoint(&s.base_url);
    ep.context_window = Some(3000);
    let history = long_turns(8);
    let ran = go(local_run(ep, &dir, history), dir, Arc::default()).await;
    assert_eq!(ran.status(), (Some(TurnStatus::Completed), None));
    let req = &s.requests()[0];
    let msgs = req["messages"].as_array().unwrap();
    let kept_turns = (msgs.len() - 2) / 2;
    assert!((1..8).contains(&kept_turns), "{kept_turns}");
    // Whole turns, the newest ones, right before the prompt.
    assert_eq!(
        msgs[1]["content"],
        format!("question {}", 8 - kept_turns + 1)
    );
    assert_eq!(msgs[msgs.len() - 1]["content"], "the prompt");
    let notes = ran.notes();
    assert_eq!(
        notes,
        vec![format!(
            "{} of 8 earlier turns left out of the request to fit the 3000-token window (oldest first, whole turns)",
            8 - kept_turns
        )]
    );
}

#[tokio::test]
async fn the_servers_count_of_a_trimmed_request_is_compared_with_the_same_request() {
    // The previous turn sent only its 3 newest earlier turns, and the server counted twice
    // baton's estimate of that request: the next request must leave out as much as a scale
    // of 200% asks, not be misled by the 5 turns the count never covered.
    let history = long_turns(8);
    let system = json!({"role": "system", "content": "house rules\n\nstanding text"});
    let sent: u64 = history::estimate(&system)
        + history::estimate(&tools::specs())
        + history[5..]
            .iter()
            .flatten()
            .map(history::estimate)
            .sum::<u64>();
    let kept = |last_context: Option<(u64, usize)>| {
        let history = history.clone();
        async move {
            let s = script(
                vec![Reply::Stream(standin::text("ok", Some((10, 1))))],
                None,
            )
            .await;
            let dir = tempfile::tempdir().unwrap();
            let mut ep = endpoint(&s.base_url);
            ep.context_window = Some(6000);
            let mut run = local_run(ep, &dir, history);
            run.last_context = last_context;
            let ran = go(run, dir, Arc::default()).await;
            assert_eq!(ran.status(), (Some(TurnStatus::Completed), None));
            let msgs = s.requests()[0]["messages"].as_array().unwrap().len();
            (msgs - 2) / 2
        }
    };
    let plain = kept(None).await;
    let scaled = kept(Some((2 * sent, 5))).await;
    let budget = 6000 - history::answer_room(6000);
    let want = (0..=8usize)
        .rev()
        .find(|&k| {
            let estimate = history::estimate(&system)
                + history::estimate(&tools::specs())
                + history[8 - k..]
                    .iter()
                    .flatten()
                    .map(history::estimate)
                    .sum::<u64>()
                + history::estimate(&json!({"role": "user", "content": "the prompt"}));
            estimate * 2 <= budget
        })
        .unwrap();
    assert!(
        scaled < plain,
        "kept {scaled} with the count, {plain} without"
    );
    assert!(
        scaled.abs_diff(want) <= 1,
        "kept {scaled}, about {want} fit at 200%"
    );
}

#[tokio::test]
async fn the_window_comes_from_the_server_else_a_stated_default() {
    let s = script(vec![], Some(32768)).await;
    let dir = tempfile::tempdir().unwrap();
    let mut ep = endpoint(&s.base_url);
    ep.model = None;
    let ran = go(local_run(ep, &dir, vec![]), dir, Arc::default()).await;
    assert_eq!(ran.result.outcome.context.map(|c| c.window), Some(32768));
    assert_eq!(ran.result.outcome.model.as_deref(), Some("stand-in"));
    assert_eq!(s.requests()[0]["model"], "stand-in");

    let s = script(vec![], None).await;
    let dir = tempfile::tempdir().unwrap();
    let ran = go(
        local_run(endpoint(&s.base_url), &dir, vec![]),
        dir,
        Arc::default(),
    )
    .await;
    assert_eq!(
        ran.result.outcome.context.map(|c| c.window),
        Some(history::DEFAULT_WINDOW)
    );
    assert!(
        ran.notes()[0].contains("assuming 8192 tokens"),
        "{:?}",
        ran.notes()
    );
}

#[test]
fn the_api_key_is_read_from_the_variable_named() {
    let cfg = crate::config::EndpointConfig {
        base_url: "http://127.0.0.1:1/v1".into(),
        api_key_env: Some("KEY_VAR".into()),
        ..Default::default()
    };
    let ep =
        Endpoint::from_config("e", &cfg, |v| (v == "KEY_VAR").then(|| "k".to_string())).unwrap();
    assert_eq!(ep.api_key.as_deref(), Some("k"));
    assert_eq!(
        Endpoint::from_config("e", &cfg, |_| None).unwrap_err().to_string(),
        "KEY_VAR is not set in the baton server's environment (providers.local.endpoints.e.api_key_env names it): set it and restart the server with `baton server stop`"
    );
}
