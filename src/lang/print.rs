//! Printing programs as canonical, deterministic `.sexp` text.
//!
//! Owns: the canonical form. Every named value is a `let` in graph order;
//! unnamed values used once are written inline; unnamed values used more
//! than once (which optimized programs have) get fresh names; a scan with
//! several outputs is a destructuring `let`. Closures come out as explicit
//! non-sequences. The text parses back to an equal program.
//! Must not: change what the program computes.

use super::op_table::Op;
use super::op_table::{AttrKind, AttrValue, Form, Slot};
use super::program::{Graph, NodeId, OutputInfo, Program};
use super::shape::Type;
use std::collections::BTreeSet;
use std::fmt::Write;

/// Inline expressions taller than this are bound to a fresh name, so the
/// text stays well inside the reader's nesting limit.
const MAX_INLINE_HEIGHT: usize = 64;

/// Prints a program in canonical form (ends with a newline).
pub fn print_program(p: &Program) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "(program {}", p.name);
    let n_inputs = p.n_inputs();
    for (k, (_, n)) in p.graph.params().enumerate() {
        let _ = writeln!(
            out,
            "  ({} {} {})",
            if k < n_inputs { "input" } else { "shared" },
            n.name.as_deref().unwrap_or("_"),
            type_text(n.ty())
        );
    }
    let mut taken = BTreeSet::new();
    collect_names(&p.graph, &mut taken);
    let g = GraphPrinter::new(&p.graph, &mut taken);
    for line in g.let_lines(1) {
        out.push_str(&line);
        out.push('\n');
    }
    let n_out = p.n_outputs();
    let shared: Vec<&str> = p.shared_vars().map(|(n, _)| n).collect();
    for (&o, &j) in p.graph.outputs[n_out..].iter().zip(&p.shared.updates) {
        let name = shared.get(j).copied().unwrap_or("_");
        let _ = writeln!(out, "  (update {name} {})", g.expr(o, 2));
    }
    let outs: Vec<String> = p.graph.outputs[..n_out]
        .iter()
        .map(|&o| g.expr(o, 2))
        .collect();
    let _ = writeln!(out, "  (output {}))", outs.join(" "));
    out
}

/// Prints a type as `(DTYPE DIM ...)`, a list type as `(list T)`.
pub fn type_text(t: &Type) -> String {
    let mut s = "(list ".repeat(t.list as usize);
    let _ = write!(s, "({}", t.dtype);
    for d in &t.shape {
        let _ = write!(s, " {d}");
    }
    s.push(')');
    s.push_str(&")".repeat(t.list as usize));
    s
}

fn collect_names(g: &Graph, taken: &mut BTreeSet<String>) {
    for n in &g.nodes {
        if let Some(name) = &n.name {
            taken.insert(name.clone());
        }
        if let Op::Scan(s) = &n.op {
            collect_names(&s.body, taken);
        }
    }
}

fn fresh(taken: &mut BTreeSet<String>) -> String {
    let mut k = taken.len();
    loop {
        let name = format!("_v{k}");
        if taken.insert(name.clone()) {
            return name;
        }
        k += 1;
    }
}

struct GraphPrinter<'a> {
    g: &'a Graph,
    /// The name each node is printed as, for nodes that are `let`-bound
    /// (or parameters).
    names: Vec<Option<String>>,
    /// Scan nodes printed as a `let` of their own (their projections named).
    scan_let: Vec<bool>,
    /// For each `slogdet` result: the node of the other result of the same
    /// matrix when the two are a parsed pair, `None` inside otherwise (its
    /// binder is then `_`).
    slogdet_pair: Vec<Option<Option<NodeId>>>,
}

impl<'a> GraphPrinter<'a> {
    fn new(g: &'a Graph, taken: &mut BTreeSet<String>) -> GraphPrinter<'a> {
        let uses = g.use_counts();
        let n = g.nodes.len();
        let mut names: Vec<Option<String>> = vec![None; n];
        let mut scan_let = vec![false; n];
        let mut height = vec![0usize; n];
        for (i, node) in g.nodes.iter().enumerate() {
            let cheap = matches!(node.op, Op::Literal(_) | Op::Size(_));
            let is_param = matches!(node.op, Op::Input(_));
            height[i] = 1 + node
                .args
                .iter()
                .map(|a| if names[a.0].is_some() { 0 } else { height[a.0] })
                .max()
                .unwrap_or(0);
            let multi_proj = match node.op {
                Op::Proj(_) => node
                    .args
                    .first()
                    .map(|s| g.node(*s).ty.len() > 1)
                    .unwrap_or(false),
                _ => false,
            };
            let must_name = node.name.is_some()
                || matches!(node.op, Op::Slogdet(_))
                || is_param
                || multi_proj
                || (!cheap && uses[i] > 1)
                || height[i] > MAX_INLINE_HEIGHT;
            if must_name && !matches!(node.op, Op::Scan(_) | Op::Grad) {
                names[i] = Some(match &node.name {
                    Some(s) => s.clone(),
                    None => fresh(taken),
                });
                height[i] = 0;
                if let (Op::Proj(_), Some(s)) = (&node.op, node.args.first()) {
                    scan_let[s.0] = true;
                }
            }
        }
        let mut slogdet_pair = vec![None; n];
        for (i, node) in g.nodes.iter().enumerate() {
            let Op::Slogdet(k) = node.op else { continue };
            // Paired on one line only as the parser makes a pair: the
            // sign's node right before log|det|'s, of the same matrix
            // (so that the text parses back to the same nodes).
            let j = if k == 0 { i + 1 } else { i.wrapping_sub(1) };
            let other = g
                .nodes
                .get(j)
                .filter(|m| matches!(m.op, Op::Slogdet(o) if o != k) && m.args == node.args);
            slogdet_pair[i] = Some(other.map(|_| NodeId(j)));
        }
        GraphPrinter {
            g,
            names,
            scan_let,
            slogdet_pair,
        }
    }

    /// `(let (sign logdet) (slogdet A))` for the `slogdet` result `i`, or
    /// `None` when its pair was printed with an earlier node.
    fn slogdet_line(&self, i: usize, k: usize, pad: &str, depth: usize) -> Option<String> {
        let own = self.names[i].clone().unwrap_or_else(|| "_".into());
        let other = match self.slogdet_pair[i]? {
            Some(j) if j.0 < i => return None,
            Some(j) => self.names[j.0].clone().unwrap_or_else(|| "_".into()),
            None => "_".into(),
        };
        let (sign, log) = if k == 0 { (own, other) } else { (other, own) };
        let a = self.g.nodes[i].args.first().copied()?;
        Some(format!(
            "{pad}(let ({sign} {log}) (slogdet {}))",
            self.expr(a, depth + 1)
        ))
    }

    /// The `let` lines of the graph, at `depth` levels of indentation.
    fn let_lines(&self, depth: usize) -> Vec<String> {
        let pad = "  ".repeat(depth);
        let mut lines = Vec::new();
        for (i, node) in self.g.nodes.iter().enumerate() {
            if matches!(node.op, Op::Input(_)) {
                continue;
            }
            if let Op::Scan(_) | Op::Grad = node.op {
                if !self.scan_let[i] {
                    continue;
                }
                let mut projs: Vec<(usize, &str)> = Vec::new();
                for (j, m) in self.g.nodes.iter().enumerate().skip(i + 1) {
                    if let (Op::Proj(k), Some(name)) = (&m.op, &self.names[j]) {
                        if m.args.first() == Some(&NodeId(i)) && !projs.iter().any(|p| p.0 == *k) {
                            projs.push((*k, name));
                        }
                    }
                }
                projs.sort();
                let binder = if node.ty.len() == 1 && projs.len() == 1 {
                    projs[0].1.to_string()
                } else {
                    let ns: Vec<&str> = projs.iter().map(|p| p.1).collect();
                    format!("({})", ns.join(" "))
                };
                lines.push(format!(
                    "{pad}(let {binder} {})",
                    self.scan_text(NodeId(i), depth + 1)
                ));
                continue;
            }
            if let Op::Slogdet(k) = node.op {
                lines.extend(self.slogdet_line(i, k, &pad, depth));
                continue;
            }
            let Some(name) = &self.names[i] else { continue };
            if let Op::Proj(_) = node.op {
                let scan = node.args[0];
                if self.scan_let[scan.0] {
                    continue; // part of the scan's own let
                }
            }
            lines.push(format!(
                "{pad}(let {name} {})",
                self.op_text(NodeId(i), depth + 1)
            ));
        }
        lines
    }

    /// An expression for node `id`: its name if bound, else its text.
    fn expr(&self, id: NodeId, depth: usize) -> String {
        match &self.names[id.0] {
            Some(n) => n.clone(),
            None => self.op_text(id, depth),
        }
    }

    fn op_text(&self, id: NodeId, depth: usize) -> String {
        let node = self.g.node(id);
        match &node.op {
            Op::Input(_) => node.name.clone().unwrap_or_else(|| "_".into()),
            Op::Literal(s) => s.to_string(),
            Op::Size(s) => s.clone(),
            Op::Scan(_) => self.scan_text(id, depth),
            Op::Grad => {
                let args: Vec<String> = node.args.iter().map(|&x| self.expr(x, depth)).collect();
                format!("(grad {})", args.join(" "))
            }
            Op::Proj(_) => match node.args.first() {
                Some(&s) => self.scan_text(s, depth),
                None => "_".into(),
            },
            op => {
                let args: Vec<String> = node.args.iter().map(|&x| self.expr(x, depth)).collect();
                op_expr_text(op, &args)
            }
        }
    }

    /// A scan as a multi-line block; continuation lines at `depth`.
    fn scan_text(&self, id: NodeId, depth: usize) -> String {
        let node = self.g.node(id);
        let Op::Scan(scan) = &node.op else {
            return self.op_text(id, depth);
        };
        let sig = &scan.sig;
        let pad = "  ".repeat(depth);
        let arg = |k: usize| -> String {
            node.args
                .get(k)
                .map(|&x| self.expr(x, depth + 1))
                .unwrap_or_default()
        };
        let mut s = String::from("(scan");
        if sig.n_seqs() > 0 {
            let seqs: Vec<String> = sig
                .seq_args()
                .zip(&sig.sequences)
                .map(|(k, taps)| {
                    if taps.as_slice() == [0] {
                        arg(k)
                    } else {
                        format!("({} (taps {}))", arg(k), join(taps))
                    }
                })
                .collect();
            let _ = write!(s, "\n{pad}(sequences {})", seqs.join(" "));
        }
        if sig.outputs.iter().any(|o| o.is_state())
            || sig.keep.iter().any(|k| k.is_some())
            || !sig.as_list.is_empty()
        {
            let mut init = sig.init_args();
            let outs: Vec<String> = sig
                .outputs
                .iter()
                .enumerate()
                .map(|(k, o)| {
                    let init_text = o.is_state().then(|| arg(init.next().unwrap_or(0)));
                    if sig.is_list_output(k) {
                        return "(nitsot as_list)".to_string();
                    }
                    output_entry(o, init_text, sig.kept(k))
                })
                .collect();
            let _ = write!(s, "\n{pad}(outputs_info {})", outs.join(" "));
        }
        if sig.n_non_seqs > 0 {
            let ns: Vec<String> = sig.non_seq_args().map(arg).collect();
            let _ = write!(s, "\n{pad}(non_sequences {})", ns.join(" "));
        }
        if let Some(k) = sig.n_steps_arg() {
            let _ = write!(s, "\n{pad}(n_steps {})", arg(k));
        }
        if sig.go_backwards {
            let _ = write!(s, "\n{pad}(go_backwards)");
        }
        let mut taken = BTreeSet::new();
        collect_names(&scan.body, &mut taken);
        let body = GraphPrinter::new(&scan.body, &mut taken);
        let params: Vec<String> = scan
            .body
            .params()
            .map(|(pid, _)| body.expr(pid, depth + 1))
            .collect();
        let _ = write!(s, "\n{pad}(fn ({})", params.join(" "));
        for line in body.let_lines(depth + 1) {
            let _ = write!(s, "\n{line}");
        }
        let mut outs: Vec<String> = scan
            .body
            .outputs
            .iter()
            .map(|&o| body.expr(o, depth + 2))
            .collect();
        // A while loop's condition, its body's last result.
        if let Some(cond) = scan.sig.until_result().filter(|&c| c < outs.len()) {
            outs[cond] = format!("(until {})", outs[cond]);
        }
        let inner_pad = "  ".repeat(depth + 1);
        if outs.len() == 1 {
            let _ = write!(s, "\n{inner_pad}{}))", outs[0]);
        } else {
            let _ = write!(s, "\n{inner_pad}(outputs {})))", outs.join(" "));
        }
        s
    }
}

/// `(NAME OPERAND ...)` for an op of the op table whose value arguments
/// print as `args`: the operands in the order of the op's layout.
fn op_expr_text(op: &Op, args: &[String]) -> String {
    let Some((kind, attrs)) = op.parts() else {
        return op.name().to_string();
    };
    let spans = kind.spans(Form::Args, args.len()).unwrap_or_default();
    let mut attrs = attrs.iter();
    let mut s = format!("({}", kind.name());
    for (slot, at) in kind.layout().iter().zip(spans) {
        match slot {
            Slot::Attr(k) => {
                if let Some(v) = attrs.next() {
                    attr_text(*k, v, &mut s);
                }
            }
            Slot::Arg | Slot::Args => {
                for a in &args[at] {
                    s.push(' ');
                    s.push_str(a);
                }
            }
        }
    }
    s.push(')');
    s
}

/// Appends the operands of an attribute of kind `k`, each after a space.
fn attr_text(k: AttrKind, v: &AttrValue, s: &mut String) {
    match v {
        AttrValue::Int(i) => {
            let _ = write!(s, " {i}");
        }
        // An omitted slice bound is written; an omitted axis is left out.
        AttrValue::OptInt(None) if matches!(k, AttrKind::Start | AttrKind::Stop) => {
            s.push_str(" none")
        }
        AttrValue::OptInt(None) => {}
        AttrValue::OptInt(Some(i)) => {
            let _ = write!(s, " {i}");
        }
        AttrValue::Ints(v) => v.iter().for_each(|i| {
            let _ = write!(s, " {i}");
        }),
        AttrValue::Sizes(v) => v.iter().for_each(|d| {
            let _ = write!(s, " {d}");
        }),
        AttrValue::Type(t) => {
            let _ = write!(s, " {}", type_text(t));
        }
        AttrValue::DType(d) => {
            let _ = write!(s, " {d}");
        }
        AttrValue::Size(d) => {
            let _ = write!(s, " {d}");
        }
        AttrValue::Bool(b) => {
            let _ = write!(s, " {b}");
        }
        AttrValue::Literals(v) => v.iter().for_each(|x| {
            let _ = write!(s, " {x}");
        }),
    }
}

fn join(v: &[i64]) -> String {
    v.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// One `outputs_info` entry: `(sitsot INIT)`, `(mitsot INIT (taps T ...))`,
/// `(mitmot BUF (in_taps T ...) (out_taps S ...))` or `(nitsot)`, with `(keep K)` at its end when the output keeps only its
/// last K steps.
pub(crate) fn output_entry(info: &OutputInfo, init: Option<String>, keep: Option<usize>) -> String {
    let init = init.unwrap_or_default();
    let keep = keep.map(|k| format!(" (keep {k})")).unwrap_or_default();
    match info {
        OutputInfo::Sitsot => format!("(sitsot {init}{keep})"),
        OutputInfo::Mitsot(t) => {
            let ts: Vec<String> = t.iter().map(|x| x.to_string()).collect();
            format!("(mitsot {init} (taps {}){keep})", ts.join(" "))
        }
        OutputInfo::Nitsot => format!("(nitsot{keep})"),
        OutputInfo::Mitmot { in_taps, out_taps } => {
            let join = |t: &[i64]| {
                t.iter()
                    .map(|x| x.to_string())
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            format!(
                "(mitmot {init} (in_taps {}) (out_taps {}){keep})",
                join(in_taps),
                join(out_taps)
            )
        }
    }
}
