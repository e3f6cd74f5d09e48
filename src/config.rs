//! `config.toml`: which CLI binaries to run, with which model and flags, which
//! OpenAI-compatible endpoints the `local` provider talks to, and how long archived terminals
//! are kept. Every key is optional.
//!
//! Defaults for headless runs: Claude gets `--permission-mode acceptEdits` (edits confined to the
//! working directory and the added screenshots folder, no unattended prompts), Codex gets
//! `--sandbox workspace-write` (the checkout writable, the rest read-only).

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use crate::error::BatonError;

/// What is wrong with the config, or with what a command asked of it. Each message says what
/// to change in `config.toml` (or on the command line).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// The text is not valid TOML or not baton's shape, at this line.
    #[error("line {line}: {message}")]
    Invalid { line: usize, message: String },
    /// The same, where the parser could not say which line.
    #[error("{message}")]
    InvalidSomewhere { message: String },
    #[error("no local endpoint {name:?} is configured: add [providers.local.endpoints.{name}] with base_url and model to baton's config.toml")]
    NoEndpoints { name: String },
    #[error("no local endpoint {name:?} is configured (configured: {configured}); add [providers.local.endpoints.{name}] to baton's config.toml")]
    UnknownEndpoint { name: String, configured: String },
    #[error("no local endpoint is configured: add [providers.local.endpoints.NAME] with base_url and model to baton's config.toml")]
    NoEndpoint,
    #[error("several local endpoints are configured ({configured}): name one with --provider local:NAME")]
    SeveralEndpoints { configured: String },
}

/// Bad input, as the command line reports it.
impl From<ConfigError> for BatonError {
    fn from(e: ConfigError) -> Self {
        BatonError::bad_input(e.to_string())
    }
}

/// The message alone: lets callers that map errors to text (`.map_err(BatonError::bad_input)`,
/// a `?` into `Result<_, String>`) take a [`ConfigError`] unchanged.
impl From<ConfigError> for String {
    fn from(e: ConfigError) -> Self {
        e.to_string()
    }
}

/// Warm CLIs kept by default, per provider: an idle Claude holds ~155 MB, an idle Codex
/// app-server ~150 MB (issue 17's measurements).
/// No count: the warm CLIs are bounded by their memory (`[warm] memory_mb`, issue 42).
pub const DEFAULT_WARM: usize = usize::MAX;
/// How long a warm CLI waits by default.
pub const DEFAULT_WARM_IDLE_SECS: u64 = 600;
pub const DEFAULT_CLAUDE_PERMISSION_MODE: &str = "acceptEdits";
pub const DEFAULT_CODEX_SANDBOX: &str = "workspace-write";

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    #[serde(default)]
    pub providers: Providers,
    #[serde(default)]
    pub instructions: InstructionsConfig,
    #[serde(default)]
    pub git: GitConfig,
    #[serde(default)]
    pub ui: UiConfig,
    #[serde(default)]
    pub storage: StorageConfig,
    /// `[hosts.NAME]`: other machines whose baton servers `HOST:NAME` reaches over ssh.
    #[serde(default)]
    pub hosts: BTreeMap<String, HostConfig>,
    #[serde(default)]
    pub remote: RemoteConfig,
    #[serde(default)]
    pub web: WebConfig,
    #[serde(default)]
    pub approvals: ApprovalsConfig,
    #[serde(default)]
    pub warm: WarmConfig,
    #[serde(default)]
    pub limits: LimitsConfig,
    /// `[repos."/abs/path/of/repo"]`: what each repository's new worktrees get, keyed by the
    /// main checkout's absolute path. The user's own: trusted as it is.
    #[serde(default)]
    pub repos: BTreeMap<String, RepoConfig>,
}

/// `[web]`: where the web client is served (`baton web`, `src/web/`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WebConfig {
    /// The port, kept across restarts (default: `baton web --port`, else any free one).
    pub port: Option<u16>,
    /// The address listened on (default `127.0.0.1`: this machine only; a tailnet address
    /// reaches it from the tailnet).
    pub bind: Option<String>,
}

/// What a repository's new worktrees get: `[repos."/abs/path"]` in the user's config, or
/// `[worktree]` in the repository's own `.baton.toml` (whose `setup` runs only once the user
/// trusted the file: `baton trust PATH`). The user's keys win. The place for the repository's
/// other commands too (`check`, run by `baton integrate`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RepoConfig {
    /// A shell command run in each new worktree before its first turn (`npm ci`).
    pub setup: Option<String>,
    /// Seconds the set-up may take before it is stopped (default 600).
    pub setup_timeout_secs: Option<u64>,
    /// A block of this many ports of its own per terminal (`BATON_PORT`, `BATON_PORTS`).
    pub ports: Option<u16>,
    /// The command `baton integrate` runs in the integration lane (`cargo test`).
    pub check: Option<String>,
    /// Seconds the check may take before it is stopped (default 600).
    pub check_timeout_secs: Option<u64>,
    /// `auto`: the lane runs again after each turn's automatic commit in the repository.
    pub integrate: Option<IntegrateWhen>,
}

/// When the integration lane runs: `[repos."PATH"] integrate`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IntegrateWhen {
    /// When asked (`baton integrate`).
    #[default]
    Asked,
    /// Also after each turn's automatic commit.
    Auto,
}

/// [`RepoConfig::check_timeout_secs`]'s default.
pub const DEFAULT_CHECK_TIMEOUT_SECS: u64 = 600;

/// `.baton.toml`'s `[integrate]`: the repository's own check command (run only once the user
/// trusted the file, as its set-up).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IntegrateFile {
    pub check: Option<String>,
    pub check_timeout_secs: Option<u64>,
}

/// [`RepoConfig::setup_timeout_secs`]'s default.
pub const DEFAULT_SETUP_TIMEOUT_SECS: u64 = 600;

/// A repository's own `.baton.toml`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RepoFile {
    #[serde(default)]
    pub worktree: RepoConfig,
    #[serde(default)]
    pub integrate: IntegrateFile,
}

/// The name of a repository's own settings file, at its root.
pub const REPO_FILE: &str = ".baton.toml";

impl RepoFile {
    /// Parses `.baton.toml`'s text; the error is one line, as [`Config::parse`]'s.
    pub fn parse(text: &str) -> Result<RepoFile, ConfigError> {
        toml::from_str(text).map_err(|e: toml::de::Error| located(text, &e))
    }
}

/// A TOML error as one line: `line N: what is wrong`.
fn located(text: &str, e: &toml::de::Error) -> ConfigError {
    let message = e.message().replace('\n', " ");
    match e.span() {
        Some(s) => ConfigError::Invalid {
            line: text[..s.start.min(text.len())].matches('\n').count() + 1,
            message,
        },
        None => ConfigError::InvalidSomewhere { message },
    }
}

/// `[warm]`: what all providers' warm CLIs may hold together.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WarmConfig {
    /// Their own memory in MiB, all providers together (default: the smaller of 2 GiB and a
    /// quarter of the machine's memory); past it the longest idle are stopped.
    pub memory_mb: Option<u64>,
}

/// `[limits]`: how much the server does at once.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimitsConfig {
    /// CLIs starting at once (default: one per core; 0: no cap); the other turns wait their
    /// turn in the order they came (`server::starting`).
    pub starting: Option<usize>,
}

/// `[approvals]`: what a turn's CLI may not do on its own waits for the user (`baton approvals`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApprovalsConfig {
    /// `outside` (default): a call the fence refuses asks the user instead; `never`: it is
    /// refused, as before the inbox.
    pub ask: Option<AskWhen>,
    /// Seconds a request waits before it is denied (saying so to the model); unset: it waits
    /// until answered or its turn ends.
    pub timeout_secs: Option<u64>,
}

/// [`ApprovalsConfig::ask`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AskWhen {
    #[default]
    Outside,
    Never,
}

/// `[hosts.NAME]`: all baton keeps about another host (see `client::hosts`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostConfig {
    /// What `ssh` is given: `me@10.0.0.5`, or an alias of `~/.ssh/config`.
    pub ssh: String,
    /// The baton binary on that host (default: `baton`, looked up on its PATH).
    pub baton: Option<String>,
    /// The data directory of that host's server (default: its own default).
    pub data_dir: Option<String>,
}

/// `[remote]`: how long a listing waits for other hosts.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RemoteConfig {
    /// A host that has not answered `ls` within this many milliseconds is listed offline
    /// (default 3000).
    pub offline_after_ms: Option<u64>,
}

/// [`RemoteConfig::offline_after_ms`]'s default.
pub const DEFAULT_OFFLINE_AFTER_MS: u64 = 3000;

impl RemoteConfig {
    pub fn offline_after(&self) -> std::time::Duration {
        std::time::Duration::from_millis(self.offline_after_ms.unwrap_or(DEFAULT_OFFLINE_AFTER_MS))
    }
}

/// `[storage]`: what baton keeps on disk.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StorageConfig {
    /// Archived terminals idle for this many days are pruned (as `baton prune --older-than N`,
    /// never forced) by the server after it starts and every day it runs; unset or 0: never.
    pub retention_days: Option<u32>,
}

impl StorageConfig {
    /// The retention in days, when it is on.
    pub fn retention(&self) -> Option<u32> {
        self.retention_days.filter(|d| *d > 0)
    }
}

/// `[ui]`: the multiplexer.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UiConfig {
    /// How a turn that ends out of view is announced.
    #[serde(default)]
    pub notify: Notify,
    /// `[ui.keys]`: the prefix key and the keys after it.
    #[serde(default)]
    pub keys: KeysConfig,
}

/// `[ui.keys]`: key names as tmux writes them (`C-a`, `M-x`, `%`); unset keys keep their
/// defaults. Checked (names, duplicates) when the multiplexer starts.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeysConfig {
    /// Default `C-b`, or `C-a` when baton runs inside tmux.
    pub prefix: Option<String>,
    pub new: Option<String>,
    pub next: Option<String>,
    pub prev: Option<String>,
    pub detach: Option<String>,
    pub help: Option<String>,
    pub instructions: Option<String>,
    pub split_beside: Option<String>,
    pub split_below: Option<String>,
    pub next_pane: Option<String>,
    pub close_pane: Option<String>,
    pub zoom: Option<String>,
    pub shell: Option<String>,
    pub diff: Option<String>,
    pub rename: Option<String>,
    pub remove: Option<String>,
    pub copy: Option<String>,
    pub fork: Option<String>,
    pub archive: Option<String>,
    pub show_archived: Option<String>,
    pub next_layout: Option<String>,
    pub swap_prev: Option<String>,
    pub swap_next: Option<String>,
    pub last_pane: Option<String>,
    pub last_terminal: Option<String>,
    pub tree: Option<String>,
    pub command: Option<String>,
}

impl KeysConfig {
    /// Each action's name and configured key, in the order of the help.
    pub fn entries(&self) -> [(&'static str, Option<&str>); 26] {
        [
            ("new", self.new.as_deref()),
            ("next", self.next.as_deref()),
            ("prev", self.prev.as_deref()),
            ("detach", self.detach.as_deref()),
            ("help", self.help.as_deref()),
            ("instructions", self.instructions.as_deref()),
            ("split_beside", self.split_beside.as_deref()),
            ("split_below", self.split_below.as_deref()),
            ("next_pane", self.next_pane.as_deref()),
            ("close_pane", self.close_pane.as_deref()),
            ("zoom", self.zoom.as_deref()),
            ("shell", self.shell.as_deref()),
            ("diff", self.diff.as_deref()),
            ("rename", self.rename.as_deref()),
            ("remove", self.remove.as_deref()),
            ("copy", self.copy.as_deref()),
            ("fork", self.fork.as_deref()),
            ("archive", self.archive.as_deref()),
            ("show_archived", self.show_archived.as_deref()),
            ("next_layout", self.next_layout.as_deref()),
            ("swap_prev", self.swap_prev.as_deref()),
            ("swap_next", self.swap_next.as_deref()),
            ("last_pane", self.last_pane.as_deref()),
            ("last_terminal", self.last_terminal.as_deref()),
            ("tree", self.tree.as_deref()),
            ("command", self.command.as_deref()),
        ]
    }
}

/// `notify = "bell" | "osc9" | "osc777" | "none"`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Notify {
    /// The terminal's bell (BEL).
    #[default]
    Bell,
    /// A desktop notification (OSC 9: iTerm2, WezTerm, Windows Terminal, kitty…).
    Osc9,
    /// A desktop notification with a title (OSC 777: urxvt, foot, Ghostty, VTE terminals).
    Osc777,
    /// Nothing (the list entry still shows it).
    #[serde(rename = "none")]
    Off,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GitConfig {
    /// Where terminals' worktrees go (default: `<data dir>/worktrees`).
    pub worktrees: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Providers {
    #[serde(default)]
    pub claude: ProviderConfig,
    #[serde(default)]
    pub codex: ProviderConfig,
    /// OpenAI-compatible endpoints, driven by baton's own conversation loop.
    #[serde(default)]
    pub local: LocalConfig,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LocalConfig {
    /// `[providers.local.endpoints.NAME]`, chosen with `--provider local:NAME`.
    #[serde(default)]
    pub endpoints: BTreeMap<String, EndpointConfig>,
}

/// One OpenAI-compatible Chat Completions endpoint.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EndpointConfig {
    /// Up to and including the API version, e.g. `http://127.0.0.1:8080/v1`.
    pub base_url: String,
    /// The model to ask for (unset: the first one the server's `/models` lists).
    pub model: Option<String>,
    /// The environment variable holding the API key (the key itself is never stored).
    pub api_key_env: Option<String>,
    /// The model's context window in tokens (unset: asked from the server, else a default).
    pub context_window: Option<u64>,
    /// Seconds without a byte from the server before a request counts as stalled (default 120).
    pub stall_timeout_secs: Option<u64>,
    /// How often a temporary failure is retried (default 3).
    pub retries: Option<u32>,
    /// Seconds a `run_command` tool call may take (default 120).
    pub command_timeout_secs: Option<u64>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderConfig {
    /// The binary: a name looked up on PATH or a path.
    pub bin: Option<String>,
    /// The model for new sessions (unset: the CLI's default, pinned once reported).
    pub model: Option<String>,
    /// Extra flags passed on every run.
    #[serde(default)]
    pub args: Vec<String>,
    /// Claude `--permission-mode` (default `acceptEdits`).
    pub permission_mode: Option<String>,
    /// Codex `--sandbox` (default `workspace-write`).
    pub sandbox: Option<String>,
    /// At most how many CLIs stay running after their turn, each waiting for its terminal's
    /// next prompt (the most recently used terminals; default: no count, only `[warm]
    /// memory_mb`; 0: none): Claude's own process, Codex's `app-server`.
    pub warm: Option<usize>,
    /// Seconds a warm CLI waits for a turn before it is stopped (default 600).
    pub warm_idle_secs: Option<u64>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InstructionsConfig {
    /// `local` (default) or `model`.
    pub extractor: Option<String>,
}

impl Config {
    /// Reads the config file; a missing file means all defaults.
    pub fn load(path: Option<&Path>) -> Result<Config, BatonError> {
        let Some(path) = path else {
            return Ok(Config::default());
        };
        match std::fs::read_to_string(path) {
            Ok(text) => Config::parse(&text).map_err(|e| {
                BatonError::bad_input(format!(
                    "{} is not valid: {} (fix or remove it)",
                    path.display(),
                    e.to_string().trim()
                ))
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Config::default()),
            Err(e) => Err(BatonError::bad_input(format!(
                "cannot read {}: {e}",
                path.display()
            ))),
        }
    }

    /// Parses config text; the error is one line: `line N: what is wrong`.
    pub fn parse(text: &str) -> Result<Config, ConfigError> {
        let config: Config =
            toml::from_str(text).map_err(|e: toml::de::Error| located(text, &e))?;
        // A relative key would match no repository, silently.
        if let Some(key) = config.repos.keys().find(|k| !Path::new(k).is_absolute()) {
            return Err(ConfigError::InvalidSomewhere {
                message: format!(
                    "[repos.{key:?}]: a repository is named by the absolute path of its main checkout"
                ),
            });
        }
        Ok(config)
    }

    /// The endpoint a `local` terminal uses: the one named, else the only one configured.
    pub fn endpoint(&self, name: Option<&str>) -> Result<(String, &EndpointConfig), ConfigError> {
        let endpoints = &self.providers.local.endpoints;
        let configured = || endpoints.keys().cloned().collect::<Vec<_>>().join(", ");
        if let Some(n) = name {
            return match endpoints.get_key_value(n) {
                Some((k, v)) => Ok((k.clone(), v)),
                None if endpoints.is_empty() => Err(ConfigError::NoEndpoints { name: n.into() }),
                None => Err(ConfigError::UnknownEndpoint {
                    name: n.into(),
                    configured: configured(),
                }),
            };
        }
        let mut all = endpoints.iter();
        match (all.next(), all.next()) {
            (None, _) => Err(ConfigError::NoEndpoint),
            (Some((k, v)), None) => Ok((k.clone(), v)),
            (Some(_), Some(_)) => Err(ConfigError::SeveralEndpoints {
                configured: configured(),
            }),
        }
    }

    /// The user's `[repos."…"]` table for the repository whose main checkout is `root`
    /// (keys compared as absolute paths with symlinks resolved).
    pub fn repo(&self, root: &Path) -> Option<&RepoConfig> {
        let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
        self.repos.iter().find_map(|(k, v)| {
            let k = Path::new(k);
            let k = k.canonicalize().unwrap_or_else(|_| k.to_path_buf());
            (k == root).then_some(v)
        })
    }

    pub fn permission_mode(&self) -> Option<String> {
        non_empty(
            self.providers.claude.permission_mode.as_deref(),
            DEFAULT_CLAUDE_PERMISSION_MODE,
        )
    }

    pub fn sandbox(&self) -> Option<String> {
        non_empty(
            self.providers.codex.sandbox.as_deref(),
            DEFAULT_CODEX_SANDBOX,
        )
    }
}

/// A configured flag value: unset → the default; set to "" → no flag at all.
fn non_empty(v: Option<&str>, default: &str) -> Option<String> {
    match v {
        None => Some(default.to_string()),
        Some("") => None,
        Some(s) => Some(s.to_string()),
    }
}

#[cfg(test)]
#[path = "config_tests.rs"]
mod tests;
