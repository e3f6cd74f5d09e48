//! The web client: `baton web` asks the running server to serve a page (and its API) over HTTP
//! from its own tokio runtime. The page speaks the socket protocol itself: its requests are
//! `protocol::Request` JSON, handed to the server's socket as any client's (`bridge`), and
//! its live stream is the socket's `watch` lines as server-sent events; other hosts'
//! terminals go through their servers over ssh as the multiplexer's do (`hosts`). Nothing here
//! knows the server's insides. See ARCHITECTURE.md ("The web client") and docs/web.md.

mod bridge;
mod channel;
mod guard;
mod hosts;
mod markdown;
mod replay;
mod routes;
mod token;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;

use tokio::sync::Mutex;

use crate::config::WebConfig;
use crate::error::BatonError;
use crate::paths::DataDir;
use crate::protocol::views::WebView;

/// The web client while it is served: at most one listener per server.
#[derive(Default)]
pub struct Slot(Mutex<Option<Running>>);

struct Running {
    addr: SocketAddr,
    /// Shared with the routes: a rotated token is seen by the next request.
    keys: Arc<routes::Keys>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Serves the web client unless it is served already (`port`: on that one, restarting it
/// there when it listens on another); `new_token` rotates the token first. Its URL.
pub async fn serve(
    slot: &Slot,
    data: &DataDir,
    config: &WebConfig,
    port: Option<u16>,
    new_token: bool,
) -> Result<WebView, BatonError> {
    let token = if new_token {
        token::rotate(data)?
    } else {
        token::read_or_create(data)?
    };
    let mut running = slot.0.lock().await;
    if let Some(r) = running.as_ref() {
        if port.is_none_or(|p| p == r.addr.port()) {
            r.keys.set_token(&token);
            return Ok(view(r.addr, &token));
        }
    }
    // Stop the old listener first: the new one may want its port.
    *running = None;
    let bind = bind_address(config)?;
    let wanted = port.or(config.port).unwrap_or(0);
    let listener = tokio::net::TcpListener::bind(SocketAddr::new(bind, wanted))
        .await
        .map_err(|e| {
            BatonError::failed(format!(
                "cannot serve the web client on {bind}:{wanted}: {e} (choose another with \
                 `baton web --port N` or [web] port)"
            ))
        })?;
    let addr = listener
        .local_addr()
        .map_err(|e| BatonError::failed(format!("the web listener has no address: {e}")))?;
    let keys = Arc::new(routes::Keys::new(&token, addr, data));
    let app = routes::router(keys.clone());
    let task = tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, app).await {
            crate::log_line!("baton server: the web client stopped: {e}");
        }
    });
    *running = Some(Running { addr, keys, task });
    Ok(view(addr, &token))
}

/// `[web] bind`, or the loopback. Every address at once (`0.0.0.0`) is refused: the page
/// answers only the `Host` it is served on, and would be open to every network here.
fn bind_address(config: &WebConfig) -> Result<IpAddr, BatonError> {
    let Some(b) = config.bind.as_deref() else {
        return Ok(IpAddr::V4(Ipv4Addr::LOCALHOST));
    };
    match b.parse::<IpAddr>() {
        Ok(ip) if !ip.is_unspecified() => Ok(ip),
        _ => Err(BatonError::bad_input(format!(
            "[web] bind = {b:?} is not one address of this machine (say 127.0.0.1, or its \
             tailnet address; see docs/web.md)"
        ))),
    }
}

fn view(addr: SocketAddr, token: &str) -> WebView {
    WebView {
        url: format!("http://{}/?token={token}", guard::host_of(addr)),
        port: addr.port(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bind_is_the_loopback_unless_one_address_is_configured() {
        let with = |b: Option<&str>| {
            bind_address(&WebConfig {
                port: None,
                bind: b.map(str::to_string),
            })
            .map_err(|e| e.message)
        };
        assert_eq!(with(None), Ok(IpAddr::V4(Ipv4Addr::LOCALHOST)));
        assert_eq!(with(Some("100.64.1.2")), Ok("100.64.1.2".parse().unwrap()));
        assert!(with(Some("0.0.0.0")).is_err());
        assert!(with(Some("::")).is_err());
        assert!(with(Some("my-laptop")).is_err());
    }
}
