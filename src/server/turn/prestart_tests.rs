//! Tests of which sends start their CLI ahead (`prestart::plain`).

use super::*;

#[test]
fn only_a_plain_queued_send_to_a_claude_terminal_starts_its_cli_ahead() {
    let send = |f: &dyn Fn(&mut SendRequest)| {
        let mut s = SendRequest {
            prompt: "fix the bug".into(),
            provider: None,
            model: None,
            dir: None,
            mode: SendModeArg::Queue,
            fresh: false,
        };
        f(&mut s);
        s
    };
    let cases: [(&str, SendRequest, ProviderKind, bool); 9] = [
        ("plain", send(&|_| {}), ProviderKind::Claude, true),
        ("codex", send(&|_| {}), ProviderKind::Codex, false),
        ("local", send(&|_| {}), ProviderKind::Local, false),
        (
            "switch",
            send(&|s| s.provider = Some("codex".into())),
            ProviderKind::Claude,
            false,
        ),
        (
            "model",
            send(&|s| s.model = Some("opus".into())),
            ProviderKind::Claude,
            false,
        ),
        (
            "dir",
            send(&|s| s.dir = Some("/tmp".into())),
            ProviderKind::Claude,
            false,
        ),
        (
            "fresh",
            send(&|s| s.fresh = true),
            ProviderKind::Claude,
            false,
        ),
        (
            "steer",
            send(&|s| s.mode = SendModeArg::Steer),
            ProviderKind::Claude,
            false,
        ),
        (
            "jump",
            send(&|s| s.mode = SendModeArg::Jump),
            ProviderKind::Claude,
            false,
        ),
    ];
    for (what, s, provider, want) in cases {
        assert_eq!(plain(&s, provider), want, "{what}");
    }
}

#[test]
fn a_terminal_is_idle_for_it_only_with_nothing_running_taken_or_held() {
    let rt = TermRuntime::default();
    assert!(idle(&rt));
    rt.set_taken(Some(3));
    assert!(!idle(&rt), "an input taken");
    rt.set_taken(None);
    rt.held.store(true, std::sync::atomic::Ordering::SeqCst);
    assert!(!idle(&rt), "the queue held");
}
