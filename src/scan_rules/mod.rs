//! The Scan rewrites, one file each (push-out non-seq / seq / output, merge,
//! merge-inouts, constant and unused-input removal, save-mem).
//!
//! Empty until the Scan rewrites issue (issue 5). Must not: duplicate the
//! e-graph analysis.
