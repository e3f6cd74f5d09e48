//! The requests baton sends a warm `codex app-server` and how it tells its answers: the
//! app-server's command line for a run (`-c` overrides), `thread/resume`, `turn/start` with
//! the sandbox policy `exec` would derive and the approval policy, `turn/interrupt`,
//! `turn/steer`. Pure; the shapes:
//! `fixtures/captures/codex-warm/README.md`.

use std::ffi::OsString;

use serde_json::{json, Value};

use super::super::codex::toml_basic_string;
use super::super::RunSpec;

/// The flags of `codex exec` that `codex app-server` takes too, each with a value.
const SHARED_FLAGS: [&str; 4] = ["-c", "--config", "--enable", "--disable"];

/// The app-server's command line for runs of `spec`, or None when `spec` has an extra flag
/// the app-server does not take (such a run stays cold).
pub fn app_args(spec: &RunSpec) -> Option<Vec<OsString>> {
    let mut args: Vec<OsString> = vec!["app-server".into()];
    if let Some(mode) = &spec.sandbox {
        args.extend([
            "-c".into(),
            format!("sandbox_mode={}", toml_basic_string(mode)).into(),
        ]);
    }
    if !spec.add_dirs.is_empty() {
        let roots: Vec<String> = spec
            .add_dirs
            .iter()
            .map(|d| toml_basic_string(&d.to_string_lossy()))
            .collect();
        let value = format!(
            "sandbox_workspace_write.writable_roots=[{}]",
            roots.join(",")
        );
        args.extend(["-c".into(), value.into()]);
    }
    for (name, value) in flag_pairs(&spec.extra_args)? {
        args.extend([OsString::from(name), value.into()]);
    }
    Some(args)
}

/// `extra` as (flag, value) pairs (`--config=V` split), or None for a flag the app-server does
/// not take, or one missing its value.
fn flag_pairs(extra: &[String]) -> Option<Vec<(&str, &str)>> {
    let mut pairs = Vec::new();
    let mut it = extra.iter();
    while let Some(flag) = it.next() {
        let (name, value) = match flag.split_once('=') {
            Some((name, value)) if name.starts_with("--") => (name, value),
            _ => (flag.as_str(), it.next()?.as_str()),
        };
        if !SHARED_FLAGS.contains(&name) {
            return None;
        }
        pairs.push((name, value));
    }
    Some(pairs)
}

/// The value of a boolean `-c KEY=true|false` among `extra` (the last one wins).
fn config_bool(extra: &[String], key: &str) -> Option<bool> {
    flag_pairs(extra)?
        .into_iter()
        .rev()
        .filter(|(name, _)| matches!(*name, "-c" | "--config"))
        .filter_map(|(_, pair)| pair.split_once('='))
        .filter(|(k, _)| k.trim() == key)
        .find_map(|(_, v)| v.trim().parse().ok())
}

/// The sandbox policy a turn passes, as `exec` derives it from its flags; None where the
/// sandbox mode is not set (the app-server keeps its configured one).
pub fn sandbox_policy(spec: &RunSpec) -> Option<Value> {
    Some(match spec.sandbox.as_deref()? {
        "workspace-write" => {
            let roots: Vec<String> = spec
                .add_dirs
                .iter()
                .map(|d| d.to_string_lossy().into_owned())
                .collect();
            let flag = |key: &str| {
                config_bool(&spec.extra_args, &format!("sandbox_workspace_write.{key}"))
                    .unwrap_or(false)
            };
            json!({
                "type": "workspaceWrite",
                "writableRoots": roots,
                "networkAccess": flag("network_access"),
                "excludeSlashTmp": flag("exclude_slash_tmp"),
                "excludeTmpdirEnvVar": flag("exclude_tmpdir_env_var"),
            })
        }
        "read-only" => json!({"type": "readOnly"}),
        "danger-full-access" => json!({"type": "dangerFullAccess"}),
        _ => return None,
    })
}

/// The thread an app-server is `codex_warm::prepare`d with.
#[derive(Debug, Clone, Copy)]
pub enum Open<'a> {
    /// `thread/resume` of this thread.
    Resume(&'a str),
    /// `thread/start` of a new thread holding the run's system text (`developerInstructions`,
    /// as `exec`'s profile gives it: captured in `fixtures/captures/approvals/README.md`).
    Start,
}

/// The request opening the thread (id `id`).
pub(super) fn open_request(id: u64, spec: &RunSpec, open: Open<'_>, model: Option<&str>) -> String {
    match open {
        Open::Resume(thread) => resume_request(id, spec, thread, model),
        Open::Start => start_request(id, spec, model),
    }
}

/// The thread the app-server opened, by its answer to the opening request, and the model a
/// started thread runs on (its answer's `model`: the session's, as a resumed thread's is the
/// model its last turn ran on).
pub(super) fn opened(
    open: Open<'_>,
    answer: Result<&Value, String>,
) -> Result<(String, Option<String>), String> {
    match open {
        Open::Resume(thread) => answer
            .map(|_| (thread.to_string(), None))
            .map_err(|e| format!("thread/resume failed: {e}")),
        Open::Start => {
            let result = answer.map_err(|e| format!("thread/start failed: {e}"))?;
            let model = result["model"].as_str().map(str::to_string);
            result["thread"]["id"]
                .as_str()
                .filter(|id| !id.is_empty())
                .map(|id| (id.to_string(), model))
                .ok_or_else(|| "thread/start answered no thread id".to_string())
        }
    }
}

/// One JSON-RPC request line (newline included, as every line written to its stdin).
pub(super) fn request(id: u64, method: &str, params: Value) -> String {
    json_line(json!({"id": id, "method": method, "params": params}))
}

pub(super) fn json_line(message: Value) -> String {
    format!("{message}\n")
}

/// `thread/resume` of `thread` for runs of `spec` on `model`.
pub fn resume_request(id: u64, spec: &RunSpec, thread: &str, model: Option<&str>) -> String {
    let mut params = json!({
        "threadId": thread,
        "cwd": spec.cwd.to_string_lossy(),
        "approvalPolicy": "never",
        "excludeTurns": true,
    });
    if let Some(model) = model {
        params["model"] = json!(model);
    }
    if let Some(mode) = &spec.sandbox {
        params["sandbox"] = json!(mode);
    }
    request(id, "thread/resume", params)
}

/// `thread/start` of a new thread for runs of `spec` on `model`: as [`resume_request`], with
/// the run's system text as the thread's `developerInstructions` (where `exec` reads it from
/// its profile's `developer_instructions`; never in argv).
pub fn start_request(id: u64, spec: &RunSpec, model: Option<&str>) -> String {
    let mut params = json!({
        "cwd": spec.cwd.to_string_lossy(),
        "approvalPolicy": "never",
    });
    if let Some(model) = model {
        params["model"] = json!(model);
    }
    if let Some(mode) = &spec.sandbox {
        params["sandbox"] = json!(mode);
    }
    if !spec.system_text.is_empty() {
        params["developerInstructions"] = json!(spec.system_text);
    }
    request(id, "thread/start", params)
}

/// The approval policy of a turn: `exec`'s (`never`), or one that asks the inbox
/// (`codex::ask::ASK_POLICY`) when the turn may ask.
pub fn approval_policy(ask: bool) -> &'static str {
    if ask {
        super::super::codex::ask::ASK_POLICY
    } else {
        "never"
    }
}

/// `turn/start` of `prompt` on `thread`, with everything `exec` would pass again, and the
/// approval `policy`.
pub fn turn_request(
    id: u64,
    spec: &RunSpec,
    thread: &str,
    model: Option<&str>,
    prompt: &str,
    policy: &str,
) -> String {
    let mut params = json!({
        "threadId": thread,
        "input": [{"type": "text", "text": prompt, "text_elements": []}],
        "cwd": spec.cwd.to_string_lossy(),
        "approvalPolicy": policy,
    });
    if let Some(model) = model {
        params["model"] = json!(model);
    }
    if let Some(policy) = sandbox_policy(spec) {
        params["sandboxPolicy"] = policy;
    }
    request(id, "turn/start", params)
}

/// `turn/interrupt` of the running `turn`.
pub(super) fn interrupt_request(id: u64, thread: &str, turn: &str) -> String {
    request(
        id,
        "turn/interrupt",
        json!({"threadId": thread, "turnId": turn}),
    )
}

/// `turn/steer`: `text` joins the running `turn`.
pub(super) fn steer_request(id: u64, thread: &str, turn: &str, text: &str) -> String {
    request(
        id,
        "turn/steer",
        json!({
            "threadId": thread,
            "input": [{"type": "text", "text": text, "text_elements": []}],
            "expectedTurnId": turn,
        }),
    )
}

/// A message of the app-server: the answer to request `id` (its result, or its error's
/// message), else None.
pub(super) fn answer_to(message: &Value, id: u64) -> Option<Result<&Value, String>> {
    if message.get("method").is_some() || message["id"].as_u64() != Some(id) {
        return None;
    }
    if let Some(result) = message.get("result") {
        return Some(Ok(result));
    }
    let error = &message["error"];
    let text = error["message"].as_str().unwrap_or("no message");
    Some(Err(match error["code"].as_i64() {
        Some(code) => format!("{text} (code {code})"),
        None => text.to_string(),
    }))
}

/// A request of the app-server's own (a question, an approval outside a turn): it has both an
/// id and a method. Baton answers only a turn's approvals (the inbox), and declines the rest.
pub(super) fn decline(message: &Value) -> Option<String> {
    message.get("method")?;
    let id = message.get("id")?;
    Some(json_line(json!({
        "id": id,
        "error": {"code": -32601, "message": "baton runs Codex headless: nothing can be approved"},
    })))
}

#[cfg(test)]
#[path = "codex_warm_tests.rs"]
mod tests;
