//! The progress bar of a running check: one `indicatif` line on stderr with the totals of
//! every exploration worker (paths, live states, results, speed), drawn by a thread of the
//! front end from the engine's shared counters ([`Progress`]).

use crate::progress::{Progress, Snapshot};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How often the bar is redrawn.
const REDRAW: Duration = Duration::from_millis(200);

/// A bar being drawn; dropping it clears the line.
pub struct Bar {
    done: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

/// The bar's text for `s`, `secs` seconds after the start.
pub fn progress_line(s: &Snapshot, secs: f64) -> String {
    let ips = s.instructions as f64 / secs.max(1e-9);
    format!(
        "paths {} | live {} | proved {} | diverged {} | unknown {} | {:.1}M instr/s",
        s.paths,
        s.live,
        s.tally.proved,
        s.tally.diverged,
        s.tally.unknown,
        ips / 1e6
    )
}

impl Bar {
    /// Counters for an exploration and a bar drawing them, when stderr is a terminal and
    /// `wanted`; `None` otherwise (the exploration then counts nothing).
    pub fn start(wanted: bool) -> Option<(Progress, Bar)> {
        if !wanted {
            return None;
        }
        let progress = Progress::new();
        let bar = Bar::on_terminal(&progress)?;
        Some((progress, bar))
    }

    /// Draws `progress` on stderr until the bar is dropped, when stderr is a terminal;
    /// `None` (nothing drawn) otherwise.
    pub fn on_terminal(progress: &Progress) -> Option<Bar> {
        if !std::io::IsTerminal::is_terminal(&std::io::stderr()) {
            return None;
        }
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template("{spinner} [{elapsed:>4}] {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        let done = Arc::new(AtomicBool::new(false));
        let (flag, progress) = (done.clone(), progress.clone());
        let thread = std::thread::spawn(move || {
            let start = Instant::now();
            while !flag.load(Ordering::Relaxed) {
                let line = progress_line(&progress.snapshot(), start.elapsed().as_secs_f64());
                bar.set_message(line);
                bar.tick();
                std::thread::park_timeout(REDRAW);
            }
            bar.finish_and_clear();
        });
        Some(Bar {
            done,
            thread: Some(thread),
        })
    }
}

impl Drop for Bar {
    fn drop(&mut self) {
        self.done.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            t.thread().unpark();
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::Tally;

    #[test]
    fn the_line_shows_totals() {
        let s = Snapshot {
            paths: 7,
            instructions: 3_000_000,
            live: 2,
            tally: Tally {
                proved: 4,
                diverged: 1,
                unknown: 2,
            },
        };
        assert_eq!(
            progress_line(&s, 2.0),
            "paths 7 | live 2 | proved 4 | diverged 1 | unknown 2 | 1.5M instr/s"
        );
    }
}
