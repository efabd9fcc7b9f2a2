//! Expressions of a constant shape over the values in scope: what scan
//! bodies, inits and outer constants are made of.

use super::{shape_text, Gen, Var, LITERALS};

impl Gen<'_> {
    /// An expression of constant shape `target` over `scope`; `depth`
    /// bounds the nesting of ops. Unless `allow_state`, it reads no value
    /// that depends on the loop's state.
    pub(super) fn texpr(
        &mut self,
        scope: &[Var],
        target: &[usize],
        depth: usize,
        allow_state: bool,
    ) -> String {
        let choice = if depth == 0 { 0 } else { self.src.below(12) };
        let (n, m) = (self.n, self.m);
        let vars_of = |shape: &[usize]| -> Vec<Var> {
            scope
                .iter()
                .filter(|v| (allow_state || !v.state) && v.const_shape().as_deref() == Some(shape))
                .cloned()
                .collect()
        };
        let d = depth.saturating_sub(1);
        match choice {
            1 => {
                let op = *self
                    .src
                    .pick(&["tanh", "sigmoid", "sin", "neg", "abs", "cos"]);
                let e = self.texpr(scope, target, d, allow_state);
                format!("({op} {e})")
            }
            2 | 3 => {
                let op = *self.src.pick(&["add", "mul", "sub", "maximum", "minimum"]);
                let a = self.texpr(scope, target, d, allow_state);
                // The other operand: the same shape, a scalar or a suffix.
                let k = self.src.below(target.len() + 1);
                let b = if k == 0 && self.src.chance(50) {
                    self.src.pick(LITERALS).to_string()
                } else {
                    self.texpr(scope, &target[target.len() - k..], d, allow_state)
                };
                if self.src.chance(30) {
                    format!("({op} {b} {a})")
                } else {
                    format!("({op} {a} {b})")
                }
            }
            4 => {
                self.feat("exp_bounded");
                let e = self.texpr(scope, target, d, allow_state);
                let inner = *self.src.pick(&["tanh", "sigmoid"]);
                format!("(exp ({inner} {e}))")
            }
            5 => {
                // dot: matrix-vector, vector-matrix, vector-vector, matrix-matrix.
                let mats: Vec<Var> = scope
                    .iter()
                    .filter(|v| {
                        (allow_state || !v.state) && v.const_shape().is_some_and(|s| s.len() == 2)
                    })
                    .cloned()
                    .collect();
                match target {
                    [] => {
                        self.feat("dot");
                        let k = if self.src.chance(50) { n } else { m };
                        let a = self.texpr(scope, &[k], d, allow_state);
                        let b = self.texpr(scope, &[k], d, allow_state);
                        format!("(dot {a} {b})")
                    }
                    [r] | [r, _] => {
                        let rows: Vec<&Var> = mats
                            .iter()
                            .filter(|v| v.const_shape().unwrap()[0] == *r)
                            .collect();
                        if rows.is_empty() {
                            return self.texpr(scope, target, d, allow_state);
                        }
                        self.feat("dot");
                        let w = rows[self.src.below(rows.len())].clone();
                        let k = w.const_shape().unwrap()[1];
                        let w = self.use_var(&w);
                        let mut rest = vec![k];
                        rest.extend_from_slice(&target[1..]);
                        let x = self.texpr(scope, &rest, d, allow_state);
                        format!("(dot {w} {x})")
                    }
                    _ => self.texpr(scope, target, d, allow_state),
                }
            }
            6 => {
                // A reduction over an axis (or all axes, for a scalar).
                self.feat("sum_axis");
                let op = *self.src.pick(&["sum", "sum", "mean", "max"]);
                let k = if self.src.chance(50) { n } else { m };
                match target {
                    [] => {
                        let e = self.texpr(scope, &[k], d, allow_state);
                        if self.src.chance(50) {
                            format!("({op} {e})")
                        } else {
                            format!("({op} {e} 0)")
                        }
                    }
                    [r] => {
                        if self.src.chance(50) {
                            let e = self.texpr(scope, &[*r, k], d, allow_state);
                            let ax = self.src.pick(&["1", "-1"]);
                            format!("({op} {e} {ax})")
                        } else {
                            let e = self.texpr(scope, &[k, *r], d, allow_state);
                            format!("({op} {e} 0)")
                        }
                    }
                    _ => self.texpr(scope, target, d, allow_state),
                }
            }
            7 => {
                self.feat("transpose");
                let mut rev = target.to_vec();
                rev.reverse();
                let e = self.texpr(scope, &rev, d, allow_state);
                format!("(transpose {e})")
            }
            8 if target.len() == 2 => {
                // An outer product by broadcasting.
                let a = self.texpr(scope, &target[..1], d, allow_state);
                let b = self.texpr(scope, &target[1..], d, allow_state);
                format!("(mul (expand_dims {a} 1) {b})")
            }
            8 => {
                // An element or a row.
                let k = if self.src.chance(50) { n } else { m };
                let mut big = vec![k];
                big.extend_from_slice(target);
                let e = self.texpr(scope, &big, d, allow_state);
                let i = self.src.pick(&["0", "-1"]);
                format!("(index {e} {i})")
            }
            9 if !target.is_empty() && target[0] <= 3 => {
                let parts: Vec<String> = (0..target[0])
                    .map(|_| self.texpr(scope, &target[1..], d, allow_state))
                    .collect();
                format!("(stack {})", parts.join(" "))
            }
            10 => {
                let a = self.texpr(scope, target, d, allow_state);
                let b = self.texpr(scope, target, d, allow_state);
                format!("(where (gt {a} {b}) {a} {b})")
            }
            11 if target.len() <= 1 => {
                // Numerically stable forms over a vector E, which must stay
                // finite at any input scale: exp(E - max E) (in (0, 1]),
                // softmax, and logsumexp max E + log(sum(exp(E - max E))).
                self.feat("exp_shifted");
                // A scalar's E is a vector or (so that it has enough
                // elements for the cost model to prefer other forms) an
                // M x N matrix.
                let shape = match target.first() {
                    Some(&r) => vec![r],
                    None => match self.src.below(3) {
                        0 => vec![n],
                        1 => vec![m],
                        _ => vec![m, n],
                    },
                };
                let e = self.texpr(scope, &shape, d, allow_state);
                let shifted = format!("(exp (sub {e} (max {e})))");
                match (target, self.src.below(2)) {
                    ([], _) => format!("(add (max {e}) (log (sum {shifted})))"),
                    (_, 0) => shifted,
                    _ => format!("(div {shifted} (sum {shifted}))"),
                }
            }
            _ => self.leaf(scope, target, allow_state, &vars_of(target)),
        }
    }

    /// A variable of shape `target`, a step of a sequence, or a constant.
    fn leaf(&mut self, scope: &[Var], target: &[usize], allow_state: bool, vars: &[Var]) -> String {
        let seqs: Vec<Var> = scope
            .iter()
            .filter(|v| {
                (allow_state || !v.state) && v.seq().is_some_and(|(l, e)| l.n >= 1 && e == target)
            })
            .cloned()
            .collect();
        let k = self.src.below(vars.len() + seqs.len() + 1);
        if k < vars.len() {
            // Most recent first.
            let v = vars[vars.len() - 1 - k].clone();
            return self.use_var(&v);
        }
        if k < vars.len() + seqs.len() {
            let v = seqs[k - vars.len()].clone();
            let name = self.use_var(&v);
            return match self.src.below(3) {
                0 => format!("(index {name} -1)"),
                1 => format!("(index {name} 0)"),
                _ => format!("(sum {name} 0)"),
            };
        }
        let lit = *self.src.pick(LITERALS);
        if target.is_empty() {
            if self.src.chance(20) {
                format!("(fill (f64) {lit})")
            } else {
                lit.to_string()
            }
        } else if self.src.chance(30) {
            format!("(zeros {})", shape_text(target))
        } else {
            format!("(fill {} {lit})", shape_text(target))
        }
    }
}
