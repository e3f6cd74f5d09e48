//! Terminals on other hosts, addressed `HOST:NAME`: each host runs its own baton server, and
//! ssh is only the transport (`ssh.rs`: the system's `ssh`; `bridge.rs`: `baton server bridge`
//! on the far side, joining the channel to that host's server socket). `address.rs` reads
//! `HOST:NAME`, `edit.rs` keeps `[hosts.NAME]` in the config, `list.rs` asks every host at once
//! within a bound (`baton ls`, `baton host ls`). See ARCHITECTURE.md, "Other hosts".

pub mod address;
pub mod bridge;
pub mod edit;
pub mod list;
pub mod names;
pub mod ssh;

use std::collections::BTreeMap;
use std::time::Duration;

use crate::client::Client;
use crate::config::{Config, HostConfig};
use crate::error::BatonError;
use crate::paths::EnvDirs;

/// One configured host: its name and what `[hosts.NAME]` says of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Host {
    pub name: String,
    pub ssh: String,
    pub baton: Option<String>,
    pub data_dir: Option<String>,
}

impl Host {
    pub fn new(name: &str, c: &HostConfig) -> Host {
        Host {
            name: name.to_string(),
            ssh: c.ssh.clone(),
            baton: c.baton.clone(),
            data_dir: c.data_dir.clone(),
        }
    }

    /// The baton binary on that host: configured, else `baton` on its PATH.
    pub fn baton(&self) -> &str {
        self.baton.as_deref().unwrap_or("baton")
    }
}

/// What went wrong reaching another host; each says what to do next.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HostError {
    #[error("host {host} has no baton at {path}: install baton {version} there (`cargo install --locked --path .` in baton's source) or set [hosts.{host}] baton = \"/path/to/baton\"", version = env!("CARGO_PKG_VERSION"))]
    NoBaton { host: String, path: String },
    #[error("host {host} runs baton {version} (protocol {protocol}), this one is baton {mine} (protocol {ours}): install baton {mine} there, or point [hosts.{host}] baton at one", mine = env!("CARGO_PKG_VERSION"), ours = crate::protocol::PROTOCOL_VERSION)]
    Protocol {
        host: String,
        version: String,
        protocol: u32,
    },
    #[error("cannot reach host {host} over ssh ({detail}): run `ssh {target}` once by hand to check its keys and host key")]
    Unreachable {
        host: String,
        target: String,
        detail: String,
    },
    #[error("host {host}: its baton bridge ended without answering ({detail})")]
    Bridge { host: String, detail: String },
    #[error("ssh was not found on PATH: install OpenSSH's client (`apt install openssh-client`)")]
    NoSsh,
    #[error("cannot quote {word:?} for the remote shell: set [hosts.NAME] baton and data_dir without NUL bytes")]
    Unquotable { word: String },
    #[error("{what}")]
    Local { what: String },
    #[error("no host named {host:?}{hint} (see `baton host ls`, or add it with `baton host add {host} SSH_TARGET`)")]
    Unknown { host: String, hint: String },
}

/// Unknown hosts are bad input; everything else is a failure.
impl From<HostError> for BatonError {
    fn from(e: HostError) -> BatonError {
        match e {
            HostError::Unknown { .. } | HostError::Unquotable { .. } => {
                BatonError::bad_input(e.to_string())
            }
            HostError::NoBaton { .. }
            | HostError::Protocol { .. }
            | HostError::Unreachable { .. }
            | HostError::Bridge { .. }
            | HostError::NoSsh
            | HostError::Local { .. } => BatonError::failed(e.to_string()),
        }
    }
}

/// The config the client reads hosts from (the server's file).
pub fn load_config() -> Result<Config, BatonError> {
    Config::load(EnvDirs::from_env().config_file().as_deref())
}

/// Every configured host, by name.
pub fn configured(config: &Config) -> BTreeMap<String, Host> {
    config
        .hosts
        .iter()
        .map(|(n, c)| (n.clone(), Host::new(n, c)))
        .collect()
}

/// The host named `name`, or an [`HostError::Unknown`] with a "did you mean".
pub fn find(config: &Config, name: &str) -> Result<Host, HostError> {
    match config.hosts.get(name) {
        Some(c) => Ok(Host::new(name, c)),
        None => Err(unknown(config, name)),
    }
}

/// No host `name` is configured: the one nearest it, and how to add it.
fn unknown(config: &Config, name: &str) -> HostError {
    HostError::Unknown {
        host: name.to_string(),
        hint: crate::suggest::closest(name, config.hosts.keys().map(String::as_str))
            .map(|c| format!(": did you mean {c:?}?"))
            .unwrap_or_default(),
    }
}

/// `baton host add NAME SSH_TARGET [--baton PATH] [--data-dir D]`: kept in the config.
pub fn add(name: &str, host: HostConfig) -> Result<i32, BatonError> {
    let bad = |what: &str, value: &str, why: String| {
        BatonError::bad_input(format!("invalid {what} {value:?}: {why}"))
    };
    edit::check_name(name).map_err(|w| bad("host name", name, w))?;
    edit::check_target(&host.ssh).map_err(|w| bad("ssh target", &host.ssh, w))?;
    if let Some(d) = &host.data_dir {
        edit::check_data_dir(d).map_err(|w| bad("--data-dir", d, w))?;
    }
    let path = config_path()?;
    let text = edit::added(&edit::read(&path)?, name, &host)?;
    edit::write(&path, &text)?;
    crate::client::out::line(&format!(
        "added host {name} ({}): `baton host ls` checks it, `baton new {name}:NAME --dir D` opens a terminal there",
        host.ssh
    ));
    Ok(0)
}

/// `baton host rm NAME`: out of the config (nothing on that host changes).
pub fn rm(name: &str) -> Result<i32, BatonError> {
    let path = config_path()?;
    let text = edit::read(&path)?;
    match edit::removed(&text, name)? {
        Some(text) => {
            edit::write(&path, &text)?;
            crate::client::out::line(&format!("removed host {name} (its terminals stay on it)"));
            Ok(0)
        }
        None => Err(unknown(&Config::parse(&text).unwrap_or_default(), name).into()),
    }
}

fn config_path() -> Result<std::path::PathBuf, BatonError> {
    EnvDirs::from_env().config_file().ok_or_else(|| {
        BatonError::bad_input("cannot find baton's config file: set HOME or BATON_HOME")
    })
}

/// `req` asked of `host`'s server over ssh, `data_root` keeping the control sockets (the web
/// client's way to another host, with no `Client` of its own): its answer, an error saying
/// the host.
pub fn call(
    data_root: &std::path::Path,
    host: Host,
    req: &crate::protocol::Request,
) -> Result<crate::protocol::Answer, BatonError> {
    let client = Client {
        data: crate::paths::DataDir::new(data_root.to_path_buf()),
        server_env: Vec::new(),
        via: Some(host),
    };
    client.call(req)
}

/// The client and bare name a terminal argument addresses: `HOST:NAME` goes to that host's
/// server with `NAME`; anything else to this machine's. The config is read only when the
/// argument holds `:`.
pub fn route(client: &Client, arg: &str) -> Result<(Client, String), BatonError> {
    if !arg.contains(':') {
        return Ok((client.clone(), arg.to_string()));
    }
    let config = load_config()?;
    match address::parse(arg, config.hosts.keys().map(String::as_str)) {
        address::Address::Local(name) => Ok((client.clone(), name)),
        address::Address::Remote { host, name } => {
            let host = find(&config, &host)?;
            Ok((client.on_host(host), name))
        }
        address::Address::UnknownHost { host } => Err(unknown(&config, &host).into()),
    }
}

/// The wait before try `failures + 1` to reach a host: doubling from a quarter second, at
/// most [`RETRY_MAX`] (a host down for long is asked every few seconds, never in a busy loop).
/// Pure.
pub fn retry_after(failures: u32) -> Duration {
    let first = Duration::from_millis(250);
    first
        .saturating_mul(2u32.saturating_pow(failures.min(16)))
        .min(RETRY_MAX)
}

/// The longest wait between two tries to reach a host.
pub const RETRY_MAX: Duration = Duration::from_secs(5);
