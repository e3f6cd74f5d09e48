//! A command line clap refused, said in one line: clap's own message (its first line, the
//! values or arguments it lists under it, its tips) and the `--help` of the subcommand typed,
//! instead of clap's five to seven lines with a usage block (issue 39).

use std::ffi::OsString;

/// `rendered` (clap's error, as text) as one line naming `command`'s `--help`.
pub fn one_line(rendered: &str, command: &str) -> String {
    let mut said = String::new();
    let mut tips = Vec::new();
    for line in rendered.lines() {
        let text = line.trim();
        if text.starts_with("Usage:") || text.starts_with("For more information") {
            break;
        }
        if let Some(tip) = text.strip_prefix("tip:") {
            tips.push(tip.trim().to_string());
        } else if !text.is_empty() {
            let text = text.strip_prefix("error:").unwrap_or(text).trim();
            if !said.is_empty() {
                said.push(' ');
            }
            said.push_str(text);
        }
    }
    tips.push(format!("try `{command} --help`"));
    format!("{said} ({})", tips.join("; "))
}

/// The subcommand `args` (program name first) typed, as far as `cmd` knows it: `baton`,
/// `baton send`, `baton instructions add`. An argument that names no subcommand of the one
/// reached so far (a terminal's name, an option, a typo) is passed over.
pub fn command_path(cmd: &clap::Command, args: &[OsString]) -> String {
    let mut path = vec![cmd.get_name().to_string()];
    let mut at = cmd;
    for arg in args.iter().skip(1).map(|a| a.to_string_lossy()) {
        if arg == "--" {
            break;
        }
        if let Some(sub) = at.find_subcommand(arg.as_ref()) {
            path.push(sub.get_name().to_string());
            at = sub;
        }
    }
    path.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn clap_errors_read_as_one_line() {
        let rows = [
            (
                "error: unrecognized subcommand 'sned'\n\n  tip: some similar subcommands exist: 'new', 'send'\n\nUsage: baton [COMMAND]\n\nFor more information, try '--help'.\n",
                "baton",
                "unrecognized subcommand 'sned' (some similar subcommands exist: 'new', 'send'; try `baton --help`)",
            ),
            (
                "error: the following required arguments were not provided:\n  <NAME>\n  <NEW_NAME>\n\nUsage: baton rename <NAME> <NEW_NAME>\n\nFor more information, try '--help'.\n",
                "baton rename",
                "the following required arguments were not provided: <NAME> <NEW_NAME> (try `baton rename --help`)",
            ),
            (
                "error: invalid value 'tcsh' for '<SHELL>'\n  [possible values: bash, elvish, fish, powershell, zsh]\n\n  tip: a similar value exists: 'zsh'\n\nFor more information, try '--help'.\n",
                "baton completions",
                "invalid value 'tcsh' for '<SHELL>' [possible values: bash, elvish, fish, powershell, zsh] (a similar value exists: 'zsh'; try `baton completions --help`)",
            ),
            (
                "error: a value is required for '--dir <DIR>' but none was supplied\n\nFor more information, try '--help'.\n",
                "baton new",
                "a value is required for '--dir <DIR>' but none was supplied (try `baton new --help`)",
            ),
        ];
        for (rendered, command, want) in rows {
            assert_eq!(one_line(rendered, command), want);
        }
    }

    #[test]
    fn the_command_path_is_the_subcommands_typed() {
        use clap::CommandFactory;
        let cmd = crate::cli::Cli::command();
        let rows: [(&[&str], &str); 6] = [
            (&["baton"], "baton"),
            (&["baton", "sned", "t"], "baton"),
            (&["baton", "send", "t", "--bogus"], "baton send"),
            (
                &["baton", "instructions", "t", "add"],
                "baton instructions add",
            ),
            (&["baton", "server", "stauts"], "baton server"),
            (&["baton", "send", "--", "queue"], "baton send"),
        ];
        for (args, want) in rows {
            let args: Vec<OsString> = args.iter().map(OsString::from).collect();
            assert_eq!(command_path(&cmd, &args), want, "{args:?}");
        }
    }
}
