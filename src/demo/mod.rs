//! `baton demo`: baton on the simulated CLIs built into the binary (the shims from `shims/`),
//! in a throw-away data directory, so nothing of the user's is touched: the multiplexer on a
//! terminal, a scripted walk-through otherwise.
//! Needs `python3` (the shims are Python scripts).
//!
//! Detaching the demo's multiplexer detaches (another client may be attached to its server):
//! the demo then says where its data is and asks, with one key, whether to end it now or
//! leave it running (`baton demo --stop DIR` ends it later). Ending it ([`cleanup::finish`])
//! removes what it made in real repositories, stops its server and deletes its folder.

mod cleanup;

use std::ffi::OsString;
use std::io::IsTerminal;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::client::{commands, out, render, Client};
use crate::error::BatonError;
use crate::paths::DataDir;
use crate::protocol::{InstructionsAction, Request, SendRequest};

const SHIMS: [(&str, &str); 3] = [
    ("claude", include_str!("../../shims/claude")),
    ("codex", include_str!("../../shims/codex")),
    ("_shimlib.py", include_str!("../../shims/_shimlib.py")),
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
    let marker = root.join(cleanup::MARKER);
    std::fs::write(&marker, "a baton demo's scratch folder\n").map_err(io(&marker))?;
    for dir in [project.clone(), project.join("api"), project.join("review")] {
        seed_project(&dir)?;
    }
    let mut path = OsString::from(bin.as_os_str());
    if let Some(p) = std::env::var_os("PATH") {
        path.push(":");
        path.push(p);
    }
    Ok((client_for(root, path, &home), project))
}

/// A small service for the simulated agents to read and edit: what their canned sessions
/// (`shims/_shimlib.py`, `DEMO_SCENES`) talk about.
const PROJECT: [(&str, &str); 4] = [
    ("README.md", "# demo service\n"),
    (
        "Cargo.toml",
        "[package]\nname = \"billing\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    ),
    (
        "src/server.rs",
        "use axum::{routing::get, Router};\n\npub fn app(pool: Pool) -> Router {\n    Router::new()\n        .route(\"/invoices\", get(crate::invoices::list))\n        // routes\n        .layer(auth::layer())\n        .with_state(pool)\n}\n\n// handlers\n",
    ),
    (
        "src/invoices.rs",
        "pub fn total(lines: &[Line]) -> Cents {\n    lines.iter().map(|l| l.cents).sum()\n}\n",
    ),
];

fn seed_project(dir: &Path) -> Result<(), BatonError> {
    for (rel, text) in PROJECT {
        let p = dir.join(rel);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).map_err(io(parent))?;
        }
        std::fs::write(&p, text).map_err(io(&p))?;
    }
    Ok(())
}

/// Makes `dir` (already seeded) a git repository with one commit of everything in it.
fn init_repo(dir: &Path) -> Result<(), BatonError> {
    let fail = |e: git2::Error| {
        BatonError::failed(format!(
            "demo: cannot make {} a git repository: {e}",
            dir.display()
        ))
    };
    let repo = git2::Repository::init(dir).map_err(fail)?;
    let mut index = repo.index().map_err(fail)?;
    index
        .add_all(["*"], git2::IndexAddOption::DEFAULT, None)
        .map_err(fail)?;
    index.write().map_err(fail)?;
    let tree = repo
        .find_tree(index.write_tree().map_err(fail)?)
        .map_err(fail)?;
    let me = git2::Signature::now("baton demo", "demo@baton.invalid").map_err(fail)?;
    repo.commit(
        Some("HEAD"),
        &me,
        &me,
        "A small billing service",
        &tree,
        &[],
    )
    .map_err(fail)?;
    Ok(())
}

/// A client of the demo rooted at `root`, whose server runs the shims on `path`.
fn client_for(root: &Path, path: OsString, home: &Path) -> Client {
    Client {
        data: DataDir::new(root.join("data")),
        server_env: vec![
            ("BATON_HOME".into(), root.join("data").into_os_string()),
            ("PATH".into(), path),
            ("HOME".into(), home.as_os_str().to_owned()),
            ("CODEX_HOME".into(), home.join(".codex").into_os_string()),
            (
                "CLAUDE_CONFIG_DIR".into(),
                home.join(".claude").into_os_string(),
            ),
            // The simulated CLIs answer from canned agent sessions (`shims/README.md`).
            ("BATON_SHIM_DEMO".into(), "1".into()),
        ],
        via: None,
    }
}

fn step(title: &str, command: &str) {
    out::line("");
    out::bold_line(&format!("## {title}"));
    out::line(&format!("$ {command}"));
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
        match multiplexer(&client, &project) {
            Ok(0) if !end_now(&root)? => return Ok(0),
            other => other,
        }
    } else {
        out::line(&format!(
            "baton demo: simulated claude and codex CLIs, data in {}",
            root.display()
        ));
        script(&client, &project).map(|_| 0)
    };
    let ended = cleanup::finish(&client, &root);
    if interactive && result.is_ok() && ended.is_ok() {
        out::line("baton demo: the simulated server was stopped and its scratch data removed");
    }
    result.and_then(|code| ended.map(|()| code))
}

/// `baton demo --stop DIR`: ends a demo left running after a detach.
pub fn stop(root: &Path) -> Result<i32, BatonError> {
    if !root.join(cleanup::MARKER).is_file() {
        return Err(BatonError::bad_input(format!(
            "{} is not a baton demo's folder (the one `baton demo` printed when it was detached)",
            root.display()
        )));
    }
    let home = root.join("home");
    let client = client_for(root, OsString::new(), &home);
    cleanup::finish(&client, root)?;
    out::line(&format!(
        "baton demo: ended; {} was deleted",
        root.display()
    ));
    Ok(0)
}

/// After a detach: says where the demo's data is and asks whether to end it now. True: end it.
fn end_now(root: &Path) -> Result<bool, BatonError> {
    let data = root.join("data");
    out::line(&format!(
        "[detached from the demo: its server goes on, its data is in {}]\n  attach again: BATON_HOME={} baton attach\n  end it later: baton demo --stop {}",
        data.display(),
        data.display(),
        root.display()
    ));
    out::print("End the demo now (stop its server, delete its data)? q then Enter ends it, Enter leaves it running: ");
    let mut answer = String::new();
    if std::io::stdin().read_line(&mut answer).is_err() {
        return Ok(false);
    }
    let end = decide_end(&answer);
    if !end {
        out::line("baton demo: left running");
    }
    Ok(end)
}

/// Whether the answer to [`end_now`]'s question ends the demo: `q` (or `quit`, `y`, `yes`),
/// any case. Anything else leaves it running: a detach must never lose it by a stray key.
fn decide_end(answer: &str) -> bool {
    matches!(
        answer.trim().to_ascii_lowercase().as_str(),
        "q" | "quit" | "y" | "yes"
    )
}

const HEALTH: &str =
    "Add a /health endpoint to the server that answers 200 with a small JSON body.";
const DOCS: &str = "Document the health check in the README.";
const TEST: &str = "Add a test for the /health endpoint.";
const REVIEW: &str = "Review the changes on this branch.";

/// The prompts the multiplexer demo starts with: (terminal, prompt, provider switched to).
/// Plain requests: the simulated CLIs pick their canned session by the prompt's words.
const SEEDED: [(&str, &str, Option<&str>); 5] = [
    ("api", HEALTH, None),
    (
        "review",
        "Look at the project layout and suggest which tests to write first.",
        None,
    ),
    ("api", DOCS, None),
    ("api", TEST, None),
    ("api", REVIEW, Some("codex")),
];

/// Two terminals on the scratch project (one per simulated CLI), a first prompt running in
/// each, then the multiplexer.
fn multiplexer(client: &Client, project: &Path) -> Result<i32, BatonError> {
    let terminals = [
        ("api", "claude", "Backend of the billing service"),
        ("review", "codex", "Reviews the api terminal's changes"),
    ];
    for (name, provider, brief) in terminals {
        // A folder each: two terminals never share one (`baton new` refuses that).
        // A repository each, so the terminal works in a worktree of its own: its turns'
        // edits are committed and the diff face (prefix g) shows them.
        let dir = project.join(name);
        init_repo(&dir)?;
        client.call(&Request::New {
            name: Some(name.into()),
            dir: dir.to_string_lossy().into_owned(),
            provider: Some(provider.into()),
            model: None,
            brief: Some(brief.into()),
            in_place: false,
        })?;
    }
    // Queued at once, they run one after another while the user looks around: api's third
    // turn opens a fresh conversation (the second passed 45% of the window), its fourth
    // switches to Codex.
    for (name, prompt, provider) in SEEDED {
        client.call(&Request::Send {
            name: name.into(),
            send: SendRequest {
                provider: provider.map(Into::into),
                ..SendRequest::new(prompt)
            },
            detach: true,
        })?;
    }
    // Opened in api's folder: api has the focus, and no offer to make a terminal there.
    let api = project.join("api");
    let here = api.canonicalize().unwrap_or(api);
    // Quiet: the demo says itself what a detach leaves (`end_now`).
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
    send(client, "First prompt: a conversation opens", HEALTH, None)?;
    send(client, "The same conversation resumes", DOCS, None)?;
    send(
        client,
        "Past 45% of the window: a fresh conversation, the instruction carried over",
        TEST,
        None,
    )?;
    send(
        client,
        "Switch provider: same conversation, new session",
        REVIEW,
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

#[cfg(test)]
mod tests {
    #[test]
    fn only_a_clear_answer_ends_the_demo() {
        let rows = [
            ("q\n", true),
            ("Q\n", true),
            (" quit \n", true),
            ("yes\n", true),
            ("\n", false),
            ("", false),
            ("n\n", false),
            ("qq\n", false),
            ("d\n", false),
        ];
        for (answer, want) in rows {
            assert_eq!(super::decide_end(answer), want, "{answer:?}");
        }
    }
}
