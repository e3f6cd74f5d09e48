//! A tmux and Claude Code user's first hour, driven in a real client: the list marks a queue an
//! interrupt held and shows each terminal's cost on a wide screen, `/cost` says it in the
//! status line, the diff face names its base commit and reads itself again after a merge, the standing instructions are edited from
//! their overlay, and the demo shows an agent's session without any scripting marker.

use super::*;

#[test]
fn the_list_marks_a_queue_held_after_esc_until_r_runs_it() {
    if tmux_missing() {
        return;
    }
    let w = World::new();
    let dir = w.new_terminal("api", "claude");
    let ui = Tmux::start(&w, &dir, "");
    ui.wait_for("prompt → api");
    ui.type_text("first [[hold:go]]");
    ui.keys(&["Enter"]);
    ui.wait_for("● running");
    for p in ["second", "third"] {
        w.ok(&["send", "api", p, "--detach"]);
    }
    w.wait_for("two waiting", || w.show("api")["queued"] == 2);
    ui.keys(&["Escape"]);
    let s = ui.wait_for("⏸ 2 held");
    assert!(!s.contains("● running"), "{s}");
    assert_eq!(w.show("api")["queue_held"], true);
    // `r` on a waiting input runs the held queue: the mark goes.
    ui.keys(&["Up"]);
    ui.wait_for("waiting #");
    ui.keys(&["r"]);
    ui.wait_until("the mark gone", |s| !s.contains("held"));
    w.wait_for("both to run", || {
        let t = w.show("api");
        t["turns"] == 3 && t["queued"] == 0
    });
}

#[test]
fn a_wide_list_shows_each_terminals_cost_and_slash_cost_says_it_in_the_status_line() {
    if tmux_missing() {
        return;
    }
    let w = World::new();
    let dir = w.new_terminal("api", "claude");
    w.send("api", "first [[ctx:30000]]");
    w.send("api", "second [[ctx:40000]]");
    let cell = w
        .ok(&["ls"])
        .lines()
        .nth(1)
        .unwrap()
        .split_whitespace()
        .nth(4)
        .unwrap()
        .to_string();
    assert!(cell.starts_with('$'), "{cell}");
    let ui = Tmux::start(&w, &dir, "");
    ui.wait_for("second");
    // 120 columns: no room for it.
    assert!(!ui.screen().contains(&cell), "{}", ui.screen());
    ui.tmux(&["resize-window", "-x", "160", "-y", "40"]);
    ui.wait_for(&format!(" {cell} "));

    ui.type_text("/cost");
    ui.wait_for("/cost: what this terminal's turns cost");
    ui.keys(&["Enter"]);
    let s = ui.wait_for("api: 2 turns · all: ");
    let log = w.json(&["log", "api"]);
    let last = &log["turns"][1]["cost"];
    let usd = format!("${:.4}", last["usd"].as_f64().unwrap());
    assert!(s.contains("last turn #2: "), "{s}");
    assert!(s.contains(&usd), "{usd}: {s}");
}

#[test]
fn the_diff_face_names_the_commit_it_diffs_against() {
    if tmux_missing() {
        return;
    }
    let w = World::new();
    let repo = repo(&w, "repo");
    w.ok(&["new", "t", "--dir", repo.to_str().unwrap()]);
    let since = w.json(&["diff", "t"])["since"]
        .as_str()
        .unwrap()
        .to_string();
    let ui = Tmux::start(&w, &repo, "");
    ui.wait_for("No turns yet");
    ui.keys(&["C-b", "g"]);
    let s = ui.wait_for(&format!("against base {}", &since[..7]));
    assert!(!s.contains(" since "), "{s}");
}

#[test]
fn the_diff_face_shows_nothing_left_once_baton_merge_landed_it_without_a_key() {
    if tmux_missing() {
        return;
    }
    let w = World::new();
    let repo = repo(&w, "repo");
    w.ok(&["new", "t", "--dir", repo.to_str().unwrap()]);
    let ui = Tmux::start(&w, &repo, "");
    ui.wait_for("No turns yet");
    ui.keys(&["C-b", "g"]);
    let s = ui.wait_for("no changes on");
    assert!(!s.contains("last merged"), "{s}");
    ui.type_text("make it [[write:hello.txt]]");
    ui.keys(&["Enter"]);
    ui.wait_for("+written by shim");
    // Merged from a shell while the face shows it: it reads the diff again by itself.
    w.ok(&["merge", "t"]);
    let s = ui.wait_for("nothing left to merge: all of baton/t is merged");
    assert!(s.contains(", last merged (base "), "{s}");
    assert!(!s.contains("+written by shim"), "{s}");
    // And from the multiplexer's `:` prompt.
    ui.type_text("more [[write:two.txt]]");
    ui.keys(&["Enter"]);
    ui.wait_for("+++ b/two.txt");
    ui.keys(&["C-b", ":"]);
    ui.type_text("merge t");
    ui.keys(&["Enter"]);
    let s = ui.wait_for("nothing left to merge: all of baton/t is merged");
    assert!(!s.contains("+++ b/two.txt"), "{s}");
}

#[test]
fn standing_instructions_are_edited_removed_and_added_from_their_overlay() {
    if tmux_missing() {
        return;
    }
    let w = World::new();
    let dir = w.new_terminal("api", "claude");
    for rule in ["Use tabs.", "Never push.", "Write tests."] {
        w.ok(&["instructions", "api", "add", rule]);
    }
    let ui = Tmux::start(&w, &dir, "");
    ui.wait_for("prompt → api");
    ui.keys(&["C-b", "i"]);
    ui.wait_for("e edit · a add · d remove");
    // Edit the second line in place.
    ui.keys(&["Down", "e"]);
    ui.wait_for("edit 2: Never push.");
    ui.keys(&["C-u"]);
    ui.type_text("Never force-push.");
    ui.keys(&["Enter"]);
    w.wait_for("the edit", || {
        instructions(&w, "api") == ["Use tabs.", "Never force-push.", "Write tests."]
    });
    ui.wait_for(" 2. Never force-push.");
    // Remove it, asked first.
    ui.keys(&["d"]);
    ui.wait_for("remove instruction 2? y/n");
    ui.keys(&["y"]);
    w.wait_for("the removal", || {
        instructions(&w, "api") == ["Use tabs.", "Write tests."]
    });
    // Add one; a duplicate is refused in the status line.
    ui.keys(&["a"]);
    ui.wait_for(" add: ");
    ui.type_text("Answer briefly.");
    ui.keys(&["Enter"]);
    ui.wait_for(" 3. Answer briefly.");
    ui.keys(&["a"]);
    ui.type_text("Use tabs.");
    ui.keys(&["Enter"]);
    ui.wait_for("api already has that instruction");
    assert_eq!(
        instructions(&w, "api"),
        ["Use tabs.", "Write tests.", "Answer briefly."]
    );
    // The help overlay lists the keys.
    ui.keys(&["Escape"]);
    ui.wait_until("the overlay closed", |s| {
        !s.contains("standing instructions of")
    });
    ui.keys(&["C-b", "?"]);
    ui.wait_for("standing instructions of the focused terminal (in it: ↑↓ select · e edit");
}

/// What the demo's screen must never show: the shims' scripting.
fn scripted(s: &str) -> bool {
    s.contains("[[") || s.contains("MOCK")
}

#[test]
fn the_demo_reads_like_an_agents_session_without_scripting_markers() {
    if tmux_missing() {
        return;
    }
    let w = crate::suite::demo::demo_world();
    let dir = w.project("here");
    let demo = Tmux::start(&w, &dir, "demo");
    demo.wait_for("SIMULATED");
    // api's first turn: a real request, named tool calls, an answer worth reading (its
    // Markdown drawn: inline code without its backticks).
    let s = demo.wait_for("Added a /health endpoint.");
    assert!(s.contains("Add a /health endpoint to the server"), "{s}");
    assert!(s.contains("⚙ Bash cargo build"), "{s}");
    assert!(!scripted(&s), "{s}");
    // The review terminal's codex session too.
    demo.keys(&["C-b", "1"]);
    let s = demo.wait_for("Want me to write the invoices ones first?");
    assert!(s.contains("⚙ Shell ls -R src tests"), "{s}");
    assert!(!scripted(&s), "{s}");
    // Back on api: the seeded turns rotate (past 45%) and switch to codex.
    demo.keys(&["C-b", "0"]);
    let s = demo.wait_for("Clippy is clean.");
    assert!(s.contains("provider switched to codex"), "{s}");
    assert!(!s.contains("Model metadata"), "{s}");
    assert!(!scripted(&s), "{s}");
    // Its edits were real: committed on its branch, in the diff face.
    demo.keys(&["C-b", "g"]);
    let s = demo.wait_for("+        .route(\"/health\", get(health))");
    assert!(s.contains("against base "), "{s}");
    assert!(s.contains("+## Health check"), "{s}");
    demo.keys(&["C-b", "d"]);
    demo.wait_for("Enter leaves it running");
    demo.type_text("q");
    demo.keys(&["Enter"]);
    demo.wait_for("BATON-EXITED 0");
}
