//! Counters of a running exploration, shared by all its workers (`exec`) and read by the
//! front end, which draws them (`report/progress.rs`): the engine never writes to the
//! terminal. A leaf module, as `stop.rs`: both sides may import it.
//!
//! Each worker keeps what it last added ([`Published`]) and adds only the difference, a few
//! times a second, so the shared numbers are the totals over every worker at little cost.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// How many paths ended in each kind of result, as a driver counts them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Proved paths (and paths on which both sides fail alike).
    pub proved: u64,
    /// Paths on which the sides differ (results or one-sided failures).
    pub diverged: u64,
    /// Paths left undecided.
    pub unknown: u64,
}

/// The totals at one moment.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Snapshot {
    pub paths: u64,
    pub instructions: u64,
    /// States waiting or running in every worker.
    pub live: u64,
    pub tally: Tally,
}

/// The shared counters of one exploration (cheap to clone; clones share the numbers).
#[derive(Clone, Debug, Default)]
pub struct Progress {
    counters: Arc<[AtomicU64; 6]>,
}

/// What one worker has added to a [`Progress`] so far.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Published(Snapshot);

impl Snapshot {
    fn fields(&self) -> [u64; 6] {
        [
            self.paths,
            self.instructions,
            self.live,
            self.tally.proved,
            self.tally.diverged,
            self.tally.unknown,
        ]
    }
}

impl Progress {
    /// Counters that start at zero.
    pub fn new() -> Self {
        Self::default()
    }

    /// The totals now.
    pub fn snapshot(&self) -> Snapshot {
        let c: [u64; 6] = std::array::from_fn(|i| self.counters[i].load(Ordering::Relaxed));
        Snapshot {
            paths: c[0],
            instructions: c[1],
            live: c[2],
            tally: Tally {
                proved: c[3],
                diverged: c[4],
                unknown: c[5],
            },
        }
    }

    /// Adds what changed in one worker since its last call: its counts are now `now`.
    /// (Wrapping arithmetic: a count that went down, as live states do, subtracts.)
    pub(crate) fn publish(&self, last: &mut Published, now: Snapshot) {
        for (i, (new, old)) in now.fields().into_iter().zip(last.0.fields()).enumerate() {
            if new != old {
                self.counters[i].fetch_add(new.wrapping_sub(old), Ordering::Relaxed);
            }
        }
        last.0 = now;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workers_add_up_and_live_states_go_down() {
        let p = Progress::new();
        let (mut a, mut b) = (Published::default(), Published::default());
        let at = |paths, live, proved| Snapshot {
            paths,
            instructions: paths * 10,
            live,
            tally: Tally {
                proved,
                ..Tally::default()
            },
        };
        p.publish(&mut a, at(3, 5, 1));
        p.publish(&mut b, at(2, 4, 2));
        assert_eq!(p.snapshot(), at(5, 9, 3));
        // Worker a ends: its live states are gone, its paths stay counted.
        p.publish(&mut a, at(4, 0, 1));
        assert_eq!(p.snapshot(), at(6, 4, 3));
        p.publish(&mut b, at(2, 0, 2));
        assert_eq!(p.snapshot().live, 0);
    }
}
