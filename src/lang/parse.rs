//! Parsing programs: s-expressions to a typed [`Program`].
//!
//! Owns: the meaning of every clause of SPEC §1 — inputs, `let`,
//! destructuring `let`, `output`, every op, `scan` with all its clauses,
//! closures (outer names used in a `fn` become non-sequences), and the loop
//! combinators (`map`, `reduce`, `foldl`, `scanl`, `foldr`, `scanr`), which
//! are lowered to `scan` here. Every node is type checked when it is built
//! ([`super::infer::infer`]; scans here), so a wrong program is rejected
//! with the op, the shapes and the position before anything runs.
//! Must not: print, optimize or run.

use super::dtype::DType;
use super::error::LangError;
use super::infer::infer;
use super::loop_sig::{LoopSig, TapWindow, MAX_TAP};
use super::loop_type::{self, LoopPart, LoopTypeError};
use super::op::{Op, Scalar};
use super::op_table::{AttrKind, AttrValue, Form, OpKind, Slot};
use super::program::{Graph, Node, NodeId, OutputInfo, Program, Scan, SharedVars, Span};
use super::sexp::{decode, read_all, Sexp};
use super::shape::{Dim, Type};
use std::collections::{BTreeSet, HashMap};

/// Parses program text.
pub fn parse_program(text: &str) -> Result<Program, LangError> {
    let items = read_all(text, ';')?;
    let mut iter = items.into_iter();
    let Some(first) = iter.next() else {
        return Err(LangError::Empty);
    };
    if let Some(extra) = iter.next() {
        return Err(syntax(
            extra.span(),
            "a file holds one program; this is after its closing ')'",
        ));
    }
    Parser::new().program(&first)
}

/// Parses a program file's bytes (checks UTF-8 first).
pub fn parse_program_bytes(bytes: &[u8]) -> Result<Program, LangError> {
    parse_program(decode(bytes)?)
}

fn syntax(span: Span, msg: impl Into<String>) -> LangError {
    LangError::Syntax {
        span,
        msg: msg.into(),
    }
}

fn arity(span: Span, op: &str, expected: &str, got: usize) -> LangError {
    LangError::Arity {
        span,
        op: op.to_string(),
        expected: expected.to_string(),
        got,
    }
}

fn loop_err(span: Span, op: &str, reason: LoopTypeError) -> LangError {
    LangError::Loop {
        span,
        op: op.to_string(),
        reason: Box::new(reason),
    }
}

fn type_err(span: Span, op: &str, msg: impl Into<String>) -> LangError {
    LangError::Type {
        span,
        op: op.to_string(),
        msg: msg.into(),
    }
}

/// A literal atom, if `s` is one: integers, floats (with `.` or an
/// exponent, or `inf`/`nan`), `true`/`false`.
pub fn parse_literal(s: &str) -> Option<Result<Scalar, String>> {
    match s {
        "true" => return Some(Ok(Scalar::Bool(true))),
        "false" => return Some(Ok(Scalar::Bool(false))),
        "inf" | "+inf" => return Some(Ok(Scalar::F64(f64::INFINITY))),
        "-inf" => return Some(Ok(Scalar::F64(f64::NEG_INFINITY))),
        "nan" => return Some(Ok(Scalar::F64(f64::NAN))),
        _ => {}
    }
    let body = s.strip_prefix(['-', '+']).unwrap_or(s);
    let first = body.chars().next()?;
    if !(first.is_ascii_digit() || (first == '.' && body.len() > 1)) {
        return None;
    }
    if body.bytes().all(|b| b.is_ascii_digit()) {
        return Some(
            s.parse::<i64>()
                .map(Scalar::I64)
                .map_err(|_| format!("integer literal '{s}' does not fit in i64")),
        );
    }
    Some(
        s.parse::<f64>()
            .map(Scalar::F64)
            .map_err(|_| format!("'{s}' is not a number")),
    )
}

/// One scope being built: the top level, or a `fn` body.
struct Frame {
    graph: Graph,
    names: HashMap<String, (NodeId, Span)>,
    /// Outer names used in this `fn`: (value in the parent frame, the
    /// parameter standing for it here).
    captures: Vec<(NodeId, NodeId)>,
}

impl Frame {
    fn new() -> Frame {
        Frame {
            graph: Graph::default(),
            names: HashMap::new(),
            captures: Vec::new(),
        }
    }
}

struct Parser {
    frames: Vec<Frame>,
    /// Names known to be symbolic sizes.
    sizes: BTreeSet<String>,
}

/// What a `fn` clause produced: its graph and the outer values its
/// closures captured (extra non-sequences, in order).
struct Body {
    graph: Graph,
    captured: Vec<NodeId>,
}

impl Parser {
    fn new() -> Parser {
        Parser {
            frames: vec![Frame::new()],
            sizes: BTreeSet::new(),
        }
    }

    fn frame(&mut self) -> &mut Frame {
        let last = self.frames.len() - 1;
        &mut self.frames[last]
    }

    fn graph(&self) -> &Graph {
        &self.frames[self.frames.len() - 1].graph
    }

    fn ty(&self, id: NodeId) -> &Type {
        self.graph().node(id).ty()
    }

    // ------------------------------------------------------------ program

    fn program(&mut self, s: &Sexp) -> Result<Program, LangError> {
        let items = match s {
            Sexp::List(items, _) if s.head() == Some("program") => items,
            _ => return Err(syntax(s.span(), "expected (program NAME ...)")),
        };
        let name = match items.get(1).and_then(|n| n.atom()) {
            Some(n) => n.to_string(),
            None => return Err(syntax(s.span(), "expected a name after 'program'")),
        };
        let mut outputs = None;
        let mut seen_let = false;
        // Shared variables: (name, type, where declared).
        let mut shared: Vec<(String, Type, Span)> = Vec::new();
        // Updates: (shared index, value) in the order written.
        let mut updates: Vec<(usize, NodeId)> = Vec::new();
        for item in &items[2..] {
            let span = item.span();
            let parts = item.list().ok_or_else(|| {
                syntax(
                    span,
                    "expected (input ...), (shared ...), (let ...), (update ...) or (output ...)",
                )
            })?;
            match item.head() {
                Some(kw @ ("input" | "shared")) => {
                    if seen_let {
                        return Err(syntax(
                            span,
                            format!(
                                "{} must come before the first let",
                                if kw == "input" {
                                    "inputs"
                                } else {
                                    "shared variables"
                                }
                            ),
                        ));
                    }
                    if kw == "input" && !shared.is_empty() {
                        return Err(syntax(span, "inputs must come before the shared variables"));
                    }
                    if parts.len() != 3 {
                        return Err(arity(span, kw, "a name and a type", parts.len() - 1));
                    }
                    let name = self.binder_name(&parts[1])?;
                    let ty = self.parse_type(&parts[2])?;
                    let k = self.graph().n_params;
                    let id = self.push(
                        Op::Input(k),
                        vec![],
                        vec![ty.clone()],
                        Some(name.clone()),
                        parts[1].span(),
                    );
                    self.frame().graph.n_params += 1;
                    self.bind(&name, id, parts[1].span())?;
                    if kw == "shared" {
                        shared.push((name, ty, parts[1].span()));
                    }
                }
                Some("let") => {
                    seen_let = true;
                    self.let_clause(item)?;
                }
                Some("update") => {
                    seen_let = true;
                    if parts.len() != 3 {
                        return Err(arity(
                            span,
                            "update",
                            "a shared variable and an expression",
                            parts.len() - 1,
                        ));
                    }
                    let name = parts[1]
                        .atom()
                        .ok_or_else(|| syntax(parts[1].span(), "expected a shared variable"))?;
                    let Some(j) = shared.iter().position(|(n, _, _)| n == name) else {
                        return Err(syntax(
                            parts[1].span(),
                            format!("'{name}' is not a shared variable"),
                        ));
                    };
                    if updates.iter().any(|(k, _)| *k == j) {
                        return Err(syntax(
                            parts[1].span(),
                            format!("'{name}' is updated twice"),
                        ));
                    }
                    let id = self.expr(&parts[2])?;
                    let (vt, st) = (self.ty(id).clone(), &shared[j].1);
                    if !loop_type::update_fits_state(&vt, st) {
                        return Err(type_err(
                            parts[2].span(),
                            "update",
                            format!(
                                "the new value of '{name}' has type {vt}, the variable has type {st}"
                            ),
                        ));
                    }
                    updates.push((j, id));
                }
                Some("output") => {
                    if outputs.is_some() {
                        return Err(syntax(span, "a program has one (output ...) clause"));
                    }
                    if parts.len() < 2 {
                        return Err(arity(span, "output", "1 or more expressions", 0));
                    }
                    let mut outs = Vec::new();
                    for e in &parts[1..] {
                        outs.push(self.expr(e)?);
                    }
                    outputs = Some(outs);
                }
                _ => return Err(syntax(
                    span,
                    "expected (input ...), (shared ...), (let ...), (update ...) or (output ...)",
                )),
            }
        }
        let Some(mut outputs) = outputs else {
            return Err(syntax(s.span(), "the program has no (output ...) clause"));
        };
        outputs.extend(updates.iter().map(|(_, id)| *id));
        let mut frame = self.frames.pop().unwrap_or_else(Frame::new);
        frame.graph.outputs = outputs;
        Ok(Program {
            name,
            graph: frame.graph,
            shared: SharedVars {
                count: shared.len(),
                updates: updates.into_iter().map(|(j, _)| j).collect(),
            },
        })
    }

    fn binder_name(&self, s: &Sexp) -> Result<String, LangError> {
        match s.atom() {
            Some(a) if is_identifier(a) => {
                if self.sizes.contains(a) {
                    return Err(syntax(
                        s.span(),
                        format!("'{a}' is a symbolic size; it cannot be bound as a name"),
                    ));
                }
                Ok(a.to_string())
            }
            _ => Err(syntax(s.span(), "expected a name")),
        }
    }

    fn bind(&mut self, name: &str, id: NodeId, span: Span) -> Result<(), LangError> {
        if let Some((_, first)) = self.frame().names.get(name) {
            return Err(LangError::Rebound {
                span,
                name: name.to_string(),
                first: *first,
            });
        }
        self.frame().names.insert(name.to_string(), (id, span));
        Ok(())
    }

    fn let_clause(&mut self, item: &Sexp) -> Result<(), LangError> {
        let span = item.span();
        let parts = item.list().unwrap_or(&[]);
        if parts.len() != 3 {
            return Err(arity(
                span,
                "let",
                "a name and an expression",
                parts.len().saturating_sub(1),
            ));
        }
        match &parts[1] {
            Sexp::Atom(..) => {
                let name = self.binder_name(&parts[1])?;
                let id = self.expr(&parts[2])?;
                let node = &mut self.frame().graph.nodes[id.0];
                if node.name.is_none() && !matches!(node.op, Op::Input(_)) {
                    node.name = Some(name.clone());
                }
                self.bind(&name, id, parts[1].span())
            }
            Sexp::List(names, nspan) => {
                if names.is_empty() {
                    return Err(syntax(*nspan, "expected one or more names"));
                }
                let names: Vec<(String, Span)> = names
                    .iter()
                    .map(|n| Ok((self.binder_name(n)?, n.span())))
                    .collect::<Result<_, LangError>>()?;
                let ids = self.expr_multi(&parts[2])?;
                if ids.len() != names.len() {
                    return Err(syntax(
                        *nspan,
                        format!(
                            "{} names for an expression with {} results",
                            names.len(),
                            ids.len()
                        ),
                    ));
                }
                for ((name, nspan), id) in names.into_iter().zip(ids) {
                    let node = &mut self.frame().graph.nodes[id.0];
                    if node.name.is_none() {
                        node.name = Some(name.clone());
                    }
                    self.bind(&name, id, nspan)?;
                }
                Ok(())
            }
        }
    }

    // ------------------------------------------------------------ types

    fn parse_dim(&mut self, s: &Sexp) -> Result<Dim, LangError> {
        match s.atom() {
            Some(a) => match parse_literal(a) {
                Some(Ok(Scalar::I64(n))) if n >= 0 => Ok(Dim::known(n)),
                Some(_) => Err(syntax(
                    s.span(),
                    format!("'{a}' is not a size: expected a non-negative integer or a symbol"),
                )),
                None if is_identifier(a) => {
                    self.declare_size(a, s.span())?;
                    Ok(Dim::sym(a))
                }
                None => Err(syntax(s.span(), format!("'{a}' is not a size"))),
            },
            None => Err(syntax(s.span(), "expected a size")),
        }
    }

    fn declare_size(&mut self, name: &str, span: Span) -> Result<(), LangError> {
        if self.frames.iter().any(|f| f.names.contains_key(name)) {
            return Err(syntax(
                span,
                format!("'{name}' is a bound name; it cannot also be a symbolic size"),
            ));
        }
        self.sizes.insert(name.to_string());
        Ok(())
    }

    fn parse_dtype(s: &Sexp) -> Result<DType, LangError> {
        s.atom()
            .and_then(DType::from_name)
            .ok_or_else(|| syntax(s.span(), "expected a dtype: f64, f32, i64 or bool"))
    }

    fn parse_type(&mut self, s: &Sexp) -> Result<Type, LangError> {
        let parts = s
            .list()
            .filter(|p| !p.is_empty())
            .ok_or_else(|| syntax(s.span(), "expected a type (DTYPE DIM ...)"))?;
        let dtype = Self::parse_dtype(&parts[0])?;
        let shape = parts[1..]
            .iter()
            .map(|d| self.parse_dim(d))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Type::new(dtype, shape))
    }

    fn int_param(s: &Sexp, what: &str) -> Result<i64, LangError> {
        match s.atom().and_then(parse_literal) {
            Some(Ok(Scalar::I64(n))) => Ok(n),
            _ => Err(syntax(s.span(), format!("expected an integer {what}"))),
        }
    }

    fn opt_int_param(s: &Sexp, what: &str) -> Result<Option<i64>, LangError> {
        if s.atom() == Some("none") {
            return Ok(None);
        }
        Self::int_param(s, &format!("{what} or none")).map(Some)
    }

    // ------------------------------------------------------------ nodes

    fn push(
        &mut self,
        op: Op,
        args: Vec<NodeId>,
        ty: Vec<Type>,
        name: Option<String>,
        span: Span,
    ) -> NodeId {
        self.frame().graph.push(Node { op, args, ty, name }, span)
    }

    /// Builds a node after the make_node check of its op.
    fn make(&mut self, op: Op, args: Vec<NodeId>, span: Span) -> Result<NodeId, LangError> {
        let tys: Vec<&Type> = args.iter().map(|&a| self.ty(a)).collect();
        let consts: Vec<Option<Scalar>> = args
            .iter()
            .map(|&a| match self.graph().node(a).op {
                Op::Literal(s) => Some(s),
                _ => None,
            })
            .collect();
        let ty = infer(&op, &tys, &consts).map_err(|msg| type_err(span, op.name(), msg))?;
        Ok(self.push(op, args, vec![ty], None, span))
    }

    fn resolve(&mut self, name: &str, level: usize, span: Span) -> Option<NodeId> {
        if let Some((id, _)) = self.frames[level].names.get(name) {
            return Some(*id);
        }
        if level == 0 {
            return None;
        }
        let outer = self.resolve(name, level - 1, span)?;
        let ty = self.frames[level - 1]
            .graph
            .node(outer)
            .ty()
            .clone()
            .strong();
        let frame = &mut self.frames[level];
        let id = frame.graph.push(
            Node {
                op: Op::Input(usize::MAX),
                args: vec![],
                ty: vec![ty],
                name: Some(name.to_string()),
            },
            span,
        );
        frame.captures.push((outer, id));
        frame.names.insert(name.to_string(), (id, span));
        Some(id)
    }

    fn atom_expr(&mut self, a: &str, span: Span) -> Result<NodeId, LangError> {
        if let Some(lit) = parse_literal(a) {
            let lit = lit.map_err(|m| syntax(span, m))?;
            return self.make(Op::Literal(lit), vec![], span);
        }
        let level = self.frames.len() - 1;
        if let Some(id) = self.resolve(a, level, span) {
            return Ok(id);
        }
        if self.sizes.contains(a) {
            return self.make(Op::Size(a.to_string()), vec![], span);
        }
        if a == "none" {
            return Err(syntax(span, "'none' is only allowed as a slice bound"));
        }
        Err(LangError::Unbound {
            span,
            name: a.to_string(),
        })
    }

    /// An expression with exactly one result.
    fn expr(&mut self, s: &Sexp) -> Result<NodeId, LangError> {
        let ids = self.expr_multi(s)?;
        if ids.len() != 1 {
            return Err(syntax(
                s.span(),
                format!(
                    "this scan has {} outputs; bind them with (let (A B ...) (scan ...))",
                    ids.len()
                ),
            ));
        }
        Ok(ids[0])
    }

    fn exprs(&mut self, items: &[Sexp]) -> Result<Vec<NodeId>, LangError> {
        items.iter().map(|e| self.expr(e)).collect()
    }

    /// An expression that may have several results (a scan).
    fn expr_multi(&mut self, s: &Sexp) -> Result<Vec<NodeId>, LangError> {
        let span = s.span();
        let items = match s {
            Sexp::Atom(a, _) => return Ok(vec![self.atom_expr(a, span)?]),
            Sexp::List(items, _) => items,
        };
        let Some(head) = items.first() else {
            return Err(syntax(span, "empty expression ()"));
        };
        let Some(op) = head.atom() else {
            return Err(syntax(head.span(), "expected an op name here"));
        };
        let rest = &items[1..];
        if let Some(kind) = OpKind::from_name(op).filter(|k| k.in_programs()) {
            return Ok(vec![self.op_node(kind, rest, span)?]);
        }
        match op {
            "scan" => self.scan(s),
            "map" => self.map(s),
            "reduce" | "foldl" | "scanl" | "foldr" | "scanr" => Ok(vec![self.fold(s, op)?]),
            _ => Err(LangError::UnknownOp {
                span: head.span(),
                name: op.to_string(),
            }),
        }
    }

    /// `(OP OPERAND ...)` for an op of the op table: the operands are
    /// matched to the op's layout, attributes read first (in order), then
    /// the value arguments.
    fn op_node(&mut self, kind: OpKind, rest: &[Sexp], span: Span) -> Result<NodeId, LangError> {
        let Some(spans) = kind.spans(Form::Text, rest.len()) else {
            return Err(arity(span, kind.name(), &kind.expected(), rest.len()));
        };
        let mut attrs = Vec::new();
        for (slot, at) in kind.layout().iter().zip(&spans) {
            if let Slot::Attr(a) = slot {
                attrs.push(self.attr(*a, &rest[at.clone()], span)?);
            }
        }
        let mut args = Vec::new();
        for (slot, at) in kind.layout().iter().zip(&spans) {
            if !matches!(slot, Slot::Attr(_)) {
                args.extend(self.exprs(&rest[at.clone()])?);
            }
        }
        let op = Op::from_parts(kind, attrs).ok_or_else(|| {
            type_err(
                span,
                kind.name(),
                "internal: the attributes do not fit the op",
            )
        })?;
        self.make(op, args, span)
    }

    /// An attribute of kind `kind` written as `items` (as many as the op's
    /// layout gives it) in the op at `span`.
    fn attr(&mut self, kind: AttrKind, items: &[Sexp], span: Span) -> Result<AttrValue, LangError> {
        let one = || {
            items
                .first()
                .ok_or_else(|| syntax(span, "missing attribute"))
        };
        Ok(match kind {
            AttrKind::Axis => AttrValue::Int(Self::int_param(one()?, "axis")?),
            AttrKind::Output => AttrValue::Int(Self::int_param(one()?, "output index")?),
            AttrKind::OptAxis => AttrValue::OptInt(match items.first() {
                Some(a) => Some(Self::int_param(a, "axis")?),
                None => None,
            }),
            AttrKind::AxisOrZero => AttrValue::Int(match items.first() {
                Some(a) => Self::int_param(a, "axis")?,
                None => 0,
            }),
            AttrKind::Perm => AttrValue::Ints(
                items
                    .iter()
                    .map(|a| Self::int_param(a, "axis"))
                    .collect::<Result<Vec<_>, _>>()?,
            ),
            AttrKind::Sizes => {
                let mut dims = Vec::new();
                for d in items {
                    dims.push(match d.atom().and_then(parse_literal) {
                        Some(Ok(Scalar::I64(-1))) => Dim::known(-1),
                        _ => self.parse_dim(d)?,
                    });
                }
                AttrValue::Sizes(dims)
            }
            AttrKind::Start => AttrValue::OptInt(Self::opt_int_param(one()?, "start")?),
            AttrKind::Stop => AttrValue::OptInt(Self::opt_int_param(one()?, "stop")?),
            AttrKind::Step => AttrValue::Int(match items.first() {
                Some(s) => Self::opt_int_param(s, "step")?.unwrap_or(1),
                None => 1,
            }),
            AttrKind::Type => AttrValue::Type(self.parse_type(one()?)?),
            AttrKind::DType => AttrValue::DType(Self::parse_dtype(one()?)?),
            AttrKind::Size => AttrValue::Size(self.parse_dim(one()?)?),
            AttrKind::Literals => {
                let mut vals = Vec::new();
                for v in items {
                    match v.atom().and_then(parse_literal) {
                        Some(Ok(s)) => vals.push(s),
                        Some(Err(m)) => return Err(syntax(v.span(), m)),
                        None => return Err(syntax(v.span(), "expected a number literal")),
                    }
                }
                AttrValue::Literals(vals)
            }
        })
    }

    // ------------------------------------------------------------ scan

    fn taps_clause(s: &Sexp) -> Result<Vec<i64>, LangError> {
        let parts = match s.list() {
            Some(p) if s.head() == Some("taps") && p.len() >= 2 => p,
            _ => return Err(syntax(s.span(), "expected (taps T ...)")),
        };
        let taps = parts[1..]
            .iter()
            .map(|t| {
                let v = Self::int_param(t, "tap")?;
                if v.unsigned_abs() > MAX_TAP.unsigned_abs() {
                    return Err(syntax(
                        t.span(),
                        format!("a tap must lie within -{MAX_TAP}..{MAX_TAP}, got {v}"),
                    ));
                }
                Ok(v)
            })
            .collect::<Result<Vec<_>, _>>()?;
        let distinct: BTreeSet<_> = taps.iter().collect();
        if distinct.len() != taps.len() {
            return Err(syntax(s.span(), "taps must be distinct"));
        }
        Ok(taps)
    }

    /// Parses `(scan ...)` and returns one value per output.
    fn scan(&mut self, s: &Sexp) -> Result<Vec<NodeId>, LangError> {
        let span = s.span();
        let items = s.list().unwrap_or(&[]);
        let mut seqs: Vec<(NodeId, Vec<i64>)> = Vec::new();
        let mut outs: Vec<(OutputInfo, Option<NodeId>, Span)> = Vec::new();
        let mut has_outputs_info = false;
        let mut non_seqs: Vec<NodeId> = Vec::new();
        let mut n_steps: Option<NodeId> = None;
        let mut go_backwards = false;
        let mut keep: Vec<Option<usize>> = Vec::new();
        let mut fn_clause: Option<&Sexp> = None;
        let mut seen: BTreeSet<&str> = BTreeSet::new();
        for clause in &items[1..] {
            let cspan = clause.span();
            let Some(head) = clause.head() else {
                return Err(syntax(cspan, "expected a scan clause: sequences, outputs_info, non_sequences, n_steps, go_backwards or fn"));
            };
            if !seen.insert(head) {
                return Err(syntax(cspan, format!("the clause '{head}' is given twice")));
            }
            let parts = &clause.list().unwrap_or(&[])[1..];
            match head {
                "sequences" => {
                    for seq in parts {
                        let (x, taps) = match seq.list() {
                            Some([x, t]) if t.head() == Some("taps") => (x, Self::taps_clause(t)?),
                            _ => (seq, vec![0]),
                        };
                        let id = self.expr(x)?;
                        loop_type::sequence_step(seqs.len(), self.ty(id))
                            .map_err(|reason| loop_err(x.span(), "scan", reason))?;
                        seqs.push((id, taps));
                    }
                }
                "outputs_info" => {
                    has_outputs_info = true;
                    for o in parts {
                        let mut oparts = o.list().unwrap_or(&[]);
                        // An optional trailing (keep K): only the last K steps.
                        let mut kept = None;
                        if let Some(last) = oparts.last().filter(|l| l.head() == Some("keep")) {
                            let kp = last.list().unwrap_or(&[]);
                            if kp.len() != 2 {
                                return Err(arity(last.span(), "keep", "1 argument", kp.len() - 1));
                            }
                            let k = Self::int_param(&kp[1], "keep")?;
                            if k < 1 {
                                return Err(syntax(kp[1].span(), format!("an output keeps at least 1 step, got {k}")));
                            }
                            kept = Some(k as usize);
                            oparts = &oparts[..oparts.len() - 1];
                        }
                        keep.push(kept);
                        match (o.head(), oparts.len()) {
                            (Some("sitsot"), 2) => {
                                let init = self.expr(&oparts[1])?;
                                outs.push((OutputInfo::Sitsot, Some(init), o.span()));
                            }
                            (Some("mitsot"), 3) => {
                                let taps = Self::taps_clause(&oparts[2])?;
                                if let Some(t) = taps.iter().find(|&&t| t >= 0) {
                                    return Err(syntax(oparts[2].span(), format!("a mitsot reads past values: taps must be negative, got {t}")));
                                }
                                let depth = TapWindow::of(&taps).depth();
                                if let Some(k) = kept.filter(|&k| k < depth) {
                                    return Err(syntax(o.span(), format!("a mitsot with taps {taps:?} must keep at least {depth} steps, got (keep {k})")));
                                }
                                let init = self.expr(&oparts[1])?;
                                outs.push((OutputInfo::Mitsot(taps), Some(init), o.span()));
                            }
                            (Some("nitsot"), 1) => outs.push((OutputInfo::Nitsot, None, o.span())),
                            _ => return Err(syntax(o.span(), "expected (sitsot INIT), (mitsot INIT (taps T ...)) or (nitsot), each optionally ending in (keep K)")),
                        }
                    }
                }
                "non_sequences" => non_seqs.extend(self.exprs(parts)?),
                "n_steps" => {
                    if parts.len() != 1 {
                        return Err(arity(cspan, "n_steps", "1 argument", parts.len()));
                    }
                    if let Some(a) = parts[0].atom() {
                        let level = self.frames.len() - 1;
                        if is_identifier(a) && self.resolve(a, level, parts[0].span()).is_none() {
                            self.declare_size(a, parts[0].span())?;
                        }
                    }
                    let id = self.expr(&parts[0])?;
                    let t = self.ty(id);
                    if t.dtype != DType::I64 || t.ndim() != 0 {
                        return Err(type_err(parts[0].span(), "scan", format!("n_steps must be an i64 scalar, got {t}")));
                    }
                    if let Op::Literal(Scalar::I64(k)) = self.graph().node(id).op {
                        if k < 0 {
                            return Err(type_err(parts[0].span(), "scan", format!("n_steps must not be negative, got {k}")));
                        }
                    }
                    n_steps = Some(id);
                }
                "go_backwards" => {
                    if !parts.is_empty() {
                        return Err(arity(cspan, "go_backwards", "no arguments", parts.len()));
                    }
                    go_backwards = true;
                }
                "fn" => fn_clause = Some(clause),
                other => {
                    return Err(syntax(cspan, format!("unknown scan clause '{other}'; expected sequences, outputs_info, non_sequences, n_steps, go_backwards or fn")))
                }
            }
        }
        let Some(fn_clause) = fn_clause else {
            return Err(syntax(span, "scan needs a (fn (PARAM ...) BODY) clause"));
        };
        if seqs.is_empty() && n_steps.is_none() {
            return Err(syntax(span, "a scan without sequences needs (n_steps N)"));
        }
        let infos: Vec<OutputInfo> = if has_outputs_info {
            outs.iter().map(|o| o.0.clone()).collect()
        } else {
            // Without outputs_info, one mapped output per body result
            // (known once the body is parsed).
            Vec::new()
        };
        // Arguments: sequences, inits, non-sequences (declared, then
        // captured), n_steps.
        let mut args: Vec<NodeId> = seqs.iter().map(|s| s.0).collect();
        args.extend(outs.iter().filter_map(|o| o.1));
        args.extend(non_seqs.iter().copied());
        let mut sig = LoopSig {
            sequences: seqs.into_iter().map(|s| s.1).collect(),
            outputs: infos,
            n_non_seqs: non_seqs.len(),
            has_n_steps: false,
            go_backwards,
            keep: LoopSig::keep_list(keep),
        };
        // The spans of the parts of the loop, for its type errors.
        let seq_spans: Vec<Span> = args[sig.seq_args()]
            .iter()
            .map(|a| self.graph().span(*a))
            .collect();
        let out_spans: Vec<Span> = outs.iter().map(|o| o.2).collect();
        let place = |reason: LoopTypeError| {
            let at = match reason.part() {
                LoopPart::Sequence(k) => seq_spans.get(k).copied(),
                LoopPart::Output(k) => out_spans.get(k).copied(),
                LoopPart::Body => Some(fn_clause.span()),
                LoopPart::Loop => None,
            };
            loop_err(at.unwrap_or(span), "scan", reason)
        };
        // Parameter types, in the fn's order.
        let param_tys = {
            let arg_tys: Vec<&Type> = args.iter().map(|a| self.ty(*a)).collect();
            loop_type::param_types(&sig, &arg_tys).map_err(&place)?
        };
        let body = self.fn_body(fn_clause, &param_tys, None)?;
        if !has_outputs_info {
            sig.outputs = vec![OutputInfo::Nitsot; body.graph.outputs.len()];
        }
        if sig.outputs.is_empty() {
            return Err(syntax(span, "a scan needs at least one output"));
        }
        args.extend(body.captured.iter().copied());
        sig.n_non_seqs += body.captured.len();
        if let Some(n) = n_steps {
            args.push(n);
            sig.has_n_steps = true;
        }
        let out_tys = self.loop_types(&sig, &args, &body.graph).map_err(&place)?;
        let scan = Scan {
            sig,
            body: body.graph,
        };
        let scan_id = self.push(Op::Scan(Box::new(scan)), args, out_tys.clone(), None, span);
        Ok(out_tys
            .into_iter()
            .enumerate()
            .map(|(k, t)| self.push(Op::Proj(k), vec![scan_id], vec![t], None, span))
            .collect())
    }

    /// The output types of a loop `sig` with outer arguments `args` and
    /// body `body`, by the scan type rule ([`loop_type::output_types`]);
    /// `n_steps` is a literal or a size symbol, or unknown statically.
    fn loop_types(
        &self,
        sig: &LoopSig,
        args: &[NodeId],
        body: &Graph,
    ) -> Result<Vec<Type>, LoopTypeError> {
        let arg_tys: Vec<&Type> = args.iter().map(|a| self.ty(*a)).collect();
        let n_steps = sig
            .n_steps_arg()
            .map(|k| match &self.graph().node(args[k]).op {
                Op::Literal(Scalar::I64(v)) => Dim::known(*v),
                Op::Size(s) => Dim::sym(s),
                _ => Dim::Unknown,
            });
        let body_tys: Vec<&Type> = body.outputs.iter().map(|o| body.node(*o).ty()).collect();
        loop_type::output_types(sig, &arg_tys, n_steps, &body_tys)
    }

    /// Parses `(fn (PARAM ...) (let ...) ... BODY)` as a new graph whose
    /// parameters have `param_tys`. `order`, when given, maps the written
    /// parameter list to positions (combinators write `(acc x)` for a scan
    /// that takes `x` first).
    fn fn_body(
        &mut self,
        s: &Sexp,
        param_tys: &[Type],
        order: Option<&[usize]>,
    ) -> Result<Body, LangError> {
        let span = s.span();
        let parts = match s.list() {
            Some(p) if s.head() == Some("fn") && p.len() >= 3 => p,
            _ => return Err(syntax(span, "expected (fn (PARAM ...) BODY)")),
        };
        let params = parts[1]
            .list()
            .ok_or_else(|| syntax(parts[1].span(), "expected the parameter list (PARAM ...)"))?;
        if params.len() != param_tys.len() {
            let what = if order.is_some() {
                format!("{} parameters", param_tys.len())
            } else {
                format!(
                    "{} parameters (one per sequence tap, one per state tap, one per non-sequence)",
                    param_tys.len()
                )
            };
            return Err(type_err(
                parts[1].span(),
                "fn",
                format!("takes {what}, got {}", params.len()),
            ));
        }
        let mut written: Vec<(String, Span)> = Vec::new();
        for p in params {
            written.push((self.binder_name(p)?, p.span()));
        }
        let mut in_order: Vec<Option<(String, Span)>> = vec![None; written.len()];
        for (i, w) in written.into_iter().enumerate() {
            let pos = order.map_or(i, |o| o[i]);
            in_order[pos] = Some(w);
        }
        self.frames.push(Frame::new());
        let result = (|| {
            for (k, (w, ty)) in in_order.iter().zip(param_tys).enumerate() {
                let Some((name, pspan)) = w else { continue };
                let id = self.push(
                    Op::Input(k),
                    vec![],
                    vec![ty.clone()],
                    Some(name.clone()),
                    *pspan,
                );
                self.frame().graph.n_params += 1;
                self.bind(name, id, *pspan)?;
            }
            let body_items = &parts[2..];
            let (lets, last) = body_items.split_at(body_items.len() - 1);
            for l in lets {
                if l.head() != Some("let") {
                    return Err(syntax(
                        l.span(),
                        "only (let ...) clauses may come before the body of a fn",
                    ));
                }
                self.let_clause(l)?;
            }
            let last = &last[0];
            let outputs = if last.head() == Some("outputs") {
                let es = &last.list().unwrap_or(&[])[1..];
                if es.is_empty() {
                    return Err(arity(last.span(), "outputs", "1 or more expressions", 0));
                }
                self.exprs(es)?
            } else {
                vec![self.expr(last)?]
            };
            Ok(outputs)
        })();
        let frame = self.frames.pop().unwrap_or_else(Frame::new);
        let outputs = result?;
        Ok(finish_body(frame, outputs))
    }

    /// `(map (fn (x ...) E) X ...)`: a scan over the zipped sequences.
    fn map(&mut self, s: &Sexp) -> Result<Vec<NodeId>, LangError> {
        let span = s.span();
        let items = s.list().unwrap_or(&[]);
        if items.len() < 3 {
            return Err(arity(
                span,
                "map",
                "a fn and 1 or more sequences",
                items.len().saturating_sub(1),
            ));
        }
        let seqs = self.exprs(&items[2..])?;
        let mut tys = Vec::new();
        for (k, (id, x)) in seqs.iter().zip(&items[2..]).enumerate() {
            match loop_type::sequence_step(k, self.ty(*id)) {
                Ok(step) => tys.push(step),
                Err(_) => {
                    return Err(type_err(
                        x.span(),
                        "map",
                        format!(
                            "a sequence needs a leading axis, got the scalar {}",
                            self.ty(*id).clone().strong()
                        ),
                    ))
                }
            }
        }
        let body = self.fn_body(&items[1], &tys, None)?;
        let mut args = seqs.clone();
        args.extend(body.captured.iter().copied());
        let sig = LoopSig {
            sequences: vec![vec![0]; seqs.len()],
            outputs: vec![OutputInfo::Nitsot; body.graph.outputs.len()],
            n_non_seqs: body.captured.len(),
            ..LoopSig::default()
        };
        let out_tys = self
            .loop_types(&sig, &args, &body.graph)
            .map_err(|reason| loop_err(span, "map", reason))?;
        let scan = Scan {
            sig,
            body: body.graph,
        };
        let scan_id = self.push(Op::Scan(Box::new(scan)), args, out_tys.clone(), None, span);
        Ok(out_tys
            .into_iter()
            .enumerate()
            .map(|(k, t)| self.push(Op::Proj(k), vec![scan_id], vec![t], None, span))
            .collect())
    }

    /// `(foldl (fn (acc x) E) INIT X)` and its relatives, lowered to a
    /// sitsot scan (backwards for foldr/scanr); folds read the last state,
    /// scanr reverses the states so they line up with X.
    fn fold(&mut self, s: &Sexp, op: &str) -> Result<NodeId, LangError> {
        let span = s.span();
        let items = s.list().unwrap_or(&[]);
        if items.len() != 4 {
            return Err(arity(
                span,
                op,
                "3 arguments ((fn (acc x) E) INIT X)",
                items.len() - 1,
            ));
        }
        let init = self.expr(&items[2])?;
        let xs = self.expr(&items[3])?;
        let Ok(step) = loop_type::sequence_step(0, self.ty(xs)) else {
            return Err(type_err(
                items[3].span(),
                op,
                format!(
                    "a sequence needs a leading axis, got the scalar {}",
                    self.ty(xs).clone().strong()
                ),
            ));
        };
        let acc = self.ty(init).clone().strong();
        // The scan's fn takes (x, acc); the combinator writes (acc x).
        let body = self.fn_body(&items[1], &[step, acc.clone()], Some(&[1, 0]))?;
        let mut args = vec![xs, init];
        args.extend(body.captured.iter().copied());
        let backwards = op == "foldr" || op == "scanr";
        let sig = LoopSig {
            sequences: vec![vec![0]],
            outputs: vec![OutputInfo::Sitsot],
            n_non_seqs: body.captured.len(),
            go_backwards: backwards,
            ..LoopSig::default()
        };
        let out_ty = match self.loop_types(&sig, &args, &body.graph) {
            Ok(mut tys) if tys.len() == 1 => tys.remove(0),
            Err(LoopTypeError::StateType { returned, .. }) => {
                return Err(type_err(
                    items[2].span(),
                    op,
                    format!("the accumulator starts as {acc} but the fn returns {returned}"),
                ))
            }
            Err(LoopTypeError::OutputCount { .. }) | Ok(_) => {
                return Err(type_err(
                    items[1].span(),
                    op,
                    "the fn must return one value",
                ))
            }
            Err(reason) => return Err(loop_err(span, op, reason)),
        };
        let scan = Scan {
            sig,
            body: body.graph,
        };
        let scan_id = self.push(
            Op::Scan(Box::new(scan)),
            args,
            vec![out_ty.clone()],
            None,
            span,
        );
        let states = self.push(Op::Proj(0), vec![scan_id], vec![out_ty], None, span);
        match op {
            "scanl" => Ok(states),
            "scanr" => self.make(
                Op::Slice {
                    start: None,
                    stop: None,
                    step: -1,
                },
                vec![states],
                span,
            ),
            _ => {
                let last = self.make(Op::Literal(Scalar::I64(-1)), vec![], span)?;
                self.make(Op::Index, vec![states, last], span)
            }
        }
    }
}

/// Moves captured parameters right after the declared ones (they are extra
/// non-sequences) and renumbers the graph.
fn finish_body(frame: Frame, outputs: Vec<NodeId>) -> Body {
    let Frame {
        mut graph,
        captures,
        ..
    } = frame;
    graph.outputs = outputs;
    let n_decl = graph.n_params;
    let captured_inner: Vec<NodeId> = captures.iter().map(|c| c.1).collect();
    let mut order: Vec<usize> = (0..n_decl).collect();
    order.extend(captured_inner.iter().map(|c| c.0));
    let is_capture: BTreeSet<usize> = captured_inner.iter().map(|c| c.0).collect();
    order.extend((n_decl..graph.nodes.len()).filter(|i| !is_capture.contains(i)));
    let mut new_of = vec![0usize; graph.nodes.len()];
    for (new, &old) in order.iter().enumerate() {
        new_of[old] = new;
    }
    let mut nodes = Vec::with_capacity(graph.nodes.len());
    let mut spans = Vec::with_capacity(graph.nodes.len());
    for &old in &order {
        let mut n = graph.nodes[old].clone();
        n.args = n.args.iter().map(|a| NodeId(new_of[a.0])).collect();
        if new_of[old] >= n_decl && new_of[old] < n_decl + captured_inner.len() {
            n.op = Op::Input(new_of[old]);
        }
        nodes.push(n);
        spans.push(graph.span(NodeId(old)));
    }
    graph.outputs = graph.outputs.iter().map(|o| NodeId(new_of[o.0])).collect();
    graph.nodes = nodes;
    graph.spans = spans;
    graph.n_params = n_decl + captured_inner.len();
    Body {
        graph,
        captured: captures.iter().map(|c| c.0).collect(),
    }
}

/// Names: a letter or `_` first, then letters, digits, `_`, `.`, `'`.
pub(crate) fn is_identifier(s: &str) -> bool {
    let mut cs = s.chars();
    matches!(cs.next(), Some(c) if c.is_alphabetic() || c == '_')
        && cs.all(|c| c.is_alphanumeric() || c == '_' || c == '.' || c == '\'')
        && !matches!(s, "true" | "false" | "none" | "inf" | "nan")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(src: &str) -> LangError {
        match parse_program(src) {
            Ok(_) => panic!("expected an error for {src}"),
            Err(e) => e,
        }
    }

    fn at(e: &LangError) -> (u32, u32) {
        let s = e.span().expect("a position");
        (s.line, s.col)
    }

    #[test]
    fn errors_name_their_position() {
        let e = err("(program p\n  (input x (f64 3))\n  (output (frob x)))");
        assert!(matches!(&e, LangError::UnknownOp { name, .. } if name == "frob"));
        assert_eq!(at(&e), (3, 12));
        let e = err("(program p (input x (f64 3)) (output (add x)))");
        assert!(matches!(&e, LangError::Arity { got: 1, .. }));
        let e = err("(program p (input x (f64 3)) (output (add x y)))");
        assert!(matches!(&e, LangError::Unbound { name, .. } if name == "y"));
        assert_eq!(at(&e), (1, 45));
        let e = err("(program p (input x (f64 3)) (let x (neg x)) (output x))");
        assert!(matches!(&e, LangError::Rebound { .. }));
        let e = err("(program p (input x (f64 3)) (input y (f64 4)) (output (add x y)))");
        assert_eq!(
            e.to_string(),
            "add: shapes (3,) and (4,) do not broadcast".to_string()
        );
    }

    #[test]
    fn scan_clauses_are_checked() {
        let e = err("(program p (input X (f64 5 2)) (output (scan (sequences X) (fn (a b) a))))");
        assert!(e.to_string().contains("takes 1 parameters"), "{e}");
        let e = err(
            "(program p (input X (f64 5 2)) (input h (f64 3))
               (output (scan (sequences X) (outputs_info (sitsot h)) (fn (x h) (add h 1.0)) (n_steps 9))))",
        );
        assert!(e.to_string().contains("n_steps is 9"), "{e}");
        let e = err("(program p (input X (f64 5 2)) (input h (f32 2))
               (output (scan (sequences X) (outputs_info (sitsot h)) (fn (x h) (add h x)))))");
        assert!(e.to_string().contains("state 0"), "{e}");
    }

    #[test]
    fn closures_become_trailing_non_sequences() {
        let p = parse_program(
            "(program p (input X (f64 T 2)) (input w (f64 2)) (input v (f64 2))
               (output (scan (sequences X) (non_sequences v) (fn (x v2) (add (mul x w) v2)))))",
        )
        .unwrap();
        let scan = p
            .graph
            .nodes
            .iter()
            .find_map(|n| match &n.op {
                Op::Scan(s) => Some((s, n)),
                _ => None,
            })
            .unwrap();
        assert_eq!(scan.0.sig.n_non_seqs, 2);
        // arguments: X, v (declared), w (captured)
        assert_eq!(scan.1.args, vec![NodeId(0), NodeId(2), NodeId(1)]);
        let names: Vec<_> = scan
            .0
            .body
            .params()
            .map(|(_, n)| n.name.clone().unwrap())
            .collect();
        assert_eq!(names, ["x", "v2", "w"]);
        // the output type carries the symbolic step count
        assert_eq!(
            p.graph.node(p.graph.outputs[0]).ty().to_string(),
            "f64(T, 2)"
        );
    }

    #[test]
    fn fold_parameters_are_reordered_for_the_scan() {
        let p = parse_program(
            "(program p (input X (f64 T 2)) (output (foldl (fn (acc x) (sub acc x)) (zeros (f64 2)) X)))",
        )
        .unwrap();
        let Op::Scan(s) = &p
            .graph
            .nodes
            .iter()
            .find(|n| matches!(n.op, Op::Scan(_)))
            .unwrap()
            .op
        else {
            unreachable!()
        };
        let names: Vec<_> = s
            .body
            .params()
            .map(|(_, n)| n.name.clone().unwrap())
            .collect();
        assert_eq!(names, ["x", "acc"]);
    }

    #[test]
    fn sequence_taps_shorten_the_step_count() {
        let p = parse_program(
            "(program p (input X (f64 T)) (output (scan (sequences (X (taps -2 1))) (fn (a b) (add a b)))))",
        )
        .unwrap();
        assert_eq!(
            p.graph.node(p.graph.outputs[0]).ty().to_string(),
            "f64(T-3,)"
        );
    }
}
