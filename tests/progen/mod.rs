//! A generator of random, well-typed programs with loops, as `.sexp` text,
//! for the property tests (`tests/proptest_scan.rs`).
//!
//! The generator reads its decisions from a stream of bytes (proptest
//! generates and shrinks the stream): every decision is `byte % choices`,
//! and a missing byte reads as 0, which is always the simplest choice (no
//! optional clause, a leaf, one statement). Removing or zeroing bytes
//! therefore shrinks the program, and every stream gives a valid program:
//! the generator tracks each value's shape — static (constant, `T - c`, or
//! unknown) and concrete (the size it has at run time, `T` being chosen
//! here too) — and builds only what type-checks and runs.
//!
//! Values are kept bounded: states are updated through `tanh`, by adding
//! a bounded term (running sums), by contracting (`0.5 * s + ...`) or by
//! multiplying with a sigmoid; `exp` only sees `tanh`/`sigmoid` values, or
//! a vector less its maximum (the stable forms: a shifted `exp`, softmax,
//! logsumexp), so outputs stay finite at any input scale.
#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet};

/// Reads decisions from the byte stream.
pub struct Src<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Src<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Src { data, pos: 0 }
    }

    fn next(&mut self) -> usize {
        let v = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        v as usize
    }

    /// A number in `0..n` (0 when `n <= 1` or the stream is exhausted).
    pub fn below(&mut self, n: usize) -> usize {
        if n <= 1 {
            0
        } else {
            self.next() % n
        }
    }

    /// True with probability about `pct` percent; false on a 0 byte.
    pub fn chance(&mut self, pct: usize) -> bool {
        self.next() % 100 >= 100 - pct
    }

    fn pick<'b, T>(&mut self, items: &'b [T]) -> &'b T {
        &items[self.below(items.len())]
    }

    /// An item counted from the end: the last (the most recently made)
    /// on a 0 byte, so that shrinking the stream moves toward it.
    fn pick_recent<'b, T>(&mut self, items: &'b [T]) -> &'b T {
        &items[items.len() - 1 - self.below(items.len())]
    }
}

/// The static form of one size, as the type checker sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum St {
    /// A constant.
    K,
    /// `T - offset`.
    T(usize),
    /// Not expressible statically.
    U,
}

/// One size: static form and the value it has at run time.
#[derive(Clone, Copy, Debug)]
struct Dm {
    st: St,
    n: usize,
}

impl Dm {
    fn k(n: usize) -> Dm {
        Dm { st: St::K, n }
    }

    /// Both provably the same size to the type checker.
    fn same(&self, o: &Dm) -> bool {
        match (self.st, o.st) {
            (St::K, St::K) => self.n == o.n,
            (St::T(a), St::T(b)) => a == b,
            _ => false,
        }
    }

    /// This size less `by` (a tap span, `X[by:]`).
    fn shorten(&self, by: usize) -> Dm {
        Dm {
            st: match self.st {
                St::T(o) => St::T(o + by),
                s => s,
            },
            n: self.n - by,
        }
    }
}

/// A value in scope.
#[derive(Clone, Debug)]
struct Var {
    name: String,
    shape: Vec<Dm>,
    /// Depends on the recurrent state of the scan whose body is being
    /// generated.
    state: bool,
}

impl Var {
    /// The shape if every size is a constant.
    fn const_shape(&self) -> Option<Vec<usize>> {
        self.shape
            .iter()
            .map(|d| (d.st == St::K).then_some(d.n))
            .collect()
    }

    /// Length and step shape, if it can be iterated over.
    fn seq(&self) -> Option<(Dm, Vec<usize>)> {
        let (lead, rest) = self.shape.split_first()?;
        let rest: Option<Vec<usize>> = rest
            .iter()
            .map(|d| (d.st == St::K).then_some(d.n))
            .collect();
        Some((*lead, rest?))
    }
}

mod body;
mod expr;
pub mod reduce;

/// A generated program.
pub struct Generated {
    /// The program text.
    pub text: String,
    /// The run-time value of the symbolic size `T`.
    pub t: i64,
    /// Which features the program uses (for coverage statistics).
    pub features: BTreeSet<&'static str>,
}

/// How deep scans nest (a scan in a body in a body).
const MAX_NESTING: usize = 2;
/// Float literals the generator writes (0 and 1 let algebraic rules fire).
const LITERALS: &[&str] = &["0.5", "2.0", "-1.5", "0.25", "1.0", "0.0", "3.0"];

/// The thresholds of filters and `until` conditions: of either sign, near
/// the literals' magnitudes, but no value the generated arithmetic gives
/// exactly (see `filter_let`).
pub const TIE_FREE_THRESHOLDS: [&str; 6] =
    ["0.0123", "0.2517", "-0.4871", "1.0371", "2.0311", "-0.9873"];

struct Gen<'a> {
    src: Src<'a>,
    t: usize,
    n: usize,
    m: usize,
    counter: usize,
    /// Inputs that have been referenced (declared lazily).
    used_inputs: BTreeSet<String>,
    inputs: Vec<(String, String)>,
    features: BTreeSet<&'static str>,
    /// Outputs of folds: read at their last step more often.
    folds: BTreeSet<String>,
}

/// Generates a program from the decision stream `data`.
pub fn program(data: &[u8]) -> Generated {
    let mut src = Src::new(data);
    let t = 4 + src.below(6);
    let n = 1 + src.below(4);
    let m = 1 + src.below(4);
    let mut g = Gen {
        src,
        t,
        n,
        m,
        counter: 0,
        used_inputs: BTreeSet::new(),
        inputs: Vec::new(),
        features: BTreeSet::new(),
        folds: BTreeSet::new(),
    };
    let text = g.program();
    Generated {
        text,
        t: t as i64,
        features: g.features,
    }
}

fn tdim(t: usize) -> Dm {
    Dm { st: St::T(0), n: t }
}

fn shape_text(shape: &[usize]) -> String {
    let mut s = String::from("(f64");
    for d in shape {
        s.push_str(&format!(" {d}"));
    }
    s.push(')');
    s
}

impl<'a> Gen<'a> {
    fn fresh(&mut self, prefix: &str) -> String {
        self.counter += 1;
        format!("{prefix}{}", self.counter)
    }

    fn feat(&mut self, f: &'static str) {
        self.features.insert(f);
    }

    /// A reference to `v`, declaring it if it is an input.
    fn use_var(&mut self, v: &Var) -> String {
        if self.inputs.iter().any(|(n, _)| *n == v.name) {
            self.used_inputs.insert(v.name.clone());
        }
        v.name.clone()
    }

    fn program(&mut self) -> String {
        let (t, n, m) = (self.t, self.n, self.m);
        let decl: Vec<(&str, Vec<Dm>, String)> = vec![
            ("X", vec![tdim(t), Dm::k(n)], format!("(f64 T {n})")),
            ("Z", vec![tdim(t), Dm::k(m)], format!("(f64 T {m})")),
            ("W", vec![Dm::k(m), Dm::k(n)], format!("(f64 {m} {n})")),
            ("V", vec![Dm::k(n), Dm::k(n)], format!("(f64 {n} {n})")),
            ("b", vec![Dm::k(n)], format!("(f64 {n})")),
            ("h0", vec![Dm::k(n)], format!("(f64 {n})")),
            ("g0", vec![Dm::k(m)], format!("(f64 {m})")),
            ("c0", vec![], "(f64)".to_string()),
            ("I2", vec![Dm::k(2), Dm::k(n)], format!("(f64 2 {n})")),
            ("J3", vec![Dm::k(3), Dm::k(m)], format!("(f64 3 {m})")),
        ];
        let mut scope: Vec<Var> = Vec::new();
        for (name, shape, ty) in decl {
            self.inputs.push((name.to_string(), ty));
            scope.push(Var {
                name: name.to_string(),
                shape,
                state: false,
            });
        }
        let n_inputs = scope.len();
        let mut lines = Vec::new();
        let stmts = 1 + self.src.below(4);
        for _ in 0..stmts {
            match self.src.below(13) {
                12 => {
                    if let Some((line, v)) = self.filter_let(&scope) {
                        lines.push(line);
                        scope.push(v);
                    }
                }
                10 | 11 => {
                    let (line, v) = self.fold(&scope);
                    lines.push(line);
                    scope.push(v);
                }
                0..=6 => {
                    let (line, outs) = self.scan(&scope, 0, true);
                    lines.push(line);
                    scope.extend(outs);
                }
                7 | 8 => {
                    if let Some((line, v)) = self.seq_let(&scope) {
                        lines.push(line);
                        scope.push(v);
                    }
                }
                _ => {
                    let shape = self.elem_shape(true);
                    let e = self.texpr(&scope, &shape, 2, true);
                    let name = self.fresh("c");
                    lines.push(format!("(let {name} {e})"));
                    scope.push(Var {
                        name,
                        shape: shape.iter().map(|&d| Dm::k(d)).collect(),
                        state: false,
                    });
                }
            }
        }
        // Outputs: reads of the lets, the most recent first.
        let lets = &scope[n_inputs..];
        let pool: Vec<Var> = if lets.is_empty() {
            scope[..1].to_vec()
        } else {
            lets.to_vec()
        };
        let n_out = 1 + self.src.below(3);
        let mut outs = Vec::new();
        for _ in 0..n_out {
            let v = (*self.src.pick_recent(&pool)).clone();
            outs.push(self.read(&v));
        }
        let mut text = format!("; dims: T={t}\n(program prop\n");
        for (name, ty) in &self.inputs {
            if self.used_inputs.contains(name) {
                text.push_str(&format!("  (input {name} {ty})\n"));
            }
        }
        for l in lines {
            text.push_str(&format!("  {l}\n"));
        }
        text.push_str(&format!("  (output {}))\n", outs.join(" ")));
        text
    }

    /// An output read of `v`: whole, its last step, a slice or a sum.
    fn read(&mut self, v: &Var) -> String {
        let name = self.use_var(v);
        let Some((lead, _)) = v.seq() else {
            self.feat("out_whole");
            return name;
        };
        let fold = self.folds.contains(&v.name);
        match self.src.below(if fold { 9 } else { 7 }) {
            1 | 7 | 8 if lead.n >= 1 => {
                self.feat("out_index_last");
                format!("(index {name} -1)")
            }
            2 => {
                self.feat("out_sum");
                format!("(sum {name} 0)")
            }
            3 => {
                self.feat("out_slice");
                format!("(slice {name} 1 none)")
            }
            4 => {
                self.feat("out_slice");
                format!("(slice {name} none none -1)")
            }
            5 => {
                self.feat("out_slice");
                format!("(slice {name} 0 -1)")
            }
            6 => {
                self.feat("out_sum");
                format!("(sum {name})")
            }
            _ => {
                self.feat("out_whole");
                name
            }
        }
    }

    /// A step shape: a vector of size N (the simplest), a scalar, a vector
    /// of size M, or (when `matrix`) an M x N matrix.
    fn elem_shape(&mut self, matrix: bool) -> Vec<usize> {
        match self.src.below(if matrix { 4 } else { 3 }) {
            0 => vec![self.n],
            1 => vec![],
            2 => vec![self.m],
            _ => vec![self.m, self.n],
        }
    }

    /// An outer `let` of a filter: the rows of a value whose sum (or
    /// value) passes a threshold, or (`filterall`) its elements below
    /// one; the result's length is known only at run time.
    fn filter_let(&mut self, scope: &[Var]) -> Option<(String, Var)> {
        let cands: Vec<&Var> = scope
            .iter()
            .filter(|v| v.seq().is_some_and(|(l, _)| l.n >= 1))
            .collect();
        if cands.is_empty() {
            return None;
        }
        let v = (*self.src.pick_recent(&cands)).clone();
        let (_, elem) = v.seq().unwrap();
        let name = self.use_var(&v);
        // Thresholds no computation of the generated programs lands on
        // exactly: a value on the threshold (exp(0) against 1.0, a sum
        // that is 0 in one order) is a tie that a rewrite's rounding
        // flips, which changes a length, not a rounding. The filter is
        // here for its run-time length, not to test ties.
        let thr = *self.src.pick(&TIE_FREE_THRESHOLDS);
        let unknown = Dm { st: St::U, n: 0 };
        let (text, shape) = if self.src.chance(30) {
            self.feat("filterall");
            let x = self.fresh("e");
            (
                format!("(filterall (fn ({x}) (lt {x} {thr})) {name})"),
                vec![unknown],
            )
        } else {
            self.feat("filter");
            let r = self.fresh("r");
            let pred = if elem.is_empty() {
                format!("(gt {r} {thr})")
            } else {
                format!("(gt (sum {r}) {thr})")
            };
            let mut shape = vec![unknown];
            shape.extend(elem.iter().map(|&d| Dm::k(d)));
            (format!("(filter (fn ({r}) {pred}) {name})"), shape)
        };
        let out = self.fresh("f");
        Some((
            format!("(let {out} {text})"),
            Var {
                name: out,
                shape,
                state: false,
            },
        ))
    }

    /// An outer `let` of a whole sequence: elementwise, a matrix product,
    /// a slice or a cumsum of an existing sequence.
    fn seq_let(&mut self, scope: &[Var]) -> Option<(String, Var)> {
        let seqs: Vec<&Var> = scope
            .iter()
            .filter(|v| v.seq().is_some_and(|(l, _)| l.st != St::K && l.n >= 2))
            .collect();
        if seqs.is_empty() {
            return None;
        }
        let v = (*self.src.pick_recent(&seqs)).clone();
        let (lead, elem) = v.seq().unwrap();
        let name = self.use_var(&v);
        let w = scope.iter().find(|x| x.name == "W").unwrap().clone();
        let (text, lead, elem) = match self.src.below(7) {
            1 => (format!("(mul {name} 0.5)"), lead, elem),
            2 if elem == [self.n] => {
                self.feat("outer_dot");
                let w = self.use_var(&w);
                (format!("(dot {name} (transpose {w}))"), lead, vec![self.m])
            }
            2 if elem == [self.m] => {
                self.feat("outer_dot");
                let w = self.use_var(&w);
                (format!("(dot {name} {w})"), lead, vec![self.n])
            }
            3 => (format!("(slice {name} 1 none)"), lead.shorten(1), elem),
            4 => (format!("(slice {name} none none -1)"), lead, elem),
            5 => (format!("(cumsum {name})"), lead, elem),
            6 => {
                let other: Vec<&Var> = seqs
                    .iter()
                    .copied()
                    .filter(|o| o.seq().is_some_and(|(l, e)| l.same(&lead) && e == elem))
                    .collect();
                let other = if other.is_empty() { vec![&v] } else { other };
                let o = other[self.src.below(other.len())].clone();
                let o = self.use_var(&o);
                (format!("(sub {name} (tanh {o}))"), lead, elem)
            }
            _ => (format!("(tanh {name})"), lead, elem),
        };
        self.feat("outer_seq_let");
        let out = self.fresh("q");
        let mut shape = vec![lead];
        shape.extend(elem.iter().map(|&d| Dm::k(d)));
        Some((
            format!("(let {out} {text})"),
            Var {
                name: out,
                shape,
                state: false,
            },
        ))
    }

    /// A scan in `scope` (a body's scope when `depth > 0`) as a `let`
    /// line, and the variables it binds. Unless `allow_state`, it reads
    /// nothing that depends on the enclosing loop's state.
    fn scan(&mut self, scope: &[Var], depth: usize, allow_state: bool) -> (String, Vec<Var>) {
        if depth > 0 {
            self.feat("nested_scan");
        }
        let scope: Vec<Var> = scope
            .iter()
            .filter(|v| allow_state || !v.state)
            .cloned()
            .collect();
        let mut clauses = Vec::new();
        let mut params: Vec<Var> = Vec::new();

        // Sequences.
        let cands: Vec<&Var> = scope
            .iter()
            .filter(|v| v.seq().is_some_and(|(l, _)| l.n >= 2))
            .collect();
        let n_seq = if cands.is_empty() {
            0
        } else {
            self.src.below(3)
        };
        let mut avail: Option<Dm> = None;
        let mut seq_texts = Vec::new();
        const TAPS: &[&[i64]] = &[
            &[0],
            &[-1, 0],
            &[0, 1],
            &[-2, 0],
            &[0],
            &[-1],
            &[-1, 1],
            &[0, -1],
        ];
        // At the top level, mostly the sequences of length T (or less).
        let long: Vec<&Var> = cands
            .iter()
            .copied()
            .filter(|v| v.shape[0].st != St::K)
            .collect();
        for _ in 0..n_seq {
            let from = if depth == 0 && !long.is_empty() && !self.src.chance(20) {
                &long
            } else {
                &cands
            };
            let v = (*self.src.pick_recent(from)).clone();
            let (lead, elem) = v.seq().unwrap();
            let is_input = self.inputs.iter().any(|(n, _)| *n == v.name);
            if !is_input && depth == 0 {
                self.feat("scan_reads_scan");
            }
            let mut name = self.use_var(&v);
            if self.src.chance(15) {
                name = format!("(mul (tanh {name}) 2.0)");
            }
            let taps = *self.src.pick(TAPS);
            let lo = taps.iter().copied().min().unwrap().min(0);
            let hi = taps.iter().copied().max().unwrap().max(0);
            let span = (hi - lo) as usize;
            let (taps, span) = if lead.n <= span {
                (&[0i64][..], 0)
            } else {
                (taps, span)
            };
            if taps == [0] {
                seq_texts.push(name);
            } else {
                self.feat(match taps {
                    [-1, 0] => "seq_taps_-1_0",
                    [0, 1] => "seq_taps_0_1",
                    [-2, 0] => "seq_taps_-2_0",
                    _ => "seq_taps_other",
                });
                let t: Vec<String> = taps.iter().map(|t| t.to_string()).collect();
                seq_texts.push(format!("({name} (taps {}))", t.join(" ")));
            }
            let a = lead.shorten(span);
            avail = Some(match avail {
                None => a,
                Some(b) if b.same(&a) => b,
                Some(b) if b.st == St::K && a.st == St::K => Dm::k(b.n.min(a.n)),
                Some(b) => Dm {
                    st: St::U,
                    n: b.n.min(a.n),
                },
            });
            for _ in taps {
                params.push(Var {
                    name: self.fresh("x"),
                    shape: elem.iter().map(|&d| Dm::k(d)).collect(),
                    state: false,
                });
            }
        }
        if !seq_texts.is_empty() {
            self.feat("sequences");
            clauses.push(format!("(sequences {})", seq_texts.join(" ")));
        }

        // Outputs.
        let n_out = 1 + self.src.below(3);
        let mut outs: Vec<(usize, Vec<usize>, Vec<i64>)> = Vec::new(); // kind, shape, taps
        for _ in 0..n_out {
            let kind = self.src.below(4);
            let shape = self.elem_shape(kind == 0);
            let taps: Vec<i64> = match kind {
                2 => {
                    const MITSOT_TAPS: &[&[i64]] = &[&[-2, -1], &[-3, -1], &[-2], &[-3, -2, -1]];
                    self.src.pick(MITSOT_TAPS).to_vec()
                }
                0 => vec![],
                _ => vec![-1],
            };
            outs.push((if kind == 3 { 1 } else { kind }, shape, taps));
        }
        let all_nitsot = outs.iter().all(|o| o.0 == 0);
        let mut info = Vec::new();
        let mut state_params: Vec<Vec<String>> = Vec::new();
        for (kind, shape, taps) in &outs {
            match kind {
                0 => {
                    self.feat("nitsot");
                    info.push("(nitsot)".to_string());
                    state_params.push(vec![]);
                }
                1 => {
                    self.feat("sitsot");
                    let init = self.texpr(&scope, shape, 1, true);
                    info.push(format!("(sitsot {init})"));
                    let p = self.fresh("s");
                    state_params.push(vec![p.clone()]);
                    params.push(Var {
                        name: p,
                        shape: shape.iter().map(|&d| Dm::k(d)).collect(),
                        state: true,
                    });
                }
                _ => {
                    self.feat(match taps.as_slice() {
                        [-2, -1] => "mitsot_-2_-1",
                        [-3, -1] => "mitsot_-3_-1",
                        _ => "mitsot_other",
                    });
                    let rows = -taps.iter().min().unwrap() as usize;
                    let init = self.mitsot_init(&scope, rows, shape);
                    let t: Vec<String> = taps.iter().map(|t| t.to_string()).collect();
                    info.push(format!("(mitsot {init} (taps {}))", t.join(" ")));
                    let mut ps = Vec::new();
                    for _ in taps {
                        let p = self.fresh("f");
                        ps.push(p.clone());
                        params.push(Var {
                            name: p,
                            shape: shape.iter().map(|&d| Dm::k(d)).collect(),
                            state: true,
                        });
                    }
                    state_params.push(ps);
                }
            }
        }
        if !all_nitsot || self.src.chance(50) {
            clauses.push(format!("(outputs_info {})", info.join(" ")));
        }

        // Non-sequences: values in scope, constants, whole sequences.
        let n_ns = self.src.below(4);
        let mut ns_texts = Vec::new();
        for _ in 0..n_ns {
            let (text, shape) = match self.src.below(4) {
                1 => {
                    self.feat("nonseq_const");
                    let shape = self.elem_shape(false);
                    let lit = *self.src.pick(LITERALS);
                    (
                        format!("(fill {} {lit})", shape_text(&shape)),
                        shape.iter().map(|&d| Dm::k(d)).collect(),
                    )
                }
                2 => {
                    let v = (*self.src.pick_recent(&scope)).clone();
                    (self.use_var(&v), v.shape.clone())
                }
                3 => {
                    let shape = self.elem_shape(true);
                    let e = self.texpr(&scope, &shape, 1, true);
                    (e, shape.iter().map(|&d| Dm::k(d)).collect())
                }
                _ => {
                    let consts: Vec<&Var> =
                        scope.iter().filter(|v| v.const_shape().is_some()).collect();
                    let v = (*self.src.pick_recent(&consts)).clone();
                    (self.use_var(&v), v.shape.clone())
                }
            };
            self.feat("non_sequences");
            ns_texts.push(text);
            params.push(Var {
                name: self.fresh("w"),
                shape,
                state: false,
            });
        }
        if !ns_texts.is_empty() {
            clauses.push(format!("(non_sequences {})", ns_texts.join(" ")));
        }

        // n_steps.
        let steps = match avail {
            None => {
                self.feat("n_steps_no_seq");
                match self.src.below(4) {
                    1 => {
                        clauses.push("(n_steps T)".into());
                        tdim(self.t)
                    }
                    2 => {
                        // `T` in an expression must be declared by an input.
                        self.used_inputs.insert("X".into());
                        clauses.push("(n_steps (sub T 1))".into());
                        Dm {
                            st: St::U,
                            n: self.t - 1,
                        }
                    }
                    _ => {
                        let k = 1 + self.src.below(self.t);
                        clauses.push(format!("(n_steps {k})"));
                        Dm::k(k)
                    }
                }
            }
            Some(a) if self.src.chance(25) => {
                self.feat("n_steps_with_seq");
                if a.st == St::T(0) && self.src.chance(50) {
                    clauses.push("(n_steps T)".into());
                    a
                } else {
                    let k = if self.src.chance(5) {
                        0
                    } else {
                        1 + self.src.below(a.n)
                    };
                    clauses.push(format!("(n_steps {k})"));
                    Dm::k(k)
                }
            }
            Some(a) => a,
        };
        if self.src.chance(20) {
            self.feat("go_backwards");
            clauses.push("(go_backwards)".into());
        }

        // A while loop, now and then: a condition on what the step
        // computes (its states included) stops it early; its outputs'
        // length is then known only at run time.
        let until = self.src.chance(15);
        if until {
            self.feat("until");
        }
        // The body.
        let body = self.body(&scope, &params, &outs, &state_params, depth, until);
        let names: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
        clauses.push(format!("(fn ({}) {body})", names.join(" ")));

        let out_vars: Vec<Var> = outs
            .iter()
            .map(|(_, shape, _)| {
                // A while loop's length: unknown to the type checker, and
                // maybe 0 (so never indexed, iterated or tapped).
                let lead = if until { Dm { st: St::U, n: 0 } } else { steps };
                let mut s = vec![lead];
                s.extend(shape.iter().map(|&d| Dm::k(d)));
                Var {
                    name: self.fresh("S"),
                    shape: s,
                    state: allow_state && scope.iter().any(|v| v.state),
                }
            })
            .collect();
        let binder = if out_vars.len() == 1 {
            out_vars[0].name.clone()
        } else {
            let n: Vec<&str> = out_vars.iter().map(|v| v.name.as_str()).collect();
            format!("({})", n.join(" "))
        };
        let sep = if depth == 0 { "\n    " } else { " " };
        (
            format!("(let {binder} (scan{sep}{}))", clauses.join(sep)),
            out_vars,
        )
    }

    /// A fold over a sequence of the top level: one running accumulator
    /// `s ⊕ f(x_t)` (a scan, or the `foldl`, `scanl`, `foldr`, `scanr`,
    /// `reduce` combinators), so the reduction rewrites have work.
    fn fold(&mut self, scope: &[Var]) -> (String, Var) {
        let seqs: Vec<Var> = scope
            .iter()
            .filter(|v| !v.shape.is_empty() && v.shape[0].st != St::K && v.shape[0].n >= 1)
            .filter(|v| v.seq().is_some())
            .cloned()
            .collect();
        let v = (*self.src.pick_recent(&seqs)).clone();
        let (lead, elem) = v.seq().unwrap();
        let seq = self.use_var(&v);
        let shape = if self.src.chance(30) {
            self.elem_shape(false)
        } else {
            elem.clone()
        };
        let init = self.texpr(scope, &shape, 1, true);
        let (x, acc) = (self.fresh("x"), self.fresh("s"));
        let mut body: Vec<Var> = scope
            .iter()
            .map(|v| Var {
                state: false,
                ..v.clone()
            })
            .collect();
        body.push(Var {
            name: x.clone(),
            shape: elem.iter().map(|&d| Dm::k(d)).collect(),
            state: false,
        });
        body.push(Var {
            name: acc.clone(),
            shape: shape.iter().map(|&d| Dm::k(d)).collect(),
            state: true,
        });
        let update = self.sitsot_update(&body, &shape, &acc);
        self.feat("fold");
        let form = self.src.below(6);
        let name = self.fresh("S");
        let form = if form == 5 && shape != elem { 1 } else { form };
        let every_step = matches!(form, 0 | 2 | 4);
        let text = match form {
            1 => format!("(foldl (fn ({acc} {x}) {update}) {init} {seq})"),
            2 => format!("(scanl (fn ({acc} {x}) {update}) {init} {seq})"),
            3 => format!("(foldr (fn ({acc} {x}) {update}) {init} {seq})"),
            4 => format!("(scanr (fn ({acc} {x}) {update}) {init} {seq})"),
            5 if shape == elem => {
                // Associative updates only, from their identity.
                let (op, init) = self
                    .src
                    .pick(&[
                        ("add", format!("(zeros {})", shape_text(&shape))),
                        ("mul", format!("(ones {})", shape_text(&shape))),
                        ("maximum", init.clone()),
                        ("minimum", init.clone()),
                    ])
                    .clone();
                format!("(reduce (fn ({acc} {x}) ({op} {acc} {x})) {init} {seq})")
            }
            _ => {
                let back = if self.src.chance(25) {
                    self.feat("go_backwards");
                    " (go_backwards)"
                } else {
                    ""
                };
                format!(
                    "(scan (sequences {seq}) (outputs_info (sitsot {init})){back} (fn ({x} {acc}) {update}))"
                )
            }
        };
        if form != 0 {
            self.feat("combinator");
        }
        let mut out_shape = Vec::new();
        if every_step {
            out_shape.push(lead);
            self.folds.insert(name.clone());
        }
        out_shape.extend(shape.iter().map(|&d| Dm::k(d)));
        (
            format!("(let {name} {text})"),
            Var {
                name,
                shape: out_shape,
                state: false,
            },
        )
    }
}

/// Counts how often each feature occurred, over many programs.
#[derive(Default)]
pub struct Coverage {
    pub programs: usize,
    pub counts: BTreeMap<&'static str, usize>,
}

impl Coverage {
    pub fn add(&mut self, g: &Generated) {
        self.programs += 1;
        for f in &g.features {
            *self.counts.entry(f).or_insert(0) += 1;
        }
    }
}

/// Every feature the generator can record.
pub const FEATURES: &[&str] = &[
    "accumulator",
    "dot",
    "filter",
    "filterall",
    "combinator",
    "exp_bounded",
    "exp_shifted",
    "fold",
    "go_backwards",
    "mitsot_-2_-1",
    "mitsot_-3_-1",
    "mitsot_other",
    "n_steps_no_seq",
    "n_steps_with_seq",
    "nested_scan",
    "nitsot",
    "non_sequences",
    "nonseq_const",
    "out_index_last",
    "out_slice",
    "out_sum",
    "out_whole",
    "outer_dot",
    "outer_seq_let",
    "scan_reads_scan",
    "seq_taps_-1_0",
    "seq_taps_-2_0",
    "seq_taps_0_1",
    "seq_taps_other",
    "sequences",
    "sitsot",
    "sum_axis",
    "transpose",
    "until",
];
