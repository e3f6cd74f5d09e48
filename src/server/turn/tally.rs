//! What a turn's events add up to (its answer, tool lines, session, whether the CLI ended it):
//! one fold, the same live (`cli::TurnCtx`, event by event) and read back from the raw stream
//! of a turn a crash or an export cut short (`server::recover`, `exports::import`), so both
//! journal the same `turn_finished` for the same stream. Pure.

use crate::words::TurnEvent;

/// A turn's events summed up.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Tally {
    /// The answer's pieces joined ([`TurnEvent::add_to_answer`]).
    pub answer: String,
    /// Each tool call's one-line summary, in order.
    pub tools: Vec<String>,
    /// The provider session it ran in, and that session's model (the last one said).
    pub session: Option<(String, Option<String>)>,
    /// The CLI reported the turn's end (its result).
    pub ended: bool,
}

impl Tally {
    /// Adds one event.
    pub fn add(&mut self, ev: &TurnEvent) {
        ev.add_to_answer(&mut self.answer);
        match ev {
            TurnEvent::ToolUse { summary, .. } => self.tools.push(summary.clone()),
            TurnEvent::Session { session_id, model } => {
                self.session = Some((session_id.clone(), model.clone()));
            }
            TurnEvent::End { .. } => self.ended = true,
            TurnEvent::Text { .. }
            | TurnEvent::Delta { .. }
            | TurnEvent::ToolResult { .. }
            | TurnEvent::Denied { .. }
            | TurnEvent::SubagentText { .. }
            | TurnEvent::Usage { .. }
            | TurnEvent::Warning { .. }
            // The server keeps a notice among the turn's notes as it comes (`TurnCtx`).
            | TurnEvent::Notice { .. } => {}
        }
    }

    /// The sum of `events`.
    pub fn of<'a>(events: impl IntoIterator<Item = &'a TurnEvent>) -> Tally {
        let mut tally = Tally::default();
        events.into_iter().for_each(|ev| tally.add(ev));
        tally
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::words::TurnStatus;
    use pretty_assertions::assert_eq;

    fn tool(summary: &str) -> TurnEvent {
        TurnEvent::tool("Tool", summary.to_string())
    }

    #[test]
    fn each_event_adds_its_part() {
        let session = |id: &str, model: Option<&str>| TurnEvent::Session {
            session_id: id.into(),
            model: model.map(str::to_string),
        };
        let text = |t: &str| TurnEvent::Text { text: t.into() };
        let end = TurnEvent::End {
            status: TurnStatus::Completed,
            error: None,
        };
        let rows: Vec<(Vec<TurnEvent>, Tally)> = vec![
            (vec![], Tally::default()),
            (
                vec![session("s1", None), session("s2", Some("m"))],
                Tally {
                    session: Some(("s2".into(), Some("m".into()))),
                    ..Tally::default()
                },
            ),
            (
                vec![text("a"), tool("Bash ls"), text("b"), tool("Edit x")],
                Tally {
                    answer: "a\n\nb".into(),
                    tools: vec!["Bash ls".into(), "Edit x".into()],
                    ..Tally::default()
                },
            ),
            (
                vec![
                    TurnEvent::Delta {
                        text: "he".into(),
                        start: true,
                    },
                    TurnEvent::Delta {
                        text: "llo".into(),
                        start: false,
                    },
                    end,
                ],
                Tally {
                    answer: "hello".into(),
                    ended: true,
                    ..Tally::default()
                },
            ),
        ];
        for (events, want) in rows {
            assert_eq!(Tally::of(&events), want, "{events:?}");
        }
    }
}
