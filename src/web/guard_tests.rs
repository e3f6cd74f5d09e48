use pretty_assertions::assert_eq;

use super::*;

const T: &str = "0123456789abcdef0123456789abcdef";
const OTHER: &str = "fedcba9876543210fedcba9876543210";

fn hosts() -> Vec<String> {
    hosts_for("127.0.0.1:8787".parse().unwrap())
}

fn facts<'a>(safe: bool, host: &'a str, origin: Option<&'a str>) -> Facts<'a> {
    Facts {
        safe,
        host: Some(host),
        origin,
        cookie: None,
        query: None,
    }
}

#[test]
fn every_request_is_judged_by_host_origin_and_token() {
    let own = Some("http://127.0.0.1:8787");
    let rows: Vec<(&str, Facts, Verdict)> = vec![
        (
            "page with cookie",
            Facts {
                cookie: Some(T),
                ..facts(true, "127.0.0.1:8787", None)
            },
            Verdict::Serve,
        ),
        (
            "localhost names the loopback too",
            Facts {
                cookie: Some(T),
                ..facts(true, "localhost:8787", None)
            },
            Verdict::Serve,
        ),
        (
            "first visit with the token",
            Facts {
                query: Some(T),
                ..facts(true, "127.0.0.1:8787", None)
            },
            Verdict::SetCookie,
        ),
        (
            "no token",
            facts(true, "127.0.0.1:8787", None),
            Verdict::Refuse(401, ""),
        ),
        (
            "a wrong token",
            Facts {
                cookie: Some(OTHER),
                query: Some(OTHER),
                ..facts(true, "127.0.0.1:8787", None)
            },
            Verdict::Refuse(401, ""),
        ),
        (
            "a rebinding page's Host",
            Facts {
                cookie: Some(T),
                ..facts(true, "evil.example:8787", None)
            },
            Verdict::Refuse(421, ""),
        ),
        (
            "no Host",
            Facts {
                host: None,
                cookie: Some(T),
                ..facts(true, "", None)
            },
            Verdict::Refuse(421, ""),
        ),
        (
            "a change from the page",
            Facts {
                cookie: Some(T),
                ..facts(false, "127.0.0.1:8787", own)
            },
            Verdict::Serve,
        ),
        (
            "a change from another site",
            Facts {
                cookie: Some(T),
                ..facts(false, "127.0.0.1:8787", Some("http://evil.example"))
            },
            Verdict::Refuse(403, ""),
        ),
        (
            "a change without Origin",
            Facts {
                cookie: Some(T),
                ..facts(false, "127.0.0.1:8787", None)
            },
            Verdict::Refuse(403, ""),
        ),
        (
            "a change carrying the token in its address only",
            Facts {
                query: Some(T),
                ..facts(false, "127.0.0.1:8787", own)
            },
            Verdict::Refuse(401, ""),
        ),
    ];
    for (what, f, want) in rows {
        let got = match judge(&f, &hosts(), T) {
            Verdict::Refuse(code, _) => Verdict::Refuse(code, ""),
            v => v,
        };
        assert_eq!(got, want, "{what}");
    }
}

#[test]
fn tokens_are_read_from_cookie_and_query() {
    assert_eq!(cookie_token("a=1; baton_web=abc; b=2"), Some("abc"));
    assert_eq!(cookie_token("baton_webx=abc"), None);
    assert_eq!(query_token("x=1&token=abc"), Some("abc"));
    assert_eq!(query_token("tokens=abc"), None);
}
