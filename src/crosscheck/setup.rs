//! Setting up a function-level check: matching the two entry points, making the symbolic
//! (or, for replay, concrete) arguments, and applying the preconditions.

use super::check::{BufferOffset, FunctionCheck, BUFFER_ALIGN};
use super::float::FpEquality;
use super::globals::GlobalPlan;
use super::precondition::{self, Binding};
use crate::assume::{parse_assume, AssumeExpr, CType};
use crate::error::{Error, Result};
use crate::exec::memory::{Growth, ObjectKind, ObjectState};
use crate::exec::state::SymbolicInput;
use crate::exec::{Executor, State, Value};
use crate::expr::{ExprId, ExprPool};
use crate::ir::{FuncId, Module, ParamPass, Side, SourceType, PTR_WIDTH};
use crate::ktest::{KTest, KTestObject};
use crate::report::InputValue;

/// One parameter of the checked pair.
#[derive(Clone, Debug)]
pub struct ParamSpec {
    /// Source name (from A, else B), or `argN`.
    pub name: String,
    /// Width of the parameter itself (64 for a pointer).
    pub width: u32,
    /// Whether the parameter is a `float` (32 bits) or a `double` (64 bits).
    pub float: bool,
    /// For a pointer parameter: the size of the buffer it points to (at first: see `cap`).
    pub buffer: Option<u32>,
    /// For a buffer that grows on demand, the most bytes it may grow to (`--buffer-cap`):
    /// one whose size no type or `--buffer-size NAME=N` fixed. Byte `k` of the grown
    /// buffer is byte `k` of the parameter's input.
    pub cap: Option<u32>,
    /// Whether the buffer's final contents are part of the result (not for a `byval`
    /// struct, which is the callee's private copy).
    pub compared: bool,
    /// The C type debug information gives the parameter (A's, else B's), if any.
    pub source_type: Option<SourceType>,
    /// For a buffer passed as a plain pointer under `--buffer-offset`: where it starts
    /// within a [`BUFFER_ALIGN`]-byte boundary. Its object then holds `BUFFER_ALIGN` bytes
    /// before the buffer's (an input too), and the pointer is the object's address plus the
    /// offset, an input named `NAME.offset`.
    pub offset: Option<BufferOffset>,
    /// Under `--alias`: the parameter whose object this buffer shares, and its own size.
    pub alias: Option<Alias>,
}

/// A buffer in a group of pointer parameters that point into one object (`--alias`): the
/// first of the group's object holds all their bytes (`ParamSpec::buffer` is its size, the
/// sum of theirs), and each points into it at an offset of its own, an input
/// (`NAME.offset`, 4 bytes) at which its `own` bytes fit: they may coincide, overlap or lie
/// apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Alias {
    /// The index of the group's first parameter, whose object the group shares.
    pub leader: usize,
    /// The buffer's own size.
    pub own: u32,
}

impl Alias {
    /// The most an offset into an object of `total` bytes may be.
    pub fn most(&self, total: u32) -> u32 {
        total.saturating_sub(self.own)
    }
}
/// The suffix of the test object that holds a buffer's start offset (`--buffer-offset`).
pub const OFFSET_SUFFIX: &str = ".offset";

impl ParamSpec {
    /// How `--assume` reads a scalar parameter: `float` or `double` for a floating-point
    /// one (by its LLVM type); its C type when debug information gives an integer type of
    /// the parameter's width, else a signed integer of that width (`int` for 32 bits); and
    /// whether that reading is a guess.
    pub fn assume_type(&self) -> (CType, bool) {
        if self.float {
            return (CType::Float { bits: self.width }, false);
        }
        match &self.source_type {
            Some(SourceType::Int { bits, signed, .. }) if *bits == self.width => (
                CType::Int {
                    bits: *bits,
                    signed: *signed,
                },
                false,
            ),
            _ => (
                CType::Int {
                    bits: self.width,
                    signed: self.width > 1,
                },
                true,
            ),
        }
    }

    /// How `--assume` reads the elements of a buffer parameter: the pointee's integer type,
    /// `float` or `double` when debug information gives one, else bytes as `unsigned char`;
    /// and whether that reading is a guess.
    pub fn element_type(&self) -> (CType, bool) {
        match &self.source_type {
            Some(SourceType::Pointer(Some(p))) => match &**p {
                SourceType::Int { bits, signed, .. } if bits % 8 == 0 || *bits == 1 => (
                    CType::Int {
                        bits: *bits,
                        signed: *signed,
                    },
                    false,
                ),
                SourceType::Float { bits, .. } if *bits == 32 || *bits == 64 => {
                    (CType::Float { bits: *bits }, false)
                }
                _ => (UCHAR, true),
            },
            _ => (UCHAR, true),
        }
    }
}

impl ParamSpec {
    /// A buffer's bytes as its elements' type shows them (`long *`: longs, from debug
    /// information), else as a string.
    pub fn display_buffer(&self, bytes: &[u8]) -> String {
        self.typed_elements()
            .and_then(|ty| super::show::display_elements(bytes, ty))
            .unwrap_or_else(|| super::show::display_buffer(bytes))
    }

    /// The type of a buffer's elements when debug information gives it.
    pub fn typed_elements(&self) -> Option<CType> {
        match self.element_type() {
            (ty, false) => Some(ty),
            (_, true) => None,
        }
    }
}

const UCHAR: CType = CType::Int {
    bits: 8,
    signed: false,
};

impl ParamSpec {
    /// Bytes of the symbolic object that stands for this parameter: a buffer's and, under
    /// `--buffer-offset`, the [`BUFFER_ALIGN`] bytes before it ([`ParamSpec::lead`]).
    pub fn object_size(&self) -> u32 {
        match self.buffer {
            Some(n) => n + self.lead(),
            None => self.width.div_ceil(8),
        }
    }

    /// Bytes of the buffer's object before the buffer may start (`--buffer-offset`).
    pub fn lead(&self) -> u32 {
        if self.offset.is_some() {
            BUFFER_ALIGN
        } else {
            0
        }
    }
}

/// The matched entry points.
#[derive(Clone, Debug)]
pub struct Signature {
    pub a: FuncId,
    pub b: FuncId,
    pub params: Vec<ParamSpec>,
    pub ret_width: Option<u32>,
    /// Whether the entry points return a pointer (compared relative to the buffers).
    pub ret_is_pointer: bool,
    /// Whether the entry points return a `float` or `double` (compared as `--fp-equal`
    /// says).
    pub ret_is_float: bool,
    /// The `float`/`double` fields of a returned aggregate (`ir::Function::ret_float_fields`),
    /// each compared as `--fp-equal` says.
    pub ret_float_fields: Vec<(u32, u32)>,
    /// The globals the pair can reach: inputs, compared, and what the report says.
    pub globals: GlobalPlan,
    /// A's function type as LLVM prints it (`i32 (ptr, i32)`): native replay calls only
    /// functions whose parameters and result are scalars.
    pub type_text: String,
    /// When two floating-point return values count as equal.
    pub fp_equality: FpEquality,
    /// How each side's stdout is flushed when the side ends (A, B), for sides that link
    /// musl's stdout.
    pub stdout: [Option<StdoutFlush>; 2],
}

/// What flushes one side's stdout at its end: musl's `__stdout_write(&__stdout_FILE, 0, 0)`,
/// the side's own copies (`load/libm.rs` links them with `printf`, `puts`…), which writes
/// out the bytes the FILE holds as `fflush(stdout)` would (musl buffers stdout fully when
/// it is no terminal: `exec/posix.rs`'s `ioctl` says it is none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StdoutFlush {
    pub write: FuncId,
    /// The address of the side's `__stdout_FILE`.
    pub file: u64,
}

/// The flush of `side`'s stdout, when the side links musl's stdout.
fn stdout_flush(module: &Module, side: Side) -> Option<StdoutFlush> {
    let write = module
        .function_on_side(side, "__stdout_write")
        .filter(|&f| !module.function(f).is_declaration())?;
    let file = module
        .globals
        .iter()
        .find(|g| g.side == side && g.source_name == "__stdout_FILE" && !g.is_external)?;
    Some(StdoutFlush {
        write,
        file: file.address,
    })
}

/// Finds both entry points and checks that their types agree.
pub fn signature(module: &Module, check: &FunctionCheck) -> Result<Signature> {
    let find = |side: Side, name: &str, path: &std::path::Path| -> Result<FuncId> {
        // The side's own functions, not the math functions linked into it from musl.
        let own =
            |f: &crate::ir::Function| !f.is_declaration() && !module.library.contains(&f.name);
        let id = module
            .function_on_side(side, name)
            .filter(|&f| own(module.function(f)));
        id.ok_or_else(|| {
            let mut defined: Vec<&str> = module
                .functions
                .iter()
                .filter(|f| f.side == side && own(f))
                .map(|f| f.source_name.as_str())
                .collect();
            defined.sort_unstable();
            let list = if defined.is_empty() {
                "none".to_string()
            } else {
                defined.join(", ")
            };
            Error::input(
                path,
                format!("no function '{name}' is defined here (defined: {list})"),
            )
        })
    };
    let a = find(Side::A, &check.a_name, &check.a_path)?;
    let b = find(Side::B, &check.b_name, &check.b_path)?;
    let (fa, fb) = (module.function(a), module.function(b));
    let shape = |f: &crate::ir::Function| -> Vec<(u32, bool, bool)> {
        f.params
            .iter()
            .map(|p| (p.width, p.is_pointer, p.float))
            .collect()
    };
    if shape(fa) != shape(fb)
        || fa.ret_width != fb.ret_width
        || fa.ret_is_pointer != fb.ret_is_pointer
        || fa.ret_is_float != fb.ret_is_float
        || fa.is_var_arg
        || fb.is_var_arg
    {
        return Err(Error::input(
            &check.b_path,
            format!(
                "signature of '{}' ({}) does not match '{}' in {} ({})",
                check.b_name,
                fb.signature,
                check.a_name,
                check.a_path.display(),
                fa.signature
            ),
        ));
    }
    let mut params = Vec::new();
    let mut direct = Vec::new();
    for (i, (pa, pb)) in fa.params.iter().zip(&fb.params).enumerate() {
        let name = pa
            .name
            .clone()
            .or_else(|| pb.name.clone())
            .unwrap_or_else(|| format!("arg{i}"));
        let mut cap = None;
        let mut offset = None;
        let buffer = if pa.is_pointer {
            let explicit = check
                .param_sizes
                .iter()
                .find(|(n, _)| *n == name || *n == format!("arg{i}"))
                .map(|&(_, s)| s);
            // The pointee's size when it is an aggregate (a pointer to a scalar may point
            // into an array) or the type of a `byval`/`sret` slot, whatever it is; a struct
            // ending in a flexible array member gets `--buffer-size` bytes for the array.
            let known_size = (!pa.pointee_is_scalar || pa.pass != ParamPass::Direct)
                .then_some(pa.pointee_size)
                .flatten()
                .filter(|&s| s > 0)
                .map(|s| {
                    let array = if pa.pointee_open {
                        u64::from(check.buffer_size)
                    } else {
                        0
                    };
                    u32::try_from(s + array).unwrap_or(u32::MAX)
                });
            let size = explicit.or(known_size).unwrap_or(check.buffer_size);
            if size == 0 {
                return Err(Error::Usage(format!(
                    "buffer size of '{name}' must be at least 1"
                )));
            }
            let open = known_size.is_none() || pa.pointee_open;
            if explicit.is_none() && open && check.buffer_cap > size {
                cap = Some(check.buffer_cap);
            }
            // A `byval`/`sret` slot is the compiler's, aligned for its type.
            if pa.pass == ParamPass::Direct && pb.pass == ParamPass::Direct {
                offset = check.buffer_offset;
            }
            Some(size)
        } else {
            None
        };
        let compared = pa.pass != ParamPass::ByVal && pb.pass != ParamPass::ByVal;
        params.push(ParamSpec {
            name,
            width: pa.width,
            float: pa.float,
            buffer,
            cap,
            compared,
            source_type: pa.source_type.clone().or_else(|| pb.source_type.clone()),
            offset,
            alias: None,
        });
        direct.push(pa.pass == ParamPass::Direct && pb.pass == ParamPass::Direct);
    }
    if let Some(names) = &check.alias {
        group_aliases(check, &mut params, &direct, names)?;
    }
    for (name, _) in &check.param_sizes {
        let known = params
            .iter()
            .enumerate()
            .any(|(i, p)| p.name == *name || format!("arg{i}") == *name);
        if !known {
            return Err(Error::Usage(format!(
                "--buffer-size {name}=…: '{}' has no parameter named '{name}'",
                check.a_name
            )));
        }
    }
    Ok(Signature {
        a,
        b,
        params,
        ret_width: fa.ret_width,
        ret_is_pointer: fa.ret_is_pointer,
        ret_is_float: fa.ret_is_float,
        ret_float_fields: fa.ret_float_fields.clone(),
        fp_equality: check.fp_equality,
        globals: super::globals::plan(module, a, b, check.globals),
        type_text: fa.signature.clone(),
        stdout: [Side::A, Side::B].map(|side| stdout_flush(module, side)),
    })
}

/// Puts the plain pointer parameters `names` (all of them when empty) into one object
/// (`--alias`, [`Alias`]).
fn group_aliases(
    check: &FunctionCheck,
    params: &mut [ParamSpec],
    direct: &[bool],
    names: &[String],
) -> Result<()> {
    for n in names {
        if !params.iter().any(|p| p.name == *n) {
            return Err(Error::Usage(format!(
                "--alias {n}: '{}' has no parameter named '{n}'",
                check.a_name
            )));
        }
    }
    let members: Vec<usize> = (0..params.len())
        .filter(|&i| params[i].buffer.is_some() && direct[i])
        .filter(|&i| names.is_empty() || names.contains(&params[i].name))
        .collect();
    if members.len() < 2 && names.is_empty() {
        // `--alias` over a whole library: a function with fewer than two pointer
        // parameters has nothing to alias.
        return Ok(());
    }
    if members.len() < 2 {
        return Err(Error::Usage(format!(
            "--alias: '{}' needs two pointer parameters to alias, it has {}",
            check.a_name,
            members.len()
        )));
    }
    if check.buffer_offset.is_some() {
        return Err(Error::Usage(
            "--alias and --buffer-offset do not go together (an aliased buffer's offset is already an input)".into(),
        ));
    }
    let leader = members[0];
    let total: u32 = members.iter().filter_map(|&i| params[i].buffer).sum();
    for &i in &members {
        let own = params[i].buffer.unwrap_or(0);
        params[i].alias = Some(Alias { leader, own });
        params[i].cap = None;
    }
    params[leader].buffer = Some(total);
    params[leader].cap = (check.buffer_cap > total).then_some(check.buffer_cap);
    Ok(())
}

/// Parses every `--assume` text, naming the one at fault.
pub fn parse_preconditions(texts: &[String]) -> Result<Vec<AssumeExpr>> {
    texts
        .iter()
        .map(|t| {
            parse_assume(t).map_err(|e| Error::Usage(format!("--assume '{}': {e}", shorten(t))))
        })
        .collect()
}

/// What a function check can be checked for before it runs: both functions exist with one
/// shape, and every precondition parses and names parameters of theirs (by name or as
/// `argN`). A gate checks all its checks this way before it runs any.
pub fn validate(module: &Module, check: &FunctionCheck) -> Result<()> {
    let sig = signature(module, check)?;
    for e in parse_preconditions(&check.assumes)? {
        for name in e.vars() {
            let by_position = name
                .strip_prefix("arg")
                .and_then(|n| n.parse::<usize>().ok())
                .is_some_and(|n| n < sig.params.len());
            if !by_position && !sig.params.iter().any(|p| p.name == name) {
                let names: Vec<&str> = sig.params.iter().map(|p| p.name.as_str()).collect();
                return Err(Error::Usage(format!(
                    "--assume '{}': unknown parameter '{name}' (parameters: {})",
                    shorten(&e.c_syntax()),
                    if names.is_empty() {
                        "none".to_string()
                    } else {
                        names.join(", ")
                    }
                )));
            }
        }
    }
    Ok(())
}

/// An expression as echoed in a message: at most 60 characters.
pub fn shorten(text: &str) -> String {
    const KEEP: usize = 60;
    if text.chars().count() <= KEEP {
        return text.to_string();
    }
    let head: String = text.chars().take(KEEP).collect();
    format!("{head}… ({} characters)", text.chars().count())
}

/// What the report says about buffers whose size is not one type's: a struct ending in a
/// flexible array member gets its own bytes plus `--buffer-size` bytes for the array.
pub fn buffer_notes(module: &Module, signature: &Signature) -> Vec<String> {
    let ir = &module.function(signature.a).params;
    signature
        .params
        .iter()
        .zip(ir)
        .filter(|(_, p)| p.pointee_open)
        .filter_map(|(spec, p)| {
            let size = spec.buffer?;
            let own = p.pointee_size?;
            Some(format!(
                "buffer '{}': {size} bytes, the struct's {own} and {} for the flexible array member at its end (--buffer-size {}=N sets the whole)",
                spec.name,
                u64::from(size).saturating_sub(own),
                spec.name
            ))
        })
        .collect()
}

/// How the preconditions read the parameters they name, where debug information did not
/// say: one note per guessed parameter.
pub fn reading_notes(sig: &Signature, preconditions: &[AssumeExpr]) -> Vec<String> {
    let mut named: Vec<&str> = Vec::new();
    for e in preconditions {
        for v in e.vars() {
            if !named.contains(&v) {
                named.push(v);
            }
        }
    }
    let mut notes = Vec::new();
    for (i, p) in sig.params.iter().enumerate() {
        if !named
            .iter()
            .any(|n| *n == p.name || *n == format!("arg{i}"))
        {
            continue;
        }
        let (ty, guessed, what) = match p.buffer {
            Some(_) => {
                let (t, g) = p.element_type();
                (t, g, "the elements of")
            }
            None => {
                let (t, g) = p.assume_type();
                (t, g, "")
            }
        };
        if guessed {
            notes.push(format!(
                "--assume reads {what}{}'{}' as {} (no integer type in debug information; compile with -g)",
                if what.is_empty() { "" } else { " " },
                p.name,
                ty.name()
            ));
        }
    }
    notes
}

/// Where argument values come from.
pub enum Inputs<'k> {
    /// Fresh symbolic arrays, one per parameter.
    Symbolic,
    /// The bytes of a test's objects (matched by name, else by position).
    Concrete(&'k KTest),
}

/// The arguments as side A receives them, and what B needs to receive the same.
#[derive(Clone, Debug)]
pub struct Arguments {
    /// Values passed to A (pointers are A's buffers).
    pub values: Vec<Value>,
    /// The initial bytes of each parameter's object.
    pub bytes: Vec<Vec<Value>>,
    /// For each parameter whose buffer grows on demand, how (`memory::Growth`).
    pub growth: Vec<Option<Growth>>,
    /// For each parameter under `--buffer-offset`, where its buffer starts in its object.
    pub offsets: Vec<Option<Value>>,
    /// A's object of each buffer parameter, in order.
    pub bases: Vec<u64>,
    /// The initial bytes of each compared global (`Signature::globals`), the same on both
    /// sides when it is an input.
    pub globals: Vec<Vec<Value>>,
}

/// The state that calls A with the arguments, and the arguments.
pub fn initial_state(
    ex: &mut Executor<'_>,
    sig: &Signature,
    inputs: Inputs<'_>,
    preconditions: &[AssumeExpr],
) -> Result<(State, Arguments)> {
    let pool = ex.pool;
    let mut state = ex.initial_state();
    let mut args = Arguments {
        values: Vec::new(),
        bytes: Vec::new(),
        growth: Vec::new(),
        offsets: Vec::new(),
        bases: Vec::new(),
        globals: Vec::new(),
    };
    for g in &sig.globals.shared {
        let bytes: Vec<Value> = if !g.input {
            Vec::new()
        } else {
            match &inputs {
                Inputs::Symbolic => {
                    let array = pool.new_array(&g.object_name(), g.size);
                    let info = pool.array_info(array);
                    state.inputs.push(SymbolicInput {
                        array,
                        name: info.name,
                        size: g.size,
                    });
                    (0..g.size)
                        .map(|k| Value::Sym(pool.sym(array, k)))
                        .collect()
                }
                // A test without the global's object (an older test) keeps the initializer.
                Inputs::Concrete(ktest) => {
                    match ktest.objects.iter().find(|o| o.name == g.object_name()) {
                        Some(o) if o.bytes.len() == g.size as usize => o
                            .bytes
                            .iter()
                            .map(|&b| Value::concrete(8, b as u128))
                            .collect(),
                        Some(o) => {
                            return Err(Error::Usage(format!(
                                "test object '{}' has {} bytes, global '{}' needs {}",
                                o.name,
                                o.bytes.len(),
                                g.name,
                                g.size
                            )))
                        }
                        None => Vec::new(),
                    }
                }
            }
        };
        for address in [g.a, g.b] {
            if let Some(contents) = state.memory.get_mut(address) {
                for (k, b) in bytes.iter().enumerate() {
                    contents.set_byte(pool, k, *b);
                }
            }
        }
        args.globals.push(bytes);
    }
    for (i, p) in sig.params.iter().enumerate() {
        let size = p.object_size();
        let mut growth = None;
        let lead = p.lead();
        if let Some(alias) = p.alias.filter(|a| a.leader != i) {
            // The group's object is its first parameter's.
            let leader = &sig.params[alias.leader];
            let offset = alias_offset(ex, &mut state, p, alias, leader, &inputs)?;
            let base = args.bases[buffer_index(sig, alias.leader)];
            args.values.push(at_offset(ex, base, Some(offset)));
            args.bytes.push(args.bytes[alias.leader].clone());
            args.growth.push(args.growth[alias.leader]);
            args.offsets.push(Some(offset));
            args.bases.push(base);
            continue;
        }
        let bytes: Vec<Value> = match &inputs {
            Inputs::Symbolic => {
                // A buffer that grows has an input of its cap, of which it uses a prefix.
                let array = pool.new_array(&p.name, p.cap.map_or(size, |c| c + lead));
                let info = pool.array_info(array);
                state.inputs.push(SymbolicInput {
                    array,
                    name: info.name,
                    size,
                });
                growth = p.cap.map(|cap| Growth {
                    array,
                    cap: u64::from(cap + lead),
                });
                (0..size).map(|k| Value::Sym(pool.sym(array, k))).collect()
            }
            Inputs::Concrete(ktest) => {
                let object = ktest
                    .objects
                    .iter()
                    .find(|o| o.name == p.name)
                    .or_else(|| ktest.objects.get(i));
                let object = object.ok_or_else(|| {
                    Error::Usage(format!("test has no object for parameter '{}'", p.name))
                })?;
                // A test of a buffer that grew has its grown bytes.
                let fits = match p.cap {
                    Some(cap) => (size..=cap + lead).contains(&(object.bytes.len() as u32)),
                    None => object.bytes.len() == size as usize,
                };
                if !fits {
                    return Err(Error::Usage(format!(
                        "test object '{}' has {} bytes, parameter '{}' needs {size}",
                        object.name,
                        object.bytes.len(),
                        p.name
                    )));
                }
                object
                    .bytes
                    .iter()
                    .map(|&b| Value::concrete(8, b as u128))
                    .collect()
            }
        };
        let offset = match (p.offset, p.alias) {
            (_, Some(alias)) => Some(alias_offset(ex, &mut state, p, alias, p, &inputs)?),
            (None, None) => {
                if let Inputs::Concrete(ktest) = &inputs {
                    let name = format!("{}{OFFSET_SUFFIX}", p.name);
                    if ktest.objects.iter().any(|o| o.name == name) {
                        return Err(Error::Usage(format!(
                            "the test has an object '{name}': it was made with --buffer-offset, which its replay needs too"
                        )));
                    }
                }
                None
            }
            (Some(how), None) => Some(start_offset(ex, &mut state, p, how, &inputs)?),
        };
        let value = match p.buffer {
            Some(_) => {
                let address = make_buffer(ex, &mut state, &p.name, &bytes, growth);
                args.bases.push(address);
                at_offset(ex, address, offset)
            }
            None => scalar_of(ex, &bytes, p.width),
        };
        args.offsets.push(offset);
        args.values.push(value);
        args.bytes.push(bytes);
        args.growth.push(growth);
    }
    if !preconditions.is_empty() {
        let lookup = |name: &str| -> Option<Binding> {
            let index = sig.params.iter().position(|p| p.name == name).or_else(|| {
                name.strip_prefix("arg")
                    .and_then(|n| n.parse::<usize>().ok())
                    .filter(|&n| n < sig.params.len())
            })?;
            let p = &sig.params[index];
            Some(match p.buffer {
                Some(_) => Binding::Buffer {
                    bytes: caller_bytes(ex, &args.bytes[index], args.offsets[index], p, sig),
                    elem: p.element_type().0,
                },
                None => Binding::Scalar {
                    value: args.values[index].expr(pool),
                    ty: p.assume_type().0,
                },
            })
        };
        let mut conds: Vec<ExprId> = Vec::new();
        for e in preconditions {
            conds.push(precondition::lower(pool, e, &lookup).map_err(|m| {
                Error::Usage(format!("--assume '{}': {m}", shorten(&e.c_syntax())))
            })?);
        }
        let all = pool.and_all(&conds);
        match ex.check(&state, all) {
            Ok(Some(model)) => {
                state.constraints.add(pool, all, &mut ex.stats.constraints);
                state.model = Some(model);
            }
            Ok(None) => {
                return Err(Error::Usage(
                    "--assume: the preconditions contradict each other".into(),
                ))
            }
            Err(why) => {
                return Err(Error::Usage(format!(
                    "--assume: cannot decide the preconditions: {why}"
                )))
            }
        }
    }
    // What is compared when a side returns: its buffers, then the globals.
    state.buffers = args
        .bases
        .iter()
        .copied()
        .chain(sig.globals.shared.iter().map(|g| g.a))
        .collect();
    ex.push_call(&mut state, sig.a, &args.values, None);
    ex.cover(sig.a, crate::ir::BlockId(0));
    Ok((state, args))
}

/// Where parameter `p`'s buffer starts in its object (`--buffer-offset`): a fresh input
/// below [`BUFFER_ALIGN`] for `any`, else the fixed offset; on replay, the test's.
fn start_offset(
    ex: &mut Executor<'_>,
    state: &mut State,
    p: &ParamSpec,
    how: BufferOffset,
    inputs: &Inputs<'_>,
) -> Result<Value> {
    let pool = ex.pool;
    let name = format!("{}{OFFSET_SUFFIX}", p.name);
    match (inputs, how) {
        (Inputs::Concrete(ktest), _) => {
            let found = ktest.objects.iter().find(|o| o.name == name);
            let k = match (found, how) {
                (Some(o), _) => o.bytes.first().copied().unwrap_or(0),
                (None, BufferOffset::Fixed(k)) => k,
                (None, BufferOffset::Any) => {
                    return Err(Error::Usage(format!("test has no object '{name}'")))
                }
            };
            if u32::from(k) >= BUFFER_ALIGN {
                return Err(Error::Usage(format!(
                    "test object '{name}' is {k}, not an offset below {BUFFER_ALIGN}"
                )));
            }
            Ok(Value::concrete(PTR_WIDTH, u128::from(k)))
        }
        (Inputs::Symbolic, BufferOffset::Fixed(k)) => Ok(Value::concrete(PTR_WIDTH, u128::from(k))),
        (Inputs::Symbolic, BufferOffset::Any) => {
            let array = fresh_input(ex, state, &name, 1);
            let byte = pool.sym(array, 0);
            let below = pool.ult(byte, pool.constant(8, u128::from(BUFFER_ALIGN)));
            state
                .constraints
                .add(pool, below, &mut ex.stats.constraints);
            Ok(Value::from_expr(pool, pool.zext(byte, PTR_WIDTH)))
        }
    }
}

/// Where aliased parameter `p`'s buffer starts in its group's object, whose first
/// parameter is `leader` (`--alias`): a fresh 4-byte input at which its bytes fit; on
/// replay, the test's.
fn alias_offset(
    ex: &mut Executor<'_>,
    state: &mut State,
    p: &ParamSpec,
    alias: Alias,
    leader: &ParamSpec,
    inputs: &Inputs<'_>,
) -> Result<Value> {
    let pool = ex.pool;
    let name = format!("{}{OFFSET_SUFFIX}", p.name);
    let most = alias.most(leader.buffer.unwrap_or(0));
    match inputs {
        Inputs::Concrete(ktest) => {
            let o = ktest
                .objects
                .iter()
                .find(|o| o.name == name && o.bytes.len() == 4)
                .ok_or_else(|| {
                    Error::Usage(format!(
                        "test has no 4-byte object '{name}' (tests of --alias hold each buffer's offset)"
                    ))
                })?;
            let k = u32::from_le_bytes([o.bytes[0], o.bytes[1], o.bytes[2], o.bytes[3]]);
            if k > most {
                return Err(Error::Usage(format!(
                    "test object '{name}' is {k}: '{}' does not fit in the shared object there",
                    p.name
                )));
            }
            Ok(Value::concrete(PTR_WIDTH, u128::from(k)))
        }
        Inputs::Symbolic => {
            let array = fresh_input(ex, state, &name, 4);
            let bytes: Vec<ExprId> = (0..4).map(|k| pool.sym(array, k)).collect();
            let offset = pool.concat_bytes(&bytes);
            let fits = pool.ule(offset, pool.constant(32, u128::from(most)));
            state.constraints.add(pool, fits, &mut ex.stats.constraints);
            Ok(Value::from_expr(pool, pool.zext(offset, PTR_WIDTH)))
        }
    }
}

/// The index among the buffer parameters of parameter `index` (a buffer).
pub fn buffer_index(sig: &Signature, index: usize) -> usize {
    sig.params[..index]
        .iter()
        .filter(|p| p.buffer.is_some())
        .count()
}

/// A fresh input of `size` bytes named `name`, listed on `state`.
fn fresh_input(
    ex: &Executor<'_>,
    state: &mut State,
    name: &str,
    size: u32,
) -> crate::expr::ArrayId {
    let array = ex.pool.new_array(name, size);
    let info = ex.pool.array_info(array);
    state.inputs.push(SymbolicInput {
        array,
        name: info.name,
        size,
    });
    array
}

/// The pointer to a buffer whose object is at `base`: `base`, plus its start offset under
/// `--buffer-offset`.
pub fn at_offset(ex: &Executor<'_>, base: u64, offset: Option<Value>) -> Value {
    let address = Value::concrete(PTR_WIDTH, u128::from(base));
    match offset {
        None => address,
        Some(Value::Con { bits, .. }) => Value::concrete(PTR_WIDTH, u128::from(base) + bits),
        Some(o) => {
            let pool = ex.pool;
            Value::from_expr(pool, pool.add(address.expr(pool), o.expr(pool)))
        }
    }
}

/// The bytes a caller passed in parameter `p`'s buffer, whose object holds `object`, at
/// `offset` in it (`--buffer-offset`, `--alias`): for a symbolic offset, each byte is a
/// choice over the offsets it may be.
fn caller_bytes(
    ex: &Executor<'_>,
    object: &[Value],
    offset: Option<Value>,
    p: &ParamSpec,
    sig: &Signature,
) -> Vec<ExprId> {
    let pool = ex.pool;
    let (n, offsets) = match p.alias {
        Some(alias) => {
            let total = sig.params[alias.leader].buffer.unwrap_or(0);
            (alias.own as usize, alias.most(total) as usize + 1)
        }
        None => (p.buffer.unwrap_or(0) as usize, BUFFER_ALIGN as usize),
    };
    match offset {
        None => object.iter().take(n).map(|v| v.expr(pool)).collect(),
        Some(Value::Con { bits, .. }) => object[bits as usize..bits as usize + n]
            .iter()
            .map(|v| v.expr(pool))
            .collect(),
        Some(o) => {
            let o = o.expr(pool);
            let last = offsets - 1;
            (0..n)
                .map(|k| {
                    (0..last).rev().fold(object[last + k].expr(pool), |acc, c| {
                        let here = pool.eq(o, pool.constant(PTR_WIDTH, c as u128));
                        pool.ite(here, object[c + k].expr(pool), acc)
                    })
                })
                .collect()
        }
    }
}

/// Allocates a parameter buffer holding `bytes`, which grows on demand as `growth` says.
pub fn make_buffer(
    ex: &Executor<'_>,
    state: &mut State,
    name: &str,
    bytes: &[Value],
    growth: Option<Growth>,
) -> u64 {
    let mut contents = ObjectState::zeroed(bytes.len());
    for (i, b) in bytes.iter().enumerate() {
        contents.set_byte(ex.pool, i, *b);
    }
    let address = ex.allocate(
        state,
        bytes.len() as u64,
        ObjectKind::Parameter,
        format!("parameter '{name}'"),
        contents,
    );
    if let Some(growth) = growth {
        state.memory.set_growth(address, growth);
    }
    address
}

/// How long the buffer of parameter `index` is on `state`: the most bytes either side's
/// buffer for it grew to, at least its first size.
pub fn buffer_len(state: &State, args: &Arguments, index: usize) -> usize {
    let first = args.bytes[index].len();
    let Some(growth) = args.growth.get(index).copied().flatten() else {
        return first;
    };
    state
        .memory
        .objects()
        .filter(|(o, _)| o.growth == Some(growth))
        .map(|(o, _)| o.size as usize)
        .fold(first, usize::max)
}

/// Byte `k` of parameter `index`'s input, past its first size for a buffer that grew.
pub fn input_byte(ex: &Executor<'_>, args: &Arguments, index: usize, k: usize) -> Value {
    grown_byte(ex.pool, &args.bytes[index], k, args.growth[index])
}

/// Byte `k` of a buffer holding `bytes`: past them, for a buffer that grows (`growth`), the
/// input's byte there, which the side holding `bytes` never touched.
pub fn grown_byte(pool: &ExprPool, bytes: &[Value], k: usize, growth: Option<Growth>) -> Value {
    match (bytes.get(k), growth) {
        (Some(b), _) => *b,
        (None, Some(g)) => Value::Sym(pool.sym(g.array, k as u32)),
        (None, None) => Value::concrete(8, 0),
    }
}

/// The name of a test's objects that hold the values of undefined behaviour
/// (`exec/undefined.rs`), followed by their index on the path.
pub const UNDEFINED_OBJECT: &str = "undefined.";

/// A scalar parameter's value from its bytes (little-endian).
fn scalar_of(ex: &Executor<'_>, bytes: &[Value], width: u32) -> Value {
    let pool = ex.pool;
    if bytes.iter().all(Value::is_concrete) {
        let bits = bytes
            .iter()
            .rev()
            .fold(0u128, |acc, b| (acc << 8) | b.as_concrete().unwrap_or(0));
        return Value::concrete(width, bits);
    }
    let exprs: Vec<ExprId> = bytes.iter().map(|b| b.expr(pool)).collect();
    let whole = pool.concat_bytes(&exprs);
    Value::from_expr(pool, pool.trunc(whole, width))
}

/// The test for a row's inputs: one object per parameter, named after it, then one per
/// global input (`global.NAME`).
pub fn ktest_of(check: &FunctionCheck, sig: &Signature, inputs: &[InputValue]) -> KTest {
    let object = |name: String, size: u32| {
        let bytes = inputs
            .iter()
            .find(|i| i.name == name)
            .map(|i| i.bytes.clone())
            .unwrap_or_else(|| vec![0; size as usize]);
        KTestObject { name, bytes }
    };
    let objects = sig
        .params
        .iter()
        .enumerate()
        .flat_map(|(i, p)| {
            let offset = match (p.offset, p.alias) {
                (_, Some(_)) => Some(object(format!("{}{OFFSET_SUFFIX}", p.name), 4)),
                (Some(_), None) => Some(object(format!("{}{OFFSET_SUFFIX}", p.name), 1)),
                (None, None) => None,
            };
            // An aliased buffer's bytes are its group's first parameter's.
            let own = p.alias.is_none_or(|a| a.leader == i);
            let bytes = own.then(|| object(p.name.clone(), p.object_size()));
            bytes.into_iter().chain(offset)
        })
        .chain(
            sig.globals
                .shared
                .iter()
                .filter(|g| g.input)
                .map(|g| object(g.object_name(), g.size)),
        )
        .chain(
            inputs
                .iter()
                .filter(|i| i.name.starts_with(UNDEFINED_OBJECT))
                .map(|i| KTestObject {
                    name: i.name.clone(),
                    bytes: i.bytes.clone(),
                }),
        )
        .collect();
    KTest {
        args: vec![
            check.a_path.display().to_string(),
            check.b_path.display().to_string(),
            "--function".into(),
            format!("{}={}", check.a_name, check.b_name),
        ],
        sym_argvs: 0,
        sym_argv_len: 0,
        objects,
    }
}
