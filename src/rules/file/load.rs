//! Rule files and folders on disk.
//!
//! Owns: turning paths into rule files (a folder stands for every
//! `*.rules` file in it, sorted by name), reading them as UTF-8 and
//! gathering every file's rules or errors, names defined twice across files
//! included.
//! Must not: parse rule text itself (see [`super::parse_rules`]).

use super::error::RuleError;
use super::{check_duplicates, parse_rules, Rule};
use std::path::{Path, PathBuf};

/// The rule files a path stands for: the file itself, or every `*.rules`
/// file of a folder, sorted by name.
fn rule_files(path: &Path) -> Result<Vec<PathBuf>, RuleError> {
    let io = |e: std::io::Error| RuleError::Io {
        file: path.display().to_string(),
        msg: e.to_string(),
    };
    if path.is_dir() {
        let mut files: Vec<PathBuf> = std::fs::read_dir(path)
            .map_err(io)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "rules"))
            .collect();
        files.sort();
        Ok(files)
    } else {
        std::fs::metadata(path).map_err(io)?;
        Ok(vec![path.to_path_buf()])
    }
}

/// Loads rules from files and folders (a folder: every `*.rules` in it,
/// sorted by name). Returns every rule, or every error of every file
/// (including rule names defined twice across files).
pub fn load_rules(paths: &[PathBuf]) -> Result<Vec<Rule>, Vec<RuleError>> {
    let mut rules = Vec::new();
    let mut errors = Vec::new();
    for p in paths {
        let files = match rule_files(p) {
            Ok(f) => f,
            Err(e) => {
                errors.push(e);
                continue;
            }
        };
        for f in files {
            let name = f.display().to_string();
            let text = match std::fs::read(&f) {
                Ok(bytes) => match String::from_utf8(bytes) {
                    Ok(t) => t,
                    Err(e) => {
                        errors.push(RuleError::Io {
                            file: name,
                            msg: format!("not valid UTF-8 ({e})"),
                        });
                        continue;
                    }
                },
                Err(e) => {
                    errors.push(RuleError::Io {
                        file: name,
                        msg: e.to_string(),
                    });
                    continue;
                }
            };
            match parse_rules(&text, &name) {
                Ok(rs) => rules.extend(rs),
                Err(es) => errors.extend(es),
            }
        }
    }
    if errors.is_empty() {
        check_duplicates(&rules, &mut errors);
    }
    if errors.is_empty() {
        Ok(rules)
    } else {
        Err(errors)
    }
}
