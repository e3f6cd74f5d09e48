//! The multiplexer UI (being built).

use crate::client::Client;
use crate::error::BatonError;

/// Opens the multiplexer attached to the server.
pub fn run(_client: &Client) -> Result<i32, BatonError> {
    Err(BatonError::failed("the multiplexer UI is not built yet"))
}
