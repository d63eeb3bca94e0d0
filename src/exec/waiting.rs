//! The types of the deferral of queries the solver does not answer quickly (`defer.rs`
//! holds what the executor does with them): its options, counters and modes, and a
//! worker's queue of waiting states.

use crate::exec::state::State;
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

/// Counters of the states put aside.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DeferralStats {
    /// Branch sides whose first try went unanswered.
    pub deferred: u64,
    /// Path ends whose driver's question went unanswered in its first try.
    pub deferred_ends: u64,
    /// Branch sides checked again with the full limit: feasible, infeasible, unknown.
    pub feasible: u64,
    pub infeasible: u64,
    pub unknown: u64,
    /// Path ends handed to the driver again.
    pub ends_retried: u64,
    /// States never retried: exploration stopped first (they end as unknown).
    pub left: u64,
    /// The time the retries took.
    pub retry_time: Duration,
}

impl DeferralStats {
    /// Adds another worker's counters.
    pub fn add(&mut self, o: &DeferralStats) {
        self.deferred += o.deferred;
        self.deferred_ends += o.deferred_ends;
        self.feasible += o.feasible;
        self.infeasible += o.infeasible;
        self.unknown += o.unknown;
        self.ends_retried += o.ends_retried;
        self.left += o.left;
        self.retry_time += o.retry_time;
    }

    /// Whether anything was put aside.
    pub fn any(&self) -> bool {
        self.deferred + self.deferred_ends > 0
    }
}

/// Why [`Executor::check_or_defer`] has no answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unanswered {
    /// The first try went unanswered: the caller hands the state back to wait.
    Later,
    /// The solver gave up (the reason), or the query was abandoned at the run's end.
    GaveUp(String),
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
