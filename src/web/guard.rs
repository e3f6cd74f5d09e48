//! Who the web client answers, decided from a request's facts alone ([`judge`], pure): the
//! `Host` must be the address the page is served on (a DNS-rebinding page's is not), a
//! state-changing request's `Origin` the page's own (a cross-site form's is not), and the
//! token must come, as the cookie a first `?token=` visit set or as that visit itself.

use std::net::SocketAddr;

/// The cookie holding the token (HttpOnly, SameSite=Strict).
pub const COOKIE: &str = "baton_web";

/// What a request brings that decides whether it is answered.
#[derive(Debug, Clone, Copy)]
pub struct Facts<'a> {
    /// GET or HEAD: changes nothing.
    pub safe: bool,
    pub host: Option<&'a str>,
    pub origin: Option<&'a str>,
    /// The token of its cookie.
    pub cookie: Option<&'a str>,
    /// The token of its `?token=`.
    pub query: Option<&'a str>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Serve,
    /// A first visit with the right `?token=`: set the cookie, then show the page without
    /// the token in its address.
    SetCookie,
    /// Refused, with the status and why (no page is shown).
    Refuse(u16, &'static str),
}

/// The `Host` the page is reached by when served on `addr`.
pub fn host_of(addr: SocketAddr) -> String {
    addr.to_string()
}

/// Whether `f` is answered, by the page served on `hosts` (the `Host` values it is reached
/// by) with token `token`.
pub fn judge(f: &Facts, hosts: &[String], token: &str) -> Verdict {
    let Some(host) = f.host.filter(|h| hosts.iter().any(|a| a == h)) else {
        return Verdict::Refuse(421, "this page is not served under that Host");
    };
    if !f.safe && f.origin != Some(format!("http://{host}").as_str()) {
        return Verdict::Refuse(403, "a change from another site's page is refused");
    }
    if f.cookie.is_some_and(|c| same(c, token)) {
        return Verdict::Serve;
    }
    if f.safe && f.query.is_some_and(|q| same(q, token)) {
        return Verdict::SetCookie;
    }
    Verdict::Refuse(
        401,
        "no valid token: open the address `baton web` prints (with its ?token=)",
    )
}

/// The `Host` values a page served on `addr` answers: that address, and `localhost:PORT`
/// when it is this machine's loopback.
pub fn hosts_for(addr: SocketAddr) -> Vec<String> {
    let mut hosts = vec![host_of(addr)];
    if addr.ip().is_loopback() {
        hosts.push(format!("localhost:{}", addr.port()));
    }
    hosts
}

/// Compares in time independent of where they differ.
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |d, (x, y)| d | (x ^ y)) == 0
}

/// The token in a `Cookie` header's value.
pub fn cookie_token(header: &str) -> Option<&str> {
    header
        .split(';')
        .filter_map(|kv| kv.trim().split_once('='))
        .find(|(k, _)| *k == COOKIE)
        .map(|(_, v)| v)
}

/// The token in a query string.
pub fn query_token(query: &str) -> Option<&str> {
    query
        .split('&')
        .filter_map(|kv| kv.split_once('='))
        .find(|(k, _)| *k == "token")
        .map(|(_, v)| v)
}

#[cfg(test)]
#[path = "guard_tests.rs"]
mod tests;
