//! Counter structs declared once: [`counters!`] takes a struct whose fields are counters,
//! each with its report label if a report shows it, and derives the fields, their sum
//! (`add`, one worker's or layer's counters onto another's) and the labelled rows a report
//! shows (`labelled`, in declaration order). Adding a counter is one line of the table. A
//! field that is not summed says how it is combined instead (`[max]`, `[first]`,
//! `[not_added]`, functions of this module).
//!
//! A leaf: it imports nothing of the crate.

use std::time::Duration;

/// A value that counters sum.
pub trait Counter {
    /// Adds `other` to `self`.
    fn add(&mut self, other: &Self);
}

/// A counter a report shows as one number.
pub trait Shown {
    /// The number shown (a duration in milliseconds).
    fn shown(&self) -> u64;
}

impl Counter for u64 {
    fn add(&mut self, other: &Self) {
        *self += other;
    }
}

impl Shown for u64 {
    fn shown(&self) -> u64 {
        *self
    }
}

impl Counter for Duration {
    fn add(&mut self, other: &Self) {
        *self += *other;
    }
}

impl Shown for Duration {
    fn shown(&self) -> u64 {
        self.as_millis() as u64
    }
}

impl Shown for usize {
    fn shown(&self) -> u64 {
        *self as u64
    }
}

/// Counts per key (a system call's number…): summed key by key.
impl<K: Ord + Clone> Counter for std::collections::BTreeMap<K, u64> {
    fn add(&mut self, other: &Self) {
        for (key, count) in other {
            *self.entry(key.clone()).or_insert(0) += count;
        }
    }
}

/// `[max]`: the larger of the two (a peak, such as the most live states).
pub fn max<T: Ord + Copy>(a: &mut T, b: &T) {
    *a = (*a).max(*b);
}

/// `[first]`: the first one given (a reason, such as why exploration stopped).
pub fn first<T: Clone>(a: &mut Option<T>, b: &Option<T>) {
    if a.is_none() {
        *a = b.clone();
    }
}

/// `[not_added]`: the first worker's alone (a time the workers spent together).
pub fn not_added<T>(_: &mut T, _: &T) {}

impl<T: Counter, const N: usize> Counter for [T; N] {
    fn add(&mut self, other: &Self) {
        for (a, b) in self.iter_mut().zip(other) {
            a.add(b);
        }
    }
}

/// Declares a struct of counters (see the module's documentation). A field is
/// `name: Type`, or `name: Type = "label"` when reports show it, or
/// `name: Type = "label" if method` when they show it only while `self.method()` holds;
/// `= [nested]` shows the labelled rows of a field that is itself a struct of counters there.
/// `name: Type [how]` combines the field with `how` (a function of this module) instead of
/// adding it. Every other field's type is a [`Counter`]; a labelled one is [`Shown`] too.
macro_rules! counters {
    (@add $a:expr, $b:expr) => {
        $crate::counters::Counter::add(&mut $a, &$b)
    };
    (@add $a:expr, $b:expr, $how:ident) => {
        $crate::counters::$how(&mut $a, &$b)
    };
    (@rows $rows:ident, $value:expr, [nested]) => {
        $rows.extend($value.labelled())
    };
    (@rows $rows:ident, $value:expr, $label:literal) => {
        $rows.push(($label, $crate::counters::Shown::shown(&$value)))
    };
    (
        $(#[$meta:meta])*
        pub struct $name:ident {
            $(
                $(#[$fmeta:meta])*
                $field:ident: $ty:ty $([$how:ident])? $(= $label:tt $(if $shown:ident)?)?,
            )*
        }
    ) => {
        $(#[$meta])*
        pub struct $name {
            $(
                $(#[$fmeta])*
                pub $field: $ty,
            )*
        }

        impl $name {
            /// Adds every counter of `other` to `self`.
            pub fn add(&mut self, other: &Self) {
                $( $crate::counters::counters!(@add self.$field, other.$field $(, $how)?); )*
            }

            /// The counters a report shows, with their labels, in declaration order.
            pub fn labelled(&self) -> Vec<(&'static str, u64)> {
                #[allow(unused_mut)]
                let mut rows = Vec::new();
                $($(
                    if true $(&& self.$shown())? {
                        $crate::counters::counters!(@rows rows, self.$field, $label);
                    }
                )?)*
                rows
            }
        }

        impl $crate::counters::Counter for $name {
            fn add(&mut self, other: &Self) {
                $name::add(self, other);
            }
        }
    };
}
pub(crate) use counters;

#[cfg(test)]
mod tests {
    use super::*;

    counters! {
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub struct Inner {
            hits: u64 = "inner hits",
        }
    }

    counters! {
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub struct Sample {
            plain: u64 = "plain",
            hidden: u64,
            time: Duration = "time ms" if timed,
            pair: [u64; 2],
            inner: Inner = [nested],
            peak: usize [max] = "peak",
            why: Option<&'static str> [first],
        }
    }

    impl Sample {
        fn timed(&self) -> bool {
            self.time > Duration::ZERO
        }
    }

    #[test]
    fn every_counter_adds_and_the_labelled_ones_are_shown_in_order() {
        let one = Sample {
            plain: 1,
            hidden: 2,
            time: Duration::from_millis(3),
            pair: [4, 5],
            inner: Inner { hits: 6 },
            peak: 7,
            why: None,
        };
        let mut sum = one;
        sum.add(&Sample {
            why: Some("second"),
            ..one
        });
        sum.add(&Sample {
            why: Some("third"),
            ..one
        });
        sum.add(&Sample {
            plain: 0,
            hidden: 0,
            time: Duration::ZERO,
            pair: [0, 0],
            inner: Inner { hits: 0 },
            peak: 9,
            why: None,
        });
        let expected = Sample {
            plain: 3,
            hidden: 6,
            time: Duration::from_millis(9),
            pair: [12, 15],
            inner: Inner { hits: 18 },
            peak: 9,
            why: Some("second"),
        };
        assert_eq!(sum, expected);
        let rows = [
            ("plain", 3),
            ("time ms", 9),
            ("inner hits", 18),
            ("peak", 9),
        ];
        assert_eq!(sum.labelled(), rows);
        let rows = [("plain", 0), ("inner hits", 0), ("peak", 0)];
        assert_eq!(Sample::default().labelled(), rows);
        let mut calls = std::collections::BTreeMap::from([(1, 2)]);
        calls.add(&std::collections::BTreeMap::from([(1, 3), (4, 5)]));
        assert_eq!(calls, std::collections::BTreeMap::from([(1, 5), (4, 5)]));
    }
}
