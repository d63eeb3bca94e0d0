//! Non-local jumps: `setjmp`, `_setjmp`, `sigsetjmp`, `__sigsetjmp` and `longjmp`,
//! `_longjmp`, `siglongjmp` (musl writes them in assembly, so linked bitcode only declares
//! them). `setjmp(buf)` writes into the program's `jmp_buf` a token naming its jump target —
//! the frame that called it, by the frame's serial number ([`Frame::serial`], which forks
//! keep and a later frame at the same depth never reuses), and the instruction after the
//! call — and returns 0. `longjmp(buf, val)` reads the token back, pops the frames above the
//! target as returns would (their stack objects freed, their merge groups left), and resumes
//! after the `setjmp` call with `val == 0 ? 1 : val` as its result. The target lives in the
//! program's memory, not in the state, so forked and merged states, both sides of a
//! crosscheck, a shard's frontier and a concrete replay need nothing else. The signal mask
//! of `sigsetjmp` is not saved: the POSIX model has no signals.

use crate::exec::executor::Executor;
use crate::exec::special::Call;
use crate::exec::state::{Frame, State, Termination};
use crate::exec::value::Value;
use crate::ir::{BlockId, Inst, Predicate};

/// The bytes of the token at the start of a `jmp_buf` (musl's and glibc's are 200 bytes on
/// x86-64; the rest is left as it is).
const TOKEN_BYTES: u32 = 16;

/// The tag in the token's top 16 bits ("XJ"), so that bytes no `setjmp` wrote are told
/// apart from a token.
const TAG: u64 = 0x584a;

/// Bits of a frame's serial number in the token.
const SERIAL_BITS: u32 = 48;

/// Where a `longjmp` resumes: in the frame numbered `serial`, at instruction `pc` (the one
/// after the `setjmp` call) of `block`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Target {
    serial: u64,
    block: BlockId,
    pc: u32,
}

impl Target {
    /// The token's bits: the tag and the serial number in the low 8 bytes, then the block
    /// and the instruction index (`None` if the serial number does not fit).
    fn encode(self) -> Option<u128> {
        (self.serial < 1 << SERIAL_BITS).then(|| {
            let low = (TAG << SERIAL_BITS) | self.serial;
            u128::from(low) | u128::from(self.block.0) << 64 | u128::from(self.pc) << 96
        })
    }

    /// The target a token names (`None`: the bytes are not a token).
    fn decode(bits: u128) -> Option<Target> {
        let low = bits as u64;
        (low >> SERIAL_BITS == TAG).then_some(Target {
            serial: low & ((1 << SERIAL_BITS) - 1),
            block: BlockId((bits >> 64) as u32),
            pc: (bits >> 96) as u32,
        })
    }
}

/// `setjmp(buf)` and its variants: the token of the calling frame's continuation written to
/// `buf`, result 0.
pub(crate) fn setjmp(ex: &mut Executor<'_>, state: State, call: &Call<'_>) -> Option<State> {
    let Some(&buf) = call.args.first() else {
        ex.unsupported(state, &format!("{} without a jmp_buf", call.name));
        return None;
    };
    let frame: &Frame = state.frame();
    let target = Target {
        serial: frame.serial,
        block: frame.block,
        pc: frame.pc as u32,
    };
    let Some(token) = target.encode() else {
        ex.unsupported(state, &format!("{} after 2^48 calls", call.name));
        return None;
    };
    let targets = ex.resolve(state, buf, u64::from(TOKEN_BYTES));
    ex.each_target(targets, |ex, s, key, offset| {
        let mut s = ex.writable(s, key)?;
        ex.write(
            &mut s,
            key,
            offset,
            Value::concrete(128, token),
            TOKEN_BYTES,
        );
        ex.set_result(&mut s, call, Value::concrete(32, 0));
        Some(s)
    })
}

/// `longjmp(buf, val)` and its variants: back to the `setjmp` that filled `buf`.
pub(crate) fn longjmp(ex: &mut Executor<'_>, state: State, call: &Call<'_>) -> Option<State> {
    let (Some(&buf), Some(&val)) = (call.args.first(), call.args.get(1)) else {
        ex.unsupported(
            state,
            &format!("{} without a jmp_buf and a value", call.name),
        );
        return None;
    };
    let targets = ex.resolve(state, buf, u64::from(TOKEN_BYTES));
    ex.each_target(targets, |ex, s, key, offset| {
        let token = ex.read(&s, key, offset, TOKEN_BYTES);
        ex.jump(s, token, val, call.name)
    })
}

impl Executor<'_> {
    /// Resumes `state` at the target `token` names, with `val` (0 read as 1) as the
    /// result of its `setjmp`.
    fn jump(&mut self, mut state: State, token: Value, val: Value, name: &str) -> Option<State> {
        let Some(bits) = token.as_concrete() else {
            self.unsupported(
                state,
                &format!("{name} through a jmp_buf with symbolic bytes"),
            );
            return None;
        };
        let Some(target) = Target::decode(bits) else {
            self.unsupported(state, &format!("{name} through a jmp_buf no setjmp filled"));
            return None;
        };
        let Some(depth) = state.stack.iter().position(|f| f.serial == target.serial) else {
            let message =
                format!("{name} to a setjmp whose function returned (undefined behaviour)");
            let suffix = "exec".into();
            self.fail(state, Termination::Reported { message, suffix });
            return None;
        };
        let func = self.module.function(state.stack[depth].func);
        let call = (target.pc as usize)
            .checked_sub(1)
            .and_then(|i| func.blocks.get(target.block.index())?.insts.get(i));
        let Some(Inst::Call { dst, .. }) = call else {
            self.unsupported(
                state,
                &format!("{name} through a jmp_buf that names no call"),
            );
            return None;
        };
        let dst = *dst;
        self.merge_leave_deeper(&mut state, depth + 1);
        for frame in state.stack.unwind_to(depth + 1) {
            for address in frame.allocas {
                state.memory.remove(address);
            }
        }
        let frame = state.frame_mut();
        frame.block = target.block;
        frame.pc = target.pc as usize;
        if let Some(dst) = dst {
            let val = self.resize(val, 32);
            let zero = Value::concrete(32, 0);
            let is_zero = self.compare(Predicate::Eq, val, zero);
            let result = self.select(is_zero, Value::concrete(32, 1), val);
            self.set(&mut state, dst, result);
        }
        Some(state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_names_its_target_and_other_bytes_name_none() {
        let target = Target {
            serial: 77,
            block: BlockId(5),
            pc: 3,
        };
        let bits = target.encode().expect("a small serial fits");
        assert_eq!(Target::decode(bits), Some(target));
        assert_eq!(Target::decode(0), None, "a zeroed jmp_buf holds no token");
        assert_eq!(Target::decode(bits ^ 1 << 60), None, "the tag is checked");
        let last = Target {
            serial: (1 << SERIAL_BITS) - 1,
            ..target
        };
        assert_eq!(last.encode().and_then(Target::decode), Some(last));
        let past = Target {
            serial: 1 << SERIAL_BITS,
            ..target
        };
        assert_eq!(past.encode(), None);
    }
}
