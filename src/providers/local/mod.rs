//! The `local` provider: an OpenAI-compatible Chat Completions endpoint that baton drives with
//! its own conversation loop. A run sends the system message (house rules and the terminal's
//! current standing text), the conversation's earlier turns that fit the window, and the
//! prompt; streams the answer; runs the tools the model calls (fenced to the checkout); and asks
//! again until the model answers without tools. The messages it adds are handed back for the
//! journal, so the next run can send them again.

pub mod client;
pub mod fence;
pub mod history;
pub mod provider;
pub mod sse;
pub mod tools;

#[cfg(test)]
pub(crate) mod standin;
#[cfg(test)]
#[path = "mod_tests.rs"]
mod tests;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::sync::mpsc::Sender;

use self::client::Failure;
use self::sse::{Answer, Line};
use super::{RunMsg, TurnOutcome};
use crate::config::EndpointConfig;
use crate::words::{ContextUsage, TurnEvent, TurnStatus};

/// Model calls one turn may make before baton stops a model that keeps calling tools.
const MAX_ROUNDS: usize = 40;
/// Times one call is asked again with fewer earlier turns after the server said it was too long.
const MAX_SHRINKS: u32 = 4;

/// A configured endpoint that cannot be used as it stands.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EndpointError {
    #[error("{var} is not set in the baton server's environment (providers.local.endpoints.{name}.api_key_env names it): set it and restart the server with `baton server stop`")]
    NoKey { var: String, name: String },
}

/// The message alone: lets callers that map errors to text (`.map_err(BatonError::bad_input)`)
/// take an [`EndpointError`] unchanged.
impl From<EndpointError> for String {
    fn from(e: EndpointError) -> Self {
        e.to_string()
    }
}

/// A configured endpoint, resolved for one run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    pub name: String,
    pub base_url: String,
    pub model: Option<String>,
    pub api_key: Option<String>,
    pub context_window: Option<u64>,
    /// No byte for this long: the request stalled.
    pub stall: Duration,
    /// Temporary failures retried this many times, waiting `backoff`, doubled each time.
    pub retries: u32,
    pub backoff: Duration,
    pub command_timeout: Duration,
}

impl Endpoint {
    /// The endpoint `name` as configured; the API key is read from the variable named, now.
    pub fn from_config(
        name: &str,
        c: &EndpointConfig,
        var: impl Fn(&str) -> Option<String>,
    ) -> Result<Endpoint, EndpointError> {
        let api_key = match &c.api_key_env {
            None => None,
            Some(v) => {
                Some(
                    var(v)
                        .filter(|k| !k.is_empty())
                        .ok_or_else(|| EndpointError::NoKey {
                            var: v.clone(),
                            name: name.to_string(),
                        })?,
                )
            }
        };
        Ok(Endpoint {
            name: name.to_string(),
            base_url: c.base_url.clone(),
            model: c.model.clone(),
            api_key,
            context_window: c.context_window,
            stall: Duration::from_secs(c.stall_timeout_secs.unwrap_or(120).max(1)),
            retries: c.retries.unwrap_or(3),
            backoff: Duration::from_millis(500),
            command_timeout: Duration::from_secs(c.command_timeout_secs.unwrap_or(120).max(1)),
        })
    }
}

/// Everything one local turn needs.
#[derive(Debug, Clone)]
pub struct LocalRun {
    pub endpoint: Endpoint,
    /// The checkout: working directory of commands and the fence of every tool.
    pub cwd: PathBuf,
    /// House rules and the terminal's current standing text.
    pub system_text: String,
    /// The conversation's earlier turns, oldest first, each whole (user prompt first).
    pub history: Vec<Vec<Value>>,
    pub prompt: String,
    /// baton's own id for this stretch of local turns (there is no server-side session).
    pub session_id: String,
    /// The context the server counted at the end of the previous turn, when it ran on `local`,
    /// and how many of the earliest turns of `history` that turn's request left out: sets the
    /// first scale of estimates (see [`history::scale_from`]).
    pub last_context: Option<(u64, usize)>,
}

/// How a local turn ended, and the messages it adds to the conversation (kept even when it
/// failed or was interrupted: the prompt and whatever was answered).
#[derive(Debug, Clone, PartialEq)]
pub struct LocalResult {
    pub outcome: TurnOutcome,
    pub messages: Vec<Value>,
    /// Earlier turns the last request left out to fit the window.
    pub left_out: usize,
}

/// The state of one local turn.
struct Turn<'a> {
    run: &'a LocalRun,
    http: reqwest::Client,
    tx: Sender<RunMsg>,
    interrupted: Arc<AtomicBool>,
    model: Option<String>,
    window: u64,
    current: Vec<Value>,
    tools: bool,
    left_out: usize,
    context: Option<ContextUsage>,
    estimated: bool,
    /// Tokens the server counts for 100 estimated ones (see [`history::scale_from`]): learnt
    /// from each call's usage and from a "too long" refusal.
    scale: u64,
}

/// Runs one local turn, streaming [`RunMsg`]s like a CLI run (every `data:` line as `Raw`).
/// Interrupt = set `interrupted`: the stream is dropped between chunks, a command is killed.
/// With a `gate`, the prompt's first request waits for it ([`RunMsg::Prompting`] first), after
/// the model and window are known; a gate dropped unopened sends nothing.
pub async fn run(
    run: &LocalRun,
    tx: Sender<RunMsg>,
    interrupted: Arc<AtomicBool>,
    gate: Option<tokio::sync::oneshot::Receiver<()>>,
) -> LocalResult {
    let user = json!({"role": "user", "content": run.prompt});
    let http = match client::http() {
        Ok(h) => h,
        Err(e) => return failed(vec![user], e.to_string()),
    };
    let mut t = Turn {
        run,
        http,
        tx,
        interrupted,
        model: run.endpoint.model.clone(),
        window: 0,
        current: vec![user],
        tools: true,
        left_out: 0,
        context: None,
        estimated: false,
        scale: 100,
    };
    t.resolve_model_and_window().await;
    if let Some(scale) = last_scale(run) {
        t.scale = scale;
    }
    t.event(TurnEvent::Session {
        session_id: run.session_id.clone(),
        model: t.model.clone(),
    })
    .await;
    if let Some(gate) = gate {
        let _ = t.tx.send(RunMsg::Prompting).await;
        if gate.await.is_err() {
            return failed(
                t.current,
                "the prompt was not sent: its start could not be recorded".into(),
            );
        }
    }
    let (status, error) = t.rounds().await;
    if t.estimated {
        if let Some(c) = t.context {
            t.note(format!(
                "the server reported no token usage: the context (~{} tokens) is estimated at {} characters a token",
                c.tokens,
                history::CHARS_PER_TOKEN
            ))
            .await;
        }
    }
    t.event(TurnEvent::End {
        status,
        error: error.clone(),
    })
    .await;
    LocalResult {
        outcome: TurnOutcome {
            status: Some(status),
            error,
            session_id: Some(run.session_id.clone()),
            model: t.model.clone(),
            context: t.context,
            session_not_found: false,
            answer: String::new(),
            // An endpoint's usage is its own: the context above is what baton reads of it.
            cost: None,
        },
        messages: t.current,
        left_out: t.left_out,
    }
}

/// What the server counted for the previous turn's last request against baton's estimate of
/// the same request (without the turns it left out), when it counted one.
fn last_scale(run: &LocalRun) -> Option<u64> {
    let (counted, left_out) = run.last_context?;
    let system = json!({"role": "system", "content": run.system_text});
    let estimate = history::estimate(&system)
        + history::estimate(&tools::specs())
        + run
            .history
            .iter()
            .skip(left_out)
            .flatten()
            .map(history::estimate)
            .sum::<u64>();
    Some(history::scale_from(estimate, counted))
}

fn failed(messages: Vec<Value>, error: String) -> LocalResult {
    LocalResult {
        outcome: TurnOutcome {
            status: Some(TurnStatus::Failed),
            error: Some(error),
            ..TurnOutcome::default()
        },
        messages,
        left_out: 0,
    }
}

impl Turn<'_> {
    async fn event(&self, ev: TurnEvent) {
        // A receiver that went away does not stop the turn.
        let _ = self.tx.send(RunMsg::Event(ev)).await;
    }

    async fn note(&self, message: String) {
        let _ = self.tx.send(RunMsg::Note(message)).await;
    }

    /// The model (configured, else the server's first) and window (configured, else the
    /// server's, else [`history::DEFAULT_WINDOW`]).
    async fn resolve_model_and_window(&mut self) {
        let ep = &self.run.endpoint;
        if let (Some(_), Some(w)) = (&self.model, ep.context_window) {
            self.window = w;
            return;
        }
        let listed = client::models(&self.http, ep).await;
        if let Ok(models) = &listed {
            if self.model.is_none() {
                self.model = client::first_model(models);
            }
        }
        let asked = listed
            .as_ref()
            .ok()
            .and_then(|m| client::window_of(m, self.model.as_deref().unwrap_or_default()));
        self.window = match (ep.context_window, asked) {
            (Some(w), _) | (None, Some(w)) => w,
            (None, None) => {
                let why = match &listed {
                    Ok(_) => "the server's /models does not say".to_string(),
                    Err(e) => format!("/models failed: {e}"),
                };
                self.note(format!(
                    "the context window of endpoint {} is not configured and {why}: assuming {} tokens (set context_window in [providers.local.endpoints.{}])",
                    ep.name,
                    history::DEFAULT_WINDOW,
                    ep.name
                ))
                .await;
                history::DEFAULT_WINDOW
            }
        };
    }

    /// Model calls until an answer without tool calls, a failure, or an interrupt.
    async fn rounds(&mut self) -> (TurnStatus, Option<String>) {
        for _ in 0..MAX_ROUNDS {
            if self.interrupted.load(Ordering::SeqCst) {
                return (TurnStatus::Interrupted, None);
            }
            let answer = match self.call_with_retries().await {
                Ok(a) => a,
                Err((partial, failure)) => {
                    if !partial.content.is_empty() {
                        self.current
                            .push(json!({"role": "assistant", "content": partial.content}));
                    }
                    return match failure {
                        Failure::Interrupted => (TurnStatus::Interrupted, None),
                        Failure::Temporary(m)
                        | Failure::NoTools(m)
                        | Failure::Fatal(m)
                        | Failure::TooLong { why: m, .. } => (TurnStatus::Failed, Some(m)),
                    };
                }
            };
            self.current.push(answer.message());
            if !(self.tools && answer.wants_tools()) {
                return (TurnStatus::Completed, None);
            }
            // Every call gets an answer, even after an interrupt: a stored assistant message
            // with unanswered tool calls would make the next request invalid.
            for call in answer.tool_calls.iter().filter(|c| !c.name.is_empty()) {
                let output = if self.interrupted.load(Ordering::SeqCst) {
                    "error: not run: the user interrupted the turn".to_string()
                } else {
                    self.tool(&call.name, &call.arguments).await
                };
                self.current
                    .push(json!({"role": "tool", "tool_call_id": call.id, "content": output}));
            }
        }
        (
            TurnStatus::Failed,
            Some(format!(
                "the model was still calling tools after {MAX_ROUNDS} calls: stopped (the work so far is kept)"
            )),
        )
    }

    async fn tool(&self, name: &str, arguments: &str) -> String {
        let call = match tools::Call::new(name, arguments) {
            Ok(c) => c,
            Err(e) => {
                // Shown too: the transcript has a line for every call the model made.
                let summary = format!("{name} (not run: its arguments are not JSON)");
                self.event(TurnEvent::tool(name, summary)).await;
                return format!("error: {e}");
            }
        };
        self.event(TurnEvent::tool(name, call.summary())).await;
        let fence = match fence::Fence::new(&self.run.cwd) {
            Ok(f) => f,
            Err(e) => {
                return format!(
                    "error: the checkout {} is not there: {e}",
                    self.run.cwd.display()
                )
            }
        };
        let done = tools::run(
            &call,
            &fence,
            self.run.endpoint.command_timeout,
            &self.interrupted,
        )
        .await;
        if let Some(shown) = done.shown {
            self.note(shown).await;
        }
        done.output
    }

    /// One model call, retried with backoff while the failure is temporary and nothing of the
    /// answer arrived; a server refusing tools is asked again without them.
    async fn call_with_retries(&mut self) -> Result<Answer, (Answer, Failure)> {
        let ep = self.run.endpoint.clone();
        let mut attempt = 0;
        let mut shrinks = 0;
        loop {
            let mut answer = Answer::default();
            let (body, estimate) = self.body().await;
            let result = client::stream(
                &self.http,
                &ep,
                &body,
                &mut answer,
                &self.interrupted,
                &self.tx,
            )
            .await;
            if let Line::Text(pieces) = answer.paragraphs(true) {
                for text in pieces {
                    self.event(TurnEvent::Text { text }).await;
                }
            }
            match result {
                Ok(()) => {
                    self.account(&body, estimate, &answer).await;
                    return Ok(answer);
                }
                Err(Failure::TooLong {
                    why,
                    counted,
                    window,
                }) if shrinks < MAX_SHRINKS && self.left_out < self.run.history.len() => {
                    shrinks += 1;
                    self.shrink(&why, estimate, counted, window).await;
                }
                Err(Failure::NoTools(why)) if self.tools => {
                    self.tools = false;
                    self.event(TurnEvent::Warning {
                        message: format!(
                            "{why}: the model cannot use tools here, asking again without them"
                        ),
                    })
                    .await;
                }
                Err(Failure::Temporary(why)) if attempt < ep.retries => {
                    attempt += 1;
                    if !self.wait_to_retry(&why, attempt).await {
                        return Err((answer, Failure::Interrupted));
                    }
                }
                Err(Failure::Temporary(why)) if ep.retries > 0 => {
                    return Err((
                        answer,
                        Failure::Fatal(format!("{why} (gave up after {} tries)", ep.retries + 1)),
                    ))
                }
                Err(f) => return Err((answer, f)),
            }
        }
    }

    /// After the server said the request is too long: takes the server's window when it gave a
    /// smaller one, and counts more tokens per estimated one, so the next request leaves more
    /// earlier turns out.
    async fn shrink(
        &mut self,
        why: &str,
        estimate: u64,
        counted: Option<u64>,
        window: Option<u64>,
    ) {
        let name = &self.run.endpoint.name;
        if let Some(w) = window.filter(|w| *w > 0 && *w < self.window) {
            self.note(format!(
                "the server's context is {w} tokens, not {}: using {w} for this turn (set context_window in [providers.local.endpoints.{name}])",
                self.window
            ))
            .await;
            self.window = w;
        }
        // Without the server's count, assume a quarter more than thought.
        let scale = counted.map_or(self.scale * 5 / 4, |c| history::scale_from(estimate, c));
        self.scale = scale.max(self.scale + 10);
        self.note(format!(
            "{why}: baton estimated {estimate} tokens; counting {}% of the estimate from now on and asking again with fewer earlier turns",
            self.scale
        ))
        .await;
    }

    /// Warns of retry number `attempt` and waits its backoff; false when the user interrupted.
    async fn wait_to_retry(&self, why: &str, attempt: u32) -> bool {
        let ep = &self.run.endpoint;
        let wait = ep.backoff * 2u32.saturating_pow(attempt - 1);
        self.event(TurnEvent::Warning {
            message: format!(
                "{why}; retrying in {:.1}s (attempt {} of {})",
                wait.as_secs_f64(),
                attempt + 1,
                ep.retries + 1
            ),
        })
        .await;
        tokio::select! {
            () = tokio::time::sleep(wait) => true,
            () = client::interrupt_of(&self.interrupted) => false,
        }
    }

    /// The request body, with the history trimmed to the window (noted when that changes), and
    /// its estimated size.
    async fn body(&mut self) -> (Value, u64) {
        let specs = tools::specs();
        let extra = if self.tools {
            history::estimate(&specs)
        } else {
            0
        };
        let req = history::request(
            &self.run.system_text,
            &self.run.history,
            &self.current,
            extra,
            self.window,
            self.scale,
        );
        if req.left_out != self.left_out {
            self.left_out = req.left_out;
            self.note(format!(
                "{} of {} earlier turns left out of the request to fit the {}-token window (oldest first, whole turns)",
                req.left_out,
                self.run.history.len(),
                self.window
            ))
            .await;
        }
        let mut body = json!({
            "messages": req.messages,
            "stream": true,
            "stream_options": {"include_usage": true},
        });
        if let Some(m) = &self.model {
            body["model"] = json!(m);
        }
        if self.tools {
            body["tools"] = specs;
        }
        (body, req.estimate)
    }

    /// The context after a call: the server's usage (which also sets the scale of estimates),
    /// else an estimate.
    async fn account(&mut self, body: &Value, estimate: u64, answer: &Answer) {
        if answer.model.is_some() && self.model.is_none() {
            self.model = answer.model.clone();
        }
        let tokens = match answer.usage {
            Some(u) => u.prompt + u.completion,
            None => {
                self.estimated = true;
                let sent: u64 = body["messages"]
                    .as_array()
                    .map_or(0, |m| m.iter().map(history::estimate).sum());
                let tools = body.get("tools").map_or(0, history::estimate);
                sent + tools + history::estimate(&answer.message())
            }
        };
        if let Some(u) = answer.usage {
            self.estimated = false;
            if u.prompt > 0 {
                self.scale = history::scale_from(estimate, u.prompt);
            }
        }
        self.context = Some(ContextUsage {
            tokens,
            window: self.window,
        });
        self.event(TurnEvent::Usage { tokens }).await;
    }
}
