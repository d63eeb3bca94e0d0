//! Why a path is unknown (INCONCLUSIVE): the reasons the verdict rules give, one variant
//! each, and the text a report row's `detail` shows for them (its [`fmt::Display`]).
//!
//! The engine's own reasons (a limit, an unsupported construct, the solver giving up at a
//! place: `exec::Undecided`, typed in the engine, which the report may not import) arrive
//! as their text; every reason the checks add is typed here.

use std::fmt;

/// Why a path's row is unknown.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UnknownReason {
    /// A reason while `phase` ran: a row of a program check, or a side's own end.
    In(Phase, Box<UnknownReason>),
    /// The engine ended the path undecided (`exec::Undecided`, as text): a limit (`path
    /// longer than N instructions`), an unsupported construct, the solver giving up at a
    /// place.
    Engine(String),
    /// The side called `klee_silent_exit`: the path has no end to compare.
    SilentExit,
    /// The solver failed (its words: `solver gave up (timeout)`, `solver error: …`) on a
    /// question of the verdict rules not named.
    Solver(String),
    /// The solver failed (its words) on `question`.
    Asking { why: String, question: Question },
    /// One side's undefined behaviour (`what`) decides the outcome (`outcome`, what would
    /// otherwise be reported) only through the value it gives, which C leaves open.
    UndefinedValue { what: String, outcome: String },
    /// Outputs with symbolic bytes differ only in spacing for the input found (`inputs`:
    /// a three-way check, for the inputs found), which --ignore-spacing does not decide.
    SpacingOnly { inputs: bool },
    /// The POSIX model of a whole-program check could not go on.
    Model(ModelGap),
}

/// The part of a check a path was in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// The POSIX model setting up the environment, before side A.
    Environment,
    A,
    /// The POSIX model resetting the environment between two sides.
    Reset,
    B,
    C,
}

/// The question of the verdict rules the solver gave up on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Question {
    /// Whether the results of a function check's sides differ.
    ResultsDiffer,
    /// Whether the results rest on poison.
    RestOnPoison,
    /// Whether the path needs undefined behaviour for its outcome (the outcome's detail).
    NeedsUndefined(String),
    /// Whether the sides of a program check differ.
    SidesDiffer,
}

/// What the POSIX model of a whole-program check could not do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModelGap {
    NoArgumentBlock,
    ArgumentBlockNotInMemory,
    SymbolicArgc,
    /// The model exited instead of returning the argument block.
    Exited,
    /// The model rejected the environment options (checked when parsed, so a gap of the
    /// model), with its message.
    RejectedEnvironment(String),
    /// The model failed: the failure's description and place.
    Failed {
        what: String,
        place: String,
    },
    /// A side waited on what no other process could end, or made events the model does not
    /// make: the failure's description and place.
    CannotGoOn {
        what: String,
        place: String,
    },
}

impl fmt::Display for UnknownReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UnknownReason::In(phase, reason) => write!(f, "{phase}: {reason}"),
            UnknownReason::Engine(why) | UnknownReason::Solver(why) => f.write_str(why),
            UnknownReason::SilentExit => f.write_str("klee_silent_exit"),
            UnknownReason::Asking { why, question } => write!(f, "{why} asking {question}"),
            UnknownReason::UndefinedValue { what, outcome } => write!(
                f,
                "undefined behaviour: {what}; {outcome} only through the value it gives \
                 (--ub machine gives x86-64's)"
            ),
            UnknownReason::SpacingOnly { inputs } => write!(
                f,
                "outputs with symbolic bytes differ only in spacing for the input{} found: \
                 not decided under --ignore-spacing",
                if *inputs { "s" } else { "" }
            ),
            UnknownReason::Model(gap) => gap.fmt(f),
        }
    }
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Phase::Environment => "environment",
            Phase::A => "A",
            Phase::Reset => "environment reset",
            Phase::B => "B",
            Phase::C => "C",
        })
    }
}

impl fmt::Display for Question {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Question::ResultsDiffer => f.write_str("whether the results differ"),
            Question::RestOnPoison => f.write_str("whether the results rest on poison"),
            Question::NeedsUndefined(outcome) => {
                write!(f, "whether the path needs undefined behaviour ({outcome})")
            }
            Question::SidesDiffer => f.write_str("whether the sides differ"),
        }
    }
}

impl fmt::Display for ModelGap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ModelGap::NoArgumentBlock => f.write_str("the POSIX model returned no argument block"),
            ModelGap::ArgumentBlockNotInMemory => {
                f.write_str("the argument block is not in memory")
            }
            ModelGap::SymbolicArgc => f.write_str("argc is symbolic"),
            ModelGap::Exited => f.write_str("the POSIX model exited"),
            ModelGap::RejectedEnvironment(message) => {
                write!(f, "the POSIX model rejected the environment: {message}")
            }
            ModelGap::Failed { what, place } => {
                write!(f, "the POSIX model failed: {what} at {place}")
            }
            ModelGap::CannotGoOn { what, place } => {
                write!(f, "the POSIX model cannot go on: {what} at {place}")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rows' text, as the checks wrote it before the reasons were typed.
    #[test]
    fn reasons_render_as_the_rows_show_them() {
        let cases = [
            (
                UnknownReason::In(
                    Phase::A,
                    Box::new(UnknownReason::Engine(
                        "path longer than 100 instructions".into(),
                    )),
                ),
                "A: path longer than 100 instructions",
            ),
            (
                UnknownReason::In(Phase::B, Box::new(UnknownReason::SilentExit)),
                "B: klee_silent_exit",
            ),
            (
                UnknownReason::Asking {
                    why: "solver gave up (timeout)".into(),
                    question: Question::NeedsUndefined("the results differ".into()),
                },
                "solver gave up (timeout) asking whether the path needs undefined behaviour \
                 (the results differ)",
            ),
            (
                UnknownReason::In(
                    Phase::Reset,
                    Box::new(UnknownReason::Asking {
                        why: "solver error: x".into(),
                        question: Question::SidesDiffer,
                    }),
                ),
                "environment reset: solver error: x asking whether the sides differ",
            ),
            (
                UnknownReason::UndefinedValue {
                    what: "A: signed overflow".into(),
                    outcome: "the results differ".into(),
                },
                "undefined behaviour: A: signed overflow; the results differ only through the \
                 value it gives (--ub machine gives x86-64's)",
            ),
            (
                UnknownReason::SpacingOnly { inputs: true },
                "outputs with symbolic bytes differ only in spacing for the inputs found: not \
                 decided under --ignore-spacing",
            ),
            (
                UnknownReason::In(
                    Phase::Environment,
                    Box::new(UnknownReason::Model(ModelGap::Failed {
                        what: "abort".into(),
                        place: "env.c:3".into(),
                    })),
                ),
                "environment: the POSIX model failed: abort at env.c:3",
            ),
        ];
        for (reason, text) in cases {
            assert_eq!(reason.to_string(), text);
        }
    }
}
