//! The types of the deferral of queries the solver does not answer quickly (`defer.rs`
//! holds what the executor does with them): its options, counters and modes, and a
//! worker's queue of waiting states.

use crate::exec::state::State;
use crate::ir::LocId;
use rustc_hash::FxHashMap;
use std::collections::VecDeque;
use std::time::Duration;

/// How queries that the solver does not answer quickly wait (see `defer.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Deferral {
    /// The limit of a query's first try.
    pub first_try: Duration,
    /// The time one retry may take: the solver's limit of one query.
    pub retry: Duration,
}

crate::counters::counters! {
    /// Counters of the states put aside (a check's report counters, in this order, only when
    /// a query went unanswered in its first try, `--defer-after`).
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct DeferralStats {
        /// Branch sides whose first try went unanswered.
        deferred: u64 = "deferred branch sides" if any,
        /// Branch sides checked again with the full limit: feasible, infeasible, unknown.
        feasible: u64 = "deferred: feasible" if any,
        infeasible: u64 = "deferred: infeasible" if any,
        unknown: u64 = "deferred: unknown" if any,
        /// Path ends whose driver's question went unanswered in its first try.
        deferred_ends: u64 = "deferred path ends" if any,
        /// Path ends handed to the driver again.
        ends_retried: u64 = "deferred: path ends retried" if any,
        /// States never retried: exploration stopped first (they end as unknown).
        left: u64 = "deferred: not retried" if any,
        /// The time the retries took.
        retry_time: Duration = "deferred: retry time ms" if any,
    }
}

impl DeferralStats {
    /// Whether anything was put aside.
    pub fn any(&self) -> bool {
        self.deferred + self.deferred_ends > 0
    }
}

/// Why [`crate::exec::Executor::check_or_defer`] has no answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unanswered {
    /// The first try went unanswered: the caller hands the state back to wait.
    Later,
    /// The solver gave up (the reason), or the query was abandoned at the run's end.
    GaveUp(super::state::SolverFailure),
}

/// What queries that may wait do now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DeferMode {
    /// Every query gets the full limit at once (no deferral, or not exploring).
    Off,
    /// A worker explores: first tries are short.
    Explore,
    /// A deferred state is retried: its queries get the full limit.
    Retry,
    /// Exploration stopped: the waiting states' questions are not asked.
    Abandon,
}

/// A worker's states put aside, oldest first.
#[derive(Default)]
pub(crate) struct Deferred {
    states: VecDeque<State>,
}

impl Deferred {
    /// Whether no state waits.
    pub(crate) fn is_empty(&self) -> bool {
        self.states.is_empty()
    }

    /// The oldest waiting state.
    pub(crate) fn pop(&mut self) -> Option<State> {
        self.states.pop_front()
    }

    /// Every waiting state, oldest first.
    pub(crate) fn into_states(self) -> VecDeque<State> {
        self.states
    }

    /// `state` back when it does not wait; otherwise it is queued.
    pub(crate) fn unless_waiting(&mut self, state: State) -> Option<State> {
        if state.unchecked.is_some() || state.deferred_exit.is_some() {
            self.states.push_back(state);
            return None;
        }
        Some(state)
    }
}

/// How many first tries in a row went unanswered at each place (a branch's location) in
/// one worker: the first try there is halved for each, down to a sixteenth; every eighth
/// miss in a row, the next first try is the whole one again, so that a place whose queries
/// became easier is found out.
/// The queries one place asks have one shape (the digits a `printf` loop compares, a
/// checksum's tests), and a shape the solver could not answer in the first try rarely
/// becomes easy on the next path: paying the whole first try again would only delay the
/// cheap paths. Nothing is lost by it: an unanswered side waits and is retried in full.
#[derive(Default)]
pub(crate) struct Misses {
    by_place: FxHashMap<Option<LocId>, u32>,
}

/// The most halvings of the first try at one place.
const MAX_HALVINGS: u32 = 4;

/// Misses in a row after which a place gets the whole first try once.
const WHOLE_EVERY: u32 = 8;

impl Misses {
    /// The first try at `place`: `base`, halved once per recent miss there.
    pub(crate) fn first_try(&self, base: Duration, place: Option<LocId>) -> Duration {
        match self.by_place.get(&place).copied().unwrap_or(0) {
            misses if misses % WHOLE_EVERY == 0 => base,
            misses => base / (1 << misses.min(MAX_HALVINGS)),
        }
    }

    /// A first try at `place` went unanswered.
    pub(crate) fn missed(&mut self, place: Option<LocId>) {
        *self.by_place.entry(place).or_insert(0) += 1;
    }

    /// A first try at `place` was answered: the next one there gets the whole first try.
    pub(crate) fn answered(&mut self, place: Option<LocId>) {
        self.by_place.remove(&place);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_miss_at_a_place_halves_its_first_try_until_an_answer_or_the_eighth() {
        let base = Duration::from_millis(1600);
        let (here, there) = (Some(LocId(3)), None);
        let mut misses = Misses::default();
        let mut seen = Vec::new();
        for _ in 0..10 {
            seen.push(misses.first_try(base, here).as_millis());
            misses.missed(here);
        }
        assert_eq!(seen, [1600, 800, 400, 200, 100, 100, 100, 100, 1600, 100]);
        // Other places keep the whole first try; an answer here restores it.
        assert_eq!(misses.first_try(base, there), base);
        misses.answered(here);
        assert_eq!(misses.first_try(base, here), base);
    }
}
