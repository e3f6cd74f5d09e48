use pretty_assertions::assert_eq;

use super::*;

#[test]
fn enter_takes_text_as_a_prompt_batons_command_the_clis_or_an_escape() {
    let cases: [(&str, Typed); 13] = [
        ("fix the bug", Typed::Prompt),
        (
            "/fork x",
            Typed::Baton {
                name: "fork",
                rest: "x",
            },
        ),
        (
            "/rewind  2 y ",
            Typed::Baton {
                name: "rewind",
                rest: "2 y",
            },
        ),
        (
            "/new",
            Typed::Baton {
                name: "new",
                rest: "",
            },
        ),
        ("/foo bar", Typed::Cli),
        ("/forkx", Typed::Cli),
        (
            "/cost",
            Typed::Baton {
                name: "cost",
                rest: "",
            },
        ),
        ("/", Typed::Cli),
        ("/model/compact", Typed::Glued { name: "model" }),
        ("//fork x", Typed::Escaped("/fork x")),
        ("a /fork", Typed::Prompt),
        // The CLI's own words that start with one of baton's go on as typed.
        ("/new-chat", Typed::Cli),
        ("/fork:x", Typed::Glued { name: "fork" }),
    ];
    for (text, want) in cases {
        assert_eq!(classify(text), want, "{text:?}");
    }
}

#[test]
fn tab_completes_the_name_and_cycles_through_the_matches() {
    let names = |t: &str| matches(t).iter().map(|c| c.name).collect::<Vec<_>>();
    assert_eq!(names("/"), SLASH.map(|c| c.name).to_vec());
    assert_eq!(names("/in"), vec!["instructions", "interrupt"]);
    assert_eq!(names("/fork x"), Vec::<&str>::new());
    assert_eq!(names("//f"), Vec::<&str>::new());
    assert_eq!(names("fork"), Vec::<&str>::new());

    let (text, cycle) = complete("/in", None).expect("a match");
    assert_eq!(
        (text.as_str(), &cycle),
        ("/instructions", &("/in".into(), 0))
    );
    let (text, cycle) = complete(&text, Some(&cycle)).expect("the next");
    assert_eq!((text.as_str(), &cycle), ("/interrupt", &("/in".into(), 1)));
    let (text, _) = complete(&text, Some(&cycle)).expect("round again");
    assert_eq!(text, "/instructions");
    // Edited since: a completion of what is typed now.
    assert_eq!(
        complete("/ar", Some(&cycle)).map(|c| c.0),
        Some("/archive".into())
    );
    assert_eq!(complete("/zz", None), None);
    assert_eq!(complete("hello", None), None);
}

#[test]
fn each_command_checks_its_arguments_and_names_the_focused_terminal() {
    let words = |w: &[&str]| Action::Command(w.iter().map(|s| s.to_string()).collect());
    let cases: [(&str, &str, Result<Action, String>); 16] = [
        ("new", "", Ok(Action::Fresh)),
        ("new", "x", Err("usage: /new".into())),
        ("model", "opus", Ok(Action::Model("opus".into()))),
        (
            "model",
            "",
            Err("/model needs a model's name: /model NAME (/model default: back to the provider's default)".into()),
        ),
        (
            "provider",
            "codex",
            Ok(Action::Provider(ProviderKind::Codex, None)),
        ),
        (
            "provider",
            "local:qwen",
            Ok(Action::Provider(ProviderKind::Local, Some("qwen".into()))),
        ),
        (
            "provider",
            "gpt",
            Err("gpt: no such provider (usage: /provider P)".into()),
        ),
        ("fork", "x", Ok(words(&["fork", "api", "x"]))),
        ("fork", "", Ok(words(&["fork", "api"]))),
        ("rewind", "2 y", Ok(words(&["rewind", "api", "2", "y"]))),
        ("rewind", "", Err("usage: /rewind N [NEW]".into())),
        ("archive", "", Ok(words(&["archive", "api"]))),
        ("interrupt", "", Ok(words(&["interrupt", "api"]))),
        ("help", "", Ok(Action::Help)),
        ("cost", "", Ok(Action::Cost)),
        ("cost", "all", Err("usage: /cost".into())),
    ];
    for (name, rest, want) in cases {
        assert_eq!(action(name, rest, "api"), want, "/{name} {rest}");
    }
}

#[test]
fn the_title_hints_what_enter_will_do() {
    let cases: [(&str, Option<&str>); 6] = [
        ("hello", None),
        ("/in", Some(" /instructions /interrupt · Tab completes ")),
        (
            "/fork x",
            Some(" /fork [NEW]: fork this terminal into NEW (as `baton fork`) · Enter runs it "),
        ),
        (
            "/foo bar",
            Some(" /foo is not baton's: sent to the CLI as typed (// for a literal /) "),
        ),
        ("//new", Some(" /new is sent to the CLI as typed ")),
        ("/f", Some(" /fork · Tab completes ")),
    ];
    for (text, want) in cases {
        assert_eq!(hint(text).as_deref(), want, "{text:?}");
    }
}

#[test]
fn model_without_a_name_says_what_it_needs_and_default_unpins() {
    let e = action("model", "", "t").unwrap_err();
    assert!(
        e.contains("/model NAME") && e.contains("/model default"),
        "{e}"
    );
    assert_eq!(
        action("model", "default", "t"),
        Ok(Action::Model("default".into()))
    );
    assert_eq!(
        hint("/model/compact").as_deref(),
        Some(
            " /model/compact: /model takes NAME after a space · //… sends it to the CLI as typed "
        )
    );
    assert_eq!(
        model_said("default"),
        "the next prompt goes back to the provider's default model"
    );
}
