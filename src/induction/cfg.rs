//! The loop structure of one function: its blocks' successors, dominators and natural
//! loops. The induction proof handles a function with at most one loop (one header, any
//! number of back edges to it, no other cycle).

use crate::ir::{BlockId, Function, Terminator};

/// The successors of a terminator, in order (a switch's default first).
pub(super) fn successors(term: &Terminator) -> Vec<BlockId> {
    match term {
        Terminator::Br(t) => vec![*t],
        Terminator::CondBr { then, els, .. } => vec![*then, *els],
        Terminator::Switch { default, cases, .. } => std::iter::once(*default)
            .chain(cases.iter().map(|(_, b)| *b))
            .collect(),
        Terminator::Ret(_) | Terminator::Unreachable | Terminator::Unsupported { .. } => Vec::new(),
    }
}

/// A function's one loop: its header and the blocks of its body (the header included).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Loop {
    pub header: BlockId,
    pub body: Vec<bool>,
}

/// The loop of `f`: `Ok(None)` when it has none, an error naming what the proof does not
/// handle (two loops, nested loops, a cycle that is not a natural loop).
pub(super) fn the_loop(f: &Function) -> Result<Option<Loop>, String> {
    let n = f.blocks.len();
    let succ: Vec<Vec<BlockId>> = f.blocks.iter().map(|b| successors(&b.term)).collect();
    let reachable = reachable_from_entry(&succ);
    let dom = dominators(&succ, &reachable);
    let mut header = None;
    let mut latches = Vec::new();
    for (u, targets) in succ.iter().enumerate() {
        if !reachable[u] {
            continue;
        }
        for &h in targets {
            if dominates(&dom, h.index(), u) {
                match header {
                    None => header = Some(h),
                    Some(existing) if existing == h => {}
                    Some(_) => return Err("more than one loop".into()),
                }
                latches.push(u);
            }
        }
    }
    let Some(header) = header else {
        if has_cycle(&succ, &reachable, None) {
            return Err("a cycle that is not a natural loop".into());
        }
        return Ok(None);
    };
    // The body: every block that reaches a latch without passing the header.
    let mut body = vec![false; n];
    body[header.index()] = true;
    let mut work = latches.clone();
    let preds = predecessors(&succ);
    while let Some(b) = work.pop() {
        if body[b] {
            continue;
        }
        body[b] = true;
        work.extend(preds[b].iter().copied().filter(|&p| reachable[p]));
    }
    if has_cycle(&succ, &reachable, Some(header)) {
        return Err("a loop nested in another, or a cycle that is not a natural loop".into());
    }
    Ok(Some(Loop { header, body }))
}

fn reachable_from_entry(succ: &[Vec<BlockId>]) -> Vec<bool> {
    let mut seen = vec![false; succ.len()];
    let mut work = vec![0usize];
    while let Some(b) = work.pop() {
        if b >= succ.len() || seen[b] {
            continue;
        }
        seen[b] = true;
        work.extend(succ[b].iter().map(|t| t.index()));
    }
    seen
}

fn predecessors(succ: &[Vec<BlockId>]) -> Vec<Vec<usize>> {
    let mut preds = vec![Vec::new(); succ.len()];
    for (u, targets) in succ.iter().enumerate() {
        for t in targets {
            preds[t.index()].push(u);
        }
    }
    preds
}

/// Each reachable block's dominators, as a bit set per block (iterative data flow).
fn dominators(succ: &[Vec<BlockId>], reachable: &[bool]) -> Vec<Vec<bool>> {
    let n = succ.len();
    let preds = predecessors(succ);
    let mut dom: Vec<Vec<bool>> = (0..n)
        .map(|b| {
            if b == 0 {
                (0..n).map(|x| x == 0).collect()
            } else {
                vec![true; n]
            }
        })
        .collect();
    let mut changed = true;
    while changed {
        changed = false;
        for b in 1..n {
            if !reachable[b] {
                continue;
            }
            let mut next = vec![true; n];
            for &p in preds[b].iter().filter(|&&p| reachable[p]) {
                for (x, d) in next.iter_mut().enumerate() {
                    *d = *d && dom[p][x];
                }
            }
            next[b] = true;
            if next != dom[b] {
                dom[b] = next;
                changed = true;
            }
        }
    }
    dom
}

fn dominates(dom: &[Vec<bool>], d: usize, b: usize) -> bool {
    dom[b][d]
}

/// Whether the reachable graph has a cycle once the edges into `cut` are removed.
fn has_cycle(succ: &[Vec<BlockId>], reachable: &[bool], cut: Option<BlockId>) -> bool {
    // 0: unvisited, 1: on the stack, 2: done.
    let mut mark = vec![0u8; succ.len()];
    for start in 0..succ.len() {
        if !reachable[start] || mark[start] != 0 {
            continue;
        }
        let mut stack = vec![(start, 0usize)];
        mark[start] = 1;
        while let Some(&mut (b, ref mut i)) = stack.last_mut() {
            if let Some(&t) = succ[b].get(*i) {
                *i += 1;
                if Some(t) == cut {
                    continue;
                }
                match mark[t.index()] {
                    0 => {
                        mark[t.index()] = 1;
                        stack.push((t.index(), 0));
                    }
                    1 => return true,
                    _ => {}
                }
            } else {
                mark[b] = 2;
                stack.pop();
            }
        }
    }
    false
}
