//! Each request paired with the reply it ends with: [`Answer`], one variant per view of
//! [`super::views`], and [`Request::answer_kind`], the table of which request is answered by
//! which. The server builds an `Answer` and [`Reply::answered`] puts it on the wire; a client
//! reads the final reply back with [`Reply::into_answer`], once, into the struct of the request
//! it sent. Every client (the CLI, the multiplexer, a browser's) reads replies by this table.
//! See ARCHITECTURE.md ("The socket protocol").

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::approvals::ApprovalView;
use super::lane::IntegrateView;
use super::views::{
    AcceptedView, ArchivedView, DiffView, ExportView, ExtractedView, ForkView, ImportView,
    InstructionView, InterruptedView, LogView, MergeView, PongView, PruneView, QueuedView,
    ReindexView, RemovedView, RenamedView, RevertView, RewindView, StatusView, StepsView,
    StoppingView, TerminalView, TitledView, WebView,
};
use super::{Reply, Request, TurnSummary};
use crate::error::BatonError;

/// Declares [`Answer`], [`AnswerKind`] (its variants without their data), reading an answer
/// of a kind, and the conversions between each view and the answer that carries it.
macro_rules! answers {
    ($( $(#[$doc:meta])* $variant:ident($view:ty), )+) => {
        /// The data of a request's final reply (`{"reply": "ok", "data": …}`): the view the
        /// request answers with, serialized as that view alone (no tag: the request says
        /// which it is, [`Request::answer_kind`]). Boxed, so a message carrying one stays
        /// small whatever the view.
        #[derive(Debug, Clone, PartialEq, Serialize)]
        #[serde(untagged)]
        pub enum Answer {
            $( $(#[$doc])* $variant(Box<$view>), )+
        }

        /// Which [`Answer`] a request ends with.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum AnswerKind {
            $( $variant, )+
        }

        impl Answer {
            pub fn kind(&self) -> AnswerKind {
                match self {
                    $( Answer::$variant(_) => AnswerKind::$variant, )+
                }
            }
        }

        impl AnswerKind {
            /// Reads an answer of this kind from a final reply's `data`.
            pub fn read(self, data: Value) -> Result<Answer, BatonError> {
                Ok(match self {
                    $( AnswerKind::$variant => Answer::$variant(
                        Box::new(serde_json::from_value(data).map_err(unreadable)?),
                    ), )+
                })
            }

            /// Reads an answer of this kind from a whole final reply line that starts with
            /// [`OK_LINE`]: its `data` straight into the view, with no `Value` in between.
            pub fn read_line(self, line: &str) -> Result<Answer, BatonError> {
                Ok(match self {
                    $( AnswerKind::$variant => Answer::$variant(Box::new(
                        serde_json::from_str::<OkLine<$view>>(line).map_err(unreadable)?.data,
                    )), )+
                })
            }

            /// Its name, as errors (and a generated contract) say it.
            pub fn name(self) -> &'static str {
                match self {
                    $( AnswerKind::$variant => stringify!($variant), )+
                }
            }
        }

        $(
            impl From<$view> for Answer {
                fn from(v: $view) -> Answer {
                    Answer::$variant(Box::new(v))
                }
            }

            impl TryFrom<Answer> for $view {
                type Error = BatonError;

                fn try_from(a: Answer) -> Result<$view, BatonError> {
                    match a {
                        Answer::$variant(v) => Ok(*v),
                        other => Err(mismatch(AnswerKind::$variant, other.kind())),
                    }
                }
            }
        )+
    };
}

answers! {
    /// `ping`.
    Pong(PongView),
    /// `new`, `show`: the terminal.
    Terminal(TerminalView),
    /// `ls`.
    Terminals(Vec<TerminalView>),
    /// `send` (streamed or detached) and `follow`: how the turn ended, or that the input was
    /// taken.
    Sent(Sent),
    /// `queue` (listed or changed), `queue NAME run`: the waiting input, in order.
    Queue(Vec<QueuedView>),
    /// `log`.
    Log(LogView),
    /// A finished turn's steps.
    Steps(StepsView),
    /// `instructions`: the standing instructions after the action.
    Instructions(Vec<InstructionView>),
    /// `interrupt`.
    Interrupted(InterruptedView),
    /// `diff`.
    Diff(DiffView),
    /// `merge`.
    Merged(MergeView),
    /// `revert`.
    Reverted(RevertView),
    /// `rm`.
    Removed(RemovedView),
    /// `rename`.
    Renamed(RenamedView),
    /// `rename NAME --conversation TITLE`.
    Titled(TitledView),
    /// `approvals`: the waiting requests.
    Approvals(Vec<ApprovalView>),
    /// `approve`, `deny`: the request as answered.
    Approval(ApprovalView),
    /// `fork`.
    Forked(ForkView),
    /// `rewind`.
    Rewound(RewindView),
    /// `prune`.
    Pruned(PruneView),
    /// `archive`, `unarchive`.
    Archived(ArchivedView),
    /// `export`.
    Exported(ExportView),
    /// `import`.
    Imported(ImportView),
    /// `instructions extract`.
    Extracted(ExtractedView),
    /// `server status`.
    Status(StatusView),
    /// `server stop`.
    Stopping(StoppingView),
    /// `reindex`.
    Reindexed(ReindexView),
    /// `web`.
    Web(WebView),
    /// `integrate`.
    Integrated(IntegrateView),
}

/// How a send ends for the client that made it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
#[allow(clippy::large_enum_variant)]
pub enum Sent {
    /// Its turn ran: how it ended (what `baton send` ends with).
    Ended(TurnSummary),
    /// The input was journalled and the client is not told more: `send --detach`, or a steer
    /// the running turn took (that turn's own client gets its end).
    Accepted(AcceptedView),
}

impl From<TurnSummary> for Answer {
    fn from(s: TurnSummary) -> Answer {
        Sent::Ended(s).into()
    }
}

impl From<AcceptedView> for Answer {
    fn from(a: AcceptedView) -> Answer {
        Sent::Accepted(a).into()
    }
}

impl TryFrom<Answer> for TurnSummary {
    type Error = BatonError;

    fn try_from(a: Answer) -> Result<TurnSummary, BatonError> {
        match Sent::try_from(a)? {
            Sent::Ended(s) => Ok(s),
            Sent::Accepted(_) => Err(BatonError::failed(
                "the send was accepted where its turn's end was expected",
            )),
        }
    }
}

impl TryFrom<Answer> for AcceptedView {
    type Error = BatonError;

    fn try_from(a: Answer) -> Result<AcceptedView, BatonError> {
        match Sent::try_from(a)? {
            Sent::Accepted(v) => Ok(v),
            Sent::Ended(_) => Err(BatonError::failed(
                "the send's turn ended where its acceptance was expected",
            )),
        }
    }
}

/// How a final reply with an answer starts, as [`Reply`] is written (its tag first): a client
/// that sees it reads the line's `data` straight into the view it expects
/// ([`AnswerKind::read_line`]); any other line is read as a [`Reply`].
pub const OK_LINE: &str = r#"{"reply":"ok","data":"#;

/// A final reply's line read for its `data` alone (its tag is [`OK_LINE`]'s).
#[derive(Deserialize)]
struct OkLine<T> {
    data: T,
}

fn unreadable(e: serde_json::Error) -> BatonError {
    BatonError::failed(format!("unreadable answer from the server: {e}"))
}

fn mismatch(wanted: AnswerKind, got: AnswerKind) -> BatonError {
    BatonError::failed(format!(
        "the server answered with {} where {} was expected",
        got.name(),
        wanted.name()
    ))
}

impl Request {
    /// The answer this request ends with (`None`: `watch` and `shell` stream and never end
    /// with one). The one table of which request is answered by which view.
    pub fn answer_kind(&self) -> Option<AnswerKind> {
        use AnswerKind as K;
        Some(match self {
            Request::Ping => K::Pong,
            Request::New { .. } | Request::Show { .. } => K::Terminal,
            Request::Ls { .. } => K::Terminals,
            Request::Send { .. } | Request::Follow { .. } => K::Sent,
            Request::Queue { .. } | Request::QueueRun { .. } | Request::QueueRetry { .. } => {
                K::Queue
            }
            Request::Log { .. } => K::Log,
            Request::Steps { .. } => K::Steps,
            Request::Instructions { .. } => K::Instructions,
            Request::Interrupt { .. } => K::Interrupted,
            Request::Diff { .. } => K::Diff,
            Request::Merge { .. } => K::Merged,
            Request::Revert { .. } => K::Reverted,
            Request::Rm { .. } => K::Removed,
            Request::Rename { .. } => K::Renamed,
            Request::Title { .. } => K::Titled,
            Request::Approvals { .. } => K::Approvals,
            Request::Approve { .. } | Request::Deny { .. } => K::Approval,
            Request::Forget { .. } => K::Terminal,
            Request::Fork { .. } => K::Forked,
            Request::Rewind { .. } => K::Rewound,
            Request::Prune { .. } => K::Pruned,
            Request::Archive { .. } => K::Archived,
            Request::Export { .. } => K::Exported,
            Request::Import { .. } => K::Imported,
            Request::Extract { .. } => K::Extracted,
            Request::Status => K::Status,
            Request::Stop => K::Stopping,
            Request::Reindex => K::Reindexed,
            Request::Web { .. } => K::Web,
            Request::Integrate { .. } => K::Integrated,
            Request::Watch | Request::Shell { .. } => return None,
        })
    }
}

impl Reply {
    /// The final reply carrying `answer`, or its error.
    pub fn answered(answer: Result<Answer, BatonError>) -> Reply {
        let data = answer.and_then(|a| {
            serde_json::to_value(a).map_err(|e| BatonError::failed(format!("internal: {e}")))
        });
        match data {
            Ok(data) => Reply::Ok { data },
            Err(error) => Reply::Error { error },
        }
    }

    /// This final reply to `req`, read as the answer `req` ends with (or its error).
    pub fn into_answer(self, req: &Request) -> Result<Answer, BatonError> {
        match self {
            Reply::Ok { data } => match req.answer_kind() {
                Some(kind) => kind.read(data),
                None => Err(BatonError::failed(
                    "the server answered a streaming request with a result",
                )),
            },
            Reply::Error { error } => Err(error),
            Reply::Event { .. } | Reply::Watch { .. } | Reply::Shell { .. } => Err(
                BatonError::failed("the server answered with an event instead of a result"),
            ),
        }
    }
}

/// The terminal names an answer holds, as a client that shows them under another name (a
/// remote terminal's `HOST:NAME`) rewrites them.
pub struct Names<'a> {
    /// The terminal the answer is about.
    pub name: Option<&'a mut String>,
    /// The terminal it came from (a fork's or rewind's original, an import's name where it
    /// was exported).
    pub from: Option<&'a mut String>,
}

impl Answer {
    /// The terminal names this answer holds at its top (not those of a list's rows).
    /// Exhaustive, so a new answer says here whether it names a terminal.
    pub fn names_mut(&mut self) -> Names<'_> {
        let (name, from) = match self {
            Answer::Terminal(v) => (Some(&mut v.name), None),
            Answer::Log(v) => (Some(&mut v.name), None),
            Answer::Steps(v) => (Some(&mut v.name), None),
            Answer::Interrupted(v) => (Some(&mut v.name), None),
            Answer::Diff(v) => (Some(&mut v.name), None),
            Answer::Merged(v) => (Some(&mut v.name), None),
            Answer::Reverted(v) => (Some(&mut v.name), None),
            Answer::Removed(v) => (Some(&mut v.name), None),
            Answer::Renamed(v) => (Some(&mut v.name), None),
            Answer::Titled(v) => (Some(&mut v.name), None),
            Answer::Approval(v) => (Some(&mut v.terminal), None),
            Answer::Archived(v) => (Some(&mut v.name), None),
            Answer::Exported(v) => (Some(&mut v.name), None),
            Answer::Forked(v) => (Some(&mut v.name), Some(&mut v.from)),
            Answer::Rewound(v) => (Some(&mut v.name), Some(&mut v.from)),
            Answer::Imported(v) => (Some(&mut v.name), Some(&mut v.from)),
            Answer::Sent(sent) => match &mut **sent {
                Sent::Accepted(v) => (Some(&mut v.name), None),
                Sent::Ended(_) => (None, None),
            },
            Answer::Pong(_)
            | Answer::Terminals(_)
            | Answer::Queue(_)
            | Answer::Approvals(_)
            | Answer::Instructions(_)
            | Answer::Pruned(_)
            | Answer::Extracted(_)
            | Answer::Status(_)
            | Answer::Stopping(_)
            | Answer::Reindexed(_)
            | Answer::Web(_)
            | Answer::Integrated(_) => (None, None),
        };
        Names { name, from }
    }
}

#[cfg(test)]
#[path = "answer_tests.rs"]
mod tests;
