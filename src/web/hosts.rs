//! Other hosts' terminals on the page, reached as the multiplexer reaches them: through
//! `client::hosts` (the system's `ssh` to `baton server bridge` on that host), named
//! `HOST:NAME` (`client::hosts::names`). A page's request for `HOST:NAME` goes to that host
//! with the bare name ([`call`]); the page's event stream carries each configured host's
//! watch lines beside this machine's, each with its `host`, and a `host` line whenever a
//! host's channel comes or goes (one channel per host for every page: `web::channel`). See
//! ARCHITECTURE.md, "The web client".

use std::path::PathBuf;

use serde_json::json;

use crate::client::hosts::{self, names, Host};
use crate::error::BatonError;
use crate::protocol::{Reply, Request, WatchEvent};

/// The configured hosts, the config read afresh (a host added since the server started is
/// there); none when it cannot be read.
pub fn configured() -> Vec<Host> {
    hosts::load_config()
        .map(|c| hosts::configured(&c).into_values().collect())
        .unwrap_or_default()
}

/// The configured host `req` is for and the request with bare names; `None`: this machine's
/// (a name whose `HOST:` is no configured host stays this machine's, as on the command line).
pub fn remote(req: &Request) -> Option<(Host, Request)> {
    let (host, bare) = names::route(req.clone());
    let host = host?;
    let found = configured().into_iter().find(|h| h.name == host)?;
    Some((found, bare))
}

/// `req` asked of `host`'s server (over ssh, on a blocking thread): its final reply line, the
/// names in it as the page keeps them (`HOST:NAME`), an error saying the host.
pub async fn call(root: PathBuf, host: Host, req: Request) -> String {
    let name = host.name.clone();
    let on = host.name.clone();
    let asked = tokio::task::spawn_blocking(move || {
        hosts::call(&root, host, &req).map(|a| names::qualify_answer(&on, a))
    })
    .await
    .unwrap_or_else(|e| {
        Err(BatonError::failed(format!(
            "the request to host {name} stopped: {e}"
        )))
    });
    serde_json::to_string(&Reply::answered(asked)).unwrap_or_default()
}

/// How one host's channel stands, as the page's `host` line says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Link {
    Connecting,
    Online,
    Offline,
}

/// The page's `host` line: `{"reply":"host","host":H,"link":…,"why":…}`. Pure.
pub fn link_line(host: &str, link: Link, why: Option<&str>) -> String {
    let link = match link {
        Link::Connecting => "connecting",
        Link::Online => "online",
        Link::Offline => "offline",
    };
    json!({"reply": "host", "host": host, "link": link, "why": why}).to_string()
}

/// A host's watch line's event, its names qualified (`HOST:NAME`); `None` for a line that is
/// not a watch event. Pure.
pub fn watch_event(host: &str, line: &str) -> Option<WatchEvent> {
    let Ok(Reply::Watch { event }) = serde_json::from_str::<Reply>(line) else {
        return None;
    };
    Some(names::qualify_event(host, event))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn a_hosts_watch_line_reaches_the_page_qualified_with_its_host() {
        let line = serde_json::to_string(&Reply::Watch {
            event: WatchEvent::Removed { name: "api".into() },
        })
        .unwrap();
        let event = watch_event("box", &line).unwrap();
        let got: Value =
            serde_json::from_str(&super::super::replay::event_line("box", &event)).unwrap();
        assert_eq!(
            got,
            json!({"reply": "watch", "host": "box", "event": {"what": "removed", "name": "box:api"}})
        );
        assert_eq!(watch_event("box", r#"{"reply":"ok","data":null}"#), None);
        assert_eq!(watch_event("box", "not json"), None);
    }

    #[test]
    fn a_hosts_link_line_says_how_its_channel_stands() {
        let line = |l, why| serde_json::from_str::<Value>(&link_line("box", l, why)).unwrap();
        assert_eq!(
            line(Link::Offline, Some("no answer")),
            json!({"reply": "host", "host": "box", "link": "offline", "why": "no answer"})
        );
        assert_eq!(line(Link::Online, None)["link"], "online");
        assert_eq!(line(Link::Connecting, None)["link"], "connecting");
    }
}
