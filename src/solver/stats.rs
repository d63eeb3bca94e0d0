//! [`SolverStats`]: the counters of every layer of a solver chain, declared once (fields,
//! sum and report labels from one table, [`crate::counters::counters!`]).

use super::Backend;
use crate::counters::counters;
use std::time::Duration;

counters! {
    /// Counters of every layer of a solver chain. Each layer adds its own counters to those of
    /// the layer it wraps, so `stats()` on the outermost layer reports the whole chain. The
    /// labelled ones are a check's report counters, in this order (the cross-check's only
    /// with `--cross-check-solver`; the portfolio's are [`SolverStats::portfolio_counters`]).
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct SolverStats {
        /// Queries asked of the chain (counted by [`super::ChainSolver`]).
        queries: u64 = "solver queries",
        /// Wall-clock time spent in the chain (counted by [`super::ChainSolver`]).
        total_time: Duration,
        /// Queries answered from the cache.
        cache_hits: u64 = "query cache hits",
        /// Queries the cache passed on to the next layer.
        cache_misses: u64,
        /// Queries the counterexample cache answered `Unsat` because a cached unsatisfiable set
        /// is a subset of theirs (or equal to it).
        cex_unsat_subset_hits: u64 = "cex cache: unsat subset",
        /// Queries the counterexample cache answered with the model of a cached satisfiable
        /// superset of theirs (or of an equal set).
        cex_sat_superset_hits: u64 = "cex cache: sat superset",
        /// Queries the counterexample cache answered with an earlier model that evaluates to
        /// true on all of their expressions.
        cex_model_reuse_hits: u64 = "cex cache: model reuse",
        /// Queries the counterexample cache passed on to the next layer.
        cex_misses: u64,
        /// Constraints removed from queries by constraint independence.
        independence_dropped: u64 = "independence: constraints dropped",
        /// Extra queries the independence layer asked to complete a model for dropped
        /// constraints.
        independence_completions: u64 = "independence: completion queries",
        /// Dropped groups completed from a recent model instead of a query.
        independence_recent_hits: u64 = "independence: completed from recent models",
        /// Queries the range layer rewrote with the bounds of their constraints.
        ranges_rewritten: u64 = "ranges: queries rewritten",
        /// Of those, queries the rewriting decided (`Unsat`) without the backend.
        ranges_unsat: u64 = "ranges: decided unsat",
        /// Queries the range layer found false in XOR-linear form (`xorlinear.rs`).
        xor_linear_unsat: u64 = "xor-linear: decided unsat",
        /// Queries swept after their first try (`sweep.rs`).
        sweep_queries: u64 = "sweeping: queries swept",
        /// Terms the sweeps merged with a representative proved equal.
        sweep_merged: u64 = "sweeping: terms merged",
        /// Local queries the sweeps asked.
        sweep_local_queries: u64 = "sweeping: local queries",
        /// Swept queries answered sat or unsat after the sweep.
        sweep_decided: u64 = "sweeping: swept queries decided",
        /// Queries over at most two input bytes decided by trying every input.
        enumerated: u64 = "enumerated",
        /// Enumerations that used their budget without an answer (the query went on).
        enumeration_over_budget: u64 = "enumeration over budget",
        /// Queries answered `Sat` by the caller's model with an input moved to a boundary of
        /// its comparisons (`boundary.rs`).
        boundary_models: u64 = "boundary models",
        /// Satisfiability checks run by the backend.
        backend_queries: u64 = "backend queries",
        /// Time the backend spent in satisfiability checks (not in translation).
        backend_time: Duration = "backend time ms",
        /// Definite answers (sat or unsat) of each backend, indexed as [`Backend::ALL`],
        /// whichever backend or portfolio is used (a cross-checking solver's included).
        backend_answers: [u64; 2],
        /// The backend's answers.
        backend_sat: u64,
        backend_unsat: u64,
        backend_unknown: u64,
        /// Times the backend dropped its instance and translation memo to bound memory.
        backend_resets: u64,
        /// SAT models checked by concrete evaluation.
        validated_models: u64 = "models validated",
        /// Answers (of the backend, range rewriting or enumeration) compared with the
        /// cross-checking solver's (`--cross-check-solver`).
        crosscheck_queries: u64 = "cross-check: answers compared" if cross_checked,
        /// Of those, answers the two solvers disagreed on (sat against unsat).
        crosscheck_disagreements: u64 = "cross-check: disagreements" if cross_checked,
        /// Answers not compared because one of the solvers answered `Unknown`.
        crosscheck_unknown: u64 = "cross-check: not compared (unknown)" if cross_checked,
        /// Time the cross-checking solver spent (translation included).
        crosscheck_time: Duration = "cross-check: time ms" if cross_checked,
        /// With `--solver portfolio`: the queries whose answer came from each backend, indexed
        /// as [`Backend::ALL`].
        portfolio_answers: [u64; 2],
        /// With `--solver portfolio`: the wall time each backend spent on its checks,
        /// translation included, indexed as [`Backend::ALL`] (the two overlap during a race).
        portfolio_time: [Duration; 2],
        /// Queries on which the portfolio started its second backend (the first had not
        /// answered within [`super::RACE_DELAY`], or had answered unknown).
        portfolio_races: u64,
        /// Checks the portfolio cancelled because the other backend answered first.
        portfolio_cancelled: u64,
        /// Queries due for a race that the portfolio left to its first backend because no
        /// core was idle for the second (the machine's load average).
        portfolio_busy: u64,
    }
}

impl SolverStats {
    /// Counts one satisfiability check of `backend` that took `took` and gave `answer`: the
    /// one place a backend's answer is counted, so both count alike.
    pub(super) fn count_backend_check(
        &mut self,
        backend: Backend,
        answer: &super::SatResult,
        took: Duration,
    ) {
        use super::SatResult::{Sat, Unknown, Unsat};
        self.backend_queries += 1;
        self.backend_time += took;
        match answer {
            Sat(_) => self.backend_sat += 1,
            Unsat => self.backend_unsat += 1,
            Unknown(_) => self.backend_unknown += 1,
        }
        if !matches!(answer, Unknown(_)) {
            let at = Backend::ALL.iter().position(|&b| b == backend);
            self.backend_answers[at.unwrap_or(0)] += 1;
        }
    }

    /// Whether a cross-checking solver compared or tried to compare answers: only then does a
    /// report show its counters, so that other reports keep theirs.
    fn cross_checked(&self) -> bool {
        self.crosscheck_queries + self.crosscheck_unknown > 0
    }

    /// The counters named after the backends (the front end does not name them): each
    /// backend's definite answers, and with `--solver portfolio` the portfolio's counters.
    pub fn portfolio_counters(&self) -> Vec<(String, u64)> {
        let mut rows: Vec<(String, u64)> = Backend::ALL
            .into_iter()
            .zip(self.backend_answers)
            .filter(|&(_, n)| n > 0)
            .map(|(backend, n)| (format!("{} answers", backend.name()), n))
            .collect();
        if self.portfolio_answers.iter().sum::<u64>() + self.portfolio_races + self.portfolio_busy
            == 0
        {
            return rows;
        }
        for (i, backend) in Backend::ALL.into_iter().enumerate() {
            let name = backend.name();
            rows.push((
                format!("portfolio: {name} answers"),
                self.portfolio_answers[i],
            ));
            let ms = self.portfolio_time[i].as_millis() as u64;
            rows.push((format!("portfolio: {name} time ms"), ms));
        }
        rows.push(("portfolio: races".into(), self.portfolio_races));
        rows.push((
            "portfolio: checks cancelled".into(),
            self.portfolio_cancelled,
        ));
        rows.push((
            "portfolio: races left out (no idle core)".into(),
            self.portfolio_busy,
        ));
        rows
    }
}

impl SolverStats {
    /// A report's note of who answered the queries: each solver's definite answers, and those
    /// the layers gave without one. `None` when no query was asked.
    pub fn answered_note(&self) -> Option<String> {
        if self.queries == 0 {
            return None;
        }
        let mut by: Vec<String> = Backend::ALL
            .into_iter()
            .zip(self.backend_answers)
            .filter(|&(_, n)| n > 0)
            .map(|(backend, n)| format!("{} {n}", backend.name()))
            .collect();
        if by.is_empty() {
            by.push("none".into());
        }
        let cex =
            self.cex_unsat_subset_hits + self.cex_sat_superset_hits + self.cex_model_reuse_hits;
        let layers = [
            ("cache", self.cache_hits + cex),
            ("ranges", self.ranges_unsat),
            ("xor-linear", self.xor_linear_unsat),
            ("enumeration", self.enumerated),
            ("boundary models", self.boundary_models),
        ];
        let without: Vec<String> = layers
            .iter()
            .filter(|(_, n)| *n > 0)
            .map(|(name, n)| format!("{name} {n}"))
            .collect();
        let mut note = format!("queries answered by solver: {}", by.join(", "));
        if !without.is_empty() {
            note.push_str(&format!("; without one: {}", without.join(", ")));
        }
        Some(note)
    }
}
