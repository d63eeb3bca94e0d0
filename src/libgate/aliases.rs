//! Aliases paired by their own names. musl exports many functions twice:
//! `weak_alias(__stpcpy, stpcpy)` makes `stpcpy` an LLVM `alias` of the function
//! `__stpcpy`, not a function of its own, so pairing functions alone never sees it.
//!
//! An alias both builds export, of a function with the same name in both, is reported under
//! its own name with its target's result (the target is checked, whether the globs select
//! it or not): calling the alias is calling the target. An alias whose builds disagree (an
//! alias in one build and a function in the other, or aliases of differently named targets)
//! is listed as not checked, with that reason.

use super::identical::{Kind, Listing};
use crate::gate::{JobResult, Skipped};

/// An alias and the function it names in both builds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Alias {
    pub name: String,
    pub target: String,
}

/// The target of `name` in `l` when it is an exported alias of a function defined there:
/// `Some(Ok(target))`; `Some(Err(what))` for another alias (of a global, of an expression);
/// `None` when `name` is not an alias.
fn target(l: &Listing, name: &str) -> Option<Result<String, String>> {
    let def = l.defs.get(name)?;
    let head = def.text.lines().next().unwrap_or("");
    if def.kind != Kind::Global || !def.exported || !is_alias(head) {
        return None;
    }
    let refs: Vec<&String> = def.refs.iter().filter(|r| *r != name).collect();
    Some(match refs.as_slice() {
        [t] if l
            .defs
            .get(t.as_str())
            .is_some_and(|d| d.kind == Kind::Function) =>
        {
            Ok(t.to_string())
        }
        _ => Err(format!(
            "an alias of something other than a function ({head})"
        )),
    })
}

/// Whether a global's first line defines an alias (`@x = weak alias …, ptr @y`).
fn is_alias(head: &str) -> bool {
    let after = head.split_once(" = ").map_or("", |(_, r)| r);
    after
        .split_whitespace()
        .take_while(|w| !w.starts_with('@'))
        .any(|w| w == "alias")
}

/// The aliases `wanted` selects: those paired with their common target, and those left
/// out with the reason.
pub fn find(
    listings: &super::Listings,
    wanted: &dyn Fn(&str) -> bool,
) -> (Vec<Alias>, Vec<Skipped>) {
    let (la, lb) = (&listings.a, &listings.b);
    let mut names: Vec<&String> = la.defs.keys().chain(lb.defs.keys()).collect();
    names.sort();
    names.dedup();
    let (mut paired, mut skipped) = (Vec::new(), Vec::new());
    let function = |l: &Listing, f: &str| {
        l.defs
            .get(f)
            .is_some_and(|d| d.kind == Kind::Function && d.exported)
    };
    for name in names.into_iter().filter(|n| wanted(n)) {
        let reason = match (target(la, name), target(lb, name)) {
            (None, None) => continue,
            (Some(Ok(ta)), Some(Ok(tb))) if ta == tb => {
                paired.push(Alias {
                    name: name.clone(),
                    target: ta,
                });
                continue;
            }
            (Some(Ok(ta)), Some(Ok(tb))) => {
                format!("an alias of {ta} in A, of {tb} in B")
            }
            (Some(Err(why)), _) | (_, Some(Err(why))) => why,
            (Some(Ok(t)), None) if function(lb, name) => {
                format!("an alias of {t} in A, a function in B")
            }
            (None, Some(Ok(t))) if function(la, name) => {
                format!("a function in A, an alias of {t} in B")
            }
            (Some(Ok(t)), None) => format!("an alias of {t} defined only in A"),
            (None, Some(Ok(t))) => format!("an alias of {t} defined only in B"),
        };
        skipped.push(Skipped {
            function: name.clone(),
            reason,
        });
    }
    (paired, skipped)
}

/// Adds to `names` the targets of `aliases` it lacks, keeping it sorted.
pub fn add_targets(names: &mut Vec<String>, aliases: &[Alias]) {
    for a in aliases {
        if !names.contains(&a.target) {
            names.push(a.target.clone());
        }
    }
    names.sort();
}

/// The note of an alias's row.
pub const NOTE: &str = "alias of ";

/// Each alias's row: its target's result under the alias's name, its note saying so;
/// appended after the functions, in name order. An alias whose target has no result (it was
/// not checked: `skipped` says why) is added to `skipped`.
pub fn results<H: Copy>(
    results: &mut Vec<(JobResult, H)>,
    aliases: &[Alias],
    skipped: &mut Vec<Skipped>,
) {
    let mut rows = Vec::new();
    for alias in aliases {
        let Some((target, how)) = results.iter().find(|(r, _)| {
            r.job.check.a_name == alias.target && r.job.check.b_name == alias.target
        }) else {
            let why = skipped
                .iter()
                .find(|s| s.function == alias.target)
                .map_or("not checked".to_string(), |s| s.reason.clone());
            skipped.push(Skipped {
                function: alias.name.clone(),
                reason: format!("{NOTE}{}, which is not checked: {why}", alias.target),
            });
            continue;
        };
        let mut job = target.job.clone();
        job.check.a_name = alias.name.clone();
        job.check.b_name = alias.name.clone();
        job.note = Some(format!("{NOTE}{}", alias.target));
        rows.push((
            JobResult {
                job,
                outcome: target.outcome.clone(),
                failed: target.failed,
            },
            *how,
        ));
    }
    results.extend(rows);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listing(text: &str) -> Listing {
        Listing::parse(text)
    }

    const FUNC: &str = "define i32 @__f(i32 %x) {\n  ret i32 %x\n}\n";

    #[test]
    fn pairs_an_alias_with_its_common_target() {
        let a = format!("@f = weak alias i32 (i32), ptr @__f\n{FUNC}");
        let l = super::super::Listings {
            a: listing(&a),
            b: listing(&a),
        };
        let (paired, skipped) = find(&l, &|_| true);
        assert_eq!(
            paired,
            vec![Alias {
                name: "f".into(),
                target: "__f".into()
            }]
        );
        assert!(skipped.is_empty());
        let mut names = vec!["g".to_string()];
        add_targets(&mut names, &paired);
        assert_eq!(names, ["__f", "g"]);
    }

    #[test]
    fn an_alias_against_a_function_is_not_checked_with_the_reason() {
        let a = format!("@f = weak alias i32 (i32), ptr @__f\n{FUNC}");
        let b = format!("define i32 @f(i32 %x) {{\n  ret i32 %x\n}}\n{FUNC}");
        let l = super::super::Listings {
            a: listing(&a),
            b: listing(&b),
        };
        let (paired, skipped) = find(&l, &|n| n == "f");
        assert!(paired.is_empty());
        assert_eq!(skipped.len(), 1);
        assert_eq!(skipped[0].reason, "an alias of __f in A, a function in B");
        // Not wanted: nothing.
        let (paired, skipped) = find(&l, &|n| n == "g");
        assert!(paired.is_empty() && skipped.is_empty());
    }

    #[test]
    fn a_global_is_no_alias() {
        assert!(is_alias("@x = weak dso_local alias i32 (i32), ptr @y"));
        assert!(!is_alias("@x = global i32 0"));
        assert!(!is_alias("@alias = global ptr @y"));
    }
}
