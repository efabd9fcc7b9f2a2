//! The layers of DESIGN.md, checked on the source: lang → grad → exec →
//! egraph → {rules, scan_rules, extract} → optimize → session → cli, no
//! arrow pointing up (`grad`, the gradient transform, needs only `lang`).
//!
//! Each file's `use` lines and `crate::` paths name the layers it depends
//! on; a file may name only its own layer and those below it. `rules`,
//! `scan_rules` and `extract` are siblings: none names another, except
//! that the Scan rewrites reuse the rule-file conditions (`scan_rules` →
//! `rules`). Unit-test modules are not checked: a test may build its
//! input with any layer.

use std::path::{Path, PathBuf};

/// The layers, lowest first; a module may depend on any earlier layer.
const LAYERS: &[(&str, &[&str])] = &[
    ("lang", &[]),
    ("grad", &["lang"]),
    ("exec", &["lang", "grad"]),
    ("egraph", &["lang", "grad", "exec"]),
    ("rules", &["lang", "grad", "exec", "egraph"]),
    ("scan_rules", &["lang", "grad", "exec", "egraph", "rules"]),
    ("extract", &["lang", "grad", "exec", "egraph"]),
    (
        "optimize",
        &[
            "lang",
            "grad",
            "exec",
            "egraph",
            "rules",
            "scan_rules",
            "extract",
        ],
    ),
    (
        "session",
        &[
            "lang",
            "grad",
            "exec",
            "egraph",
            "rules",
            "scan_rules",
            "extract",
            "optimize",
        ],
    ),
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read src") {
        let p = entry.expect("dir entry").path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The layer a source file belongs to (`src/lang/...` → `lang`,
/// `src/optimize.rs` → `optimize`).
fn layer_of(src: &Path, file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src).ok()?;
    let first = rel.components().next()?.as_os_str().to_str()?;
    Some(first.trim_end_matches(".rs").to_string())
}

/// The layers `line` names through `crate::LAYER` or `eqscan::LAYER`
/// (comments excluded).
fn named_layers(line: &str) -> Vec<String> {
    let code = line.split("//").next().unwrap_or("");
    let mut out = Vec::new();
    for prefix in ["crate::", "eqscan::"] {
        let mut rest = code;
        while let Some(i) = rest.find(prefix) {
            rest = &rest[i + prefix.len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            out.push(name);
        }
    }
    out
}

#[test]
fn no_layer_depends_on_a_later_one() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut violations = Vec::new();
    let mut checked = 0;
    for file in &files {
        let Some(layer) = layer_of(&src, file) else {
            continue;
        };
        let Some((_, allowed)) = LAYERS.iter().find(|(l, _)| *l == layer) else {
            continue;
        };
        checked += 1;
        let text = std::fs::read_to_string(file).expect("read source");
        // Unit tests (a `#[cfg(test)]` module ends each file) may build
        // their inputs with any layer.
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        for (n, line) in code.lines().enumerate() {
            for named in named_layers(line) {
                let is_layer = LAYERS.iter().any(|(l, _)| *l == named);
                if is_layer && named != layer && !allowed.contains(&named.as_str()) {
                    violations.push(format!(
                        "{}:{}: {layer} names {named}",
                        file.display(),
                        n + 1
                    ));
                }
            }
        }
    }
    assert!(checked > 50, "only {checked} source files found under src/");
    assert!(violations.is_empty(), "{}", violations.join("\n"));
}

#[test]
fn the_language_layer_does_not_use_egg() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lang");
    let mut files = Vec::new();
    rust_files(&dir, &mut files);
    assert!(!files.is_empty());
    for file in files {
        let text = std::fs::read_to_string(&file).expect("read source");
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            assert!(
                !code.contains("egg::") && !code.contains("use egg"),
                "{}:{}: the language layer uses egg",
                file.display(),
                n + 1
            );
        }
    }
}

#[test]
fn the_checker_catches_an_upward_path() {
    assert_eq!(
        named_layers("use crate::rules::x; // crate::extract"),
        ["rules"]
    );
    assert_eq!(
        named_layers("let a = crate::exec::f(eqscan::scan_rules::g);"),
        ["exec", "scan_rules"]
    );
}
