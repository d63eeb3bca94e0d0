//! `xcheck merge DIR… -o OUT`: one report from a sharded run's directories.

use crate::cli::{tests_per_kind_of, usage, MergeArgs, Quit};
use crate::config::parse_fail_on;
use crate::gate;
use crate::report::{console, render_table_limited, TERMINAL_ROWS};

/// Merges the directories into one and returns the exit code.
pub(super) fn run(args: MergeArgs) -> Result<i32, Quit> {
    let fail_on = match &args.fail_on {
        Some(list) => Some(parse_fail_on(list).map_err(|m| usage(format!("--fail-on: {m}")))?),
        None => None,
    };
    let per_kind = tests_per_kind_of(args.all_tests, args.tests_per_kind);
    match crate::shards::merge(&args.dirs, &args.output_dir, per_kind)? {
        crate::shards::Merged::Check(report) => {
            let title = report.summary.title.clone();
            let (_, code) =
                gate::judge(&report, &title, fail_on.as_deref(), args.junit.as_deref())?;
            print!("{}", render_table_limited(&report, TERMINAL_ROWS));
            print!("{}", console::written_to(&args.output_dir));
            Ok(code)
        }
        crate::shards::Merged::Gate(merged) => {
            if fail_on.is_some() {
                return Err(usage(
                    "--fail-on: a gate run's shards were judged by their own policy when they ran"
                        .into(),
                ));
            }
            print!("{}", merged.render());
            merged.write_summary(&args.output_dir)?;
            Ok(merged.finish(args.junit.as_deref())?)
        }
    }
}
