//! Machine code for runs of a step tape's instructions, made with
//! cranelift when a loop runs enough steps to repay it.
//!
//! Owns: choosing the runs of a tape's step that compile ([`runs`]),
//! generating one native function per run ([`compile_runs`]), the code's
//! memory ([`NativeCode`], freed when the last tape holding it goes) and
//! calling it ([`NativeRun`]). What compiles:
//! - instructions on one element (staged copies, `Scalars`, the `…1`
//!   instructions, a comparison of two elements giving 1.0 or 0.0),
//!   their values kept in registers between operations,
//!   each still stored into its place in the arena;
//! - groups of two or more elementwise instructions over the same number
//!   of elements (copies, `neg`, `abs`, add, sub, mul and div, and
//!   `Binary2`, operands whole or scalars): one loop, two elements at a
//!   time, where a member reads an earlier member's value from a
//!   register, and a value no later instruction or result reads is never
//!   stored.
//!
//! Bits: add, sub, mul, div, neg and abs are single IEEE operations in
//! both cranelift and Rust, never contracted into fused multiply-adds,
//! computed in the plan's order; every other scalar operation calls the
//! plan's own element function ([`unary_entry`], [`binary_entry`]). So a run
//! gives the bits the instructions it replaces give (checked by the
//! differential tests that run every loop with native code forced on).
//!
//! Safety: the generated code reads and writes memory through raw
//! pointers. Every address it forms is one that an instruction's
//! `reads`/`writes` reports, and [`NativeRun::extent`] records, per
//! pointer, the elements those cover; the caller checks every slice
//! against them before each call (`run.rs`). Must not: generate an
//! access outside those extents, or an operation whose result could
//! differ from the instruction it replaces.

use super::{overlaps, Cover, Instr, Loc, Operand, ScalarOp};
use crate::exec::ops::elementwise::Float;
use crate::lang::{BinaryOp, CompareOp, UnaryOp};
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{
    types, AbiParam, BlockArg, InstBuilder, MemFlagsData, SigRef, Signature, UserFuncName, Value,
};
use cranelift_codegen::isa::CallConv;
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{default_libcall_names, Linkage, Module};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// The most parameters, and the most result rows, one run may address
/// (their pointers are passed in arrays on the caller's stack).
pub(crate) const MAX_POINTERS: usize = 8;

/// The entry of a run: `(arena, parameter pointers, row pointers)`.
type Entry = unsafe extern "C" fn(*mut f64, *const *const f64, *const *mut f64);

/// The entry of a whole loop ([`NativeLoop`]): `(arena, parameter
/// pointers, parameter strides, row pointers, row strides, steps)`,
/// returning the steps that ran (fewer when a while loop's condition
/// held).
type LoopEntry = unsafe extern "C" fn(
    *mut f64,
    *const *const f64,
    *const isize,
    *const *mut f64,
    *const isize,
    usize,
) -> usize;

/// A loop whose step is one run ([`NativeRun`]) and whose parameters
/// and result rows move by a fixed stride from step to step, as one
/// native function: the steps without returning to the loop between
/// them.
#[derive(Clone)]
pub(crate) struct NativeLoop {
    entry: LoopEntry,
    _code: Arc<NativeCode>,
    /// Per parameter pointer: the body parameter and the elements one
    /// step reads from where it is placed; the results the step writes
    /// straight into their rows (row pointer `j` for result `j`).
    pub extent: Extent,
}

impl std::fmt::Debug for NativeLoop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NativeLoop")
            .field("extent", &self.extent)
            .finish()
    }
}

impl NativeLoop {
    /// Runs at most `n` steps; returns how many ran (a while loop stops
    /// after the step whose condition holds).
    ///
    /// # Safety
    /// `arena` holds `extent.arena` elements; for every step `t < n`,
    /// `params[s] + t·p_strides[s]` points to `extent.params[s].1`
    /// readable elements and `rows[j] + t·r_strides[j]` to as many
    /// writable elements as body result `j` has; the rows overlap no
    /// parameter read in the same step, nor the arena.
    pub(crate) unsafe fn call(
        &self,
        arena: *mut f64,
        params: *const *const f64,
        p_strides: *const isize,
        rows: *const *mut f64,
        r_strides: *const isize,
        n: usize,
    ) -> usize {
        // SAFETY: the caller's contract is the code's (module docs).
        unsafe { (self.entry)(arena, params, p_strides, rows, r_strides, n) }
    }
}

/// Body results of at most this many elements each are copied to their
/// rows inside a whole loop (element by element, unrolled).
const LOOP_RESULT_LEN: usize = 64;

/// The machine code of a tape's runs; freed when the last run holding it
/// is dropped.
pub(crate) struct NativeCode(Mutex<Option<JITModule>>);

impl Drop for NativeCode {
    fn drop(&mut self) {
        if let Ok(m) = self.0.get_mut() {
            if let Some(module) = m.take() {
                // SAFETY: every entry into this module belongs to a
                // `NativeRun` holding an `Arc` of this code; the last one
                // is gone, so nothing can call into it any more.
                unsafe { module.free_memory() };
            }
        }
    }
}

/// A run of a step's instructions as one native function.
#[derive(Clone)]
pub(crate) struct NativeRun {
    /// The function.
    entry: Entry,
    /// Keeps `entry`'s code alive.
    _code: Arc<NativeCode>,
    /// What the function may touch (checked before every call).
    pub extent: Extent,
    /// The instructions it runs in their place (what they read and
    /// write, for the tape's own checks).
    pub instrs: Box<[Instr]>,
}

impl std::fmt::Debug for NativeRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NativeRun")
            .field("extent", &self.extent)
            .field("instrs", &self.instrs)
            .finish()
    }
}

/// The memory a run's code touches.
#[derive(Clone, Debug, Default)]
pub(crate) struct Extent {
    /// Elements of the arena, from the start.
    pub arena: usize,
    /// Per parameter pointer: the body parameter and the elements read
    /// from where it is placed.
    pub params: Vec<(usize, usize)>,
    /// Per row pointer: the body result written straight into its row
    /// (when the caller gives the row; else into `dst` of the arena), and
    /// its length.
    pub rows: Vec<(u32, usize)>,
}

impl NativeRun {
    /// Runs the code.
    ///
    /// # Safety
    /// `arena` holds at least `extent.arena` elements; `params[s]` points
    /// to at least `extent.params[s].1` readable elements; `rows[s]` is
    /// null or points to `extent.rows[s].1` writable elements, none of
    /// them overlapping each other, the arena or a parameter's.
    pub(crate) unsafe fn call(
        &self,
        arena: *mut f64,
        params: *const *const f64,
        rows: *const *mut f64,
    ) {
        // SAFETY: the caller's contract is the code's (module docs).
        unsafe { (self.entry)(arena, params, rows) }
    }
}

/// The plan's element function of unary `op` as a C function the code
/// calls (one per op, so the call goes straight to it).
fn unary_entry(op: UnaryOp) -> *const () {
    macro_rules! entry {
        ($v:ident) => {{
            extern "C" fn f(x: f64) -> f64 {
                x.unary(UnaryOp::$v)
            }
            f as *const ()
        }};
    }
    match op {
        UnaryOp::Neg => entry!(Neg),
        UnaryOp::Exp => entry!(Exp),
        UnaryOp::Log => entry!(Log),
        UnaryOp::Log1p => entry!(Log1p),
        UnaryOp::Sqrt => entry!(Sqrt),
        UnaryOp::Tanh => entry!(Tanh),
        UnaryOp::Sigmoid => entry!(Sigmoid),
        UnaryOp::Sin => entry!(Sin),
        UnaryOp::Cos => entry!(Cos),
        UnaryOp::Abs => entry!(Abs),
        UnaryOp::Sign => entry!(Sign),
        UnaryOp::Expm1 => entry!(Expm1),
        UnaryOp::Softplus => entry!(Softplus),
        UnaryOp::Floor => entry!(Floor),
        UnaryOp::Ceil => entry!(Ceil),
        UnaryOp::Round => entry!(Round),
        UnaryOp::Erf => entry!(Erf),
        UnaryOp::Erfc => entry!(Erfc),
        UnaryOp::Gammaln => entry!(Gammaln),
        UnaryOp::Digamma => entry!(Digamma),
        UnaryOp::Trigamma => entry!(Trigamma),
    }
}

/// The plan's element function of binary `op` as a C function the code
/// calls (used for pow, maximum and minimum).
fn binary_entry(op: BinaryOp) -> *const () {
    macro_rules! entry {
        ($v:ident) => {{
            extern "C" fn f(x: f64, y: f64) -> f64 {
                super::run::binary1(BinaryOp::$v, x, y)
            }
            f as *const ()
        }};
    }
    match op {
        BinaryOp::Add => entry!(Add),
        BinaryOp::Sub => entry!(Sub),
        BinaryOp::Mul => entry!(Mul),
        BinaryOp::Div => entry!(Div),
        BinaryOp::Pow => entry!(Pow),
        BinaryOp::Maximum => entry!(Maximum),
        BinaryOp::Minimum => entry!(Minimum),
        BinaryOp::Mod => entry!(Mod),
        BinaryOp::FloorDiv => entry!(FloorDiv),
    }
}

/// A binary op computed inline (one IEEE operation).
fn inline_binary(op: BinaryOp) -> bool {
    matches!(
        op,
        BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div
    )
}

/// How one instruction takes part in a run.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    /// On one element (or a staged copy of one).
    Scalar,
    /// Elementwise over `len` elements, operands whole or scalars.
    Lanes(usize),
    /// Not compiled.
    No,
}

fn plain(o: &Operand) -> bool {
    matches!(o.cover, Cover::Full | Cover::Scalar)
}

fn kind(ins: &Instr) -> Kind {
    match *ins {
        Instr::Copy { len: 1, .. }
        | Instr::Move1 { .. }
        | Instr::MulAdd1 { .. }
        | Instr::Unary1 { .. }
        | Instr::Binary1 { .. }
        | Instr::Scalars(_) => Kind::Scalar,
        Instr::Compare { a, b, len: 1, .. } if plain(&a) && plain(&b) => Kind::Scalar,
        Instr::Copy { len, .. } => Kind::Lanes(len),
        Instr::Unary {
            op: UnaryOp::Neg | UnaryOp::Abs,
            len,
            ..
        } => Kind::Lanes(len),
        Instr::Binary { op, a, b, len, .. } if inline_binary(op) && plain(&a) && plain(&b) => {
            Kind::Lanes(len)
        }
        Instr::Binary2 { x, y, z, len, .. } if plain(&x) && plain(&y) && plain(&z) => {
            Kind::Lanes(len)
        }
        _ => Kind::No,
    }
}

/// The members of an elementwise group that `ins` may join: it has the
/// group's length, and every arena value it reads that a member writes is
/// that member's whole value, read whole (then from a register), by a
/// member not written into a row; what it writes overlaps nothing a
/// member reads or writes. `members` are (instruction, direct).
fn joins(members: &[(&Instr, Option<u32>)], ins: &Instr, len: usize) -> bool {
    if kind(ins) != Kind::Lanes(len) {
        return false;
    }
    let mut ok = true;
    ins.reads(&mut |loc, l| {
        let Loc::Arena(o) = loc else { return };
        for (m, direct) in members {
            m.writes(&mut |d, n| {
                if overlaps(o, l, d, n) && (o != d || l != n || l != len || direct.is_some()) {
                    ok = false;
                }
            });
        }
    });
    // A region members read or write is never written again within the
    // group (the arena's regions are reused between values, `reuse`: one
    // pass over the elements must not overwrite what a member reads at
    // another element).
    ins.writes(&mut |d, n| {
        for (m, _) in members {
            m.reads(&mut |loc, l| {
                if let Loc::Arena(o) = loc {
                    if overlaps(o, l, d, n) {
                        ok = false;
                    }
                }
            });
            m.writes(&mut |o, l| {
                if overlaps(o, l, d, n) {
                    ok = false;
                }
            });
        }
    });
    ok
}

/// The runs of `instrs` worth compiling: index ranges of consecutive
/// instructions on one element and groups of at least two elementwise
/// ones (`direct[i]`: the result instruction `i` writes into its row).
pub(crate) fn runs(instrs: &[Instr], direct: &[Option<u32>]) -> Vec<std::ops::Range<usize>> {
    // First the segments: (start, end, compiles).
    let mut segs: Vec<(usize, usize, bool)> = Vec::new();
    let mut i = 0;
    while i < instrs.len() {
        match kind(&instrs[i]) {
            Kind::Scalar => {
                segs.push((i, i + 1, true));
                i += 1;
            }
            Kind::Lanes(len) => {
                let mut members = vec![(&instrs[i], direct.get(i).copied().flatten())];
                let mut j = i + 1;
                while j < instrs.len() && joins(&members, &instrs[j], len) {
                    members.push((&instrs[j], direct.get(j).copied().flatten()));
                    j += 1;
                }
                segs.push((i, j, j - i >= 2));
                i = j;
            }
            Kind::No => {
                segs.push((i, i + 1, false));
                i += 1;
            }
        }
    }
    let mut out: Vec<std::ops::Range<usize>> = Vec::new();
    for (s, e, yes) in segs {
        if !yes {
            continue;
        }
        match out.last_mut() {
            Some(r) if r.end == s => r.end = e,
            _ => out.push(s..e),
        }
    }
    // A run of one instruction gains nothing unless it is a run of
    // scalar operations.
    out.retain(|r| {
        r.len() >= 2 || matches!(&instrs[r.start], Instr::Scalars(ops) if ops.len() >= 2)
    });
    out
}

/// Why a run did not compile (it then stays on the tape as it is).
#[derive(Debug)]
pub(crate) struct NotCompiled;

/// Compiles each of `runs` of `instrs` into one function of one module.
/// `read_after(i, o, l)`: some instruction after `i`, or a body result,
/// reads the arena's `[o, o + l)` (else a value there need not be
/// stored). `whole`: the step's results, when a whole loop may be made
/// of a run that is the whole step; `cond`: which of them is a while
/// loop's condition. Returns a run per range, in order.
pub(crate) fn compile_runs(
    instrs: &[Instr],
    direct: &[Option<u32>],
    ranges: &[std::ops::Range<usize>],
    read_after: &dyn Fn(usize, usize, usize) -> bool,
    whole: Option<&[(usize, usize)]>,
    cond: Option<usize>,
) -> Result<(Vec<NativeRun>, Option<NativeLoop>), NotCompiled> {
    let mut flags = settings::builder();
    flags.set("opt_level", "speed").map_err(|_| NotCompiled)?;
    flags.set("is_pic", "false").map_err(|_| NotCompiled)?;
    let isa = cranelift_native::builder()
        .map_err(|_| NotCompiled)?
        .finish(settings::Flags::new(flags))
        .map_err(|_| NotCompiled)?;
    let mut module = JITModule::new(JITBuilder::with_isa(isa, default_libcall_names()));
    let ptr = module.target_config().pointer_type();
    let mut sig = module.make_signature();
    for _ in 0..3 {
        sig.params.push(AbiParam::new(ptr));
    }
    let mut ctx = module.make_context();
    let mut fctx = FunctionBuilderContext::new();
    let mut made = Vec::new();
    for (n, range) in ranges.iter().enumerate() {
        let id = module
            .declare_function(&format!("run{n}"), Linkage::Local, &sig)
            .map_err(|_| NotCompiled)?;
        ctx.func.signature = sig.clone();
        ctx.func.name = UserFuncName::user(0, id.as_u32());
        let run = instrs.get(range.clone()).ok_or(NotCompiled)?;
        let run_direct = direct.get(range.clone()).ok_or(NotCompiled)?;
        let extent = {
            let b = FunctionBuilder::new(&mut ctx.func, &mut fctx);
            let mut g = Gen::new(b, ptr, module.isa().default_call_conv());
            g.run(run, run_direct, &|k, o, l| {
                read_after(range.start + k, o, l)
            })?;
            g.finish(module.target_config())
        };
        module
            .define_function(id, &mut ctx)
            .map_err(|_| NotCompiled)?;
        module.clear_context(&mut ctx);
        made.push((id, extent, run.to_vec().into_boxed_slice()));
    }
    // The whole loop, when the run is the whole step.
    let mut whole_loop = None;
    if let (Some(results), [range]) = (whole, ranges) {
        if range.start == 0
            && range.end == instrs.len()
            && results
                .iter()
                .enumerate()
                .all(|(j, &(_, l))| l <= LOOP_RESULT_LEN || direct.contains(&u32::try_from(j).ok()))
        {
            let mut lsig = module.make_signature();
            for _ in 0..6 {
                lsig.params.push(AbiParam::new(ptr));
            }
            lsig.returns.push(AbiParam::new(ptr));
            let id = module
                .declare_function("whole_loop", Linkage::Local, &lsig)
                .map_err(|_| NotCompiled)?;
            ctx.func.signature = lsig;
            ctx.func.name = UserFuncName::user(0, id.as_u32());
            let extent = {
                let b = FunctionBuilder::new(&mut ctx.func, &mut fctx);
                let mut g = Gen::new(b, ptr, module.isa().default_call_conv());
                let entry = g.b.current_block().ok_or(NotCompiled)?;
                let args = g.b.block_params(entry).to_vec();
                g.whole_loop(instrs, direct, results, cond, read_after, &args)?;
                g.finish(module.target_config())
            };
            module
                .define_function(id, &mut ctx)
                .map_err(|_| NotCompiled)?;
            module.clear_context(&mut ctx);
            whole_loop = Some((id, extent));
        }
    }
    module.finalize_definitions().map_err(|_| NotCompiled)?;
    let whole_loop = whole_loop.map(|(id, extent)| (module.get_finalized_function(id), extent));
    let entries: Vec<*const u8> = made
        .iter()
        .map(|(id, ..)| module.get_finalized_function(*id))
        .collect();
    let code = Arc::new(NativeCode(Mutex::new(Some(module))));
    let whole_loop = whole_loop.map(|(p, extent)| NativeLoop {
        // SAFETY: `p` is the finalized code of the function declared with
        // `lsig`: six pointer-sized arguments, one pointer-sized result,
        // the platform's C calling convention.
        entry: unsafe { std::mem::transmute::<*const u8, LoopEntry>(p) },
        _code: code.clone(),
        extent,
    });
    let runs = made
        .into_iter()
        .zip(entries)
        .map(|((_, extent, instrs), p)| NativeRun {
            // SAFETY: `p` is the finalized code of a function declared
            // with `sig`: three pointer arguments, no result, the
            // platform's C calling convention.
            entry: unsafe { std::mem::transmute::<*const u8, Entry>(p) },
            _code: code.clone(),
            extent,
            instrs,
        })
        .collect();
    Ok((runs, whole_loop))
}

/// The flags of every access: no trap (the caller checked the extents),
/// no alignment promised.
fn mem() -> MemFlagsData {
    MemFlagsData::new().with_notrap()
}

/// One function being generated.
struct Gen<'a> {
    b: FunctionBuilder<'a>,
    ptr: types::Type,
    arena: Value,
    params_arg: Value,
    rows_arg: Value,
    /// Per body parameter read: its pointer slot and value.
    params: HashMap<usize, (usize, Value)>,
    /// Per body result written into its row: its row slot and the
    /// destination pointer (the row, or the arena when no row is given).
    rows: HashMap<u32, (usize, Value)>,
    /// The value each element of the arena holds now, when generated
    /// code computed or loaded it (no reload).
    known: HashMap<usize, Value>,
    extent: Extent,
    unary_sig: SigRef,
    binary_sig: SigRef,
    /// In a whole loop ([`NativeLoop`]): the step's index and the array
    /// of each parameter's stride in elements (a parameter's pointer is
    /// its first step's plus the index times its stride).
    step: Option<(Value, Value)>,
    /// In a whole loop: the array of each result row's stride.
    row_strides: Option<Value>,
    /// The function's result (a whole loop's steps run), if it has one.
    ret: Option<Value>,
}

impl<'a> Gen<'a> {
    fn new(mut b: FunctionBuilder<'a>, ptr: types::Type, cc: CallConv) -> Gen<'a> {
        let block = b.create_block();
        b.append_block_params_for_function_params(block);
        b.switch_to_block(block);
        let args = b.block_params(block).to_vec();
        let mut us = Signature::new(cc);
        us.params.push(AbiParam::new(types::F64));
        us.returns.push(AbiParam::new(types::F64));
        let unary_sig = b.import_signature(us);
        let mut bs = Signature::new(cc);
        bs.params.push(AbiParam::new(types::F64));
        bs.params.push(AbiParam::new(types::F64));
        bs.returns.push(AbiParam::new(types::F64));
        let binary_sig = b.import_signature(bs);
        Gen {
            b,
            ptr,
            arena: args[0],
            params_arg: args[1],
            rows_arg: args[2],
            params: HashMap::new(),
            rows: HashMap::new(),
            known: HashMap::new(),
            extent: Extent::default(),
            unary_sig,
            binary_sig,
            step: None,
            row_strides: None,
            ret: None,
        }
    }

    fn finish(mut self, config: cranelift_codegen::isa::TargetFrontendConfig) -> Extent {
        match self.ret {
            Some(v) => self.b.ins().return_(&[v]),
            None => self.b.ins().return_(&[]),
        };
        self.b.seal_all_blocks();
        self.b.finalize(config);
        self.extent
    }

    /// A byte offset as an immediate.
    fn bytes(elems: usize) -> Result<i32, NotCompiled> {
        elems
            .checked_mul(8)
            .and_then(|b| i32::try_from(b).ok())
            .ok_or(NotCompiled)
    }

    /// The base pointer and element offset of `len` elements at `loc`,
    /// recording them in the extent.
    fn base(&mut self, loc: Loc, len: usize) -> Result<(Value, usize), NotCompiled> {
        match loc {
            Loc::Arena(o) => {
                self.extent.arena = self.extent.arena.max(o + len);
                Ok((self.arena, o))
            }
            Loc::Param(k, o) => {
                let (slot, p) = match self.params.get(&k) {
                    Some(&sp) => sp,
                    None => {
                        let slot = self.extent.params.len();
                        if slot >= MAX_POINTERS {
                            return Err(NotCompiled);
                        }
                        // Loaded in the straight-line part of the code
                        // (never inside a group's loop), which dominates
                        // every later use.
                        let mut p = self.load_pointer(self.params_arg, slot)?;
                        if let Some((t, strides)) = self.step {
                            let stride = self.load_pointer(strides, slot)?;
                            let elems = self.b.ins().imul(t, stride);
                            let bytes = self.b.ins().ishl_imm_s(elems, 3);
                            p = self.b.ins().iadd(p, bytes);
                        }
                        self.extent.params.push((k, 0));
                        self.params.insert(k, (slot, p));
                        (slot, p)
                    }
                };
                let need = &mut self.extent.params[slot].1;
                *need = (*need).max(o + len);
                Ok((p, o))
            }
        }
    }

    fn load_pointer(&mut self, array: Value, slot: usize) -> Result<Value, NotCompiled> {
        let off = i32::try_from(slot * self.ptr.bytes() as usize).map_err(|_| NotCompiled)?;
        Ok(self.b.ins().load(self.ptr, mem(), array, off))
    }

    /// One element at `loc`.
    fn scalar(&mut self, loc: Loc) -> Result<Value, NotCompiled> {
        if let Loc::Arena(o) = loc {
            if let Some(&v) = self.known.get(&o) {
                return Ok(v);
            }
        }
        let (p, o) = self.base(loc, 1)?;
        let v = self.b.ins().load(types::F64, mem(), p, Self::bytes(o)?);
        if let Loc::Arena(o) = loc {
            self.known.insert(o, v);
        }
        Ok(v)
    }

    /// Stores one element into the arena.
    fn put(&mut self, dst: usize, v: Value) -> Result<(), NotCompiled> {
        let (p, o) = self.base(Loc::Arena(dst), 1)?;
        self.b.ins().store(mem(), v, p, Self::bytes(o)?);
        self.known.insert(dst, v);
        Ok(())
    }

    fn binary(&mut self, op: BinaryOp, x: Value, y: Value) -> Value {
        let ins = self.b.ins();
        match op {
            BinaryOp::Add => ins.fadd(x, y),
            BinaryOp::Sub => ins.fsub(x, y),
            BinaryOp::Mul => ins.fmul(x, y),
            BinaryOp::Div => ins.fdiv(x, y),
            BinaryOp::Pow
            | BinaryOp::Maximum
            | BinaryOp::Minimum
            | BinaryOp::Mod
            | BinaryOp::FloorDiv => {
                let f = self.b.ins().iconst(self.ptr, binary_entry(op) as i64);
                let call = self.b.ins().call_indirect(self.binary_sig, f, &[x, y]);
                self.b.inst_results(call)[0]
            }
        }
    }

    fn unary(&mut self, op: UnaryOp, x: Value) -> Value {
        match op {
            UnaryOp::Neg => self.b.ins().fneg(x),
            UnaryOp::Abs => self.b.ins().fabs(x),
            _ => {
                let f = self.b.ins().iconst(self.ptr, unary_entry(op) as i64);
                let call = self.b.ins().call_indirect(self.unary_sig, f, &[x]);
                self.b.inst_results(call)[0]
            }
        }
    }

    /// Generates a whole loop around the run (the step's only
    /// instruction): `n` steps, each running the run with every parameter
    /// pointer advanced by its stride, then copying each body result
    /// `(offset, length)` from the arena to its row (row pointer plus
    /// the step times the row's stride), as the loop commits a step. A
    /// while loop's condition (`cond`, a result of one element, with no
    /// row) ends the loop after the step where it is non-zero or NaN, as
    /// the tape's loop tests it. Arguments: arena, parameter pointers and
    /// strides, row pointers and strides, `n`; returns the steps that ran.
    fn whole_loop(
        &mut self,
        run: &[Instr],
        direct: &[Option<u32>],
        results: &[(usize, usize)],
        cond: Option<usize>,
        read_after: &dyn Fn(usize, usize, usize) -> bool,
        args: &[Value],
    ) -> Result<(), NotCompiled> {
        let &[_, _, p_strides, rows, r_strides, n] = args else {
            return Err(NotCompiled);
        };
        if results.len() > MAX_POINTERS + usize::from(cond.is_some()) {
            return Err(NotCompiled);
        }
        let header = self.b.create_block();
        let exit = self.b.create_block();
        self.b.append_block_param(header, types::I64);
        self.b.append_block_param(exit, types::I64);
        let zero = self.b.ins().iconst(types::I64, 0);
        let any = self.b.ins().icmp_imm_s(IntCC::NotEqual, n, 0);
        self.b.ins().brif(
            any,
            header,
            &[BlockArg::Value(zero)],
            exit,
            &[BlockArg::Value(zero)],
        );
        self.b.switch_to_block(header);
        let t = self.b.block_params(header)[0];
        self.step = Some((t, p_strides));
        self.rows_arg = rows;
        self.row_strides = Some(r_strides);
        self.run(run, direct, read_after)?;
        for (j, &(off, len)) in results.iter().enumerate() {
            if self.rows.contains_key(&(j as u32)) || cond == Some(j) {
                // Written straight into its row by the run, or the
                // condition (no row).
                continue;
            }
            let row = self.load_pointer(rows, j)?;
            let stride = self.load_pointer(r_strides, j)?;
            let elems = self.b.ins().imul(t, stride);
            let bytes = self.b.ins().ishl_imm_s(elems, 3);
            let dst = self.b.ins().iadd(row, bytes);
            self.extent.arena = self.extent.arena.max(off + len);
            for i in 0..len {
                let v = self.scalar(Loc::Arena(off + i))?;
                self.b.ins().store(mem(), v, dst, Self::bytes(i)?);
            }
        }
        let next = self.b.ins().iadd_imm_s(t, 1);
        if let Some(c) = cond {
            let &(off, len) = results.get(c).ok_or(NotCompiled)?;
            if len != 1 {
                return Err(NotCompiled);
            }
            self.extent.arena = self.extent.arena.max(off + 1);
            let v = self.scalar(Loc::Arena(off))?;
            let zero = self.b.ins().f64const(0.0);
            // Unordered or not equal: non-zero, or NaN.
            let holds = self.b.ins().fcmp(FloatCC::NotEqual, v, zero);
            let go_on = self.b.create_block();
            self.b
                .ins()
                .brif(holds, exit, &[BlockArg::Value(next)], go_on, &[]);
            self.b.switch_to_block(go_on);
        }
        let more = self.b.ins().icmp(IntCC::UnsignedLessThan, next, n);
        self.b.ins().brif(
            more,
            header,
            &[BlockArg::Value(next)],
            exit,
            &[BlockArg::Value(next)],
        );
        self.b.switch_to_block(exit);
        self.ret = Some(self.b.block_params(exit)[0]);
        Ok(())
    }

    /// Generates the run: `read_after(k, o, l)` tells whether anything
    /// after the run's instruction `k` reads `[o, o + l)` of the arena.
    fn run(
        &mut self,
        run: &[Instr],
        direct: &[Option<u32>],
        read_after: &dyn Fn(usize, usize, usize) -> bool,
    ) -> Result<(), NotCompiled> {
        let mut i = 0;
        while i < run.len() {
            match kind(&run[i]) {
                Kind::Scalar => {
                    self.scalar_instr(&run[i])?;
                    i += 1;
                }
                Kind::Lanes(len) => {
                    let mut members = vec![(&run[i], direct.get(i).copied().flatten())];
                    let mut j = i + 1;
                    while j < run.len() && joins(&members, &run[j], len) {
                        members.push((&run[j], direct.get(j).copied().flatten()));
                        j += 1;
                    }
                    let last = j - 1;
                    self.group(&members, len, &|o, l| read_after(last, o, l))?;
                    i = j;
                }
                Kind::No => return Err(NotCompiled),
            }
        }
        Ok(())
    }

    fn scalar_instr(&mut self, ins: &Instr) -> Result<(), NotCompiled> {
        match *ins {
            Instr::Copy { src, dst, len: 1 } | Instr::Move1 { src, dst } => {
                let v = self.scalar(src)?;
                self.put(dst, v)
            }
            Instr::MulAdd1 { acc, a, b, dst } => {
                let (c, x, y) = (self.scalar(acc)?, self.scalar(a)?, self.scalar(b)?);
                let p = self.b.ins().fmul(x, y);
                let v = self.b.ins().fadd(c, p);
                self.put(dst, v)
            }
            Instr::Unary1 { op, src, dst } => {
                let x = self.scalar(src)?;
                let v = self.unary(op, x);
                self.put(dst, v)
            }
            Instr::Binary1 { op, a, b, dst } => {
                let (x, y) = (self.scalar(a)?, self.scalar(b)?);
                let v = self.binary(op, x, y);
                self.put(dst, v)
            }
            Instr::Compare {
                op,
                a,
                b,
                dst,
                len: 1,
            } => {
                let (x, y) = (self.scalar(a.loc)?, self.scalar(b.loc)?);
                // IEEE comparisons, as Rust's operators: ordered for all
                // but `!=`, which holds when either side is NaN.
                let cc = match op {
                    CompareOp::Gt => FloatCC::GreaterThan,
                    CompareOp::Ge => FloatCC::GreaterThanOrEqual,
                    CompareOp::Lt => FloatCC::LessThan,
                    CompareOp::Le => FloatCC::LessThanOrEqual,
                    CompareOp::Eq => FloatCC::Equal,
                    CompareOp::Ne => FloatCC::NotEqual,
                };
                let holds = self.b.ins().fcmp(cc, x, y);
                let one = self.b.ins().f64const(1.0);
                let zero = self.b.ins().f64const(0.0);
                let v = self.b.ins().select(holds, one, zero);
                self.put(dst, v)
            }
            Instr::Scalars(ref ops) => {
                let at = |i: u32| Loc::Arena(i as usize);
                for op in ops.iter() {
                    let (v, dst) = match *op {
                        ScalarOp::Move { src, dst } => (self.scalar(at(src))?, dst),
                        ScalarOp::MulAdd { acc, a, b, dst } => {
                            let c = self.scalar(at(acc))?;
                            let x = self.scalar(at(a))?;
                            let y = self.scalar(at(b))?;
                            let p = self.b.ins().fmul(x, y);
                            (self.b.ins().fadd(c, p), dst)
                        }
                        ScalarOp::Add { a, b, dst } => {
                            let (x, y) = (self.scalar(at(a))?, self.scalar(at(b))?);
                            (self.b.ins().fadd(x, y), dst)
                        }
                        ScalarOp::Sub { a, b, dst } => {
                            let (x, y) = (self.scalar(at(a))?, self.scalar(at(b))?);
                            (self.b.ins().fsub(x, y), dst)
                        }
                        ScalarOp::Mul { a, b, dst } => {
                            let (x, y) = (self.scalar(at(a))?, self.scalar(at(b))?);
                            (self.b.ins().fmul(x, y), dst)
                        }
                        ScalarOp::Binary { op, a, b, dst } => {
                            let (x, y) = (self.scalar(at(a))?, self.scalar(at(b))?);
                            (self.binary(op, x, y), dst)
                        }
                        ScalarOp::Unary { op, src, dst } => {
                            let x = self.scalar(at(src))?;
                            (self.unary(op, x), dst)
                        }
                    };
                    self.put(dst as usize, v)?;
                }
                Ok(())
            }
            _ => Err(NotCompiled),
        }
    }

    /// The destination pointer and element offset of a member: its row
    /// when it writes a result straight into one and the caller gives the
    /// row, else its region of the arena.
    fn destination(
        &mut self,
        dst: usize,
        len: usize,
        direct: Option<u32>,
    ) -> Result<(Value, usize), NotCompiled> {
        let Some(j) = direct else {
            return self.base(Loc::Arena(dst), len);
        };
        if let Some(&(_, p)) = self.rows.get(&j) {
            return Ok((p, 0));
        }
        if let Some((t, _)) = self.step {
            // In a whole loop: always the row, result j's pointer plus
            // the step times its stride (the caller checked that no
            // parameter the step reads lies in it).
            let slot = j as usize;
            if slot >= MAX_POINTERS {
                return Err(NotCompiled);
            }
            let row = self.load_pointer(self.rows_arg, slot)?;
            let stride = self.load_pointer(self.row_strides.ok_or(NotCompiled)?, slot)?;
            let elems = self.b.ins().imul(t, stride);
            let bytes = self.b.ins().ishl_imm_s(elems, 3);
            let p = self.b.ins().iadd(row, bytes);
            self.extent.rows.push((j, len));
            self.rows.insert(j, (slot, p));
            return Ok((p, 0));
        }
        let slot = self.extent.rows.len();
        if slot >= MAX_POINTERS {
            return Err(NotCompiled);
        }
        let row = self.load_pointer(self.rows_arg, slot)?;
        let (arena, o) = self.base(Loc::Arena(dst), len)?;
        let in_arena = self.b.ins().iadd_imm_s(arena, i64::from(Self::bytes(o)?));
        let given = self.b.ins().icmp_imm_s(IntCC::NotEqual, row, 0);
        let p = self.b.ins().select(given, row, in_arena);
        self.extent.rows.push((j, len));
        self.rows.insert(j, (slot, p));
        Ok((p, 0))
    }

    /// One loop over `len` elements computing every member; a member's
    /// value is stored unless nothing later reads it (`read_after`) and
    /// no later member reads it from memory.
    fn group(
        &mut self,
        members: &[(&Instr, Option<u32>)],
        len: usize,
        read_after: &dyn Fn(usize, usize) -> bool,
    ) -> Result<(), NotCompiled> {
        // Operands: per member, each operand as (base, offset, scalar
        // value, or the index of the member whose value it is).
        #[derive(Clone, Copy)]
        enum Src {
            Mem(Value, usize),
            Splat(Value),
            Member(usize),
        }
        let dsts: Vec<(usize, usize)> = members
            .iter()
            .map(|(m, _)| {
                let mut w = (0, 0);
                m.writes(&mut |d, n| w = (d, n));
                w
            })
            .collect();
        let resolve = |g: &mut Self, k: usize, o: Operand| -> Result<Src, NotCompiled> {
            if o.cover == Cover::Scalar {
                return Ok(Src::Splat(g.scalar(o.loc)?));
            }
            if let Loc::Arena(off) = o.loc {
                // (`joins` admitted a read of a member's value only
                // whole, of a member not written into a row.)
                if let Some(m) = dsts[..k].iter().position(|&(d, n)| d == off && n == len) {
                    return match members[m].1 {
                        None => Ok(Src::Member(m)),
                        Some(_) => Err(NotCompiled),
                    };
                }
            }
            let (p, off) = g.base(o.loc, len)?;
            Ok(Src::Mem(p, off))
        };
        // Per member: its operation and operands.
        enum Calc {
            Copy(Src),
            Unary(UnaryOp, Src),
            Binary(BinaryOp, Src, Src),
            Binary2(BinaryOp, BinaryOp, bool, Src, Src, Src),
        }
        let mut calcs = Vec::with_capacity(members.len());
        for (k, (m, _)) in members.iter().enumerate() {
            let full = |loc| Operand {
                loc,
                cover: Cover::Full,
            };
            calcs.push(match **m {
                Instr::Copy { src, .. } => Calc::Copy(resolve(self, k, full(src))?),
                Instr::Unary { op, src, .. } => Calc::Unary(op, resolve(self, k, full(src))?),
                Instr::Binary { op, a, b, .. } => {
                    Calc::Binary(op, resolve(self, k, a)?, resolve(self, k, b)?)
                }
                Instr::Binary2 {
                    outer,
                    inner,
                    inner_first,
                    x,
                    y,
                    z,
                    ..
                } => Calc::Binary2(
                    outer,
                    inner,
                    inner_first,
                    resolve(self, k, x)?,
                    resolve(self, k, y)?,
                    resolve(self, k, z)?,
                ),
                _ => return Err(NotCompiled),
            });
        }
        // Where each member's value goes (None: nowhere).
        let mut outs = Vec::with_capacity(members.len());
        for (k, (_, direct)) in members.iter().enumerate() {
            let (d, n) = dsts[k];
            // (A later member reads it from a register: `joins` admits
            // no read of it from memory.)
            let needed = direct.is_some() || read_after(d, n);
            outs.push(if needed {
                Some(self.destination(d, n, *direct)?)
            } else {
                None
            });
        }
        // The arena's values there change: forget them.
        for &(d, n) in &dsts {
            self.known.retain(|&o, _| !(d..d + n).contains(&o));
        }
        let ty2 = types::F64X2;
        let pairs = len / 2;
        let emit = |g: &mut Self, ty: types::Type, index: Value| -> Result<(), NotCompiled> {
            let byte = g.b.ins().imul_imm_s(index, 8);
            let mut vals: Vec<Value> = Vec::with_capacity(calcs.len());
            for (k, calc) in calcs.iter().enumerate() {
                let get = |g: &mut Self, s: Src| -> Result<Value, NotCompiled> {
                    Ok(match s {
                        Src::Mem(p, off) => {
                            let a = g.b.ins().iadd(p, byte);
                            g.b.ins().load(ty, mem(), a, Self::bytes(off)?)
                        }
                        Src::Splat(v) if ty == ty2 => g.b.ins().splat(ty2, v),
                        Src::Splat(v) => v,
                        Src::Member(m) => *vals.get(m).ok_or(NotCompiled)?,
                    })
                };
                let v = match *calc {
                    Calc::Copy(s) => get(g, s)?,
                    Calc::Unary(op, s) => {
                        let x = get(g, s)?;
                        match op {
                            UnaryOp::Neg => g.b.ins().fneg(x),
                            UnaryOp::Abs => g.b.ins().fabs(x),
                            _ => return Err(NotCompiled),
                        }
                    }
                    Calc::Binary(op, a, b) => {
                        let (x, y) = (get(g, a)?, get(g, b)?);
                        if !inline_binary(op) {
                            return Err(NotCompiled);
                        }
                        g.binary(op, x, y)
                    }
                    Calc::Binary2(outer, inner, inner_first, x, y, z) => {
                        let (x, y, z) = (get(g, x)?, get(g, y)?, get(g, z)?);
                        if !inline_binary(outer) || !inline_binary(inner) {
                            return Err(NotCompiled);
                        }
                        let t = g.binary(inner, x, y);
                        if inner_first {
                            g.binary(outer, t, z)
                        } else {
                            g.binary(outer, z, t)
                        }
                    }
                };
                if let Some((p, off)) = outs[k] {
                    let a = g.b.ins().iadd(p, byte);
                    g.b.ins().store(mem(), v, a, Self::bytes(off)?);
                }
                vals.push(v);
            }
            Ok(())
        };
        if pairs > 0 {
            let body = self.b.create_block();
            let exit = self.b.create_block();
            self.b.append_block_param(body, types::I64);
            let zero = self.b.ins().iconst(types::I64, 0);
            self.b.ins().jump(body, &[BlockArg::Value(zero)]);
            self.b.switch_to_block(body);
            let index = self.b.block_params(body)[0];
            emit(self, ty2, index)?;
            let next = self.b.ins().iadd_imm_s(index, 2);
            let end = i64::try_from(pairs * 2).map_err(|_| NotCompiled)?;
            let more = self.b.ins().icmp_imm_s(IntCC::UnsignedLessThan, next, end);
            self.b
                .ins()
                .brif(more, body, &[BlockArg::Value(next)], exit, &[]);
            self.b.switch_to_block(exit);
        }
        if len % 2 == 1 {
            let index = self.b.ins().iconst(types::I64, (len - 1) as i64);
            emit(self, types::F64, index)?;
        }
        Ok(())
    }
}
