//! The cost model and extraction (tree and DAG-aware).
//!
//! Empty until the e-graph issue (issue 4). Must not: run anything.
