//! Candidate invariants of one phase of the product, guessed from the states the phase was
//! seen in (concrete runs of both sides): the affine equalities every seen state satisfies
//! (the affine hull, by exact rational elimination over small states) and the orderings
//! between two values, or a value and a constant, that every seen state satisfies. The
//! proof keeps those that are inductive (Houdini's fixed point); a guess is never trusted.

use crate::expr::{mask, to_signed, ExprId, ExprPool};
use crate::ir::Predicate;

/// A term of an equality: a variable, or the product of two (indices into the phase's
/// variable list).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Mono(pub usize, pub Option<usize>);

impl Mono {
    /// The variable, when the term is one.
    pub fn var(self) -> Option<usize> {
        self.1.is_none().then_some(self.0)
    }

    /// The term's value modulo `2^w`, of the values `vals` (of widths `widths`).
    fn value(self, vals: &[u128], widths: &[u32], w: u32) -> u128 {
        let x = |v: usize| mask(w.min(widths[v]), vals[v]);
        match self.1 {
            None => x(self.0),
            Some(b) => mask(w, x(self.0).wrapping_mul(x(b))),
        }
    }

    /// The term at `w` bits over the expressions `vals`.
    fn expr(self, pool: &ExprPool, vals: &[ExprId], w: u32) -> ExprId {
        let x = fit(pool, vals[self.0], w);
        match self.1 {
            None => x,
            Some(b) => pool.mul(x, fit(pool, vals[b], w)),
        }
    }

    fn name(self, names: &[String]) -> String {
        match self.1 {
            None => names[self.0].clone(),
            Some(b) => format!("{}·{}", names[self.0], names[b]),
        }
    }

    /// The widths of its variables.
    fn widths(self, widths: &[u32]) -> impl Iterator<Item = u32> + '_ {
        std::iter::once(widths[self.0]).chain(self.1.map(|b| widths[b]))
    }
}

/// One candidate over a phase's variables (indices into its variable list).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Cand {
    /// The phase is never reached.
    False,
    /// `Σ coefficient · term + constant ≡ 0` modulo `2^width`.
    Affine {
        terms: Vec<(Mono, i128)>,
        constant: i128,
        width: u32,
    },
    /// `pred(var, rhs)`.
    Cmp { pred: Predicate, a: usize, b: Rhs },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Rhs {
    Var(usize),
    Const(u128),
}

impl Cand {
    /// Whether the candidate holds of the values `vals` (of widths `widths`).
    pub fn holds(&self, vals: &[u128], widths: &[u32]) -> bool {
        match self {
            Cand::False => false,
            Cand::Affine {
                terms,
                constant,
                width,
            } => {
                let w = *width;
                let mut sum = *constant as u128;
                for &(m, c) in terms {
                    sum = sum.wrapping_add((c as u128).wrapping_mul(m.value(vals, widths, w)));
                }
                mask(w, sum) == 0
            }
            Cand::Cmp { pred, a, b } => {
                let y = match b {
                    Rhs::Var(v) => vals[*v],
                    Rhs::Const(c) => *c,
                };
                pred.eval(widths[*a], vals[*a], y)
            }
        }
    }

    /// An equality with a product of two values.
    pub fn has_product(&self) -> bool {
        matches!(self, Cand::Affine { terms, .. } if terms.iter().any(|t| t.0.var().is_none()))
    }

    /// Whether the equality defines a variable of its own width (`s = t + 3·i·n`): the
    /// candidates a query substitutes away instead of reasoning about.
    pub fn defines_at_width(&self, widths: &[u32]) -> bool {
        self.defined_at_width(widths).is_some()
    }

    /// The variable the equality defines at its own width, if any (its pivot).
    fn defined_at_width(&self, widths: &[u32]) -> Option<usize> {
        let Cand::Affine { terms, width, .. } = self else {
            return None;
        };
        let v = terms[pivot(terms)?].0.var()?;
        (widths[v] == *width).then_some(v)
    }

    /// An ordering (`i ≤ n`), not an equality.
    pub fn is_ordering(&self) -> bool {
        matches!(self, Cand::Cmp { .. })
    }

    /// A variable the candidate defines, `pivot = Σ others` (its coefficient ±1, its width
    /// the equality's), with the definition over the expressions `vals`.
    pub fn definition(
        &self,
        pool: &ExprPool,
        vals: &[ExprId],
        widths: &[u32],
    ) -> Option<(usize, ExprId)> {
        let Cand::Affine {
            terms,
            constant,
            width,
        } = self
        else {
            return None;
        };
        let (Some(p), sum) = pivot_sum(pool, terms, *constant, *width, vals) else {
            return None;
        };
        let v = terms[p].0.var()?;
        (widths[v] == *width).then_some((v, sum))
    }

    /// The candidate as a condition on the expressions `vals`.
    pub fn build(&self, pool: &ExprPool, vals: &[ExprId]) -> ExprId {
        match self {
            Cand::False => pool.false_(),
            Cand::Affine {
                terms,
                constant,
                width,
            } => {
                let w = *width;
                match pivot_sum(pool, terms, *constant, w, vals) {
                    (Some(p), sum) => pool.eq(terms[p].0.expr(pool, vals, w), sum),
                    (None, sum) => pool.eq(sum, pool.zero(w)),
                }
            }
            Cand::Cmp { pred, a, b } => {
                let x = vals[*a];
                let y = match b {
                    Rhs::Var(v) => vals[*v],
                    Rhs::Const(c) => pool.constant(pool.width(x), *c),
                };
                pred.build(pool, x, y)
            }
        }
    }

    /// The candidate in words, with the variables' `names`.
    pub fn describe(&self, names: &[String], widths: &[u32]) -> String {
        match self {
            Cand::False => "unreachable".into(),
            Cand::Affine {
                terms,
                constant,
                width,
            } if terms.len() == 1
                && terms[0].0.var().is_some()
                && terms[0].1.count_ones() == 1
                && terms[0].1 > 1 =>
            {
                // A congruence: 2^(w-k)·v ≡ -constant, that is v ≡ c (mod 2^k).
                let shift = terms[0].1.trailing_zeros();
                let k = width.saturating_sub(shift);
                let c = mask(*width, (-*constant) as u128) >> shift;
                format!("{} ≡ {c} (mod {})", terms[0].0.name(names), 1u128 << k)
            }
            Cand::Affine {
                terms, constant, ..
            } => {
                // Σ positive terms = Σ negative terms − constant.
                let term = |m: Mono, c: i128| match c.abs() {
                    1 => m.name(names),
                    k => format!("{k}·{}", m.name(names)),
                };
                let lhs: Vec<String> = terms
                    .iter()
                    .filter(|t| t.1 > 0)
                    .map(|&(m, c)| term(m, c))
                    .collect();
                let rhs: Vec<String> = terms
                    .iter()
                    .filter(|t| t.1 < 0)
                    .map(|&(m, c)| term(m, c))
                    .collect();
                let mut right = rhs.join(" + ");
                match (right.is_empty(), *constant) {
                    (true, k) => right = (-k).to_string(),
                    (false, 0) => {}
                    (false, k) if k > 0 => right += &format!(" - {k}"),
                    (false, k) => right += &format!(" + {}", -k),
                }
                let left = if lhs.is_empty() {
                    "0".to_string()
                } else {
                    lhs.join(" + ")
                };
                format!("{left} = {right}")
            }
            Cand::Cmp { pred, a, b } => {
                let op = match pred {
                    Predicate::Eq => "=",
                    Predicate::Ne => "≠",
                    Predicate::Slt | Predicate::Ult => "<",
                    Predicate::Sle | Predicate::Ule => "≤",
                    Predicate::Sgt | Predicate::Ugt => ">",
                    Predicate::Sge | Predicate::Uge => "≥",
                };
                let unsigned = matches!(
                    pred,
                    Predicate::Ult | Predicate::Ule | Predicate::Ugt | Predicate::Uge
                );
                let rhs = match b {
                    Rhs::Var(v) => names[*v].clone(),
                    Rhs::Const(c) if unsigned => c.to_string(),
                    Rhs::Const(c) => to_signed(widths[*a], *c).to_string(),
                };
                format!(
                    "{} {op}{} {rhs}",
                    names[*a],
                    if unsigned { "u" } else { "" }
                )
            }
        }
    }
}

/// The term an equality defines, if any: its first variable with a coefficient of ±1.
fn pivot(terms: &[(Mono, i128)]) -> Option<usize> {
    terms
        .iter()
        .position(|t| t.1.abs() == 1 && t.0.var().is_some())
}

/// An equality `Σ c·t + constant ≡ 0 (mod 2^w)` as `pivot = sum` when a variable's
/// coefficient is ±1 (the first such term: a definition the solvers substitute away), else
/// `sum = 0` with every term in the sum.
fn pivot_sum(
    pool: &ExprPool,
    terms: &[(Mono, i128)],
    constant: i128,
    w: u32,
    vals: &[ExprId],
) -> (Option<usize>, ExprId) {
    let pivot = pivot(terms);
    let sign = pivot.map_or(1, |p| -terms[p].1);
    let mut sum = pool.constant(w, mask(w, (sign * constant) as u128));
    for (i, &(m, c)) in terms.iter().enumerate() {
        if Some(i) != pivot {
            let k = pool.constant(w, mask(w, (sign * c) as u128));
            sum = pool.add(sum, pool.mul(k, m.expr(pool, vals, w)));
        }
    }
    (pivot, sum)
}

/// `e` at `w` bits: truncated, or extended with zeros (a flag).
fn fit(pool: &ExprPool, e: ExprId, w: u32) -> ExprId {
    match pool.width(e) {
        x if x > w => pool.trunc(e, w),
        x if x < w => pool.zext(e, w),
        _ => e,
    }
}

/// The largest magnitude of a value the affine hull is computed from.
const SMALL: i128 = 1 << 24;

/// The candidates every state of `samples` satisfies: affine equalities (from the small
/// states; with `quadratic`, also those with products of two values) and orderings, with
/// `constants` the constants the sides compare with.
pub(super) fn guess(
    samples: &[Vec<u128>],
    widths: &[u32],
    constants: &[u128],
    order: &[usize],
    products: Products,
) -> Vec<Cand> {
    if samples.is_empty() {
        return vec![Cand::False];
    }
    let mut out = affine_hull(samples, widths, order);
    if products != Products::None {
        let found = quadratic_hull(samples, widths, order, &out);
        out.extend(
            found
                .into_iter()
                .filter(|c| products == Products::All || c.defines_at_width(widths)),
        );
    }
    out.extend(congruences(samples, widths));
    let n = widths.len();
    let all = |c: &Cand| samples.iter().all(|s| c.holds(s, widths));
    let preds = [
        Predicate::Slt,
        Predicate::Sle,
        Predicate::Ult,
        Predicate::Ule,
    ];
    for a in 0..n {
        if widths[a] == 1 {
            continue;
        }
        for b in 0..n {
            if a == b || widths[b] != widths[a] {
                continue;
            }
            // Values equal in every state: the affine equalities say so.
            if samples.iter().all(|s| s[a] == s[b]) {
                continue;
            }
            for pred in preds {
                let c = Cand::Cmp {
                    pred,
                    a,
                    b: Rhs::Var(b),
                };
                if all(&c) && !implied_equal(&out, a, b) {
                    out.push(c);
                }
            }
        }
        if samples.iter().all(|s| s[a] == samples[0][a]) {
            continue;
        }
        let top = mask(widths[a], u128::MAX);
        for &k in constants.iter().chain(&[0]) {
            let k = mask(widths[a], k);
            let more = [
                Predicate::Sgt,
                Predicate::Sge,
                Predicate::Ugt,
                Predicate::Uge,
            ];
            for &pred in preds.iter().chain(&more) {
                // Always true: nothing to learn.
                let trivial = matches!((pred, k), (Predicate::Uge, 0) | (Predicate::Ule, _) if k == top)
                    || (pred == Predicate::Uge && k == 0);
                let c = Cand::Cmp {
                    pred,
                    a,
                    b: Rhs::Const(k),
                };
                if !trivial && all(&c) {
                    out.push(c);
                }
            }
        }
    }
    // An ordering of a value that products define becomes a polynomial inequality once
    // the definition is substituted: dear to refute, and seldom what a proof needs.
    let by_products: Vec<usize> = out
        .iter()
        .filter(|c| c.has_product())
        .filter_map(|c| c.defined_at_width(widths))
        .collect();
    out.retain(|c| match c {
        Cand::Cmp { a, b, .. } => {
            !by_products.contains(a) && !matches!(b, Rhs::Var(v) if by_products.contains(v))
        }
        _ => true,
    });
    out.dedup();
    out
}

/// Most low bits a congruence candidate fixes.
const MAX_CONGRUENCE_BITS: u32 = 8;

/// The congruences every state satisfies: a value that varies but whose low `k` bits do
/// not (a counter stepping by 2 stays even), as `2^(w-k) · v ≡ 2^(w-k) · c (mod 2^w)`.
fn congruences(samples: &[Vec<u128>], widths: &[u32]) -> Vec<Cand> {
    let mut out = Vec::new();
    for (v, &w) in widths.iter().enumerate() {
        if !(2..=64).contains(&w) {
            continue;
        }
        let first = samples[0][v];
        let differs = samples.iter().fold(0u128, |d, s| d | (s[v] ^ first));
        let k = (differs.trailing_zeros())
            .min(MAX_CONGRUENCE_BITS)
            .min(w - 1);
        if differs == 0 || k == 0 {
            continue;
        }
        let scale = 1i128 << (w - k);
        let low = (first & ((1 << k) - 1)) as i128;
        out.push(Cand::Affine {
            terms: vec![(Mono(v, None), scale)],
            constant: mask(w, (-(low * scale)) as u128) as i128,
            width: w,
        });
    }
    out
}

/// Whether an affine candidate says `a = b` (orderings between them then add nothing).
fn implied_equal(cands: &[Cand], a: usize, b: usize) -> bool {
    cands.iter().any(|c| match c {
        Cand::Affine {
            terms, constant, ..
        } => {
            *constant == 0
                && terms.len() == 2
                && terms.iter().any(|t| t.0 == Mono(a, None))
                && terms.iter().any(|t| t.0 == Mono(b, None))
                && terms[0].1 == -terms[1].1
        }
        _ => false,
    })
}

/// A value as the integer the affine hull is computed over: signed, a flag as 0 or 1.
fn as_int(v: u128, width: u32) -> i128 {
    if width == 1 {
        v as i128
    } else {
        to_signed(width, v)
    }
}

/// The affine equalities of the small states among `samples`: the reduced row echelon
/// form of the states' null space, one equality per free column, each scaled to integers.
///
/// The columns are the variables in `order`: each equality defines the first of its
/// variables in that order by the later ones (the values a loop changes by those it does
/// not, and by the parameters).
fn affine_hull(samples: &[Vec<u128>], widths: &[u32], order: &[usize]) -> Vec<Cand> {
    let columns: Vec<Mono> = order.iter().map(|&v| Mono(v, None)).collect();
    hull(samples, widths, &columns, order.len(), SMALL)
}

/// Which equalities with products of two values are candidates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Products {
    None,
    /// Those that define a value (`s = t + 3·i·n`), which queries substitute away.
    Defining,
    /// Every one (`2·s = i·i - i` too), which the solver must reason about.
    All,
}

/// Most variables whose pairwise products [`quadratic_hull`] adds as columns.
const MAX_PRODUCT_VARS: usize = 8;
/// The largest magnitude of a factor of a product column.
const SMALL_FACTOR: i128 = 1 << 12;

/// The equalities with products of two variables (`r = a·n - a·b`, `2·s = i·i - i`) that
/// every small state satisfies, beyond the affine ones: the hull over the variables and the
/// products of those no affine equality defines (the others are sums of them).
fn quadratic_hull(
    samples: &[Vec<u128>],
    widths: &[u32],
    order: &[usize],
    affine: &[Cand],
) -> Vec<Cand> {
    let defined: Vec<usize> = affine
        .iter()
        .filter_map(|c| match c {
            Cand::Affine { terms, .. } => terms.first().and_then(|t| t.0.var()),
            _ => None,
        })
        .collect();
    let free: Vec<usize> = order
        .iter()
        .copied()
        .filter(|v| !defined.contains(v) && widths[*v] > 1)
        .filter(|&v| samples.iter().any(|s| s[v] != samples[0][v]))
        .collect();
    if free.is_empty() || free.len() > MAX_PRODUCT_VARS {
        return Vec::new();
    }
    let mut columns: Vec<Mono> = order.iter().map(|&v| Mono(v, None)).collect();
    for (i, &a) in free.iter().enumerate() {
        for &b in &free[i..] {
            columns.push(Mono(a, Some(b)));
        }
    }
    // An equality of products alone (`a·i + b·i = c·i`) is another one times a value: true
    // when that one is, and dear to check. Only those that relate a value to products.
    let relates_a_value = |c: &Cand| match c {
        Cand::Affine { terms, .. } => terms.iter().any(|t| t.0.var().is_some()),
        _ => false,
    };
    hull(samples, widths, &columns, order.len(), SMALL_FACTOR)
        .into_iter()
        .filter(|c| c.has_product() && relates_a_value(c))
        .collect()
}

/// The affine equalities over `columns` (the first `vars` of them variables, which alone
/// may be pivots) of the states among `samples` whose variables are below `bound` in
/// magnitude.
fn hull(
    samples: &[Vec<u128>],
    widths: &[u32],
    columns: &[Mono],
    vars: usize,
    bound: i128,
) -> Vec<Cand> {
    let n = columns.len();
    let int = |s: &[u128], v: usize| as_int(s[v], widths[v]);
    let rows: Vec<Vec<i128>> = samples
        .iter()
        .filter(|s| {
            let small = |v: usize| int(s, v).abs() < bound;
            columns.iter().all(|m| small(m.0) && m.1.is_none_or(small))
        })
        .map(|s| {
            columns
                .iter()
                .map(|m| match m.1 {
                    None => int(s, m.0),
                    Some(b) => int(s, m.0) * int(s, b),
                })
                .chain([1])
                .collect::<Vec<i128>>()
        })
        .collect();
    let mut rows = rows;
    rows.sort_by_key(|r| (r.iter().map(|x| x.unsigned_abs()).max(), r.clone()));
    rows.dedup();
    if rows.is_empty() {
        return Vec::new();
    }
    // The hull of a few of the smallest states, grown by the states it contradicts until
    // it contradicts none: exact elimination over every state outgrows 128 bits long
    // before it is needed.
    let mut chosen: Vec<usize> = (0..rows.len().min(2 * (n + 1))).collect();
    let mut ints = None;
    for _ in 0..HULL_ROUNDS {
        let Some(relations) = relations(chosen.iter().map(|&r| &rows[r]), n) else {
            return Vec::new();
        };
        let violated = |row: &Vec<i128>| {
            relations.iter().any(|rel| {
                rel.iter()
                    .zip(row)
                    .try_fold(0i128, |sum, (&c, &x)| sum.checked_add(c.checked_mul(x)?))
                    != Some(0)
            })
        };
        let more: Vec<usize> = (0..rows.len())
            .filter(|r| !chosen.contains(r) && violated(&rows[*r]))
            .take(n + 1)
            .collect();
        if more.is_empty() {
            ints = Some(relations);
            break;
        }
        chosen.extend(more);
    }
    let Some(ints) = ints else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (pivot, ints) in unit_pivots(ints, vars) {
        // The pivot first: the variable the equality defines.
        let mut terms: Vec<(Mono, i128)> = ints[..n]
            .iter()
            .enumerate()
            .filter(|(_, c)| **c != 0)
            .map(|(i, &c)| (columns[i], c))
            .collect();
        if let Some(p) = pivot {
            let at = terms.iter().position(|t| t.0 == columns[p]).unwrap_or(0);
            let t = terms.remove(at);
            terms.insert(0, t);
        }
        if terms.is_empty() {
            continue;
        }
        let term_widths = || terms.iter().flat_map(|&(m, _)| m.widths(widths));
        let narrow = term_widths().filter(|&w| w > 1).min().unwrap_or(1);
        let wide = term_widths().max().unwrap_or(1);
        // Values of mixed widths (a 32-bit counter in a 64-bit sum): the equality at the
        // widest, the narrower values zero-extended, says more (`s = 3·i·i` on all 64
        // bits); at the narrowest it holds more often. Both are candidates when both fit
        // the states (products only at the widest: truncated, they define nothing useful):
        // the proof keeps the strongest that is inductive.
        let mut widths_tried = vec![wide];
        let product = terms.iter().any(|t| t.0.var().is_none());
        if narrow < wide && !product {
            widths_tried.push(narrow);
        }
        for width in widths_tried {
            let cand = Cand::Affine {
                terms: terms.clone(),
                constant: ints[n],
                width,
            };
            if samples.iter().all(|s| cand.holds(s, widths)) {
                out.push(cand);
            }
        }
    }
    out
}

/// Rounds of growing the states a hull is computed from.
const HULL_ROUNDS: usize = 12;

/// The affine relations of `rows` (each `n` values and a 1): a basis of their null space in
/// reduced echelon form, scaled to integers; `None` when a number outgrows 128 bits.
fn relations<'r>(rows: impl Iterator<Item = &'r Vec<i128>>, n: usize) -> Option<Vec<Vec<i128>>> {
    let rows = rows
        .map(|r| r.iter().map(|&x| Frac { num: x, den: 1 }).collect())
        .collect();
    let (rref, pivots) = echelon(rows, n + 1)?;
    // The null space: one vector per free column f (x_f = 1, x_pivot = -rref[i][f]).
    let mut null = Vec::new();
    for f in 0..=n {
        if pivots.contains(&f) {
            continue;
        }
        let mut vector: Vec<Frac> = vec![Frac::ZERO; n + 1];
        vector[f] = Frac::ONE;
        for (i, &p) in pivots.iter().enumerate() {
            vector[p] = rref[i][f].neg();
        }
        null.push(vector);
    }
    if null.is_empty() {
        return Some(Vec::new());
    }
    // In reduced echelon form, each equality defines its first variable by later ones
    // that no other equality defines.
    let (relations, _) = echelon(null, n + 1)?;
    Some(relations.iter().filter_map(|v| to_integers(v)).collect())
}

/// Integer elimination on unit coefficients: each equality in turn defines one variable
/// (the first in column order with a coefficient of ±1 in an equality not yet used) and
/// that variable is eliminated from the others, so that definitions are exact over the
/// integers (`x = 5·i + c`, not `5·i = x - c`). Gives each equality with the column it
/// defines, if any. The constant column (`cols`) is never a pivot.
fn unit_pivots(mut rows: Vec<Vec<i128>>, cols: usize) -> Vec<(Option<usize>, Vec<i128>)> {
    let mut pivot: Vec<Option<usize>> = vec![None; rows.len()];
    loop {
        let choice = (0..cols).find_map(|c| {
            (0..rows.len())
                .find(|&r| pivot[r].is_none() && rows[r][c].abs() == 1)
                .map(|r| (r, c))
        });
        let Some((r, c)) = choice else {
            break;
        };
        pivot[r] = Some(c);
        let unit = rows[r][c];
        for o in 0..rows.len() {
            let k = rows[o][c];
            if o == r || k == 0 {
                continue;
            }
            // other -= k · unit · row (unit = ±1, so other[c] becomes 0).
            let next: Option<Vec<i128>> = rows[o]
                .iter()
                .zip(&rows[r])
                .map(|(&x, &y)| x.checked_sub(k.checked_mul(unit)?.checked_mul(y)?))
                .collect();
            let Some(mut next) = next else {
                continue;
            };
            let g = next
                .iter()
                .fold(0u128, |g, x| gcd(g, x.unsigned_abs()))
                .max(1) as i128;
            next.iter_mut().for_each(|x| *x /= g);
            rows[o] = next;
        }
    }
    pivot
        .into_iter()
        .zip(rows)
        .filter(|(_, r)| r.iter().any(|&x| x != 0))
        .collect()
}

/// An exact fraction with a positive denominator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Frac {
    num: i128,
    den: i128,
}

impl Frac {
    const ZERO: Frac = Frac { num: 0, den: 1 };
    const ONE: Frac = Frac { num: 1, den: 1 };

    fn new(num: i128, den: i128) -> Option<Frac> {
        if den == 0 {
            return None;
        }
        let g = gcd(num.unsigned_abs(), den.unsigned_abs()).max(1) as i128;
        let s = if den < 0 { -1 } else { 1 };
        Some(Frac {
            num: s * num / g,
            den: s * den / g,
        })
    }
    fn neg(self) -> Frac {
        Frac {
            num: -self.num,
            den: self.den,
        }
    }
    fn sub(self, o: Frac) -> Option<Frac> {
        let num = self
            .num
            .checked_mul(o.den)?
            .checked_sub(o.num.checked_mul(self.den)?)?;
        Frac::new(num, self.den.checked_mul(o.den)?)
    }
    fn mul(self, o: Frac) -> Option<Frac> {
        Frac::new(self.num.checked_mul(o.num)?, self.den.checked_mul(o.den)?)
    }
    fn div(self, o: Frac) -> Option<Frac> {
        Frac::new(self.num.checked_mul(o.den)?, self.den.checked_mul(o.num)?)
    }
}

fn gcd(a: u128, b: u128) -> u128 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// The reduced row echelon form of `rows` (each `cols` long) and its pivot columns; `None`
/// when a number outgrows 128 bits.
fn echelon(rows: Vec<Vec<Frac>>, cols: usize) -> Option<(Vec<Vec<Frac>>, Vec<usize>)> {
    let mut m = rows;
    let mut pivots = Vec::new();
    let mut row = 0;
    for col in 0..cols {
        let Some(p) = (row..m.len()).find(|&r| m[r][col].num != 0) else {
            continue;
        };
        m.swap(row, p);
        let lead = m[row][col];
        for x in m[row].iter_mut() {
            *x = x.div(lead)?;
        }
        let lead_row = m[row].clone();
        for (r, other) in m.iter_mut().enumerate() {
            if r != row && other[col].num != 0 {
                let factor = other[col];
                for (x, &y) in other.iter_mut().zip(&lead_row).take(cols) {
                    *x = x.sub(factor.mul(y)?)?;
                }
            }
        }
        pivots.push(col);
        row += 1;
        if row == m.len() {
            break;
        }
    }
    m.truncate(row);
    Some((m, pivots))
}

/// `v` scaled by the least common multiple of its denominators, divided by the gcd of its
/// numerators.
fn to_integers(v: &[Frac]) -> Option<Vec<i128>> {
    let mut l: i128 = 1;
    for x in v {
        let g = gcd(l.unsigned_abs(), x.den.unsigned_abs()) as i128;
        l = (l / g).checked_mul(x.den)?;
    }
    let ints: Vec<i128> = v
        .iter()
        .map(|x| x.num.checked_mul(l / x.den))
        .collect::<Option<_>>()?;
    let g = ints
        .iter()
        .fold(0u128, |g, x| gcd(g, x.unsigned_abs()))
        .max(1) as i128;
    // The first nonzero coefficient positive.
    let sign = ints.iter().find(|x| **x != 0).map_or(1, |x| x.signum());
    Some(ints.iter().map(|x| sign * x / g).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_affine_hull_of_a_strength_reduced_loop_has_its_relations() {
        // Variables: iA, jA, xA, iB, xB, c. j = 5i + c, iA = iB, xA = xB.
        let widths = vec![32; 6];
        let mut samples = Vec::new();
        for c in [-3i128, 0, 7] {
            let (mut i, mut x) = (0i128, 0i128);
            for _ in 0..6 {
                let j = 5 * i + c;
                let m = |v: i128| mask(32, v as u128);
                samples.push(vec![m(i), m(j), m(x), m(i), m(x), m(c)]);
                x += j;
                i += 1;
            }
        }
        let cands = affine_hull(&samples, &widths, &[0, 1, 2, 3, 4, 5]);
        let holds = |terms: &[(usize, i128)]| {
            let terms: Vec<(Mono, i128)> = terms.iter().map(|&(v, c)| (Mono(v, None), c)).collect();
            cands.iter().any(|c| match c {
                Cand::Affine { terms: t, .. } => *t == terms,
                _ => false,
            })
        };
        assert!(holds(&[(0, 1), (3, -1)]), "iA = iB in {cands:?}");
        assert!(holds(&[(2, 1), (4, -1)]), "xA = xB in {cands:?}");
        assert!(
            holds(&[(1, 1), (3, -5), (5, -1)]),
            "jA = 5·iB + c in {cands:?}"
        );
        // And every guess holds of every state, wrapped values included.
        for c in &cands {
            for s in &samples {
                assert!(c.holds(s, &widths));
            }
        }
    }

    #[test]
    fn products_of_variables_are_found_when_no_affine_equality_holds() {
        // Variables: a, n (parameters), r, b (a loop adding a while b counts down from n),
        // and the product the other side returned: r + a·b = a·n, result = a·n.
        let widths = vec![32; 5];
        let mut samples = Vec::new();
        for (a, n) in [
            (3u128, 5u128),
            (0, 4),
            (7, 2),
            (2, 9),
            (11, 3),
            (5, 6),
            (1, 1),
        ] {
            let (mut r, mut b) = (0, n);
            loop {
                samples.push(vec![a, n, r, b, a * n]);
                if b == 0 {
                    break;
                }
                r += a;
                b -= 1;
            }
        }
        // Wrapped states too: large values take no part in the hull, but must satisfy it.
        samples.push(vec![1 << 31, 2, 0, 2, 0]);
        let cands = guess(&samples, &widths, &[], &[2, 3, 4, 0, 1], Products::All);
        let names: Vec<String> = ["a", "n", "r", "b", "result"].map(String::from).to_vec();
        let text: Vec<String> = cands.iter().map(|c| c.describe(&names, &widths)).collect();
        assert!(text.contains(&"r + b·a = a·n".to_string()), "{text:?}");
        assert!(text.contains(&"result = a·n".to_string()), "{text:?}");
        for c in &cands {
            assert!(samples.iter().all(|s| c.holds(s, &widths)), "{c:?}");
        }
        // The definition it gives is r's, by the product terms.
        let pool = ExprPool::new();
        let vals: Vec<ExprId> = (0..5)
            .map(|i| pool.zext(pool.sym(pool.new_array(&names[i], 1), 0), 32))
            .collect();
        assert!(cands.iter().any(|c| c
            .definition(&pool, &vals, &widths)
            .is_some_and(|(v, _)| v == 2)));
    }

    #[test]
    fn guesses_drop_what_one_state_contradicts() {
        let widths = vec![8, 8];
        let samples = vec![vec![1, 1], vec![2, 2], vec![3, 3]];
        let cands = guess(&samples, &widths, &[], &[0, 1], Products::None);
        assert!(cands
            .iter()
            .all(|c| samples.iter().all(|s| c.holds(s, &widths))));
        assert!(cands
            .iter()
            .any(|c| matches!(c, Cand::Affine { terms, .. } if terms.len() == 2)));
        let more = vec![vec![1, 1], vec![2, 2], vec![3, 4]];
        let cands = guess(&more, &widths, &[], &[0, 1], Products::None);
        assert!(!cands
            .iter()
            .any(|c| matches!(c, Cand::Affine { terms, .. } if terms.len() == 2)));
        assert_eq!(
            guess(&[], &widths, &[], &[0, 1], Products::None),
            vec![Cand::False]
        );
    }
}
