//! Where baton keeps its data and config, and creating them with private permissions
//! (directories 0700, files 0600).

use std::ffi::OsString;
use std::fs::{self, DirBuilder, OpenOptions};
use std::io;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// The environment variables that decide where baton's files live, read once.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EnvDirs {
    pub baton_home: Option<OsString>,
    pub xdg_data_home: Option<OsString>,
    pub xdg_config_home: Option<OsString>,
    pub home: Option<OsString>,
}

impl EnvDirs {
    /// The variables, an empty one as unset, and a relative `XDG_DATA_HOME` or
    /// `XDG_CONFIG_HOME` too ("relative paths … should be ignored", the XDG spec says).
    pub fn from_env() -> Self {
        let get = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
        let xdg = |k: &str| get(k).filter(|v| Path::new(v).is_absolute());
        EnvDirs {
            baton_home: get("BATON_HOME"),
            xdg_data_home: xdg("XDG_DATA_HOME"),
            xdg_config_home: xdg("XDG_CONFIG_HOME"),
            home: get("HOME"),
        }
    }

    /// `$BATON_HOME` when it is set to a relative path: refused (`Client::from_env`), since
    /// the data directory, its server and its terminals would change with the current
    /// directory. (A relative `XDG_*` is ignored, as the XDG spec says: see [`Self::from_env`].)
    pub fn relative_baton_home(&self) -> Option<&Path> {
        let home = Path::new(self.baton_home.as_ref()?);
        home.is_relative().then_some(home)
    }

    /// `$BATON_HOME`, else `$XDG_DATA_HOME/baton`, else `~/.local/share/baton`.
    pub fn data_dir(&self) -> Option<PathBuf> {
        if let Some(h) = &self.baton_home {
            return Some(PathBuf::from(h));
        }
        if let Some(x) = &self.xdg_data_home {
            return Some(Path::new(x).join("baton"));
        }
        self.home
            .as_ref()
            .map(|h| Path::new(h).join(".local/share/baton"))
    }

    /// `$BATON_HOME/config.toml`, else `$XDG_CONFIG_HOME/baton/config.toml`, else
    /// `~/.config/baton/config.toml`.
    pub fn config_file(&self) -> Option<PathBuf> {
        if let Some(h) = &self.baton_home {
            return Some(Path::new(h).join("config.toml"));
        }
        if let Some(x) = &self.xdg_config_home {
            return Some(Path::new(x).join("baton/config.toml"));
        }
        self.home
            .as_ref()
            .map(|h| Path::new(h).join(".config/baton/config.toml"))
    }
}

/// The layout of one data directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataDir {
    pub root: PathBuf,
}

impl DataDir {
    pub fn new(root: PathBuf) -> Self {
        DataDir { root }
    }
    pub fn index_db(&self) -> PathBuf {
        self.root.join("index.db")
    }
    pub fn lock_file(&self) -> PathBuf {
        self.root.join("server.lock")
    }
    /// The owner of this data directory when it exists and is not the user running baton: a
    /// data directory is one user's (its server answers no other uid, its files are 0600), so
    /// another's is refused before anything tries to open, create or chmod in it.
    pub fn foreign_owner(&self) -> Option<u32> {
        use std::os::unix::fs::MetadataExt;
        let owner = fs::metadata(&self.root).ok()?.uid();
        (owner != nix::unistd::geteuid().as_raw()).then_some(owner)
    }
    /// True while some process (a server) holds this directory's `server.lock`.
    pub fn server_locked(&self) -> bool {
        use nix::fcntl::{Flock, FlockArg};
        let Ok(f) = std::fs::File::open(self.lock_file()) else {
            return false;
        };
        Flock::lock(f, FlockArg::LockSharedNonblock).is_err()
    }
    pub fn socket(&self) -> PathBuf {
        self.root.join("server.sock")
    }
    pub fn log_file(&self) -> PathBuf {
        self.root.join("server.log")
    }
    pub fn terminals(&self) -> PathBuf {
        self.root.join("terminals")
    }
    pub fn terminal(&self, id: &str) -> PathBuf {
        self.terminals().join(id)
    }
    pub fn journal(&self, id: &str) -> PathBuf {
        self.terminal(id).join("journal.jsonl")
    }
    /// Turn `turn`'s raw stream. Ids come from journals, which an import brings from
    /// elsewhere: one that is not [`crate::validate::safe_id`] (`../../x`) names a file
    /// inside `turns/` that baton never writes (nor lets an import write), so no path built
    /// here leaves the folder and such a turn reads as one without a stream.
    pub fn turn_file(&self, id: &str, turn: &str) -> PathBuf {
        let name = if crate::validate::safe_id(turn) {
            format!("{turn}.jsonl")
        } else {
            "!unsafe-id.jsonl".to_string()
        };
        self.terminal(id).join("turns").join(name)
    }
    /// The change tracker's cookies (`git::Tracker`).
    pub fn tracker_cookies(&self) -> PathBuf {
        self.root.join("cookies")
    }
    pub fn screenshots(&self, id: &str) -> PathBuf {
        self.terminal(id).join("screenshots")
    }

    /// Creates the root (0700) and tightens it if it already existed with looser bits.
    pub fn ensure(&self) -> io::Result<()> {
        ensure_private_dir(&self.root)?;
        ensure_private_dir(&self.terminals())
    }
}

/// Creates `dir` and its missing parents; the leaf gets mode 0700 (tightened if it existed).
pub fn ensure_private_dir(dir: &Path) -> io::Result<()> {
    if let Some(parent) = dir.parent() {
        fs::create_dir_all(parent)?;
    }
    match DirBuilder::new().mode(0o700).create(dir) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            let meta = fs::metadata(dir)?;
            if meta.permissions().mode() & 0o077 != 0 {
                fs::set_permissions(dir, fs::Permissions::from_mode(0o700))?;
            }
            Ok(())
        }
        Err(e) => Err(e),
    }
}

/// Opens `path` for appending, creating it with mode 0600.
pub fn open_private_append(path: &Path) -> io::Result<fs::File> {
    OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(path)
}

/// Creates `path` (mode 0600) if missing, without truncating it.
pub fn touch_private(path: &Path) -> io::Result<()> {
    OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(path)
        .map(drop)
}

/// Replaces `path` with `bytes` whole: written (mode 0600) and synced under a name of this
/// process's beside it, then renamed into place, so a crash leaves the old file or the new.
pub fn replace_private(path: &Path, bytes: &[u8]) -> io::Result<()> {
    use std::io::Write;
    let mut tmp = path.as_os_str().to_os_string();
    tmp.push(format!(".{}.tmp", std::process::id()));
    let tmp = PathBuf::from(tmp);
    let mut f = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&tmp)?;
    f.write_all(bytes).and_then(|()| f.sync_all())?;
    fs::rename(&tmp, path)
}

#[cfg(test)]
#[path = "paths_tests.rs"]
mod tests;
