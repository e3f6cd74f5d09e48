//! `baton web`: asks the running server to serve the web client and prints its address with
//! the access token (`--open`: in the user's browser, where one can be started).

use clap::Args;

use crate::client::{commands, out, Client};
use crate::error::BatonError;
use crate::protocol::views::WebView;
use crate::protocol::Request;

#[derive(Args)]
pub struct WebArgs {
    /// Serve on this port (default: [web] port, else the one it runs on, else any free one)
    #[arg(long, value_name = "N")]
    pub port: Option<u16>,
    /// Replace the access token: pages opened with the old one are refused from now on
    #[arg(long)]
    pub new_token: bool,
    /// Open the page in the browser (xdg-open, or $BROWSER)
    #[arg(long)]
    pub open: bool,
    #[arg(long)]
    pub json: bool,
}

impl WebArgs {
    pub fn run(self, c: &Client) -> Result<i32, BatonError> {
        let req = Request::Web {
            port: self.port,
            new_token: self.new_token,
        };
        let view: WebView = commands::shown(c, &req, self.json, shown)?;
        if self.open {
            open(&view.url);
        }
        Ok(0)
    }
}

fn shown(v: &WebView) -> String {
    format!(
        "{}\n(keep this address private: its token opens every terminal; reach it from a phone \
         through an ssh tunnel or a tailnet, see docs/web.md)\n",
        v.url
    )
}

/// Starts the user's browser on `url`, or says why it could not.
fn open(url: &str) {
    let graphical = ["DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .any(|k| std::env::var_os(k).is_some_and(|v| !v.is_empty()));
    let browser = std::env::var("BROWSER")
        .ok()
        .filter(|b| !b.is_empty())
        .or_else(|| graphical.then(|| "xdg-open".to_string()));
    let Some(browser) = browser else {
        out::side("baton web: no browser can be started here (no display); open the address above");
        return;
    };
    let started = std::process::Command::new(&browser)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    if let Err(e) = started {
        out::side(&format!(
            "baton web: cannot start {browser} ({e}); open the address above"
        ));
    }
}
