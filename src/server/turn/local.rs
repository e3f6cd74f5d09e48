//! A turn on a `local` endpoint: the conversation's earlier turns are gathered from the journal
//! (a local turn's own messages, another provider's prompt and answer), the system message is
//! built from the terminal's CURRENT standing text, the run streams like a CLI's, and the
//! messages it added are journalled for the next run. (A terminal that switched to another
//! provider remembers the endpoint it last ran on: see `settings::choose_provider`.)

use std::path::PathBuf;
use std::sync::atomic::Ordering;

use serde_json::{json, Value};

use super::{Plan, Ran, TurnCtx};
use crate::engine;
use crate::error::BatonError;
use crate::providers::local::{self, Endpoint, LocalRun};
use crate::providers::{RunMsg, SessionMode};
use crate::store::{Entry, Record, TerminalRow};
use crate::words::{ProviderKind, TurnStatus};

/// The conversation's turns before `current` (a turn id), oldest first, each whole: the turns
/// a fork copied in first, then a local turn's own messages, any other turn as its prompt and
/// answer (so a switch back to local carries on). Turns from `current` on are left out (a
/// rewind asks for the history before one of its turns).
pub fn history(entries: &[Entry], conversation_id: &str, current: &str) -> Vec<Vec<Value>> {
    let mut copied: Vec<Vec<Value>> = Vec::new();
    let mut order: Vec<(&str, &str)> = Vec::new();
    let mut own = std::collections::HashMap::new();
    let mut answers = std::collections::HashMap::new();
    let mut reached = false;
    // A voided start never ran: its prompt is not part of the conversation.
    let voided = voided(entries);
    for e in entries {
        match &e.record {
            Record::HistoryCopied {
                conversation_id: c,
                turns,
            } if c == conversation_id => copied.extend(turns.iter().cloned()),
            Record::TurnStarted { turn_id, .. } if turn_id == current => reached = true,
            Record::TurnStarted {
                turn_id,
                conversation_id: c,
                prompt,
                ..
            } if c == conversation_id && !reached && !voided.contains(turn_id.as_str()) => {
                order.push((turn_id, prompt))
            }
            Record::LocalMessages {
                turn_id, messages, ..
            } => {
                own.insert(turn_id.as_str(), messages);
            }
            Record::TurnFinished {
                turn_id,
                answer,
                status,
                error,
                ..
            } => {
                let end = (answer.as_str(), *status, error.as_deref());
                answers.insert(turn_id.as_str(), end);
            }
            _ => {}
        }
    }
    let own_turns = order.into_iter().map(|(id, prompt)| {
        let end = answers.get(id).copied();
        match own.get(id) {
            Some(messages) => {
                let mut messages: Vec<Value> = messages
                    .iter()
                    .cloned()
                    .map(local::sse::with_json_arguments)
                    .collect();
                match end {
                    Some((_, TurnStatus::Interrupted, _)) => mark(&mut messages, INTERRUPTED),
                    Some((_, TurnStatus::Failed, error)) => {
                        let text = failed_mark(&messages, error);
                        mark(&mut messages, &text);
                    }
                    Some((_, TurnStatus::Completed, _)) | None => {}
                }
                messages
            }
            None => other_turn(prompt, end),
        }
    });
    copied.into_iter().chain(own_turns).collect()
}

/// The turns in `entries` whose start recovery voided (`turn_voided`).
fn voided(entries: &[Entry]) -> std::collections::HashSet<&str> {
    entries
        .iter()
        .filter_map(|e| match &e.record {
            Record::TurnVoided { turn_id } => Some(turn_id.as_str()),
            _ => None,
        })
        .collect()
}

/// What the model is told when a turn was cut short (the seeds tell it too).
const INTERRUPTED: &str = "[the user interrupted this turn here]";

/// The longest part of a failed turn's error the model is told.
const ERROR_CHARS: usize = 200;

/// What the model is told about a failed turn: before any answer (the endpoint was down) or
/// where it stopped, with the first line of its error.
fn failed_mark(messages: &[Value], error: Option<&str>) -> String {
    let error: String = error
        .and_then(|e| e.lines().next())
        .unwrap_or("no error was recorded")
        .chars()
        .take(ERROR_CHARS)
        .collect();
    let answered = messages.iter().any(|m| m["role"] != "user");
    if answered {
        format!("[this turn failed here: {error}]")
    } else {
        format!("[this turn failed before any answer: {error}]")
    }
}

/// Ends a turn cut short (interrupted, failed) with `text`, keeping user and assistant turns
/// alternating (chat templates such as Gemma's and Mistral's refuse anything else): on the
/// last assistant text, or as an assistant message of its own after a user or tool message.
fn mark(messages: &mut Vec<Value>, text: &str) {
    match messages.last_mut() {
        Some(last)
            if last["role"] == "assistant"
                && last.get("tool_calls").is_none_or(Value::is_null)
                && last["content"].is_string() =>
        {
            let said = last["content"].as_str().unwrap_or_default();
            last["content"] = Value::from(if said.is_empty() {
                text.to_string()
            } else {
                format!("{said}\n\n{text}")
            });
        }
        _ => messages.push(json!({"role": "assistant", "content": text})),
    }
}

/// A turn another provider ran (or a local one without its messages): its prompt and answer.
fn other_turn(prompt: &str, end: Option<(&str, TurnStatus, Option<&str>)>) -> Vec<Value> {
    let answer = match end {
        Some((a, TurnStatus::Interrupted, _)) if !a.is_empty() => format!("{a}\n\n{INTERRUPTED}"),
        Some((a, _, _)) if !a.is_empty() => a.to_string(),
        Some((_, TurnStatus::Interrupted, _)) => INTERRUPTED.to_string(),
        Some((_, status, _)) => format!("[no answer: the turn {}]", status.as_str()),
        None => "[no answer: the turn never finished]".to_string(),
    };
    vec![
        json!({"role": "user", "content": prompt}),
        json!({"role": "assistant", "content": answer}),
    ]
}

/// The context the server counted at the end of the conversation's latest turn before
/// `current`, if that turn ran on `local` (another provider counts with another tokenizer),
/// and how many earlier turns that turn's request left out.
pub fn last_context(
    entries: &[Entry],
    conversation_id: &str,
    current: &str,
) -> Option<(u64, usize)> {
    let mut last: Option<(&str, ProviderKind)> = None;
    let mut contexts = std::collections::HashMap::new();
    let mut left_out = std::collections::HashMap::new();
    let voided = voided(entries);
    for e in entries {
        match &e.record {
            Record::LocalMessages {
                turn_id,
                left_out: n,
                ..
            } => {
                left_out.insert(turn_id.as_str(), *n);
            }
            Record::TurnStarted {
                turn_id,
                conversation_id: c,
                provider,
                ..
            } if c == conversation_id
                && turn_id != current
                && !voided.contains(turn_id.as_str()) =>
            {
                last = Some((turn_id, *provider))
            }
            Record::TurnFinished {
                turn_id, context, ..
            } => {
                contexts.insert(turn_id.as_str(), context.map(|c| c.tokens));
            }
            _ => {}
        }
    }
    // Only an endpoint's turns were counted by baton.
    let (id, _) = last.filter(|(_, p)| !p.is_cli())?;
    let counted = contexts.get(id).copied().flatten()?;
    Some((counted, left_out.get(id).copied().unwrap_or(0)))
}

impl TurnCtx<'_> {
    /// Runs the turn on the terminal's endpoint. Returns the outcome, the local session id and
    /// the model, like [`TurnCtx::execute`].
    pub(super) async fn execute_local(
        &mut self,
        term: &TerminalRow,
        plan: &Plan,
        prompt: &str,
    ) -> Ran {
        let srv = self.srv.clone();
        let run = self.prepare(term, plan, prompt)?;
        let session_id = run.session_id.clone();
        let (tx, rx) = tokio::sync::mpsc::channel::<RunMsg>(1024);
        let interrupted = self.interrupted.clone();
        // The prompt goes out once marked as going out (`RunMsg::Prompting`), after the slow
        // part of the run's start (the endpoint's model list).
        let (go, gate) = tokio::sync::oneshot::channel();
        self.go = Some(go);
        let task = tokio::spawn(async move { local::run(&run, tx, interrupted, Some(gate)).await });
        self.pump(rx, None).await;
        let result = task
            .await
            .map_err(|e| BatonError::failed(format!("the local run crashed: {e}")))?;
        srv.store.append(
            self.tid,
            Record::LocalMessages {
                turn_id: self.turn_id.to_string(),
                messages: result.messages,
                left_out: result.left_out,
            },
        )?;
        let mut outcome = result.outcome;
        if outcome.status == Some(TurnStatus::Failed) && self.interrupted.load(Ordering::SeqCst) {
            outcome.status = Some(TurnStatus::Interrupted);
        }
        if let Some(reason) = plan.session_reason {
            srv.store.append(
                self.tid,
                Record::SessionStarted {
                    conversation_id: plan.conversation.id.clone(),
                    turn_id: self.turn_id.to_string(),
                    provider: term.provider,
                    session_id: session_id.clone(),
                    model: outcome.model.clone(),
                    reason,
                    // An endpoint's run gets the current standing text every time.
                    standing: Vec::new(),
                },
            )?;
        }
        let model = outcome.model.clone();
        Ok((outcome, Some(session_id), model))
    }

    /// The run: the endpoint as configured now, the session, the current standing text, and
    /// the conversation's earlier turns from the journal.
    fn prepare(
        &self,
        term: &TerminalRow,
        plan: &Plan,
        prompt: &str,
    ) -> Result<LocalRun, BatonError> {
        let srv = self.srv.clone();
        let (name, cfg) = srv
            .config
            .endpoint(term.endpoint.as_deref())
            .map_err(BatonError::bad_input)?;
        let mut endpoint = Endpoint::from_config(&name, cfg, |v| std::env::var(v).ok())
            .map_err(BatonError::bad_input)?;
        if term.model.is_some() {
            endpoint.model = term.model.clone();
        }
        let session_id = match &plan.mode {
            SessionMode::Resume { session_id } => session_id.clone(),
            SessionMode::New { session_id } | SessionMode::Fork { session_id, .. } => session_id
                .clone()
                .unwrap_or_else(|| uuid::Uuid::new_v4().to_string()),
        };
        let entries = srv.store.entries(self.tid)?;
        let instructions: Vec<String> = srv
            .store
            .instructions(self.tid)?
            .into_iter()
            .map(|i| i.text)
            .collect();
        let cwd = PathBuf::from(&plan.conversation.dir);
        let run = LocalRun {
            system_text: engine::system_text::build(
                &cwd,
                &srv.screenshots(self.tid),
                term.brief.as_deref(),
                &instructions,
            ),
            history: history(&entries, &plan.conversation.id, self.turn_id),
            last_context: last_context(&entries, &plan.conversation.id, self.turn_id),
            endpoint,
            cwd,
            prompt: prompt.to_string(),
            session_id,
        };
        Ok(run)
    }
}

#[cfg(test)]
#[path = "local_tests.rs"]
mod tests;
