//! Queries the solver does not answer quickly wait, so that one hard query does not hold up
//! every cheap path behind it (`--defer-after`).
//!
//! While a worker explores, two kinds of query get a short first try (`Deferral`):
//! - a conditional branch's side that the path's model does not take
//!   ([`Executor::branch_deferring`]): unanswered, that side is split off *unchecked*
//!   (`State::unchecked`: no model, the path's model before the branch as a hint);
//! - a driver's question at a path's end ([`Executor::check_or_defer`]: whether the sides'
//!   outputs differ, in a program check, or their results, in a function check):
//!   unanswered, the driver hands the state back with the exit it was deciding
//!   (`State::deferred_exit`), restored as it was.
//!
//! A branch's first try is halved for each first try in a row unanswered at its place
//! (`crate::exec::waiting::Misses`); a path end always gets the whole first try.
//!
//! Such states wait in the worker's `Deferred` queue. The oldest is retried, with the
//! solver's full limit, when the worker has no other state, or when the others have run a
//! retry's time longer than the retries so far: at most about half of the time goes to
//! retries while there are cheap paths. An unchecked side is checked (`pc` with the hint);
//! a deferred exit is handed to the driver again, whose question then gets the full limit.
//! Whatever still waits when exploration stops ends as unknown, with where it waited.

use crate::exec::executor::{Driver, Executor};
use crate::exec::state::{SolverFailure, State};
use crate::exec::waiting::{DeferMode, Deferred, Unanswered};
use crate::expr::{Assignment, ExprId};
use crate::ir::LocId;
use crate::solver::SatResult;
use std::sync::Arc;
use std::time::{Duration, Instant};

impl Executor<'_> {
    /// The first try's limit at `place`, while exploring with deferral on (shorter where
    /// first tries went unanswered, [`crate::exec::waiting::Misses`]).
    pub(super) fn first_try(&self, place: Option<LocId>) -> Option<Duration> {
        match self.defer_mode {
            DeferMode::Explore => self
                .config
                .defer
                .map(|d| self.misses.first_try(d.first_try, place)),
            _ => None,
        }
    }

    /// The first try of a driver's question at a path's end, while exploring and when the
    /// worker has other states, live or waiting (otherwise the retry would come at once,
    /// after a first try spent for nothing: a check of one path with a hard last question
    /// took its first try longer): the whole first try (the paths that end at one place
    /// ask questions of many shapes).
    fn first_try_of_ends(&self) -> Option<Duration> {
        match self.defer_mode {
            DeferMode::Explore if self.others_live || !self.pending.is_empty() => {
                self.config.defer.map(|d| d.first_try)
            }
            _ => None,
        }
    }

    /// After a question with the first try's limit at `place`: `answered` or not.
    pub(super) fn first_try_ended(&mut self, place: Option<LocId>, answered: bool) {
        if answered {
            self.misses.answered(place);
        } else {
            self.misses.missed(place);
        }
    }

    /// Whether the oldest waiting state is retried now: states wait, no limit is reached,
    /// and either `live` (the worker's other states) is 0 or the others have had a retry's
    /// time more than the retries so far, of the worker's `elapsed` time.
    pub(super) fn retry_due(&self, deferred: &Deferred, live: usize, elapsed: Duration) -> bool {
        let Some(defer) = self.config.defer else {
            return false;
        };
        if deferred.is_empty() || self.limit_reached().is_some() {
            return false;
        }
        let retried = self.stats.deferral.retry_time;
        live == 0 || retried + defer.retry <= elapsed.saturating_sub(retried)
    }

    /// Retries the oldest waiting state with the solver's full limit; returns the states
    /// to run (the state itself when feasible, or whatever its driver continues).
    pub(super) fn retry_oldest(
        &mut self,
        deferred: &mut Deferred,
        driver: &mut dyn Driver,
    ) -> Vec<State> {
        let Some(mut state) = deferred.pop() else {
            return Vec::new();
        };
        let begun = Instant::now();
        self.defer_mode = DeferMode::Retry;
        let mut run = Vec::new();
        if let Some(exit) = state.deferred_exit.take() {
            self.stats.deferral.ends_retried += 1;
            self.pending_exits.push((state, *exit));
        } else {
            run.extend(self.check_unchecked(state));
        }
        run.extend(self.settle(driver));
        self.defer_mode = DeferMode::Explore;
        self.stats.deferral.retry_time += begun.elapsed();
        // Nothing waits again after a retry (its questions had the full limit); were it
        // to, it would wait in the queue, not be lost.
        run.into_iter()
            .filter_map(|s| deferred.unless_waiting(s))
            .collect()
    }

    /// Checks an unchecked state's path condition: the state with its model when
    /// feasible; otherwise it is dropped (infeasible) or ends as unknown.
    fn check_unchecked(&mut self, mut state: State) -> Option<State> {
        // The path's model before the branch satisfies every part of the path condition
        // that the branch's constraint does not touch: the independence layer completes
        // those from it, and the backend gets the branch's part only.
        self.solver.set_hint(state.unchecked.take());
        let answer = self
            .solver
            .check(self.pool, state.constraints.as_slice(), self.pool.true_());
        self.solver.set_hint(None);
        let why = match answer {
            Ok(SatResult::Sat(model)) => {
                self.stats.deferral.feasible += 1;
                state.model = Some(Arc::new(model));
                // The block its branch entered is covered now that it is reached.
                let frame = state.frame();
                if self.cover(frame.func, frame.block) {
                    state.since_new_coverage = 0;
                }
                return Some(state);
            }
            Ok(SatResult::Unsat) => {
                // Never a path: a check without deferral would not have made this state.
                // (It left its merge groups when it was put aside.)
                self.stats.deferral.infeasible += 1;
                return None;
            }
            Ok(SatResult::Unknown(why)) => SolverFailure::GaveUp(why),
            Err(e) => SolverFailure::Failed(e),
        };
        self.stats.deferral.unknown += 1;
        self.gave_up(state, why);
        None
    }

    /// Exploration stopped: every waiting state ends as unknown. An unchecked side says
    /// where its branch is; a deferred end goes to its driver, whose question is not
    /// asked again ([`Unanswered::GaveUp`]).
    pub(super) fn abandon(&mut self, deferred: Deferred, driver: &mut dyn Driver) {
        self.defer_mode = DeferMode::Abandon;
        for mut state in deferred.into_states() {
            self.stats.deferral.left += 1;
            if let Some(exit) = state.deferred_exit.take() {
                self.pending_exits.push((state, *exit));
                continue;
            }
            let why = self.not_retried("a branch query ");
            self.gave_up(state, why);
        }
        drop(self.settle(driver));
        self.defer_mode = DeferMode::Off;
    }

    /// [`Executor::branch`] for a conditional branch, whose side the path's model does not
    /// take may be put aside unchecked when its query runs past the first try; that side
    /// leaves its merge groups. The caller runs on the checked side and merges the two
    /// only when neither is unchecked.
    pub(crate) fn branch_deferring(
        &mut self,
        state: State,
        cond: ExprId,
    ) -> Option<(Option<State>, Option<State>)> {
        self.defer_next = true;
        let sides = self.branch(state, cond);
        self.defer_next = false;
        sides
    }

    /// [`Executor::check`] for a question whose answer may wait: while exploring, the
    /// first try gets the short limit and, unanswered, says [`Unanswered::Later`]: the
    /// caller (a driver at a path's end) hands the state back as it was, with
    /// `State::deferred_exit` set, and is asked again later with the full limit. After
    /// exploration stopped, the question is not asked.
    pub fn check_or_defer(
        &mut self,
        state: &State,
        query: ExprId,
    ) -> Result<Option<Arc<Assignment>>, Unanswered> {
        if self.defer_mode == DeferMode::Abandon {
            return Err(Unanswered::GaveUp(self.not_retried("")));
        }
        let answer = self.check_within(state, query, true, self.first_try_of_ends());
        if matches!(answer, Err(Unanswered::Later)) {
            self.stats.deferral.deferred_ends += 1;
        }
        answer
    }

    /// `query` checked under `state`'s path condition (its model tried first when
    /// `try_model`), within `first_try` when there is one: [`Unanswered::Later`] when that
    /// try goes unanswered and the run goes on, [`Unanswered::GaveUp`] when the solver gave
    /// up otherwise.
    pub(super) fn check_within(
        &mut self,
        state: &State,
        query: ExprId,
        try_model: bool,
        first_try: Option<Duration>,
    ) -> Result<Option<Arc<Assignment>>, Unanswered> {
        self.solver.set_time_limit(first_try);
        let answer = self.check_unless_model(state, query, try_model);
        if first_try.is_some() {
            self.solver.set_time_limit(None);
        }
        answer.map_err(|why| {
            if first_try.is_some() && !self.config.stop.should_stop() {
                Unanswered::Later
            } else {
                Unanswered::GaveUp(why)
            }
        })
    }

    /// Why a waiting question ends unknown at the end of exploration: `what` (a branch
    /// query, or nothing for a path's last question) went unanswered in its first try.
    fn not_retried(&self, what: &'static str) -> SolverFailure {
        let first_try = self.config.defer.map_or(Duration::ZERO, |d| d.first_try);
        SolverFailure::NotRetried { what, first_try }
    }
}
