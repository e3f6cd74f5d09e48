//! Tests of reading `config.toml`: the documented shape, defaults, endpoints and errors.

use super::*;
use crate::words::ProviderKind;
use pretty_assertions::assert_eq;

#[test]
fn the_documented_config_example_parses() {
    let doc = include_str!("../docs/configuration.md");
    let start = doc.find("```toml\n").unwrap() + "```toml\n".len();
    let block = &doc[start..start + doc[start..].find("```").unwrap()];
    let c = Config::parse(block).unwrap_or_else(|e| panic!("docs/configuration.md: {e}"));
    assert_eq!(crate::providers::of(ProviderKind::Claude).bin(&c), "claude");
}

#[test]
fn documented_shape_parses() {
    let c = Config::parse(
        r#"
[providers.claude]
bin = "/opt/claude"
model = "sonnet"
args = ["--max-turns", "40"]

[providers.codex]
bin = "codex"
model = "gpt-5.5"
args = []
sandbox = ""

[providers.local.endpoints.gemma]
base_url = "http://127.0.0.1:8080/v1"
model = "gemma-3-270m"
api_key_env = "LOCAL_API_KEY"
context_window = 4096

[instructions]
extractor = "local"
"#,
    )
    .unwrap();
    let (name, gemma) = c.endpoint(None).unwrap();
    assert_eq!(name, "gemma");
    assert_eq!(
        gemma,
        &EndpointConfig {
            base_url: "http://127.0.0.1:8080/v1".into(),
            model: Some("gemma-3-270m".into()),
            api_key_env: Some("LOCAL_API_KEY".into()),
            context_window: Some(4096),
            ..EndpointConfig::default()
        }
    );
    assert_eq!(
        crate::providers::of(ProviderKind::Claude).bin(&c),
        "/opt/claude"
    );
    assert_eq!(c.providers.claude.args, vec!["--max-turns", "40"]);
    assert_eq!(c.permission_mode(), Some("acceptEdits".to_string()));
    assert_eq!(c.sandbox(), None);
    assert_eq!(crate::providers::of(ProviderKind::Codex).bin(&c), "codex");
}

#[test]
fn empty_config_has_headless_defaults() {
    let c = Config::parse("").unwrap();
    assert_eq!(crate::providers::of(ProviderKind::Codex).bin(&c), "codex");
    assert_eq!(c.permission_mode(), Some("acceptEdits".to_string()));
    assert_eq!(c.sandbox(), Some("workspace-write".to_string()));
}

#[test]
fn endpoints_are_chosen_by_name_or_when_alone() {
    let two = Config::parse(
        "[providers.local.endpoints.a]\nbase_url = \"http://127.0.0.1:1/v1\"\n[providers.local.endpoints.b]\nbase_url = \"http://127.0.0.1:2/v1\"\n",
    )
    .unwrap();
    assert_eq!(two.endpoint(Some("b")).unwrap().0, "b");
    let e = two.endpoint(None).unwrap_err().to_string();
    assert!(e.contains("local:NAME") && e.contains("a, b"), "{e}");
    let e = two.endpoint(Some("c")).unwrap_err().to_string();
    assert!(e.contains("[providers.local.endpoints.c]"), "{e}");
    let e = Config::default().endpoint(None).unwrap_err().to_string();
    assert!(e.contains("no local endpoint is configured"), "{e}");
    let e = Config::parse("[providers.local.endpoints.a]\nmodel = \"m\"\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("base_url"), "{e}");
}

#[test]
fn endpoint_errors_say_what_to_add() {
    let two = Config::parse(
        "[providers.local.endpoints.a]\nbase_url = \"u\"\n[providers.local.endpoints.b]\nbase_url = \"u\"\n",
    )
    .unwrap();
    let none = Config::default();
    let said = |r: Result<(String, &EndpointConfig), ConfigError>| r.unwrap_err().to_string();
    assert_eq!(
        [
            said(none.endpoint(Some("g"))),
            said(two.endpoint(Some("g"))),
            said(none.endpoint(None)),
            said(two.endpoint(None)),
        ],
        [
            "no local endpoint \"g\" is configured: add [providers.local.endpoints.g] with base_url and model to baton's config.toml",
            "no local endpoint \"g\" is configured (configured: a, b); add [providers.local.endpoints.g] to baton's config.toml",
            "no local endpoint is configured: add [providers.local.endpoints.NAME] with base_url and model to baton's config.toml",
            "several local endpoints are configured (a, b): name one with --provider local:NAME",
        ]
    );
    assert_eq!(
        Config::parse("[ui]\nnotify = 3\n").unwrap_err().to_string(),
        "line 2: wanted string or table"
    );
}

#[test]
fn typos_are_reported() {
    let e = Config::parse("[providers.claude]\nbinn = \"x\"\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("binn"), "{e}");
}

#[test]
fn ui_notify_is_read() {
    let table = [
        ("", Notify::Bell),
        ("[ui]\nnotify = \"bell\"\n", Notify::Bell),
        ("[ui]\nnotify = \"osc9\"\n", Notify::Osc9),
        ("[ui]\nnotify = \"osc777\"\n", Notify::Osc777),
        ("[ui]\nnotify = \"none\"\n", Notify::Off),
    ];
    for (text, want) in table {
        assert_eq!(Config::parse(text).unwrap().ui.notify, want, "{text}");
    }
    let e = Config::parse("[ui]\nnotify = \"loud\"\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("line 2"), "{e}");
}

#[test]
fn storage_retention_is_read_and_zero_turns_it_off() {
    let table = [
        ("", None),
        ("[storage]\n", None),
        ("[storage]\nretention_days = 0\n", None),
        ("[storage]\nretention_days = 30\n", Some(30)),
    ];
    for (text, want) in table {
        assert_eq!(
            Config::parse(text).unwrap().storage.retention(),
            want,
            "{text}"
        );
    }
    for bad in ["retention_days = -1", "retention_days = \"30\"", "keep = 3"] {
        let e = Config::parse(&format!("[storage]\n{bad}\n")).unwrap_err();
        assert!(e.to_string().contains("line 2"), "{bad}: {e}");
    }
}

#[test]
fn a_repository_is_named_by_an_absolute_path() {
    let ok = Config::parse("[repos.\"/src/app\"]\nsetup = \"npm ci\"\n").unwrap();
    assert_eq!(ok.repos["/src/app"].setup.as_deref(), Some("npm ci"));
    let e = Config::parse("[repos.\"src/app\"]\nports = 2\n").unwrap_err();
    assert!(e.to_string().contains("absolute path"), "{e}");
}
