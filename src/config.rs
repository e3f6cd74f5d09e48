//! `config.toml`: which CLI binaries to run, with which model and flags. Every key is optional.
//!
//! Defaults for headless runs: Claude gets `--permission-mode acceptEdits` (edits confined to the
//! working directory and the added screenshots folder, no unattended prompts), Codex gets
//! `--sandbox workspace-write` (the checkout writable, the rest read-only).

use std::path::Path;

use serde::Deserialize;

use crate::error::BatonError;
use crate::providers::ProviderKind;

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
    /// OpenAI-compatible endpoints (driven by baton itself; not wired up yet).
    #[serde(default)]
    pub local: toml::Table,
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
                    e.trim()
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
    pub fn parse(text: &str) -> Result<Config, String> {
        toml::from_str(text).map_err(|e: toml::de::Error| {
            let line = e
                .span()
                .map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1);
            let msg = e.message().replace('\n', " ");
            match line {
                Some(l) => format!("line {l}: {msg}"),
                None => msg,
            }
        })
    }

    pub fn provider(&self, kind: ProviderKind) -> &ProviderConfig {
        match kind {
            ProviderKind::Claude => &self.providers.claude,
            ProviderKind::Codex => &self.providers.codex,
        }
    }

    /// The binary to run for `kind`: configured, else its usual name.
    pub fn bin(&self, kind: ProviderKind) -> String {
        self.provider(kind)
            .bin
            .clone()
            .unwrap_or_else(|| kind.as_str().to_string())
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
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

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

[instructions]
extractor = "local"
"#,
        )
        .unwrap();
        assert_eq!(c.bin(ProviderKind::Claude), "/opt/claude");
        assert_eq!(
            c.provider(ProviderKind::Claude).args,
            vec!["--max-turns", "40"]
        );
        assert_eq!(c.permission_mode(), Some("acceptEdits".to_string()));
        assert_eq!(c.sandbox(), None);
        assert_eq!(c.bin(ProviderKind::Codex), "codex");
    }

    #[test]
    fn empty_config_has_headless_defaults() {
        let c = Config::parse("").unwrap();
        assert_eq!(c.bin(ProviderKind::Codex), "codex");
        assert_eq!(c.permission_mode(), Some("acceptEdits".to_string()));
        assert_eq!(c.sandbox(), Some("workspace-write".to_string()));
    }

    #[test]
    fn typos_are_reported() {
        let e = Config::parse("[providers.claude]\nbinn = \"x\"\n").unwrap_err();
        assert!(e.contains("binn"), "{e}");
    }
}
