//! The web client in a real browser: headless Chromium driven through chromedriver's
//! WebDriver (plain HTTP), against the real binary and the shims. Skipped, saying so, only
//! where chromedriver is not installed and CI is not set (`.ci/run` installs it).

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::common::*;
use super::web_http::{call, Page};

const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

/// One browser: chromedriver on a free port and a session of headless Chromium.
struct Browser {
    driver: Child,
    addr: String,
    session: String,
    _profile: tempfile::TempDir,
}

impl Browser {
    /// None (after saying why) where chromedriver is absent outside CI.
    fn start() -> Option<Browser> {
        let found = Command::new("chromedriver")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
        if !found {
            assert!(
                std::env::var_os("CI").is_none(),
                "chromedriver is missing in CI: .ci/run must install chromium and chromium-driver"
            );
            eprintln!(
                "SKIPPED: chromedriver is not installed (apt-get install chromium chromium-driver)"
            );
            return None;
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let driver = Command::new("chromedriver")
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let addr = format!("127.0.0.1:{port}");
        let deadline = Instant::now() + Duration::from_secs(30);
        while std::net::TcpStream::connect(&addr).is_err() {
            assert!(Instant::now() < deadline, "chromedriver did not start");
            std::thread::sleep(Duration::from_millis(20));
        }
        let profile = tempfile::tempdir().unwrap();
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": chromium(),
                "args": [
                    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                    "--no-first-run", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync",
                    format!("--user-data-dir={}", profile.path().display()),
                    "--window-size=1280,860",
                ],
            },
        }}});
        let mut b = Browser {
            driver,
            addr,
            session: String::new(),
            _profile: profile,
        };
        let made = b.raw("POST", "/session", &caps);
        b.session = made["value"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no session: {made}"))
            .to_string();
        Some(b)
    }

    fn raw(&self, method: &str, path: &str, body: &Value) -> Value {
        let text = if body.is_null() {
            String::new()
        } else {
            body.to_string()
        };
        let r = call(&self.addr, method, path, &[], &text);
        serde_json::from_str(&r.body).unwrap_or_else(|e| panic!("{path}: {e}: {}", r.body))
    }

    fn cmd(&self, method: &str, path: &str, body: Value) -> Value {
        let v = self.raw(method, &format!("/session/{}{path}", self.session), &body);
        assert!(v["value"]["error"].is_null(), "{path}: {v}");
        v["value"].clone()
    }

    fn go(&self, url: &str) {
        self.cmd("POST", "/url", json!({ "url": url }));
    }

    fn js(&self, script: &str) -> Value {
        self.cmd(
            "POST",
            "/execute/sync",
            json!({ "script": script, "args": [] }),
        )
    }

    fn element(&self, css: &str) -> String {
        let v = self.cmd(
            "POST",
            "/element",
            json!({"using": "css selector", "value": css}),
        );
        v[ELEMENT]
            .as_str()
            .unwrap_or_else(|| panic!("{css}: {v}"))
            .to_string()
    }

    fn click(&self, css: &str) {
        let e = self.element(css);
        self.cmd("POST", &format!("/element/{e}/click"), json!({}));
    }

    fn keys(&self, css: &str, text: &str) {
        let e = self.element(css);
        self.cmd(
            "POST",
            &format!("/element/{e}/value"),
            json!({ "text": text }),
        );
    }

    /// Waits until `script` returns true (30 s at most), on the page's own clock.
    fn until(&self, what: &str, script: &str) {
        let deadline = Instant::now() + Duration::from_secs(30);
        while self.js(script) != Value::Bool(true) {
            assert!(
                Instant::now() < deadline,
                "{what}: {}",
                self.js("return document.body.innerText")
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn text(&self, css: &str) -> String {
        let v = self.js(&format!("return document.querySelector({css:?}).innerText"));
        v.as_str().unwrap_or_default().to_string()
    }

    fn size(&self, width: u32, height: u32) {
        self.cmd(
            "POST",
            "/window/rect",
            json!({"width": width, "height": height}),
        );
    }

    /// A PNG of the window into `$BATON_WEB_SHOTS/NAME`, when that is set.
    fn shot(&self, name: &str) {
        let Some(dir) = std::env::var_os("BATON_WEB_SHOTS") else {
            return;
        };
        use base64::Engine;
        let png = self.cmd("GET", "/screenshot", Value::Null);
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(png.as_str().unwrap())
            .unwrap();
        std::fs::write(std::path::Path::new(&dir).join(name), bytes).unwrap();
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let _ = call(
                &self.addr,
                "DELETE",
                &format!("/session/{}", self.session),
                &[],
                "",
            );
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

fn chromium() -> String {
    ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .into_iter()
        .find(|p| std::path::Path::new(p).exists())
        .unwrap_or("chromium")
        .to_string()
}

fn served(w: &World) -> String {
    w.json(&["web"])["url"].as_str().unwrap().to_string()
}

fn open_terminal(b: &Browser, url: &str, name: &str) {
    b.go(url);
    let row = format!("#terminals li[data-name={name:?}]");
    b.until(
        "the terminal is listed",
        &format!("return !!document.querySelector({row:?})"),
    );
    b.click(&row);
    b.until(
        "its view opens",
        "return !document.getElementById('view').hidden",
    );
}

#[test]
fn web_page_lists_opens_and_sends_with_enter() {
    let Some(b) = Browser::start() else { return };
    let w = World::new();
    w.new_terminal("t", "claude");
    w.send("t", "first [[reply:an **earlier** answer]]");
    let url = served(&w);
    open_terminal(&b, &url, "t");
    b.until(
        "the earlier answer, its Markdown rendered",
        "return !!document.querySelector('#transcript .answer strong')",
    );
    // Shift+Enter is a new line; Enter sends.
    b.keys(
        "#prompt",
        "line one\u{E008}\u{E007}\u{E000}line two [[reply:the page's answer]]\u{E007}",
    );
    b.until(
        "the answer of the page's send",
        "return document.getElementById('transcript').innerText.includes(\"the page's answer\")",
    );
    let prompt = w.json(&["log", "t"])["turns"][1]["prompt"].clone();
    assert_eq!(prompt, "line one\nline two [[reply:the page's answer]]");
    assert_eq!(b.text("#prompt"), "", "the composer is emptied");
    b.size(390, 844);
    let side = b.js("return getComputedStyle(document.getElementById('side')).display");
    assert_eq!(side, "none", "a phone shows one column: the terminal");
}

#[test]
fn web_page_streams_a_turn_sent_from_the_command_line() {
    let Some(b) = Browser::start() else { return };
    let w = World::new();
    let dir = w.new_terminal("t", "claude");
    let url = served(&w);
    open_terminal(&b, &url, "t");
    let send = w.spawn(&["send", "t", "from the shell [[hold:go]]"]);
    b.until(
        "the running turn, live, before it ends",
        "return document.getElementById('live').innerText.includes('from the shell')",
    );
    std::fs::write(dir.join("go"), "").unwrap();
    assert!(send.wait_with_output().unwrap().status.success());
    b.until(
        "the finished turn in the transcript",
        "return document.getElementById('transcript').innerText.includes('from the shell') \
         && document.getElementById('live').innerText === ''",
    );
}

#[test]
fn web_page_shows_html_from_a_terminal_as_text() {
    let Some(b) = Browser::start() else { return };
    let w = World::new();
    w.new_terminal("t", "claude");
    let evil =
        "<img src=x onerror=\"document.title='pwned'\"><script>document.title='pwned'</script>";
    w.send("t", &format!("{evil} [[reply:{evil}]]"));
    let url = served(&w);
    open_terminal(&b, &url, "t");
    b.until(
        "the prompt, as text",
        "return document.getElementById('transcript').innerText.includes('<script>')",
    );
    assert_eq!(b.js("return document.title"), "baton");
    assert_eq!(
        b.js("return document.querySelectorAll('#transcript img, #transcript script').length"),
        0
    );
}

#[test]
fn web_page_is_refused_without_its_token() {
    let Some(b) = Browser::start() else { return };
    let w = World::new();
    let url = served(&w);
    let page = Page::from_url(&url);
    b.go(&format!("http://{}/", page.addr));
    let shown = b.text("body");
    assert!(shown.contains("no valid token"), "{shown}");
}

#[test]
fn web_page_expands_tool_calls_and_renames_a_terminal() {
    let Some(b) = Browser::start() else { return };
    let w = World::new();
    w.new_terminal("t", "claude");
    w.send("t", "look around [[calls:2]]");
    let url = served(&w);
    open_terminal(&b, &url, "t");
    b.until(
        "the turn's tool calls, folded",
        "return !!document.querySelector('#transcript details.tools')",
    );
    b.click("#transcript details.tools summary");
    b.until(
        "a tool call's result, read back from the turn's stream",
        "return [...document.querySelectorAll('#transcript .tool pre')].some(p => p.innerText.length > 0)",
    );
    b.click("#actions [data-act=rename]");
    b.cmd("POST", "/alert/text", json!({"text": "renamed"}));
    b.cmd("POST", "/alert/accept", json!({}));
    b.until(
        "the list under the new name",
        "return !!document.querySelector('#terminals li[data-name=renamed]') \
         && !document.querySelector('#terminals li[data-name=t]')",
    );
    assert_eq!(w.show("renamed")["name"], "renamed");
}

#[test]
fn web_page_edits_waiting_input_and_interrupts_the_running_turn() {
    let Some(b) = Browser::start() else { return };
    let w = World::new();
    w.new_terminal("t", "claude");
    let url = served(&w);
    open_terminal(&b, &url, "t");
    w.ok(&["send", "t", "first [[hang]]", "--detach"]);
    w.ok(&["send", "t", "second as sent", "--detach"]);
    b.until(
        "the waiting input, editable",
        "return document.querySelectorAll('#queue input').length === 1",
    );
    // Typed (its `input` event), not saved yet, when an update of the terminal draws its
    // queue again: the page keeps what was typed.
    b.js(
        "const i = document.querySelector('#queue input'); i.value = 'second as edited'; \
          i.dispatchEvent(new Event('input')); return true",
    );
    w.ok(&["send", "t", "third", "--detach"]);
    b.until(
        "the queue drawn again with the edit kept",
        "return document.querySelectorAll('#queue input').length === 2 \
         && document.querySelector('#queue input').value === 'second as edited'",
    );
    b.click("#queue li button");
    w.wait_for("the edit reached the queue", || {
        w.json(&["queue", "t"])[0]["prompt"] == "second as edited"
    });
    b.click("#actions [data-act=interrupt]");
    b.until(
        "the interrupted turn, then the edited input's, in the transcript",
        "return document.getElementById('transcript').innerText.includes('interrupted')",
    );
}

/// Answers the page's `prompt()` with `text` (or a `confirm()` with OK).
fn answer_dialog(b: &Browser, text: Option<&str>) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while b.raw(
        "GET",
        &format!("/session/{}/alert/text", b.session),
        &Value::Null,
    )["value"]
        .get("error")
        .is_some()
    {
        assert!(Instant::now() < deadline, "no dialog opened");
        std::thread::sleep(Duration::from_millis(20));
    }
    if let Some(t) = text {
        b.cmd("POST", "/alert/text", json!({ "text": t }));
    }
    b.cmd("POST", "/alert/accept", json!({}));
}

#[test]
fn web_page_makes_forks_and_new_terminals_and_archives() {
    let Some(b) = Browser::start() else { return };
    let w = World::new();
    w.new_repo_terminal("t", "repo", "claude");
    w.send("t", "one");
    let url = served(&w);
    open_terminal(&b, &url, "t");
    b.click("#actions [data-act=fork]");
    answer_dialog(&b, Some("t2"));
    b.until(
        "the fork, listed and opened",
        "return document.getElementById('name').innerText === 't2'",
    );
    assert_eq!(w.show("t2")["name"], "t2");
    b.click("#actions [data-act=archive]");
    answer_dialog(&b, None);
    w.wait_for("the fork archived", || w.show("t2")["archived"] == true);
    b.click("#terminals li[data-name=t]");
    b.until(
        "the archived fork left the list",
        "return !document.querySelector('#terminals li[data-name=t2]')",
    );
    let dir = w.project("fresh");
    b.click("#new");
    answer_dialog(&b, Some(dir.to_str().unwrap()));
    answer_dialog(&b, Some("made"));
    b.until(
        "the new terminal, opened",
        "return document.getElementById('name').innerText === 'made'",
    );
    assert_eq!(w.show("made")["dir"], dir.to_str().unwrap());
}

#[test]
fn web_page_answers_a_waiting_approval() {
    let Some(b) = Browser::start() else { return };
    let w = World::new();
    let dir = w.new_terminal("api", "claude");
    let out = dir.parent().unwrap().join("out");
    std::fs::create_dir_all(&out).unwrap();
    let url = served(&w);
    b.go(&url);
    // A write outside the checkout waits for the user (as tests/suite/approvals.rs).
    let send = w.spawn(&["send", "api", "[[deny:Write:../out/a.txt]] [[reply:done]]"]);
    b.until(
        "the request in the page's inbox, with its answers",
        "return !!document.querySelector('#approval-list button[data-act=allow]')",
    );
    let listed = b.text("#approval-list");
    assert!(listed.contains("api: Write"), "{listed}");
    b.click("#approval-list button[data-act=allow]");
    let done = send.wait_with_output().unwrap();
    assert!(done.status.success(), "{}", text(&done));
    assert!(out.join("a.txt").exists(), "the approved write landed");
    // Answered: nothing waits any more, in the command line's inbox or the page's.
    assert_eq!(w.json(&["approvals"]), json!([]));
    b.until(
        "the inbox without the answered request",
        "return !document.querySelector('#approval-list button')",
    );
}

#[test]
fn web_page_lists_opens_and_sends_to_another_hosts_terminal() {
    let Some(b) = Browser::start() else { return };
    let mut w = World::new();
    let Some(_sshd) = super::hosts::box_terminal(&mut w, "api") else {
        return;
    };
    w.new_terminal("here", "claude");
    w.send(
        "here",
        "Add a /health endpoint [[reply:Added **GET /health**.]]",
    );
    w.send(
        "box:api",
        "earlier [[reply:an **earlier** answer:\n\n```sh\ncargo test\n```]]",
    );
    let url = served(&w);
    b.go(&url);
    b.until(
        "the host's line in the list, online",
        "return [...document.querySelectorAll('#terminals li.host')].some(l => l.innerText === 'box')",
    );
    open_terminal(&b, &url, "box:api");
    b.until(
        "the remote transcript, its Markdown rendered",
        "return !!document.querySelector('#transcript .answer strong')",
    );
    b.keys(
        "#prompt",
        "from the page [[reply:the host's answer]]\u{E007}",
    );
    b.until(
        "the answer of the remote turn",
        "return document.getElementById('transcript').innerText.includes(\"the host's answer\")",
    );
    assert_eq!(
        w.json(&["log", "box:api"])["turns"][1]["prompt"],
        "from the page [[reply:the host's answer]]"
    );
    // docs/web-*.png: this machine's terminal and the host's, one of them open.
    b.shot("web-desktop.png");
    b.size(390, 844);
    b.shot("web-phone.png");
}

#[test]
fn web_page_renders_the_running_turns_markdown_before_it_ends() {
    let Some(b) = Browser::start() else { return };
    let w = World::new();
    let dir = w.new_terminal("t", "claude");
    w.send("t", "first [[reply:an earlier answer]]");
    let url = served(&w);
    open_terminal(&b, &url, "t");
    b.until(
        "the earlier turn in the transcript",
        "return document.getElementById('transcript').innerText.includes('an earlier answer')",
    );
    // Marks the transcript as drawn now: a redraw on each piece of the live answer drops it.
    b.js("document.querySelector('#transcript .answer').dataset.kept = '1'; return true");
    // Held after its first piece (at most 32 characters: the heading's line).
    let send = w.spawn(&[
        "send",
        "t",
        "[[reply:# Live heading then `code` and a tail long enough for two pieces]] [[hold:go]]",
    ]);
    b.until(
        "the running turn's heading, rendered, before the turn ends",
        "return [...document.querySelectorAll('#live .answer h1')].some(h => h.innerText.includes('Live heading'))",
    );
    assert_eq!(w.show("t")["state"], "running", "the turn still runs");
    assert_eq!(
        b.js("return document.querySelector('#transcript .answer').dataset.kept"),
        "1",
        "the transcript was not drawn again"
    );
    std::fs::write(dir.join("go"), "").unwrap();
    assert!(send.wait_with_output().unwrap().status.success());
    b.until(
        "the finished turn in the transcript, rendered",
        "return !!document.querySelector('#transcript .answer h1 code, #transcript .answer h1') \
         && document.getElementById('live').innerText === ''",
    );
}

/// The text of host `box`'s line in the page's list ("" while there is none).
const BOX_LINE: &str = "const l = [...document.querySelectorAll('#terminals li.host')]\
     .find(l => l.dataset.host === 'box'); const t = l ? l.innerText : '';";

#[test]
fn web_page_shows_a_host_offline_while_it_cannot_be_reached_then_online_with_its_terminals() {
    let Some(b) = Browser::start() else { return };
    let mut w = World::new();
    let Some(mut s) = super::hosts::box_terminal(&mut w, "api") else {
        return;
    };
    let url = served(&w);
    b.go(&url);
    b.until(
        "box online with its terminal",
        &format!(
            "{BOX_LINE} return t === 'box' \
             && !!document.querySelector('#terminals li[data-name=\"box:api\"]')"
        ),
    );
    // The host goes away: no new connection, and the open ones (the page's channel) die.
    s.stop_listening();
    super::tui_hosts::kill_ssh(&w);
    b.until(
        "box offline",
        &format!("{BOX_LINE} return t === 'box · offline'"),
    );
    // A terminal made there meanwhile (on the host's own server) comes with the host's list.
    let dir = super::hosts::remote_project(&s, "later");
    let out = Command::new(BATON)
        .args(["new", "later", "--dir", dir.to_str().unwrap()])
        .env("BATON_HOME", &s.remote)
        .env("HOME", &s.remote_home)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        b.js(&format!("{BOX_LINE} return t")),
        "box · offline",
        "still offline while nothing listens"
    );
    s.listen_again();
    b.until(
        "box online again, both its terminals listed",
        &format!(
            "{BOX_LINE} return t === 'box' \
             && !!document.querySelector('#terminals li[data-name=\"box:api\"]') \
             && !!document.querySelector('#terminals li[data-name=\"box:later\"]')"
        ),
    );
}
