//! Figures of the optimizer over a property run: how each saturation
//! stopped, the costs before and after, optimize times and e-graph sizes.
//!
//! The property tests (`tests/proptest_scan.rs`, `tests/proptest_grad.rs`)
//! add one [`eqscan::optimize::Report`] per program and print a
//! [`OptimizeFigures::summary`] at the end. With
//! `EQSCAN_PROPTEST_FIGURES=FILE` each program's figures are also appended
//! to FILE as a tab-separated line (`kind`, program hash, stop reason,
//! iterations, e-nodes, cost before, cost after, optimize ms), so that two
//! runs with the same seed can be compared program by program. With
//! `EQSCAN_PROPTEST_UNSATURATED=DIR` the text of each program whose
//! saturation did not end `saturated` is written to `DIR/KIND_HASH.sexp`
//! (to study why).

use eqscan::optimize::Report;
use std::collections::BTreeMap;
use std::io::Write;

/// Figures over the programs optimized so far.
#[derive(Default)]
pub struct OptimizeFigures {
    /// Programs per stop reason (SPEC §3 names).
    pub stop_reasons: BTreeMap<&'static str, usize>,
    /// Sum of `cost_before`.
    pub cost_before: f64,
    /// Sum of `cost_after`.
    pub cost_after: f64,
    /// Sum of `cost_after / cost_before` (programs with a positive
    /// `cost_before`).
    pub ratio: f64,
    /// Programs in `ratio`.
    pub ratio_n: usize,
    /// Sum of e-nodes after saturation.
    pub nodes: usize,
    /// Sum of iterations.
    pub iterations: usize,
    /// Optimize times in ms.
    pub times: Vec<f64>,
}

impl OptimizeFigures {
    /// Adds the report of one program, optimized in `ms`; `kind` and
    /// `text` (the program) name its line in `EQSCAN_PROPTEST_FIGURES`.
    pub fn add(&mut self, kind: &str, text: &str, r: &Report, ms: f64) {
        *self.stop_reasons.entry(r.stop_reason.name()).or_insert(0) += 1;
        self.cost_before += r.cost_before;
        self.cost_after += r.cost_after;
        if r.cost_before > 0.0 {
            self.ratio += r.cost_after / r.cost_before;
            self.ratio_n += 1;
        }
        self.nodes += r.egraph_nodes;
        self.iterations += r.iterations;
        self.times.push(ms);
        let hash = text.bytes().fold(0xcbf29ce484222325u64, |h, b| {
            (h ^ b as u64).wrapping_mul(0x100000001b3)
        });
        if let Ok(dir) = std::env::var("EQSCAN_PROPTEST_UNSATURATED") {
            if r.stop_reason.name() != "saturated" {
                let _ = std::fs::create_dir_all(&dir);
                let path = std::path::Path::new(&dir).join(format!("{kind}_{hash:016x}.sexp"));
                let _ = std::fs::write(path, text);
            }
        }
        if let Ok(path) = std::env::var("EQSCAN_PROPTEST_FIGURES") {
            if let Ok(mut f) = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&path)
            {
                let _ = writeln!(
                    f,
                    "{kind}\t{hash:016x}\t{}\t{}\t{}\t{}\t{}\t{ms:.3}",
                    r.stop_reason.name(),
                    r.iterations,
                    r.egraph_nodes,
                    r.cost_before,
                    r.cost_after
                );
            }
        }
    }

    /// Programs added.
    pub fn programs(&self) -> usize {
        self.times.len()
    }

    /// One paragraph: stop reasons (counts and shares), mean costs, mean
    /// cost ratio, mean and p99 optimize time, mean e-graph size and
    /// iterations.
    pub fn summary(&self) -> String {
        let n = self.programs();
        if n == 0 {
            return "no program optimized".into();
        }
        let nf = n as f64;
        let reasons: Vec<String> = self
            .stop_reasons
            .iter()
            .map(|(r, k)| format!("{r} {k} ({:.2}%)", 100.0 * *k as f64 / nf))
            .collect();
        let mut times = self.times.clone();
        times.sort_by(f64::total_cmp);
        let q = |f: f64| times[(((n - 1) as f64) * f).round() as usize];
        format!(
            "optimizer over {n} programs: stop reasons {}; mean cost_before {:.6e}, \
             mean cost_after {:.6e}, mean cost_after/cost_before {:.6}; optimize ms mean {:.2}, \
             median {:.2}, p99 {:.2}, max {:.2}; mean e-nodes {:.1}, mean iterations {:.2}",
            reasons.join(", "),
            self.cost_before / nf,
            self.cost_after / nf,
            if self.ratio_n > 0 {
                self.ratio / self.ratio_n as f64
            } else {
                f64::NAN
            },
            times.iter().sum::<f64>() / nf,
            q(0.5),
            q(0.99),
            q(1.0),
            self.nodes as f64 / nf,
            self.iterations as f64 / nf,
        )
    }
}
