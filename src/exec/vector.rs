//! Vector instructions: every lane computed with the scalar semantics, lane 0 in the least
//! significant bits (LLVM's little-endian layout, so a vector bitcast is a plain copy).

use crate::exec::executor::Executor;
use crate::exec::state::State;
use crate::exec::value::Value;
use crate::expr::{BinOp, ExprId};
use crate::ir::{FloatOp, Intrinsic, Operand, Predicate, ReduceOp, RegId, VectorOp};

impl<'a> Executor<'a> {
    /// Splits `v` into `lanes` values of `elem` bits.
    pub fn split_lanes(&self, v: Value, lanes: u32, elem: u32) -> Vec<Value> {
        (0..lanes)
            .map(|i| self.extract(v, i * elem, elem))
            .collect()
    }

    /// Joins lanes (lane 0 least significant) into one value.
    pub fn join_lanes(&self, lanes: &[Value], elem: u32) -> Value {
        if lanes.iter().all(Value::is_concrete) {
            let bits = lanes.iter().enumerate().fold(0u128, |acc, (i, v)| {
                acc | (v.as_concrete().unwrap_or(0) << (i as u32 * elem))
            });
            return Value::concrete(lanes.len() as u32 * elem, bits);
        }
        let pool = self.pool;
        let joined: ExprId = lanes
            .iter()
            .skip(1)
            .fold(lanes[0].expr(pool), |acc, v| pool.concat(v.expr(pool), acc));
        self.value(joined)
    }

    pub(crate) fn exec_vector(
        &mut self,
        mut state: State,
        dst: RegId,
        op: VectorOp,
        args: &[Operand],
        lanes: u32,
        elem: u32,
    ) -> Option<State> {
        let split: Vec<Vec<Value>> = args
            .iter()
            .enumerate()
            .map(|(i, &a)| {
                let v = self.operand(&state, a);
                // A select's condition has one bit per lane.
                let w = if op == VectorOp::Select && i == 0 {
                    1
                } else {
                    elem
                };
                self.split_lanes(v, lanes, w)
            })
            .collect();
        let mut out = Vec::with_capacity(lanes as usize);
        for lane in 0..lanes as usize {
            let x = |k: usize| split[k][lane];
            let r = match op {
                VectorOp::Binary(bop) => {
                    if matches!(bop, BinOp::UDiv | BinOp::SDiv | BinOp::URem | BinOp::SRem) {
                        // A lane that traps is immediate undefined behaviour, and x86-64
                        // divides lane by lane with the scalar instruction.
                        state = self.division_traps(state, bop, x(0), x(1))?;
                    }
                    if crate::exec::undefined::is_shift(bop) {
                        self.shift_value(&mut state, bop, x(0), x(1), false)
                    } else {
                        self.binop(bop, x(0), x(1))
                    }
                }
                VectorOp::ICmp(p) => self.compare(p, x(0), x(1)),
                VectorOp::Cast(kind, to) => self.cast(kind, x(0), to),
                VectorOp::Select => self.select(x(0), x(1), x(2)),
                VectorOp::Float(fop, to) => {
                    let lane_args: Vec<Value> = (0..split.len()).map(x).collect();
                    self.float_values(fop, &lane_args, to)
                }
                VectorOp::Intrinsic(kind) => {
                    let lane_args: Vec<Value> = (0..split.len()).map(x).collect();
                    match self.pure_intrinsic(kind, &lane_args, elem) {
                        Ok(v) => v,
                        Err(what) => {
                            self.unsupported(state, &format!("{what} in a vector"));
                            return None;
                        }
                    }
                }
            };
            out.push(r);
        }
        let out_elem = match op {
            VectorOp::ICmp(_)
            | VectorOp::Float(FloatOp::Cmp(_), _)
            | VectorOp::Intrinsic(Intrinsic::FpClass { .. }) => 1,
            VectorOp::Cast(_, to) | VectorOp::Float(_, to) => to,
            _ => elem,
        };
        let joined = self.join_lanes(&out, out_elem);
        self.set(&mut state, dst, joined);
        Some(state)
    }

    /// Lane `index` of `vector`: a case split when the index is symbolic (0 out of range).
    pub(crate) fn exec_extract_element(
        &mut self,
        mut state: State,
        dst: RegId,
        vector: Operand,
        index: Operand,
        elem: u32,
        lanes: u32,
    ) -> Option<State> {
        let v = self.operand(&state, vector);
        let parts = self.split_lanes(v, lanes, elem);
        let r = match self.operand(&state, index) {
            Value::Con { bits, .. } => parts
                .get(bits as usize)
                .copied()
                .unwrap_or(Value::concrete(elem, 0)),
            Value::Sym(i) => {
                let pool = self.pool;
                let w = pool.width(i);
                let mut acc = pool.constant(elem, 0);
                for (k, p) in parts.iter().enumerate().rev() {
                    acc = pool.ite(pool.eq(i, pool.constant(w, k as u128)), p.expr(pool), acc);
                }
                self.value(acc)
            }
        };
        self.set(&mut state, dst, r);
        Some(state)
    }

    pub(crate) fn exec_insert_element(
        &mut self,
        mut state: State,
        dst: RegId,
        vector: Operand,
        value: Operand,
        index: Operand,
        (elem, lanes): (u32, u32),
    ) -> Option<State> {
        let v = self.operand(&state, vector);
        let x = self.operand(&state, value);
        let mut parts = self.split_lanes(v, lanes, elem);
        match self.operand(&state, index) {
            Value::Con { bits, .. } => {
                if let Some(p) = parts.get_mut(bits as usize) {
                    *p = x;
                }
            }
            Value::Sym(i) => {
                let pool = self.pool;
                let w = pool.width(i);
                for (k, p) in parts.iter_mut().enumerate() {
                    let here = self.value(pool.eq(i, pool.constant(w, k as u128)));
                    *p = self.select(here, x, *p);
                }
            }
        }
        let joined = self.join_lanes(&parts, elem);
        self.set(&mut state, dst, joined);
        Some(state)
    }

    pub(crate) fn exec_shuffle(
        &mut self,
        mut state: State,
        dst: RegId,
        a: Operand,
        b: Operand,
        mask: &[Option<u32>],
        (elem, lanes): (u32, u32),
    ) -> Option<State> {
        let va = self.operand(&state, a);
        let vb = self.operand(&state, b);
        let mut all = self.split_lanes(va, lanes, elem);
        all.extend(self.split_lanes(vb, lanes, elem));
        let picked: Vec<Value> = mask
            .iter()
            .map(|m| {
                m.and_then(|i| all.get(i as usize).copied())
                    .unwrap_or(Value::concrete(elem, 0))
            })
            .collect();
        let joined = self.join_lanes(&picked, elem);
        self.set(&mut state, dst, joined);
        Some(state)
    }

    pub(crate) fn exec_reduce(
        &mut self,
        mut state: State,
        dst: RegId,
        (op, start): (ReduceOp, Option<Operand>),
        vector: Operand,
        elem: u32,
        lanes: u32,
    ) -> Option<State> {
        let v = self.operand(&state, vector);
        let parts = self.split_lanes(v, lanes, elem);
        let combine = |ex: &Self, x: Value, y: Value| -> Value {
            let pick = |p: Predicate| {
                let c = ex.compare(p, x, y);
                ex.select(c, x, y)
            };
            match op {
                ReduceOp::Add => ex.binop(BinOp::Add, x, y),
                ReduceOp::Mul => ex.binop(BinOp::Mul, x, y),
                ReduceOp::And => ex.binop(BinOp::And, x, y),
                ReduceOp::Or => ex.binop(BinOp::Or, x, y),
                ReduceOp::Xor => ex.binop(BinOp::Xor, x, y),
                ReduceOp::SMax => pick(Predicate::Sgt),
                ReduceOp::SMin => pick(Predicate::Slt),
                ReduceOp::UMax => pick(Predicate::Ugt),
                ReduceOp::UMin => pick(Predicate::Ult),
                ReduceOp::Ordered(f) => ex.float_values(FloatOp::Binary(f), &[x, y], elem),
            }
        };
        let (first, rest) = match start {
            Some(s) => (self.operand(&state, s), &parts[..]),
            None => (parts[0], &parts[1..]),
        };
        let r = rest.iter().fold(first, |acc, &p| combine(self, acc, p));
        self.set(&mut state, dst, r);
        Some(state)
    }
}
