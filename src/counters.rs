//! Counter structs declared once: [`counters!`] takes a struct whose fields are counters,
//! each with its report label if a report shows it, and derives the fields, their sum
//! (`add`, one worker's or layer's counters onto another's) and the labelled rows a report
//! shows (`labelled`, in declaration order). Adding a counter is one line of the table.
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

impl<T: Counter, const N: usize> Counter for [T; N] {
    fn add(&mut self, other: &Self) {
        for (a, b) in self.iter_mut().zip(other) {
            a.add(b);
        }
    }
}

/// Declares a struct of counters (see the module's documentation). A field is
/// `name: Type`, or `name: Type = "label"` when reports show it, or
/// `name: Type = "label" if method` when they show it only while `self.method()` holds.
/// Every field's type is a [`Counter`]; a labelled one is [`Shown`] too.
macro_rules! counters {
    (
        $(#[$meta:meta])*
        pub struct $name:ident {
            $(
                $(#[$fmeta:meta])*
                $field:ident: $ty:ty $(= $label:literal $(if $shown:ident)?)?,
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
                $( $crate::counters::Counter::add(&mut self.$field, &other.$field); )*
            }

            /// The counters a report shows, with their labels, in declaration order.
            pub fn labelled(&self) -> Vec<(&'static str, u64)> {
                #[allow(unused_mut)]
                let mut rows = Vec::new();
                $($(
                    if true $(&& self.$shown())? {
                        rows.push(($label, $crate::counters::Shown::shown(&self.$field)));
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
            inner: Inner,
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
        };
        let mut sum = one;
        sum.add(&one);
        let expected = Sample {
            plain: 2,
            hidden: 4,
            time: Duration::from_millis(6),
            pair: [8, 10],
            inner: Inner { hits: 12 },
        };
        assert_eq!(sum, expected);
        assert_eq!(sum.labelled(), [("plain", 2), ("time ms", 6)]);
        assert_eq!(Sample::default().labelled(), [("plain", 0)]);
        assert_eq!(sum.inner.labelled(), [("inner hits", 12)]);
    }
}
