//! The permissions check: the data directory and every folder baton keeps in it 0700, every
//! file 0600, the socket 0600, all owned by the user running baton. Nothing is followed
//! through a symbolic link (`symlink_metadata` to look, `O_NOFOLLOW` to fix), and anything baton
//! does not make (a symlink, a fifo, a device, a file another user owns) is refused: reported
//! with its path, never changed. A fix opens the entry itself with `O_NOFOLLOW`, checks it is
//! still the one looked at, and `fchmod`s that descriptor. A socket cannot be opened, so a
//! loose one is reported, not fixed (the server makes a new one, 0600, when it starts).
//!
//! Left out, because they are not baton's files: `config.toml` (the user's, only read; often a
//! link into a dotfiles repository), what is inside each checkout in `worktrees/` (made by git
//! with the user's umask, then the agent's; `worktrees/` and each checkout's folder are
//! checked, 0700), `imported/` (the folders imported terminals work in: the agent's files) and
//! what is inside a terminal's `tmp/` and `screenshots/` (written by the agent and its
//! commands); those two folders themselves are checked.

use std::fs::{self, Metadata, OpenOptions};
use std::io;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use super::report::{Check, Status};
use super::{Fix, Found};

/// What an entry is, as far as its permissions go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Dir,
    File,
    Socket,
    Symlink,
    /// A fifo, a device: never something baton makes.
    Other(&'static str),
}

impl Kind {
    fn of(m: &Metadata) -> Kind {
        let t = m.file_type();
        if t.is_symlink() {
            Kind::Symlink
        } else if t.is_dir() {
            Kind::Dir
        } else if t.is_file() {
            Kind::File
        } else if t.is_socket() {
            Kind::Socket
        } else if t.is_fifo() {
            Kind::Other("a fifo")
        } else if t.is_block_device() || t.is_char_device() {
            Kind::Other("a device")
        } else {
            Kind::Other("of an unknown kind")
        }
    }
}

/// What to do about one entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Ok,
    /// Its mode is not `want`; `fixable` unless it is a socket.
    Wrong {
        want: u32,
        fixable: bool,
    },
    /// Not something baton makes or may change: why.
    Refuse(String),
}

/// The verdict on an entry of `kind` with permission bits `mode`, owned by `owner`, for user
/// `me`.
pub fn classify(kind: Kind, mode: u32, owner: u32, me: u32) -> Verdict {
    let want = match kind {
        Kind::Symlink => {
            return Verdict::Refuse(
                "a symbolic link: baton makes none here and never follows one; remove it if you did not put it there"
                    .into(),
            )
        }
        Kind::Other(what) => {
            return Verdict::Refuse(format!(
                "{what}: baton makes none; remove it if you did not put it there"
            ))
        }
        Kind::Dir => 0o700,
        Kind::File | Kind::Socket => 0o600,
    };
    if owner != me {
        return Verdict::Refuse(format!(
            "owned by uid {owner}, not by you (uid {me}): baton leaves it alone; find out who made it"
        ));
    }
    if mode & 0o7777 == want {
        Verdict::Ok
    } else {
        Verdict::Wrong {
            want,
            fixable: kind != Kind::Socket,
        }
    }
}

/// Checks the data directory `root`. `stale_socket`: the socket is left over from a server that
/// is gone (the server check reports it, and `--fix` removes it rather than tightening it).
pub fn check(root: &Path, stale_socket: bool) -> Vec<Found> {
    let mut out = Vec::new();
    let mut seen = 0usize;
    let me = nix::unistd::geteuid().as_raw();
    visit(root, root, me, &mut seen, &mut out);
    let socket = root.join("server.sock").display().to_string();
    out.retain(|f| !(stale_socket && f.finding.subject == socket && f.fix.is_none()));
    if out.is_empty() {
        out.push(Found::new(
            Check::Permissions,
            Status::Ok,
            root.display().to_string(),
            format!("{seen} entries checked: folders 0700, files 0600"),
        ));
    }
    out
}

fn visit(root: &Path, path: &Path, me: u32, seen: &mut usize, out: &mut Vec<Found>) {
    let meta = match fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) => {
            out.push(fault(path, format!("cannot look at it: {e}"), None));
            return;
        }
    };
    *seen += 1;
    let kind = Kind::of(&meta);
    match classify(kind, meta.mode(), meta.uid(), me) {
        Verdict::Ok => {}
        Verdict::Refuse(why) => {
            let why = match fs::read_link(path) {
                Ok(target) if kind == Kind::Symlink => {
                    format!("{why} (it points to {})", target.display())
                }
                _ => why,
            };
            out.push(fault(path, format!("refused, left as it is: {why}"), None));
            return;
        }
        Verdict::Wrong { want, fixable } => {
            let have = meta.mode() & 0o7777;
            let fix = fixable.then(|| Fix::Mode {
                path: path.to_path_buf(),
                want,
                dir: kind == Kind::Dir,
                dev: meta.dev(),
                ino: meta.ino(),
            });
            let what = if fixable {
                " (--fix tightens it)"
            } else {
                ": restart the server (`baton server stop`, then any command) and it makes a new one 0600"
            };
            out.push(fault(
                path,
                format!("mode {have:04o}, should be {want:04o}{what}"),
                fix,
            ));
        }
    }
    if kind != Kind::Dir || !descend(root, path) {
        return;
    }
    let Ok(rd) = fs::read_dir(path) else {
        out.push(fault(path, "cannot list it".into(), None));
        return;
    };
    let mut children: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
    children.sort();
    for child in children {
        if path == root
            && child
                .file_name()
                .is_some_and(|n| n == "imported" || n == "config.toml")
        {
            continue;
        }
        visit(root, &child, me, seen, out);
    }
}

/// Whether the folder at `path` holds baton's own files (not `terminals/<id>/tmp` or
/// `terminals/<id>/screenshots`, the agent's, nor a checkout in `worktrees/`: the files git
/// and the agent write there).
fn descend(root: &Path, path: &Path) -> bool {
    let Ok(rel) = path.strip_prefix(root) else {
        return false;
    };
    let parts: Vec<_> = rel.components().map(|c| c.as_os_str()).collect();
    match parts.as_slice() {
        [t, _, leaf] => !(*t == "terminals" && (*leaf == "tmp" || *leaf == "screenshots")),
        [w, _] => *w != "worktrees",
        _ => true,
    }
}

fn fault(path: &Path, detail: String, fix: Option<Fix>) -> Found {
    Found::new(
        Check::Permissions,
        Status::Fault,
        path.display().to_string(),
        detail,
    )
    .fixed_by(fix)
}

/// Sets `path`'s mode to `want` through a descriptor opened without following a link, after
/// checking it is still the entry (`dev`, `ino`) that was looked at, of the expected kind and
/// owned by this user.
pub fn tighten(path: &Path, want: u32, dir: bool, dev: u64, ino: u64) -> io::Result<()> {
    let f = OpenOptions::new()
        .read(true)
        .custom_flags(nix::libc::O_NOFOLLOW | nix::libc::O_NONBLOCK | nix::libc::O_CLOEXEC)
        .open(path)?;
    let m = f.metadata()?;
    let kind_ok = if dir { m.is_dir() } else { m.is_file() };
    let me = nix::unistd::geteuid().as_raw();
    if !kind_ok || m.dev() != dev || m.ino() != ino || m.uid() != me {
        return Err(io::Error::other(
            "it changed since it was looked at; left as it is (run doctor again)",
        ));
    }
    f.set_permissions(fs::Permissions::from_mode(want))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn modes_are_judged_by_kind_and_owner() {
        let wrong = |want, fixable| Verdict::Wrong { want, fixable };
        let rows = [
            (Kind::Dir, 0o40700, 1, Verdict::Ok),
            (Kind::Dir, 0o755, 1, wrong(0o700, true)),
            (Kind::Dir, 0o500, 1, wrong(0o700, true)),
            (Kind::File, 0o100600, 1, Verdict::Ok),
            (Kind::File, 0o644, 1, wrong(0o600, true)),
            (Kind::File, 0o4600, 1, wrong(0o600, true)),
            (Kind::Socket, 0o600, 1, Verdict::Ok),
            (Kind::Socket, 0o777, 1, wrong(0o600, false)),
        ];
        for (kind, mode, owner, want) in rows {
            assert_eq!(classify(kind, mode, owner, 1), want, "{kind:?} {mode:o}");
        }
        for (kind, owner) in [
            (Kind::Symlink, 1),
            (Kind::Other("a fifo"), 1),
            (Kind::Other("a device"), 1),
            (Kind::File, 2),
            (Kind::Dir, 0),
        ] {
            assert!(
                matches!(classify(kind, 0o600, owner, 1), Verdict::Refuse(_)),
                "{kind:?} owned by {owner}"
            );
        }
    }

    #[test]
    fn the_agents_folders_are_checked_but_not_entered() {
        let root = Path::new("/d");
        assert!(descend(root, Path::new("/d")));
        assert!(descend(root, Path::new("/d/terminals/01a2")));
        assert!(descend(root, Path::new("/d/terminals/01a2/turns")));
        assert!(!descend(root, Path::new("/d/terminals/01a2/tmp")));
        assert!(!descend(root, Path::new("/d/terminals/01a2/screenshots")));
        assert!(descend(root, Path::new("/d/worktrees")));
        assert!(!descend(root, Path::new("/d/worktrees/api-0a1b2c3d")));
    }
}
