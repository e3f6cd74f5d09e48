//! The send path as pure decisions (rotation, provider switch, resume, directory move) and the
//! system text a conversation carries. No IO here: the server gathers facts and carries out the
//! decision.

pub mod decide;
pub mod system_text;

pub use decide::{
    decide, ConversationFacts, Decision, ForkFact, SendFacts, SessionFact, ROTATE_FRACTION,
};
