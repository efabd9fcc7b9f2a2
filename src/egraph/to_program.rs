//! Terms back to programs: [`expr_to_program`].
//!
//! Owns: the conversion `RecExpr<TNode>` → [`Program`] — reading attributes
//! back from leaf children into [`Op`] parameters, scan bodies with
//! [`Head::Arg`] k read as the body's parameter k — and the names the
//! optimizer's programs are printed with. Every node is built with
//! [`Builder`], so it is type checked as the parser checks it. Must not:
//! write or parse text, choose terms (extraction does), hold rules.

use super::term::{Head, Lit, TNode};
use crate::lang::build::Builder;
use crate::lang::error::{BuildErrorKind, LangError};
use crate::lang::op::Scalar;
use crate::lang::op_table::Op;
use crate::lang::op_table::{AttrKind, AttrValue, Form, OpKind, Slot};
use crate::lang::program::{NodeId, Program};
use crate::lang::shape::{Dim, Type};
use crate::lang::LoopSig;
use egg::{Id, RecExpr, Symbol};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;

/// Inline expressions taller than this are bound to a name (see
/// [`expr_to_program`]).
const MAX_INLINE: usize = 40;

/// What form an attribute leaf of an op node must have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LeafKind {
    /// An integer literal (an axis, a step, an output index).
    Integer,
    /// An integer literal or `none` (a slice bound).
    Bound,
    /// A size: a non-negative integer literal or a size symbol (`-1` too
    /// in a reshape).
    Size,
    /// A type `(f64 D ...)`.
    Type,
    /// A dtype.
    DType,
    /// A literal (a value of a `tensor`).
    Literal,
    /// `true` or `false`.
    Flag,
}

impl fmt::Display for LeafKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LeafKind::Integer => "an integer",
            LeafKind::Bound => "an integer or none",
            LeafKind::Size => "a size",
            LeafKind::Type => "a type",
            LeafKind::DType => "a dtype",
            LeafKind::Literal => "a literal",
            LeafKind::Flag => "true or false",
        })
    }
}

/// Why a term does not convert back to a program.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum TermError {
    /// The builder refused a node: the term is ill-typed.
    #[error(transparent)]
    Lang(#[from] LangError),
    /// An attribute child is not what its op takes there.
    #[error("{op}: child {child} must be {want}")]
    Attribute {
        /// The op's name.
        op: &'static str,
        /// The child's position.
        child: usize,
        /// What it must be.
        want: LeafKind,
    },
    /// A node that is not a value (an attribute, a scan itself, the
    /// outputs) where a value must be.
    #[error("'{0}' stands where a value must be")]
    NotAValue(String),
    /// A program input the term reads but the program does not declare.
    #[error("the term reads '{0}', which is not an input")]
    UnknownInput(String),
    /// `(arg k)` outside a loop body, or beyond its parameters.
    #[error("(arg {k}) is not a parameter of the enclosing loop body ({params} parameters)")]
    Arg {
        /// The parameter read.
        k: usize,
        /// How many the body has (0 at the top level).
        params: usize,
    },
    /// A `proj` that does not name an output of a scan in its scope.
    #[error("(proj {k} ...) does not read an output of a scan")]
    Proj {
        /// The output read.
        k: i64,
    },
}

/// What one scope (the program, or a loop body) knows while it is built.
#[derive(Default)]
struct Scope {
    /// The node built for each term node bound to a name.
    bound: HashMap<usize, NodeId>,
    /// The outputs of each scan node of the scope.
    scans: HashMap<usize, Vec<NodeId>>,
    /// The body's parameters, for [`Head::Arg`] (empty at the top level).
    args: Vec<NodeId>,
    /// What each program input is here: the input itself at the top
    /// level, the parameter that captures it in a body.
    inputs: HashMap<Symbol, NodeId>,
}

/// Builds a program from a term, scope by scope.
struct Rebuild<'a> {
    nodes: &'a [TNode],
    arg_prefix: String,
    let_prefix: String,
    fresh: usize,
}

impl<'a> Rebuild<'a> {
    fn fresh_name(&mut self) -> String {
        let name = format!("{}{}", self.let_prefix, self.fresh);
        self.fresh += 1;
        name
    }

    /// Children that belong to the same scope (a scan's body outputs do not).
    fn scope_children(&self, i: usize) -> &'a [Id] {
        let node = &self.nodes[i];
        match &node.head {
            Head::Scan(sig) => &node.children[sig.n_body_results().min(node.children.len())..],
            _ => &node.children,
        }
    }

    /// Builds the scope whose results are `roots` into `b` and returns
    /// their nodes. Scans and the nodes bound to names are built in term
    /// order, each bound node with the expression it heads; the rest is
    /// built inside the expression that uses it.
    fn scope(
        &mut self,
        b: &mut Builder,
        sc: &mut Scope,
        roots: &[Id],
    ) -> Result<Vec<NodeId>, TermError> {
        let nodes = self.nodes;
        let n = nodes.len();
        let mut in_scope = vec![false; n];
        let mut uses = vec![0usize; n];
        let mut stack: Vec<usize> = roots.iter().map(|r| usize::from(*r)).collect();
        for r in roots {
            uses[usize::from(*r)] += 1;
        }
        while let Some(i) = stack.pop() {
            if in_scope[i] {
                continue;
            }
            in_scope[i] = true;
            for c in self.scope_children(i) {
                uses[usize::from(*c)] += 1;
                stack.push(usize::from(*c));
            }
        }
        let mut height = vec![0usize; n];
        for i in 0..n {
            if !in_scope[i] {
                continue;
            }
            let node = &nodes[i];
            if let Head::Scan(sig) = &node.head {
                let name = self.fresh_name();
                let outs = self.scan(b, sc, sig, &node.children)?;
                for (k, o) in outs.iter().enumerate() {
                    b.name(*o, &format!("{name}_{k}"))?;
                }
                sc.scans.insert(i, outs);
                continue;
            }
            let h = 1 + self
                .scope_children(i)
                .iter()
                .map(|c| height[usize::from(*c)])
                .max()
                .unwrap_or(0);
            // Attributes (a type with its sizes) stay where they are used.
            let leaf = node.children.is_empty() || matches!(node.head, Head::Type(_));
            // A `slogdet` result is always bound: programs write it only
            // in a destructuring `let`.
            let must_bind = matches!(node.head, Head::Op(OpKind::Slogdet));
            if !leaf
                && (uses[i] > 1 || h > MAX_INLINE || must_bind)
                && !matches!(node.head, Head::Op(OpKind::Proj))
            {
                let id = self.value(b, sc, i)?;
                b.name(id, &self.fresh_name())?;
                sc.bound.insert(i, id);
            } else {
                height[i] = h;
            }
        }
        roots
            .iter()
            .map(|r| self.value(b, sc, usize::from(*r)))
            .collect()
    }

    /// The node for term node `i` as a value: its bound node, or a new one
    /// built from its children (a literal or size leaf is a new node at
    /// each use).
    fn value(&mut self, b: &mut Builder, sc: &mut Scope, i: usize) -> Result<NodeId, TermError> {
        if let Some(id) = sc.bound.get(&i) {
            return Ok(*id);
        }
        let node = &self.nodes[i];
        match &node.head {
            Head::Lit(Lit(s)) => Ok(b.literal(*s)?),
            Head::Size(s) => Ok(b.size(s.as_str())?),
            Head::Input(s, _) => sc
                .inputs
                .get(s)
                .copied()
                .ok_or_else(|| TermError::UnknownInput(s.to_string())),
            Head::Arg(k, _) => sc.args.get(*k).copied().ok_or(TermError::Arg {
                k: *k,
                params: sc.args.len(),
            }),
            Head::Op(OpKind::Proj) => {
                let ch = &node.children;
                let k = self.int(OpKind::Proj, ch, 0)?;
                let outs = ch.get(1).and_then(|s| sc.scans.get(&usize::from(*s)));
                usize::try_from(k)
                    .ok()
                    .and_then(|k| outs.and_then(|o| o.get(k)))
                    .copied()
                    .ok_or(TermError::Proj { k })
            }
            Head::Op(name) => {
                let (op, values) = self.op(*name, &node.children)?;
                let mut args = Vec::with_capacity(values.len());
                for c in values {
                    args.push(self.value(b, sc, usize::from(c))?);
                }
                Ok(b.op(op, &args)?)
            }
            Head::Scan(_) | Head::NoneBound | Head::DType(_) | Head::Type(_) | Head::Outputs => {
                Err(TermError::NotAValue(node.to_string()))
            }
        }
    }

    /// Builds a scan node of the scope: its outer arguments, then its body
    /// in a scope of its own. Program inputs the body reads become extra
    /// non-sequences, as the parser makes closures.
    fn scan(
        &mut self,
        b: &mut Builder,
        sc: &mut Scope,
        sig: &LoopSig,
        children: &'a [Id],
    ) -> Result<Vec<NodeId>, TermError> {
        let mut clauses = sig.clone();
        let nb = sig.n_body_results().min(children.len());
        let (body_roots, outer) = children.split_at(nb);
        if nb != sig.n_body_results() || outer.len() != clauses.n_args() {
            return Err(LangError::Build {
                kind: BuildErrorKind::ScanArgs {
                    expected: sig.n_body_results() + clauses.n_args(),
                    got: children.len(),
                },
            }
            .into());
        }
        let mut args = Vec::with_capacity(outer.len());
        for c in outer {
            args.push(self.value(b, sc, usize::from(*c))?);
        }
        let captured = self.inputs_read(body_roots);
        let at = clauses.non_seq_args().end;
        for (j, s) in captured.iter().enumerate() {
            let outer_value = sc
                .inputs
                .get(s)
                .copied()
                .ok_or_else(|| TermError::UnknownInput(s.to_string()))?;
            args.insert(at + j, outer_value);
        }
        let declared = clauses.n_body_params();
        clauses.n_non_seqs += captured.len();
        b.scan(clauses, &args, |body, params| {
            let mut inner = Scope {
                args: params[..declared].to_vec(),
                ..Scope::default()
            };
            for (k, p) in inner.args.iter().enumerate() {
                body.name(*p, &format!("{}{k}", self.arg_prefix))?;
            }
            for (s, p) in captured.iter().zip(&params[declared..]) {
                body.name(*p, s.as_str())?;
                inner.inputs.insert(*s, *p);
            }
            self.scope(body, &mut inner, body_roots)
        })
    }

    /// The program inputs read under `roots`, nested bodies included, in
    /// term order.
    fn inputs_read(&self, roots: &[Id]) -> Vec<Symbol> {
        let mut seen = vec![false; self.nodes.len()];
        let mut stack: Vec<usize> = roots.iter().map(|r| usize::from(*r)).collect();
        let mut found = BTreeMap::new();
        while let Some(i) = stack.pop() {
            if std::mem::replace(&mut seen[i], true) {
                continue;
            }
            let node = &self.nodes[i];
            if let Head::Input(s, _) = &node.head {
                found.entry(*s).or_insert(i);
            }
            stack.extend(node.children.iter().map(|c| usize::from(*c)));
        }
        let mut by_position: Vec<(usize, Symbol)> =
            found.into_iter().map(|(s, i)| (i, s)).collect();
        by_position.sort();
        by_position.into_iter().map(|(_, s)| s).collect()
    }

    /// The language op an op node stands for, its attributes read from its
    /// leaf children as the op table lays them out, and its value children
    /// in order (the inverse of [`program_to_expr`]).
    fn op(&self, kind: OpKind, ch: &[Id]) -> Result<(Op, Vec<Id>), TermError> {
        if kind == OpKind::Proj {
            // A projection reads a scan of the scope (see `value`).
            return Err(TermError::Proj { k: -1 });
        }
        let spans =
            kind.spans(Form::Term, ch.len())
                .ok_or(attr(kind, ch.len(), LeafKind::Literal))?;
        let mut attrs = Vec::new();
        let mut values = Vec::new();
        for (slot, at) in kind.layout().iter().zip(spans) {
            match slot {
                Slot::Attr(a) => attrs.push(self.attr_value(kind, *a, ch, at)?),
                Slot::Arg | Slot::Args => values.extend_from_slice(&ch[at]),
            }
        }
        let op = Op::from_parts(kind, attrs).ok_or(attr(kind, 0, LeafKind::Literal))?;
        Ok((op, values))
    }

    /// The attribute of kind `a` held by children `at` of an op node.
    fn attr_value(
        &self,
        kind: OpKind,
        a: AttrKind,
        ch: &[Id],
        at: std::ops::Range<usize>,
    ) -> Result<AttrValue, TermError> {
        let first = at.start;
        Ok(match a {
            AttrKind::Axis | AttrKind::AxisOrZero | AttrKind::Step | AttrKind::Output => {
                AttrValue::Int(self.int(kind, ch, first)?)
            }
            AttrKind::OptAxis => AttrValue::OptInt(match at.len() {
                0 => None,
                _ => Some(self.int(kind, ch, first)?),
            }),
            AttrKind::Start | AttrKind::Stop => AttrValue::OptInt(self.bound(kind, ch, first)?),
            AttrKind::Perm => AttrValue::Ints(
                at.map(|k| self.int(kind, ch, k))
                    .collect::<Result<Vec<_>, _>>()?,
            ),
            AttrKind::Sizes => AttrValue::Sizes(
                at.map(|k| self.dim(kind, ch, k, true))
                    .collect::<Result<Vec<_>, _>>()?,
            ),
            AttrKind::Type => AttrValue::Type(self.ty(kind, ch, first)?),
            AttrKind::DType => match self.child(ch, first).map(|n| &n.head) {
                Some(Head::DType(d)) => AttrValue::DType(*d),
                _ => return Err(attr(kind, first, LeafKind::DType)),
            },
            AttrKind::Size => AttrValue::Size(self.dim(kind, ch, first, false)?),
            AttrKind::Flag => match self.lit(kind, ch, first, LeafKind::Flag)? {
                Scalar::Bool(b) => AttrValue::Bool(b),
                _ => return Err(attr(kind, first, LeafKind::Flag)),
            },
            AttrKind::Literals => AttrValue::Literals(
                at.map(|k| self.lit(kind, ch, k, LeafKind::Literal))
                    .collect::<Result<Vec<_>, _>>()?,
            ),
        })
    }

    fn child(&self, ch: &[Id], k: usize) -> Option<&'a TNode> {
        let nodes = self.nodes;
        ch.get(k).and_then(|c| nodes.get(usize::from(*c)))
    }

    fn lit(&self, name: OpKind, ch: &[Id], k: usize, want: LeafKind) -> Result<Scalar, TermError> {
        match self.child(ch, k) {
            Some(TNode {
                head: Head::Lit(Lit(s)),
                children,
            }) if children.is_empty() => Ok(*s),
            _ => Err(attr(name, k, want)),
        }
    }

    fn int(&self, name: OpKind, ch: &[Id], k: usize) -> Result<i64, TermError> {
        match self.lit(name, ch, k, LeafKind::Integer)? {
            Scalar::I64(v) => Ok(v),
            _ => Err(attr(name, k, LeafKind::Integer)),
        }
    }

    fn bound(&self, name: OpKind, ch: &[Id], k: usize) -> Result<Option<i64>, TermError> {
        match self.child(ch, k).map(|n| &n.head) {
            Some(Head::NoneBound) => Ok(None),
            Some(Head::Lit(Lit(Scalar::I64(v)))) => Ok(Some(*v)),
            _ => Err(attr(name, k, LeafKind::Bound)),
        }
    }

    /// A size attribute; `-1` only where a reshape infers it.
    fn dim(&self, name: OpKind, ch: &[Id], k: usize, reshape: bool) -> Result<Dim, TermError> {
        match self.child(ch, k).map(|n| &n.head) {
            Some(Head::Lit(Lit(Scalar::I64(v)))) if *v >= 0 || (reshape && *v == -1) => {
                Ok(Dim::known(*v))
            }
            Some(Head::Size(s)) => Ok(Dim::sym(s.as_str())),
            _ => Err(attr(name, k, LeafKind::Size)),
        }
    }

    fn ty(&self, name: OpKind, ch: &[Id], k: usize) -> Result<Type, TermError> {
        match self.child(ch, k) {
            Some(TNode {
                head: Head::Type(d),
                children,
            }) => {
                let shape = (0..children.len())
                    .map(|j| self.dim(name, children, j, false))
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|_| attr(name, k, LeafKind::Type))?;
                Ok(Type::new(*d, shape))
            }
            _ => Err(attr(name, k, LeafKind::Type)),
        }
    }
}

fn attr(name: OpKind, child: usize, want: LeafKind) -> TermError {
    TermError::Attribute {
        op: name.name(),
        child,
        want,
    }
}

/// A name prefix no input name and no size symbol starts with.
fn free_prefix(base: &str, taken: &BTreeSet<String>) -> String {
    let mut p = format!("_{base}");
    while taken.iter().any(|n| n.starts_with(&p)) {
        p.insert(0, '_');
    }
    p
}

/// Converts the term `expr` (root: [`Head::Outputs`], or a single value)
/// back to a program named `name` whose parameters are `inputs`, building
/// it with [`Builder`], which type-checks every node as the parser does:
/// an extracted program is well typed, or the conversion fails.
///
/// The program is named as the optimizer has always printed it: in each
/// scope (the program, a loop body), a node used more than once, or whose
/// expression is taller than 40, is bound to `_v0`, `_v1`, ... in term
/// order (numbered across scopes), every scan's outputs to `_vK_0`,
/// `_vK_1`, ..., a body's parameters to `_a0`, `_a1`, ... (the prefixes
/// are lengthened with `_` until no input or size starts with them);
/// literals and sizes are new nodes at each use, and the rest is written
/// inline where it is used. A program input that a loop body reads
/// becomes an extra non-sequence of that loop, as closures do in program
/// text.
pub fn expr_to_program(
    name: &str,
    inputs: &[(String, Type)],
    expr: &RecExpr<TNode>,
) -> Result<Program, TermError> {
    let nodes = expr.as_ref();
    let mut taken: BTreeSet<String> = inputs.iter().map(|(n, _)| n.clone()).collect();
    let types = inputs.iter().map(|(_, t)| t);
    for t in types {
        for d in &t.shape {
            taken.extend(d.symbols().map(str::to_string));
        }
    }
    for n in nodes {
        if let Head::Size(s) = &n.head {
            taken.insert(s.to_string());
        }
    }
    let mut rebuild = Rebuild {
        nodes,
        arg_prefix: free_prefix("a", &taken),
        let_prefix: free_prefix("v", &taken),
        fresh: 0,
    };
    let mut b = Builder::new(name);
    let mut top = Scope::default();
    for (n, t) in inputs {
        let id = b.input(n, t.clone())?;
        top.inputs.insert(Symbol::from(n.as_str()), id);
    }
    let roots = match nodes.last() {
        Some(TNode {
            head: Head::Outputs,
            children,
        }) => children.clone(),
        Some(_) => vec![Id::from(nodes.len() - 1)],
        None => Vec::new(),
    };
    let outs = rebuild.scope(&mut b, &mut top, &roots)?;
    Ok(b.finish(&outs)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::egraph::term::program_to_expr;
    use crate::lang::{parse_program, print_program};

    fn round_trip(src: &str) -> (Program, Program) {
        let p = parse_program(src).unwrap();
        let e = program_to_expr(&p).unwrap();
        let inputs: Vec<(String, Type)> = p
            .inputs()
            .map(|(n, t)| (n.to_string(), t.clone()))
            .collect();
        let q = expr_to_program(&p.name, &inputs, &e).unwrap_or_else(|err| panic!("{err}\n{e}"));
        (p, q)
    }

    #[test]
    fn a_term_converts_back_to_an_equivalent_program() {
        let (p, q) = round_trip(
            "(program p (input X (f64 T 4)) (input w (f64 4))
               (let (A B) (scan (sequences (X (taps -1 0))) (outputs_info (sitsot w) (nitsot))
                  (non_sequences w)
                  (fn (a b h v) (let s (add h (mul a v))) (outputs s (sum (slice b none none -1))))))
               (output (index A -1) B (transpose (reshape X 2 T 2) 1 0 2) (cast i64 (zeros (f64 2)))))",
        );
        // Same scan structure; names differ, so compare through a second trip.
        assert_eq!(p.count_scans(), q.count_scans());
        let e1 = program_to_expr(&q).unwrap();
        let inputs: Vec<(String, Type)> = q
            .inputs()
            .map(|(n, t)| (n.to_string(), t.clone()))
            .collect();
        let q2 = expr_to_program(&q.name, &inputs, &e1).unwrap();
        assert_eq!(print_program(&q), print_program(&q2));
    }

    fn back(p: &Program) -> Result<Program, TermError> {
        let e = program_to_expr(p).unwrap();
        let inputs: Vec<(String, Type)> = p
            .inputs()
            .map(|(n, t)| (n.to_string(), t.clone()))
            .collect();
        expr_to_program(&p.name, &inputs, &e)
    }

    #[test]
    fn shared_and_loop_values_get_the_optimizers_names() {
        let p = parse_program(
            "(program p (input X (f64 T 3)) (input w (f64 3))
               (let y (mul X w))
               (let (H) (scan (sequences y) (outputs_info (sitsot w)) (fn (a h) (add h (exp a)))))
               (output (add y y) H))",
        )
        .unwrap();
        let q = back(&p).unwrap();
        assert_eq!(
            print_program(&q),
            "(program p
  (input X (f64 T 3))
  (input w (f64 3))
  (let _v0 (mul X w))
  (let _v1_0 (scan
    (sequences _v0)
    (outputs_info (sitsot w))
    (fn (_a0 _a1)
      (add _a1 (exp _a0)))))
  (output (add _v0 _v0) _v1_0))
"
        );
        // The printed form parses back to the very same program.
        assert_eq!(parse_program(&print_program(&q)).unwrap(), q);
    }

    #[test]
    fn tall_expressions_are_bound_and_prefixes_avoid_names_in_use() {
        let mut text = String::from("x");
        for _ in 0..45 {
            text = format!("(neg {text})");
        }
        let p = parse_program(&format!(
            "(program p (input x (f64 _aN)) (input _v1 (f64 _aN)) (output (add {text} _v1)))"
        ))
        .unwrap();
        let q = back(&p).unwrap();
        let printed = print_program(&q);
        // The node at height 41 (40 negs and x) is bound; inputs and the
        // size own `_v` and `_a`, so the prefix is `__v`.
        assert_eq!(printed.matches("(let ").count(), 1, "{printed}");
        let bound = format!("(let __v0 {})", &text[5 * 5..text.len() - 5]);
        assert!(printed.contains(&bound), "{printed}");
        assert!(
            printed.contains("(output (add (neg (neg (neg (neg (neg __v0))))) _v1))"),
            "{printed}"
        );
        assert_eq!(parse_program(&printed).unwrap(), q);
    }

    fn f64_of(dims: &[Dim]) -> Type {
        Type::new(crate::lang::DType::F64, dims.to_vec())
    }

    #[test]
    fn an_input_read_in_a_body_becomes_a_non_sequence() {
        let xt = f64_of(&[Dim::sym("T"), Dim::known(3)]);
        let wt = f64_of(&[Dim::known(3)]);
        let mut e: RecExpr<TNode> = RecExpr::default();
        let x = e.add(TNode::leaf(Head::Input(Symbol::from("X"), xt.clone())));
        let a0 = e.add(TNode::leaf(Head::Arg(0, wt.clone())));
        let w = e.add(TNode::leaf(Head::Input(Symbol::from("w"), wt.clone())));
        let mul = e.add(TNode {
            head: Head::Op(OpKind::Binary(crate::lang::BinaryOp::Mul)),
            children: vec![a0, w],
        });
        let sig = LoopSig {
            sequences: vec![vec![0]],
            outputs: vec![crate::lang::OutputInfo::Nitsot],
            n_non_seqs: 0,
            has_n_steps: false,
            go_backwards: false,
            keep: Vec::new(),
            until: false,
            as_list: Vec::new(),
        };
        let scan = e.add(TNode {
            head: Head::Scan(sig),
            children: vec![mul, x],
        });
        let k = e.add(TNode::lit(Scalar::I64(0)));
        let proj = e.add(TNode {
            head: Head::Op(OpKind::Proj),
            children: vec![k, scan],
        });
        e.add(TNode {
            head: Head::Outputs,
            children: vec![proj],
        });
        let inputs = vec![("X".to_string(), xt), ("w".to_string(), wt)];
        let q = expr_to_program("p", &inputs, &e).unwrap();
        assert_eq!(
            print_program(&q),
            "(program p
  (input X (f64 T 3))
  (input w (f64 3))
  (let _v0_0 (scan
    (sequences X)
    (non_sequences w)
    (fn (_a0 w)
      (mul _a0 w))))
  (output _v0_0))
"
        );
        assert_eq!(parse_program(&print_program(&q)).unwrap(), q);
        // Without `w` among the inputs, the term reads an unknown input.
        assert_eq!(
            expr_to_program("p", &inputs[..1], &e).unwrap_err(),
            TermError::UnknownInput("w".into())
        );
    }

    /// A term `(OP X CHILD)` over the input `X` of type `f64(3, 2)`, the
    /// child given by `leaf`.
    fn with_child(op: OpKind, leaf: Head) -> Result<Program, TermError> {
        let xt = f64_of(&[Dim::known(3), Dim::known(2)]);
        let mut e: RecExpr<TNode> = RecExpr::default();
        let x = e.add(TNode::leaf(Head::Input(Symbol::from("X"), xt.clone())));
        let c = e.add(TNode::leaf(leaf));
        e.add(TNode {
            head: Head::Op(op),
            children: vec![x, c],
        });
        expr_to_program("p", &[("X".to_string(), xt)], &e)
    }

    #[test]
    fn a_term_that_is_no_program_says_why() {
        let sum = OpKind::Reduce(crate::lang::ReduceOp::Sum);
        assert_eq!(
            print_program(&with_child(sum, Head::Lit(Lit(Scalar::I64(1)))).unwrap()),
            "(program p\n  (input X (f64 3 2))\n  (output (sum X 1)))\n"
        );
        assert_eq!(
            with_child(sum, Head::Lit(Lit(Scalar::F64(1.0)))).unwrap_err(),
            TermError::Attribute {
                op: "sum",
                child: 1,
                want: LeafKind::Integer
            }
        );
        // A type error is the parser's sentence.
        let e = with_child(sum, Head::Lit(Lit(Scalar::I64(2)))).unwrap_err();
        assert!(matches!(&e, TermError::Lang(LangError::Type { op, .. }) if op == "sum"));
        assert_eq!(
            e.to_string(),
            parse_program("(program p (input X (f64 3 2)) (output (sum X 2)))")
                .unwrap_err()
                .to_string()
        );
        let add = OpKind::Binary(crate::lang::BinaryOp::Add);
        assert_eq!(
            with_child(add, Head::Arg(0, f64_of(&[]))).unwrap_err(),
            TermError::Arg { k: 0, params: 0 }
        );
        assert_eq!(
            with_child(add, Head::NoneBound).unwrap_err(),
            TermError::NotAValue("none".into())
        );
        assert_eq!(
            with_child(OpKind::Proj, Head::Lit(Lit(Scalar::I64(0)))).unwrap_err(),
            TermError::Attribute {
                op: "proj",
                child: 0,
                want: LeafKind::Integer
            }
        );
    }
}
