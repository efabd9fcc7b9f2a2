//! Errors of an optimized run, told in terms of the program the user wrote.
//!
//! Owns: [`run_mapped_back`], the policy for a run of an optimized program
//! that fails. The optimized program is one eqscan built: its nodes carry
//! no position in the user's file, and an error raised in
//! a node the optimizer built (an index into a hoisted product, a loop of a
//! data-dependent length after fusion) may have no counterpart in the
//! user's program at all. So when the optimized program fails, the program
//! as written is run on the same inputs, and:
//!
//! - if it fails too, its error is the one reported: the same sentence and
//!   the same `FILE:LINE:COL` as `eqscan run --no-opt`, because it is that
//!   run;
//! - if it runs, the optimized program failed where the user's program does
//!   not: an optimizer bug. Its results are the written program's, and the
//!   caller is told of the optimized program's error (`eqscan run` prints a
//!   one-line warning naming the optimizer on stderr, without the error's
//!   location, which is not in the user's file).
//!
//! Why map back rather than carry source spans through the e-graph: an
//! e-class holds nodes from many places of the user's program and nodes no
//! one wrote; the node the extractor picks is not the one the user wrote,
//! so its span would only be a guess, and its error message (shapes,
//! indices) would describe a program the user never saw. Running the
//! written program gives exactly its own error, and costs nothing unless
//! the optimized run has failed. Most errors never get this far: the
//! written program is shape-checked with its sizes bound before anything
//! runs ([`super::shape_check`]), so what reaches the executor is what
//! depends on data (an index computed from an input, a data-dependent
//! `n_steps`) or on resources.
//!
//! Must not: compile, optimize or print; the caller says how a program is
//! run (compiled, repeated, with state) and how a warning is shown.

use super::error::ExecError;
use crate::lang::Program;

/// How a run of an optimized program ended, when it did not end in a user
/// error.
#[derive(Debug)]
pub enum Outcome<T> {
    /// The optimized program ran.
    Optimized(T),
    /// The optimized program failed where the program as written runs: an
    /// optimizer bug. `result` is the written program's.
    Written {
        /// The result of the program as written.
        result: T,
        /// The optimized program's error (its span is not in the user's
        /// file).
        optimized_error: ExecError,
    },
}

impl<T> Outcome<T> {
    /// The result, whichever program gave it.
    pub fn into_result(self) -> T {
        match self {
            Outcome::Optimized(r) | Outcome::Written { result: r, .. } => r,
        }
    }
}

/// Runs `optimized` with `run`; when that fails, runs `written` with `run`
/// and returns its error, or, when the written program runs, its result
/// with the optimized program's error ([`Outcome::Written`]).
///
/// `run` is called once, or twice when the optimized program fails; it
/// must start from the same state each time (the same inputs, the same
/// first values of shared variables).
pub fn run_mapped_back<T>(
    written: &Program,
    optimized: &Program,
    mut run: impl FnMut(&Program) -> Result<T, ExecError>,
) -> Result<Outcome<T>, ExecError> {
    match run(optimized) {
        Ok(r) => Ok(Outcome::Optimized(r)),
        Err(optimized_error) => {
            let result = run(written)?;
            Ok(Outcome::Written {
                result,
                optimized_error,
            })
        }
    }
}

/// The one-line warning for [`Outcome::Written`]: names the optimizer,
/// says the results are the written program's, and gives the optimized
/// program's error without its location (which is not in the user's file).
pub fn optimizer_bug_warning(file: &str, optimized_error: &ExecError) -> String {
    format!(
        "warning: {file}: the optimized program failed where the program as written runs \
         (an optimizer bug; the results are those of the program as written): {optimized_error}"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::plan::Compiled;
    use crate::exec::run::{bind_dims, generate_inputs, Dims};
    use crate::exec::Value;
    use crate::lang::parse_program;

    fn run(p: &Program, inputs: &[Value], dims: &Dims) -> Result<Vec<Value>, ExecError> {
        let mut c = Compiled::new(p, dims)?;
        let refs: Vec<&Value> = inputs.iter().collect();
        c.call_values(&refs)
    }

    fn setup(written: &str, optimized: &str) -> (Program, Program, Vec<Value>, Dims) {
        let w = parse_program(written).unwrap();
        let o = parse_program(optimized).unwrap();
        let given: Dims = [("N".to_string(), 3)].into();
        let inputs = generate_inputs(&w, &given, &Default::default()).unwrap();
        let dims = bind_dims(&w, &inputs, &given).unwrap();
        (w, o, inputs, dims)
    }

    #[test]
    fn an_optimized_failure_where_the_written_program_runs_is_an_optimizer_bug() {
        // A stand-in for a wrong rewrite: the "optimized" program indexes
        // past the end where the written one does not.
        let (w, o, inputs, dims) = setup(
            "(program p (input X (f64 N 2)) (output (index X 2)))",
            "(program p (input X (f64 N 2))\n\n (output (index X 5)))",
        );
        let outcome = run_mapped_back(&w, &o, |p| run(p, &inputs, &dims)).unwrap();
        let Outcome::Written {
            result,
            optimized_error,
        } = outcome
        else {
            panic!("expected the written program's result");
        };
        assert_eq!(result, run(&w, &inputs, &dims).unwrap());
        assert_eq!(
            optimizer_bug_warning("f.sexp", &optimized_error),
            "warning: f.sexp: the optimized program failed where the program as written runs \
             (an optimizer bug; the results are those of the program as written): \
             index: index 5 is out of range for axis 0 of size 3"
        );
    }

    #[test]
    fn a_failure_of_both_is_the_written_programs_error() {
        let (w, o, inputs, dims) = setup(
            "(program p (input X (f64 N 2))\n (output (index X (add N 1))))",
            "(program p (input X (f64 N 2))\n\n\n   (output (index X 4)))",
        );
        let mut calls = 0;
        let e = run_mapped_back(&w, &o, |p| {
            calls += 1;
            run(p, &inputs, &dims)
        })
        .unwrap_err();
        assert_eq!(calls, 2);
        assert_eq!(
            e.located("f.sexp"),
            "f.sexp:2:10: index: index 4 is out of range for axis 0 of size 3"
        );
    }

    #[test]
    fn a_successful_optimized_run_runs_once() {
        let (w, o, inputs, dims) = setup(
            "(program p (input X (f64 N 2)) (output (mul X 2.0)))",
            "(program p (input X (f64 N 2)) (output (add X X)))",
        );
        let mut calls = 0;
        let outcome = run_mapped_back(&w, &o, |p| {
            calls += 1;
            run(p, &inputs, &dims)
        })
        .unwrap();
        assert_eq!(calls, 1);
        assert!(matches!(outcome, Outcome::Optimized(_)));
    }
}
