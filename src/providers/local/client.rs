//! Talking to an OpenAI-compatible server (reqwest): the model list (for the window), and one
//! streamed Chat Completions request read chunk by chunk, with a stall timeout, interrupt
//! between chunks, and the failure sorted into temporary (retried) or not.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::sync::mpsc::Sender;

use super::sse::{Answer, Line, StreamError};
use super::Endpoint;
use crate::providers::RunMsg;
use crate::words::TurnEvent;

/// Why a request did not give a whole answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// Worth another try (connection refused, 429, 5xx, a stall or cut before any answer).
    Temporary(String),
    /// The server refused the tool definitions (400 saying so): ask again without them.
    NoTools(String),
    /// The request is longer than the server's context (a 400 saying so): leave more earlier
    /// turns out and ask again. llama.cpp also says how many tokens it counted and its context.
    TooLong {
        why: String,
        counted: Option<u64>,
        window: Option<u64>,
    },
    /// Fails the turn.
    Fatal(String),
    /// The user interrupted.
    Interrupted,
}

/// Why the server could not be asked, or what it answered could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("cannot set up the HTTP client: {0}")]
    Setup(reqwest::Error),
    #[error("cannot connect to {base_url} (endpoint {name}): is the server running? ({cause})")]
    Connect {
        base_url: String,
        name: String,
        cause: String,
    },
    #[error("{base_url} did not answer within {secs}s")]
    Timeout { base_url: String, secs: u64 },
    #[error("talking to {base_url} failed: {cause}")]
    Talk { base_url: String, cause: String },
    #[error("{url} answered {status}")]
    Status {
        url: String,
        status: reqwest::StatusCode,
    },
    #[error("{url} is not JSON: {source}")]
    NotJson { url: String, source: reqwest::Error },
}

/// How often an interrupt is looked for while waiting on the server.
const POLL: Duration = Duration::from_millis(50);

pub fn http() -> Result<reqwest::Client, ClientError> {
    reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(10))
        .build()
        .map_err(ClientError::Setup)
}

fn url(ep: &Endpoint, path: &str) -> String {
    format!("{}/{path}", ep.base_url.trim_end_matches('/'))
}

fn authorized(ep: &Endpoint, req: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
    match &ep.api_key {
        Some(key) => req.bearer_auth(key),
        None => req,
    }
}

/// `GET /models`, for the model to use and its window.
pub async fn models(http: &reqwest::Client, ep: &Endpoint) -> Result<Value, ClientError> {
    let req = authorized(ep, http.get(url(ep, "models"))).timeout(ep.stall);
    let resp = req.send().await.map_err(|e| describe(ep, &e))?;
    if !resp.status().is_success() {
        return Err(ClientError::Status {
            url: url(ep, "models"),
            status: resp.status(),
        });
    }
    resp.json().await.map_err(|source| ClientError::NotJson {
        url: url(ep, "models"),
        source,
    })
}

/// The first model a `/models` answer lists.
pub fn first_model(models: &Value) -> Option<String> {
    models
        .pointer("/data/0/id")
        .and_then(Value::as_str)
        .map(str::to_string)
}

/// The window a `/models` answer gives for `model` (vLLM `max_model_len`, LM Studio /
/// OpenRouter `context_length`, llama.cpp `meta.n_ctx`). llama.cpp's `meta.n_ctx_train` (what
/// the model was trained on) is the last resort: the server's own context (`-c`) is often
/// smaller, and a request past it is refused.
pub fn window_of(models: &Value, model: &str) -> Option<u64> {
    let list = models.get("data")?.as_array()?;
    let entry = list
        .iter()
        .find(|m| m.get("id").and_then(Value::as_str) == Some(model))
        .or(if list.len() == 1 { list.first() } else { None })?;
    [
        "/max_model_len",
        "/context_length",
        "/context_window",
        "/meta/n_ctx",
        "/meta/n_ctx_train",
    ]
    .iter()
    .find_map(|p| entry.pointer(p).and_then(Value::as_u64))
    .filter(|w| *w > 0)
}

fn describe(ep: &Endpoint, e: &reqwest::Error) -> ClientError {
    let base_url = ep.base_url.clone();
    if e.is_connect() {
        ClientError::Connect {
            base_url,
            name: ep.name.clone(),
            cause: root_cause(e),
        }
    } else if e.is_timeout() {
        ClientError::Timeout {
            base_url,
            secs: ep.stall.as_secs(),
        }
    } else {
        ClientError::Talk {
            base_url,
            cause: root_cause(e),
        }
    }
}

fn root_cause(e: &(dyn std::error::Error + 'static)) -> String {
    let mut cur = e;
    while let Some(next) = cur.source() {
        cur = next;
    }
    cur.to_string()
}

/// Waits until `flag` is set.
pub async fn interrupt_of(flag: &AtomicBool) {
    while !flag.load(Ordering::SeqCst) {
        tokio::time::sleep(POLL).await;
    }
}

/// Sends one streamed request and reads it to its end into `answer`, sending each `data:`
/// payload as [`RunMsg::Raw`] and each finished paragraph as a text event. What was read stays
/// in `answer` whatever happens.
pub async fn stream(
    http: &reqwest::Client,
    ep: &Endpoint,
    body: &Value,
    answer: &mut Answer,
    interrupted: &Arc<AtomicBool>,
    tx: &Sender<RunMsg>,
) -> Result<(), Failure> {
    let send = authorized(ep, http.post(url(ep, "chat/completions")))
        .json(body)
        .send();
    let resp = tokio::select! {
        r = tokio::time::timeout(ep.stall, send) => match r {
            Ok(Ok(resp)) => resp,
            Ok(Err(e)) => return Err(Failure::Temporary(describe(ep, &e).to_string())),
            Err(_) => return Err(Failure::Temporary(format!(
                "{} sent no answer within {}s", ep.base_url, ep.stall.as_secs()
            ))),
        },
        () = interrupt_of(interrupted) => return Err(Failure::Interrupted),
    };
    let status = resp.status();
    if !status.is_success() {
        let text = resp.text().await.unwrap_or_default();
        return Err(refusal(ep, status, &text, body.get("tools").is_some()));
    }
    let mut resp = resp;
    loop {
        let chunk = tokio::select! {
            c = tokio::time::timeout(ep.stall, resp.chunk()) => c,
            () = interrupt_of(interrupted) => return Err(Failure::Interrupted),
        };
        let bytes = match chunk {
            Ok(Ok(Some(bytes))) => bytes,
            Ok(Ok(None)) => break,
            Ok(Err(e)) => {
                return Err(cut(
                    answer,
                    &format!("the stream was cut: {}", root_cause(&e)),
                ))
            }
            Err(_) => {
                return Err(cut(
                    answer,
                    &format!("the server stalled: nothing for {}s", ep.stall.as_secs()),
                ))
            }
        };
        let lines = answer.feed(&bytes).map_err(|e| match e {
            StreamError::Malformed(m) => {
                Failure::Fatal(format!("the server sent a malformed stream: {m}"))
            }
            StreamError::Server(m) => {
                Failure::Fatal(format!("the server reported an error mid-stream: {m}"))
            }
        })?;
        for (data, line) in lines {
            // A receiver that went away does not stop the turn.
            let _ = tx.send(RunMsg::Raw(data)).await;
            if let Line::Text(pieces) = line {
                for text in pieces {
                    let _ = tx.send(RunMsg::Event(TurnEvent::Text { text })).await;
                }
            }
        }
        if answer.done {
            return Ok(());
        }
    }
    if answer.finish_reason.is_some() {
        Ok(()) // some servers end without `[DONE]`
    } else {
        Err(cut(answer, "the stream ended before the answer did"))
    }
}

/// A cut or stall: temporary while nothing was received, else the turn fails on the partial.
fn cut(answer: &Answer, what: &str) -> Failure {
    if answer.content.is_empty() && answer.tool_calls.is_empty() {
        Failure::Temporary(what.to_string())
    } else {
        Failure::Fatal(format!("{what} (the partial answer is kept)"))
    }
}

/// True when an error answer says the request is longer than the context: llama.cpp
/// (`exceed_context_size_error`), OpenAI (`context_length_exceeded`), vLLM and others by their
/// words.
fn too_long(error: Option<&Value>, detail: &str) -> bool {
    let field = |k: &str| error.and_then(|e| e.get(k)).and_then(Value::as_str);
    let lower = detail.to_lowercase();
    field("type") == Some("exceed_context_size_error")
        || field("code") == Some("context_length_exceeded")
        || lower.contains("exceeds the available context size")
        || lower.contains("maximum context length")
        || lower.contains("context length exceeded")
}

fn refusal(ep: &Endpoint, status: reqwest::StatusCode, body: &str, had_tools: bool) -> Failure {
    let parsed = serde_json::from_str::<Value>(body).ok();
    let error = parsed.as_ref().and_then(|v| v.get("error"));
    let detail: String = parsed
        .as_ref()
        .and_then(|v| {
            v.pointer("/error/message")
                .or_else(|| v.get("error"))
                .or_else(|| v.get("message"))
                .map(|m| m.as_str().map_or_else(|| m.to_string(), str::to_string))
        })
        .unwrap_or_else(|| body.trim().chars().take(300).collect());
    let code = status.as_u16();
    let what = format!("{} answered {status}: {detail}", ep.base_url);
    let lower = detail.to_lowercase();
    if code == 429 || code == 408 || status.is_server_error() {
        Failure::Temporary(what)
    } else if (code == 400 || code == 413) && too_long(error, &detail) {
        let number = |k: &str| error.and_then(|e| e.get(k)).and_then(Value::as_u64);
        Failure::TooLong {
            why: what,
            counted: number("n_prompt_tokens"),
            window: number("n_ctx"),
        }
    } else if had_tools && code == 400 && (lower.contains("tool") || lower.contains("function")) {
        Failure::NoTools(what)
    } else if code == 401 || code == 403 {
        Failure::Fatal(format!(
            "{what} (check the key: set api_key_env in [providers.local.endpoints.{}])",
            ep.name
        ))
    } else if code == 404 {
        Failure::Fatal(format!(
            "{what} (check base_url, which ends with the API version like /v1, and model in [providers.local.endpoints.{}])",
            ep.name
        ))
    } else {
        Failure::Fatal(what)
    }
}

#[cfg(test)]
#[path = "client_tests.rs"]
mod tests;
