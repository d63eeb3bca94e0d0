//! Unit tests of the executor's limits, each on a small hand-made program that reaches it:
//! `max_instructions_per_path` (a loop that never ends), `max_paths` and `max_memory` (a
//! tree of 2^n paths), `max_time` and an interrupt (a loop the stop token ends). Each test
//! asserts the reason the run or the path reports, and a control run shows that the limit,
//! not the program, ended it.

use super::executor::ExecConfig;
use super::merge::MergeMode;
use super::{Driver, Executor, Exit, State, Value};
use crate::expr::ExprPool;
use crate::ir::*;
use crate::solver::{build_chain, SolverConfig};
use std::time::{Duration, Instant};

/// Collects how every path ended.
#[derive(Default)]
struct Ends(Vec<Exit>);

impl Driver for Ends {
    fn on_exit(&mut self, _: &mut Executor<'_>, _: State, exit: Exit) -> Option<State> {
        self.0.push(exit);
        None
    }
}

/// A module of one function `f(i32 x)` with `blocks`; constants: c0 = 0 (i32), then the
/// bits 1 << k (i32) for k in 0..16.
fn module(blocks: Vec<Block>) -> Module {
    let mut constants = vec![Constant {
        width: 32,
        value: 0,
    }];
    constants.extend((0..16).map(|k| Constant {
        width: 32,
        value: 1 << k,
    }));
    Module {
        functions: vec![Function::for_tests(blocks, 64)],
        constants,
        locs: vec!["f.c:1".into()],
        ..Module::default()
    }
}

fn block(insts: Vec<Inst>, term: Terminator) -> Block {
    Block {
        phis: Vec::new(),
        locs: vec![LocId(0); insts.len()],
        insts,
        term,
        term_loc: LocId(0),
    }
}

const X: Operand = Operand::Reg(RegId(0));

/// `bb0: br bb0`: a path that never ends.
fn spin() -> Module {
    module(vec![block(Vec::new(), Terminator::Br(BlockId(0)))])
}

/// A branch on each of the low `n` bits of `x`, one after another: 2^n paths.
fn tree(n: u32) -> Module {
    let mut blocks = Vec::new();
    for k in 0..n {
        // Block 3k tests bit k; 3k + 1 and 3k + 2 both go on to 3k + 3.
        let (bit, test) = (RegId(1 + 2 * k), RegId(2 + 2 * k));
        let next = BlockId(3 * k + 3);
        blocks.push(block(
            vec![
                Inst::Binary {
                    dst: bit,
                    op: BinOp::And,
                    lhs: X,
                    rhs: Operand::Const(ConstId(1 + k)),
                    flags: Flags::NONE,
                },
                Inst::ICmp {
                    dst: test,
                    pred: Predicate::Eq,
                    lhs: Operand::Reg(bit),
                    rhs: Operand::Const(ConstId(0)),
                },
            ],
            Terminator::CondBr {
                cond: Operand::Reg(test),
                then: BlockId(3 * k + 1),
                els: BlockId(3 * k + 2),
            },
        ));
        blocks.push(block(Vec::new(), Terminator::Br(next)));
        blocks.push(block(Vec::new(), Terminator::Br(next)));
    }
    blocks.push(block(Vec::new(), Terminator::Ret(Some(X))));
    module(blocks)
}

/// Explores `f` of `module` on a symbolic `x` under `config` (states never merged).
fn explore(module: &Module, config: ExecConfig) -> (Ends, super::executor::ExecStats, usize) {
    let pool = ExprPool::new();
    let config = ExecConfig {
        merge: MergeMode::Off,
        ..config
    };
    let mut ex = Executor::new(module, &pool, build_chain(&SolverConfig::default()), config);
    let mut state = ex.initial_state();
    let array = pool.new_array("x", 4);
    let bytes: Vec<_> = (0..4).map(|i| pool.sym(array, i)).collect();
    let x = Value::Sym(pool.concat_bytes(&bytes));
    ex.push_call(&mut state, FuncId(0), &[x], None);
    let mut ends = Ends::default();
    ex.run(state, &mut ends);
    let live = ex.live_at_end;
    (ends, ex.stats.clone(), live)
}

fn unknown_reasons(ends: &Ends) -> Vec<String> {
    ends.0
        .iter()
        .filter_map(|e| match e {
            Exit::Unknown(why) => Some(why.to_string()),
            _ => None,
        })
        .collect()
}

#[test]
fn a_path_longer_than_the_instruction_limit_ends_unknown_saying_so() {
    let config = ExecConfig {
        max_instructions_per_path: 25_000,
        ..ExecConfig::default()
    };
    let (ends, stats, live) = explore(&spin(), config);
    let Exit::Unknown(why) = &ends.0[0] else {
        panic!("{:?}", ends.0)
    };
    assert_eq!(*why, super::Undecided::PathTooLong { limit: 25_000 });
    assert_eq!(
        unknown_reasons(&ends),
        ["path longer than 25000 instructions"]
    );
    assert_eq!(ends.0.len(), 1);
    // The path ended; the run was not stopped.
    assert_eq!(stats.stop_reason, None);
    assert_eq!(live, 0);
}

#[test]
fn the_path_limit_stops_the_run_saying_so() {
    // Without a limit the tree has 2^6 paths, each returning.
    let (ends, stats, _) = explore(&tree(6), ExecConfig::default());
    assert_eq!(ends.0.len(), 64);
    assert!(ends.0.iter().all(|e| matches!(e, Exit::Returned(_))));
    assert_eq!(stats.stop_reason, None);
    let config = ExecConfig {
        max_paths: Some(3),
        ..ExecConfig::default()
    };
    let (ends, stats, live) = explore(&tree(6), config);
    assert_eq!(
        stats.stop_reason.map(|h| h.to_string()).as_deref(),
        Some("max-paths 3 reached")
    );
    assert_eq!(stats.paths, 3);
    assert!(ends.0.len() < 64, "{} paths ended", ends.0.len());
    assert!(live > 0, "the states left are counted as live at the end");
}

#[test]
fn the_time_limit_stops_a_path_that_never_ends_saying_so() {
    let config = ExecConfig {
        max_time: Some(Duration::from_millis(200)),
        max_instructions_per_path: u64::MAX,
        ..ExecConfig::default()
    };
    let start = Instant::now();
    let (ends, stats, live) = explore(&spin(), config);
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(
        stats.stop_reason.map(|h| h.to_string()).as_deref(),
        Some("max-time 0.2s reached")
    );
    // The spinning path did not end: it is left live, not reported as a path.
    assert_eq!(live, 1);
    assert!(ends.0.is_empty());
}

#[test]
fn an_interrupt_stops_the_run_saying_so() {
    let config = ExecConfig {
        max_instructions_per_path: u64::MAX,
        ..ExecConfig::default()
    };
    config.stop.interrupt();
    let (ends, stats, _) = explore(&spin(), config);
    assert_eq!(
        stats.stop_reason.map(|h| h.to_string()).as_deref(),
        Some("interrupted")
    );
    assert!(ends.0.is_empty());
}

#[test]
fn over_the_memory_cap_states_are_dropped_and_counted_as_left() {
    // A cap no process fits under: at each progress tick a quarter of the live states go.
    // The time limit only bounds the test; 2^14 paths do not end within it.
    let config = ExecConfig {
        max_memory: Some(1),
        max_time: Some(Duration::from_secs(2)),
        ..ExecConfig::default()
    };
    let (ends, stats, live) = explore(&tree(14), config);
    assert!(
        stats.dropped_for_memory > 0,
        "no state dropped ({} paths ended)",
        ends.0.len()
    );
    assert!(live as u64 >= stats.dropped_for_memory);
    assert!(ends.0.len() < 1 << 14);
}
