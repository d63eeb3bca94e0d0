//! A symbolic file's stat object is symbolic where a native replay can set it, as KLEE's:
//! its permission bits and times. Programs that read them are explored over them, and their
//! differences reproduce on the native executables, whose files get the test's mode and
//! times. A test gives them their usual values (0644, 2020-01-01) where its path allows.

use crate::dirpipe::{cc, check, natively_confirmed};

#[test]
fn permission_bits_and_times_of_a_symbolic_file_are_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    cc(d, "filemode.c", "any", &[]);
    cc(d, "filemode.c", "owner", &["-DOWNER_ONLY"]);
    cc(d, "filemode.c", "access", &["-DACCESS"]);
    let env = ["--sym-files", "1", "2"];

    // For root any execute bit lets access(2) pass, as the mode test says.
    let (code, text, report) = check(d, "any", "access", "same", &env);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("verdict      : EQUIVALENT"), "{text}");
    // The mode and the time each split the paths: executable or not, old or new.
    assert!(report["rows"].as_array().unwrap().len() >= 4, "{text}");

    // Only a file its group or others may execute tells them apart; with the stat object
    // pinned to 0644 the two were proved equivalent.
    let (code, text, report) = check(d, "any", "owner", "differ", &env);
    assert_eq!(code, 1, "{text}");
    assert!(natively_confirmed(&report, &text) >= 1, "{text}");
    // The path of a file changed since 2020 allows the preferred time (klee_prefer_cex),
    // which its test holds; the other path's test holds an earlier one.
    let mut preferred_time = 0;
    for row in report["rows"].as_array().unwrap() {
        if row["verdict"] != "diverged" {
            continue;
        }
        let stat = row["inputs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["name"] == "A_data_stat")
            .unwrap_or_else(|| panic!("no A_data_stat in {row}"));
        let shown = stat["display"].as_str().unwrap();
        let mode = u32::from_str_radix(
            shown
                .strip_prefix("mode ")
                .and_then(|s| s.split(' ').next())
                .unwrap(),
            8,
        )
        .unwrap();
        assert_eq!(mode & 0o170000, 0o100000, "{shown}");
        assert_eq!(mode & 0o100, 0, "{shown}");
        assert_ne!(mode & 0o011, 0, "{shown}");
        preferred_time += usize::from(shown.ends_with("mtime 1577836800"));
    }
    assert_eq!(preferred_time, 1, "{text}");
}
