//! Helpers shared by the UI's tests: views written as the few fields a test cares about.

pub mod views;
