//! Deterministic shards (`--shard K/N`): which part of a run this process explores, read
//! from the command line or from a batch engine's variables, and the stable digest that
//! lets `xcheck merge` check that every shard split the same exploration tree.
//!
//! A sharded check expands its exploration tree breadth-first (same seed, same order, no
//! merging) until [`Shard::frontier_target`] states are live, sorts them by their branch
//! decisions and keeps every N-th one from the K-th; paths that ended before belong to the
//! first shard. Gate runs (`--all-functions`, `--config`) assign whole checks instead: the i-th check
//! (from 0, in their fixed order) belongs to shard `i mod N + 1`.

use std::fmt;

/// The most shards a run may be split into.
pub const MAX_SHARDS: u32 = 100_000;

/// Frontier states per shard before a check is split: enough that every shard gets several
/// subtrees (their sizes differ widely), few enough that the duplicated prefix is cheap.
pub const FRONTIER_PER_SHARD: usize = 16;

/// The most frontier states per shard `--shard-frontier` accepts.
pub const MAX_FRONTIER_PER_SHARD: usize = 1 << 16;

/// Shard `index` (from 0) of `count`, split at a frontier of `per_shard` states per shard.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
    pub per_shard: usize,
}

impl fmt::Display for Shard {
    /// `K/N`, K from 1.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index + 1, self.count)
    }
}

impl Shard {
    /// Shard `index` (from 0) of `count`, with the default frontier.
    pub fn new(index: u32, count: u32) -> Shard {
        Shard {
            index,
            count,
            per_shard: FRONTIER_PER_SHARD,
        }
    }

    /// Whether the `i`th item (from 0) of a fixed order belongs to this shard.
    pub fn owns(&self, i: usize) -> bool {
        i % self.count as usize == self.index as usize
    }

    /// How many frontier states a sharded check expands to before it splits.
    pub fn frontier_target(&self) -> usize {
        self.per_shard.saturating_mul(self.count as usize)
    }

    /// Parses `K/N` (K from 1 to N), `auto` or `auto/N`; `auto` reads the batch engine's
    /// variables through `var` ([`from_environment`]).
    pub fn parse(text: &str, var: &dyn Fn(&str) -> Option<String>) -> Result<Shard, String> {
        let text = text.trim();
        if let Some(rest) = text.strip_prefix("auto") {
            let count = match rest.strip_prefix('/') {
                Some(n) => Some(parse_count(n)?),
                None if rest.is_empty() => None,
                None => return Err(format!("'{text}': expected K/N, auto or auto/N")),
            };
            return from_environment(var, count);
        }
        let (k, n) = text.split_once('/').ok_or_else(|| {
            format!("'{text}': expected K/N (shard K of N, K from 1), auto or auto/N")
        })?;
        let count = parse_count(n)?;
        let k: u32 = k
            .trim()
            .parse()
            .map_err(|_| format!("'{text}': K must be a number from 1 to {count}"))?;
        if k == 0 || k > count {
            return Err(format!("'{text}': K must be from 1 to {count}"));
        }
        Ok(Shard::new(k - 1, count))
    }
}

fn parse_count(n: &str) -> Result<u32, String> {
    match n.trim().parse::<u32>() {
        Ok(n) if (1..=MAX_SHARDS).contains(&n) => Ok(n),
        _ => Err(format!(
            "'{n}': the number of shards must be from 1 to {MAX_SHARDS}"
        )),
    }
}

/// The variables `--shard auto` reads, in order: the first that is set decides.
pub const AUTO_SOURCES: &str = "XCHECK_SHARD (K/N), SLURM_ARRAY_TASK_ID with SLURM_ARRAY_TASK_COUNT (and SLURM_ARRAY_TASK_MIN), JOB_COMPLETION_INDEX (Kubernetes, with auto/N), CI_NODE_INDEX with CI_NODE_TOTAL (GitLab), BUILDKITE_PARALLEL_JOB with BUILDKITE_PARALLEL_JOB_COUNT";

/// The shard a batch engine's variables name (`count`: the N of `auto/N`, which is needed
/// where the engine does not say how many tasks there are, and checked where it does).
pub fn from_environment(
    var: &dyn Fn(&str) -> Option<String>,
    count: Option<u32>,
) -> Result<Shard, String> {
    let number = |name: &str| -> Result<Option<u32>, String> {
        match var(name) {
            None => Ok(None),
            Some(v) => v
                .trim()
                .parse::<u32>()
                .map(Some)
                .map_err(|_| format!("auto: {name}={v:?} is not a number")),
        }
    };
    // (index from 0, count given by the engine, where it came from)
    let found: Option<(u32, Option<u32>, &str)> = if let Some(v) = var("XCHECK_SHARD") {
        let s = Shard::parse(&v, &|_| None).map_err(|e| format!("auto: XCHECK_SHARD {e}"))?;
        Some((s.index, Some(s.count), "XCHECK_SHARD"))
    } else if let Some(id) = number("SLURM_ARRAY_TASK_ID")? {
        let min = number("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0);
        let index = id
            .checked_sub(min)
            .ok_or("auto: SLURM_ARRAY_TASK_ID is below SLURM_ARRAY_TASK_MIN")?;
        Some((
            index,
            number("SLURM_ARRAY_TASK_COUNT")?,
            "SLURM_ARRAY_TASK_ID",
        ))
    } else if let Some(index) = number("JOB_COMPLETION_INDEX")? {
        Some((index, None, "JOB_COMPLETION_INDEX"))
    } else if let Some(k) = number("CI_NODE_INDEX")? {
        // GitLab counts from 1.
        let index = k.checked_sub(1).ok_or("auto: CI_NODE_INDEX is 0")?;
        Some((index, number("CI_NODE_TOTAL")?, "CI_NODE_INDEX"))
    } else if let Some(index) = number("BUILDKITE_PARALLEL_JOB")? {
        Some((
            index,
            number("BUILDKITE_PARALLEL_JOB_COUNT")?,
            "BUILDKITE_PARALLEL_JOB",
        ))
    } else {
        None
    };
    let Some((index, given, source)) = found else {
        return Err(format!(
            "auto: no shard index in the environment (read: {AUTO_SOURCES})"
        ));
    };
    let count = match (given, count) {
        (Some(g), Some(c)) if g != c => {
            return Err(format!(
                "auto/{c}: the environment ({source}) says {g} shards"
            ))
        }
        (Some(n), _) | (None, Some(n)) => n,
        (None, None) => {
            return Err(format!(
                "auto: {source} gives the index but not the number of shards: write auto/N"
            ))
        }
    };
    if count == 0 || count > MAX_SHARDS {
        return Err(format!(
            "auto: {count} shards (from {source}): must be from 1 to {MAX_SHARDS}"
        ));
    }
    if index >= count {
        return Err(format!(
            "auto: shard index {index} (from 0, {source}) is not below the number of shards, {count}"
        ));
    }
    Ok(Shard::new(index, count))
}

/// A stable digest (FNV-1a, 64 bits, as 16 hex digits) of the frontier's paths in order:
/// shards that expanded the same tree print the same digest.
pub fn digest<'a>(paths: impl IntoIterator<Item = &'a [u8]>) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |b: u8| {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    };
    for p in paths {
        for &b in p {
            eat(b);
        }
        // A separator no decision takes.
        eat(0xff);
    }
    format!("{h:016x}")
}

/// A path (branch decisions, each 0 or 1 in practice) as text for reports: decimal digits,
/// one per decision; [`parse_path`] reads it back.
pub fn path_text(path: &[u8]) -> String {
    path.iter()
        .map(|&d| char::from_digit(u32::from(d.min(9)), 10).unwrap_or('9'))
        .collect()
}

/// Reads a path written by [`path_text`].
pub fn parse_path(text: &str) -> Option<Vec<u8>> {
    text.chars()
        .map(|c| c.to_digit(10).map(|d| d as u8))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            pairs
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn k_of_n_counts_from_one() {
        let none = env(&[]);
        assert_eq!(Shard::parse("1/4", &none), Ok(Shard::new(0, 4)));
        assert_eq!(Shard::parse("4/4", &none).unwrap().to_string(), "4/4");
        for bad in ["0/4", "5/4", "1/0", "x/2", "3", "1/100001", "-1/2", "auto2"] {
            assert!(Shard::parse(bad, &none).is_err(), "{bad}");
        }
    }

    #[test]
    fn ownership_is_round_robin_and_covers_everything_once() {
        for count in 1..8 {
            for i in 0..50 {
                let owners = (0..count).filter(|&k| Shard::new(k, count).owns(i)).count();
                assert_eq!(owners, 1);
            }
        }
    }

    #[test]
    fn auto_reads_each_batch_engine() {
        let s = |pairs: &[(&str, &str)], count| from_environment(&env(pairs), count);
        assert_eq!(
            s(
                &[
                    ("SLURM_ARRAY_TASK_ID", "3"),
                    ("SLURM_ARRAY_TASK_COUNT", "4")
                ],
                None
            ),
            Ok(Shard::new(3, 4))
        );
        // An array numbered 1-4.
        assert_eq!(
            s(
                &[
                    ("SLURM_ARRAY_TASK_ID", "1"),
                    ("SLURM_ARRAY_TASK_MIN", "1"),
                    ("SLURM_ARRAY_TASK_COUNT", "4")
                ],
                None
            ),
            Ok(Shard::new(0, 4))
        );
        assert_eq!(
            s(&[("JOB_COMPLETION_INDEX", "2")], Some(7)),
            Ok(Shard::new(2, 7))
        );
        assert!(s(&[("JOB_COMPLETION_INDEX", "2")], None).is_err());
        assert_eq!(
            s(&[("CI_NODE_INDEX", "1"), ("CI_NODE_TOTAL", "2")], None),
            Ok(Shard::new(0, 2))
        );
        assert_eq!(s(&[("XCHECK_SHARD", "2/3")], None), Ok(Shard::new(1, 3)));
        assert!(s(&[("CI_NODE_INDEX", "3"), ("CI_NODE_TOTAL", "2")], None).is_err());
        assert!(s(
            &[
                ("SLURM_ARRAY_TASK_ID", "1"),
                ("SLURM_ARRAY_TASK_COUNT", "2")
            ],
            Some(3)
        )
        .is_err());
        assert!(s(&[], Some(2)).is_err());
        assert!(s(&[("JOB_COMPLETION_INDEX", "x")], Some(2)).is_err());
    }

    #[test]
    fn paths_round_trip_and_digests_tell_frontiers_apart() {
        let p = vec![0u8, 1, 1, 0];
        assert_eq!(path_text(&p), "0110");
        assert_eq!(parse_path("0110"), Some(p.clone()));
        assert_eq!(parse_path("01x"), None);
        let a = digest([p.as_slice(), &[1u8][..]]);
        let b = digest([&[0u8, 1, 1, 0, 1][..]]);
        assert_ne!(a, b);
        assert_eq!(a, digest([p.as_slice(), &[1u8][..]]));
    }
}
