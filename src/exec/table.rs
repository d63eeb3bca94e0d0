//! The table of the functions the engine implements, as KLEE's `SpecialFunctionHandler`:
//! [`HANDLERS`] maps a declared function's name to its handler (in `special.rs`,
//! `posix.rs` or `jump.rs`) and says whether the call returns. It is resolved once per executor into
//! handler indices by function id, on the first call of a function without a body, so that
//! a call finds its handler without comparing names. A function named by `--abstract-calls`
//! (`ExecConfig::abstract_calls`) goes to `abstract_call.rs` instead, before any handler.
//! Every other undefined function stops the path as unsupported.

use crate::exec::abstract_call::abstract_call;
use crate::exec::executor::Executor;
use crate::exec::jump;
use crate::exec::posix;
use crate::exec::special::{self, Call, End};
use crate::exec::state::State;
use crate::exec::value::Value;
use crate::exec::Exit;
use crate::ir::{self, FuncId, Module, RegId};

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
    returns("klee_prefer_cex", special::klee_prefer_cex),
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
    // Only reached where no POSIX model defines it: function checks (stdout).
    returns("__xc_syscall", posix::syscall),
    ends("__xc_exit", special::exit),
    ends("__xc_exit_signal", posix::exit_signal),
    returns("__xc_host_file", posix::host_file),
    returns("__xc_note_syscall", posix::note_syscall),
    returns("__xc_note_pinned", posix::note_pinned),
    returns("aligned_alloc", posix::aligned_alloc),
    returns("memalign", posix::aligned_alloc),
    returns("posix_memalign", posix::posix_memalign),
    returns("malloc_usable_size", posix::malloc_usable_size),
    // Non-local jumps (`jump.rs`).
    returns("setjmp", jump::setjmp),
    returns("_setjmp", jump::setjmp),
    returns("sigsetjmp", jump::setjmp),
    returns("__sigsetjmp", jump::setjmp),
    returns("longjmp", jump::longjmp),
    returns("_longjmp", jump::longjmp),
    returns("siglongjmp", jump::longjmp),
];

/// The index that stands for "an abstracted call" among the resolved handler indices.
const ABSTRACT: u16 = u16::MAX;

/// The index in [`HANDLERS`] of the handler of every function of `module`, by function id
/// (defined functions have none: their bodies run), or [`ABSTRACT`] for a declaration named
/// in `abstract_calls`. The executor keeps this vector and fills it on its first call of a
/// function without a body, so that a call looks its handler up by id; it holds indices,
/// not handlers, so that `executor.rs` need not know this table's types (that would make a
/// cycle between the two files).
fn resolve(module: &Module, abstract_calls: &[String]) -> Vec<Option<u16>> {
    by_names(
        module
            .functions
            .iter()
            .map(|f| f.is_declaration().then(|| ir::split_name(&f.name).1)),
        abstract_calls,
    )
}

/// The handler indices of functions named in order of their ids (`None`: not a declaration).
fn by_names<'n>(
    names: impl Iterator<Item = Option<&'n str>>,
    abstract_calls: &[String],
) -> Vec<Option<u16>> {
    names
        .map(|n| {
            let n = n?;
            if abstract_calls.iter().any(|a| a == n) {
                return Some(ABSTRACT);
            }
            HANDLERS.iter().position(|h| h.name == n).map(|i| i as u16)
        })
        .collect()
}

/// What a call of a function without a body does, by the resolved indices.
enum Resolved {
    Handler(&'static Handler),
    Abstract,
    Missing,
}

/// The handler of function `func` in the resolved indices.
fn get(resolved: &[Option<u16>], func: FuncId) -> Resolved {
    match resolved.get(func.index()).copied().flatten() {
        None => Resolved::Missing,
        Some(ABSTRACT) => Resolved::Abstract,
        Some(index) => Resolved::Handler(&HANDLERS[usize::from(index)]),
    }
}

/// Whether the engine implements the function named `name` (a declaration's name).
pub fn has_handler(name: &str) -> bool {
    HANDLERS.iter().any(|h| h.name == name)
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
        let resolved = self
            .specials
            .get_or_init(|| resolve(self.module, &self.config.abstract_calls));
        let handler = match get(resolved, func) {
            Resolved::Handler(handler) => handler,
            Resolved::Abstract => return abstract_call(self, state, func, dst, args),
            Resolved::Missing => {
                let name = &self.module.function(func).source_name;
                let what = format!("call to undefined function '{name}'");
                self.unsupported(state, &what);
                return None;
            }
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
                }
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    /// The names the loader keeps from musl's code because the engine runs them are handled.
    #[test]
    fn what_the_loader_leaves_to_the_engine_has_a_handler() {
        for name in crate::load::libm::ENGINE_RUNS {
            assert!(has_handler(name), "{name} has no handler");
        }
    }

    /// Every name the engine handles, every system call the POSIX model answers and every
    /// function the harness's C library defines is in `docs/modelled-calls.md`.
    #[test]
    fn every_modelled_call_is_documented() {
        let doc = include_str!("../../docs/modelled-calls.md");
        let listed = |name: &str| doc.contains(&format!("`{name}`"));
        for h in HANDLERS {
            assert!(
                listed(h.name),
                "handler {} is not in docs/modelled-calls.md",
                h.name
            );
        }
        let model = [
            include_str!("../../harness/posix/sys.c"),
            include_str!("../../harness/posix/fd.c"),
        ];
        for text in model {
            for call in text.split("case XC_SYS_").skip(1) {
                let name: String = call
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                assert!(
                    listed(&name),
                    "system call {name} is not in docs/modelled-calls.md"
                );
            }
        }
        for line in include_str!("../../harness/libc.c").lines() {
            let Some(def) = line.strip_prefix("WEAK ") else {
                continue;
            };
            let name: String = def[..def.find('(').unwrap()]
                .rsplit([' ', '*'])
                .next()
                .unwrap()
                .to_string();
            assert!(
                listed(&name),
                "harness function {name} is not in docs/modelled-calls.md"
            );
        }
    }

    use super::*;

    #[test]
    fn every_name_has_one_handler() {
        assert!(
            HANDLERS.len() < usize::from(ABSTRACT),
            "indices are u16, and one stands for abstracted calls"
        );
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
        let specials = by_names(names.into_iter(), &[]);
        let found = |i: u32| match get(&specials, FuncId(i)) {
            Resolved::Handler(h) => Some(h.name),
            _ => None,
        };
        assert_eq!(found(0), Some("malloc"));
        assert_eq!(found(1), None, "a defined function runs its body");
        assert_eq!(found(2), None, "an unknown declaration is unsupported");
        assert_eq!(found(3), Some("abort"));
        assert_eq!(found(4), Some("__xc_output"));
        assert_eq!(found(5), None, "an id past the module has no handler");
        assert!(matches!(
            get(&specials, FuncId(3)),
            Resolved::Handler(Handler {
                action: Action::Ends(_),
                ..
            })
        ));
        assert!(matches!(
            get(&specials, FuncId(0)),
            Resolved::Handler(Handler {
                action: Action::Returns(_),
                ..
            })
        ));
    }

    #[test]
    fn abstracted_names_come_before_handlers_and_only_for_declarations() {
        let names = [Some("sin"), None, Some("malloc"), Some("cos")];
        let abstracted = ["sin".to_string(), "malloc".to_string()];
        let specials = by_names(names.into_iter(), &abstracted);
        assert!(matches!(get(&specials, FuncId(0)), Resolved::Abstract));
        assert!(matches!(get(&specials, FuncId(1)), Resolved::Missing));
        assert!(matches!(get(&specials, FuncId(2)), Resolved::Abstract));
        assert!(matches!(get(&specials, FuncId(3)), Resolved::Missing));
        assert!(has_handler("malloc") && !has_handler("sin"));
    }
}
