//! The web client's access token: `web-token` in the data directory, 0600, made on first use
//! and replaced by `baton web --new-token` (the old one then opens nothing).

use crate::error::BatonError;
use crate::paths::DataDir;

const FILE: &str = "web-token";

/// The token, made (and kept) when there is none.
pub fn read_or_create(data: &DataDir) -> Result<String, BatonError> {
    match std::fs::read_to_string(data.root.join(FILE)) {
        Ok(t) if well_formed(t.trim()) => Ok(t.trim().to_string()),
        Ok(_) => rotate(data),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => rotate(data),
        Err(e) => Err(cannot(data, &e)),
    }
}

/// A new token, written over the old one (written aside first, then renamed: a crash leaves
/// one or the other whole).
pub fn rotate(data: &DataDir) -> Result<String, BatonError> {
    let token = fresh();
    crate::paths::replace_private(&data.root.join(FILE), format!("{token}\n").as_bytes())
        .map_err(|e| cannot(data, &e))?;
    Ok(token)
}

/// 244 random bits (two v4 UUIDs, from the system's random source), as 64 hex digits.
fn fresh() -> String {
    format!(
        "{}{}",
        uuid::Uuid::new_v4().simple(),
        uuid::Uuid::new_v4().simple()
    )
}

fn well_formed(t: &str) -> bool {
    t.len() >= 32 && t.bytes().all(|b| b.is_ascii_hexdigit())
}

fn cannot(data: &DataDir, e: &std::io::Error) -> BatonError {
    BatonError::failed(format!(
        "cannot keep the web client's token in {}: {e}",
        data.root.join(FILE).display()
    ))
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    #[test]
    fn token_is_kept_private_and_rotation_replaces_it() {
        let dir = tempfile::tempdir().unwrap();
        let data = DataDir::new(dir.path().to_path_buf());
        let first = read_or_create(&data).unwrap();
        assert_eq!(read_or_create(&data).unwrap(), first);
        let mode = std::fs::metadata(dir.path().join(FILE))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        let second = rotate(&data).unwrap();
        assert_ne!(second, first);
        assert_eq!(read_or_create(&data).unwrap(), second);
        assert_eq!(second.len(), 64);
    }
}
