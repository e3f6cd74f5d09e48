//! A stand-in OpenAI-compatible server for tests: tokio on 127.0.0.1:0, speaking just enough
//! HTTP/1.1 and Chat Completions SSE (text, tool calls, usage) to play a model, and able to
//! fail every way a real one does (refuse, 4xx/5xx, cut the stream, send garbage, stall).
//! Shared by the unit tests (`src/providers/local`) and the end-to-end tests (`tests/suite/local.rs`
//! includes this file), so it lives in src: nothing in src depends on tests/.
#![allow(dead_code)]

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// How the stand-in answers one chat request.
#[derive(Debug, Clone)]
pub enum Reply {
    /// These `data:` payloads, then `[DONE]`.
    Stream(Vec<String>),
    /// These payloads with a pause before each, then `[DONE]`.
    Slow(Vec<String>, Duration),
    /// These payloads, then the connection drops mid-body.
    Cut(Vec<String>),
    /// These payloads, then nothing more for a long time.
    Stall(Vec<String>),
    /// A plain HTTP answer with this status and JSON body.
    Status(u16, String),
}

type Brain = Arc<dyn Fn(&Value) -> Reply + Send + Sync>;

pub struct StandIn {
    /// `http://127.0.0.1:PORT/v1`, for `base_url`.
    pub base_url: String,
    requests: Arc<Mutex<Vec<Value>>>,
    /// Set when the stand-in runs on its own runtime (synchronous tests).
    runtime: Option<tokio::runtime::Runtime>,
}

impl StandIn {
    /// Starts on the current tokio runtime. `models` is the `/v1/models` answer; `brain`
    /// answers each chat request (its JSON body).
    pub async fn start(
        models: Value,
        brain: impl Fn(&Value) -> Reply + Send + Sync + 'static,
    ) -> StandIn {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let requests = Arc::new(Mutex::new(Vec::new()));
        tokio::spawn(serve(listener, models, Arc::new(brain), requests.clone()));
        StandIn {
            base_url: format!("http://127.0.0.1:{port}/v1"),
            requests,
            runtime: None,
        }
    }

    /// Starts on a runtime of its own, for tests that are not async.
    pub fn background(
        models: Value,
        brain: impl Fn(&Value) -> Reply + Send + Sync + 'static,
    ) -> StandIn {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let mut s = rt.block_on(StandIn::start(models, brain));
        s.runtime = Some(rt);
        s
    }

    /// Answers requests with `replies` in order, then with a plain "done." text.
    pub fn script(replies: Vec<Reply>) -> impl Fn(&Value) -> Reply + Send + Sync + 'static {
        let queue = Mutex::new(VecDeque::from(replies));
        move |_| {
            queue
                .lock()
                .unwrap()
                .pop_front()
                .unwrap_or_else(|| Reply::Stream(text("done.", Some((10, 2)))))
        }
    }

    /// The chat request bodies received so far.
    pub fn requests(&self) -> Vec<Value> {
        self.requests.lock().unwrap().clone()
    }
}

/// `/v1/models` listing one model with a window in vLLM's field.
pub fn models(id: &str, window: Option<u64>) -> Value {
    match window {
        Some(w) => {
            json!({"object": "list", "data": [{"id": id, "object": "model", "max_model_len": w}]})
        }
        None => json!({"object": "list", "data": [{"id": id, "object": "model"}]}),
    }
}

fn chunk(delta: Value, finish: Option<&str>) -> String {
    json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "stand-in",
           "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    .to_string()
}

fn usage(prompt: u64, completion: u64) -> String {
    json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "stand-in", "choices": [],
           "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}})
    .to_string()
}

/// An answer streamed a few characters at a time, with usage when given.
pub fn text(answer: &str, tokens: Option<(u64, u64)>) -> Vec<String> {
    let mut out = vec![chunk(json!({"role": "assistant", "content": ""}), None)];
    let chars: Vec<char> = answer.chars().collect();
    for piece in chars.chunks(5) {
        out.push(chunk(
            json!({"content": piece.iter().collect::<String>()}),
            None,
        ));
    }
    out.push(chunk(json!({}), Some("stop")));
    if let Some((p, c)) = tokens {
        out.push(usage(p, c));
    }
    out
}

/// A call of `name` with `args`, the arguments split over two chunks.
pub fn tool_call(id: &str, name: &str, args: Value) -> Vec<String> {
    let args = args.to_string();
    let (a, b) = args.split_at(args.len() / 2);
    vec![
        chunk(
            json!({"role": "assistant", "content": null, "tool_calls": [{"index": 0, "id": id, "type": "function", "function": {"name": name, "arguments": a}}]}),
            None,
        ),
        chunk(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": b}}]}),
            None,
        ),
        chunk(json!({}), Some("tool_calls")),
        usage(100, 20),
    ]
}

/// The system message and the last message of a chat request.
pub fn system_of(req: &Value) -> String {
    req.pointer("/messages/0/content")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

pub fn last_of(req: &Value) -> Value {
    req["messages"]
        .as_array()
        .and_then(|m| m.last().cloned())
        .unwrap_or(Value::Null)
}

async fn serve(
    listener: TcpListener,
    models: Value,
    brain: Brain,
    requests: Arc<Mutex<Vec<Value>>>,
) {
    while let Ok((sock, _)) = listener.accept().await {
        let (models, brain, requests) = (models.clone(), brain.clone(), requests.clone());
        tokio::spawn(async move {
            let _ = answer(sock, models, brain, requests).await;
        });
    }
}

async fn answer(
    mut sock: TcpStream,
    models: Value,
    brain: Brain,
    requests: Arc<Mutex<Vec<Value>>>,
) -> std::io::Result<()> {
    let mut buf = Vec::new();
    let mut tmp = [0u8; 8192];
    let head_end = loop {
        let n = sock.read(&mut tmp).await?;
        if n == 0 {
            return Ok(());
        }
        buf.extend_from_slice(&tmp[..n]);
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
    let len: usize = head
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("content-length")
                .then(|| v.trim().parse().ok())?
        })
        .unwrap_or(0);
    while buf.len() < head_end + len {
        let n = sock.read(&mut tmp).await?;
        if n == 0 {
            break;
        }
        buf.extend_from_slice(&tmp[..n]);
    }
    let request_line = head.lines().next().unwrap_or_default().to_string();
    if request_line.starts_with("GET ") && request_line.contains("/models") {
        return plain(&mut sock, 200, &models.to_string()).await;
    }
    let body: Value = serde_json::from_slice(&buf[head_end..]).unwrap_or(Value::Null);
    requests.lock().unwrap().push(body.clone());
    match brain(&body) {
        Reply::Status(code, text) => plain(&mut sock, code, &text).await,
        Reply::Stream(data) => sse(&mut sock, &data, Duration::ZERO, true).await,
        Reply::Slow(data, pause) => sse(&mut sock, &data, pause, true).await,
        Reply::Cut(data) => sse(&mut sock, &data, Duration::ZERO, false).await,
        Reply::Stall(data) => {
            sse_head(&mut sock).await?;
            for d in &data {
                sse_chunk(&mut sock, &format!("data: {d}\n\n")).await?;
            }
            tokio::time::sleep(Duration::from_secs(300)).await;
            Ok(())
        }
    }
}

async fn plain(sock: &mut TcpStream, code: u16, body: &str) -> std::io::Result<()> {
    let head = format!(
        "HTTP/1.1 {code} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    sock.write_all(head.as_bytes()).await?;
    sock.write_all(body.as_bytes()).await?;
    sock.shutdown().await
}

async fn sse_head(sock: &mut TcpStream) -> std::io::Result<()> {
    sock.write_all(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n").await
}

async fn sse_chunk(sock: &mut TcpStream, text: &str) -> std::io::Result<()> {
    sock.write_all(format!("{:x}\r\n{text}\r\n", text.len()).as_bytes())
        .await?;
    sock.flush().await
}

async fn sse(
    sock: &mut TcpStream,
    data: &[String],
    pause: Duration,
    finish: bool,
) -> std::io::Result<()> {
    sse_head(sock).await?;
    for d in data {
        if !pause.is_zero() {
            tokio::time::sleep(pause).await;
        }
        sse_chunk(sock, &format!("data: {d}\n\n")).await?;
    }
    if finish {
        sse_chunk(sock, "data: [DONE]\n\n").await?;
        sock.write_all(b"0\r\n\r\n").await?;
    }
    // Dropping the socket without the last chunk is the cut.
    sock.shutdown().await
}
