//! The `local` provider end to end: the real baton binary against the stand-in
//! OpenAI-compatible server (src/providers/local/standin.rs), configured in `config.toml`.

#[path = "../../src/providers/local/standin.rs"]
mod standin;

use pretty_assertions::assert_eq;
use serde_json::{json, Value};

use self::standin::{Reply, StandIn};
use super::common::{text, World};

/// A model that writes `hello.txt` when asked to write, reports back after a tool result, and
/// otherwise answers `answer #N` padded to `pad` characters.
fn brain(pad: usize) -> impl Fn(&Value) -> Reply + Send + Sync + 'static {
    move |req: &Value| {
        let last = standin::last_of(req);
        let n = req["messages"].as_array().map_or(0, Vec::len);
        if last["role"] == "tool" {
            return Reply::Stream(standin::text("Done writing.", Some((200, 5))));
        }
        let prompt = last["content"].as_str().unwrap_or_default();
        if prompt.contains("write the file") {
            return Reply::Stream(standin::tool_call(
                "call-1",
                "write_file",
                json!({"path": "hello.txt", "content": "hi from local"}),
            ));
        }
        let answer = format!("answer to {prompt:?} after {n} messages ");
        let padded = format!("{answer}{}", "z".repeat(pad.saturating_sub(answer.len())));
        Reply::Stream(standin::text(&padded, Some((300, 10))))
    }
}

fn world(standin: &StandIn, window: Option<u64>) -> World {
    let window = window.map_or(String::new(), |w| format!("context_window = {w}\n"));
    world_with(standin, &window)
}

/// A world whose endpoint `stand` is the stand-in, with `more` lines in its table.
fn world_with(standin: &StandIn, more: &str) -> World {
    let w = World::new();
    std::fs::write(
        w.data().join("config.toml"),
        format!(
            "[providers.local.endpoints.stand]\nbase_url = \"{}\"\nmodel = \"stand-in\"\n{more}",
            standin.base_url
        ),
    )
    .unwrap();
    w
}

fn systems(s: &StandIn) -> Vec<String> {
    s.requests().iter().map(standin::system_of).collect()
}

#[test]
fn a_local_conversation_uses_tools_in_the_checkout_and_the_current_standing_text() {
    let s = StandIn::background(standin::models("stand-in", Some(32768)), brain(0));
    let w = world(&s, None);
    let dir = w.project("api");
    w.ok(&[
        "new",
        "api",
        "--dir",
        dir.to_str().unwrap(),
        "--provider",
        "local:stand",
        "--brief",
        "Backend of the billing service",
    ]);
    let show = w.show("api");
    assert_eq!(
        (show["provider"].clone(), show["endpoint"].clone()),
        (json!("local"), json!("stand"))
    );

    let (out, _) = w.send("api", "Please write the file now.");
    assert!(
        out.contains("⚙ Write hello.txt") && out.contains("Done writing."),
        "{out}"
    );
    let run_dir = std::path::PathBuf::from(w.show("api")["dir"].as_str().unwrap());
    assert_eq!(
        std::fs::read_to_string(run_dir.join("hello.txt")).unwrap(),
        "hi from local"
    );

    w.ok(&[
        "instructions",
        "api",
        "add",
        "Always use tabs for indentation.",
    ]);
    let (out, _) = w.send("api", "What did you do?");
    assert!(out.contains("answer to \"What did you do?\""), "{out}");

    // Three requests: the tool call, the answer after it, the second turn.
    let reqs = s.requests();
    assert_eq!(reqs.len(), 3);
    for sys in systems(&s) {
        assert!(sys.contains("Backend of the billing service"), "{sys}");
        assert!(sys.contains(run_dir.to_str().unwrap()), "{sys}");
    }
    // The standing text is the current one on every run, not frozen at the first.
    assert!(!systems(&s)[0].contains("Always use tabs"));
    assert!(systems(&s)[2].contains("Always use tabs for indentation."));
    // The second turn carries the first whole: prompt, tool call, tool result, answer.
    let roles: Vec<&str> = reqs[2]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(
        roles,
        ["system", "user", "assistant", "tool", "assistant", "user"]
    );

    let show = w.show("api");
    assert_eq!(show["turns"], 2);
    assert_eq!(show["conversation"]["number"], 1);
    assert_eq!(show["context"]["tokens"], 310);
    assert_eq!(show["context"]["window"], 32768);
    let sessions = show["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 1);
    assert_eq!(sessions[0]["provider"], "local");
}

#[test]
fn history_is_trimmed_by_whole_turns_when_the_window_is_small() {
    let s = StandIn::background(standin::models("stand-in", None), brain(1600));
    let w = world(&s, Some(2000));
    w.new_terminal("t", "local");
    for i in 1..=4 {
        w.send("t", &format!("question {i}"));
    }
    let last = s.requests().pop().unwrap();
    let msgs = last["messages"].as_array().unwrap();
    // Never cut mid-turn: system, whole (user, assistant) pairs, the prompt.
    assert_eq!(msgs.len() % 2, 0);
    let kept = (msgs.len() - 2) / 2;
    assert!(kept < 3, "{kept} earlier turns kept");
    assert_eq!(msgs[msgs.len() - 1]["content"], "question 4");
    if kept > 0 {
        assert_eq!(msgs[1]["content"], format!("question {}", 4 - kept));
    }
    let log = w.json(&["log", "t"]);
    let notes = log["turns"][3]["notes"].as_array().unwrap();
    let want = format!(
        "{} of 3 earlier turns left out of the request to fit the 2000-token window (oldest first, whole turns)",
        3 - kept
    );
    assert!(notes.iter().any(|n| n == &json!(want)), "{notes:?}");
    // No rotation: one conversation all along.
    assert_eq!(w.show("t")["conversation"]["number"], 1);
}

#[test]
fn a_terminal_switches_local_to_claude_and_back_in_one_conversation() {
    let s = StandIn::background(standin::models("stand-in", Some(8192)), brain(0));
    let w = world(&s, None);
    w.new_terminal("t", "local");
    w.send("t", "first on local");
    let out = w.run(&[
        "send",
        "t",
        "--provider",
        "claude",
        "then on claude [[reply:CLAUDE-SAID-THIS]]",
    ]);
    assert!(out.status.success(), "{}", text(&out));
    let out = w.run(&["send", "t", "--provider", "local", "back on local"]);
    assert!(out.status.success(), "{}", text(&out));

    let last = s.requests().pop().unwrap();
    let contents: Vec<&str> = last["messages"]
        .as_array()
        .unwrap()
        .iter()
        .skip(1)
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    assert_eq!(contents[0], "first on local");
    assert_eq!(contents[2], "then on claude [[reply:CLAUDE-SAID-THIS]]");
    assert_eq!(contents[3], "CLAUDE-SAID-THIS");
    assert_eq!(contents[4], "back on local");

    let show = w.show("t");
    assert_eq!(show["provider"], "local");
    assert_eq!(show["endpoint"], "stand");
    assert_eq!(show["conversation"]["number"], 1);
    let sessions: Vec<(String, String)> = show["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["provider"].as_str().unwrap().into(),
                s["reason"].as_str().unwrap().into(),
            )
        })
        .collect();
    let pair = |p: &str, r: &str| (p.to_string(), r.to_string());
    assert_eq!(
        sessions,
        vec![
            pair("local", "fresh"),
            pair("claude", "switch"),
            pair("local", "switch")
        ]
    );
}

#[test]
fn an_unknown_endpoint_is_refused_and_a_dead_server_fails_the_turn_clearly() {
    let s = StandIn::background(standin::models("stand-in", Some(8192)), brain(0));
    let w = world(&s, None);
    let dir = w.project("x");
    let out = w.run(&[
        "new",
        "x",
        "--dir",
        dir.to_str().unwrap(),
        "--provider",
        "local:nope",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("[providers.local.endpoints.nope]"),
        "{}",
        text(&out)
    );

    // An endpoint whose server is gone: retried (shown), then the turn fails with exit 1.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    std::fs::write(
        w.data().join("config.toml"),
        format!("[providers.local.endpoints.gone]\nbase_url = \"http://127.0.0.1:{port}/v1\"\nmodel = \"m\"\ncontext_window = 4096\nretries = 1\n"),
    )
    .unwrap();
    w.ok(&["server", "stop"]); // the server reads its config when it starts
    w.new_terminal("g", "local:gone");
    let out = w.run(&["send", "g", "hello there, anyone?"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let all = text(&out);
    assert!(
        all.contains("cannot connect") && all.contains("retrying"),
        "{all}"
    );
    assert_eq!(w.json(&["log", "g"])["turns"][0]["status"], "failed");
}

#[test]
fn interrupt_stops_a_local_turn_mid_stream_and_keeps_the_partial_answer() {
    let s = StandIn::background(standin::models("stand-in", Some(8192)), |req: &Value| {
        let prompt = standin::last_of(req)["content"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        if prompt.contains("long") {
            // One paragraph, then nothing: the server stalls mid-answer.
            return Reply::Stall(standin::text("Working on it.\n\n", None));
        }
        Reply::Stream(standin::text("short answer", Some((100, 5))))
    });
    let w = world(&s, None);
    w.new_terminal("api", "local:stand");
    let mut watch = w.watch();
    let child = w.spawn(&["send", "api", "a long job"]);
    watch.until(|e| e["event"]["event"]["event"]["kind"] == "text");
    w.ok(&["interrupt", "api"]);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let log = w.json(&["log", "api"]);
    assert_eq!(log["turns"][0]["status"], "interrupted");
    assert!(
        log["turns"][0]["answer"]
            .as_str()
            .unwrap()
            .contains("Working on it."),
        "{log}"
    );
    // The terminal carries on.
    let out = w.run(&["send", "api", "and now?"]);
    assert!(out.status.success(), "{}", text(&out));
}

/// `/v1/models` as llama-server answers it (trimmed): `meta.n_ctx` is the server's context
/// (`-c`), `meta.n_ctx_train` what the model was trained on.
fn llama_models(n_ctx: u64) -> Value {
    json!({"object": "list", "data": [{"id": "stand-in", "object": "model", "owned_by": "llamacpp",
           "meta": {"n_ctx": n_ctx, "n_ctx_train": 8192}}]})
}

#[test]
fn the_window_is_the_servers_context_not_the_models_training_length() {
    // Seen on llama-server -c 2048 with SmolLM2 (trained on 8192): baton took 8192, never
    // trimmed, and every turn after the fifth was refused as too long.
    let s = StandIn::background(llama_models(2000), brain(1600));
    let w = world(&s, None);
    w.new_terminal("t", "local");
    for i in 1..=4 {
        w.send("t", &format!("question {i}"));
    }
    assert_eq!(w.show("t")["context"]["window"], 2000);
    let log = w.json(&["log", "t"]);
    let notes = log["turns"][3]["notes"].as_array().unwrap();
    assert!(
        notes
            .iter()
            .any(|n| n.as_str().unwrap().contains("to fit the 2000-token window")),
        "{notes:?}"
    );
}

#[test]
fn a_request_the_server_finds_too_long_is_asked_again_with_fewer_earlier_turns() {
    // A server whose template makes requests count twice baton's estimate (llama.cpp with a
    // tool-use template adds ~480 tokens): it refuses like llama-server past its context.
    let refused = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let seen = refused.clone();
    let inner = brain(1600);
    let s = StandIn::background(llama_models(3000), move |req: &Value| {
        let counted = req.to_string().len() as u64 / 2;
        if counted > 3000 {
            seen.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            return Reply::Status(
                400,
                json!({"error": {"code": 400, "message": format!("request ({counted} tokens) exceeds the available context size (3000 tokens), try increasing it"),
                       "type": "exceed_context_size_error", "n_prompt_tokens": counted, "n_ctx": 3000}})
                .to_string(),
            );
        }
        inner(req)
    });
    let w = world(&s, None);
    w.new_terminal("t", "local");
    for i in 1..=5 {
        let out = w.run(&["send", "t", &format!("question {i}")]);
        assert!(out.status.success(), "turn {i}: {}", text(&out));
    }
    assert!(refused.load(std::sync::atomic::Ordering::SeqCst) > 0);
    let log = w.json(&["log", "t"]);
    let notes: Vec<String> = log["turns"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|t| t["notes"].as_array().unwrap().clone())
        .map(|n| n.as_str().unwrap().to_string())
        .collect();
    assert!(
        notes
            .iter()
            .any(|n| n.contains("exceeds the available context size")
                && n.contains("asking again with fewer earlier turns")),
        "{notes:?}"
    );
    // Every request the server accepted fits its count; the last one still ends on the prompt.
    let last = s.requests().pop().unwrap();
    assert!(last.to_string().len() / 2 <= 3000);
    assert_eq!(standin::last_of(&last)["content"], "question 5");
}

#[test]
fn back_on_local_after_another_provider_the_terminal_keeps_its_endpoint() {
    // With two endpoints configured, `--provider local` after a claude turn was refused
    // ("several local endpoints are configured"): the terminal had forgotten its own.
    let s = StandIn::background(standin::models("stand-in", Some(8192)), brain(0));
    let w = World::new();
    std::fs::write(
        w.data().join("config.toml"),
        format!(
            "[providers.local.endpoints.a]\nbase_url = \"{0}\"\nmodel = \"stand-in\"\n\n[providers.local.endpoints.b]\nbase_url = \"{0}\"\nmodel = \"stand-in\"\n",
            s.base_url
        ),
    )
    .unwrap();
    w.new_terminal("t", "local:b");
    w.send("t", "first on b");
    w.ok(&["send", "t", "--provider", "claude", "now on claude"]);
    w.ok(&["send", "t", "--provider", "local", "back on local"]);
    let show = w.show("t");
    assert_eq!(
        (show["provider"].clone(), show["endpoint"].clone()),
        (json!("local"), json!("b"))
    );
}

#[test]
fn a_tool_call_cut_by_the_token_limit_does_not_poison_the_conversation() {
    // Seen on llama-server -n 160: the answer ended mid-call (`{"path": "notes.txt"` unclosed).
    // baton kept those arguments, and llama-server answered every later request of the
    // conversation with 500 "Failed to parse tool call arguments as JSON".
    let s = StandIn::background(standin::models("stand-in", Some(8192)), |req: &Value| {
        let msgs = req["messages"].as_array().cloned().unwrap_or_default();
        let bad = msgs
            .iter()
            .flat_map(|m| m["tool_calls"].as_array().cloned().unwrap_or_default())
            .any(|c| {
                serde_json::from_str::<Value>(c["function"]["arguments"].as_str().unwrap_or(""))
                    .is_err()
            });
        if bad {
            return Reply::Status(
                500,
                json!({"error": {"code": 500, "message": "Failed to parse tool call arguments as JSON: [json.exception.parse_error.101] parse error at line 2, column 24: syntax error while parsing object - unexpected end of input; expected '}'", "type": "server_error"}}).to_string(),
            );
        }
        let last = standin::last_of(req);
        if last["role"] == "user" && last["content"] == "read it" {
            let cut = |delta: Value, finish: Value| {
                json!({"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
                    .to_string()
            };
            return Reply::Stream(vec![
                cut(
                    json!({"tool_calls": [{"index": 0, "id": "c1", "type": "function", "function": {"name": "read_file", "arguments": "{\n    \"path\": \"notes.txt\""}}]}),
                    Value::Null,
                ),
                cut(json!({}), json!("length")),
            ]);
        }
        Reply::Stream(standin::text("fine.", Some((100, 5))))
    });
    let w = world(&s, None);
    w.new_terminal("t", "local");
    let (out, _) = w.send("t", "read it");
    assert!(out.contains("fine."), "{out}");
    w.send("t", "and then?");
    // The model was told why its call did nothing.
    let tool = s.requests()[1]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .cloned()
        .unwrap();
    assert!(
        tool["content"]
            .as_str()
            .unwrap()
            .contains("the arguments of read_file are not JSON"),
        "{tool}"
    );
    // And the transcript has a line for the call that did not run.
    let log = w.json(&["log", "t"]);
    let tools = &log["turns"][0]["tools"];
    assert_eq!(
        tools,
        &json!(["read_file (not run: its arguments are not JSON)"]),
        "{log}"
    );
}

#[test]
fn a_fork_of_a_local_conversation_copies_its_history() {
    let s = StandIn::background(standin::models("stand-in", Some(8192)), brain(0));
    let w = world(&s, None);
    w.new_terminal("t", "local");
    w.send("t", "remember the word PELICAN");
    let fork = w.json(&["fork", "t"]);
    assert_eq!(fork["session_mode"], "forked");
    let contents = |s: &StandIn| -> Vec<String> {
        let last = s.requests().pop().unwrap();
        last["messages"]
            .as_array()
            .unwrap()
            .iter()
            .skip(1)
            .map(|m| m["content"].as_str().unwrap_or_default().to_string())
            .collect()
    };
    w.send("t-2", "which word?");
    let sent = contents(&s);
    assert_eq!(sent[0], "remember the word PELICAN");
    assert_eq!(sent.last().unwrap(), "which word?");
    w.send("t", "the original again");
    let sent = contents(&s);
    assert!(!sent.iter().any(|c| c == "which word?"), "{sent:?}");
    assert_eq!(sent.len(), 3, "{sent:?}");
}

/// Whether `req`'s messages after the system message alternate user, assistant (tool results
/// following the call they answer), as the chat templates of Gemma and Mistral insist.
fn alternates(req: &Value) -> bool {
    let roles: Vec<&str> = req["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .filter(|r| *r != "system" && *r != "tool")
        .collect();
    roles
        .iter()
        .enumerate()
        .all(|(i, r)| *r == if i % 2 == 0 { "user" } else { "assistant" })
}

/// Issue 14: a turn that failed before any answer (the endpoint was down) was replayed as a
/// bare user message followed by the next one, which Gemma's and Mistral's templates refuse.
#[test]
fn a_turn_that_failed_before_any_answer_keeps_the_replay_alternating() {
    let down = std::sync::atomic::AtomicBool::new(true);
    let s = StandIn::background(
        standin::models("stand-in", Some(8192)),
        move |req: &Value| {
            if down.swap(false, std::sync::atomic::Ordering::SeqCst) {
                return Reply::Status(503, r#"{"error":{"message":"Loading model"}}"#.into());
            }
            if !alternates(req) {
                // What llama-server answers when the Gemma template raises.
                return Reply::Status(400, r#"{"error":{"message":"Conversation roles must alternate user/assistant/user/assistant/..."}}"#.into());
            }
            Reply::Stream(standin::text("back again", Some((100, 5))))
        },
    );
    let w = world_with(&s, "context_window = 8192\nretries = 0\n");
    w.new_terminal("g", "local:stand");
    let out = w.run(&["send", "g", "first, while the server loads"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert_eq!(w.json(&["log", "g"])["turns"][0]["status"], "failed");
    let out = w.run(&["send", "g", "second, once it is up"]);
    assert!(out.status.success(), "{}", text(&out));
    let last = s.requests().pop().unwrap();
    assert!(alternates(&last), "{last}");
    let told = last["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "assistant")
        .map(|m| m["content"].as_str().unwrap().to_string())
        .collect::<Vec<_>>();
    assert_eq!(told.len(), 1, "{last}");
    assert!(
        told[0].starts_with("[this turn failed before any answer: ") && told[0].contains("503"),
        "{told:?}"
    );
}

#[test]
fn a_local_turn_cut_before_its_prompt_went_out_runs_once_and_one_marked_is_interrupted() {
    use super::queue::{all_done, turns};
    // (crash point, how the cut turn ends, the requests its prompt made in all)
    for (point, status, asked) in [
        ("turn-started", "completed", 1),
        ("turn-prompted", "interrupted", 0),
    ] {
        let s = StandIn::background(standin::models("stand-in", Some(8192)), brain(0));
        let mut w = world(&s, None);
        w.new_terminal("t", "local:stand");
        w.ok(&["server", "stop"]);
        w.env.push(("BATON_CRASH_AT".into(), point.into()));
        let _ = w.run(&["send", "t", "cut", "--detach"]);
        w.wait_for("the server to die at its crash point", || {
            w.run(&["server", "status"]).status.code() != Some(0)
        });
        w.env.clear();
        w.ok(&["server", "start"]);
        w.wait_for("the cut turn to be settled", || all_done(&w, "t", 1));
        let got: Vec<(u64, u64, String)> = turns(&w, "t")
            .into_iter()
            .map(|t| (t.0, t.1, t.3))
            .collect();
        assert_eq!(got, vec![(1, 1, status.to_string())], "{point}");
        let cut = s
            .requests()
            .iter()
            .filter(|r| standin::last_of(r)["content"] == "cut")
            .count();
        assert_eq!(cut, asked, "{point}");
    }
}
