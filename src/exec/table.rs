//! The table of the functions the engine implements, as KLEE's `SpecialFunctionHandler`:
//! [`HANDLERS`] maps a declared function's name to its handler (in `special.rs` or
//! `posix.rs`) and says whether the call returns. It is resolved once per executor into
//! handler indices by function id, on the first call of a function without a body, so that
//! a call finds its handler without comparing names. Every other undefined function stops the path as
//! unsupported.

use crate::exec::executor::Executor;
use crate::exec::posix;
use crate::exec::special::{self, Call, End};
use crate::exec::state::State;
use crate::exec::value::Value;
use crate::exec::Exit;
use crate::ir::{FuncId, Module, RegId};

/// A handler that returns to its caller: the state to keep running, or `None` when the
/// path ended (or every state it made was scheduled on its own).
pub(crate) type Returns = for<'a, 'c> fn(&mut Executor<'a>, State, &Call<'c>) -> Option<State>;

/// A handler that never returns: how the path ends.
pub(crate) type Ends = for<'a, 'c> fn(&Executor<'a>, &State, &Call<'c>) -> End;

/// What a handler does: KLEE's "does not return" flag is which of the two it is.
#[derive(Clone, Copy)]
pub(crate) enum Action {
    Returns(Returns),
    Ends(Ends),
}

/// One entry of the table: a declared function's name and its handler.
pub(crate) struct Handler {
    pub name: &'static str,
    pub action: Action,
}

const fn returns(name: &'static str, run: Returns) -> Handler {
    Handler {
        name,
        action: Action::Returns(run),
    }
}

const fn ends(name: &'static str, end: Ends) -> Handler {
    Handler {
        name,
        action: Action::Ends(end),
    }
}

/// Every function the engine implements, by name (each name once).
pub(crate) static HANDLERS: &[Handler] = &[
    // The KLEE interface.
    returns("klee_make_symbolic", special::klee_make_symbolic),
    returns("klee_assume", special::klee_assume),
    returns("klee_is_symbolic", special::klee_is_symbolic),
    returns("klee_prefer_cex", special::returns_zero),
    returns("klee_print_expr", special::returns_zero),
    returns("klee_warning", special::returns_zero),
    ends("klee_report_error", special::klee_report_error),
    ends("klee_silent_exit", |_, _, _| End::Exit(Exit::Silent)),
    ends("klee_abort", special::abort),
    // Ending the program.
    ends("abort", special::abort),
    ends("exit", special::exit),
    ends("_exit", special::exit),
    ends("_Exit", special::exit),
    ends("__assert_fail", special::assert_fail),
    ends("__assert", special::assert_fail),
    ends("__assert_rtn", special::assert_fail),
    // Memory.
    returns("malloc", special::malloc),
    returns("calloc", special::calloc),
    returns("realloc", special::realloc),
    returns("free", special::free),
    returns("memcpy", special::memcpy),
    returns("memmove", special::memcpy),
    returns("memset", special::memset),
    // The primitives beneath the POSIX model (`posix.rs`).
    returns("__xc_output", posix::output),
    ends("__xc_exit", special::exit),
    ends("__xc_exit_signal", posix::exit_signal),
    returns("__xc_host_file", posix::host_file),
    returns("__xc_note_syscall", posix::note_syscall),
    returns("aligned_alloc", posix::aligned_alloc),
    returns("memalign", posix::aligned_alloc),
    returns("posix_memalign", posix::posix_memalign),
    returns("malloc_usable_size", posix::malloc_usable_size),
    ends("setjmp", posix::non_local_jump),
    ends("_setjmp", posix::non_local_jump),
    ends("sigsetjmp", posix::non_local_jump),
    ends("__sigsetjmp", posix::non_local_jump),
    ends("longjmp", posix::non_local_jump),
    ends("_longjmp", posix::non_local_jump),
    ends("siglongjmp", posix::non_local_jump),
];

/// The index in [`HANDLERS`] of the handler of every function of `module`, by function id
/// (defined functions have none: their bodies run). The executor keeps this vector and
/// fills it on its first call of a function without a body, so that a call looks its
/// handler up by id; it holds indices, not handlers, so that `executor.rs` need not know
/// this table's types (that would make a cycle between the two files).
fn resolve(module: &Module) -> Vec<Option<u16>> {
    by_names(
        module
            .functions
            .iter()
            .map(|f| f.is_declaration().then_some(f.source_name.as_str())),
    )
}

/// The handler indices of functions named in order of their ids (`None`: not a declaration).
fn by_names<'n>(names: impl Iterator<Item = Option<&'n str>>) -> Vec<Option<u16>> {
    names
        .map(|n| n.and_then(|n| HANDLERS.iter().position(|h| h.name == n)))
        .map(|i| i.map(|i| i as u16))
        .collect()
}

/// The handler of function `func` in the resolved indices.
fn get(resolved: &[Option<u16>], func: FuncId) -> Option<&'static Handler> {
    let index = resolved.get(func.index()).copied().flatten()?;
    Some(&HANDLERS[usize::from(index)])
}

impl Executor<'_> {
    /// A call to a function without a body.
    pub fn call_special(
        &mut self,
        state: State,
        func: FuncId,
        dst: Option<RegId>,
        args: &[Value],
    ) -> Option<State> {
        let resolved = self.specials.get_or_init(|| resolve(self.module));
        let Some(handler) = get(resolved, func) else {
            let name = &self.module.function(func).source_name;
            let what = format!("call to undefined function '{name}'");
            self.unsupported(state, &what);
            return None;
        };
        let call = Call {
            name: handler.name,
            dst,
            args,
        };
        match handler.action {
            Action::Returns(run) => run(self, state, &call),
            Action::Ends(end) => {
                match end(self, &state, &call) {
                    End::Exit(exit) => self.finish(state, exit),
                    End::Fail(kind) => self.fail(state, kind),
                    End::Unsupported(what) => self.unsupported(state, &what),
                }
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_has_one_handler() {
        assert!(HANDLERS.len() <= usize::from(u16::MAX), "indices are u16");
        for (i, h) in HANDLERS.iter().enumerate() {
            assert!(
                HANDLERS[..i].iter().all(|other| other.name != h.name),
                "'{}' is in the table twice",
                h.name
            );
        }
    }

    #[test]
    fn handlers_are_resolved_by_id_for_declarations_only() {
        let names = [
            Some("malloc"),
            None,
            Some("strlen"),
            Some("abort"),
            Some("__xc_output"),
        ];
        let specials = by_names(names.into_iter());
        let found = |i: u32| get(&specials, FuncId(i)).map(|h| h.name);
        assert_eq!(found(0), Some("malloc"));
        assert_eq!(found(1), None, "a defined function runs its body");
        assert_eq!(found(2), None, "an unknown declaration is unsupported");
        assert_eq!(found(3), Some("abort"));
        assert_eq!(found(4), Some("__xc_output"));
        assert_eq!(found(5), None, "an id past the module has no handler");
        assert!(matches!(
            get(&specials, FuncId(3)).map(|h| h.action),
            Some(Action::Ends(_))
        ));
        assert!(matches!(
            get(&specials, FuncId(0)).map(|h| h.action),
            Some(Action::Returns(_))
        ));
    }
}
