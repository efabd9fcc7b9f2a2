//! The rule-file layer: loading, errors with spans, soundness checks of the
//! shipped rules, and type-safe rewriting in the e-graph. Each shipped rule
//! is two trials, `check::NAME` and `print_back::NAME`.

mod common;

use common::harness::{self, plain_trials};
use eqscan::egraph::analysis::{EGraph, TensorAnalysis};
use eqscan::egraph::term::program_to_expr;
use eqscan::lang::parse_program;
use eqscan::rules::check::Finding;
use eqscan::rules::{check_rule, load_rules, parse_rules, to_rewrites, Rule, RuleError};
use libtest_mimic::{Failed, Trial};
use std::path::PathBuf;

fn shipped() -> Vec<Rule> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("rules");
    match load_rules(&[dir]) {
        Ok(r) => r,
        Err(es) => panic!(
            "{}",
            es.iter()
                .map(|e| e.to_string())
                .collect::<Vec<_>>()
                .join("\n")
        ),
    }
}

fn every_shipped_rule_file_loads() {
    let rules = shipped();
    assert!(rules.len() > 50, "{} rules", rules.len());
    for f in [
        "algebra.rules",
        "linalg.rules",
        "reductions.rules",
        "shape.rules",
        "stable.rules",
    ] {
        assert!(rules.iter().any(|r| r.file.ends_with(f)), "{f}");
    }
}

/// One shipped rule passes the check: the call `eqscan rules check rules/`
/// makes for it, and two more seeds.
fn shipped_rule_passes_the_check(r: &Rule) -> Result<(), Failed> {
    let mut bad: Vec<String> = eqscan::rules::check_rules(std::slice::from_ref(r))
        .into_iter()
        .map(|(name, c)| format!("{name}: {c}"))
        .collect();
    for seed in [7, 99] {
        if let Err(c) = check_rule(r, 200, seed) {
            bad.push(format!(
                "{} ({}:{}, seed {seed}): {c}",
                r.name, r.file, r.line
            ));
        }
    }
    if bad.is_empty() {
        Ok(())
    } else {
        Err(bad.join("\n").into())
    }
}

fn one(text: &str) -> Rule {
    match parse_rules(text, "t.rules") {
        Ok(mut r) => r.remove(0),
        Err(es) => panic!("{es:?}"),
    }
}

fn commuted_subtraction_is_unsound() {
    let r = one("sub-comm: (sub ?a ?b) => (sub ?b ?a)");
    let c = check_rule(&r, 100, 1).expect_err("sub-comm must fail");
    assert_eq!(c.finding, Finding::Unsound, "{c}");
    assert_eq!(c.bindings.len(), 2, "{c}");
    assert!(c.to_string().starts_with("unsound: with ?a = "), "{c}");
}

/// The check finds counterexamples for the ops of gradient programs:
/// flipping an axis is not the identity, dropping the wrong axis after
/// `expand_dims` changes the shape (found on a `(3, 1)` operand), and
/// `sum_to` is not the identity when the shapes differ.
fn gradient_op_rules_are_checked() {
    let r = one("flip-id: (flip ?x ?ax) => ?x");
    let c = check_rule(&r, 100, 1).expect_err("flip-id must fail");
    assert_eq!(c.finding, Finding::Unsound, "{c}");
    let r = one("squeeze-wrong: (squeeze (expand_dims ?x 0) -1) => ?x");
    let c = check_rule(&r, 100, 1).expect_err("squeeze-wrong must fail");
    assert_eq!(c.finding, Finding::ChangesType, "{c}");
    let r = one("sum-to-id: (sum_to ?g ?x) => ?g if not-bool(?g)");
    let c = check_rule(&r, 100, 1).expect_err("sum-to-id must fail");
    assert_eq!(c.finding, Finding::ChangesType, "{c}");
    let r = one("inc-twice: (inc_index (inc_index ?x ?g 0) ?g 0) => (inc_index ?x ?g 0)");
    let c = check_rule(&r, 100, 1).expect_err("inc-twice must fail");
    assert_eq!(c.finding, Finding::Unsound, "{c}");
}

fn times_zero_as_a_scalar_changes_the_shape() {
    let r = one("mul-zero-bad: (mul ?a 0.0) => 0.0");
    let c = check_rule(&r, 100, 1).expect_err("must fail");
    assert_eq!(c.finding, Finding::ChangesType, "{c}");
    // Either a non-scalar ?a (shape) or a strong ?a (dtype/weakness) is
    // enough; with a vector or matrix the shape differs.
    let checked = eqscan::rules::check::check_rule(
        &one("mul-zero-vec: (mul ?a 0.0) => 0.0 if ndim(?a, 1)"),
        100,
        1,
    )
    .expect_err("must fail");
    assert_eq!(checked.finding, Finding::ChangesType);
    assert!(checked.bindings[0].ty.contains("(3,)"), "{checked}");
    assert!(checked.rhs.contains("()"), "{checked}");
}

fn errors(text: &str) -> Vec<String> {
    match parse_rules(text, "bad.rules") {
        Ok(r) => panic!("expected errors, got {} rules", r.len()),
        Err(es) => es.iter().map(|e| e.to_string()).collect(),
    }
}

fn bad_rules_report_every_error_with_its_position() {
    let text = "\
# a comment
ok-rule: (add ?x ?y) => (add ?y ?x)
unknown-op: (frob ?x) => ?x
unknown-pred: (neg (neg ?x)) => ?x if wobbly(?x)
rhs-only: (neg ?x) => (add ?x ?y)
unbalanced: (add ?x (neg ?y) => ?x
after: (mul ?x ?y) => (mul ?y ?x)
stray: (mul ?x ?y)) => ?x
";
    let es = errors(text);
    let want = [
        "bad.rules:3:14: unknown op 'frob'",
        "bad.rules:4:39: unknown predicate 'wobbly'",
        "bad.rules:5:31: variable ?y is not bound",
        "bad.rules:6:13: unbalanced parentheses",
        "bad.rules:8:19: unbalanced parentheses",
    ];
    assert_eq!(es.len(), want.len(), "{es:#?}");
    for (e, w) in es.iter().zip(want) {
        assert!(e.starts_with(w), "{e}\n  wanted {w}");
    }
}

fn more_bad_rules() {
    let es = errors(
        "a: (add ?x) => ?x\nb: (neg ?x) ?x\nc: (neg ?x) => (neg ?x) if ndim(?x)\nd: ?x => (neg ?x)\n\
         e: (pow ?x 1) <=> ?x\nf: (add ?x zero) => ?x\nf: (neg ?x) => ?x\nf: (exp ?x) => ?x\n",
    );
    let want = [
        "bad.rules:1:5: add does not take 1 argument(s)",
        "bad.rules:2:1: rule 'b' has no '=>'",
        "bad.rules:3:28: bad condition 'ndim'",
        "bad.rules:4:4: the left side of rule 'd' is a bare variable",
        "bad.rules:5:19: the left side of rule 'e-rev' is a bare variable",
        "bad.rules:6:12: unknown name 'zero'",
        "bad.rules:8:1: rule 'f' is defined twice (first at bad.rules:7:1)",
    ];
    assert_eq!(es.len(), want.len(), "{es:#?}");
    for (e, w) in es.iter().zip(want) {
        assert!(e.starts_with(w), "{e}\n  wanted {w}");
    }
}

fn files_and_folders_load_and_errors_name_the_file() {
    let dir = std::env::temp_dir().join(format!("eqscan-rules-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("b.rules"), "b1: (neg (neg ?x)) => ?x\n").unwrap();
    std::fs::write(dir.join("a.rules"), "a1: (add ?x ?y) => (add ?y ?x)\n").unwrap();
    std::fs::write(dir.join("notes.txt"), "not rules").unwrap();
    let rules = load_rules(std::slice::from_ref(&dir)).unwrap();
    let names: Vec<&str> = rules.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["a1", "b1"]);
    std::fs::write(dir.join("c.rules"), "c1: (sum ?x) => (frob ?x)\n").unwrap();
    let es = load_rules(&[dir.clone(), dir.join("missing.rules")]).unwrap_err();
    assert_eq!(es.len(), 2, "{es:?}");
    assert!(matches!(&es[0], RuleError::UnknownOp { span, .. }
        if span.file.ends_with("c.rules") && span.line == 1 && span.col == 18));
    assert!(matches!(&es[1], RuleError::Io { .. }));
    std::fs::remove_dir_all(&dir).ok();
}

/// One shipped rule prints back to the same rule.
fn rule_prints_back_to_the_same_rule(r: &Rule) {
    let again = one(&r.to_string());
    assert_eq!(again.to_string(), r.to_string());
}

fn the_egraph_refuses_type_changes_and_proves_identities() {
    let p = parse_program(
        "(program t (input X (f64 3)) (input K (i64 3))
           (output (add X 0.0) (mul X 0.0) (add K 0.0)))",
    )
    .unwrap();
    let expr = program_to_expr(&p).unwrap();
    let mut rules: Vec<Rule> = shipped()
        .into_iter()
        .filter(|r| r.file.ends_with("algebra.rules"))
        .collect();
    // A rule that changes a shape: (mul X 0.0) is a vector, 0.0 a scalar.
    rules.push(one("mul-zero-bad: (mul ?a 0.0) => 0.0"));
    let rewrites = to_rewrites(&rules);
    assert_eq!(rewrites.len(), rules.len());
    let runner = egg::Runner::<_, TensorAnalysis>::default()
        .with_explanations_enabled()
        .with_expr(&expr)
        .with_iter_limit(4)
        .with_node_limit(20_000)
        .run(&rewrites);
    let eg: &EGraph = &runner.egraph;
    assert_eq!(eg.analysis.type_conflicts, 0);
    assert!(
        eg.analysis
            .refused
            .get("mul-zero-bad")
            .copied()
            .unwrap_or(0)
            > 0,
        "{:?}",
        eg.analysis.refused
    );
    let root = runner.roots[0];
    let outs = eg[root].nodes[0].children.clone();
    // (add X 0.0) == X
    let xin = eg
        .classes()
        .find(|c| c.nodes.iter().any(|n| n.to_string() == "X"))
        .map(|c| c.id)
        .unwrap();
    assert_eq!(eg.find(outs[0]), eg.find(xin));
    // (add K 0.0) is f64, K is i64: never unioned.
    let kin = eg
        .classes()
        .find(|c| c.nodes.iter().any(|n| n.to_string() == "K"))
        .map(|c| c.id)
        .unwrap();
    assert_ne!(eg.find(outs[2]), eg.find(kin));
}

/// The value range the analysis gives the class of output `k` of a
/// program.
fn output_ranges(text: &str) -> Vec<eqscan::egraph::range::Range> {
    let p = parse_program(text).unwrap();
    let expr = program_to_expr(&p).unwrap();
    let mut eg = EGraph::default();
    let root = eg.add_expr(&expr);
    eg.rebuild();
    let outs = eg[root].nodes[0].children.clone();
    outs.iter().map(|o| eg[*o].data.range).collect()
}

fn the_range_analysis_knows_signs_bounds_and_x_minus_max() {
    use eqscan::egraph::range::Range;
    let rs = output_ranges(
        "(program t (input x (f64 10)) (input M (f64 3 3)) (input k (i64 3)) (input v (f64 4))
           (let m (max x))
           (output (sub x m) (exp (sub x m)) (sum (exp (sub x m)))
                   (tanh x) (sigmoid x) (mul x x) (add (sin x) 2.0)
                   (sub M (max M 0)) (sub M (expand_dims (max M 1) 1))
                   (sub M (expand_dims (max M 0) 1)) (exp x)
                   (sum (fill (f64 7) 3.0)) (arange 5) (dot (fill (f64 3 4) 2.0) (tanh v))
                   (mul k k) (cast i64 (tanh x)) (log (exp (sub x m)))))",
    );
    let r = |lo, hi| Range::new(lo, hi);
    let inf = f64::INFINITY;
    assert_eq!(rs[0], r(-inf, 0.0));
    assert_eq!(rs[1].lo, 0.0);
    assert!(rs[1].hi >= 1.0 && rs[1].hi < 1.0 + 1e-9, "{:?}", rs[1]);
    assert_eq!(rs[2].lo, 0.0);
    assert!(rs[2].hi >= 10.0 && rs[2].hi < 10.0 + 1e-9, "{:?}", rs[2]);
    assert_eq!(rs[3], Range::UNIT);
    assert_eq!(rs[4], Range::BOOL);
    assert_eq!(rs[5], r(0.0, inf));
    assert_eq!(rs[6], r(1.0, 3.0));
    // Axis 0 broadcasts against the trailing axes; keepdims for axis 1.
    assert_eq!(rs[7], r(-inf, 0.0));
    assert_eq!(rs[8], r(-inf, 0.0));
    // max over axis 0 put back at axis 1: not a maximum of each row.
    assert_eq!(rs[9], Range::FULL);
    assert_eq!(rs[10], r(0.0, inf));
    assert!(rs[11].lo <= 21.0 && rs[11].lo > 21.0 - 1e-9, "{:?}", rs[11]);
    assert_eq!(rs[12], r(0.0, 4.0));
    // 4 products of [2, 2] and [-1, 1].
    assert!(rs[13].hi >= 8.0 && rs[13].hi < 8.0 + 1e-9, "{:?}", rs[13]);
    assert_eq!(rs[13].lo, -rs[13].hi);
    // i64 products may wrap: every i64.
    assert_eq!(rs[14], Range::I64);
    assert_eq!(rs[15], r(-1.0, 1.0));
    assert!(rs[16].hi >= 0.0 && rs[16].hi < 1e-12, "{:?}", rs[16]);
}

fn exp_add_without_its_condition_is_unsafe() {
    // The rule as it was before the value-range guard: exp(a + b) ==
    // exp(a) * exp(b) holds for real numbers, and the ordinary trials
    // (magnitudes up to 20 for exp rules) pass it; the extreme battery
    // finds a finite left side whose right side overflows.
    let r =
        one("exp-add: (exp (add ?a ?b)) => (mul (exp ?a) (exp ?b)) if not-bool(?a), not-bool(?b)");
    let c = check_rule(&r, 200, 0x5EED).expect_err("exp-add unguarded must fail");
    assert_eq!(c.finding, Finding::Unsafe, "{c}");
    assert!(c.to_string().starts_with("unsafe: with ?a = "), "{c}");
    assert_eq!(c.bindings.len(), 2, "{c}");
    // The counterexample (seeded): exp(a + b) is 0.0 where exp(a) is inf
    // and exp(b) is 0, so the right side is NaN.
    assert_eq!(
        c.lhs, "f64(3, 3) [0.0, inf, 0.0, inf, inf, 0.0, ...]",
        "{c}"
    );
    assert_eq!(
        c.rhs, "f64(3, 3) [0.0, inf, 0.0, inf, inf, NaN, ...]",
        "{c}"
    );
    // With its shipped guards (exp-safe by value range) it passes.
    let safe = one(
        "exp-add: (exp (add ?a ?b)) => (mul (exp ?a) (exp ?b)) if not-bool(?a), not-bool(?b), exp-safe(?a), exp-safe(?b)",
    );
    assert_eq!(check_rule(&safe, 200, 0x5EED), Ok(()));
}

fn the_battery_catches_stable_to_unstable_and_integer_changes() {
    // tanh(x) => 2 sigmoid(2x) - 1 cancels to 0 for tiny x.
    let r = one("t: (tanh ?x) => (sub (mul 2.0 (sigmoid (mul 2.0 ?x))) 1.0) if not-bool(?x)");
    let c = check_rule(&r, 200, 0x5EED).expect_err("must fail");
    assert_eq!(c.finding, Finding::Unsafe, "{c}");
    assert!(c.rhs.ends_with(" 0.0"), "{c}");
    // max(-x) == -min(x) fails for i64::MIN, which negates to itself.
    let r = one("m: (max (neg ?x)) => (neg (min ?x)) if is-int(?x)");
    let c = check_rule(&r, 200, 0x5EED).expect_err("must fail");
    assert_eq!(c.finding, Finding::Unsafe, "{c}");
    assert!(c.bindings[0].value.contains("-9223372036854775808"), "{c}");
    // x / c => x * (1 / c) for a subnormal c: 1 / c is inf.
    let r = one("d: (div ?x ?c) => (mul ?x (div 1.0 ?c)) if nonzero(?c), is-float(?x), keeps-type(?x, ?c), not-bool(?c)");
    let c = check_rule(&r, 200, 0x5EED).expect_err("must fail");
    assert_eq!(c.finding, Finding::Unsafe, "{c}");
    // Reassociation at one scale of tiny numbers is rounding, not a breach.
    let r = one("a: (add (add ?x ?y) ?z) => (add ?x (add ?y ?z)) if is-float(?x), is-float(?y), is-float(?z), moderate(?x), moderate(?y), moderate(?z)");
    assert_eq!(check_rule(&r, 200, 0x5EED), Ok(()));
}

fn the_rules_folder_does_not_load_fast_math() {
    let rules = shipped();
    assert!(rules.iter().all(|r| !r.file.contains("fast-math")));
    assert!(!rules.iter().any(|r| r.name == "tanh-sigmoid"));
    // Both folders load together: no name is defined twice.
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("rules");
    let both = load_rules(&[dir.clone(), dir.join("fast-math")]).unwrap();
    assert!(both.len() > rules.len());
}

fn range_predicates_read_the_analysis() {
    // exp-add fires where both exponents are known to be small (tanh) and
    // not on an input, whose range is unknown.
    let p = parse_program(
        "(program t (input x (f64 3))
           (output (exp (add (tanh x) (sin x))) (exp (add x (sin x)))))",
    )
    .unwrap();
    let expr = program_to_expr(&p).unwrap();
    let rules: Vec<Rule> = shipped()
        .into_iter()
        .filter(|r| r.name == "exp-add")
        .collect();
    let runner = egg::Runner::<_, TensorAnalysis>::default()
        .with_expr(&expr)
        .with_iter_limit(3)
        .run(&to_rewrites(&rules));
    let eg: &EGraph = &runner.egraph;
    let outs = eg[runner.roots[0]].nodes[0].children.clone();
    let has_mul = |id| eg[id].nodes.iter().any(|n| n.to_string() == "mul");
    assert!(has_mul(outs[0]));
    assert!(!has_mul(outs[1]));
}

fn main() {
    let mut trials = plain_trials![
        every_shipped_rule_file_loads,
        commuted_subtraction_is_unsound,
        gradient_op_rules_are_checked,
        times_zero_as_a_scalar_changes_the_shape,
        bad_rules_report_every_error_with_its_position,
        more_bad_rules,
        files_and_folders_load_and_errors_name_the_file,
        the_egraph_refuses_type_changes_and_proves_identities,
        the_range_analysis_knows_signs_bounds_and_x_minus_max,
        exp_add_without_its_condition_is_unsafe,
        the_battery_catches_stable_to_unstable_and_integer_changes,
        the_rules_folder_does_not_load_fast_math,
        range_predicates_read_the_analysis,
    ];
    // One trial per shipped rule: `check::NAME` and `print_back::NAME`.
    let rules = shipped();
    assert!(rules.len() > 50, "{} rules", rules.len());
    for r in rules {
        let again = r.clone();
        trials.push(Trial::test(format!("check::{}", r.name), move || {
            shipped_rule_passes_the_check(&r)
        }));
        trials.push(Trial::test(
            format!("print_back::{}", again.name),
            move || {
                rule_prints_back_to_the_same_rule(&again);
                Ok(())
            },
        ));
    }
    harness::run(trials);
}
