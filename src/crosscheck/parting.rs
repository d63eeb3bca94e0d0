//! Where a difference leaves agreement: for each row that differs, the deepest branch of
//! its path whose other direction leads to a path where the sides agree. Two rows part
//! from agreement at the same branch when one condition (a byte being a letter, an option
//! one side knows) is what makes them differ, so the branch names a cause, in the code of
//! the side (or the C library, or the model) that took it.
//!
//! The rows are in path order: the agreeing row that shares the longest prefix of a row's
//! branch decisions is the nearest agreeing row before it or after it, so one pass each
//! way finds every row's parting branch. Where that branch was taken is in the check's
//! [`ForkLog`], under the hash of the path that leads to it.

use crate::exec::{ForkLog, ForkSite};
use crate::ir::{Module, Side};
use crate::report::{PathRow, PathVerdict};

/// Sets `parts_at` of every difference row of `keyed` (rows in path order, each with its
/// branch decisions) that has an agreeing row beside its path, naming the branch from `log`.
pub(crate) fn mark(keyed: &mut [(Vec<u8>, PathRow)], module: &Module, log: &ForkLog) {
    mark_with(keyed, &|prefix| {
        log.site_after(prefix).map(|site| site_text(module, &site))
    });
}

/// [`mark`], naming the branch that follows the path `prefix` with `name`.
fn mark_with(keyed: &mut [(Vec<u8>, PathRow)], name: &dyn Fn(&[u8]) -> Option<String>) {
    let agrees = |r: &PathRow| matches!(r.verdict, PathVerdict::Proved | PathVerdict::ErrorBoth);
    let mut depth: Vec<Option<usize>> = vec![None; keyed.len()];
    let mut deepen = |order: &mut dyn Iterator<Item = usize>| {
        let mut last: Option<usize> = None;
        for i in order {
            let (path, row) = &keyed[i];
            if agrees(row) {
                last = Some(i);
            } else if let (true, Some(j)) = (row.verdict.is_difference(), last) {
                let shared = common_prefix(path, &keyed[j].0);
                depth[i] = depth[i].max(Some(shared));
            }
        }
    };
    deepen(&mut (0..keyed.len()));
    deepen(&mut (0..keyed.len()).rev());
    for ((path, row), d) in keyed.iter_mut().zip(depth) {
        // A shared prefix as long as the path is no branch of it (a merged path's row).
        if let Some(d) = d.filter(|&d| d < path.len()) {
            row.parts_at = name(&path[..d]);
        }
    }
}

/// How many leading branch decisions `a` and `b` share.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

/// `B wc.c:123 (wc_main)`: whose code took the branch, where, in which function; for a
/// branch of the C library or the model, the program's call it ran for (`B strcmp.c:5
/// (strcmp), called from echo.c:40 (main)`).
fn site_text(module: &Module, site: &ForkSite) -> String {
    let Some(func) = site.func.map(|f| module.function(f)) else {
        return "the environment".into();
    };
    let who = match func.side {
        Side::A => "A",
        Side::B => "B",
        Side::C => "C",
        Side::Shared => "model",
    };
    let mut text = match site.loc {
        Some(loc) => format!("{who} {} ({})", module.loc(loc), func.source_name),
        None => format!("{who} {}", func.source_name),
    };
    if let Some((f, loc)) = site.caller {
        let f = module.function(f);
        text.push_str(&format!(
            ", called from {} ({})",
            module.loc(loc),
            f.source_name
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(verdict: PathVerdict) -> PathRow {
        crate::report::tests::bare_row(0, verdict)
    }

    #[test]
    fn a_difference_parts_at_the_deepest_branch_with_agreement_beside_it() {
        let mut keyed: Vec<_> = [
            (vec![0, 0, 0], PathVerdict::Proved),
            (vec![0, 0, 1], PathVerdict::Diverged),
            (vec![0, 1, 0], PathVerdict::Diverged),
            (vec![1, 0, 0], PathVerdict::ErrorOne),
            (vec![1, 1, 0], PathVerdict::Unknown),
            (vec![1, 1, 1], PathVerdict::ErrorBoth),
        ]
        .into_iter()
        .map(|(path, v)| (path, row(v)))
        .collect();
        mark_with(&mut keyed, &|prefix| {
            Some(format!("branch {}", prefix.len()))
        });
        let at: Vec<Option<&str>> = keyed.iter().map(|(_, r)| r.parts_at.as_deref()).collect();
        assert_eq!(
            at,
            [
                // Agreeing rows and unknown ones part nowhere.
                None,
                // Its sibling at branch 2 agrees.
                Some("branch 2"),
                // Agreement is beside it at branch 1 (the first row), and after it only at
                // branch 0 (the error on both sides).
                Some("branch 1"),
                // Beside the error on both sides from branch 1 on: the unknown row between
                // them does not count.
                Some("branch 1"),
                None,
                None,
            ]
        );
    }

    #[test]
    fn the_log_names_a_branch_by_the_path_that_leads_to_it() {
        let log = ForkLog::default();
        let site = |k: u32| ForkSite {
            func: None,
            loc: Some(crate::ir::LocId(k)),
            caller: None,
        };
        // The root's fork, then the fork after taking its condition.
        let root = crate::exec::path_hash(&[]);
        log.record(root, site(1));
        log.record(crate::exec::state::path_step(root, 1), site(2));
        assert_eq!(log.site_after(&[]), Some(site(1)));
        assert_eq!(log.site_after(&[1]), Some(site(2)));
        assert_eq!(log.site_after(&[0]), None);
    }

    #[test]
    fn the_shared_prefix_is_the_longest_with_an_agreeing_row_either_way() {
        assert_eq!(common_prefix(&[0, 1, 1], &[0, 1, 0]), 2);
        assert_eq!(common_prefix(&[1], &[0, 1]), 0);
        assert_eq!(common_prefix(&[0, 1], &[0, 1, 1]), 2);
    }
}
