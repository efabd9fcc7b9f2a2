//! A persistent map from dense class indices to cost entries, for the
//! greedy DAG extractor's cost sets.
//!
//! Owns: [`PMap`], a 16-way trie on the key's bits whose versions share
//! structure: cloning is `O(1)` and an insertion copies one path (a few
//! nodes), instead of the whole map. A class's cost set is its largest
//! child's set plus a few entries, so the greedy pass no longer copies a
//! set per node — on a chain of n classes that copying was `O(n²)`.
//! Must not: know what the entries mean (see [`super::dag`]).

use std::rc::Rc;

/// Bits of the key per trie level.
const BITS: u32 = 4;
/// Children per branch.
const WIDTH: usize = 1 << BITS;

#[derive(Clone)]
enum PNode {
    Branch([Option<Rc<PNode>>; WIDTH]),
    Leaf(Option<f64>),
}

/// A persistent map `usize → Option<f64>` for keys below the bound it was
/// made for.
#[derive(Clone)]
pub(crate) struct PMap {
    root: Option<Rc<PNode>>,
    len: usize,
    levels: u32,
}

impl PMap {
    /// An empty map for keys below `bound`.
    pub fn new(bound: usize) -> PMap {
        let mut levels = 1;
        while levels * BITS < usize::BITS && (bound >> (levels * BITS)) > 0 {
            levels += 1;
        }
        PMap {
            root: None,
            len: 0,
            levels,
        }
    }

    /// The number of keys.
    pub fn len(&self) -> usize {
        self.len
    }

    fn slot(&self, key: usize, level: u32) -> usize {
        (key >> (BITS * (level - 1))) & (WIDTH - 1)
    }

    /// The entry of `key`, if present.
    pub fn get(&self, key: usize) -> Option<Option<f64>> {
        let mut node = self.root.as_ref()?;
        let mut level = self.levels;
        loop {
            match node.as_ref() {
                PNode::Leaf(v) => return Some(*v),
                PNode::Branch(ch) => {
                    node = ch[self.slot(key, level)].as_ref()?;
                    level -= 1;
                }
            }
        }
    }

    /// Whether `key` is present.
    pub fn contains(&self, key: usize) -> bool {
        self.get(key).is_some()
    }

    /// Sets `key`'s entry, copying only the nodes this version shares
    /// with others.
    pub fn insert(&mut self, key: usize, value: Option<f64>) {
        let levels = self.levels;
        let mut slot = &mut self.root;
        let mut level = levels;
        while level > 0 {
            let idx = (key >> (BITS * (level - 1))) & (WIDTH - 1);
            let node = slot.get_or_insert_with(|| Rc::new(PNode::Branch(Default::default())));
            let node = Rc::make_mut(node);
            if let PNode::Leaf(_) = node {
                *node = PNode::Branch(Default::default());
            }
            match node {
                PNode::Branch(ch) => slot = &mut ch[idx],
                PNode::Leaf(_) => return,
            }
            level -= 1;
        }
        if slot.is_none() {
            self.len += 1;
        }
        *slot = Some(Rc::new(PNode::Leaf(value)));
    }

    /// Calls `f(key, entry)` for every key, in increasing key order.
    pub fn for_each(&self, mut f: impl FnMut(usize, Option<f64>)) {
        if let Some(root) = &self.root {
            walk(root, self.levels, 0, &mut f);
        }
    }
}

fn walk(node: &PNode, level: u32, prefix: usize, f: &mut impl FnMut(usize, Option<f64>)) {
    match node {
        PNode::Leaf(v) => f(prefix, *v),
        PNode::Branch(ch) => {
            for (i, c) in ch.iter().enumerate() {
                if let Some(c) = c {
                    let key = prefix | (i << (BITS * (level - 1)));
                    walk(c, level - 1, key, f);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::PMap;
    use std::collections::BTreeMap;

    #[test]
    fn versions_are_independent_and_agree_with_a_btreemap() {
        let bound = 5000;
        let mut a = PMap::new(bound);
        let mut model: BTreeMap<usize, Option<f64>> = BTreeMap::new();
        let mut x: usize = 7;
        for i in 0..3000 {
            x = (x * 1103515245 + 12345) % bound;
            let v = if i % 3 == 0 { None } else { Some(i as f64) };
            a.insert(x, v);
            model.insert(x, v);
        }
        let snapshot = a.clone();
        let frozen = model.clone();
        for k in 0..200 {
            a.insert(k, Some(-1.0));
            model.insert(k, Some(-1.0));
        }
        for (m, p) in [(&model, &a), (&frozen, &snapshot)] {
            assert_eq!(m.len(), p.len());
            let mut seen = Vec::new();
            p.for_each(|k, v| seen.push((k, v)));
            let want: Vec<(usize, Option<f64>)> = m.iter().map(|(k, v)| (*k, *v)).collect();
            assert_eq!(seen, want);
            for k in 0..bound {
                assert_eq!(p.get(k), m.get(&k).copied(), "key {k}");
            }
        }
        assert!(!PMap::new(1).contains(0));
    }
}
