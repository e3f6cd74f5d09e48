//! The cap on CLIs starting at once (`[limits] starting`, see ARCHITECTURE.md "Starts"): a
//! turn whose CLI starts cold takes a place here first, in the order the turns asked, and
//! gives it back once the CLI has loaded (its first output) or its run ended. A burst of sends
//! then loads a few CLIs at a time, the rest waiting in order, instead of every CLI loading at
//! once on a machine with a few cores (a real Claude's start is ~0.8 CPU-seconds).

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The places of CLIs starting, and the terminals waiting for one, in order.
pub struct Starts {
    /// `None`: no cap (`starting = 0`).
    places: Option<Arc<Semaphore>>,
    /// The terminals waiting for a place, in the order they asked (a ticket each).
    waiting: Mutex<VecDeque<(u64, String)>>,
    /// Places taken by a CLI started ahead of its turn (`turn::prestart`), by terminal, until
    /// its turn takes it over ([`Starts::take_held`]) or it is retired ([`Starts::release`]).
    held: Mutex<HashMap<String, Place>>,
    tickets: AtomicU64,
}

/// A place among the CLIs starting; given back when dropped.
pub struct Place {
    _permit: Option<OwnedSemaphorePermit>,
}

/// How many CLIs may start at once: `configured` (0: no cap), else one per core.
pub fn cap(configured: Option<usize>, cores: usize) -> Option<usize> {
    match configured {
        Some(0) => None,
        Some(n) => Some(n),
        None => Some(cores.max(1)),
    }
}

/// How many terminals wait ahead of `tid` for a place (`None`: it is not waiting).
pub fn ahead_of(waiting: &VecDeque<(u64, String)>, tid: &str) -> Option<usize> {
    waiting.iter().position(|(_, t)| t == tid)
}

fn locked<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Takes a waiter's ticket off the list when it got its place, or gave up waiting.
struct Ticket<'a> {
    starts: &'a Starts,
    n: u64,
}

impl Drop for Ticket<'_> {
    fn drop(&mut self) {
        locked(&self.starts.waiting).retain(|(n, _)| *n != self.n);
    }
}

impl Starts {
    /// `cap` CLIs starting at once at most (`None`: no cap).
    pub fn new(cap: Option<usize>) -> Starts {
        Starts {
            places: cap.map(|n| Arc::new(Semaphore::new(n))),
            waiting: Mutex::default(),
            held: Mutex::default(),
            tickets: AtomicU64::new(1),
        }
    }

    /// A place for terminal `tid`'s CLI to start in: at once when one is free, else once
    /// every terminal that asked before has had its own (the semaphore is first come, first
    /// served), `in_line` called once it waits. Cancel-safe: a turn that stops waiting
    /// leaves the line.
    pub async fn place(&self, tid: &str, in_line: impl FnOnce()) -> Place {
        let Some(places) = &self.places else {
            return Place { _permit: None };
        };
        if let Ok(p) = places.clone().try_acquire_owned() {
            return Place { _permit: Some(p) };
        }
        let n = self.tickets.fetch_add(1, Ordering::SeqCst);
        locked(&self.waiting).push_back((n, tid.to_string()));
        let _ticket = Ticket { starts: self, n };
        in_line();
        Place {
            _permit: places.clone().acquire_owned().await.ok(),
        }
    }

    /// Takes a place for a CLI started ahead of terminal `tid`'s turn, only if one is free
    /// now (nobody waits): `false` leaves that turn to start its CLI in its place in line.
    pub fn try_hold(&self, tid: &str) -> bool {
        let place = match &self.places {
            None => Place { _permit: None },
            Some(places) => match places.clone().try_acquire_owned() {
                Ok(p) => Place { _permit: Some(p) },
                Err(_) => return false,
            },
        };
        locked(&self.held).insert(tid.to_string(), place);
        true
    }

    /// The place a CLI started ahead of terminal `tid`'s turn holds, for that turn.
    pub fn take_held(&self, tid: &str) -> Option<Place> {
        locked(&self.held).remove(tid)
    }

    /// Gives back the place of a CLI started ahead of terminal `tid`'s turn and retired
    /// unused.
    pub fn release(&self, tid: &str) {
        drop(self.take_held(tid));
    }

    /// How many terminals wait ahead of `tid` for a place (`None`: it does not wait).
    pub fn ahead(&self, tid: &str) -> Option<usize> {
        ahead_of(&locked(&self.waiting), tid)
    }

    /// The terminals waiting for a place, in order.
    pub fn waiting(&self) -> Vec<String> {
        locked(&self.waiting)
            .iter()
            .map(|(_, t)| t.clone())
            .collect()
    }
}

#[cfg(test)]
#[path = "starting_tests.rs"]
mod tests;
