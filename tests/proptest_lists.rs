//! Property tests of nested lists: random lengths at depths 1–3 (empty
//! lists included) against a plain nested-`Vec` model of the same list.
//!
//! Checked: the canonical layout round-trips (`from_parts ∘ to_parts`);
//! every element (`index`, negative indices too) is the model's element;
//! `flatten` concatenates the model's inner lists; `stack` gives the rows;
//! `len` is the model's; an index past either end is an error; and a
//! program of list ops run by the list evaluator gives the model's result.

use eqscan::exec::list::gen::Lengths;
use eqscan::exec::list::{eval_items, Element, Item, ListValue};
use eqscan::exec::{MemoryBudget, Value};
use eqscan::lang::parse_program;
use ndarray::ArrayD;
use proptest::prelude::*;

/// The model: a list is a Vec of elements; an element is a list or a
/// tensor given by its row number in `values`.
#[derive(Clone, Debug, PartialEq)]
enum Model {
    List(Vec<Model>),
    Row(usize),
}

/// Lengths of every depth, outermost first, from per-list lengths drawn
/// in order (cycled).
fn lengths(depth: usize, draws: &[usize]) -> Vec<Vec<usize>> {
    let mut levels = vec![vec![draws[0]]];
    let mut at = 1;
    for k in 1..depth {
        let n: usize = levels[k - 1].iter().sum();
        let lens: Vec<usize> = (0..n)
            .map(|_| {
                at += 1;
                draws[at % draws.len()]
            })
            .collect();
        levels.push(lens);
    }
    levels
}

fn model(levels: &[Vec<usize>]) -> Model {
    fn build(levels: &[Vec<usize>], k: usize, pos: usize) -> Model {
        let n = levels[k][pos];
        let start: usize = levels[k][..pos].iter().sum();
        if k + 1 == levels.len() {
            Model::List((start..start + n).map(Model::Row).collect())
        } else {
            Model::List((0..n).map(|j| build(levels, k + 1, start + j)).collect())
        }
    }
    build(levels, 0, 0)
}

fn spec(levels: &[Vec<usize>]) -> String {
    levels
        .iter()
        .map(|l| {
            l.iter()
                .map(|n| n.to_string())
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect::<Vec<_>>()
        .join("/")
}

fn values(count: usize, width: usize) -> Value {
    let data: Vec<f64> = (0..count * width).map(|x| x as f64 * 0.5 - 3.0).collect();
    Value::F64(ArrayD::from_shape_vec(vec![count, width], data).unwrap())
}

fn row(v: &Value, i: usize) -> Value {
    match v {
        Value::F64(a) => Value::F64(a.index_axis(ndarray::Axis(0), i).to_owned()),
        _ => unreachable!(),
    }
}

/// Checks `l` against the model `m` element by element.
fn agrees(l: &ListValue, m: &Model, vals: &Value) -> Result<(), TestCaseError> {
    let Model::List(items) = m else {
        return Err(TestCaseError::fail("a list modelled by a row"));
    };
    prop_assert_eq!(l.len(), items.len());
    prop_assert!(l.get(items.len() as i64).is_err());
    prop_assert!(l.get(-(items.len() as i64) - 1).is_err());
    for (k, item) in items.iter().enumerate() {
        let neg = k as i64 - items.len() as i64;
        for e in [l.get(k as i64), l.get(neg)] {
            match (e.map_err(TestCaseError::fail)?, item) {
                (Element::Tensor(t), Model::Row(r)) => prop_assert_eq!(t, row(vals, *r)),
                (Element::List(sub), m) => agrees(&sub, m, vals)?,
                _ => return Err(TestCaseError::fail("element kinds differ")),
            }
        }
    }
    Ok(())
}

fn rows_of(m: &Model) -> Vec<usize> {
    match m {
        Model::Row(r) => vec![*r],
        Model::List(items) => items.iter().flat_map(rows_of).collect(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn lists_agree_with_the_model(
        depth in 1usize..=3,
        draws in prop::collection::vec(0usize..4, 1..12),
        width in 0usize..3,
    ) {
        let levels = lengths(depth, &draws);
        let lens = Lengths::parse(&spec(&levels), depth).map_err(TestCaseError::fail)?;
        let vals = values(lens.count(), width);
        let l = ListValue::from_parts(vals.clone(), lens.splits()).map_err(TestCaseError::fail)?;
        let m = model(&levels);
        prop_assert_eq!(l.depth(), depth);
        agrees(&l, &m, &vals)?;
        // The canonical layout round-trips.
        let (v, s) = l.to_parts();
        prop_assert_eq!(&v, &vals);
        let again = ListValue::from_parts(v, s).map_err(TestCaseError::fail)?;
        prop_assert_eq!(&again, &l);
        // flatten concatenates the inner lists.
        if depth >= 2 {
            let f = l.flatten().map_err(TestCaseError::fail)?;
            let Model::List(outer) = &m else { unreachable!() };
            let inner: Vec<Model> = outer
                .iter()
                .flat_map(|x| match x {
                    Model::List(xs) => xs.clone(),
                    Model::Row(_) => Vec::new(),
                })
                .collect();
            agrees(&f, &Model::List(inner), &vals)?;
        } else {
            prop_assert!(l.flatten().is_err());
            prop_assert_eq!(l.stack().map_err(TestCaseError::fail)?, vals.clone());
        }
        prop_assert_eq!(rows_of(&m), (0..lens.count()).collect::<Vec<_>>());
    }

    /// A program of list ops, run by the list evaluator, against the model:
    /// the rows of the flattened list, the length of the last element.
    #[test]
    fn a_list_program_agrees_with_the_model(
        draws in prop::collection::vec(0usize..4, 1..12),
    ) {
        let levels = lengths(2, &draws);
        prop_assume!(levels[0][0] > 0);
        let lens = Lengths::parse(&spec(&levels), 2).map_err(TestCaseError::fail)?;
        let vals = values(lens.count(), 2);
        let l = ListValue::from_parts(vals.clone(), lens.splits()).map_err(TestCaseError::fail)?;
        let p = parse_program(
            "(program p (input L (list (list (f64 2))))
               (output (stack (flatten L)) (len (index L -1)) (flatten L)))",
        )
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
        let (outs, _) = eval_items(&p, &[Item::List(l.clone())], &Default::default(), &MemoryBudget::default())
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(&outs[0], &Item::Tensor(vals.clone()));
        let last = *levels[1].last().unwrap_or(&0) as i64;
        prop_assert_eq!(&outs[1], &Item::Tensor(Value::scalar_i64(last)));
        prop_assert_eq!(&outs[2], &Item::List(l.flatten().map_err(TestCaseError::fail)?));
    }
}
