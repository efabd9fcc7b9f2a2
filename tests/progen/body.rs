//! Scan bodies: the updates of states (running sums, contractions,
//! `tanh` of anything), mitsot inits, and the `let`s of a body (nested
//! scans among them).

use super::{Dm, Gen, Var, MAX_NESTING};

impl Gen<'_> {
    /// The init of a mitsot: `rows` past values of step shape `shape`.
    pub(super) fn mitsot_init(&mut self, scope: &[Var], rows: usize, shape: &[usize]) -> String {
        let seqs: Vec<Var> = scope
            .iter()
            .filter(|v| v.seq().is_some_and(|(l, e)| l.n >= rows && e == shape))
            .cloned()
            .collect();
        match self.src.below(3) {
            1 if !seqs.is_empty() => {
                let v = seqs[self.src.below(seqs.len())].clone();
                let v = self.use_var(&v);
                format!("(slice {v} 0 {rows})")
            }
            2 => {
                let parts: Vec<String> = (0..rows)
                    .map(|_| self.texpr(scope, shape, 1, true))
                    .collect();
                format!("(stack {})", parts.join(" "))
            }
            _ => {
                let mut full = vec![rows];
                full.extend_from_slice(shape);
                self.texpr(scope, &full, 1, true)
            }
        }
    }

    /// A `fn` body: some `let`s (nested scans among them), then one update
    /// per output.
    pub(super) fn body(
        &mut self,
        outer: &[Var],
        params: &[Var],
        outs: &[(usize, Vec<usize>, Vec<i64>)],
        state_params: &[Vec<String>],
        depth: usize,
        until: bool,
    ) -> String {
        let mut scope: Vec<Var> = outer
            .iter()
            .map(|v| Var {
                state: false,
                ..v.clone()
            })
            .collect();
        scope.extend(params.iter().cloned());
        let mut parts = Vec::new();
        for _ in 0..self.src.below(3) {
            let allow = self.src.chance(50);
            if depth < MAX_NESTING && self.src.chance(40) {
                let (line, vars) = self.scan(&scope, depth + 1, allow);
                parts.push(line);
                scope.extend(vars);
            } else {
                let shape = self.elem_shape(true);
                let e = self.texpr(&scope, &shape, 2, allow);
                let name = self.fresh("v");
                parts.push(format!("(let {name} {e})"));
                scope.push(Var {
                    name,
                    shape: shape.iter().map(|&d| Dm::k(d)).collect(),
                    state: allow,
                });
            }
        }
        let mut results = Vec::new();
        for ((kind, shape, _), sp) in outs.iter().zip(state_params) {
            let r = match kind {
                0 => self.texpr(&scope, shape, 3, true),
                1 => self.sitsot_update(&scope, shape, &sp[0]),
                _ => self.mitsot_update(&scope, shape, sp),
            };
            results.push(r);
        }
        if until {
            // The stop condition: a sum of anything the step computes
            // against a threshold (NaN never stops it).
            let shape = self.elem_shape(false);
            let e = self.texpr(&scope, &shape, 2, true);
            // Not a value a step computes exactly (see `filter_let`).
            let thr = *self.src.pick(&super::TIE_FREE_THRESHOLDS);
            results.push(format!("(until (gt (sum {e}) {thr}))"));
        }
        parts.push(if results.len() == 1 {
            results.pop().unwrap()
        } else {
            format!("(outputs {})", results.join(" "))
        });
        parts.join(" ")
    }

    /// A sitsot's update: running sums and relatives (`s ⊕ f(x_t)`, with
    /// `f` free of the loop's state), contractions, or `tanh` of anything.
    pub(super) fn sitsot_update(&mut self, scope: &[Var], shape: &[usize], s: &str) -> String {
        let kind = self.src.below(8);
        if kind == 7 {
            let e = self.texpr(scope, shape, 2, true);
            return format!("(tanh {e})");
        }
        self.feat("accumulator");
        let f = self.texpr(scope, shape, 2, false);
        match kind {
            1 => format!("(add {f} {s})"),
            2 => format!("(add (mul {s} 0.5) {f})"),
            3 => format!("(maximum {s} {f})"),
            4 => format!("(mul {s} (sigmoid {f}))"),
            5 => format!("(sub {s} {f})"),
            6 => format!("(add {s} (mul {f} 0.5))"),
            _ => format!("(add {s} {f})"),
        }
    }

    /// A mitsot's update: a contraction of its taps plus a bounded term, or
    /// `tanh` of anything.
    pub(super) fn mitsot_update(
        &mut self,
        scope: &[Var],
        shape: &[usize],
        taps: &[String],
    ) -> String {
        if self.src.chance(30) {
            let e = self.texpr(scope, shape, 2, true);
            return format!("(tanh (add {} {e}))", taps[0]);
        }
        let f = self.texpr(scope, shape, 2, false);
        let mut acc = f;
        for (i, t) in taps.iter().enumerate() {
            let c = if i + 1 == taps.len() { "0.5" } else { "0.25" };
            acc = format!("(add (mul {t} {c}) {acc})");
        }
        acc
    }
}
