//! Tests of `send`'s own parser (the lines it takes are parsed as the whole command line parses
//! them, anything else is left to the whole command line: its messages, its help) and of the
//! whole command line's definitions (clap's own checks).

use std::ffi::OsString;

use clap::{CommandFactory, Parser};
use pretty_assertions::assert_eq;

use super::*;
use crate::cli::{Cli, ClientCmd, Cmd};

fn args(line: &str) -> Vec<OsString> {
    line.split(' ').map(OsString::from).collect()
}

/// The line's send as the whole command line parses it, as the request its server gets.
fn by_the_whole_command_line(line: &str) -> Option<Request> {
    match Cli::try_parse_from(args(line)).ok()?.cmd {
        Some(Cmd::Client(ClientCmd::Send(send))) => Some(request(send)),
        _ => None,
    }
}

fn request(send: SendArgs) -> Request {
    let name = send.name.clone();
    let prompt = send.prompt.clone().unwrap_or_default();
    send.request_of(name, prompt, None)
}

#[test]
fn sends_are_parsed_as_the_whole_command_line_parses_them_and_the_rest_left_to_it() {
    let table = [
        ("baton send t hi", true),
        ("baton send t - --steer --detach", true),
        (
            "baton send t hi --jump --fresh --json --provider codex --model m",
            true,
        ),
        ("baton send box:t hi --queue", true),
        ("baton send --help", false),
        ("baton send t hi --bogus", false),
        ("baton send t hi --steer --jump", false),
        ("baton send", false),
        ("baton ls", false),
        ("baton watch t", false),
        ("baton", false),
    ];
    for (line, taken) in table {
        let fast = parse(&args(line)).map(request);
        assert_eq!(fast.is_some(), taken, "{line}");
        if taken {
            assert_eq!(fast, by_the_whole_command_line(line), "{line}");
        }
    }
}

#[test]
fn the_whole_command_lines_definitions_hold_together() {
    // clap's own checks of the definitions (conflicts, ids, defaults), which otherwise run
    // only in a debug build's parse of the very argument that breaks them.
    Cli::command().debug_assert();
}
