//! Generated list inputs (`run --gen`) and how their lengths are given.
//!
//! Owns: [`Lengths`] — the lengths of every list of a nested list, depth
//! by depth — read from `--lengths NAME=SPEC` ([`Lengths::parse`]) or,
//! for a list input not named there, the default rule
//! ([`Lengths::default_rule`]); and [`generate_list`], which fills the
//! values by the workload data rule (`crate::exec::gen`), as if the
//! list's `values` array were the input. Must not: know about programs.
//!
//! SPEC: depths separated by `/`, outermost first; each depth the
//! lengths of its lists in order, separated by commas. The outermost
//! depth (one list) may be left out, then it is the count of the next
//! depth's entries. For `(list (list (f64 4)))`, `3/2,0,1` and `2,0,1`
//! both give three sequences of lengths 2, 0 and 1. Depth k+1 must have
//! as many entries as depth k's lengths add up to.
//!
//! Default rule: the outermost list has 3 elements; the j-th list at each
//! deeper depth (counted across that depth, from 0) has `(j + 2) % 4`
//! elements, so empty lists occur from depth 2 on.

use super::value::ListValue;
use crate::exec::gen::generate;
use crate::lang::DType;

/// The lengths of every list of a nested list: `levels[0]` is `[n]`,
/// `levels[k]` the lengths of the lists at depth k, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lengths {
    levels: Vec<Vec<usize>>,
}

impl Lengths {
    /// Reads a `--lengths` spec for a list of depth `depth`.
    pub fn parse(spec: &str, depth: usize) -> Result<Lengths, String> {
        let mut levels = Vec::new();
        for part in spec.split('/') {
            // An empty depth: no list there has elements to hold lists
            // (`0/` for an empty list of lists).
            if part.trim().is_empty() {
                levels.push(Vec::new());
                continue;
            }
            let lens = part
                .split(',')
                .map(|x| {
                    x.trim()
                        .parse::<usize>()
                        .map_err(|_| format!("'{x}' is not a length (a non-negative integer)"))
                })
                .collect::<Result<Vec<_>, _>>()?;
            levels.push(lens);
        }
        if levels.len() + 1 == depth {
            let n = levels.first().map_or(0, Vec::len);
            levels.insert(0, vec![n]);
        }
        if levels.len() != depth {
            return Err(format!(
                "the list has depth {depth}: give {depth} depths separated by '/' (or {} without the outermost), got {}",
                depth.saturating_sub(1),
                levels.len()
            ));
        }
        if levels[0].len() != 1 {
            return Err(format!(
                "the outermost depth is one list: give its length alone, got {} lengths",
                levels[0].len()
            ));
        }
        for k in 1..depth {
            let want: usize = levels[k - 1].iter().sum();
            if levels[k].len() != want {
                return Err(format!(
                    "depth {k} needs {want} lengths (the lengths of depth {} add up to {want}), got {}",
                    k - 1,
                    levels[k].len()
                ));
            }
        }
        Ok(Lengths { levels })
    }

    /// The default rule (see the module docs) for depth `depth`.
    pub fn default_rule(depth: usize) -> Lengths {
        let mut levels = vec![vec![3usize]];
        for k in 1..depth {
            let n: usize = levels[k - 1].iter().sum();
            levels.push((0..n).map(|j| (j + 2) % 4).collect());
        }
        Lengths { levels }
    }

    /// How many tensors the innermost depth holds.
    pub fn count(&self) -> usize {
        self.levels.last().map_or(0, |l| l.iter().sum())
    }

    /// The row splits, outermost first.
    pub fn splits(&self) -> Vec<Vec<i64>> {
        self.levels
            .iter()
            .map(|lens| {
                let mut s = Vec::with_capacity(lens.len() + 1);
                let mut at = 0i64;
                s.push(0);
                for &n in lens {
                    at += n as i64;
                    s.push(at);
                }
                s
            })
            .collect()
    }
}

/// The `k`-th input, a list with lengths `lengths` of tensors of `dtype`
/// and `shape`: its `values` array (count × shape) filled by the data
/// rule at scale `scale`.
pub fn generate_list(
    k: usize,
    dtype: DType,
    shape: &[usize],
    lengths: &Lengths,
    scale: f64,
) -> Result<ListValue, String> {
    let mut full = vec![lengths.count()];
    full.extend(shape);
    let values = generate(k, dtype, &full, scale);
    ListValue::from_parts(values, lengths.splits())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs() {
        let a = Lengths::parse("2,0,1", 2).unwrap();
        assert_eq!(a, Lengths::parse("3/2,0,1", 2).unwrap());
        assert_eq!(a.splits(), vec![vec![0, 3], vec![0, 2, 2, 3]]);
        assert_eq!(Lengths::parse("4", 1).unwrap().count(), 4);
        assert!(Lengths::parse("2/1,1/3", 3).is_err());
        assert_eq!(Lengths::parse("2/1,1/3,0", 3).unwrap().count(), 3);
        assert!(Lengths::parse("1,2", 1).is_err());
        assert!(Lengths::parse("x", 1).is_err());
        assert_eq!(Lengths::default_rule(2).splits()[1], vec![0, 2, 5, 5]);
        // An empty list of lists: its inner depth has no lengths.
        assert_eq!(
            Lengths::parse("0/", 2).unwrap().splits(),
            vec![vec![0, 0], vec![0]]
        );
        assert_eq!(Lengths::parse("", 2).unwrap().count(), 0);
    }
}
