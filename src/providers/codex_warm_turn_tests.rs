//! Whether a warm Codex turn leaves its app-server for the next one.
use super::*;

#[test]
fn an_app_server_is_kept_only_after_a_turn_that_ended_as_asked() {
    let done = AppTurnEnd {
        alive: true,
        ended: true,
        ..AppTurnEnd::default()
    };
    type Change = fn(&mut AppTurnEnd);
    let cases: Vec<(&str, Change, bool, bool)> = vec![
        // (what, change, kept, its command stopped)
        ("a completed turn", |_| {}, true, false),
        (
            "a turn whose app-server died",
            |e| e.alive = false,
            false,
            false,
        ),
        ("no turn/completed", |e| e.ended = false, false, false),
        ("a refused turn/start", |e| e.refused = true, false, false),
        (
            "an interrupt it took",
            |e| {
                e.interrupted = true;
                e.took_interrupt = true;
            },
            true,
            false,
        ),
        (
            "an interrupt that needed SIGINT",
            |e| e.interrupted = true,
            false,
            false,
        ),
        (
            "an interrupt that cut a running command",
            |e| {
                e.interrupted = true;
                e.took_interrupt = true;
                e.tools_running = true;
            },
            false,
            true,
        ),
        (
            "a command still running, not interrupted (it completes in the turn)",
            |e| e.tools_running = true,
            true,
            false,
        ),
        (
            "a steer it has not answered",
            |e| e.steers_unanswered = true,
            false,
            false,
        ),
    ];
    for (what, change, kept, stopped) in cases {
        let mut end = done;
        change(&mut end);
        assert_eq!(end.leaves_app_server_reusable(), kept, "{what}");
        assert_eq!(end.stops_a_command(), stopped, "{what}");
    }
}
