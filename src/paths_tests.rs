//! Tests of where baton keeps its files, and of the private directories' modes.

use super::*;
use pretty_assertions::assert_eq;

fn env(b: Option<&str>, xd: Option<&str>, xc: Option<&str>, h: Option<&str>) -> EnvDirs {
    EnvDirs {
        baton_home: b.map(Into::into),
        xdg_data_home: xd.map(Into::into),
        xdg_config_home: xc.map(Into::into),
        home: h.map(Into::into),
    }
}

#[test]
fn data_and_config_locations_follow_the_documented_order() {
    let cases = [
        (
            env(Some("/b"), Some("/xd"), Some("/xc"), Some("/h")),
            "/b",
            "/b/config.toml",
        ),
        (
            env(None, Some("/xd"), Some("/xc"), Some("/h")),
            "/xd/baton",
            "/xc/baton/config.toml",
        ),
        (
            env(None, None, None, Some("/h")),
            "/h/.local/share/baton",
            "/h/.config/baton/config.toml",
        ),
    ];
    for (e, data, config) in cases {
        assert_eq!(e.data_dir(), Some(PathBuf::from(data)));
        assert_eq!(e.config_file(), Some(PathBuf::from(config)));
    }
    assert_eq!(env(None, None, None, None).data_dir(), None);
}

#[test]
fn a_relative_baton_home_is_found_to_be_refused() {
    let rows = [
        (Some("/abs/data"), None),
        (Some("rel"), Some("rel")),
        (Some("./data"), Some("./data")),
        (Some("../x"), Some("../x")),
        (None, None),
    ];
    for (home, want) in rows {
        let e = env(home, None, None, Some("/h"));
        assert_eq!(e.relative_baton_home(), want.map(Path::new), "{home:?}");
    }
}

#[test]
fn a_turn_file_never_leaves_its_terminals_turns_folder() {
    let d = DataDir {
        root: PathBuf::from("/d"),
    };
    let turns = PathBuf::from("/d/terminals/t/turns");
    let cases = [
        ("0199-ab_c", turns.join("0199-ab_c.jsonl")),
        (
            "../../../../../.claude/history",
            turns.join("!unsafe-id.jsonl"),
        ),
        ("a/b", turns.join("!unsafe-id.jsonl")),
        ("", turns.join("!unsafe-id.jsonl")),
    ];
    for (turn, want) in cases {
        assert_eq!(d.turn_file("t", turn), want, "{turn:?}");
    }
}

#[test]
fn private_dir_is_created_0700_and_loose_dir_is_tightened() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path().join("a/b");
    ensure_private_dir(&d).unwrap();
    assert_eq!(
        fs::metadata(&d).unwrap().permissions().mode() & 0o777,
        0o700
    );
    fs::set_permissions(&d, fs::Permissions::from_mode(0o755)).unwrap();
    ensure_private_dir(&d).unwrap();
    assert_eq!(
        fs::metadata(&d).unwrap().permissions().mode() & 0o777,
        0o700
    );
    let f = d.join("f");
    touch_private(&f).unwrap();
    assert_eq!(
        fs::metadata(&f).unwrap().permissions().mode() & 0o777,
        0o600
    );
}
