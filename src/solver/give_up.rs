//! Why a solver answered `Unknown`: [`GiveUp`], one enum whose `Display` is the text the
//! reports and the query log show (`timeout`, `interrupted`, `max-time reached`,
//! `cancelled`, `Z3 answered unknown (…)`).

use crate::stop::StopReason;
use std::fmt;

/// Why a check answered `Unknown` (`SatResult::Unknown`, `Truth::Unknown`…).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GiveUp {
    /// The query's time limit ran out.
    Timeout,
    /// The run was interrupted or its deadline passed (`Stop`).
    Stopped(StopReason),
    /// The check was cancelled through its backend's `Cancel` handle (a portfolio's loser).
    Cancelled,
    /// Bitwuzla answered unknown without a limit that explains it.
    Backend,
    /// Z3 answered unknown; its reason.
    Z3(String),
    /// A reason read back from text that names none of the above (a query log, a test's
    /// scripted solver).
    Other(String),
}

impl fmt::Display for GiveUp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GiveUp::Timeout => f.write_str("timeout"),
            GiveUp::Stopped(why) => write!(f, "{why}"),
            GiveUp::Cancelled => f.write_str("cancelled"),
            GiveUp::Backend => f.write_str("the backend answered unknown"),
            GiveUp::Z3(reason) => write!(f, "Z3 answered unknown ({reason})"),
            GiveUp::Other(text) => f.write_str(text),
        }
    }
}

impl From<StopReason> for GiveUp {
    fn from(why: StopReason) -> Self {
        GiveUp::Stopped(why)
    }
}

/// The reason a text names: the inverse of `Display` for the fixed reasons, `Other` for any
/// other text.
impl From<&str> for GiveUp {
    fn from(text: &str) -> Self {
        let fixed = [
            GiveUp::Timeout,
            GiveUp::Stopped(StopReason::Interrupted),
            GiveUp::Stopped(StopReason::Deadline),
            GiveUp::Cancelled,
            GiveUp::Backend,
        ];
        if let Some(found) = fixed.into_iter().find(|g| g.to_string() == text) {
            return found;
        }
        match text
            .strip_prefix("Z3 answered unknown (")
            .and_then(|r| r.strip_suffix(')'))
        {
            Some(reason) => GiveUp::Z3(reason.to_string()),
            None => GiveUp::Other(text.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every reason's text reads back as the reason; the texts are the ones reports show.
    #[test]
    fn each_reason_has_one_text_that_reads_back() {
        let all = [
            (GiveUp::Timeout, "timeout"),
            (StopReason::Interrupted.into(), "interrupted"),
            (StopReason::Deadline.into(), "max-time reached"),
            (GiveUp::Cancelled, "cancelled"),
            (GiveUp::Backend, "the backend answered unknown"),
            (
                GiveUp::Z3("incomplete".into()),
                "Z3 answered unknown (incomplete)",
            ),
            (GiveUp::Other("below".into()), "below"),
        ];
        for (reason, text) in all {
            assert_eq!(reason.to_string(), text);
            assert_eq!(GiveUp::from(text), reason);
        }
    }
}
