//! `xcheck show TEST.ktest…`: prints tests as ktest-tool does; `xcheck show --ir FILE.bc…`
//! prints the engine's IR of bitcode files (`ir::text`).

use crate::cli::{Quit, ShowArgs};
use crate::error::Error;
use crate::ir::Side;
use crate::ktest::KTest;

/// Prints every test, or every file's IR.
pub(super) fn run(args: ShowArgs) -> Result<i32, Quit> {
    for (i, path) in args.tests.iter().enumerate() {
        if i > 0 {
            println!();
        }
        if args.ir {
            print!("{}", ir_text(path, args.function.as_deref())?);
            continue;
        }
        let test = KTest::read(path).map_err(Error::from)?;
        print!("{}", test.show(&path.display().to_string()));
    }
    Ok(0)
}

/// The IR of the functions the bitcode file at `path` defines (only `function`, if given),
/// lowered as side A of a function check, one after another.
fn ir_text(path: &std::path::Path, function: Option<&str>) -> Result<String, Quit> {
    let module = crate::load::load(path, None, &[])?;
    let ids: Vec<crate::ir::FuncId> = match function {
        Some(name) => {
            let id = module.function_on_side(Side::A, name).ok_or_else(|| {
                Error::input(path, format!("no function '{name}' is defined here"))
            })?;
            vec![id]
        }
        None => (0..module.functions.len() as u32)
            .map(crate::ir::FuncId)
            .filter(|&id| {
                let f = module.function(id);
                f.side == Side::A && !f.is_declaration() && !module.library.contains(&f.name)
            })
            .collect(),
    };
    let texts: Vec<String> = ids
        .into_iter()
        .map(|id| module.function_text(id).to_string())
        .collect();
    Ok(texts.join("\n"))
}
