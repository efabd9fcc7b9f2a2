//! A test-case reducer on program text (after C-Reduce): deletes list
//! elements and replaces lists by one of their elements, keeping each
//! change that leaves a program that still fails the same way.
//!
//! Shrinking the generator's decision stream (proptest) stops at local
//! minima, as a change early in the stream reshapes everything after it;
//! this works on the program itself.

use std::time::{Duration, Instant};

/// An s-expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Sx {
    Atom(String),
    List(Vec<Sx>),
}

/// Reads one s-expression from `text` (`;` comments skipped).
pub fn parse(text: &str) -> Option<Sx> {
    let mut toks = Vec::new();
    for line in text.lines() {
        let line = line.split(';').next().unwrap_or("");
        let spaced = line.replace('(', " ( ").replace(')', " ) ");
        toks.extend(spaced.split_whitespace().map(str::to_string));
    }
    let mut pos = 0;
    let sx = read(&toks, &mut pos)?;
    (pos == toks.len()).then_some(sx)
}

fn read(toks: &[String], pos: &mut usize) -> Option<Sx> {
    let t = toks.get(*pos)?;
    *pos += 1;
    match t.as_str() {
        "(" => {
            let mut items = Vec::new();
            while toks.get(*pos)? != ")" {
                items.push(read(toks, pos)?);
            }
            *pos += 1;
            Some(Sx::List(items))
        }
        ")" => None,
        a => Some(Sx::Atom(a.to_string())),
    }
}

fn flat(sx: &Sx) -> String {
    match sx {
        Sx::Atom(a) => a.clone(),
        Sx::List(items) => {
            let parts: Vec<String> = items.iter().map(flat).collect();
            format!("({})", parts.join(" "))
        }
    }
}

fn is_head(sx: &Sx, head: &str) -> bool {
    matches!(sx, Sx::List(items) if matches!(items.first(), Some(Sx::Atom(a)) if a == head))
}

/// Prints a program: one top-level item per line, a scan's clauses on
/// lines of their own.
pub fn print(sx: &Sx) -> String {
    let Sx::List(items) = sx else {
        return flat(sx);
    };
    if !is_head(sx, "program") || items.len() < 2 {
        return flat(sx);
    }
    let mut out = format!("(program {}", flat(&items[1]));
    for item in &items[2..] {
        out.push_str("\n  ");
        match item {
            Sx::List(l) if is_head(item, "let") && l.len() == 3 && is_head(&l[2], "scan") => {
                let Sx::List(clauses) = &l[2] else {
                    unreachable!()
                };
                out.push_str(&format!("(let {} (scan", flat(&l[1])));
                for c in &clauses[1..] {
                    out.push_str(&format!("\n    {}", flat(c)));
                }
                out.push_str("))");
            }
            _ => out.push_str(&flat(item)),
        }
    }
    out.push_str(")\n");
    out
}

/// Paths of every list node, outermost first.
fn list_paths(sx: &Sx, path: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
    if let Sx::List(items) = sx {
        out.push(path.clone());
        for (i, c) in items.iter().enumerate() {
            path.push(i);
            list_paths(c, path, out);
            path.pop();
        }
    }
}

fn at_mut<'a>(sx: &'a mut Sx, path: &[usize]) -> &'a mut Sx {
    path.iter().fold(sx, |node, &i| match node {
        Sx::List(items) => &mut items[i],
        Sx::Atom(_) => unreachable!(),
    })
}

fn at<'a>(sx: &'a Sx, path: &[usize]) -> &'a Sx {
    path.iter().fold(sx, |node, &i| match node {
        Sx::List(items) => &items[i],
        Sx::Atom(_) => unreachable!(),
    })
}

/// The candidate edits of the node at `path`: each element deleted, the
/// node replaced by each of its elements.
fn edits(sx: &Sx, path: &[usize]) -> Vec<Sx> {
    let Sx::List(items) = at(sx, path) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for i in 1..items.len() {
        let mut c = sx.clone();
        if let Sx::List(l) = at_mut(&mut c, path) {
            l.remove(i);
        }
        out.push(c);
    }
    if !path.is_empty() {
        for child in items.iter().skip(1) {
            let mut c = sx.clone();
            *at_mut(&mut c, path) = child.clone();
            out.push(c);
        }
    }
    if is_head(at(sx, path), "let") && items.len() == 3 && is_head(&items[2], "scan") {
        for e in scan_edits(at(sx, path)) {
            let mut c = sx.clone();
            *at_mut(&mut c, path) = e;
            out.push(c);
        }
    }
    out
}

fn list(sx: &Sx) -> &[Sx] {
    match sx {
        Sx::List(items) => items,
        Sx::Atom(_) => &[],
    }
}

fn list_mut(sx: &mut Sx) -> &mut Vec<Sx> {
    match sx {
        Sx::List(items) => items,
        Sx::Atom(_) => unreachable!(),
    }
}

/// The taps of `(X (taps ...))` or `(mitsot INIT (taps ...))`, if any.
fn taps_of(entry: &Sx) -> Option<usize> {
    list(entry)
        .last()
        .filter(|t| is_head(t, "taps"))
        .map(|t| list(t).len() - 1)
}

/// Edits of `(let B (scan ...))` that keep the fn's parameters in step:
/// a sequence, a tap, a non-sequence or an output removed together with
/// its parameters (and the output's binder and body value).
fn scan_edits(let_node: &Sx) -> Vec<Sx> {
    let scan = &list(let_node)[2];
    let clauses = list(scan);
    let find = |head: &str| clauses.iter().position(|c| is_head(c, head));
    let (Some(fn_i), seq_i, out_i, ns_i) = (
        find("fn"),
        find("sequences"),
        find("outputs_info"),
        find("non_sequences"),
    ) else {
        return Vec::new();
    };
    // (clause index, entry index, first parameter, parameters, removable taps)
    let mut groups: Vec<(usize, usize, usize, usize, bool)> = Vec::new();
    let mut next = 0;
    for (ci, per) in [(seq_i, 0), (out_i, 1), (ns_i, 2)] {
        let Some(ci) = ci else { continue };
        for (k, e) in list(&clauses[ci]).iter().enumerate().skip(1) {
            let n = match per {
                0 => taps_of(e).unwrap_or(1),
                1 if is_head(e, "nitsot") => 0,
                1 => taps_of(e).unwrap_or(1),
                _ => 1,
            };
            groups.push((ci, k, next, n, per < 2 && taps_of(e).is_some()));
            next += n;
        }
    }
    let params = list(&list(&clauses[fn_i])[1]).len();
    if next != params {
        return Vec::new();
    }
    let mut out = Vec::new();
    for &(ci, k, first, n, has_taps) in &groups {
        // The whole entry (for an output: also its binder and body value).
        let mut c = let_node.clone();
        {
            let scan = &mut list_mut(&mut c)[2];
            let cl = list_mut(scan);
            let fparams = list_mut(&mut list_mut(&mut cl[fn_i])[1]);
            fparams.drain(first..first + n);
            list_mut(&mut cl[ci]).remove(k);
        }
        if Some(ci) == out_i {
            if remove_output(&mut c, fn_i, k - 1) {
                out.push(c);
            }
        } else {
            out.push(c);
        }
        // One tap.
        if has_taps && n > 1 {
            for t in 0..n {
                let mut c = let_node.clone();
                let scan = &mut list_mut(&mut c)[2];
                let cl = list_mut(scan);
                list_mut(&mut list_mut(&mut cl[fn_i])[1]).remove(first + t);
                let entry = list_mut(&mut cl[ci]);
                let taps = list_mut(list_mut(&mut entry[k]).last_mut().unwrap());
                taps.remove(t + 1);
                out.push(c);
            }
        }
    }
    out
}

/// Removes output `k` of the scan in `let_node`: its binder and its body
/// value. False when it is the only output.
fn remove_output(let_node: &mut Sx, fn_i: usize, k: usize) -> bool {
    let items = list_mut(let_node);
    match &mut items[1] {
        Sx::List(names) if names.len() > 1 && k < names.len() => {
            names.remove(k);
            if names.len() == 1 {
                items[1] = names[0].clone();
            }
        }
        _ => return false,
    }
    let scan = &mut items[2];
    let f = &mut list_mut(scan)[fn_i];
    let body = list_mut(f).last_mut().unwrap();
    if !is_head(body, "outputs") {
        return false;
    }
    let vals = list_mut(body);
    if k + 1 >= vals.len() {
        return false;
    }
    vals.remove(k + 1);
    if vals.len() == 2 {
        *body = vals[1].clone();
    }
    true
}

/// Reduces `text` while `still_fails(candidate)` holds, for at most
/// `budget`; returns the smallest failing text found (by length).
pub fn reduce(text: &str, budget: Duration, still_fails: &mut dyn FnMut(&str) -> bool) -> String {
    let start = Instant::now();
    let Some(mut best) = parse(text) else {
        return text.to_string();
    };
    let mut best_len = flat(&best).len();
    loop {
        let mut improved = false;
        let mut paths = Vec::new();
        list_paths(&best, &mut Vec::new(), &mut paths);
        'paths: for p in paths {
            // An earlier edit may have removed this node.
            if !valid_path(&best, &p) {
                continue;
            }
            for cand in edits(&best, &p) {
                if start.elapsed() > budget {
                    break 'paths;
                }
                let len = flat(&cand).len();
                if len >= best_len {
                    continue;
                }
                if still_fails(&print(&cand)) {
                    best = cand;
                    best_len = len;
                    improved = true;
                    continue 'paths;
                }
            }
        }
        if !improved || start.elapsed() > budget {
            break;
        }
    }
    print(&best)
}

fn valid_path(sx: &Sx, path: &[usize]) -> bool {
    let mut node = sx;
    for &i in path {
        match node {
            Sx::List(items) if i < items.len() => node = &items[i],
            _ => return false,
        }
    }
    matches!(node, Sx::List(_))
}
