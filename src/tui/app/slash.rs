//! Slash commands in the composer (`/fork NEW`, `/model NAME`, …): baton's own actions on the
//! focused terminal, typed where the prompt goes. Those that the command prompt (prefix `:`)
//! also has become its words with the terminal's name put in (`command::parse_words`); the
//! others set what the next prompt carries or open an overlay. Any other `/word` is the CLI's
//! and is sent as typed; `//text` sends `/text`. Pure: classifying and completing are
//! table-tested.

use crate::protocol::DEFAULT_MODEL;
use crate::words::ProviderKind;

/// A slash command: its name, its arguments as the help shows them, and what it does.
pub struct SlashCommand {
    pub name: &'static str,
    pub args: &'static str,
    pub does: &'static str,
}

/// baton's slash commands, in the order the help and completion list them.
pub const SLASH: [SlashCommand; 10] = [
    SlashCommand {
        name: "new",
        args: "",
        does: "the next prompt opens a fresh conversation (as M-f, send --fresh)",
    },
    SlashCommand {
        name: "model",
        args: "NAME",
        does: "the next prompt asks for model NAME (as C-o; default unpins)",
    },
    SlashCommand {
        name: "provider",
        args: "P",
        does: "the next prompt goes to provider P: claude, codex or local[:EP] (as Tab)",
    },
    SlashCommand {
        name: "fork",
        args: "[NEW]",
        does: "fork this terminal into NEW (as `baton fork`)",
    },
    SlashCommand {
        name: "rewind",
        args: "N [NEW]",
        does: "a new terminal from before turn N (as `baton rewind`)",
    },
    SlashCommand {
        name: "archive",
        args: "",
        does: "archive this terminal (as `baton archive`)",
    },
    SlashCommand {
        name: "instructions",
        args: "",
        does: "this terminal's standing instructions",
    },
    SlashCommand {
        name: "cost",
        args: "",
        does: "what this terminal's turns cost: all of them, and the last one",
    },
    SlashCommand {
        name: "interrupt",
        args: "",
        does: "interrupt the running turn (as Esc)",
    },
    SlashCommand {
        name: "help",
        args: "",
        does: "the keys and these commands",
    },
];

/// What the composer's text is, as Enter would take it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Typed<'a> {
    /// Not a slash command: a prompt.
    Prompt,
    /// baton's command `name`, with the words after it.
    Baton { name: &'static str, rest: &'a str },
    /// A `/word` that is not baton's: the CLI gets it as typed.
    Cli,
    /// baton's command `name` run into more than a space could separate (`/model/compact`):
    /// neither sent nor run, since it reads as a command missing its argument.
    Glued { name: &'static str },
    /// `//text`: `/text` goes to the CLI.
    Escaped(&'a str),
}

/// How Enter takes `text`.
pub fn classify(text: &str) -> Typed<'_> {
    if let Some(rest) = text.strip_prefix("//") {
        return Typed::Escaped(&text[text.len() - rest.len() - 1..]);
    }
    let Some(line) = text.strip_prefix('/') else {
        return Typed::Prompt;
    };
    let (word, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
    if let Some(c) = SLASH.iter().find(|c| c.name == word) {
        return Typed::Baton {
            name: c.name,
            rest: rest.trim(),
        };
    }
    // `/model/compact`, `/model:opus`: baton's word, then no space. A word of the CLI's own
    // that starts with one (`/forkx`, `/new-chat`) goes on as typed.
    let glued = SLASH.iter().find(|c| {
        word.strip_prefix(c.name)
            .and_then(|after| after.chars().next())
            .is_some_and(|ch| !ch.is_alphanumeric() && ch != '-' && ch != '_')
    });
    match glued {
        Some(c) => Typed::Glued { name: c.name },
        None => Typed::Cli,
    }
}

/// The commands whose name starts with what follows the `/` (none once a space is typed, or
/// for text that is not `/…`).
pub fn matches(text: &str) -> Vec<&'static SlashCommand> {
    let Some(word) = text.strip_prefix('/') else {
        return Vec::new();
    };
    if word.starts_with('/') || word.contains(char::is_whitespace) {
        return Vec::new();
    }
    SLASH.iter().filter(|c| c.name.starts_with(word)).collect()
}

/// Tab on `text`: the completed text and the cycle to keep (what was typed, the match
/// shown). A Tab again on a shown match (`cycle` says so) shows the next one.
pub fn complete(text: &str, cycle: Option<&(String, usize)>) -> Option<(String, (String, usize))> {
    if let Some((typed, i)) = cycle {
        let found = matches(typed);
        if found
            .get(*i)
            .is_some_and(|c| text == format!("/{}", c.name))
        {
            let next = (i + 1) % found.len();
            let c = found.get(next)?;
            return Some((format!("/{}", c.name), (typed.clone(), next)));
        }
    }
    let c = matches(text).into_iter().next()?;
    Some((format!("/{}", c.name), (text.to_string(), 0)))
}

/// What a baton slash command does, its arguments checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// The command prompt's words for it (the terminal's name put in after the command).
    Command(Vec<String>),
    Fresh,
    Model(String),
    /// The provider, and a local endpoint's name.
    Provider(ProviderKind, Option<String>),
    Instructions,
    /// The focused terminal's costs, said in the status line.
    Cost,
    Help,
}

/// The action `/name rest` makes on terminal `term`, or what is wrong with it.
pub fn action(name: &str, rest: &str, term: &str) -> Result<Action, String> {
    let words: Vec<String> = rest.split_whitespace().map(str::to_string).collect();
    let usage = || {
        let c = SLASH.iter().find(|c| c.name == name);
        let args = c.map_or("", |c| c.args);
        format!("usage: /{name} {args}").trim_end().to_string()
    };
    let at_most = |n: usize| {
        if words.len() > n {
            Err(usage())
        } else {
            Ok(())
        }
    };
    let command = |words: &[String]| {
        let mut all = vec![name.to_string(), term.to_string()];
        all.extend(words.iter().cloned());
        Action::Command(all)
    };
    match name {
        "new" => at_most(0).map(|_| Action::Fresh),
        "model" => match words.as_slice() {
            [m] => Ok(Action::Model(m.clone())),
            [] => Err(format!(
                "/model needs a model's name: /model NAME (/model {DEFAULT_MODEL}: back to the provider's default)"
            )),
            _ => Err(usage()),
        },
        "provider" => {
            let [p] = words.as_slice() else {
                return Err(usage());
            };
            let (kind, endpoint) = match p.split_once(':') {
                Some((k, ep)) => (k, Some(ep.to_string())),
                None => (p.as_str(), None),
            };
            match ProviderKind::parse(kind) {
                // An endpoint provider takes the endpoint's name; a CLI takes none.
                Some(k) if !k.is_cli() || endpoint.is_none() => Ok(Action::Provider(k, endpoint)),
                _ => Err(format!("{p}: no such provider ({})", usage())),
            }
        }
        "fork" => at_most(1).map(|_| command(&words)),
        "rewind" => match words.len() {
            1 | 2 => Ok(command(&words)),
            _ => Err(usage()),
        },
        "archive" | "interrupt" => at_most(0).map(|_| command(&words)),
        "instructions" => at_most(0).map(|_| Action::Instructions),
        "cost" => at_most(0).map(|_| Action::Cost),
        "help" => at_most(0).map(|_| Action::Help),
        _ => Err(format!("/{name}: not a baton command")),
    }
}

/// The hint the composer's title shows for `text` (None: not a slash command).
pub fn hint(text: &str) -> Option<String> {
    let first = text.lines().next().unwrap_or_default();
    match classify(first) {
        Typed::Prompt => None,
        Typed::Escaped(sent) => Some(format!(" {} is sent to the CLI as typed ", word(sent))),
        Typed::Baton { name, .. } if !first.contains(char::is_whitespace) => {
            let found = matches(first);
            if found.len() > 1 {
                return Some(listed(&found));
            }
            Some(described(name))
        }
        Typed::Baton { name, .. } => Some(described(name)),
        Typed::Glued { name } => Some(glued(first, name)),
        Typed::Cli => {
            let found = matches(first);
            if found.is_empty() {
                Some(format!(
                    " {} is not baton's: sent to the CLI as typed (// for a literal /) ",
                    word(first)
                ))
            } else {
                Some(listed(&found))
            }
        }
    }
}

/// What the status line says of the model the next prompt asks for.
pub fn model_said(m: &str) -> String {
    if m == DEFAULT_MODEL {
        "the next prompt goes back to the provider's default model".to_string()
    } else {
        format!("the next prompt asks for model {m}")
    }
}

/// What is wrong with `/name` run into the text after it, and the two ways out.
pub fn glued(text: &str, name: &str) -> String {
    let c = SLASH.iter().find(|c| c.name == name);
    let args = c.map_or("", |c| c.args);
    format!(
        " {}: /{name} takes {} after a space · //… sends it to the CLI as typed ",
        word(text),
        if args.is_empty() { "nothing" } else { args }
    )
}

fn word(text: &str) -> &str {
    text.split_whitespace().next().unwrap_or(text)
}

fn described(name: &str) -> String {
    let c = SLASH.iter().find(|c| c.name == name);
    let (args, does) = c.map_or(("", ""), |c| (c.args, c.does));
    let args = if args.is_empty() {
        String::new()
    } else {
        format!(" {args}")
    };
    format!(" /{name}{args}: {does} · Enter runs it ")
}

fn listed(found: &[&SlashCommand]) -> String {
    let names: Vec<String> = found.iter().map(|c| format!("/{}", c.name)).collect();
    format!(" {} · Tab completes ", names.join(" "))
}

#[cfg(test)]
#[path = "slash_tests.rs"]
mod tests;
