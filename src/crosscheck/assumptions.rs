//! What a verdict rests on that its inputs do not show, stated in every report
//! (`Summary::assumptions`): the buffers a function's pointer parameters get, that they do
//! not alias, how undefined behaviour is treated, how results are compared, and for whole
//! programs the environment the model pins.

use super::check::FunctionCheck;
use super::globals::GlobalsMode;
use super::setup::Signature;
use crate::exec::UbMode;

use super::check::{BufferOffset, BUFFER_ALIGN as BUFFER_ALIGNMENT};

/// The assumptions of a function check of `sig`.
pub fn of_function(check: &FunctionCheck, sig: &Signature) -> Vec<String> {
    let mut out = Vec::new();
    let buffers: Vec<&super::setup::ParamSpec> =
        sig.params.iter().filter(|p| p.buffer.is_some()).collect();
    for (i, p) in sig.params.iter().enumerate() {
        let Some(size) = p.buffer else { continue };
        if let Some(alias) = p.alias {
            let total = sig.params[alias.leader].buffer.unwrap_or(0);
            let group: Vec<String> = sig
                .params
                .iter()
                .filter(|q| q.alias.is_some_and(|a| a.leader == alias.leader))
                .map(|q| format!("'{}'", q.name))
                .collect();
            if alias.leader == i {
                out.push(format!(
                    "{} point into one object of {total} bytes at a {BUFFER_ALIGNMENT}-byte \
                     boundary (--alias), each at an offset that is an input ('NAME.offset') \
                     where its own bytes fit, so they may coincide, overlap or lie apart; the \
                     object's bytes are inputs, its final bytes compared; a path that reads or \
                     writes outside it ends unknown",
                    group.join(", ")
                ));
            }
            continue;
        }
        let explicit = check
            .param_sizes
            .iter()
            .any(|(n, _)| *n == p.name || *n == format!("arg{i}"));
        let from = if explicit {
            format!("--buffer-size {}={size}", p.name)
        } else if size != check.buffer_size {
            "the size of its pointee".to_string()
        } else {
            format!("--buffer-size {size}")
        };
        let compared = if p.compared && check.compare_buffers {
            "its final bytes compared"
        } else {
            "its final bytes not compared"
        };
        let outside = match p.cap {
            Some(cap) => format!(
                "it grows on demand when a side reads or writes past its end, up to {cap} bytes \
                 (--buffer-cap); a path that needs more, reads before its start, or reads a \
                 pointer from it ends unknown"
            ),
            None => "a path that reads or writes outside it, or reads a pointer from it, ends \
                     unknown"
                .to_string(),
        };
        let start = match p.offset {
            None => format!("at a {BUFFER_ALIGNMENT}-byte boundary"),
            Some(BufferOffset::Fixed(k)) => {
                format!("{k} bytes past a {BUFFER_ALIGNMENT}-byte boundary (--buffer-offset {k})")
            }
            Some(BufferOffset::Any) => format!(
                "at any offset from a {BUFFER_ALIGNMENT}-byte boundary (an input, \
                 '{}.offset'; --buffer-offset any), the {BUFFER_ALIGNMENT} bytes before it \
                 inputs too",
                p.name
            ),
        };
        out.push(format!(
            "'{}' points to a buffer of {size} bytes ({from}) {start}, never NULL; its bytes \
             are inputs, {compared}; {outside}",
            p.name
        ));
    }
    let separate: Vec<String> = buffers
        .iter()
        .filter(|p| p.alias.is_none())
        .map(|p| format!("'{}'", p.name))
        .collect();
    if buffers.len() > 1 && separate.len() == buffers.len() {
        out.push(format!(
            "{} point to separate buffers: aliasing between them is not explored (--alias \
             explores it)",
            separate.join(", ")
        ));
    } else if buffers.len() > 1 && !separate.is_empty() {
        out.push(format!(
            "{} {} to a buffer of its own: aliasing with the others is not explored",
            separate.join(", "),
            if separate.len() == 1 {
                "points"
            } else {
                "point each"
            }
        ));
    }
    if sig.globals.shared.iter().any(|g| g.input) {
        out.push(match check.globals {
            GlobalsMode::Symbolic => {
                "mutable globals both sides define start from the same symbolic bytes (--globals symbolic)"
            }
            GlobalsMode::Initial => "mutable globals start from their initializers (--globals initial)",
        }
        .to_string());
    }
    if sig.ret_is_pointer {
        out.push(
            "a returned pointer is compared by what it points to: the same parameter's buffer, \
             global or function of the same name, constant of equal bytes, or the heap object \
             allocated in the same order (whose bytes are compared too), at the same offset"
                .to_string(),
        );
    }
    let ub = match check.ub {
        UbMode::Report => {
            "undefined behaviour of shifts by at least the width, ctlz/cttz of zero, failed \
             poison flags (signed overflow: nsw, nuw, exact, disjoint; nneg of zext and \
             uitofp; nuw, nsw of trunc), float-to-integer conversions out of range, values \
             outside the range LLVM gives them (!range of \
             a load, range of a return value), undef and poison constants (frozen too: any \
             value) and reads of memory never written is reported (--ub report): a path whose \
             outcome depends on its value gets no verdict unless native executables of the \
             pair differ on its inputs"
        }
        UbMode::Machine => {
            "undefined behaviour computes x86-64's value (--ub machine): shift counts masked, \
             overflow wraps, undef and poison constants and memory never written are zero"
        }
    };
    out.push(ub.to_string());
    out.push(
        "not treated as undefined behaviour: x87 (long double) conversions to integers out of \
         range (x86-64's integer indefinite), undef or poison aggregates (zero), reads at a \
         symbolic offset of objects whose never-written bytes lie in more than 64 runs \
         (zero there), \
         getelementptr inbounds/nuw (the unflagged address), other value attributes \
         (range of a parameter or a call, noundef, nonnull: ignored); a freeze of a value that may \
         be poison stays poison where it is (a branch on it is named as one on poison)"
            .to_string(),
    );
    if sig.ret_is_float || sig.params.iter().any(|p| p.float) {
        out.push(format!(
            "floating-point return values are equal when {}",
            sig.fp_equality
        ));
    }
    out
}

/// The assumptions of a whole-program check: the environment the POSIX model pins
/// (`harness/posix/sys.c`), of which `read` names the parts the paths read (by
/// [`PinnedRead`] code).
pub fn of_programs(read: &std::collections::BTreeMap<i64, u64>) -> Vec<String> {
    let mut out: Vec<String> = PINNED
        .iter()
        .filter(|(code, _)| read.contains_key(code))
        .map(|(code, what)| format!("{what} (read {} times)", read[code]))
        .collect();
    out.push(
        "undefined behaviour gets x86-64's values (shift counts masked), which native replay \
         confirms"
            .to_string(),
    );
    out
}

/// What the POSIX model answers for each part of the environment it pins, by the code its
/// `__xc_note_pinned` calls report (`XC_PINNED_*` in `harness/include/xcheck/posix.h`).
const PINNED: [(i64, &str); 5] = [
    (
        1,
        "the clock is pinned: every wall clock reads 2020-01-01 00:00:00 UTC (1577836800), CPU \
         clocks 1 ms, and sleeps return at once",
    ),
    (
        2,
        "the process identity is pinned: pid 42, parent pid 1, user and group 0",
    ),
    (
        3,
        "random bytes (getrandom, /dev/urandom) are one fixed sequence, the same for both sides",
    ),
    (
        4,
        "the system is pinned: uname reads Linux xcheck 5.15.0 x86_64, one process, 1 GiB of memory",
    ),
    (5, "the working directory is pinned: /"),
];
