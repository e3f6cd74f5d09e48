//! `baton demo`: baton on the simulated CLIs built into the binary (the shims from `shims/`),
//! in a throw-away data directory, so nothing of the user's is touched: the multiplexer on a
//! terminal, a scripted walk-through otherwise.
//! Needs `python3` (the shims are Python scripts).

use std::ffi::OsString;
use std::io::IsTerminal;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::client::{commands, out, render, Client};
use crate::error::BatonError;
use crate::paths::DataDir;
use crate::protocol::{InstructionsAction, Request, SendRequest};

const SHIMS: [(&str, &str); 3] = [
    ("claude", include_str!("../shims/claude")),
    ("codex", include_str!("../shims/codex")),
    ("_shimlib.py", include_str!("../shims/_shimlib.py")),
];

fn io(what: &Path) -> impl Fn(std::io::Error) -> BatonError + '_ {
    move |e| BatonError::failed(format!("demo: cannot write {}: {e}", what.display()))
}

/// Lays out the demo's world in `root`: shims on a private PATH, a HOME, a project.
fn prepare(root: &Path) -> Result<(Client, PathBuf), BatonError> {
    let bin = root.join("bin");
    let home = root.join("home");
    let project = root.join("project");
    for d in [&bin, &home, &project] {
        std::fs::create_dir_all(d).map_err(io(d))?;
    }
    for (name, text) in SHIMS {
        let p = bin.join(name);
        std::fs::write(&p, text).map_err(io(&p))?;
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).map_err(io(&p))?;
    }
    let readme = project.join("README.md");
    std::fs::write(&readme, "# demo service\n").map_err(io(&readme))?;
    let mut path = OsString::from(bin.as_os_str());
    if let Some(p) = std::env::var_os("PATH") {
        path.push(":");
        path.push(p);
    }
    let client = Client {
        data: DataDir::new(root.join("data")),
        server_env: vec![
            ("BATON_HOME".into(), root.join("data").into_os_string()),
            ("PATH".into(), path),
            ("HOME".into(), home.clone().into_os_string()),
            ("CODEX_HOME".into(), home.join(".codex").into_os_string()),
            (
                "CLAUDE_CONFIG_DIR".into(),
                home.join(".claude").into_os_string(),
            ),
        ],
    };
    Ok((client, project))
}

fn step(title: &str, command: &str) {
    out::line(&format!("\n\x1b[1m## {title}\x1b[0m\n$ {command}"));
}

fn send(
    client: &Client,
    title: &str,
    prompt: &str,
    provider: Option<&str>,
) -> Result<i32, BatonError> {
    let flag = provider
        .map(|p| format!("--provider {p} "))
        .unwrap_or_default();
    step(title, &format!("baton send api {flag}{prompt:?}"));
    let req = Request::Send {
        name: "api".into(),
        send: SendRequest {
            provider: provider.map(Into::into),
            ..SendRequest::new(prompt)
        },
        detach: false,
    };
    commands::send(client, req, "api", false)
}

/// `baton demo`: the multiplexer on simulated CLIs when stdout is a terminal, else (or with
/// `--script`) the scripted walk-through.
pub fn run(script_only: bool) -> Result<i32, BatonError> {
    if crate::providers::process::find_bin("python3", std::env::var_os("PATH").as_deref()).is_none()
    {
        return Err(BatonError::bad_input(
            "the demo's simulated CLIs need python3 on PATH (apt-get install python3)",
        ));
    }
    let interactive =
        !script_only && std::io::stdout().is_terminal() && std::io::stdin().is_terminal();
    let root = std::env::temp_dir().join(format!("baton-demo-{}", std::process::id()));
    let (mut client, project) = prepare(&root)?;
    let result = if interactive {
        // Slow the simulated answers a little so streaming is visible.
        client
            .server_env
            .push(("BATON_SHIM_DELAY_MS".into(), "120".into()));
        multiplexer(&client, &project)
    } else {
        out::line(&format!(
            "baton demo: simulated claude and codex CLIs, data in {}",
            root.display()
        ));
        out::line(
            "(the [[…]] markers in the prompts script the simulated CLIs: context size, window)",
        );
        script(&client, &project).map(|_| 0)
    };
    let _ = commands::server_stop(&client);
    let _ = std::fs::remove_dir_all(&root);
    if interactive && result.is_ok() {
        out::line("baton demo: the simulated server was stopped and its scratch data removed");
    }
    result
}

/// Two terminals on the scratch project (one per simulated CLI), a first prompt running in
/// each, then the multiplexer.
fn multiplexer(client: &Client, project: &Path) -> Result<i32, BatonError> {
    let terminals = [
        ("api", "claude", "Backend of the billing service"),
        ("review", "codex", "Reviews the api terminal's changes"),
    ];
    for (name, provider, brief) in terminals {
        client.call(&Request::New {
            name: Some(name.into()),
            dir: project.to_string_lossy().into_owned(),
            provider: Some(provider.into()),
            model: None,
            brief: Some(brief.into()),
            in_place: true,
        })?;
    }
    let first = [
        (
            "api",
            "Add a /health endpoint. [[calls:3]] [[ctx:40000]] [[window:200000]]",
        ),
        ("review", "Look at the project layout and suggest tests."),
    ];
    for (name, prompt) in first {
        client.call(&Request::Send {
            name: name.into(),
            send: SendRequest::new(prompt),
            detach: true,
        })?;
    }
    let here = project
        .canonicalize()
        .unwrap_or_else(|_| project.to_path_buf());
    let opts = crate::tui::Options {
        title: Some("baton demo · SIMULATED claude & codex".into()),
        cwd: Some(here.to_string_lossy().into_owned()),
        quiet_detach: true,
        attach: None,
    };
    crate::tui::run_with(client, opts)
}

fn script(client: &Client, project: &Path) -> Result<(), BatonError> {
    step(
        "A terminal for a project",
        "baton new api --dir project --brief \"Backend of the billing service\"",
    );
    let req = Request::New {
        name: Some("api".into()),
        dir: project.to_string_lossy().into_owned(),
        provider: Some("claude".into()),
        model: None,
        brief: Some("Backend of the billing service".into()),
        in_place: false,
    };
    commands::simple(client, &req, false, render::show)?;
    step(
        "A standing instruction",
        "baton instructions api add \"Always run cargo fmt before committing.\"",
    );
    let add = InstructionsAction::Add {
        text: "Always run cargo fmt before committing.".into(),
    };
    commands::instructions(client, "api".into(), add, false)?;
    send(
        client,
        "First prompt: a conversation opens",
        "Add a /health endpoint. [[ctx:40000]] [[window:200000]]",
        None,
    )?;
    send(
        client,
        "The same conversation resumes",
        "Document it in the README. [[ctx:91000]] [[window:200000]]",
        None,
    )?;
    send(
        client,
        "Past 45% of the window: a fresh conversation, the instruction carried over",
        "Add a test for it. [[ctx:12000]] [[window:200000]]",
        None,
    )?;
    send(
        client,
        "Switch provider: same conversation, new session",
        "Review the change.",
        Some("codex"),
    )?;
    step("The terminal now", "baton show api");
    commands::simple(
        client,
        &Request::Show { name: "api".into() },
        false,
        render::show,
    )?;
    step("Its history", "baton log api");
    commands::simple(
        client,
        &Request::Log { name: "api".into() },
        false,
        render::log,
    )?;
    Ok(())
}
