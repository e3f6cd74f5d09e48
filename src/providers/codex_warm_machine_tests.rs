//! The warm Codex turn machine, (phase, event) by (phase, event).

use super::*;
use pretty_assertions::assert_eq;

const OPENED: Event = Event::Wake(Wake::GateOpened);
const CLOSED: Event = Event::Wake(Wake::GateClosed);
const INTERRUPT: Event = Event::Wake(Wake::Interrupt);
const GRACE_OVER: Event = Event::Wake(Wake::GraceOver);
const EOF: Event = Event::Wake(Wake::Eof);
use serde_json::json;

/// Requests an app-server was sent before the turn (`initialize`, `thread/resume`): the
/// turn's `turn/start` is request 3.
const BEFORE: u64 = 2;

fn accepted() -> Event {
    Event::Line(json!({"id": 3, "result": {"turn": {"id": "t1"}}}))
}

fn note() -> Event {
    Event::Line(json!({"method": "thread/tokenUsage/updated", "params": {}}))
}

fn read(ended: bool) -> Event {
    Event::Read {
        turn: Some("t1".into()),
        ended,
    }
}

fn steer() -> Event {
    Event::Wake(Wake::Steer("more".into()))
}

fn running() -> Phase {
    Phase::Running {
        turn: Some("t1".into()),
    }
}

/// The state of a turn (`gated` or not) after `events`, its phase and the actions of the last
/// one.
fn after(gated: bool, events: &[Event]) -> (AppTurnState, Phase, Vec<Action>) {
    let (mut state, mut actions) = AppTurnState::start(BEFORE, gated);
    for event in events {
        actions = state.step(event.clone());
    }
    let phase = state.phase().clone();
    (state, phase, actions)
}

fn phase_and_actions(gated: bool, events: &[Event]) -> (Phase, Vec<Action>) {
    let (_, phase, actions) = after(gated, events);
    (phase, actions)
}

#[test]
fn the_turn_starts_at_once_or_when_the_gate_opens_and_the_resumes_lines_are_not_its() {
    let decline = json!({"id": 7, "method": "item/tool/requestUserInput"});
    let reply = super::super::requests::decline(&decline).unwrap();
    let approval = json!({"id": 8, "method": "item/fileChange/requestApproval", "params": {}});
    // (what, gated, events, phase, last actions)
    let cases = [
        (
            "ungated",
            false,
            vec![],
            Phase::Starting { id: 3 },
            vec![Action::Start { id: 3 }],
        ),
        ("gated", true, vec![], Phase::Gated, vec![]),
        (
            "the gate opens",
            true,
            vec![OPENED],
            Phase::Starting { id: 3 },
            vec![Action::Start { id: 3 }],
        ),
        ("the gate closes", true, vec![CLOSED], Phase::Done, vec![]),
        (
            "an interrupt before the gate opens",
            true,
            vec![INTERRUPT],
            Phase::Done,
            vec![],
        ),
        (
            "a line before the turn/start",
            true,
            vec![note()],
            Phase::Gated,
            vec![],
        ),
        (
            "a line before its answer",
            false,
            vec![note()],
            Phase::Starting { id: 3 },
            vec![],
        ),
        (
            "a request of its own before the turn/start",
            true,
            vec![Event::Line(decline.clone())],
            Phase::Gated,
            vec![Action::Reply(reply.clone())],
        ),
        (
            "a request of its own while running",
            false,
            vec![accepted(), read(false), Event::Line(decline)],
            running(),
            vec![Action::Reply(reply), Action::Feed],
        ),
        (
            "an approval request while running: the inbox answers it",
            false,
            vec![accepted(), read(false), Event::Line(approval.clone())],
            running(),
            vec![Action::Ask(approval), Action::Feed],
        ),
        (
            "its answer",
            false,
            vec![accepted()],
            running(),
            vec![Action::Feed],
        ),
        (
            "an answer without the turn's id, then the parser's",
            false,
            vec![Event::Line(json!({"id": 3, "result": {}})), read(false)],
            running(),
            vec![],
        ),
        (
            "its turn/completed",
            false,
            vec![accepted(), read(true)],
            Phase::Done,
            vec![],
        ),
        ("EOF", false, vec![EOF], Phase::Done, vec![]),
    ];
    for (what, gated, events, phase, actions) in cases {
        assert_eq!(
            phase_and_actions(gated, &events),
            (phase, actions),
            "{what}"
        );
    }
}

#[test]
fn a_refused_turn_start_ends_the_loop_after_its_line_and_says_why() {
    let refusal = Event::Line(json!({"id": 3, "error": {"message": "thread not found"}}));
    let (state, phase, actions) = after(false, std::slice::from_ref(&refusal));
    assert_eq!(
        (phase, actions),
        (Phase::Starting { id: 3 }, vec![Action::Feed])
    );
    assert!(!state.is_done(), "the line is read first");
    let (state, phase, _) = after(false, &[refusal, read(false)]);
    assert_eq!(phase, Phase::Done);
    let left = Left {
        refused: Some("thread not found".into()),
        accepted: false,
        interrupt_asked: false,
        took_interrupt: false,
        steers_unanswered: false,
        alive: true,
    };
    assert_eq!(state.left(), left);
}

#[test]
fn an_interrupt_waits_for_the_turns_id_and_sigint_follows_its_grace() {
    let interrupt = |id| Action::Interrupt {
        id,
        turn: "t1".into(),
    };
    // (what, events, phase, last actions, interrupt left as)
    let cases = [
        (
            "once the turn's id is known",
            vec![accepted(), read(false), INTERRUPT],
            running(),
            vec![interrupt(4)],
            (true, true),
        ),
        (
            "before the turn/start's answer",
            vec![INTERRUPT],
            Phase::Starting { id: 3 },
            vec![],
            (true, false),
        ),
        (
            "sent with the answer's line",
            vec![INTERRUPT, accepted()],
            running(),
            vec![Action::Feed, interrupt(4)],
            (true, true),
        ),
        (
            "a second interrupt",
            vec![accepted(), INTERRUPT, INTERRUPT],
            running(),
            vec![],
            (true, true),
        ),
        (
            "its grace runs out",
            vec![accepted(), INTERRUPT, GRACE_OVER],
            running(),
            vec![Action::SignalUnanswered],
            (true, false),
        ),
        (
            "a grace with no interrupt",
            vec![accepted(), GRACE_OVER],
            running(),
            vec![],
            (false, false),
        ),
        (
            "an interrupt after turn/completed",
            vec![accepted(), read(true), INTERRUPT],
            Phase::Done,
            vec![],
            (false, false),
        ),
    ];
    for (what, events, phase, actions, (asked, took)) in cases {
        let (state, got_phase, got_actions) = after(false, &events);
        assert_eq!((got_phase, got_actions), (phase, actions), "{what}");
        let left = state.left();
        assert_eq!(
            (left.interrupt_asked, left.took_interrupt),
            (asked, took),
            "{what}"
        );
    }
}

#[test]
fn steers_join_a_turn_whose_id_is_known_and_each_answer_tells_whether_it_was_read() {
    let steered = |id| Action::Steer {
        id,
        turn: "t1".into(),
        text: "more".into(),
    };
    let taken = Event::Line(json!({"id": 4, "result": {}}));
    let refused = Event::Line(json!({"id": 4, "error": {"message": "no active turn"}}));
    // (what, events, last actions, steers left unanswered)
    let cases = [
        (
            "a steer",
            vec![accepted(), read(false), steer()],
            vec![steered(4)],
            true,
        ),
        (
            "before the turn's id",
            vec![Event::Line(json!({"id": 3, "result": {}})), steer()],
            vec![],
            false,
        ),
        (
            "once interrupted",
            vec![accepted(), INTERRUPT, steer()],
            vec![],
            false,
        ),
        (
            "its answer",
            vec![accepted(), read(false), steer(), taken],
            vec![Action::SteerRead { index: 0 }, Action::Feed],
            false,
        ),
        (
            "its refusal",
            vec![accepted(), read(false), steer(), refused],
            vec![Action::Feed],
            false,
        ),
        (
            "the second steer",
            vec![accepted(), read(false), steer(), steer()],
            vec![steered(5)],
            true,
        ),
    ];
    for (what, events, actions, unanswered) in cases {
        let (state, _, got) = after(false, &events);
        assert_eq!(got, actions, "{what}");
        assert_eq!(state.left().steers_unanswered, unanswered, "{what}");
    }
    let (state, _, _) = after(false, &[accepted(), steer(), steer()]);
    assert_eq!(state.requests(), 5, "the app-server's ids count on");
}

#[test]
fn the_loop_waits_only_for_what_the_phase_takes() {
    // (what, events, gate, interrupts, grace, steers)
    let cases = [
        ("gated", vec![], true, true, false, false),
        ("starting", vec![OPENED], false, true, false, false),
        (
            "running",
            vec![OPENED, accepted()],
            false,
            true,
            false,
            true,
        ),
        (
            "interrupting",
            vec![OPENED, accepted(), INTERRUPT],
            false,
            true,
            true,
            false,
        ),
        (
            "signalled",
            vec![OPENED, accepted(), INTERRUPT, GRACE_OVER],
            false,
            true,
            false,
            false,
        ),
        ("done", vec![EOF], false, false, false, false),
    ];
    for (what, events, gate, interrupts, grace, steers) in cases {
        let (state, _, _) = after(true, &events);
        let want = Wants {
            gate,
            interrupts,
            grace,
            steers,
        };
        assert_eq!(state.wants(), want, "{what}");
    }
    let (state, _, _) = after(false, &[EOF]);
    assert!(!state.left().alive);
}
