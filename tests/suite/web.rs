//! The web client over plain HTTP: served by the running server with its token, refused
//! without it, under a foreign Host or from a foreign Origin; the socket protocol's requests
//! and its live stream, as the page uses them.

use pretty_assertions::assert_eq;
use serde_json::Value;

use super::common::*;
use super::web_http::Page;

fn serve(w: &World, args: &[&str]) -> Page {
    let mut a = vec!["web"];
    a.extend_from_slice(args);
    let v = w.json(&a);
    Page::from_url(v["url"].as_str().unwrap())
}

#[test]
fn web_serves_the_page_only_with_its_token_cookie() {
    let w = World::new();
    let page = serve(&w, &[]);
    assert!(page.addr.starts_with("127.0.0.1:"), "{}", page.addr);
    let bare = page.request("GET", "/", &[], "");
    assert_eq!(bare.status, 401, "{}", bare.body);
    assert!(!bare.body.contains("<html"), "{}", bare.body);
    let wrong = page.request("GET", "/?token=0123456789abcdef0123456789abcdef", &[], "");
    assert_eq!(wrong.status, 401);

    let first = page.request("GET", &format!("/?token={}", page.token), &[], "");
    assert_eq!(first.status, 303);
    assert_eq!(first.header("location"), Some("/"));
    let cookie = first.header("set-cookie").unwrap();
    assert_eq!(
        cookie,
        format!(
            "baton_web={}; HttpOnly; SameSite=Strict; Path=/",
            page.token
        )
    );

    let shown = page.request("GET", "/", &[("Cookie", &page.cookie())], "");
    assert_eq!(shown.status, 200);
    assert!(
        shown.body.contains("<title>baton</title>"),
        "{}",
        shown.body
    );
    assert!(
        shown
            .header("content-security-policy")
            .is_some_and(|c| c.contains("default-src 'self'")),
        "{:?}",
        shown.headers
    );
    assert!(
        !shown
            .headers
            .iter()
            .any(|(k, _)| k.to_ascii_lowercase().starts_with("access-control")),
        "no CORS: {:?}",
        shown.headers
    );
    // The same address again: the same URL, token and listener.
    let again = serve(&w, &[]);
    assert_eq!(
        (again.addr, again.token),
        (page.addr.clone(), page.token.clone())
    );
    let token_file = w.data().join("web-token");
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&token_file).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
}

#[test]
fn web_refuses_a_foreign_host_or_origin() {
    let w = World::new();
    w.new_terminal("t", "claude");
    let page = serve(&w, &[]);
    let cookie = page.cookie();
    let port = page.addr.rsplit(':').next().unwrap().to_string();
    let rebound = format!("evil.example:{port}");
    let foreign = page.request("GET", "/", &[("Host", &rebound), ("Cookie", &cookie)], "");
    assert_eq!(foreign.status, 421, "{}", foreign.body);
    let localhost = format!("localhost:{port}");
    let named = page.request("GET", "/", &[("Host", &localhost), ("Cookie", &cookie)], "");
    assert_eq!(named.status, 200, "the loopback's own name");

    let ls = r#"{"cmd":"ls"}"#;
    let from_page = page.api(ls);
    assert_eq!(from_page.status, 200, "{}", from_page.body);
    let reply: Value = serde_json::from_str(&from_page.body).unwrap();
    assert_eq!(reply["reply"], "ok");
    assert_eq!(names_of(&reply["data"]), vec!["t".to_string()]);

    for (origin, what) in [
        (Some("http://evil.example"), "another site"),
        (None, "no Origin"),
    ] {
        let mut headers = vec![("Cookie", cookie.as_str())];
        headers.extend(origin.map(|o| ("Origin", o)));
        let r = page.request("POST", "/api", &headers, ls);
        assert_eq!(r.status, 403, "{what}: {}", r.body);
    }
    let origin = page.origin();
    let no_cookie = page.request("POST", "/api", &[("Origin", &origin)], ls);
    assert_eq!(no_cookie.status, 401);
    // What names files on the server or stops it is not the page's to send.
    let stop = page.api(r#"{"cmd":"stop"}"#);
    assert_eq!(stop.status, 403, "{}", stop.body);
    assert_eq!(w.json(&["server", "status"])["running"], true);
}

#[test]
fn web_new_token_refuses_the_old_one() {
    let w = World::new();
    let old = serve(&w, &[]);
    let new = serve(&w, &["--new-token"]);
    assert_eq!(new.addr, old.addr);
    assert_ne!(new.token, old.token);
    let r = old.request("GET", "/", &[("Cookie", &old.cookie())], "");
    assert_eq!(r.status, 401);
    let r = new.request("GET", "/", &[("Cookie", &new.cookie())], "");
    assert_eq!(r.status, 200);
}

#[test]
fn web_configured_port_is_kept_across_restarts() {
    let w = World::new();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    std::fs::write(
        w.data().join("config.toml"),
        format!("[web]\nport = {port}\n"),
    )
    .unwrap();
    let first = serve(&w, &[]);
    assert_eq!(first.addr, format!("127.0.0.1:{port}"));
    w.ok(&["server", "stop"]);
    // A page left open reconnects by itself: the server serves it from its start.
    w.ok(&["server", "start"]);
    let r = first.request("GET", "/", &[("Cookie", &first.cookie())], "");
    assert_eq!(r.status, 200, "{}", r.body);
    let second = serve(&w, &[]);
    assert_eq!((second.addr, second.token), (first.addr, first.token));
}

#[test]
fn web_streams_a_turn_sent_from_the_command_line() {
    let w = World::new();
    w.new_terminal("t", "claude");
    let page = serve(&w, &[]);
    let sender = std::thread::spawn({
        let w_cmd = w.cmd(&["send", "t", "hello from the command line"]);
        move || {
            let mut c = w_cmd;
            c.output().unwrap()
        }
    });
    let seen = page.events_until(|v| v["event"]["what"] == "finished" && v["event"]["name"] == "t");
    assert!(sender.join().unwrap().status.success());
    let started = seen
        .iter()
        .any(|l| l.contains("hello from the command line"));
    assert!(started, "the prompt reached the page: {seen:#?}");
    let answered = seen.iter().any(|l| l.contains(r#""what":"turn""#));
    assert!(answered, "the turn's steps reached the page: {seen:#?}");
}

#[test]
fn web_markdown_shows_html_and_script_as_text() {
    let w = World::new();
    let page = serve(&w, &[]);
    let body = r#"["**hi** <script>alert(1)</script>", "[x](javascript:alert(1))"]"#;
    let (cookie, origin) = (page.cookie(), page.origin());
    let r = page.request(
        "POST",
        "/api/markdown",
        &[("Cookie", &cookie), ("Origin", &origin)],
        body,
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let html: Vec<String> = serde_json::from_str(&r.body).unwrap();
    assert_eq!(
        html,
        vec![
            "<p><strong>hi</strong> &lt;script&gt;alert(1)&lt;/script&gt;</p>\n".to_string(),
            "<p><a href=\"#\">x</a></p>\n".to_string(),
        ]
    );
}

#[test]
fn web_open_starts_the_browser_on_the_page() {
    use std::os::unix::fs::PermissionsExt;
    let mut w = World::new();
    let opened = w.tmp.path().join("opened");
    let browser = w.tmp.path().join("browser");
    std::fs::write(
        &browser,
        format!("#!/bin/sh\necho \"$1\" > {}\n", opened.display()),
    )
    .unwrap();
    std::fs::set_permissions(&browser, std::fs::Permissions::from_mode(0o755)).unwrap();
    w.env
        .push(("BROWSER".into(), browser.display().to_string()));
    let url = w.json(&["web", "--open"])["url"]
        .as_str()
        .unwrap()
        .to_string();
    w.wait_for("the browser was started", || {
        std::fs::read_to_string(&opened).is_ok_and(|s| s.trim() == url)
    });
    // Without a display or $BROWSER, it says to open the address by hand.
    w.env.clear();
    let out = w.run(&["web", "--open"]);
    assert!(out.status.success());
    assert!(
        text(&out).contains("no browser can be started here"),
        "{}",
        text(&out)
    );
}

#[test]
fn web_lists_reads_and_sends_to_another_hosts_terminal() {
    let mut w = World::new();
    let Some(_sshd) = super::hosts::box_terminal(&mut w, "api") else {
        return;
    };
    w.new_terminal("here", "claude");
    let page = serve(&w, &[]);
    // The host's list on the page's stream, beside this machine's, its names `HOST:NAME`.
    let mut events = page.events();
    let seen = events.until(box_listed);
    assert!(
        seen.iter().any(|l| l.contains(r#""reply":"host""#)),
        "the host's channel is announced: {seen:#?}"
    );
    let sent = page.api(
        r#"{"cmd":"send","name":"box:api","prompt":"hello from the page","provider":null,
            "model":null,"dir":null,"mode":"queue","detach":false}"#,
    );
    assert_eq!(sent.status, 200, "{}", sent.body);
    let sent: Value = serde_json::from_str(&sent.body).unwrap();
    assert_eq!(sent["reply"], "ok", "{sent}");
    // On the stream open when it was sent (one opened later may come after the turn's end).
    let finished =
        events.until(|v| v["event"]["what"] == "finished" && v["event"]["name"] == "box:api");
    drop(events);
    assert!(
        finished.iter().any(|l| l.contains("hello from the page")),
        "the remote turn streamed to the page: {finished:#?}"
    );
    let log: Value =
        serde_json::from_str(&page.api(r#"{"cmd":"log","name":"box:api"}"#).body).unwrap();
    assert_eq!(log["data"]["name"], "box:api", "{log}");
    assert_eq!(log["data"]["turns"][0]["prompt"], "hello from the page");
    // The turn ran there: this machine's server never had the terminal.
    assert_eq!(w.run(&["show", "api"]).status.code(), Some(2));
    let unknown: Value =
        serde_json::from_str(&page.api(r#"{"cmd":"show","name":"box:nope"}"#).body).unwrap();
    let why = unknown["error"]["message"].as_str().unwrap_or_default();
    assert!(why.starts_with("on host box: "), "{unknown}");
    // A page's host channel lives as long as its stream.
    let server = w.json(&["server", "status"])["pid"].as_u64().unwrap();
    w.wait_for("the channels of the pages that left to end", || {
        ssh_children(server).is_empty()
    });
    let open = page.events_open();
    w.wait_for("an open page's channel to the host", || {
        ssh_children(server).len() == 1
    });
    drop(open);
    w.wait_for("the channel of the page that left to end", || {
        ssh_children(server).is_empty()
    });
}

#[test]
fn web_pages_share_one_channel_per_host() {
    let mut w = World::new();
    let Some(_sshd) = super::hosts::box_terminal(&mut w, "api") else {
        return;
    };
    let page = serve(&w, &[]);
    let server = w.json(&["server", "status"])["pid"].as_u64().unwrap();
    let listed = box_listed;
    let mut phone = page.events();
    phone.until(listed);
    // The laptop joins the channel the phone opened: told how it stands, and the host's list.
    let mut laptop = page.events();
    let joined = laptop.until(listed);
    assert!(
        joined
            .iter()
            .any(|l| l.contains(r#""reply":"host""#) && l.contains(r#""link":"online""#)),
        "the host's channel is announced to the page that joined it: {joined:#?}"
    );
    let channel = ssh_children(server);
    assert_eq!(channel.len(), 1, "one channel to the host for both pages");
    // A change on the host reaches both pages.
    let turn = |prompt: &str| {
        let sent = page.api(&format!(
            r#"{{"cmd":"send","name":"box:api","prompt":"{prompt}","provider":null,
                "model":null,"dir":null,"mode":"queue","detach":false}}"#
        ));
        assert_eq!(sent.status, 200, "{}", sent.body);
    };
    let finished = |v: &Value| v["event"]["what"] == "finished" && v["event"]["name"] == "box:api";
    turn("to both pages");
    for (who, events) in [("phone", &mut phone), ("laptop", &mut laptop)] {
        let seen = events.until(finished);
        assert!(
            seen.iter().any(|l| l.contains("to both pages")),
            "the {who} saw the turn: {seen:#?}"
        );
    }
    // One of two leaves: the channel stays for the other, the same ssh, never offline.
    drop(laptop);
    turn("to the phone");
    let seen = phone.until(finished);
    assert!(seen.iter().any(|l| l.contains("to the phone")), "{seen:#?}");
    assert!(!seen.iter().any(|l| l.contains("offline")), "{seen:#?}");
    w.wait_for("the sends' own ssh to end", || {
        ssh_children(server) == channel
    });
    // The last one leaves: the channel goes; the next page opens another.
    drop(phone);
    w.wait_for("the channel to end with its last page", || {
        ssh_children(server).is_empty()
    });
    page.events_until(listed);
}

#[test]
fn web_a_page_joining_a_hosts_channel_late_is_told_what_the_others_were() {
    let mut w = World::new();
    let Some(mut sshd) = super::hosts::box_terminal(&mut w, "api") else {
        return;
    };
    let dir = super::hosts::remote_project(&sshd, "proj");
    let page = serve(&w, &[]);
    let server = w.json(&["server", "status"])["pid"].as_u64().unwrap();
    let listed = box_listed;
    let started = |v: &Value| v["event"]["event"]["step"] == "started";
    let mut phone = page.events();
    phone.until(listed);
    let sent = page.api(
        r#"{"cmd":"send","name":"box:api","prompt":"take your time [[hold:go]]","provider":null,
            "model":null,"dir":null,"mode":"queue","detach":false}"#,
    );
    assert_eq!(sent.status, 200, "{}", sent.body);
    phone.until(started);
    // Mid-turn, over the phone's channel: the list, then the running turn from its start.
    let mut laptop = page.events();
    laptop.until(listed);
    let seen = laptop.until(started);
    assert!(seen[0].contains("take your time"), "{seen:#?}");
    assert_eq!(ssh_children(server).len(), 1, "one channel for both pages");
    std::fs::write(dir.join("go"), "").unwrap();
    let finished = |v: &Value| v["event"]["what"] == "finished" && v["event"]["name"] == "box:api";
    phone.until(finished);
    laptop.until(finished);
    // The host drops: a page that opens now is told it is offline (its first line of the host).
    sshd.stop_listening();
    super::tui_hosts::kill_ssh(&w);
    let offline = |v: &Value| v["host"] == "box" && v["link"] == "offline";
    phone.until(offline);
    let mut tablet = page.events();
    let seen = tablet.until(|v| v["host"] == "box");
    assert!(
        seen.last().unwrap().contains(r#""link":"offline""#),
        "{seen:#?}"
    );
    // Back: every page gets the host's list again, over one channel.
    sshd.listen_again();
    for events in [&mut phone, &mut laptop, &mut tablet] {
        events.until(listed);
    }
    assert_eq!(
        ssh_children(server).len(),
        1,
        "one channel for the three pages"
    );
}

/// The host's list on a page's stream, with its terminal `box:api`.
fn box_listed(v: &Value) -> bool {
    v["host"] == "box"
        && v["event"]["what"] == "terminals"
        && v["event"]["terminals"][0]["name"] == "box:api"
}

/// The `ssh` processes `pid` started and still runs (a master connection, which ssh forks
/// off on its own, is not among them).
fn ssh_children(pid: u64) -> Vec<u64> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u64>().ok())
        .filter(|p| {
            let status = std::fs::read_to_string(format!("/proc/{p}/status")).unwrap_or_default();
            let exe = std::fs::read_link(format!("/proc/{p}/exe")).unwrap_or_default();
            status.lines().any(|l| l == format!("PPid:\t{pid}")) && exe.ends_with("ssh")
        })
        .collect()
}
