//! The engine primitives beneath the POSIX model of `harness/posix/`: recording what a
//! program writes to stdout and stderr, ending it with an exit status or a signal, reading a
//! host file named concretely, counting unmodelled system calls, and the allocator entry
//! points with alignment that musl's bitcode leaves to the engine. Files, descriptors and
//! the symbolic environment are C in the harness; the engine knows nothing of them.

use crate::exec::executor::{offset_plus, Executor, Exit, Offset};
use crate::exec::memory::{ObjectKind, ObjectState};
use crate::exec::state::{State, Termination};
use crate::exec::value::Value;
use crate::ir::{RegId, PTR_WIDTH};
use std::sync::Arc;

/// The functions [`Executor::call_posix_primitive`] implements.
pub(crate) const PRIMITIVES: &[&str] = &[
    "__xc_output",
    "__xc_exit",
    "__xc_exit_signal",
    "__xc_host_file",
    "__xc_note_syscall",
    "aligned_alloc",
    "memalign",
    "posix_memalign",
    "malloc_usable_size",
    "setjmp",
    "_setjmp",
    "sigsetjmp",
    "__sigsetjmp",
    "longjmp",
    "_longjmp",
    "siglongjmp",
];

/// Largest host file `__xc_host_file` reads.
const HOST_FILE_LIMIT: u64 = 1 << 20;

impl<'a> Executor<'a> {
    /// The primitives of this module, by name (see [`PRIMITIVES`]).
    pub(crate) fn call_posix_primitive(
        &mut self,
        name: &str,
        state: State,
        dst: Option<RegId>,
        args: &[Value],
    ) -> Option<State> {
        let next = match name {
            "__xc_output" => self.sp_output(state, args),
            "__xc_exit" => {
                let status = args.first().copied().unwrap_or(Value::concrete(32, 0));
                self.finish(state, Exit::Exited(status));
                None
            }
            "__xc_exit_signal" => {
                let sig = args.first().and_then(|v| v.as_concrete()).unwrap_or(6) as i32;
                self.fail(state, Termination::Signal(sig));
                None
            }
            "__xc_host_file" => self.sp_host_file(state, dst, args),
            "__xc_note_syscall" => {
                let n = args.first().and_then(|v| v.as_concrete()).unwrap_or(0) as i64;
                *self.stats.unmodelled_syscalls.entry(n).or_insert(0) += 1;
                Some(state)
            }
            "aligned_alloc" | "memalign" => self.sp_aligned_alloc(state, dst, args),
            "posix_memalign" => self.sp_posix_memalign(state, dst, args),
            "malloc_usable_size" => {
                let mut state = state;
                let size = args
                    .first()
                    .and_then(|v| v.as_concrete())
                    .and_then(|p| state.memory.get(p as u64).map(|(o, _)| o.size))
                    .unwrap_or(0);
                if let Some(d) = dst {
                    self.set(&mut state, d, Value::concrete(PTR_WIDTH, size as u128));
                }
                Some(state)
            }
            "setjmp" | "_setjmp" | "sigsetjmp" | "__sigsetjmp" | "longjmp" | "_longjmp"
            | "siglongjmp" => {
                self.unsupported(state, &format!("{name} (non-local jumps are not modelled)"));
                None
            }
            _ => {
                self.unsupported(state, &format!("call to undefined function '{name}'"));
                None
            }
        };
        next
    }

    /// A concrete pointer argument, or the path stops as unsupported (with `None`).
    fn pointer_or_stop(
        &mut self,
        state: State,
        args: &[Value],
        i: usize,
        what: &str,
    ) -> Option<(State, u64)> {
        match args.get(i).and_then(|v| v.as_concrete()) {
            Some(v) => Some((state, v as u64)),
            None => {
                self.unsupported(state, &format!("symbolic {what}"));
                None
            }
        }
    }

    /// A concrete size argument (at most 1 GiB), or the path stops as unsupported.
    fn concrete_or_stop(
        &mut self,
        state: State,
        args: &[Value],
        i: usize,
        what: &str,
    ) -> Option<(State, u64)> {
        match args.get(i).and_then(|v| v.as_concrete()) {
            Some(v) if v <= 1 << 30 => Some((state, v as u64)),
            Some(_) => {
                self.unsupported(state, &format!("{what} larger than 1 GiB"));
                None
            }
            None => {
                self.unsupported(state, &format!("symbolic {what}"));
                None
            }
        }
    }

    fn aligned_heap_object(&mut self, state: &mut State, size: u64, align: u64) -> u64 {
        let align = align.max(16).next_power_of_two();
        state.allocator.align_to(align);
        let name = format!("heap object allocated at {}", self.current_loc(state));
        self.allocate(
            state,
            size,
            ObjectKind::Heap,
            name,
            ObjectState::zeroed(size as usize),
        )
    }

    fn sp_aligned_alloc(
        &mut self,
        state: State,
        dst: Option<RegId>,
        args: &[Value],
    ) -> Option<State> {
        let (state, align) = self.concrete_or_stop(state, args, 0, "alignment")?;
        let (mut state, size) = self.concrete_or_stop(state, args, 1, "allocation size")?;
        let address = self.aligned_heap_object(&mut state, size, align);
        if let Some(d) = dst {
            self.set(&mut state, d, Value::concrete(PTR_WIDTH, address as u128));
        }
        Some(state)
    }

    fn sp_posix_memalign(
        &mut self,
        state: State,
        dst: Option<RegId>,
        args: &[Value],
    ) -> Option<State> {
        let (state, out) = self.pointer_or_stop(state, args, 0, "result pointer")?;
        let (state, align) = self.concrete_or_stop(state, args, 1, "alignment")?;
        let (mut state, size) = self.concrete_or_stop(state, args, 2, "allocation size")?;
        let address = self.aligned_heap_object(&mut state, size, align);
        let target = Value::concrete(PTR_WIDTH, out as u128);
        let mut resolved = self.resolve(state, target, 8);
        let (mut state, key, offset) = resolved.pop()?;
        let pointer = Value::concrete(PTR_WIDTH, address as u128);
        self.write(&mut state, key, offset, pointer, 8);
        if let Some(d) = dst {
            self.set(&mut state, d, Value::concrete(32, 0));
        }
        Some(state)
    }

    /// `__xc_output(stream, buf, n)`: appends the n bytes at buf to stream 1 (stdout) or 2
    /// (stderr) of the running program.
    fn sp_output(&mut self, state: State, args: &[Value]) -> Option<State> {
        let stream = match args.first().and_then(|v| v.as_concrete()) {
            Some(1) => 0,
            Some(2) => 1,
            _ => {
                self.unsupported(state, "__xc_output to a stream other than 1 or 2");
                return None;
            }
        };
        // A symbolic size is taken one feasible value at a time (the other values rerun
        // this call), so no input is lost.
        let size = args
            .get(2)
            .copied()
            .unwrap_or(Value::concrete(PTR_WIDTH, 0));
        let (mut state, n) = self.split_on_value(state, size)?;
        let n = n as u64;
        if n == 0 {
            return Some(state);
        }
        if n > 1 << 24 {
            self.unsupported(state, "a single write of more than 16 MiB");
            return None;
        }
        let buf = args
            .get(1)
            .copied()
            .unwrap_or(Value::concrete(PTR_WIDTH, 0));
        let mut resolved = self.resolve(state, buf, n);
        let (s, key, offset) = resolved.pop()?;
        // A symbolic buffer address resolving to several objects: each resolution is a
        // path of its own.
        for (other, k, o) in resolved {
            if let Some(other) = self.append_output(other, k, o, stream, n) {
                self.pending.push(other);
            }
        }
        state = s;
        self.append_output(state, key, offset, stream, n)
    }

    fn append_output(
        &mut self,
        mut state: State,
        key: u64,
        offset: Offset,
        stream: usize,
        n: u64,
    ) -> Option<State> {
        let bytes: Vec<Value> = (0..n)
            .map(|i| self.read(&state, key, offset_plus(self, offset, i), 1))
            .collect();
        Arc::make_mut(&mut state.outputs[stream]).extend(bytes);
        Some(state)
    }

    /// `__xc_host_file(path, &data)`: the size of the host file at a concrete path, with
    /// its bytes in a fresh concrete object written to `*data`; `-errno` on failure.
    fn sp_host_file(&mut self, state: State, dst: Option<RegId>, args: &[Value]) -> Option<State> {
        let (state, path_ptr) = self.pointer_or_stop(state, args, 0, "host file path")?;
        let (state, out) = self.pointer_or_stop(state, args, 1, "host file result pointer")?;
        let path = self.read_c_string(&state, path_ptr).unwrap_or_default();
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
                let address = self.allocate(
                    &mut state,
                    size,
                    ObjectKind::Heap,
                    format!("host file {path}"),
                    ObjectState::from_bytes(bytes),
                );
                let mut resolved = self.resolve(state, Value::concrete(PTR_WIDTH, out as u128), 8);
                let (s, key, offset) = resolved.pop()?;
                state = s;
                self.write(
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
        if let Some(d) = dst {
            self.set(&mut state, d, Value::concrete(64, ret as u64 as u128));
        }
        Some(state)
    }
}
