//! When a run must stop: the user's interrupt (Ctrl-C, SIGTERM) and a check's deadline, in
//! one token that every long-running loop asks (the interpreter, the solver's termination
//! callback, minimization, concrete replay).
//!
//! A [`Stop`] is cheap to clone; clones share both the interrupt flag and the deadline.
//! [`Stop::for_check`] keeps the interrupt flag but starts a deadline of its own, so that the
//! parallel checks of a gate run share Ctrl-C but not their time limits.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The stop token of a run (see the module documentation). The default token is never
/// interrupted and has no deadline until one is set.
#[derive(Clone, Debug)]
pub struct Stop {
    /// Set by the binary's signal handlers; shared by every check of the run.
    interrupt: Arc<AtomicBool>,
    /// Nanoseconds after `origin` at which the check's time runs out; 0 means none.
    deadline: Arc<AtomicU64>,
    /// The instant deadlines are counted from (when the run's token was made).
    origin: Instant,
}

impl Default for Stop {
    fn default() -> Self {
        Stop {
            interrupt: Arc::default(),
            deadline: Arc::default(),
            origin: Instant::now(),
        }
    }
}

/// Why a [`Stop`] says to stop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    Interrupted,
    Deadline,
}

impl std::fmt::Display for StopReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            StopReason::Interrupted => "interrupted",
            StopReason::Deadline => "max-time reached",
        })
    }
}

/// Why an exploration stopped before its end (`ExecStats::stop_reason`): the report's text
/// of it is its [`Display`](std::fmt::Display).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Halt {
    /// The user interrupted the run.
    Interrupted,
    /// `--max-time` ran out; `reserve` is the time exploration stopped before it to leave
    /// for confirming what it found (zero: none).
    MaxTime { max: Duration, reserve: Duration },
    /// A deadline without `--max-time` (a gate's or a caller's budget) ran out.
    TimeBudget,
    /// `--max-paths` paths ended.
    MaxPaths(u64),
    /// The report was written while the check still ran (or the run was killed).
    StillRunning,
}

impl std::fmt::Display for Halt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Halt::Interrupted => f.write_str("interrupted"),
            Halt::MaxTime { max, reserve } if reserve.is_zero() => {
                write!(f, "max-time {}s reached", max.as_secs_f64())
            }
            Halt::MaxTime { max, reserve } => write!(
                f,
                "max-time {}s reached (exploration stopped {}s before it, to confirm what it \
                 found)",
                (max + reserve).as_secs_f64(),
                reserve.as_secs_f64()
            ),
            Halt::TimeBudget => f.write_str("time budget spent"),
            Halt::MaxPaths(max) => write!(f, "max-paths {max} reached"),
            Halt::StillRunning => f.write_str("the check was still running"),
        }
    }
}

impl Stop {
    /// A token that is not interrupted and has no deadline.
    pub fn new() -> Self {
        Self::default()
    }

    /// The interrupt flag itself, for a signal handler to set.
    pub fn flag(&self) -> &Arc<AtomicBool> {
        &self.interrupt
    }

    /// Asks everything holding this token (or a token made from it) to stop.
    pub fn interrupt(&self) {
        self.interrupt.store(true, Ordering::Relaxed);
    }

    /// Whether the user asked the run to stop.
    pub fn interrupted(&self) -> bool {
        self.interrupt.load(Ordering::Relaxed)
    }

    /// A token with the same interrupt flag and a deadline of its own (none yet).
    pub fn for_check(&self) -> Stop {
        Stop {
            interrupt: self.interrupt.clone(),
            deadline: Arc::default(),
            origin: self.origin,
        }
    }

    /// A token for work that must still run after this one stopped (the concrete replay
    /// that confirms what exploration found): a fresh interrupt flag when this token was
    /// already interrupted (a later interrupt then ends the process), this one's flag
    /// otherwise; a deadline `budget` from now when this token already says to stop, or
    /// `budget` after this one's deadline.
    pub fn after(&self, budget: Duration) -> Stop {
        let token = Stop {
            interrupt: if self.interrupted() {
                Arc::default()
            } else {
                self.interrupt.clone()
            },
            deadline: Arc::default(),
            origin: self.origin,
        };
        if self.should_stop() {
            token.set_deadline(Instant::now() + budget);
        } else if let Some(at) = self.deadline() {
            token.set_deadline(at + budget);
        }
        token
    }

    /// Sets the deadline to `at`, unless an earlier one is set.
    pub fn set_deadline(&self, at: Instant) {
        let nanos = self.nanos(at);
        let _ = self
            .deadline
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |old| {
                (old == 0 || nanos < old).then_some(nanos)
            });
    }

    /// Moves the deadline to `at` if that is later (or sets it, if none is set).
    pub fn extend_deadline(&self, at: Instant) {
        let nanos = self.nanos(at);
        let _ = self
            .deadline
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |old| {
                (nanos > old).then_some(nanos)
            });
    }

    /// `at` as the deadline field holds it: nanoseconds since the origin, at least 1 (0
    /// means none).
    fn nanos(&self, at: Instant) -> u64 {
        let nanos = at.saturating_duration_since(self.origin).as_nanos();
        u64::try_from(nanos).unwrap_or(u64::MAX).max(1)
    }

    /// The deadline, if one is set.
    pub fn deadline(&self) -> Option<Instant> {
        match self.deadline.load(Ordering::Relaxed) {
            0 => None,
            n => Some(self.origin + Duration::from_nanos(n)),
        }
    }

    /// Why to stop now, if so: an interrupt first, then a passed deadline.
    pub fn reason(&self) -> Option<StopReason> {
        if self.interrupted() {
            return Some(StopReason::Interrupted);
        }
        match self.deadline.load(Ordering::Relaxed) {
            0 => None,
            n => {
                (self.origin.elapsed().as_nanos() >= u128::from(n)).then_some(StopReason::Deadline)
            }
        }
    }

    /// Whether to stop now.
    pub fn should_stop(&self) -> bool {
        self.reason().is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checks_share_the_interrupt_but_not_the_deadline() {
        let run = Stop::new();
        let (a, b) = (run.for_check(), run.for_check());
        a.set_deadline(Instant::now());
        assert_eq!(a.reason(), Some(StopReason::Deadline));
        assert_eq!(b.reason(), None);
        run.interrupt();
        assert_eq!(b.reason(), Some(StopReason::Interrupted));
        assert_eq!(a.clone().reason(), Some(StopReason::Interrupted));
    }

    #[test]
    fn the_earliest_deadline_wins() {
        let s = Stop::new();
        let now = Instant::now();
        s.set_deadline(now + Duration::from_secs(100));
        s.set_deadline(now + Duration::from_secs(10));
        s.set_deadline(now + Duration::from_secs(50));
        let d = s.deadline().unwrap();
        assert!(d > now + Duration::from_secs(9) && d < now + Duration::from_secs(11));
        assert!(!s.should_stop());
    }

    #[test]
    fn work_after_an_interrupt_gets_its_own_budget() {
        let s = Stop::new();
        let unbounded = s.after(Duration::from_millis(1));
        assert_eq!(unbounded.deadline(), None);
        s.interrupt();
        // The same flag: the interrupt reaches work started before it.
        assert!(unbounded.interrupted());
        let replay = s.after(Duration::from_secs(60));
        assert!(!replay.interrupted());
        assert!(replay.deadline().is_some());
        assert!(!replay.should_stop());
        let spent = s.after(Duration::ZERO);
        std::thread::sleep(Duration::from_millis(2));
        assert_eq!(spent.reason(), Some(StopReason::Deadline));
    }

    #[test]
    fn work_after_a_deadline_not_yet_reached_may_use_it() {
        let s = Stop::new();
        let at = Instant::now() + Duration::from_secs(100);
        s.set_deadline(at);
        let later = s.after(Duration::from_secs(1));
        let d = later.deadline().unwrap();
        assert!(d > at && d < at + Duration::from_secs(2));
    }
}
