//! Global variables in function checks: which ones the checked pair can reach, which are
//! inputs and which are compared.
//!
//! A function can be called in any state of the globals it reads, and the globals it writes
//! are part of what it does. So, by default ([`GlobalsMode::Symbolic`]), a mutable global
//! that both sides define with the same name and size starts from the same symbolic bytes on
//! both sides (an input, named `global.NAME` in tests), and its final bytes are compared like
//! a buffer's. With [`GlobalsMode::Initial`] such globals start from their initializers, and
//! only those whose initializers are equal are compared. Constant globals keep their
//! initializers. A global holding pointers (addresses of each side's own objects) starts
//! from its initializer and is compared, its pointers by what they point to
//! (`pointers.rs`), when the two initializers point to corresponding objects. Globals that
//! cannot be paired (one side only, different sizes, pointers to objects that do not
//! correspond) keep their initializers, are not compared, and the report says so.

use crate::ir::{Callee, FuncId, Module, Operand, Side};
use std::collections::BTreeSet;

/// How mutable globals start in a function check.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GlobalsMode {
    /// From the same symbolic bytes on both sides. The default.
    #[default]
    Symbolic,
    /// From their initializers.
    Initial,
}

impl std::str::FromStr for GlobalsMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "symbolic" => Ok(GlobalsMode::Symbolic),
            "initial" => Ok(GlobalsMode::Initial),
            other => Err(format!("'{other}': expected symbolic or initial")),
        }
    }
}

/// A mutable global both sides define with the same name and size.
#[derive(Clone, Debug)]
pub struct SharedGlobal {
    /// The source name (`counter`, or `f.calls` for a static local of `f`).
    pub name: String,
    /// Its address on side A and on side B.
    pub a: u64,
    pub b: u64,
    pub size: u32,
    /// Whether it starts from symbolic bytes (an input of the check).
    pub input: bool,
}

impl SharedGlobal {
    /// The name of its input in tests.
    pub fn object_name(&self) -> String {
        format!("global.{}", self.name)
    }
}

/// The globals of one check.
#[derive(Clone, Debug, Default)]
pub struct GlobalPlan {
    /// Compared globals, in name order.
    pub shared: Vec<SharedGlobal>,
    /// What the report says about the others.
    pub notes: Vec<String>,
}

/// Globals larger than this are compared but never made symbolic (their bytes would
/// dominate every query); the report says so.
const MAX_SYMBOLIC_BYTES: u64 = 1 << 16;

/// The harness's `errno` (`harness/libc.c`): one object, which each side's
/// `__errno_location` returns.
pub const ERRNO_GLOBAL: &str = "__xc_errno";

/// Which globals the entry points `fa` and `fb` can reach, and how each is treated.
pub fn plan(module: &Module, fa: FuncId, fb: FuncId, mode: GlobalsMode) -> GlobalPlan {
    let (_, reached) = reachable(module, &[fa, fb]);
    let mut plan = GlobalPlan::default();
    // errno, when a side reaches it: an input of the call, reset before B (the object is
    // one for both sides: `a == b`) and compared, as a global both sides define.
    let errno = reached
        .iter()
        .map(|&g| &module.globals[g])
        .find(|g| g.side == Side::Shared && g.source_name == ERRNO_GLOBAL && !g.is_external);
    if let Some(g) = errno {
        plan.shared.push(SharedGlobal {
            name: "errno".into(),
            a: g.address,
            b: g.address,
            size: g.size as u32,
            input: mode == GlobalsMode::Symbolic,
        });
    }
    let mut names: BTreeSet<&str> = BTreeSet::new();
    for &g in &reached {
        let global = &module.globals[g];
        // musl's own state (linked with its code) starts from its initializers.
        if global.side != Side::Shared
            && !global.is_constant
            && !module.library.has_global(&global.name)
        {
            names.insert(global.source_name.as_str());
        }
    }
    let find = |side: Side, name: &str| {
        module
            .globals
            .iter()
            .find(|g| g.side == side && g.source_name == name && !g.is_external)
    };
    let mut one_side = Vec::new();
    let mut other_size = Vec::new();
    let mut pointers = Vec::new();
    let mut pointers_differ = Vec::new();
    let module_spans = std::sync::OnceLock::new();
    let mut different_init = Vec::new();
    let mut too_large = Vec::new();
    for name in names {
        let (Some(a), Some(b)) = (find(Side::A, name), find(Side::B, name)) else {
            one_side.push(name.to_string());
            continue;
        };
        if a.is_constant || b.is_constant || a.size != b.size {
            other_size.push(name.to_string());
            continue;
        }
        if a.holds_pointers || b.holds_pointers {
            // Addresses as inputs would be pointers into nothing: such a global starts from
            // its initializer, and is compared when the two initializers point to
            // corresponding objects (its words compared by what they point to).
            let spans = module_spans.get_or_init(|| super::pointers::module_spans(module));
            if super::pointers::initializers_correspond(spans, &a.init, &b.init) {
                pointers.push(name.to_string());
                plan.shared.push(SharedGlobal {
                    name: name.to_string(),
                    a: a.address,
                    b: b.address,
                    size: a.size as u32,
                    input: false,
                });
            } else {
                pointers_differ.push(name.to_string());
            }
            continue;
        }
        let input = match mode {
            GlobalsMode::Symbolic => {
                if a.size > MAX_SYMBOLIC_BYTES {
                    too_large.push(name.to_string());
                }
                a.size <= MAX_SYMBOLIC_BYTES
            }
            GlobalsMode::Initial => false,
        };
        if !input && a.init != b.init {
            different_init.push(name.to_string());
            continue;
        }
        plan.shared.push(SharedGlobal {
            name: name.to_string(),
            a: a.address,
            b: b.address,
            size: a.size as u32,
            input,
        });
    }
    let plain: Vec<String> = plan
        .shared
        .iter()
        .filter(|g| !pointers.contains(&g.name))
        .map(|g| g.name.clone())
        .collect();
    if !plain.is_empty() {
        let start = match mode {
            GlobalsMode::Symbolic => "start from the same symbolic bytes on both sides",
            GlobalsMode::Initial => "start from their initializers (--globals initial)",
        };
        plan.notes.push(format!(
            "globals {}: {start}; final bytes compared",
            list(&plain)
        ));
    }
    for (names, why) in [
        (
            one_side,
            "defined on one side only (or constant on one): start from initializers, not compared",
        ),
        (
            other_size,
            "differ in size or constness between the sides: start from initializers, not compared",
        ),
        (
            pointers,
            "hold pointers: start from initializers; final contents compared, pointers by what they point to",
        ),
        (
            pointers_differ,
            "hold pointers to objects that do not correspond: start from initializers, not compared",
        ),
        (
            different_init,
            "have different initializers on the two sides: not compared",
        ),
        (
            too_large,
            "are larger than 64 KiB: start from initializers (compared)",
        ),
    ] {
        if !names.is_empty() {
            plan.notes.push(format!("globals {} {why}", list(&names)));
        }
    }
    plan
}

/// `a, b, c` or `a, b, c, d, e and 7 more`.
fn list(names: &[String]) -> String {
    const SHOWN: usize = 5;
    let quoted: Vec<String> = names.iter().take(SHOWN).map(|n| format!("'{n}'")).collect();
    if names.len() > SHOWN {
        format!("{} and {} more", quoted.join(", "), names.len() - SHOWN)
    } else {
        quoted.join(", ")
    }
}

/// The functions reachable from `roots`, and the indices of the globals that their code
/// can name: through constant operands that point into a global, and through pointers in
/// reached globals' initializers. Reaching follows direct calls and function addresses
/// taken anywhere reached.
pub(crate) fn reachable(module: &Module, roots: &[FuncId]) -> (BTreeSet<FuncId>, BTreeSet<usize>) {
    // Globals by address, for lookups of constants.
    let mut by_address: Vec<(u64, u64, usize)> = module
        .globals
        .iter()
        .enumerate()
        .map(|(i, g)| (g.address, g.size.max(1), i))
        .collect();
    by_address.sort_unstable();
    let global_at = |address: u64| -> Option<usize> {
        let i = by_address.partition_point(|&(a, _, _)| a <= address);
        let &(a, size, g) = by_address.get(i.checked_sub(1)?)?;
        (address - a <= size).then_some(g)
    };
    let mut funcs: Vec<FuncId> = roots.to_vec();
    let mut seen_funcs: BTreeSet<FuncId> = roots.iter().copied().collect();
    let mut globals: BTreeSet<usize> = BTreeSet::new();
    let mut pending_globals: Vec<usize> = Vec::new();
    let note_address = |address: u64,
                        funcs: &mut Vec<FuncId>,
                        seen_funcs: &mut BTreeSet<FuncId>,
                        pending: &mut Vec<usize>,
                        globals: &mut BTreeSet<usize>| {
        if let Some(f) = module.function_at(address) {
            if seen_funcs.insert(f) {
                funcs.push(f);
            }
        } else if let Some(g) = global_at(address) {
            if globals.insert(g) {
                pending.push(g);
            }
        }
    };
    loop {
        if let Some(f) = funcs.pop() {
            let function = module.function(f);
            for block in &function.blocks {
                let mut operands: Vec<Operand> = block
                    .phis
                    .iter()
                    .flat_map(|p| p.incoming.iter().map(|(_, op)| *op))
                    .collect();
                match &block.term {
                    crate::ir::Terminator::Ret(Some(op))
                    | crate::ir::Terminator::CondBr { cond: op, .. }
                    | crate::ir::Terminator::Switch { value: op, .. } => operands.push(*op),
                    _ => {}
                }
                for inst in &block.insts {
                    operands.extend(inst.operands());
                    if let crate::ir::Inst::Call {
                        callee: Callee::Direct(g),
                        ..
                    } = inst
                    {
                        if seen_funcs.insert(*g) {
                            funcs.push(*g);
                        }
                    }
                }
                for op in operands {
                    if let Operand::Const(k) = op {
                        let c = module.constant(k);
                        if c.width == crate::ir::PTR_WIDTH {
                            note_address(
                                c.value as u64,
                                &mut funcs,
                                &mut seen_funcs,
                                &mut pending_globals,
                                &mut globals,
                            );
                        }
                    }
                }
            }
        } else if let Some(g) = pending_globals.pop() {
            let global = &module.globals[g];
            if global.holds_pointers {
                for word in global.init.chunks_exact(8) {
                    let mut bytes = [0u8; 8];
                    bytes.copy_from_slice(word);
                    note_address(
                        u64::from_le_bytes(bytes),
                        &mut funcs,
                        &mut seen_funcs,
                        &mut pending_globals,
                        &mut globals,
                    );
                }
            }
        } else {
            return (seen_funcs, globals);
        }
    }
}
