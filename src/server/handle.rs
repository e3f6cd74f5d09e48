//! One request's answer: [`handle`] hands each request to the part of the server that does it
//! and returns the [`Answer`] its final reply carries (the one `Request::answer_kind` pairs
//! with it), unless the reply was streamed (a `send`, a `follow`).

use std::sync::Arc;

use tokio::net::unix::OwnedWriteHalf;

use super::state::Server;
use super::{
    approvals, checkout, exports, extract, follow, forks, integrate, prune, read, removal,
    settings, steps, terminals, turn,
};
use crate::error::BatonError;
use crate::protocol::views::{PongView, ReindexView, StoppingView};
use crate::protocol::{Answer, QueueChange, Request, SendRequest};

/// What a request ends with: its answer or error (`None`: its replies were streamed to
/// `write`, final one included).
pub type Answered = Option<Result<Answer, BatonError>>;

/// The final answer of a request that has one.
fn done<T: Into<Answer>>(r: Result<T, BatonError>) -> Answered {
    Some(r.map(Into::into))
}

pub async fn handle(
    srv: &Arc<Server>,
    req: Request,
    write: &mut OwnedWriteHalf,
    stop: &tokio::sync::watch::Sender<bool>,
) -> Answered {
    match req {
        Request::Ping => done(Ok(PongView { pong: true })),
        Request::New {
            name,
            dir,
            provider,
            model,
            brief,
            in_place,
        } => done(terminals::new_terminal(
            srv, name, &dir, provider, model, brief, in_place,
        )),
        Request::Diff { name, patch } => done(checkout::diff(srv, &name, patch)),
        Request::Merge { name } => done(checkout::merge(srv, &name)),
        Request::Revert { name, turn } => done(revert(srv, &name, turn)),
        Request::Rm {
            name,
            delete_branch,
            force,
        } => done(removal::remove(srv, &name, delete_branch, force).await),
        Request::Prune {
            older_than_days,
            dry_run,
            force,
        } => done(prune_off_workers(srv, older_than_days, dry_run, force).await),
        Request::Rename { name, new_name } => done(terminals::rename(srv, &name, &new_name).await),
        Request::Title { name, title } => done(terminals::title(srv, &name, &title)),
        r @ (Request::Approvals { .. }
        | Request::Approve { .. }
        | Request::Deny { .. }
        | Request::Forget { .. }) => inbox(srv, r),
        Request::Archive { name, archived } => done(terminals::archive(srv, &name, archived)),
        Request::Fork { name, new } => done(forks::fork(srv, &name, new).await),
        Request::Export { name, out } => done(exports::export(srv, name, out).await),
        r @ Request::Import { .. } => import(srv, r).await,
        Request::Rewind { name, turn, new } => done(forks::rewind(srv, &name, turn, new).await),
        Request::Send { name, send, detach } => send_turn(srv, &name, send, detach, write).await,
        Request::Follow { name, next } => match follow::running(srv, &name, next).await {
            Ok(feed) => {
                follow::follow(&feed, write).await;
                None
            }
            Err(error) => Some(Err(error)),
        },
        r @ (Request::Queue { .. } | Request::QueueRun { .. } | Request::QueueRetry { .. }) => {
            queues(srv, r)
        }
        Request::Ls { all, table } => done(read::ls(srv, all, table)),
        Request::Show { name } => done(read::show(srv, &name)),
        Request::Log { name } => done(read::log(srv, &name)),
        Request::Steps { name, turn } => done(steps_off_workers(srv, name, turn).await),
        Request::Instructions { name, action } => done(terminals::instructions(srv, &name, action)),
        Request::Interrupt { name } => done(turn::hold::interrupt(srv, &name)),
        Request::Integrate { name, dir } => done(integrate::integrate(srv, name, dir).await),
        Request::Extract { prompt, provider } => done(extract(srv, &prompt, provider).await),
        Request::Status => done(read::status(srv)),
        // Served by `connection`: a shell needs the reading half too, and neither is waited
        // for by a stop.
        Request::Watch | Request::Shell { .. } => {
            Some(Err(BatonError::failed("internal: watch or shell request")))
        }
        Request::Reindex => done(reindex(srv)),
        Request::Web { port, new_token } => done(
            crate::web::serve(
                &srv.web,
                srv.store.data_dir(),
                &srv.config.web,
                port,
                new_token,
            )
            .await,
        ),
        Request::Stop => {
            let _ = stop.send(true);
            done(read::waiting_inputs(srv).map(|waiting| StoppingView {
                stopping: true,
                pid: std::process::id(),
                waiting,
            }))
        }
    }
}

/// `import`: a zip unpacked into a terminal of this data directory.
async fn import(srv: &Arc<Server>, req: Request) -> Answered {
    let Request::Import {
        file,
        name,
        dir,
        max_size,
    } = req
    else {
        return Some(Err(BatonError::failed("internal: not an import")));
    };
    let asked = exports::Asked {
        file,
        name,
        dir,
        max_size,
    };
    done(exports::import(srv, asked).await)
}

/// The requests on a terminal's waiting input.
fn queues(srv: &Arc<Server>, req: Request) -> Answered {
    match req {
        Request::Queue { name, change } => done(queue(srv, &name, change)),
        Request::QueueRun { name } => done(
            srv.terminal(&name)
                .and_then(|t| turn::hold::resume(srv, &t)),
        ),
        Request::QueueRetry { name } => done(
            srv.terminal(&name)
                .and_then(|t| turn::retry::retry(srv, &t)),
        ),
        _ => Some(Err(BatonError::failed("internal: not a queue request"))),
    }
}

/// The approvals inbox's requests.
fn inbox(srv: &Server, req: Request) -> Answered {
    match req {
        Request::Approvals { name } => done(approvals::list(srv, name.as_deref())),
        Request::Approve { id, always } => {
            let allow = approvals::Answer::Allow { always };
            done(approvals::answer(srv, &id, allow, "user"))
        }
        Request::Deny { id, reason } => {
            let reason = reason.unwrap_or_else(|| approvals::DENIED.to_string());
            done(approvals::answer(
                srv,
                &id,
                approvals::Answer::Deny(reason),
                "user",
            ))
        }
        Request::Forget { name, id } => {
            done(approvals::forget(srv, &name, &id).and_then(|_| read::show(srv, &name)))
        }
        _ => Some(Err(BatonError::failed(
            "internal: not an approvals request",
        ))),
    }
}

/// A send: journalled, then (unless `detach`) its turn streamed to the client until its end.
async fn send_turn(
    srv: &Arc<Server>,
    name: &str,
    send: SendRequest,
    detach: bool,
    write: &mut OwnedWriteHalf,
) -> Answered {
    crate::log::phase("request");
    let (feed, accepted) = match turn::accept(srv, name, send) {
        Ok(f) => f,
        Err(error) => return Some(Err(error)),
    };
    crate::log::phase("input-journalled");
    if detach {
        return done(Ok(accepted));
    }
    follow::follow(&feed, write).await;
    None
}

fn revert(
    srv: &Arc<Server>,
    name: &str,
    turn: u32,
) -> Result<crate::protocol::views::RevertView, BatonError> {
    let running = srv
        .terminal(name)
        .map(|t| terminals::busy(srv, &t))
        .unwrap_or(false);
    checkout::revert(srv, name, turn, running)
}

/// The waiting input of terminal `name`, listed or changed.
fn queue(
    srv: &Arc<Server>,
    name: &str,
    change: Option<QueueChange>,
) -> Result<Vec<crate::protocol::views::QueuedView>, BatonError> {
    let t = srv.terminal(name)?;
    match change {
        None => read::queue(srv, &t),
        Some(c) => turn::queue::change(srv, &t, c.input, c.action),
    }
}

async fn prune_off_workers(
    srv: &Arc<Server>,
    days: u32,
    dry_run: bool,
    force: bool,
) -> Result<crate::protocol::views::PruneView, BatonError> {
    let srv = srv.clone();
    let pruned = tokio::task::spawn_blocking(move || prune::prune(&srv, days, dry_run, force));
    pruned
        .await
        .unwrap_or_else(|e| Err(BatonError::failed(format!("the prune task crashed: {e}"))))
}

/// A raw stream can be megabytes: read off the async workers.
async fn steps_off_workers(
    srv: &Arc<Server>,
    name: String,
    turn: u32,
) -> Result<crate::protocol::views::StepsView, BatonError> {
    let srv = srv.clone();
    let read = tokio::task::spawn_blocking(move || steps::steps(&srv, &name, turn));
    read.await.unwrap_or_else(|e| {
        Err(BatonError::failed(format!(
            "reading the turn's steps crashed: {e}"
        )))
    })
}

async fn extract(
    srv: &Arc<Server>,
    prompt: &str,
    provider: Option<String>,
) -> Result<crate::protocol::views::ExtractedView, BatonError> {
    let provider = settings::parse_provider(provider.as_deref())?.unwrap_or_default();
    Ok(extract::extract(srv, prompt, provider).await)
}

fn reindex(srv: &Arc<Server>) -> Result<ReindexView, BatonError> {
    let r = srv.store.reindex()?;
    Ok(ReindexView {
        terminals: r.terminals,
        entries: r.entries,
        skipped: r.skipped,
        finished_removals: removal::finish_removals(srv),
    })
}
