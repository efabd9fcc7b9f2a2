//! The errors of a command's work ([`SessionError`]): each is the user's
//! (a wrong name, a missing input, a bad file, a program that fails) or an
//! optimizer bug, told in one sentence by [`SessionError::located`].

use crate::egraph::runner::SaturateError;
use crate::exec::ExecError;
use crate::optimize::OptimizeError;
use crate::rules::RuleError;
use std::path::PathBuf;

/// Why a command could not do its work.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// `--input NAME=...` names no input of the program.
    #[error("the program has no input named '{name}' (inputs: {})", inputs.join(", "))]
    UnknownInput {
        /// The name given.
        name: String,
        /// The program's inputs.
        inputs: Vec<String>,
    },
    /// `--shared NAME=...` names no shared variable of the program.
    #[error("the program has no shared variable named '{name}' (shared: {})", shared.join(", "))]
    UnknownShared {
        /// The name given.
        name: String,
        /// The program's shared variables.
        shared: Vec<String>,
    },
    /// An input has no value and none is to be generated.
    #[error("input '{name}' is not given: use --input {name}=FILE.npy or --gen")]
    MissingInput {
        /// The input's name.
        name: String,
    },
    /// An `.npy` file cannot be read or written (the error names the file).
    #[error("{0}")]
    Npy(ExecError),
    /// The program fails to bind its sizes, check or run.
    #[error("{0}")]
    Exec(ExecError),
    /// Rule files have errors (each names FILE:LINE:COL).
    #[error("{}", .0.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("\n"))]
    Rules(Vec<RuleError>),
    /// The optimizer failed.
    #[error(transparent)]
    Optimize(#[from] OptimizeError),
    /// Saturation could not start.
    #[error(transparent)]
    Saturate(#[from] SaturateError),
    /// A `grad` of the program cannot be expanded.
    #[error("{0}")]
    Grad(crate::grad::GradError),
    /// The program has no term in the e-graph's language.
    #[error("{0}")]
    Term(String),
    /// The extracted term is not in the class of the program (a bug).
    #[error("internal error: the extracted term is not in the root class")]
    NotInRootClass,
    /// The output folder cannot be created.
    #[error("{}: cannot create the folder: {error}", dir.display())]
    CreateDir {
        /// The folder.
        dir: PathBuf,
        /// Why not.
        error: std::io::Error,
    },
}

impl SessionError {
    /// The sentence the command line prints for this error of the program
    /// in `file`: prefixed with the file (and the line and column where
    /// the program has them), unless the error names its own file.
    pub fn located(&self, file: &str) -> String {
        match self {
            SessionError::Exec(e) => e.located(file),
            SessionError::Grad(e) => e.located(file),
            SessionError::Npy(_) | SessionError::Rules(_) | SessionError::CreateDir { .. } => {
                self.to_string()
            }
            SessionError::UnknownInput { .. }
            | SessionError::UnknownShared { .. }
            | SessionError::MissingInput { .. }
            | SessionError::Optimize(_)
            | SessionError::Saturate(_)
            | SessionError::Term(_)
            | SessionError::NotInRootClass => format!("{file}: {self}"),
        }
    }
}
