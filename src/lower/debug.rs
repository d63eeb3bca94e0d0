//! Reading debug information: parameters' source names and C types, from the
//! `llvm.dbg.declare`/`llvm.dbg.value` variables of each function; where source files are.

use super::print_value;
use crate::ir::{Param, ParamPass, SourceType};
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;

/// Where the source file `name` of debug location `inst` is: `name` joined to the
/// location's directory when relative.
pub(super) unsafe fn source_path(name: &str, inst: LLVMValueRef) -> String {
    if name.starts_with('/') {
        return name.to_string();
    }
    let mut len = 0u32;
    let dir = LLVMGetDebugLocDirectory(inst, &mut len);
    if dir.is_null() || len == 0 {
        return name.to_string();
    }
    let dir = std::slice::from_raw_parts(dir as *const u8, len as usize);
    format!("{}/{name}", String::from_utf8_lossy(dir))
}

/// Whether `func`'s debug information names a musl source file (a path component `musl`
/// or `musl-VERSION`): the C library a whole program carries.
pub(super) unsafe fn in_c_library(func: LLVMValueRef) -> bool {
    use inkwell::llvm_sys::debuginfo::{
        LLVMDIFileGetDirectory, LLVMDIFileGetFilename, LLVMDIScopeGetFile, LLVMGetSubprogram,
    };
    let sp = LLVMGetSubprogram(func);
    if sp.is_null() {
        return false;
    }
    let file = LLVMDIScopeGetFile(sp);
    if file.is_null() {
        return false;
    }
    let text = |p: *const std::os::raw::c_char, len: u32| {
        if p.is_null() {
            String::new()
        } else {
            String::from_utf8_lossy(std::slice::from_raw_parts(p as *const u8, len as usize))
                .into_owned()
        }
    };
    let (mut n, mut d) = (0u32, 0u32);
    let name = text(LLVMDIFileGetFilename(file, &mut n), n);
    let dir = text(LLVMDIFileGetDirectory(file, &mut d), d);
    format!("{dir}/{name}")
        .split('/')
        .any(|c| c == "musl" || c.starts_with("musl-"))
}

/// A source parameter as debug information describes it: its number (from 1), name and type.
pub(super) struct DebugParam {
    pub(super) arg: usize,
    pub(super) name: String,
    pub(super) ty: Option<SourceType>,
    /// For a pointer: what it points to.
    pub(super) pointee: Option<DiPointee>,
}

/// What a pointer type node of debug information points to.
#[derive(Clone, Copy)]
pub(super) struct DiPointee {
    /// Its size in bytes.
    pub(super) size: u64,
    /// Whether it is a scalar (a basic type, a pointer or an enumeration).
    pub(super) scalar: bool,
    /// Whether it is a struct ending in a flexible array member (`int data[]`).
    pub(super) open: bool,
}

/// Names parameters after their source arguments. Debug info numbers source arguments,
/// which match the IR parameters (less an `sret` one) unless the ABI split a struct over
/// several parameters; then the numbering cannot be trusted and names are left alone.
pub(super) fn assign_debug_names(params: &mut [Param], names: &[DebugParam]) {
    let source: Vec<usize> = (0..params.len())
        .filter(|&i| params[i].pass != ParamPass::StructReturn)
        .collect();
    let consistent = names.len() == source.len() && names.iter().all(|p| p.arg <= source.len());
    if !consistent {
        return;
    }
    for p in names {
        let param = &mut params[source[p.arg - 1]];
        param.name = Some(p.name.clone());
        // Debug information knows a struct pointee's size even when the body only indexes
        // it by bytes; the attributes of `byval`/`sret` parameters already gave theirs.
        if param.is_pointer && param.pass == ParamPass::Direct {
            if let Some(pointee) = p.pointee {
                param.pointee_size = Some(pointee.size);
                param.pointee_is_scalar = pointee.scalar;
                param.pointee_open |= pointee.open;
            }
        }
        // A type whose width disagrees with the IR's (a struct passed in registers) is not
        // the parameter's type.
        param.source_type = p.ty.clone().filter(|t| match t {
            SourceType::Int { bits, .. } => *bits == param.width,
            SourceType::Float { bits, .. } => *bits == param.width && param.float,
            SourceType::Pointer(_) => param.is_pointer,
            SourceType::Other(_) => true,
        });
    }
}

/// Operand `index` of a metadata node, or null when it has fewer operands or that one is
/// empty.
pub(super) unsafe fn md_operand(node: LLVMValueRef, index: u32) -> LLVMValueRef {
    // Only debug-information nodes: `LLVMGetMDNodeNumOperands` must not see a wrapped value.
    if node.is_null() || LLVMIsAMDNode(node).is_null() || !is_di_node(node) {
        return std::ptr::null_mut();
    }
    let n = LLVMGetMDNodeNumOperands(node);
    if index >= n {
        return std::ptr::null_mut();
    }
    let mut ops = vec![std::ptr::null_mut(); n as usize];
    LLVMGetMDNodeOperands(node, ops.as_mut_ptr());
    ops[index as usize]
}

/// Whether a metadata value wraps a debug-information node.
unsafe fn is_di_node(v: LLVMValueRef) -> bool {
    // Printed as `!67 = !DILocalVariable(…)` or `!5 = distinct !DICompositeType(…)`.
    let text = print_value(v);
    let body = text.trim_start_matches("metadata ").trim_start();
    let body = body.split_once(" = ").map_or(body, |(_, node)| node);
    body.trim_start_matches("distinct ").starts_with("!DI")
}

/// The C type a debug-information type node describes, looking through typedefs and
/// qualifiers (at most 16 of them).
pub(super) unsafe fn di_type(node: LLVMValueRef, depth: u32) -> Option<SourceType> {
    if node.is_null() || depth > 16 {
        return None;
    }
    let text = print_value(node);
    let field = |key: &str| di_field(&text, key);
    let name = field("name: ").unwrap_or("?").to_string();
    if text.contains("DIBasicType(") {
        let bits: u32 = field("size: ")?.parse().ok()?;
        let signed = match field("encoding: ")? {
            "DW_ATE_signed" | "DW_ATE_signed_char" => true,
            "DW_ATE_unsigned" | "DW_ATE_unsigned_char" => false,
            "DW_ATE_boolean" => {
                return Some(SourceType::Int {
                    bits: 1,
                    signed: false,
                    name,
                })
            }
            "DW_ATE_float" => return Some(SourceType::Float { bits, name }),
            _ => return Some(SourceType::Other(name)),
        };
        return Some(SourceType::Int { bits, signed, name });
    }
    let tag = field("tag: ").unwrap_or("");
    // DIDerivedType and DICompositeType keep their base type in operand 3.
    let base = || md_operand(node, 3);
    match tag {
        "DW_TAG_typedef"
        | "DW_TAG_const_type"
        | "DW_TAG_volatile_type"
        | "DW_TAG_restrict_type"
        | "DW_TAG_atomic_type" => di_type(base(), depth + 1),
        "DW_TAG_pointer_type" => Some(SourceType::Pointer(
            di_type(base(), depth + 1).map(Box::new),
        )),
        "DW_TAG_enumeration_type" => {
            di_type(base(), depth + 1).or(Some(SourceType::Other(format!("enum {name}"))))
        }
        _ => Some(SourceType::Other(if name == "?" {
            tag.to_string()
        } else {
            name
        })),
    }
}

/// What a pointer type node points to, typedefs and qualifiers looked through on both
/// sides (at most 16 of them).
pub(super) unsafe fn di_pointee(node: LLVMValueRef) -> Option<DiPointee> {
    let pointer = strip_aliases(node, 0)?;
    if di_field(&print_value(pointer), "tag: ")? != "DW_TAG_pointer_type" {
        return None;
    }
    let pointee = strip_aliases(md_operand(pointer, 3), 0)?;
    let text = print_value(pointee);
    let bits: u64 = di_field(&text, "size: ")?.parse().ok()?;
    let scalar = text.contains("DIBasicType(")
        || matches!(
            di_field(&text, "tag: "),
            Some("DW_TAG_pointer_type" | "DW_TAG_enumeration_type")
        );
    let open = di_field(&text, "tag: ") == Some("DW_TAG_structure_type") && ends_open(pointee);
    (bits > 0 && bits.is_multiple_of(8)).then_some(DiPointee {
        size: bits / 8,
        scalar,
        open,
    })
}

/// Whether a struct type node's last member is an array of no size: a flexible array
/// member (`int data[]`, or GNU's `int data[0]`).
unsafe fn ends_open(node: LLVMValueRef) -> bool {
    // DICompositeType's operand 4 is its elements, a tuple of members.
    let elements = md_operand(node, 4);
    if elements.is_null()
        || LLVMIsAMDNode(elements).is_null()
        || !print_value(elements)
            .trim_start_matches("distinct ")
            .contains("!{")
    {
        return false;
    }
    let n = LLVMGetMDNodeNumOperands(elements);
    if n == 0 {
        return false;
    }
    let mut members = vec![std::ptr::null_mut(); n as usize];
    LLVMGetMDNodeOperands(elements, members.as_mut_ptr());
    let last = members[n as usize - 1];
    if last.is_null() || di_field(&print_value(last), "tag: ") != Some("DW_TAG_member") {
        return false;
    }
    let Some(array) = strip_aliases(md_operand(last, 3), 0) else {
        return false;
    };
    let text = print_value(array);
    di_field(&text, "tag: ") == Some("DW_TAG_array_type")
        && matches!(di_field(&text, "size: "), None | Some("0"))
}

/// The node under typedefs and qualifiers.
unsafe fn strip_aliases(node: LLVMValueRef, depth: u32) -> Option<LLVMValueRef> {
    if node.is_null() || depth > 16 {
        return None;
    }
    match di_field(&print_value(node), "tag: ") {
        Some(
            "DW_TAG_typedef"
            | "DW_TAG_const_type"
            | "DW_TAG_volatile_type"
            | "DW_TAG_restrict_type"
            | "DW_TAG_atomic_type",
        ) => strip_aliases(md_operand(node, 3), depth + 1),
        _ => Some(node),
    }
}

/// The value of `key` (such as `"size: "`) in a printed debug-information node.
fn di_field<'t>(text: &'t str, key: &str) -> Option<&'t str> {
    let at = text.find(key)? + key.len();
    let rest = &text[at..];
    let end = rest.find([',', ')']).unwrap_or(rest.len());
    Some(rest[..end].trim().trim_matches('"'))
}

/// Parses `name: "x", arg: 2` out of a printed `DILocalVariable`.
pub(super) fn parse_di_local_variable(text: &str) -> Option<(String, usize)> {
    let start = text.find("DILocalVariable(")?;
    let body = &text[start..];
    let name_at = body.find("name: \"")? + 7;
    let name_end = body[name_at..].find('"')? + name_at;
    let arg_at = body.find("arg: ")? + 5;
    let arg: String = body[arg_at..]
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect();
    Some((body[name_at..name_end].to_string(), arg.parse().ok()?))
}
