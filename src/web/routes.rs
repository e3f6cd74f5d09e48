//! The web client's HTTP side (axum): every request through [`guard`] first, then the page and
//! its assets (embedded in the binary), `POST /api` (a `Request`, answered by its final reply
//! line; other hosts' through `hosts`), `POST /api/markdown` (answers rendered) and `GET
//! /api/events` (the socket's `watch` lines as server-sent events, and every configured
//! host's). No CORS header is ever sent.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, RwLock};

use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use futures_util::StreamExt;

use super::guard::{self, Facts, Verdict};
use super::{bridge, channel, hosts, markdown};
use crate::protocol::Request;

const PAGE: &str = include_str!("assets/index.html");
const SCRIPT: &str = include_str!("assets/app.js");
const STYLE: &str = include_str!("assets/app.css");

/// What every route needs: the token (rotated in place), the `Host` values the page is
/// reached by, the server's socket, the data directory (other hosts' ssh control sockets),
/// the hosts' channels the pages share.
pub struct Keys {
    token: RwLock<String>,
    hosts: Vec<String>,
    sock: PathBuf,
    root: PathBuf,
    channels: channel::Channels,
}

impl Keys {
    pub fn new(token: &str, addr: SocketAddr, data: &crate::paths::DataDir) -> Keys {
        Keys {
            token: RwLock::new(token.to_string()),
            hosts: guard::hosts_for(addr),
            sock: data.socket(),
            root: data.root.clone(),
            channels: channel::Channels::default(),
        }
    }

    pub fn set_token(&self, token: &str) {
        if let Ok(mut t) = self.token.write() {
            *t = token.to_string();
        }
    }

    fn token(&self) -> String {
        self.token.read().map(|t| t.clone()).unwrap_or_default()
    }
}

pub fn router(keys: Arc<Keys>) -> Router {
    Router::new()
        .route(
            "/",
            get(|| async { asset(PAGE, "text/html; charset=utf-8") }),
        )
        .route(
            "/app.js",
            get(|| async { asset(SCRIPT, "text/javascript; charset=utf-8") }),
        )
        .route(
            "/app.css",
            get(|| async { asset(STYLE, "text/css; charset=utf-8") }),
        )
        .route("/api", post(api))
        .route("/api/markdown", post(rendered))
        .route("/api/events", get(events))
        .layer(middleware::from_fn_with_state(keys.clone(), guarded))
        .with_state(keys)
}

/// Every request judged ([`guard::judge`]); every answer told not to be framed, sniffed,
/// cached or to run anything but the page's own script.
async fn guarded(
    State(keys): State<Arc<Keys>>,
    req: axum::extract::Request,
    next: Next,
) -> Response {
    let head = req.headers();
    let text = |name: header::HeaderName| head.get(name).and_then(|v| v.to_str().ok());
    let facts = Facts {
        safe: req.method() == Method::GET || req.method() == Method::HEAD,
        host: text(header::HOST),
        origin: text(header::ORIGIN),
        cookie: text(header::COOKIE).and_then(guard::cookie_token),
        query: req.uri().query().and_then(guard::query_token),
    };
    let token = keys.token();
    let mut resp = match guard::judge(&facts, &keys.hosts, &token) {
        Verdict::Serve => next.run(req).await,
        Verdict::SetCookie => set_cookie(req.uri().path(), &token),
        Verdict::Refuse(code, why) => refuse(code, why),
    };
    let h = resp.headers_mut();
    for (k, v) in [
        (
            header::CONTENT_SECURITY_POLICY,
            "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
        ),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::REFERRER_POLICY, "no-referrer"),
        (header::X_FRAME_OPTIONS, "DENY"),
        (header::CACHE_CONTROL, "no-store"),
    ] {
        h.insert(k, HeaderValue::from_static(v));
    }
    resp
}

/// The cookie set and the same page shown again without `?token=` in its address.
fn set_cookie(path: &str, token: &str) -> Response {
    let cookie = format!(
        "{}={token}; HttpOnly; SameSite=Strict; Path=/",
        guard::COOKIE
    );
    let mut resp = StatusCode::SEE_OTHER.into_response();
    let h = resp.headers_mut();
    if let (Ok(c), Ok(l)) = (HeaderValue::from_str(&cookie), HeaderValue::from_str(path)) {
        h.insert(header::SET_COOKIE, c);
        h.insert(header::LOCATION, l);
    }
    resp
}

fn refuse(code: u16, why: &'static str) -> Response {
    let status = StatusCode::from_u16(code).unwrap_or(StatusCode::FORBIDDEN);
    (status, format!("baton web: {why}\n")).into_response()
}

fn asset(body: &'static str, kind: &'static str) -> Response {
    ([(header::CONTENT_TYPE, kind)], body).into_response()
}

fn json_line(line: String) -> Response {
    let mut headers = HeaderMap::new();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    (headers, line).into_response()
}

/// One request of the socket protocol; its final reply line (`{"reply": "ok", "data": …}` or
/// `{"reply": "error", …}`), as the socket wrote it. A request for `HOST:NAME` goes to that
/// host's server, as the multiplexer's do.
async fn api(State(keys): State<Arc<Keys>>, Json(mut req): Json<Request>) -> Response {
    if !bridge::allowed(&req) {
        return refuse(403, "the web client does not send that request");
    }
    bridge::detach(&mut req);
    if let Some((host, bare)) = hosts::remote(&req) {
        return json_line(hosts::call(keys.root.clone(), host, bare).await);
    }
    match bridge::call(&keys.sock, req).await {
        Ok(line) => json_line(line),
        Err(e) => {
            let reply = crate::protocol::Reply::Error { error: e };
            json_line(serde_json::to_string(&reply).unwrap_or_default())
        }
    }
}

/// Answers' Markdown, each rendered safe to insert ([`markdown::render`]).
async fn rendered(Json(texts): Json<Vec<String>>) -> Json<Vec<String>> {
    Json(texts.iter().map(|t| markdown::render(t)).collect())
}

/// Every change, live: the socket's `watch` lines, one event each, for as long as the page
/// stays (a page that falls behind gets a fresh `terminals` snapshot, as any watcher), and
/// every configured host's beside them, from that host's one channel ([`channel::Channels`]).
async fn events(State(keys): State<Arc<Keys>>) -> Response {
    let lines = match bridge::watch(&keys.sock).await {
        Ok(l) => l,
        Err(e) => return (StatusCode::SERVICE_UNAVAILABLE, e.to_string()).into_response(),
    };
    let here = futures_util::stream::unfold(lines, |mut lines| async move {
        match bridge::next(&mut lines).await {
            Ok(Some(line)) => Some((Ok::<_, Infallible>(Event::default().data(line)), lines)),
            Ok(None) | Err(_) => None,
        }
    });
    // Each host's one channel, shared with the other pages; it ends with its last page.
    let there = keys.channels.follow_all(&keys.root).into_iter();
    let there = futures_util::stream::select_all(there.map(|c| Box::pin(channel::lines(c))))
        .map(|line| Ok::<_, Infallible>(Event::default().data(line)));
    Sse::new(futures_util::stream::select(here, there))
        .keep_alive(KeepAlive::default())
        .into_response()
}
