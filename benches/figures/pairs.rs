//! Timed pairs of a figure and its anchor (issue 42): each pair back to back, which goes first
//! alternating, the row giving both medians with the middle half of their runs and the median
//! of the pairs' ratios. The caller settles each side before it is timed.

use std::time::Duration;

use super::ls::Spread;
use super::{alternating, row};

/// The pairs timed so far, in ms.
#[derive(Default)]
pub struct Pairs {
    figure: Vec<f64>,
    anchor: Vec<f64>,
    ratios: Vec<f64>,
}

impl Pairs {
    /// Times the `i`-th pair: `figure` and `anchor`, the first of them alternating with `i`.
    pub fn time(
        &mut self,
        i: usize,
        figure: impl FnOnce() -> Duration,
        anchor: impl FnOnce() -> Duration,
    ) {
        let (f, a) = alternating(i, figure, anchor);
        let (f, a) = (f.as_secs_f64() * 1000.0, a.as_secs_f64() * 1000.0);
        self.figure.push(f);
        self.anchor.push(a);
        self.ratios.push(f / a);
    }

    /// The row: `what`, the figure's median (middle half), the anchor's (`anchor` says what
    /// it is), and the median of the ratios (middle half).
    pub fn row(self, what: &str, anchor: &str) -> [String; 4] {
        let n = self.ratios.len();
        row(
            &format!("{what} (medians, middle half, of {n} alternated pairs)"),
            Spread::of(self.figure).ms(),
            format!("{} ({anchor})", Spread::of(self.anchor).ms()),
            Spread::of(self.ratios).ratio(),
        )
    }
}
