//! What the replays said of a row, and which of three sides agree: typed where the report
//! model keeps them; the files write them as `true`/`false`/absent and `all agree`…
//! (`report/schema.rs`).
//!
//! Two replays are named apart: [`Replay`] is the engine's concrete replay of a test in a
//! fresh engine; [`NativeReplay`] is the run of the native executables on it.

use std::fmt;

/// What the engine's concrete replay of a row's test said (`PathRow::confirmed`; in JSON
/// `true`, `false` or `null`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Replay {
    /// Not replayed (a proved or unknown row, or the run was stopped first).
    #[default]
    NotRun,
    /// Replay reached the row's verdict (and, for three sides, its agreement).
    Confirmed,
    /// Replay did not reproduce the row.
    NotConfirmed,
}

impl Replay {
    /// The replay's answer to "did it reproduce the row?".
    pub fn of(reproduced: bool) -> Self {
        if reproduced {
            Replay::Confirmed
        } else {
            Replay::NotConfirmed
        }
    }

    /// Whether replay reproduced the row.
    pub fn is_confirmed(self) -> bool {
        self == Replay::Confirmed
    }

    /// Whether the row was replayed at all.
    pub fn ran(self) -> bool {
        self != Replay::NotRun
    }

    /// The answer as it was stored before the type: `None` when not replayed.
    pub fn as_bool(self) -> Option<bool> {
        match self {
            Replay::NotRun => None,
            Replay::Confirmed => Some(true),
            Replay::NotConfirmed => Some(false),
        }
    }
}

impl From<Option<bool>> for Replay {
    fn from(answer: Option<bool>) -> Self {
        answer.map_or(Replay::NotRun, Replay::of)
    }
}

impl From<Replay> for Option<bool> {
    fn from(replay: Replay) -> Self {
        replay.as_bool()
    }
}

/// What the native executables did on a row's test (`PathRow::native`; in JSON `true` or
/// `false`, absent when they did not run it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum NativeReplay {
    /// No executables ran the test (none beside the bitcode, or the engine's replay did not
    /// confirm the row).
    #[default]
    NotRun,
    /// The executables did what the engine said.
    Reproduced,
    /// They did not: a difference they do not show, or a failure of both sides they do not
    /// have, is reported and not counted.
    NotReproduced,
}

impl NativeReplay {
    /// The executables' answer to "did they do what the engine said?".
    pub fn of(reproduced: bool) -> Self {
        if reproduced {
            NativeReplay::Reproduced
        } else {
            NativeReplay::NotReproduced
        }
    }

    /// Whether the executables ran the test and did not reproduce the row.
    pub fn refuted(self) -> bool {
        self == NativeReplay::NotReproduced
    }

    /// Whether the executables did not run the test (`report.json` leaves the field out then).
    pub fn is_not_run(&self) -> bool {
        *self == NativeReplay::NotRun
    }

    /// The answer as it was stored before the type: `None` when not run.
    pub fn as_bool(self) -> Option<bool> {
        match self {
            NativeReplay::NotRun => None,
            NativeReplay::Reproduced => Some(true),
            NativeReplay::NotReproduced => Some(false),
        }
    }
}

impl From<Option<bool>> for NativeReplay {
    fn from(answer: Option<bool>) -> Self {
        answer.map_or(NativeReplay::NotRun, NativeReplay::of)
    }
}

impl From<NativeReplay> for Option<bool> {
    fn from(native: NativeReplay) -> Self {
        native.as_bool()
    }
}

/// Which of three sides agree (`ThreeWay::agreement`), from whether each pair is equal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Agreement {
    AllAgree,
    /// A differs; B and C agree.
    ADiffers,
    /// B differs; A and C agree.
    BDiffers,
    /// C differs; A and B agree.
    CDiffers,
    AllDiffer,
}

impl Agreement {
    /// The agreement of three sides from whether each pair (A-B, A-C, B-C) is equal.
    pub fn of(ab: bool, ac: bool, bc: bool) -> Self {
        match (ab, ac, bc) {
            (true, true, true) => Agreement::AllAgree,
            (true, false, false) => Agreement::CDiffers,
            (false, true, false) => Agreement::BDiffers,
            (false, false, true) => Agreement::ADiffers,
            _ => Agreement::AllDiffer,
        }
    }

    /// The odd one out (`A`, `B` or `C`): two sides equal and the third not.
    pub fn odd(self) -> Option<&'static str> {
        match self {
            Agreement::ADiffers => Some("A"),
            Agreement::BDiffers => Some("B"),
            Agreement::CDiffers => Some("C"),
            Agreement::AllAgree | Agreement::AllDiffer => None,
        }
    }

    /// The words reports write: `all agree`, `C differs`, `all differ`….
    pub fn name(self) -> &'static str {
        match self {
            Agreement::AllAgree => "all agree",
            Agreement::ADiffers => "A differs",
            Agreement::BDiffers => "B differs",
            Agreement::CDiffers => "C differs",
            Agreement::AllDiffer => "all differ",
        }
    }
}

impl fmt::Display for Agreement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replays_are_the_booleans_they_were() {
        for (replay, answer) in [
            (Replay::NotRun, None),
            (Replay::Confirmed, Some(true)),
            (Replay::NotConfirmed, Some(false)),
        ] {
            assert_eq!(replay.as_bool(), answer);
            assert_eq!(Replay::from(answer), replay);
        }
        for (native, answer) in [
            (NativeReplay::NotRun, None),
            (NativeReplay::Reproduced, Some(true)),
            (NativeReplay::NotReproduced, Some(false)),
        ] {
            assert_eq!(native.as_bool(), answer);
            assert_eq!(NativeReplay::from(answer), native);
        }
    }

    #[test]
    fn agreements_and_their_words() {
        let all = [
            (true, true, true),
            (true, false, false),
            (false, true, false),
        ];
        let all = all
            .into_iter()
            .chain([(false, false, true), (false, false, false)]);
        let words: Vec<String> = all
            .map(|(ab, ac, bc)| {
                let a = Agreement::of(ab, ac, bc);
                format!("{a} {:?}", a.odd())
            })
            .collect();
        let expected = [
            "all agree None",
            "C differs Some(\"C\")",
            "B differs Some(\"B\")",
            "A differs Some(\"A\")",
            "all differ None",
        ];
        assert_eq!(words, expected);
    }
}
