//! The Claude turn machine, (phase, event) by (phase, event).

use super::*;
use pretty_assertions::assert_eq;

const OPENED: Event = Event::Wake(Wake::GateOpened);
const CLOSED: Event = Event::Wake(Wake::GateClosed);
const INTERRUPT: Event = Event::Wake(Wake::Interrupt);
const GRACE_OVER: Event = Event::Wake(Wake::GraceOver);
const EOF: Event = Event::Wake(Wake::Eof);
use Action::{AskInterrupt, CloseStdin, DropGate, SendPrompt, Signal, SignalUnanswered, SteerRead};
use TurnStatus::{Completed, Failed};

/// A turn that takes steers and interrupts, neither kept nor handed over.
const STEERED: Setup = Setup {
    gated: false,
    only_prompt: false,
    keep: false,
    closing: false,
};

/// The turn of `setup` after `events`, and the actions of the last one.
fn after(setup: Setup, events: &[Event]) -> (Phase, Vec<Action>) {
    let (mut turn, mut actions) = ClaudeTurn::start(setup);
    for event in events {
        actions = turn.step(event.clone());
    }
    (turn.phase(), actions)
}

fn result(status: TurnStatus) -> Event {
    Event::Result {
        status,
        interrupted: false,
    }
}

fn steer() -> Event {
    Event::Wake(Wake::Steer("more".into()))
}

#[test]
fn the_prompt_goes_at_once_or_when_the_gate_opens_and_eof_follows_a_lone_prompt() {
    let gated = Setup {
        gated: true,
        ..STEERED
    };
    let lone = Setup {
        only_prompt: true,
        ..STEERED
    };
    // (what, setup, events, phase, last actions)
    let cases = [
        ("ungated", STEERED, vec![], Phase::Running, vec![SendPrompt]),
        (
            "ungated, nothing after the prompt",
            lone,
            vec![],
            Phase::Running,
            vec![SendPrompt, CloseStdin],
        ),
        ("gated", gated, vec![], Phase::Gated, vec![]),
        (
            "the gate opens",
            gated,
            vec![OPENED],
            Phase::Running,
            vec![SendPrompt],
        ),
        (
            "the gate closes",
            gated,
            vec![CLOSED],
            Phase::Unprompted,
            vec![CloseStdin],
        ),
        (
            "an interrupt before the gate opens",
            gated,
            vec![INTERRUPT],
            Phase::Unprompted,
            vec![DropGate, CloseStdin],
        ),
        (
            "an interrupt once it will not be prompted",
            gated,
            vec![CLOSED, INTERRUPT],
            Phase::Unprompted,
            vec![],
        ),
        (
            "no steer before the prompt",
            gated,
            vec![steer()],
            Phase::Gated,
            vec![],
        ),
        (
            "a gate left open after the result",
            gated,
            vec![OPENED, result(Failed), OPENED],
            Phase::Draining,
            vec![],
        ),
    ];
    for (what, setup, events, phase, actions) in cases {
        assert_eq!(after(setup, &events), (phase, actions), "{what}");
    }
}

#[test]
fn an_interrupt_is_asked_on_stdin_unless_steers_are_unread_and_sigint_follows_its_grace() {
    // (what, events, phase, last actions)
    let cases = [
        (
            "an interrupt",
            vec![INTERRUPT],
            Phase::Interrupting,
            vec![AskInterrupt],
        ),
        (
            "a second interrupt",
            vec![INTERRUPT, INTERRUPT],
            Phase::Interrupting,
            vec![],
        ),
        (
            "its grace runs out",
            vec![INTERRUPT, GRACE_OVER],
            Phase::Signalled,
            vec![SignalUnanswered],
        ),
        (
            "an interrupt once signalled",
            vec![INTERRUPT, GRACE_OVER, INTERRUPT],
            Phase::Signalled,
            vec![],
        ),
        (
            "a steer it has not echoed",
            vec![steer(), Event::Echo, INTERRUPT],
            Phase::Signalled,
            vec![Signal],
        ),
        (
            "a steer it echoed",
            vec![steer(), Event::Echo, Event::Echo, INTERRUPT],
            Phase::Interrupting,
            vec![AskInterrupt],
        ),
        (
            "a steer while interrupting",
            vec![INTERRUPT, steer()],
            Phase::Interrupting,
            vec![],
        ),
        (
            "a grace with no interrupt",
            vec![GRACE_OVER],
            Phase::Running,
            vec![],
        ),
        (
            "an interrupt after the result",
            vec![result(Failed), INTERRUPT],
            Phase::Draining,
            vec![],
        ),
    ];
    for (what, events, phase, actions) in cases {
        assert_eq!(after(STEERED, &events), (phase, actions), "{what}");
    }
}

#[test]
fn steers_go_in_while_it_runs_and_each_echo_after_the_prompts_is_one_read() {
    // (what, events, phase, last actions)
    let cases = [
        (
            "a steer",
            vec![steer()],
            Phase::Running,
            vec![Action::Steer("more".into())],
        ),
        (
            "the prompt's echo",
            vec![Event::Echo],
            Phase::Running,
            vec![],
        ),
        (
            "the first steer's echo",
            vec![steer(), Event::Echo, Event::Echo],
            Phase::Running,
            vec![SteerRead { index: 0 }],
        ),
        (
            "the second steer's echo, after the result",
            vec![
                steer(),
                steer(),
                Event::Echo,
                Event::Echo,
                result(Completed),
                Event::Echo,
            ],
            Phase::Draining,
            vec![SteerRead { index: 1 }],
        ),
    ];
    for (what, events, phase, actions) in cases {
        assert_eq!(after(STEERED, &events), (phase, actions), "{what}");
    }
}

#[test]
fn at_its_result_a_reusable_cli_is_kept_or_handed_over_and_any_other_is_read_to_its_exit() {
    let keep = Setup {
        keep: true,
        ..STEERED
    };
    let closing = Setup {
        closing: true,
        ..STEERED
    };
    let interrupted_result = Event::Result {
        status: Failed,
        interrupted: true,
    };
    let done = |exit| (Phase::Done(exit), vec![]);
    let draining = (Phase::Draining, vec![CloseStdin]);
    // (what, setup, events, phase and last actions)
    let cases = [
        (
            "completed, kept",
            keep,
            vec![result(Completed)],
            done(Exit::Keep { completed: true }),
        ),
        (
            "completed, kept and closing: kept",
            Setup {
                closing: true,
                ..keep
            },
            vec![result(Completed)],
            done(Exit::Keep { completed: true }),
        ),
        (
            "completed, handed over",
            closing,
            vec![result(Completed)],
            done(Exit::AtResult),
        ),
        (
            "completed, neither",
            STEERED,
            vec![result(Completed)],
            draining.clone(),
        ),
        ("failed, kept", keep, vec![result(Failed)], draining.clone()),
        (
            "failed, handed over",
            closing,
            vec![result(Failed)],
            draining.clone(),
        ),
        (
            "ended on its own interrupt request, kept",
            keep,
            vec![INTERRUPT, interrupted_result.clone()],
            done(Exit::Keep { completed: false }),
        ),
        (
            "ended on its own interrupt request, handed over",
            closing,
            vec![INTERRUPT, interrupted_result.clone()],
            done(Exit::AtResult),
        ),
        (
            "ended by SIGINT",
            keep,
            vec![INTERRUPT, GRACE_OVER, interrupted_result],
            draining.clone(),
        ),
        (
            "a steer it has not echoed",
            keep,
            vec![steer(), Event::Echo, result(Completed)],
            draining.clone(),
        ),
        (
            "every steer echoed",
            keep,
            vec![steer(), Event::Echo, Event::Echo, result(Completed)],
            done(Exit::Keep { completed: true }),
        ),
        (
            "a subagent",
            closing,
            vec![Event::Subagent, result(Completed)],
            draining.clone(),
        ),
        (
            "a second result",
            keep,
            vec![result(Failed), result(Completed)],
            (Phase::Draining, vec![]),
        ),
        ("EOF before the result", keep, vec![EOF], done(Exit::Reaped)),
        (
            "EOF while draining",
            keep,
            vec![result(Failed), EOF],
            done(Exit::Reaped),
        ),
    ];
    for (what, setup, events, want) in cases {
        assert_eq!(after(setup, &events), want, "{what}");
    }
}

#[test]
fn the_loop_waits_only_for_what_the_phase_takes() {
    // (phase, gate, interrupts, grace, steers)
    let cases = [
        (Phase::Gated, true, true, false, false),
        (Phase::Unprompted, false, true, false, false),
        (Phase::Running, false, true, false, true),
        (Phase::Interrupting, false, true, true, false),
        (Phase::Signalled, false, true, false, false),
        (Phase::Draining, false, false, false, false),
        (Phase::Done(Exit::Reaped), false, false, false, false),
    ];
    for (phase, gate, interrupts, grace, steers) in cases {
        let (mut turn, _) = ClaudeTurn::start(STEERED);
        turn.phase = phase;
        let want = Wants {
            gate,
            interrupts,
            grace,
            steers,
        };
        assert_eq!(turn.wants(), want, "{phase:?}");
    }
}
