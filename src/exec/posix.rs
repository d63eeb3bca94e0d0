//! The engine primitives beneath the POSIX model of `harness/posix/`: recording what a
//! program writes to stdout and stderr, ending it with an exit status or a signal, reading a
//! host file named concretely, counting unmodelled system calls, and the allocator entry
//! points with alignment that musl's bitcode leaves to the engine (`setjmp`/`longjmp`, also
//! assembly in musl, are `jump.rs`). Files, descriptors and
//! the symbolic environment are C in the harness; the engine knows nothing of them. These
//! are handlers of the table in `table.rs`, which names them.

use crate::exec::executor::{offset_plus, Executor, Offset};
use crate::exec::memory::{ObjectKind, ObjectState};
use crate::exec::special::{Call, End};
use crate::exec::state::{State, Termination};
use crate::exec::value::Value;
use crate::ir::PTR_WIDTH;
use std::sync::Arc;

/// Largest host file `__xc_host_file` reads.
const HOST_FILE_LIMIT: u64 = 1 << 20;

/// `__xc_exit_signal(sig)`: the program is killed by a signal (`SIGABRT` if unknown).
pub(crate) fn exit_signal(_: &Executor<'_>, _: &State, call: &Call<'_>) -> End {
    let sig = call.args.first().and_then(|v| v.as_concrete()).unwrap_or(6) as i32;
    End::Fail(Termination::Signal(sig))
}

/// `__xc_note_syscall(n)`: counts a system call the model does not implement.
pub(crate) fn note_syscall(ex: &mut Executor<'_>, state: State, call: &Call<'_>) -> Option<State> {
    let n = call.args.first().and_then(|v| v.as_concrete()).unwrap_or(0) as i64;
    *ex.stats.unmodelled_syscalls.entry(n).or_insert(0) += 1;
    Some(state)
}

/// `malloc_usable_size(p)`: the size of the object at `p` (0 if none).
pub(crate) fn malloc_usable_size(
    ex: &mut Executor<'_>,
    mut state: State,
    call: &Call<'_>,
) -> Option<State> {
    let size = call
        .args
        .first()
        .and_then(|v| v.as_concrete())
        .and_then(|p| state.memory.get(p as u64).map(|(o, _)| o.size))
        .unwrap_or(0);
    ex.set_result(&mut state, call, Value::concrete(PTR_WIDTH, size as u128));
    Some(state)
}

/// `aligned_alloc(align, size)` and `memalign(align, size)`.
pub(crate) fn aligned_alloc(ex: &mut Executor<'_>, state: State, call: &Call<'_>) -> Option<State> {
    let (state, align) = ex.concrete_arg(state, call, 0, "alignment")?;
    let (state, size) = ex.size_arg(state, call, 1)?;
    ex.heap_object(state, call, size, Some(align))
        .map(|(s, _)| s)
}

/// `posix_memalign(&p, align, size)`: the new object's address in `*p`, result 0.
pub(crate) fn posix_memalign(
    ex: &mut Executor<'_>,
    state: State,
    call: &Call<'_>,
) -> Option<State> {
    let (state, out) = ex.concrete_arg(state, call, 0, "result pointer")?;
    let (state, align) = ex.concrete_arg(state, call, 1, "alignment")?;
    let (state, size) = ex.size_arg(state, call, 2)?;
    let result_only = Call { dst: None, ..*call };
    let (state, address) = ex.heap_object(state, &result_only, size, Some(align))?;
    let target = Value::concrete(PTR_WIDTH, out as u128);
    let mut resolved = ex.resolve(state, target, 8);
    let (mut state, key, offset) = resolved.pop()?;
    let pointer = Value::concrete(PTR_WIDTH, address as u128);
    ex.write(&mut state, key, offset, pointer, 8);
    ex.set_result(&mut state, call, Value::concrete(32, 0));
    Some(state)
}

/// `__xc_output(stream, buf, n)`: appends the n bytes at buf to stream 1 (stdout), 2
/// (stderr) or 3 (the record of the files changed) of the running program.
pub(crate) fn output(ex: &mut Executor<'_>, state: State, call: &Call<'_>) -> Option<State> {
    let args = call.args;
    let stream = match args.first().and_then(|v| v.as_concrete()) {
        Some(1) => 0,
        Some(2) => 1,
        Some(3) => 2,
        _ => {
            ex.unsupported(state, "__xc_output to a stream other than 1, 2 or 3");
            return None;
        }
    };
    // A symbolic size is taken one feasible value at a time (the other values rerun
    // this call), so no input is lost.
    let size = args
        .get(2)
        .copied()
        .unwrap_or(Value::concrete(PTR_WIDTH, 0));
    let (state, n) = ex.split_on_value(state, size)?;
    let n = n as u64;
    if n == 0 {
        return Some(state);
    }
    if n > 1 << 24 {
        ex.unsupported(state, "a single write of more than 16 MiB");
        return None;
    }
    let buf = args
        .get(1)
        .copied()
        .unwrap_or(Value::concrete(PTR_WIDTH, 0));
    let mut resolved = ex.resolve(state, buf, n);
    let (state, key, offset) = resolved.pop()?;
    // A symbolic buffer address resolving to several objects: each resolution is a
    // path of its own.
    for (other, k, o) in resolved {
        let other = append_output(ex, other, k, o, stream, n);
        ex.pending.push(other);
    }
    Some(append_output(ex, state, key, offset, stream, n))
}

fn append_output(
    ex: &Executor<'_>,
    mut state: State,
    key: u64,
    offset: Offset,
    stream: usize,
    n: u64,
) -> State {
    let bytes: Vec<Value> = (0..n)
        .map(|i| ex.read(&state, key, offset_plus(ex, offset, i), 1))
        .collect();
    Arc::make_mut(&mut state.outputs[stream]).extend(bytes);
    state
}

/// `__xc_host_file(path, &data)`: the size of the host file at a concrete path, with
/// its bytes in a fresh concrete object written to `*data`; `-errno` on failure.
pub(crate) fn host_file(ex: &mut Executor<'_>, state: State, call: &Call<'_>) -> Option<State> {
    let (state, path_ptr) = ex.concrete_arg(state, call, 0, "host file path")?;
    let (state, out) = ex.concrete_arg(state, call, 1, "host file result pointer")?;
    let path = ex.read_c_string(&state, path_ptr).unwrap_or_default();
    let result = std::fs::metadata(&path).and_then(|m| {
        if m.is_dir() {
            Err(std::io::Error::from_raw_os_error(21))
        } else if !m.is_file() {
            // Devices, FIFOs and sockets are not modelled (reading /dev/zero would never
            // end): opening one fails with EACCES.
            Err(std::io::Error::from_raw_os_error(13))
        } else if m.len() > HOST_FILE_LIMIT {
            Err(std::io::Error::from_raw_os_error(27))
        } else {
            crate::input::read_limited(path.as_ref(), HOST_FILE_LIMIT, "host files")
        }
    });
    let mut state = state;
    let ret = match result {
        Ok(bytes) => {
            let size = bytes.len() as u64;
            let address = ex.allocate(
                &mut state,
                size,
                ObjectKind::Heap,
                format!("host file {path}"),
                ObjectState::from_bytes(bytes),
            );
            let mut resolved = ex.resolve(state, Value::concrete(PTR_WIDTH, out as u128), 8);
            let (s, key, offset) = resolved.pop()?;
            state = s;
            ex.write(
                &mut state,
                key,
                offset,
                Value::concrete(PTR_WIDTH, address as u128),
                8,
            );
            size as i64
        }
        Err(e) => -(e.raw_os_error().unwrap_or(2) as i64),
    };
    ex.set_result(&mut state, call, Value::concrete(64, ret as u64 as u128));
    Some(state)
}
