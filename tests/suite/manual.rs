//! `baton completions SHELL` and `baton man`: generated from the parser's own definitions, so
//! every subcommand is in them; the bash script loads in bash.

use super::common::*;

#[test]
fn completion_scripts_name_every_shell_and_subcommand() {
    let w = World::new();
    let rows = [
        ("bash", "_baton()"),
        ("zsh", "#compdef baton"),
        ("fish", "complete -c baton"),
    ];
    for (shell, marker) in rows {
        let script = w.ok(&["completions", shell]);
        assert!(script.contains(marker), "{shell}: {script}");
        for sub in ["send", "watch", "queue", "demo"] {
            assert!(script.contains(sub), "{shell} lacks {sub}");
        }
    }
    let out = w.run(&["completions", "cmd.exe"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
}

#[test]
fn the_bash_script_loads_and_registers_baton() {
    let w = World::new();
    let script = w.tmp.path().join("baton.bash");
    std::fs::write(&script, w.ok(&["completions", "bash"])).unwrap();
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(format!("source {} && complete -p baton", script.display()))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("_baton"));
}

#[test]
fn the_man_page_is_roff_listing_the_subcommands() {
    let w = World::new();
    let page = w.ok(&["man"]);
    assert!(page.starts_with(".ie"), "{}", &page[..page.len().min(200)]);
    assert!(page.contains(".TH baton 1"), "{page}");
    for sub in ["baton\\-send", "baton\\-watch", "baton\\-completions"] {
        assert!(page.contains(sub), "lacks {sub}");
    }
}
