//! Every integration test in one binary: linking LLVM, Bitwuzla and Z3 once instead of once
//! per file. Each module is one area; `cargo test --release --test it AREA::` runs one of them.
//! `ktest_fuzz` installs a counting global allocator for the whole binary; it only measures
//! on the thread that asks it to, so the other tests are not affected.

mod assume_c;
mod automerge;
mod bad_input;
mod buffers;
mod cli;
mod common;
mod config_file;
mod corpus;
mod dirpipe;
mod equiv_pairs;
mod expr_props;
mod filestat;
mod float;
mod float80;
mod gate;
mod html;
mod induction;
mod intrinsics;
mod jump;
mod klee_harness;
mod ktest_format;
mod ktest_fuzz;
mod lib_gate;
mod libm;
mod limits;
mod llvm19;
mod lowering;
mod musl_link;
mod native_fn;
mod oracles;
mod poison;
mod programs;
mod reports;
mod shard;
mod solver_queries;
mod stdout_fn;
mod suite;
mod summaries;
mod symalloc;
mod three_way;
mod tidy;
mod traps;
mod trust;
mod verdicts;
mod wide;
mod wide_vector;
