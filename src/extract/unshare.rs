//! Type attributes unshared in an extracted term.
//!
//! Owns: [`unshare_types`], the last step of every extractor. Must not:
//! choose nodes.

use crate::egraph::term::{Head, TNode};
use egg::{Id, Language, RecExpr};

/// Gives every use of a type attribute (`(f64 D 3)`) its own copy.
///
/// Extraction shares equal subterms, attributes included; a program writes
/// a type attribute at each use (it cannot be a `let` value), so extracted
/// terms keep types unshared, as programs have them (they cost nothing
/// either way). The term → program conversion
/// ([`crate::egraph::to_program`]) reads a type at each use and would
/// accept a shared one too; unsharing keeps extracted terms in the form
/// [`crate::egraph::term::program_to_expr`] writes.
pub(crate) fn unshare_types(expr: &RecExpr<TNode>) -> RecExpr<TNode> {
    let nodes = expr.as_ref();
    let mut out: RecExpr<TNode> = RecExpr::default();
    // New id of each non-type node; for a type node, its mapped form.
    let mut ids: Vec<Option<Id>> = Vec::with_capacity(nodes.len());
    let mut types: Vec<Option<TNode>> = Vec::with_capacity(nodes.len());
    for node in nodes {
        let mut children = Vec::with_capacity(node.children.len());
        for c in node.children() {
            let i = usize::from(*c);
            let id = match (
                types.get(i).cloned().flatten(),
                ids.get(i).copied().flatten(),
            ) {
                (Some(t), _) => out.add(t),
                (None, Some(id)) => id,
                (None, None) => *c,
            };
            children.push(id);
        }
        let mapped = TNode {
            head: node.head.clone(),
            children,
        };
        if matches!(node.head, Head::Type(_)) {
            types.push(Some(mapped));
            ids.push(None);
        } else {
            types.push(None);
            ids.push(Some(out.add(mapped)));
        }
    }
    if let Some(Head::Type(_)) = nodes.last().map(|n| &n.head) {
        if let Some(Some(t)) = types.last() {
            out.add(t.clone());
        }
    }
    out
}
