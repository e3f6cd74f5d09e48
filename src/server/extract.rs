//! Standing instructions in the background: after each prompt, the configured extractor reads
//! the user's words and the lines it keeps join the terminal's list, never delaying the turn.
//!
//! The model-backed extractor asks the terminal's provider CLI in a run that leaves no session
//! behind (`claude -p --no-session-persistence`, `codex exec --ephemeral`); its answer goes
//! through the same verbatim gate as the local one, and when the run fails the local extractor
//! stands in. Extractions of one terminal run one at a time, and a conversation about to open
//! waits for them (bounded), so it opens with every line of the prompts before it.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use super::state::{Server, TermRuntime};
use crate::error::BatonError;
use crate::instructions::{self, Extractor, LocalExtractor};
use crate::protocol::views::ExtractedView as Extracted;
use crate::providers::{self, process};
use crate::store::Record;
use crate::words::{ProviderKind, TurnStatus};

/// How long a model-backed extraction may take before the local extractor stands in.
const MODEL_TIMEOUT: Duration = Duration::from_secs(120);
/// How long a conversation about to open waits for extractions still running.
const OPEN_WAIT: Duration = Duration::from_secs(30);

/// Candidates someone else produced (a model's answer), fed through the common pipeline.
struct Given(Vec<String>);

impl Extractor for Given {
    fn extract(&self, _prompt: &str) -> Vec<String> {
        self.0.clone()
    }
}

fn uses_model(srv: &Server) -> bool {
    srv.config.instructions.extractor.as_deref() == Some("model")
}

/// Runs the configured extractor on `prompt`.
pub async fn extract(srv: &Server, prompt: &str, provider: ProviderKind) -> Extracted {
    if instructions::is_skipped(prompt) {
        return Extracted {
            lines: vec![],
            extractor: "none (a greeting, or shorter than 12 characters)".to_string(),
        };
    }
    if uses_model(srv) {
        match model_candidates(srv, prompt, provider).await {
            Ok(candidates) => {
                return Extracted {
                    lines: instructions::extract_lines(&Given(candidates), prompt),
                    extractor: "model".to_string(),
                }
            }
            Err(why) => {
                return Extracted {
                    lines: instructions::extract_lines(&LocalExtractor::new(), prompt),
                    extractor: format!("local (model failed: {why})"),
                }
            }
        }
    }
    Extracted {
        lines: instructions::extract_lines(&LocalExtractor::new(), prompt),
        extractor: "local".to_string(),
    }
}

/// Starts the background extraction of a turn's prompt. Counted as pending at once, so a
/// conversation opened right after sees it.
pub fn spawn(
    srv: Arc<Server>,
    rt: Arc<TermRuntime>,
    tid: String,
    turn_id: String,
    prompt: String,
    provider: ProviderKind,
) {
    rt.extracting.fetch_add(1, Ordering::SeqCst);
    tokio::spawn(async move {
        let _one_at_a_time = rt.extract_lock.lock().await;
        let found = extract(&srv, &prompt, provider).await;
        if let Err(e) = keep(&srv, &rt, &tid, Some(&turn_id), &found.lines) {
            crate::log_line!(
                "baton server: could not store the instructions of turn {turn_id}: {e}"
            );
        }
        rt.extracting.fetch_sub(1, Ordering::SeqCst);
        rt.extracted.notify_waiters();
    });
}

/// Adds the lines the terminal does not have yet and keeps its forty newest.
pub fn keep(
    srv: &Server,
    rt: &TermRuntime,
    tid: &str,
    turn_id: Option<&str>,
    lines: &[String],
) -> Result<Vec<String>, BatonError> {
    let _guard = rt
        .instructions_lock
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    let existing: Vec<String> = srv
        .store
        .instructions(tid)?
        .into_iter()
        .map(|i| i.text)
        .collect();
    let merged = instructions::merge(&existing, lines);
    for text in &merged.added {
        srv.store.append(
            tid,
            Record::InstructionAdded {
                text: text.clone(),
                turn_id: turn_id.map(str::to_string),
            },
        )?;
    }
    for text in &merged.dropped {
        srv.store
            .append(tid, Record::InstructionRemoved { text: text.clone() })?;
    }
    if !merged.added.is_empty() {
        srv.announce(tid);
    }
    Ok(merged.added)
}

/// Waits (bounded) until no extraction of this terminal is running.
pub async fn settle(rt: &TermRuntime) {
    let wait = async {
        loop {
            let notified = rt.extracted.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if rt.extracting.load(Ordering::SeqCst) == 0 {
                return;
            }
            notified.await;
        }
    };
    let _ = tokio::time::timeout(OPEN_WAIT, wait).await;
}

/// Asks the provider CLI for the lasting lines, in a run that keeps no session.
async fn model_candidates(
    srv: &Server,
    prompt: &str,
    provider: ProviderKind,
) -> Result<Vec<String>, BatonError> {
    let p = providers::of(provider);
    let model = p.settings(&srv.config).model.as_deref();
    let (Some(args), Some(mut parser)) = (p.oneshot_args(model), p.parser(None)) else {
        return Err(BatonError::failed(format!(
            "a {provider} endpoint has no extraction run"
        )));
    };
    let bin = srv.resolve_bin(provider)?;
    let cwd = srv.data_root().to_path_buf();
    let request = instructions::model::request(prompt).into_bytes();
    let mut child = process::spawn(&bin, &args, &cwd, srv.path_var.as_deref(), &[], request)
        .map_err(|e| BatonError::failed(format!("cannot start {provider}: {e}")))?;
    let pid = child.pid;
    let run = async move {
        while let Ok(Some(line)) = child.next_line().await {
            drop(parser.feed(&line));
        }
        let exit = child
            .wait(|| false)
            .await
            .map_err(|e| BatonError::failed(e.to_string()))?;
        Ok::<_, BatonError>(parser.finish(&exit, &srv.homes, &cwd, None))
    };
    let outcome = match tokio::time::timeout(MODEL_TIMEOUT, run).await {
        Ok(r) => r?,
        Err(_) => {
            let _ = process::terminate(pid);
            return Err(BatonError::failed(format!(
                "no answer within {}s",
                MODEL_TIMEOUT.as_secs()
            )));
        }
    };
    if outcome.status != Some(TurnStatus::Completed) {
        return Err(BatonError::failed(
            outcome
                .error
                .unwrap_or_else(|| "the run did not complete".to_string()),
        ));
    }
    Ok(instructions::model::parse_answer(&outcome.answer))
}
