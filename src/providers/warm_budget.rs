//! The warm CLIs' memory budget (issue 42): one budget for all providers (`[warm] memory_mb`,
//! default the smaller of 2 GiB and a quarter of the machine's memory), counted in each CLI's
//! own memory (the private pages of its process group, from `/proc`), with each provider's
//! `warm = N` an optional cap on top. [`to_retire`] is the pure decision: the longest idle go
//! first until both bounds hold. The pool asks it each time it keeps a CLI
//! (`WarmPool::put`).

use std::collections::HashMap;
use std::time::Instant;

use crate::words::ProviderKind;

/// The bounds the warm CLIs stay within.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bounds {
    /// Their own memory, all providers together.
    pub budget_bytes: u64,
    /// At most this many CLIs of a provider (`warm = N`); a provider not listed has no cap.
    pub caps: Vec<(ProviderKind, usize)>,
}

impl Bounds {
    /// The bounds `config` sets: `[warm] memory_mb` (else [`default_budget`]) and each
    /// provider's `warm = N`.
    pub fn of(config: &crate::config::Config) -> Bounds {
        let budget_bytes = match config.warm.memory_mb {
            Some(mb) => mb.saturating_mul(1 << 20),
            None => default_budget(machine_memory()),
        };
        let caps = ProviderKind::all()
            .map(|k| (k, super::of(k).warm_limit(config)))
            .collect();
        Bounds { budget_bytes, caps }
    }
}

/// A warm CLI as the decision sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kept {
    pub terminal_id: String,
    pub provider: ProviderKind,
    pub idle_since: Instant,
    /// Its own memory (0 when it could not be read).
    pub own_bytes: u64,
}

/// Which of `kept` must go so that each provider stays within its cap and all of them within
/// the budget: the longest idle first (ties by terminal id, so the choice is stable).
pub fn to_retire(kept: &[Kept], bounds: &Bounds) -> Vec<String> {
    let mut by_age: Vec<&Kept> = kept.iter().collect();
    by_age.sort_by(|a, b| {
        (a.idle_since.cmp(&b.idle_since)).then_with(|| a.terminal_id.cmp(&b.terminal_id))
    });
    let mut count: HashMap<ProviderKind, usize> = HashMap::new();
    for k in &by_age {
        *count.entry(k.provider).or_default() += 1;
    }
    let mut total: u64 = kept.iter().map(|k| k.own_bytes).sum();
    let mut out = Vec::new();
    for k in by_age {
        let cap = bounds.caps.iter().find(|(p, _)| *p == k.provider);
        let over_cap = cap.is_some_and(|(_, n)| count.get(&k.provider).copied().unwrap_or(0) > *n);
        if over_cap || total > bounds.budget_bytes {
            *count.entry(k.provider).or_default() -= 1;
            total = total.saturating_sub(k.own_bytes);
            out.push(k.terminal_id.clone());
        }
    }
    out
}

/// The default budget: the smaller of 2 GiB and a quarter of `ram_bytes` (2 GiB when the
/// machine's memory is not known).
pub fn default_budget(ram_bytes: Option<u64>) -> u64 {
    const TWO_GIB: u64 = 2 << 30;
    ram_bytes.map_or(TWO_GIB, |r| TWO_GIB.min(r / 4))
}

/// The machine's memory (`MemTotal` of `/proc/meminfo`).
pub fn machine_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    kib_field(&info, "MemTotal:")
}

/// `NAME:   1234 kB` in `text`, in bytes.
fn kib_field(text: &str, name: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(name))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// The private memory (`Private_Clean` + `Private_Dirty` of `smaps_rollup`) of every process
/// in each of `groups` (a warm CLI leads its own process group: Node and Bun CLIs start
/// helpers), by group id: what keeping it costs the machine, its shared code left out.
pub fn own_memory(groups: &[i32]) -> HashMap<i32, u64> {
    let mut out: HashMap<i32, u64> = groups.iter().map(|g| (*g, 0)).collect();
    // No warm CLI (`server status` asks each time): no walk of every process.
    if groups.is_empty() {
        return out;
    }
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return out;
    };
    for p in procs.flatten() {
        let Some(pid) = p.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else {
            continue;
        };
        let Some(group) = process_group(pid).filter(|g| out.contains_key(g)) else {
            continue;
        };
        if let Some(bytes) = private_bytes(pid) {
            *out.entry(group).or_default() += bytes;
        }
    }
    out
}

/// The process group of `pid` (the fifth field of `/proc/PID/stat`, after the command in
/// parentheses, which may itself hold spaces).
fn process_group(pid: i32) -> Option<i32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = &stat[stat.rfind(')')? + 1..];
    after.split_whitespace().nth(2)?.parse().ok()
}

fn private_bytes(pid: i32) -> Option<u64> {
    let rollup = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).ok()?;
    Some(kib_field(&rollup, "Private_Clean:")? + kib_field(&rollup, "Private_Dirty:")?)
}

#[cfg(test)]
#[path = "warm_budget_tests.rs"]
mod tests;
