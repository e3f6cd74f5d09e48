//! Rough edges of a first hour, in a real client: the way back to the provider's default
//! model (`/model default`, an empty C-o entry), slash commands missing their argument kept
//! from the CLI, and a queue an interrupt held said as held, `r` in its hint.

use super::*;

#[test]
fn an_incomplete_slash_command_says_what_it_needs_and_never_goes_out_as_a_prompt() {
    if tmux_missing() {
        return;
    }
    let w = World::new();
    let ui = client_on_api(&w);
    // `/model` then `/compact`, the space forgotten: neither runs nor reaches the model.
    ui.type_text("/model/compact");
    ui.wait_for("/model takes NAME after a space");
    ui.keys(&["Enter"]);
    // Said in the status line too (the title still shows it), the text kept to fix.
    ui.wait_until("the error in the status line", |s| {
        s.matches("/model/compact: /model takes NAME after a space")
            .count()
            == 2
    });
    ui.keys(&["C-u"]);
    ui.type_text("/model");
    ui.keys(&["Enter"]);
    ui.wait_for("/model needs a model's name: /model NAME (/model default: back to");
    assert_eq!(w.show("api")["turns"], 0);
    assert_eq!(w.show("api")["queued"], 0);
}

#[test]
fn slash_model_default_and_an_empty_c_o_entry_unpin_the_model() {
    if tmux_missing() {
        return;
    }
    let w = World::new();
    let dir = w.new_terminal("api", "claude");
    w.ok(&["send", "api", "one", "--model", "claude-haiku-9"]);
    let ui = Tmux::start(&w, &dir, "");
    ui.wait_for("claude/claude-haiku-9");
    // An empty C-o entry: back to the provider's default.
    ui.keys(&["C-o"]);
    ui.wait_for("model for the next prompt: claude-haiku-9");
    ui.keys(&["C-u", "Enter"]);
    ui.wait_for("the next prompt goes back to the provider's default model");
    ui.type_text("two");
    ui.keys(&["Enter"]);
    w.wait_for("the model unpinned", || {
        let t = w.show("api");
        t["turns"] == 2 && t["model"].is_null()
    });
    // `/model NAME` pins again, `/model default` unpins.
    ui.type_text("/model claude-haiku-9");
    ui.keys(&["Enter"]);
    ui.wait_for("the next prompt asks for model claude-haiku-9");
    ui.type_text("three");
    ui.keys(&["Enter"]);
    w.wait_for("pinned again", || {
        w.show("api")["model"] == "claude-haiku-9"
    });
    ui.type_text("/model default");
    ui.keys(&["Enter"]);
    ui.wait_for("the next prompt goes back to the provider's default model");
    ui.type_text("four");
    ui.keys(&["Enter"]);
    w.wait_for("unpinned again", || {
        let t = w.show("api");
        t["turns"] == 4 && t["model"].is_null()
    });
}

#[test]
fn a_queue_held_after_esc_is_titled_held_and_its_hint_names_r() {
    if tmux_missing() {
        return;
    }
    let w = World::new();
    let ui = client_on_api(&w);
    ui.type_text("first [[hold:go]]");
    ui.keys(&["Enter"]);
    ui.wait_for("● running");
    w.ok(&["send", "api", "second", "--detach"]);
    w.wait_for("one waiting", || w.show("api")["queued"] == 1);
    ui.keys(&["Escape"]);
    ui.wait_for("⏸ 1 held");
    // The pane's title: nothing runs, so not "queued".
    let s = ui.wait_for("· queue held (r on a waiting input runs it) ");
    assert!(!s.contains("· queued"), "{s}");
    ui.keys(&["Up"]);
    ui.wait_for("! jump · r run the held queue · ↑/↓ select");
    ui.keys(&["r"]);
    w.wait_for("the held input to run", || {
        let t = w.show("api");
        t["turns"] == 2 && t["queued"] == 0
    });
}

#[test]
fn the_pickers_columns_stay_aligned_with_a_long_name_and_provider_model() {
    if tmux_missing() {
        return;
    }
    let w = World::new();
    let dir = w.new_terminal("api", "claude");
    w.new_terminal("a-terminal-name-past-twenty", "claude");
    w.new_terminal("web", "codex");
    w.ok(&[
        "send",
        "web",
        "one",
        "--model",
        "gpt-5.5-codex-long-preview",
    ]);
    let ui = Tmux::start(&w, &dir, "");
    ui.wait_for("prompt → api");
    ui.keys(&["C-b", "w"]);
    let s = ui.wait_for("pick a terminal");
    let rows: Vec<Vec<char>> = s
        .lines()
        .filter(|l| l.contains(" idle  "))
        .map(|l| l.chars().collect())
        .collect();
    assert_eq!(rows.len(), 3, "{s}");
    // Where the state starts, and where the provider does after it: the same on every row.
    let at = |r: &Vec<char>| {
        let state = (0..r.len()).find(|&i| r[i..].starts_with(&['i', 'd', 'l', 'e']));
        let state = state.unwrap_or(0);
        let provider = (state + 4..r.len()).find(|&i| r[i] != ' ');
        (state, provider)
    };
    let first = at(&rows[0]);
    for r in &rows {
        assert_eq!(at(r), first, "{s}");
    }
}

#[test]
fn a_send_from_the_command_prompt_stays_confirmed_after_its_turn_ends() {
    if tmux_missing() {
        return;
    }
    let w = World::new();
    let ui = client_on_api(&w);
    ui.keys(&["C-b", ":"]);
    ui.type_text("send api 'hello from the prompt'");
    ui.keys(&["Enter"]);
    w.wait_for("the turn to end", || {
        w.show("api")["last_turn"]["status"] == "completed"
    });
    // The turn's end line drawn: the UI had its end, and the answer is still said.
    let s = ui.wait_for("out tokens");
    assert!(s.contains("accepted as input 1 of api"), "{s}");
}
