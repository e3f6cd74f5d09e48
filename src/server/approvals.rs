//! The approvals inbox: a running turn's CLI asks before a call its fence would refuse
//! ([`asked`], from the turn's pump), the request waits here, journalled, until `baton approve`
//! / `deny` answers it ([`answer`]), its `[approvals] timeout_secs` runs out, or its turn ends
//! ([`expire_turn`]: never approved). An `--always` answer covers the same call for the rest
//! of the terminal's life ([`crate::approvals::Rule`]). What is waiting lives in memory
//! (`state::Inbox`); the journal keeps every request's life, so after a crash a request that was
//! never answered reads as expired. See ARCHITECTURE.md ("The approvals inbox").

use std::sync::Arc;

use super::state::{Server, Waiting};
use crate::approvals::{self, ApprovalRecord, ApprovalState, Folded};
use crate::config::{AskWhen, Config};
use crate::error::BatonError;
use crate::protocol::approvals::{ApprovalRuleView, ApprovalView};
use crate::providers::ask::{Asked, Verdict};
use crate::providers::Provider;
use crate::store::records::Record;
use crate::store::TerminalRow;

/// Whether a turn's CLI may ask the inbox (`[approvals] ask` is not `never`).
pub fn asks(config: &Config) -> bool {
    config.approvals.ask.unwrap_or_default() == AskWhen::Outside
}

/// The flags of a run of provider `p`: the configured ones, and those that make its CLI ask
/// (unless `[approvals] ask = "never"`).
pub fn extra_args(config: &Config, p: &dyn Provider, args: &[String]) -> Vec<String> {
    let mut out = args.to_vec();
    if asks(config) {
        out.extend(p.ask_args().iter().map(|s| s.to_string()));
    }
    out
}

/// Turn `turn_id` of terminal `tid` asks `asked`: answered at once by an `--always` rule,
/// else journalled and kept waiting for the user. The note the turn keeps.
pub fn asked(srv: &Arc<Server>, tid: &str, turn_id: &str, asked: Asked) -> String {
    let folded = folded(srv, tid);
    let id = new_id(srv, &folded);
    let record = |r: ApprovalRecord| journal(srv, tid, r);
    let ask = ApprovalRecord::Asked {
        id: id.clone(),
        turn_id: turn_id.to_string(),
        tool: asked.tool.clone(),
        target: asked.target.clone(),
        write: asked.write,
    };
    let rule = approvals::rules(&folded)
        .into_iter()
        .find(|r| r.covers(&asked.tool, &asked.target, asked.write));
    if let Some(rule) = rule {
        let answer = ApprovalRecord::Answered {
            id: id.clone(),
            allow: true,
            always: false,
            reason: None,
            by: format!("rule {}", rule.id),
        };
        let _ = record(ask).and_then(|_| record(answer));
        asked.answerer.answer(&Verdict::Allow);
        return format!(
            "{} {} allowed by the --always answer to {}",
            asked.tool, asked.target, rule.id
        );
    }
    if let Err(e) = record(ask) {
        // Unjournalled, it could outlive a crash unseen: refused instead.
        let message = format!("baton could not record the request: {e}");
        asked.answerer.answer(&Verdict::Deny { message });
        return format!(
            "{} {} refused: could not journal it: {e}",
            asked.tool, asked.target
        );
    }
    let note = format!(
        "{} {} waits for approval: baton approve {id} (or deny {id})",
        asked.tool, asked.target
    );
    srv.approvals.lock().insert(
        id.clone(),
        Waiting {
            tid: tid.to_string(),
            turn_id: turn_id.to_string(),
            asked,
        },
    );
    if let Some(secs) = srv.config.approvals.timeout_secs {
        let (srv, id) = (srv.clone(), id.clone());
        tokio::spawn(async move {
            tokio::time::sleep(std::time::Duration::from_secs(secs)).await;
            let message = format!("No answer came within {secs} s: the user's timeout denied it.");
            let _ = answer(&srv, &id, Answer::Deny(message), "timeout");
        });
    }
    srv.announce(tid);
    note
}

/// What the model reads when the user denies without a reason.
pub const DENIED: &str = "The user denied this request.";

/// What the user (or the timeout) says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    Allow { always: bool },
    Deny(String),
}

/// Answers waiting request `id` `by` whom: handed to its CLI, then journalled.
pub fn answer(
    srv: &Server,
    id: &str,
    answer: Answer,
    by: &str,
) -> Result<ApprovalView, BatonError> {
    let Some(w) = srv.approvals.lock().remove(id) else {
        return Err(not_waiting(srv, id));
    };
    let (verdict, allow, always, reason) = match answer {
        Answer::Allow { always } => (Verdict::Allow, true, always, None),
        Answer::Deny(message) => (
            Verdict::Deny {
                message: message.clone(),
            },
            false,
            false,
            Some(message),
        ),
    };
    let record = if w.asked.answerer.answer(&verdict) {
        ApprovalRecord::Answered {
            id: id.to_string(),
            allow,
            always,
            reason,
            by: by.to_string(),
        }
    } else {
        ApprovalRecord::Expired { id: id.to_string() }
    };
    let expired = matches!(record, ApprovalRecord::Expired { .. });
    journal(srv, &w.tid, record)?;
    srv.announce(&w.tid);
    if expired {
        return Err(BatonError::bad_input(format!(
            "approval {id} expired: its turn ended before the answer reached it"
        )));
    }
    view_of(srv, &w.tid, id)
}

/// The one line saying why `id` cannot be answered.
fn not_waiting(srv: &Server, id: &str) -> BatonError {
    let found = srv.store.terminals().ok().and_then(|ts| {
        ts.iter()
            .find_map(|t| view(srv, t, &folded(srv, &t.id), id))
    });
    BatonError::bad_input(match found {
        None => format!("no approval request {id:?} (see `baton approvals`)"),
        Some(v) => match v.state {
            ApprovalState::Approved => format!("approval {id} was already approved"),
            ApprovalState::Denied => format!("approval {id} was already denied"),
            ApprovalState::Expired | ApprovalState::Waiting => {
                format!("approval {id} expired: its turn ended without an answer")
            }
        },
    })
}

/// Turn `turn_id` of `tid` ended: what still waits can never be answered, and expires.
pub fn expire_turn(srv: &Server, tid: &str, turn_id: &str) {
    let gone: Vec<String> = {
        let mut map = srv.approvals.lock();
        let ids: Vec<String> = map
            .iter()
            .filter(|(_, w)| w.tid == tid && w.turn_id == turn_id)
            .map(|(id, _)| id.clone())
            .collect();
        for id in &ids {
            map.remove(id);
        }
        ids
    };
    for id in &gone {
        let _ = journal(srv, tid, ApprovalRecord::Expired { id: id.clone() });
    }
    if !gone.is_empty() {
        srv.announce(tid);
    }
}

/// `baton approvals [NAME]`: the waiting requests, oldest first.
pub fn list(srv: &Server, name: Option<&str>) -> Result<Vec<ApprovalView>, BatonError> {
    let terminals = match name {
        Some(name) => vec![srv.terminal(name)?],
        None => srv.store.terminals()?,
    };
    let waiting: Vec<(String, String)> = {
        let map = srv.approvals.lock();
        map.iter()
            .map(|(id, w)| (id.clone(), w.tid.clone()))
            .collect()
    };
    let mut out = Vec::new();
    for t in &terminals {
        let folded = folded(srv, &t.id);
        out.extend(
            waiting
                .iter()
                .filter(|(_, tid)| tid == &t.id)
                .filter_map(|(id, _)| view(srv, t, &folded, id)),
        );
    }
    out.sort_by(|a, b| a.asked_at.cmp(&b.asked_at));
    Ok(out)
}

/// The request terminal `t`'s turn waits on, if any.
pub fn waiting_of(srv: &Server, t: &TerminalRow) -> Option<ApprovalView> {
    let id = {
        let map = srv.approvals.lock();
        map.iter()
            .filter(|(_, w)| w.tid == t.id)
            .map(|(id, _)| id.clone())
            .next()
    }?;
    view(srv, t, &folded(srv, &t.id), &id)
}

/// Terminal `tid`'s `--always` rules in force.
pub fn rules_of(srv: &Server, tid: &str) -> Vec<ApprovalRuleView> {
    approvals::rules(&folded(srv, tid))
        .into_iter()
        .map(|r| ApprovalRuleView {
            id: r.id,
            tool: r.tool,
            target: r.target,
            folder: r.folder,
        })
        .collect()
}

/// `baton approvals NAME --forget ID`: removes the rule request `id`'s answer made.
pub fn forget(srv: &Server, name: &str, id: &str) -> Result<(), BatonError> {
    let t = srv.terminal(name)?;
    if !rules_of(srv, &t.id).iter().any(|r| r.id == id) {
        return Err(BatonError::bad_input(format!(
            "{name} has no --always rule {id:?} (`baton show {name}` lists them)"
        )));
    }
    journal(
        srv,
        &t.id,
        ApprovalRecord::RuleRemoved { id: id.to_string() },
    )?;
    srv.announce(&t.id);
    Ok(())
}

/// Journals `r` in `tid`'s journal; the terminal's requests are read again next time.
fn journal(
    srv: &Server,
    tid: &str,
    r: ApprovalRecord,
) -> Result<crate::store::records::Entry, crate::store::StoreError> {
    let written = srv.store.append(tid, Record::Approval(r));
    srv.approvals.forget(tid);
    written
}

/// Every request of `tid`'s journal (read once, then from memory until the next is journalled:
/// `ls` and every announce ask for each terminal's rules).
fn folded(srv: &Server, tid: &str) -> Vec<Folded> {
    let generation = match srv.approvals.folded(tid) {
        Ok(f) => return f,
        Err(generation) => generation,
    };
    let Ok(entries) = srv.store.entries(tid) else {
        return Vec::new();
    };
    let folded = approvals::fold(entries.iter().filter_map(|e| match &e.record {
        Record::Approval(r) => Some((e.at.as_str(), r)),
        _ => None,
    }));
    srv.approvals.keep(tid, generation, folded.clone());
    folded
}

fn view_of(srv: &Server, tid: &str, id: &str) -> Result<ApprovalView, BatonError> {
    let t = srv
        .store
        .terminal(tid)?
        .ok_or_else(|| BatonError::failed(format!("internal: terminal {tid} is gone")))?;
    view(srv, &t, &folded(srv, tid), id)
        .ok_or_else(|| BatonError::failed(format!("internal: approval {id} is not journalled")))
}

/// Request `id` of terminal `t` as shown: a request with no answer that no turn waits on any
/// more (a crash) reads as expired.
fn view(srv: &Server, t: &TerminalRow, folded: &[Folded], id: &str) -> Option<ApprovalView> {
    let f = folded.iter().find(|f| f.id == id)?;
    let live = srv.approvals.lock().contains_key(id);
    let state = match f.state {
        ApprovalState::Waiting if !live => ApprovalState::Expired,
        s => s,
    };
    Some(ApprovalView {
        id: f.id.clone(),
        terminal: t.name.clone(),
        provider: t.provider,
        tool: f.tool.clone(),
        target: f.target.clone(),
        asked_at: f.asked_at.clone(),
        state,
        answered_at: f.answered_at.clone(),
        by: f.by.clone(),
        reason: f.reason.clone(),
        always: f.always,
    })
}

/// A short id no request of this terminal nor any waiting one has: `a` and 6 hex digits.
fn new_id(srv: &Server, folded: &[Folded]) -> String {
    loop {
        let hex = uuid::Uuid::new_v4().simple().to_string();
        let id = format!("a{}", &hex[..6]);
        let taken = folded.iter().any(|f| f.id == id) || srv.approvals.lock().contains_key(&id);
        if !taken {
            return id;
        }
    }
}
