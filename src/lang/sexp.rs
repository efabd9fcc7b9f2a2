//! Reading s-expressions with source positions.
//!
//! Owns: turning text into [`Sexp`] trees that remember where every atom and
//! list starts, skipping `;` comments (or `#` comments, for rule files),
//! refusing nesting deeper than [`MAX_DEPTH`] and control characters other
//! than whitespace outside comments ([`is_stray_control`]).
//! Must not: give meaning to the trees.
//!
//! Why not `symbolic_expressions` (which egg uses for its own patterns)? It
//! keeps no positions, knows no comments and recurses once per nesting
//! level, so a deep input overflows the stack. This reader is iterative, and
//! the depth bound keeps every later recursive pass over the tree safe.

use super::error::LangError;
use super::program::Span;

/// The deepest nesting of lists accepted. Deeper expressions are refused
/// with [`LangError::TooDeep`]; programs bind intermediate values with `let`.
pub const MAX_DEPTH: usize = 256;

/// True for a control character that may not appear outside a comment:
/// every Unicode control character (NUL, escape, DEL, vertical tab, form
/// feed, U+0085, ...) except the four that lay out text: space, tab, line
/// feed and carriage return. A vertical tab or form feed is whitespace to
/// some tools and not to others; refusing it keeps line and column
/// numbers the same for every reader of the file.
pub fn is_stray_control(c: char) -> bool {
    c.is_control() && !matches!(c, ' ' | '\t' | '\n' | '\r')
}

/// The sentence for a stray control character `c` (see
/// [`is_stray_control`]), shared with the rule reader.
pub fn stray_control_msg(c: char) -> String {
    format!(
        "control character U+{:04X} outside a comment (only spaces, tabs and line breaks separate tokens)",
        c as u32
    )
}

/// An s-expression with the position of its first character.
#[derive(Clone, Debug, PartialEq)]
pub enum Sexp {
    /// A run of characters other than whitespace and parentheses.
    Atom(String, Span),
    /// A parenthesised list.
    List(Vec<Sexp>, Span),
}

impl Sexp {
    /// Where the expression starts.
    pub fn span(&self) -> Span {
        match self {
            Sexp::Atom(_, s) | Sexp::List(_, s) => *s,
        }
    }

    /// The atom's text, if this is an atom.
    pub fn atom(&self) -> Option<&str> {
        match self {
            Sexp::Atom(a, _) => Some(a),
            Sexp::List(..) => None,
        }
    }

    /// The list's items, if this is a list.
    pub fn list(&self) -> Option<&[Sexp]> {
        match self {
            Sexp::List(items, _) => Some(items),
            Sexp::Atom(..) => None,
        }
    }

    /// The head atom of a list, if it is a list starting with an atom.
    pub fn head(&self) -> Option<&str> {
        self.list().and_then(|l| l.first()).and_then(|h| h.atom())
    }
}

/// Decodes a file's bytes as UTF-8, reporting the first bad byte's position.
pub fn decode(bytes: &[u8]) -> Result<&str, LangError> {
    std::str::from_utf8(bytes).map_err(|e| {
        let offset = e.valid_up_to();
        let before = &bytes[..offset];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |p| p + 1);
        let col = String::from_utf8_lossy(&before[line_start..])
            .chars()
            .count()
            + 1;
        LangError::NotUtf8 {
            offset,
            span: Span {
                line: line as u32,
                col: col as u32,
            },
        }
    })
}

/// Reads every top-level expression of `text`. `comment` is the character
/// that starts a comment running to the end of the line.
pub fn read_all(text: &str, comment: char) -> Result<Vec<Sexp>, LangError> {
    let mut top: Vec<Sexp> = Vec::new();
    // Open lists: their start position and the items read so far.
    let mut stack: Vec<(Span, Vec<Sexp>)> = Vec::new();
    let mut line: u32 = 1;
    let mut col: u32 = 0;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\n' {
            line += 1;
            col = 0;
            continue;
        }
        col += 1;
        let here = Span { line, col };
        if c == comment {
            while let Some(&n) = chars.peek() {
                if n == '\n' {
                    break;
                }
                chars.next();
            }
            continue;
        }
        if is_stray_control(c) {
            return Err(LangError::Syntax {
                span: here,
                msg: stray_control_msg(c),
            });
        }
        if c.is_whitespace() {
            continue;
        }
        match c {
            '(' => {
                if stack.len() >= MAX_DEPTH {
                    return Err(LangError::TooDeep {
                        span: here,
                        limit: MAX_DEPTH,
                    });
                }
                stack.push((here, Vec::new()));
            }
            ')' => {
                let Some((start, items)) = stack.pop() else {
                    return Err(LangError::Syntax {
                        span: here,
                        msg: "unexpected ')' with no matching '('".into(),
                    });
                };
                let done = Sexp::List(items, start);
                match stack.last_mut() {
                    Some((_, parent)) => parent.push(done),
                    None => top.push(done),
                }
            }
            _ => {
                let mut atom = String::new();
                atom.push(c);
                while let Some(&n) = chars.peek() {
                    if n.is_whitespace() || n == '(' || n == ')' || n == comment {
                        break;
                    }
                    if is_stray_control(n) {
                        return Err(LangError::Syntax {
                            span: Span { line, col: col + 1 },
                            msg: stray_control_msg(n),
                        });
                    }
                    atom.push(n);
                    col += 1;
                    chars.next();
                }
                let done = Sexp::Atom(atom, here);
                match stack.last_mut() {
                    Some((_, parent)) => parent.push(done),
                    None => top.push(done),
                }
            }
        }
    }
    if let Some((start, _)) = stack.last() {
        return Err(LangError::Syntax {
            span: *start,
            msg: "this '(' is never closed".into(),
        });
    }
    Ok(top)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_lists_atoms_and_positions() {
        let t = read_all("; c\n(a (b 1.5) ; x\n  c)", ';').unwrap();
        assert_eq!(t.len(), 1);
        let Sexp::List(items, s) = &t[0] else {
            panic!()
        };
        assert_eq!(*s, Span { line: 2, col: 1 });
        assert_eq!(items[2], Sexp::Atom("c".into(), Span { line: 3, col: 3 }));
        assert_eq!(items[1].list().unwrap()[1].atom(), Some("1.5"));
    }

    #[test]
    fn unbalanced_and_deep_inputs_are_errors() {
        assert!(matches!(
            read_all("(a (b)", ';'),
            Err(LangError::Syntax {
                span: Span { line: 1, col: 1 },
                ..
            })
        ));
        assert!(matches!(
            read_all("(a))", ';'),
            Err(LangError::Syntax {
                span: Span { line: 1, col: 4 },
                ..
            })
        ));
        let deep = "(".repeat(200_000) + &")".repeat(200_000);
        assert!(matches!(
            read_all(&deep, ';'),
            Err(LangError::TooDeep { .. })
        ));
    }

    #[test]
    fn control_characters_outside_comments_are_errors() {
        let e = read_all("(a\n  b\0c)", ';').unwrap_err();
        assert_eq!(e.span(), Some(Span { line: 2, col: 4 }));
        assert_eq!(
            e.to_string(),
            "control character U+0000 outside a comment (only spaces, tabs and line breaks separate tokens)"
        );
        let e = read_all("(a \u{1b} b)", ';').unwrap_err();
        assert_eq!(e.span(), Some(Span { line: 1, col: 4 }));
        // inside a comment, and tab, line feed, carriage return, are fine
        assert!(read_all("(a ; \0 \u{7f}\u{b}\n\tb\r\n)", ';').is_ok());
        // vertical tab, form feed and U+0085 are control characters too
        for (text, col) in [("(a\u{b}b)", 3), ("(a \u{c})", 4), ("(a\u{85})", 3)] {
            let e = read_all(text, ';').unwrap_err();
            assert_eq!(e.span(), Some(Span { line: 1, col }), "{text:?}");
        }
    }

    #[test]
    fn bad_utf8_is_located() {
        let e = decode(b"(program p\n  \xff)").unwrap_err();
        assert_eq!(e.span(), Some(Span { line: 2, col: 3 }));
    }
}
