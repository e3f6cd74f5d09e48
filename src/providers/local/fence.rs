//! The fence of a local run's tools: every path the model names is resolved inside the
//! terminal's checkout (symlinks followed, `..` refused) or refused, and `.git` is baton's.

use std::path::{Component, Path, PathBuf};

/// Why a path the model named is not used. The text goes back to the model as the tool's
/// answer, so it says what to ask for instead; a refusal starts with `refused`.
#[derive(Debug, thiserror::Error)]
pub enum FenceError {
    #[error("refused: the path contains a NUL byte")]
    Nul,
    #[error("refused: {path} uses `..`; name paths inside the checkout {}", root.display())]
    ParentDir { path: String, root: PathBuf },
    #[error("refused: {asked} resolves to {}, outside the checkout {}", resolved.display(), root.display())]
    Outside {
        asked: String,
        resolved: PathBuf,
        root: PathBuf,
    },
    #[error("refused: {path} is a symlink to something that does not exist")]
    Dangling { path: String },
    #[error("refused: {path} is inside .git (baton commits the checkout by itself)")]
    InGit { path: String },
    #[error("{path} is a directory")]
    Directory { path: String },
    #[error("cannot open {path}: {source}")]
    Open {
        path: String,
        source: std::io::Error,
    },
    /// No part of the path exists, not even the root.
    #[error("cannot resolve {path}")]
    Nowhere { path: String },
    #[error("cannot resolve {path}: {source}")]
    Resolve {
        path: String,
        source: std::io::Error,
    },
}

/// The checkout a local run's tools are confined to.
#[derive(Debug, Clone)]
pub struct Fence {
    root: PathBuf,
}

impl Fence {
    /// A fence around `checkout` (resolved to its physical path).
    pub fn new(checkout: &Path) -> std::io::Result<Fence> {
        Ok(Fence {
            root: checkout.canonicalize()?,
        })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `path` relative to the checkout, for summaries (`.` for the checkout itself).
    pub fn show(&self, path: &Path) -> String {
        match path.strip_prefix(&self.root) {
            Ok(rel) if rel.as_os_str().is_empty() => ".".to_string(),
            Ok(rel) => rel.display().to_string(),
            Err(_) => path.display().to_string(),
        }
    }

    /// The path as the model gave it, joined to the checkout, with `..` and NULs refused.
    fn joined(&self, path: &str) -> Result<PathBuf, FenceError> {
        let p = Path::new(path.trim());
        if path.contains('\0') {
            return Err(FenceError::Nul);
        }
        if p.components().any(|c| c == Component::ParentDir) {
            return Err(FenceError::ParentDir {
                path: path.to_string(),
                root: self.root.clone(),
            });
        }
        Ok(self.root.join(p))
    }

    fn inside(&self, resolved: PathBuf, asked: &str) -> Result<PathBuf, FenceError> {
        if resolved.starts_with(&self.root) {
            Ok(resolved)
        } else {
            Err(FenceError::Outside {
                asked: asked.to_string(),
                resolved,
                root: self.root.clone(),
            })
        }
    }

    /// An existing file or directory to read, resolved through any symlinks.
    pub fn read(&self, path: &str) -> Result<PathBuf, FenceError> {
        let joined = self.joined(path)?;
        let resolved = joined.canonicalize().map_err(|source| FenceError::Open {
            path: path.to_string(),
            source,
        })?;
        self.inside(resolved, path)
    }

    /// A file to create or overwrite. The deepest part that exists is resolved (a symlink
    /// anywhere on the way, or a dangling one at the end, cannot lead outside), and `.git` is
    /// refused: baton commits by itself.
    pub fn write(&self, path: &str) -> Result<PathBuf, FenceError> {
        let joined = self.joined(path)?;
        let named = || path.to_string();
        let resolved = match std::fs::symlink_metadata(&joined) {
            Ok(meta) if meta.is_dir() => return Err(FenceError::Directory { path: named() }),
            Ok(meta) if meta.file_type().is_symlink() => joined
                .canonicalize()
                .map_err(|_| FenceError::Dangling { path: named() })?,
            Ok(_) => joined.canonicalize().map_err(|source| FenceError::Open {
                path: named(),
                source,
            })?,
            Err(_) => resolve_new(&joined, path)?,
        };
        let resolved = self.inside(resolved, path)?;
        if resolved
            .strip_prefix(&self.root)
            .is_ok_and(|rel| rel.starts_with(".git"))
        {
            return Err(FenceError::InGit { path: named() });
        }
        Ok(resolved)
    }
}

/// A path that does not exist yet: its deepest existing ancestor resolved, the rest appended.
fn resolve_new(joined: &Path, path: &str) -> Result<PathBuf, FenceError> {
    let mut base = joined;
    let mut rest = Vec::new();
    while std::fs::symlink_metadata(base).is_err() {
        let (Some(parent), Some(name)) = (base.parent(), base.file_name()) else {
            return Err(FenceError::Nowhere {
                path: path.to_string(),
            });
        };
        rest.push(name.to_owned());
        base = parent;
    }
    let mut out = base.canonicalize().map_err(|source| FenceError::Resolve {
        path: path.to_string(),
        source,
    })?;
    out.extend(rest.iter().rev());
    Ok(out)
}

#[cfg(test)]
#[path = "fence_tests.rs"]
mod tests;
