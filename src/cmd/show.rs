//! `xcheck show TEST.ktest…`: prints tests as ktest-tool does.

use crate::cli::{Exit, ShowArgs};
use crate::error::Error;
use crate::ktest::KTest;

/// Prints every test.
pub(super) fn run(args: ShowArgs) -> Result<i32, Exit> {
    for (i, path) in args.tests.iter().enumerate() {
        let test = KTest::read(path).map_err(Error::from)?;
        if i > 0 {
            println!();
        }
        print!("{}", test.show(&path.display().to_string()));
    }
    Ok(0)
}
