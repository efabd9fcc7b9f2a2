//! eqscan: optimize tensor programs with loops by equality saturation.
#![warn(missing_docs)]

pub mod exec;
pub mod lang;
