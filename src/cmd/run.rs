//! `xcheck run harness.bc`: one program whose `main` uses KLEE's interface, explored like
//! KLEE would: a `.ktest` per completed path and per error, with a `.err` file for errors.

use crate::cli::{engine_config, RunArgs};
use crate::error::{Error, Result};
use crate::exec::memory::{ObjectKind, ObjectState};
use crate::exec::{Driver, ExecConfig, Executor, Exit, State, Value};
use crate::expr::ExprPool;
use crate::ir::{Side, PTR_WIDTH};
use crate::ktest::{test_file_name, KTest, KTestObject};
use crate::report::console;
use crate::report::json::JsonLine;
use crate::solver::{build_chain, SolverConfig};
use std::path::{Path, PathBuf};

/// Explores the harness and returns its exit code.
pub(super) fn run(args: RunArgs) -> std::result::Result<i32, crate::cli::Quit> {
    let (exec, solver) = engine_config(&args.engine, &args.output_dir)?;
    let s = run_harness(&args.program, exec, &solver, &args.output_dir)?;
    let result = s.result();
    if args.json {
        let line = JsonLine::run(&args.program, &args.output_dir, &result, s.exit_code());
        println!("{}", line.render());
    } else {
        print!("{}", console::render_run(&result, &args.output_dir));
    }
    Ok(s.exit_code())
}

/// What one `run` found.
#[derive(Debug, Default)]
pub struct RunSummary {
    pub completed: usize,
    pub errors: Vec<(PathBuf, String)>,
    pub unknown: Vec<String>,
    pub tests: usize,
    pub instructions: u64,
    pub complete: bool,
    pub stop_reason: Option<String>,
}

impl RunSummary {
    /// The summary as the printers take it (`report/console.rs`, `--json`).
    pub fn result(&self) -> crate::report::json::RunResult {
        crate::report::json::RunResult {
            completed: self.completed,
            errors: self
                .errors
                .iter()
                .map(|(test, what)| crate::report::json::RunError {
                    test: test.clone(),
                    what: what.clone(),
                })
                .collect(),
            unknown: self.unknown.clone(),
            tests: self.tests,
            instructions: self.instructions,
            complete: self.complete,
            stop_reason: self.stop_reason.clone(),
        }
    }

    /// 0: every path completed without error; 1: an error was found; 3: incomplete.
    pub fn exit_code(&self) -> i32 {
        if !self.errors.is_empty() {
            1
        } else if !self.unknown.is_empty() || !self.complete {
            3
        } else {
            0
        }
    }
}

struct HarnessDriver<'o> {
    out_dir: &'o Path,
    program: String,
    summary: RunSummary,
    failure: Option<std::io::Error>,
}

impl HarnessDriver<'_> {
    fn write_test(&mut self, ex: &mut Executor<'_>, state: &State) -> Option<PathBuf> {
        let model = match &state.model {
            Some(m) => m.clone(),
            None => ex.check(state, ex.pool.true_()).ok().flatten()?,
        };
        let objects = state
            .inputs
            .iter()
            .map(|input| KTestObject {
                name: input.name.clone(),
                bytes: (0..input.size)
                    .map(|i| model.byte(input.array, i))
                    .collect(),
            })
            .collect();
        let ktest = KTest {
            args: vec![self.program.clone()],
            sym_argvs: 0,
            sym_argv_len: 0,
            objects,
        };
        self.summary.tests += 1;
        let path = self.out_dir.join(test_file_name(self.summary.tests));
        if let Err(e) = ktest.write(&path) {
            self.failure
                .get_or_insert(std::io::Error::other(e.to_string()));
        }
        Some(path)
    }
}

impl Driver for HarnessDriver<'_> {
    fn on_exit(&mut self, ex: &mut Executor<'_>, state: State, exit: Exit) -> Option<State> {
        match exit {
            Exit::Returned(_) | Exit::Exited(_) => {
                self.summary.completed += 1;
                self.write_test(ex, &state);
            }
            Exit::Failed(f) => {
                if let Some(path) = self.write_test(ex, &state) {
                    let err = path.with_extension(format!("{}.err", f.kind.suffix()));
                    let mut text = format!("Error: {}\nFile: {}\n", f.kind.describe(), f.loc);
                    if !f.callers.is_empty() {
                        text.push_str("Stack:\n");
                        for (i, at) in std::iter::once(&f.loc).chain(&f.callers).enumerate() {
                            text.push_str(&format!("\t#{i} {at}\n"));
                        }
                    }
                    if let Err(e) = std::fs::write(&err, text) {
                        self.failure.get_or_insert(e);
                    }
                    self.summary
                        .errors
                        .push((path, format!("{} at {}", f.kind.describe(), f.place())));
                }
            }
            Exit::Silent => {}
            Exit::Unknown(why) => self.summary.unknown.push(why.to_string()),
        }
        None
    }
}

/// Explores `main` of the program at `path`.
fn run_harness(
    path: &Path,
    exec: ExecConfig,
    solver: &SolverConfig,
    out_dir: &Path,
) -> Result<RunSummary> {
    let module = crate::load::load_harness_program(path)?;
    let main = module
        .function_on_side(Side::A, "main")
        .filter(|&f| !module.function(f).is_declaration())
        .ok_or_else(|| Error::input(path, "no function 'main' is defined here"))?;
    crate::crosscheck::prepare_out_dir(out_dir)?;
    let pool = ExprPool::new();
    let (exec, solver) = crate::crosscheck::check_configs(&exec, solver);
    let mut ex = Executor::new(&module, &pool, build_chain(&solver), exec);
    let mut state = ex.initial_state();
    let program = path.display().to_string();
    // argv = { "<program>", NULL }, as a program run without arguments sees it.
    let mut name = program.clone().into_bytes();
    name.push(0);
    let arg0 = ex.allocate(
        &mut state,
        name.len() as u64,
        ObjectKind::Input,
        "argv[0]".into(),
        ObjectState::from_bytes(name),
    );
    let mut argv = Vec::new();
    argv.extend_from_slice(&arg0.to_le_bytes());
    argv.extend_from_slice(&0u64.to_le_bytes());
    let argv_addr = ex.allocate(
        &mut state,
        argv.len() as u64,
        ObjectKind::Input,
        "argv".into(),
        ObjectState::from_bytes(argv),
    );
    let f = module.function(main);
    let mut args = Vec::new();
    for (i, p) in f.params.iter().enumerate() {
        args.push(match i {
            0 => Value::concrete(p.width, 1),
            1 => Value::concrete(PTR_WIDTH, argv_addr as u128),
            _ => Value::concrete(p.width, 0),
        });
    }
    ex.push_call(&mut state, main, &args, None);
    let mut driver = HarnessDriver {
        out_dir,
        program,
        summary: RunSummary::default(),
        failure: None,
    };
    ex.run(state, &mut driver);
    if let Some(e) = driver.failure {
        return Err(Error::Output {
            path: out_dir.to_path_buf(),
            source: e,
        });
    }
    let mut summary = driver.summary;
    summary.instructions = ex.stats.instructions;
    summary.stop_reason = ex.stats.stop_reason.map(|h| h.to_string());
    summary.complete = summary.stop_reason.is_none() && ex.live_at_end == 0;
    summary.unknown.extend(ex.unsupported.iter().cloned());
    summary.unknown.dedup();
    Ok(summary)
}
