//! Tests of the fence against symlinks, `..`, absolute paths and `.git`.

use super::*;
use std::os::unix::fs::symlink;

fn setup() -> (tempfile::TempDir, Fence, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("co");
    let outside = tmp.path().join("outside");
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(root.join("src/a.rs"), "a").unwrap();
    std::fs::write(outside.join("secret"), "s").unwrap();
    symlink(&outside, root.join("out")).unwrap();
    symlink(outside.join("secret"), root.join("secret-link")).unwrap();
    symlink(outside.join("nothing"), root.join("dangling")).unwrap();
    symlink(root.join("src/a.rs"), root.join("inner-link")).unwrap();
    let fence = Fence::new(&root).unwrap();
    (tmp, fence, outside.canonicalize().unwrap())
}

#[test]
fn reads_stay_inside_through_symlinks() {
    let (_tmp, f, _) = setup();
    assert_eq!(f.show(&f.read("src/a.rs").unwrap()), "src/a.rs");
    assert_eq!(f.show(&f.read("inner-link").unwrap()), "src/a.rs");
    assert_eq!(f.show(&f.read("").unwrap()), ".");
    let abs = f.root().join("src/a.rs");
    assert!(f.read(abs.to_str().unwrap()).is_ok());
    for bad in [
        "out/secret",
        "secret-link",
        "../outside/secret",
        "/etc/passwd",
    ] {
        let e = f.read(bad).unwrap_err().to_string();
        assert!(e.starts_with("refused"), "{bad}: {e}");
    }
}

#[test]
fn writes_stay_inside_and_out_of_git() {
    let (_tmp, f, outside) = setup();
    assert_eq!(
        f.write("new/dir/b.txt").unwrap(),
        f.root().join("new/dir/b.txt")
    );
    assert_eq!(f.write("src/a.rs").unwrap(), f.root().join("src/a.rs"));
    for bad in [
        "out/new.txt",
        "out/deeper/new.txt",
        "secret-link",
        "dangling",
        "../x",
        "/tmp/x",
        ".git/config",
    ] {
        let e = f.write(bad).unwrap_err().to_string();
        assert!(e.starts_with("refused"), "{bad}: {e}");
    }
    assert!(f
        .write("src")
        .unwrap_err()
        .to_string()
        .contains("directory"));
    assert!(!outside.join("new.txt").exists());
}
