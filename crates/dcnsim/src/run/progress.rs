//! What a run reports while it runs, and why it may stop early: the same for both engines
//! ([`crate::engine::Simulation`] and [`crate::flowsim::FlowSimulation`]), so both take the same
//! progress callback and return the same [`RunError`].

use crate::budget::MemoryPlan;
use crate::error::ConfigError;
use crate::units::Time;

/// Without `stop_s`, a run ends when every flow has finished or, as a guard against flows that
/// can never finish (a partitioned network), this long after the last flow started.
pub const UNFINISHED_GUARD: Time = Time::from_ms(60_000);

/// Progress reported to the caller about every few hundred milliseconds of wall time.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    pub sim_time: Time,
    pub flows_done: usize,
    pub flows_total: usize,
}

/// Hands [`Progress`] to the caller's callback at most every 200 ms of wall time (both
/// engines call [`ProgressClock::tick`] every few thousand events), and at the same moments
/// compares the process's resident memory with the run's budget ([`MemoryPlan`]).
pub struct ProgressClock {
    last: std::time::Instant,
    memory: Option<(u64, MemoryPlan)>,
}

impl ProgressClock {
    pub fn new(start: std::time::Instant) -> ProgressClock {
        ProgressClock {
            last: start,
            memory: None,
        }
    }

    /// Also stops the run once its resident memory passes `plan`'s limit (where it has one).
    pub fn watching(mut self, plan: &MemoryPlan) -> ProgressClock {
        self.memory = plan.resident_limit().map(|limit| (limit, plan.clone()));
        self
    }

    /// Reports `progress` if 200 ms have passed since the last report; an `Err` when the
    /// callback asks to stop, or when the run holds more memory than its budget.
    pub fn tick(
        &mut self,
        progress: Progress,
        callback: &mut dyn FnMut(Progress) -> bool,
    ) -> Result<(), RunError> {
        let now = std::time::Instant::now();
        if now.duration_since(self.last).as_millis() >= 200 {
            self.last = now;
            if let Some((limit, plan)) = &self.memory {
                if let Some(rss) = crate::budget::resident_bytes().filter(|&r| r > *limit) {
                    return Err(RunError::Memory(
                        plan.resident_error(rss, progress.sim_time),
                    ));
                }
            }
            if !callback(progress) {
                return Err(RunError::Interrupted);
            }
        }
        Ok(())
    }
}

/// Why a run did not complete.
#[derive(Debug)]
pub enum RunError {
    /// The progress callback asked to stop (e.g. Ctrl-C).
    Interrupted,
    /// The run would pass its memory budget ([`crate::budget`]): the time series outgrew what
    /// the budget leaves them, or the process's resident memory passed the budget. The error
    /// names the key to change, as the refusals before a run do.
    Memory(ConfigError),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Interrupted => write!(f, "the run was interrupted"),
            RunError::Memory(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for RunError {}
