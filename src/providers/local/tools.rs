//! The tools a local model can call, through Chat Completions function calling: read, list,
//! search, write and edit files, and run commands, all fenced to the terminal's checkout.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::AsyncReadExt;

use super::fence::{Fence, FenceError};

/// Why a tool call did nothing. The text goes back to the model (after `error: `) so it can
/// correct itself.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    #[error("the arguments of {tool} are not JSON: {source}")]
    NotJson {
        tool: String,
        source: serde_json::Error,
    },
    #[error("{tool} needs a string argument {key:?}")]
    Missing { tool: String, key: String },
    #[error("there is no tool {tool:?} (tools: read_file, list_dir, search, write_file, edit_file, run_command)")]
    Unknown { tool: String },
    #[error(transparent)]
    Fence(#[from] FenceError),
    #[error("bad pattern: {0}")]
    Pattern(#[from] regex::Error),
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("cannot list {path}: {source}")]
    List {
        path: String,
        source: std::io::Error,
    },
    #[error("cannot create {path}: {source}")]
    Create {
        path: String,
        source: std::io::Error,
    },
    #[error("cannot write {path}: {source}")]
    Write {
        path: String,
        source: std::io::Error,
    },
    #[error("old_text does not occur in {path} (read it again and copy it exactly)")]
    NoMatch { path: String },
    #[error("old_text occurs {count} times in {path}: give more context so it is unique")]
    Ambiguous { path: String, count: usize },
    #[error("cannot start sh: {0}")]
    Start(std::io::Error),
}

/// Most bytes of a file `read_file` returns.
const READ_CAP: usize = 64 * 1024;
/// Most bytes of a command's output the model gets back.
pub const OUTPUT_CAP: usize = 16 * 1024;
/// Most entries `list_dir` and matches `search` return.
const LIST_CAP: usize = 500;
const SEARCH_CAP: usize = 200;
/// Files larger than this are not searched.
const SEARCH_FILE_CAP: u64 = 1024 * 1024;

/// The `tools` array of a request.
pub fn specs() -> Value {
    let f = |name: &str, description: &str, params: Value| json!({"type": "function", "function": {"name": name, "description": description, "parameters": params}});
    let obj = |props: Value, required: &[&str]| json!({"type": "object", "properties": props, "required": required});
    let s = |d: &str| json!({"type": "string", "description": d});
    json!([
        f("read_file", "Read a text file of the checkout.", obj(json!({"path": s("path relative to the checkout")}), &["path"])),
        f("list_dir", "List a directory of the checkout (directories end with /).", obj(json!({"path": s("directory relative to the checkout; default .")}), &[])),
        f("search", "Search the checkout's files for a regular expression; answers path:line: text.", obj(json!({"pattern": s("regular expression"), "path": s("directory or file to search; default .")}), &["pattern"])),
        f("write_file", "Create or overwrite a file of the checkout with the given content.", obj(json!({"path": s("path relative to the checkout"), "content": s("the whole new content")}), &["path", "content"])),
        f("edit_file", "Replace one exact, unique occurrence of old_text with new_text in a file of the checkout.", obj(json!({"path": s("path relative to the checkout"), "old_text": s("text to replace, exactly as in the file"), "new_text": s("replacement")}), &["path", "old_text", "new_text"])),
        f("run_command", "Run a shell command (sh -c) in the checkout; answers its exit status and output.", obj(json!({"command": s("the command line")}), &["command"])),
    ])
}

/// A tool call to run.
pub struct Call<'a> {
    pub name: &'a str,
    pub args: Value,
}

impl<'a> Call<'a> {
    /// Parses the model's arguments (an empty string counts as `{}`).
    pub fn new(name: &'a str, arguments: &str) -> Result<Call<'a>, ToolError> {
        let args = if arguments.trim().is_empty() {
            json!({})
        } else {
            serde_json::from_str(arguments).map_err(|source| ToolError::NotJson {
                tool: name.to_string(),
                source,
            })?
        };
        Ok(Call { name, args })
    }

    fn arg(&self, key: &str) -> Result<&str, ToolError> {
        self.args
            .get(key)
            .and_then(Value::as_str)
            .ok_or_else(|| ToolError::Missing {
                tool: self.name.to_string(),
                key: key.to_string(),
            })
    }

    fn opt(&self, key: &str) -> &str {
        self.args.get(key).and_then(Value::as_str).unwrap_or(".")
    }

    /// One line for the transcript (`Read src/main.rs`, `$ cargo test`).
    pub fn summary(&self) -> String {
        let a = |k: &str| self.args.get(k).and_then(Value::as_str).unwrap_or("?");
        let line = match self.name {
            "read_file" => format!("Read {}", a("path")),
            "list_dir" => format!("List {}", self.opt("path")),
            "search" => format!("Search {:?} in {}", a("pattern"), self.opt("path")),
            "write_file" => format!("Write {}", a("path")),
            "edit_file" => format!("Edit {}", a("path")),
            "run_command" => format!("$ {}", a("command")),
            other => format!("{other} (unknown tool)"),
        };
        line.lines()
            .next()
            .unwrap_or_default()
            .chars()
            .take(200)
            .collect()
    }
}

/// What a tool gives back: the text for the model, and for commands, what the transcript shows.
pub struct Done {
    pub output: String,
    pub shown: Option<String>,
}

fn said(output: String) -> Done {
    Done {
        output,
        shown: None,
    }
}

/// Runs `call` inside `fence`. Errors become the tool's answer so the model can correct itself.
pub async fn run(
    call: &Call<'_>,
    fence: &Fence,
    timeout: Duration,
    interrupted: &Arc<AtomicBool>,
) -> Done {
    let result = match call.name {
        "read_file" => read_file(call, fence).map(said),
        "list_dir" => list_dir(call, fence).map(said),
        "search" => search(call, fence).map(said),
        "write_file" => write_file(call, fence).map(said),
        "edit_file" => edit_file(call, fence).map(said),
        "run_command" => match call.arg("command") {
            Ok(cmd) => run_command(cmd, fence.root(), timeout, interrupted).await,
            Err(e) => Err(e),
        },
        other => Err(ToolError::Unknown {
            tool: other.to_string(),
        }),
    };
    result.unwrap_or_else(|e| said(format!("error: {e}")))
}

fn read_file(call: &Call<'_>, fence: &Fence) -> Result<String, ToolError> {
    let path = fence.read(call.arg("path")?)?;
    let bytes = std::fs::read(&path).map_err(|source| ToolError::Read {
        path: fence.show(&path),
        source,
    })?;
    let mut text = String::from_utf8_lossy(&bytes[..bytes.len().min(READ_CAP)]).into_owned();
    if bytes.len() > READ_CAP {
        text.push_str(&format!(
            "\n[… cut: the file has {} bytes, the first {READ_CAP} are shown]",
            bytes.len()
        ));
    }
    Ok(text)
}

fn list_dir(call: &Call<'_>, fence: &Fence) -> Result<String, ToolError> {
    let dir = fence.read(call.opt("path"))?;
    let read = std::fs::read_dir(&dir).map_err(|source| ToolError::List {
        path: fence.show(&dir),
        source,
    })?;
    let mut names: Vec<String> = read
        .flatten()
        .map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                format!("{name}/")
            } else {
                name
            }
        })
        .collect();
    names.sort();
    let total = names.len();
    names.truncate(LIST_CAP);
    if total > LIST_CAP {
        names.push(format!("[… {} more]", total - LIST_CAP));
    }
    Ok(if names.is_empty() {
        "(empty)".to_string()
    } else {
        names.join("\n")
    })
}

fn search(call: &Call<'_>, fence: &Fence) -> Result<String, ToolError> {
    let re = regex::Regex::new(call.arg("pattern")?)?;
    let start = fence.read(call.opt("path"))?;
    let mut hits = Vec::new();
    let mut stack = vec![start];
    while let Some(p) = stack.pop() {
        if hits.len() >= SEARCH_CAP {
            break;
        }
        let Ok(meta) = std::fs::symlink_metadata(&p) else {
            continue;
        };
        if meta.is_dir() {
            if p.file_name().is_some_and(|n| n == ".git") {
                continue;
            }
            let mut kids: Vec<_> = std::fs::read_dir(&p)
                .map(|r| r.flatten().map(|e| e.path()).collect())
                .unwrap_or_default();
            kids.sort_by(|a, b| b.cmp(a));
            stack.extend(kids);
        } else if meta.is_file() && meta.len() <= SEARCH_FILE_CAP {
            let Ok(text) = std::fs::read_to_string(&p) else {
                continue; // binary or unreadable
            };
            for (i, line) in text.lines().enumerate() {
                if re.is_match(line) {
                    let line: String = line.chars().take(300).collect();
                    hits.push(format!("{}:{}: {line}", fence.show(&p), i + 1));
                    if hits.len() >= SEARCH_CAP {
                        hits.push(format!("[… stopped at {SEARCH_CAP} matches]"));
                        break;
                    }
                }
            }
        }
    }
    Ok(if hits.is_empty() {
        "no matches".to_string()
    } else {
        hits.join("\n")
    })
}

fn write_file(call: &Call<'_>, fence: &Fence) -> Result<String, ToolError> {
    let content = call.arg("content")?;
    let path = fence.write(call.arg("path")?)?;
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|source| ToolError::Create {
            path: fence.show(parent),
            source,
        })?;
    }
    std::fs::write(&path, content).map_err(|source| ToolError::Write {
        path: fence.show(&path),
        source,
    })?;
    Ok(format!(
        "wrote {} bytes to {}",
        content.len(),
        fence.show(&path)
    ))
}

fn edit_file(call: &Call<'_>, fence: &Fence) -> Result<String, ToolError> {
    let (old, new) = (call.arg("old_text")?, call.arg("new_text")?);
    let path = fence.write(call.arg("path")?)?;
    let shown = fence.show(&path);
    let text = std::fs::read_to_string(&path).map_err(|source| ToolError::Read {
        path: shown.clone(),
        source,
    })?;
    match text.matches(old).count() {
        0 => Err(ToolError::NoMatch { path: shown }),
        1 => {
            std::fs::write(&path, text.replacen(old, new, 1)).map_err(|source| {
                ToolError::Write {
                    path: shown.clone(),
                    source,
                }
            })?;
            Ok(format!("edited {shown}"))
        }
        count => Err(ToolError::Ambiguous { path: shown, count }),
    }
}

/// Keeps the first `OUTPUT_CAP` bytes of a pipe and drains the rest (a full pipe blocks).
async fn capped(pipe: Option<impl tokio::io::AsyncRead + Unpin>) -> (Vec<u8>, usize) {
    let (mut kept, mut total) = (Vec::new(), 0);
    let Some(mut pipe) = pipe else {
        return (kept, total);
    };
    let mut buf = [0u8; 8192];
    while let Ok(n) = pipe.read(&mut buf).await {
        if n == 0 {
            break;
        }
        total += n;
        let room = OUTPUT_CAP.saturating_sub(kept.len());
        kept.extend_from_slice(&buf[..n.min(room)]);
    }
    (kept, total)
}

async fn run_command(
    command: &str,
    cwd: &Path,
    timeout: Duration,
    interrupted: &Arc<AtomicBool>,
) -> Result<Done, ToolError> {
    let mut child = tokio::process::Command::new("sh")
        .arg("-c")
        .arg(command)
        .current_dir(cwd)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .process_group(0)
        .kill_on_drop(true)
        .spawn()
        .map_err(ToolError::Start)?;
    let pid = child.id().and_then(|p| i32::try_from(p).ok());
    let out = tokio::spawn(capped(child.stdout.take()));
    let err = tokio::spawn(capped(child.stderr.take()));
    let stop = async {
        let limit = tokio::time::sleep(timeout);
        tokio::pin!(limit);
        loop {
            tokio::select! {
                () = &mut limit => return format!("timed out after {:.1}s and was killed", timeout.as_secs_f64()),
                () = tokio::time::sleep(Duration::from_millis(50)) => {
                    if interrupted.load(Ordering::SeqCst) {
                        return "interrupted".to_string();
                    }
                }
            }
        }
    };
    let status = tokio::select! {
        s = child.wait() => match s {
            Ok(s) => s.code().map_or_else(|| format!("ended by a signal ({s})"), |c| format!("exit {c}")),
            Err(e) => format!("cannot wait for it: {e}"),
        },
        why = stop => {
            if let Some(pid) = pid {
                // The whole group: a shell's children would keep the pipes open.
                let _ = nix::sys::signal::killpg(nix::unistd::Pid::from_raw(pid), nix::sys::signal::Signal::SIGKILL);
            }
            let _ = child.wait().await;
            why
        }
    };
    let (stdout, n_out) = out.await.unwrap_or_default();
    let (stderr, n_err) = err.await.unwrap_or_default();
    let mut text = String::from_utf8_lossy(&stdout).into_owned();
    if !stderr.is_empty() {
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&String::from_utf8_lossy(&stderr));
    }
    if n_out + n_err > stdout.len() + stderr.len() {
        text.push_str(&format!(
            "\n[… output cut: {} bytes in all, the first {OUTPUT_CAP} of each stream kept]",
            n_out + n_err
        ));
    }
    let shown_body: String = text.chars().take(1500).collect();
    let cut = if shown_body.len() < text.len() {
        "\n…"
    } else {
        ""
    };
    Ok(Done {
        shown: Some(format!("$ {command} → {status}\n{shown_body}{cut}")),
        output: format!("{status}\n{text}"),
    })
}

#[cfg(test)]
#[path = "tools_tests.rs"]
mod tests;
