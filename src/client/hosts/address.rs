//! `HOST:NAME`: which server a terminal name on the command line means. Pure (see
//! ARCHITECTURE.md, "Other hosts").
//!
//! A name holding `:` is split at its first one, and the part before it must be a configured
//! host. New terminals may not hold `:` (`validate::terminal_name`), so the split is never
//! ambiguous for them; a terminal an older baton created with `:` in its name is still reached
//! with a leading `:` (`:old:name`), which always means this machine.

/// Where a name typed on the command line points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Address {
    /// A terminal of this machine's server.
    Local(String),
    /// Terminal `name` on configured host `host`.
    Remote { host: String, name: String },
    /// `host` is not a configured host.
    UnknownHost { host: String },
}

/// Reads `arg` against the configured host names.
pub fn parse<'a>(arg: &str, hosts: impl IntoIterator<Item = &'a str>) -> Address {
    if let Some(local) = arg.strip_prefix(':') {
        return Address::Local(local.to_string());
    }
    let Some((host, name)) = arg.split_once(':') else {
        return Address::Local(arg.to_string());
    };
    if hosts.into_iter().any(|h| h == host) {
        Address::Remote {
            host: host.to_string(),
            name: name.to_string(),
        }
    } else {
        Address::UnknownHost {
            host: host.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_split_at_its_first_colon_when_a_host_of_that_name_is_configured() {
        let hosts = ["box", "vm.1"];
        let local = |n: &str| Address::Local(n.to_string());
        let remote = |h: &str, n: &str| Address::Remote {
            host: h.to_string(),
            name: n.to_string(),
        };
        let unknown = |h: &str| Address::UnknownHost {
            host: h.to_string(),
        };
        let rows = [
            ("api", local("api")),
            ("box:api", remote("box", "api")),
            ("vm.1:t", remote("vm.1", "t")),
            ("box:a:b", remote("box", "a:b")),
            ("box:", remote("box", "")),
            ("bix:api", unknown("bix")),
            (":old:name", local("old:name")),
            (":api", local("api")),
            ("", local("")),
        ];
        for (arg, want) in rows {
            assert_eq!(parse(arg, hosts), want, "{arg:?}");
        }
    }
}
