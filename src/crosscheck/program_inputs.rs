//! What a program check's path was given, as its test records and its rows show it: the
//! concrete contents of each symbolic input under a model (a stat object pinned to the
//! model's usual values but for what the model chose), and the bytes the inputs preferably
//! hold.

use super::classes::quote;
use crate::env_options::{role, Role};
use crate::exec::State;
use crate::expr::Assignment;
use crate::report::InputValue;

/// The bytes the path's inputs preferably hold: each stat object the model's usual values
/// (`env_options::pinned_stat_named`, which the model's `klee_prefer_cex` asks for), so that
/// a test's preferences usually need no query.
pub(super) fn preferred_bytes(state: &State) -> Vec<(crate::expr::ArrayId, u32, u8)> {
    state
        .inputs
        .iter()
        .zip(pinned_stats(state))
        .filter_map(|(input, pinned)| Some((input.array, pinned?)))
        .flat_map(|(array, stat)| (0u32..).zip(stat).map(move |(i, b)| (array, i, b)))
        .collect()
}

/// For each input of the path, in order, the model's pinned stat object when it is a stat
/// object of the usual size (`env_options::pinned_stat_named`, sized by the file's bytes,
/// the input before it).
fn pinned_stats(
    state: &State,
) -> impl Iterator<Item = Option<[u8; crate::env_options::STAT_SIZE]>> + '_ {
    let sizes = std::iter::once(0).chain(state.inputs.iter().map(|i| u64::from(i.size)));
    state.inputs.iter().zip(sizes).map(|(input, data_size)| {
        crate::env_options::pinned_stat_named(&input.name, data_size)
            .filter(|s| s.len() == input.size as usize)
    })
}

/// The concrete contents of every symbolic object of the path under `model`.
pub(super) fn inputs_of(state: &State, model: &Assignment) -> Vec<InputValue> {
    state
        .inputs
        .iter()
        .zip(pinned_stats(state))
        .map(|(input, pinned)| {
            // A stat object is pinned by the model (harness/posix/env.c) but for its
            // permission bits and times, which the model's values give; the test records
            // them as the model used them.
            let bytes: Vec<u8> = (0..input.size)
                .map(|i| model.byte(input.array, i))
                .collect();
            let bytes = match pinned {
                Some(stat) => crate::env_options::stat_of_model(stat, &bytes).to_vec(),
                None => bytes,
            };
            let display = match role(&input.name) {
                Role::Arg => {
                    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
                    quote(&bytes[..end])
                }
                Role::Stdin | Role::File(_) => quote(&bytes),
                // A stat object: its mode, size and modification time, not 144 bytes.
                Role::FileStat(_) | Role::StdinStat if bytes.len() >= 96 => {
                    let at = |k: usize| {
                        let mut b = [0u8; 8];
                        b.copy_from_slice(&bytes[k..k + 8]);
                        i64::from_le_bytes(b)
                    };
                    let mode = at(24) as u32;
                    format!("mode {mode:o} size {} mtime {}", at(48), at(88))
                }
                _ if input.size == 4 => {
                    i32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]).to_string()
                }
                _ => quote(&bytes),
            };
            InputValue {
                name: input.name.clone(),
                bytes,
                display,
            }
        })
        .collect()
}
