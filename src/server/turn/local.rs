//! A turn on a `local` endpoint: the conversation's earlier turns are gathered from the journal
//! (a local turn's own messages, another provider's prompt and answer), the system message is
//! built from the terminal's CURRENT standing text, the run streams like a CLI's, and the
//! messages it added are journalled for the next run. (A terminal that switched to another
//! provider remembers the endpoint it last ran on: see `settings::choose_provider`.)

use std::path::PathBuf;
use std::sync::atomic::Ordering;

use serde_json::{json, Value};

use super::{Plan, TurnCtx};
use crate::engine;
use crate::error::BatonError;
use crate::providers::local::{self, Endpoint, LocalRun};
use crate::providers::{RunMsg, SessionMode, TurnOutcome};
use crate::store::{Entry, Record, TerminalRow};
use crate::words::{ProviderKind, TurnStatus};

/// The conversation's turns before `current`, oldest first, each whole: a local turn's own
/// messages, any other turn as its prompt and answer (so a switch back to local carries on).
pub fn history(entries: &[Entry], conversation_id: &str, current: &str) -> Vec<Vec<Value>> {
    let mut order: Vec<(&str, &str)> = Vec::new();
    let mut own = std::collections::HashMap::new();
    let mut answers = std::collections::HashMap::new();
    for e in entries {
        match &e.record {
            Record::TurnStarted {
                turn_id,
                conversation_id: c,
                prompt,
                ..
            } if c == conversation_id && turn_id != current => order.push((turn_id, prompt)),
            Record::LocalMessages {
                turn_id, messages, ..
            } => {
                own.insert(turn_id.as_str(), messages);
            }
            Record::TurnFinished {
                turn_id,
                answer,
                status,
                ..
            } => {
                answers.insert(turn_id.as_str(), (answer.as_str(), *status));
            }
            _ => {}
        }
    }
    order
        .into_iter()
        .map(|(id, prompt)| match own.get(id) {
            Some(messages) => messages
                .iter()
                .cloned()
                .map(local::sse::with_json_arguments)
                .collect(),
            None => {
                let answer = match answers.get(id) {
                    Some((a, _)) if !a.is_empty() => a.to_string(),
                    Some((_, status)) => format!("[no answer: the turn {}]", status.as_str()),
                    None => "[no answer: the turn never finished]".to_string(),
                };
                vec![
                    json!({"role": "user", "content": prompt}),
                    json!({"role": "assistant", "content": answer}),
                ]
            }
        })
        .collect()
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
            } if c == conversation_id && turn_id != current => last = Some((turn_id, *provider)),
            Record::TurnFinished {
                turn_id, context, ..
            } => {
                contexts.insert(turn_id.as_str(), context.map(|c| c.tokens));
            }
            _ => {}
        }
    }
    match last? {
        (id, ProviderKind::Local) => {
            let counted = contexts.get(id).copied().flatten()?;
            Some((counted, left_out.get(id).copied().unwrap_or(0)))
        }
        (_, ProviderKind::Claude | ProviderKind::Codex) => None,
    }
}

impl TurnCtx<'_> {
    /// Runs the turn on the terminal's endpoint. Returns the outcome, the local session id and
    /// the model, like [`TurnCtx::execute`].
    pub(super) async fn execute_local(
        &mut self,
        term: &TerminalRow,
        plan: &Plan,
        prompt: &str,
    ) -> Result<(TurnOutcome, Option<String>, Option<String>), BatonError> {
        let srv = self.srv.clone();
        let run = self.prepare(term, plan, prompt)?;
        let session_id = run.session_id.clone();
        let (tx, rx) = tokio::sync::mpsc::channel::<RunMsg>(1024);
        let interrupted = self.interrupted.clone();
        let task = tokio::spawn(async move { local::run(&run, tx, interrupted).await });
        self.pump(rx).await;
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
                    provider: ProviderKind::Local,
                    session_id: session_id.clone(),
                    model: outcome.model.clone(),
                    reason,
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
            SessionMode::New { session_id } => session_id
                .clone()
                .unwrap_or_else(|| uuid::Uuid::new_v4().to_string()),
        };
        let journal = srv.store.data_dir().journal(self.tid);
        let entries = crate::store::journal::read(&journal)
            .map_err(|e| BatonError::failed(format!("cannot read {}: {e}", journal.display())))?
            .entries;
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
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn at(record: Record) -> Entry {
        Entry {
            at: "t".into(),
            record,
        }
    }

    fn started(turn: &str, conv: &str, provider: ProviderKind, prompt: &str) -> Entry {
        at(Record::TurnStarted {
            turn_id: turn.into(),
            number: 1,
            conversation_id: conv.into(),
            provider,
            prompt: prompt.into(),
        })
    }

    fn finished(turn: &str, status: TurnStatus, answer: &str) -> Entry {
        finished_at(turn, status, answer, None)
    }

    fn finished_at(turn: &str, status: TurnStatus, answer: &str, tokens: Option<u64>) -> Entry {
        at(Record::TurnFinished {
            turn_id: turn.into(),
            status,
            error: None,
            session_id: None,
            model: None,
            context: tokens.map(|tokens| crate::words::ContextUsage {
                tokens,
                window: 2048,
            }),
            answer: answer.into(),
            tools: vec![],
            notes: vec![],
        })
    }

    #[test]
    fn the_servers_last_count_is_taken_only_from_a_local_turn_of_the_conversation() {
        let done = |t, n| finished_at(t, TurnStatus::Completed, "a", n);
        let local = |t, c| started(t, c, ProviderKind::Local, "p");
        let claude = |t, c| started(t, c, ProviderKind::Claude, "p");
        let messages = |t: &str, left_out| {
            at(Record::LocalMessages {
                turn_id: t.into(),
                messages: vec![],
                left_out,
            })
        };
        type Case = (Vec<Entry>, Option<(u64, usize)>);
        let cases: Vec<Case> = vec![
            (
                vec![local("t1", "c"), done("t1", Some(900))],
                Some((900, 0)),
            ),
            // with the number of earlier turns its request left out
            (
                vec![local("t1", "c"), messages("t1", 3), done("t1", Some(900))],
                Some((900, 3)),
            ),
            // the latest turn ran on claude: its count is another tokenizer's
            (
                vec![
                    local("t1", "c"),
                    done("t1", Some(900)),
                    claude("t2", "c"),
                    done("t2", Some(40_000)),
                ],
                None,
            ),
            // another conversation's turn does not count; a turn without usage gives nothing
            (vec![local("t1", "old"), done("t1", Some(900))], None),
            (vec![local("t1", "c"), done("t1", None)], None),
        ];
        for (mut entries, want) in cases {
            entries.push(local("now", "c"));
            assert_eq!(last_context(&entries, "c", "now"), want, "{entries:?}");
        }
    }

    #[test]
    fn local_turns_keep_their_messages_and_others_give_prompt_and_answer() {
        let tool_turn = vec![
            json!({"role": "user", "content": "write it"}),
            json!({"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "write_file", "arguments": "{}"}}]}),
            json!({"role": "tool", "tool_call_id": "c1", "content": "wrote"}),
            json!({"role": "assistant", "content": "done"}),
        ];
        let entries = vec![
            started("t0", "old", ProviderKind::Local, "before the move"),
            started("t1", "c", ProviderKind::Local, "write it"),
            at(Record::LocalMessages {
                turn_id: "t1".into(),
                messages: tool_turn.clone(),
                left_out: 0,
            }),
            finished("t1", TurnStatus::Completed, "done"),
            started("t2", "c", ProviderKind::Claude, "explain"),
            finished("t2", TurnStatus::Completed, "because"),
            started("t3", "c", ProviderKind::Codex, "stop"),
            finished("t3", TurnStatus::Interrupted, ""),
            started("t4", "c", ProviderKind::Local, "now"),
        ];
        let user = |c: &str| json!({"role": "user", "content": c});
        let assistant = |c: &str| json!({"role": "assistant", "content": c});
        assert_eq!(
            history(&entries, "c", "t4"),
            vec![
                tool_turn,
                vec![user("explain"), assistant("because")],
                vec![user("stop"), assistant("[no answer: the turn interrupted]")],
            ]
        );
    }
}
