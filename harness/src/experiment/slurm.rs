//! What `vodbench slurm` writes into its sbatch scripts, checked and quoted as Slurm and the
//! shell read them: no value can end a line or start a command.
//!
//! - Every value (paths, the partition, the time limit, the command's arguments) is refused
//!   when it holds a control character (a newline would end an `#SBATCH` line or the `exec`
//!   line and start a command of its own) or is not UTF-8 (the script would name another
//!   file).
//! - `--partition` is one or more partition names separated by commas, each of letters,
//!   digits, `_`, `-` and `.`; `--time` is one of Slurm's time formats ([`parse_time`]).
//! - A path on an `#SBATCH` line is double-quoted, `\` and `"` escaped with a backslash (as
//!   sbatch reads its directives), and `%` in a log path doubled (sbatch's file-name
//!   patterns); the command's arguments are quoted for a POSIX shell ([`shell_quote`]).

/// A value `vodbench slurm` refuses to write into a script: the flag (or what the value is),
/// the value and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{what} {value:?}: {why}")]
pub struct SlurmValueError {
    /// The flag or the value's role (`--partition`, `the output folder`).
    pub what: String,
    /// The value as given (lossily, when it is not UTF-8).
    pub value: String,
    /// What is wrong and what is allowed.
    pub why: String,
}

fn refuse(what: &str, value: &str, why: impl Into<String>) -> SlurmValueError {
    SlurmValueError {
        what: what.to_string(),
        value: value.to_string(),
        why: why.into(),
    }
}

/// `value` as text a script may hold: UTF-8 without control characters (newline, carriage
/// return, tab, escape, NUL, …).
pub fn script_text<'a>(what: &str, value: &'a std::ffi::OsStr) -> Result<&'a str, SlurmValueError> {
    let Some(text) = value.to_str() else {
        return Err(refuse(
            what,
            &value.to_string_lossy(),
            "is not UTF-8: the script would name something else; rename it",
        ));
    };
    check_text(what, text)?;
    Ok(text)
}

/// Refuses `text` when it holds a control character.
pub fn check_text(what: &str, text: &str) -> Result<(), SlurmValueError> {
    match text.chars().find(|c| c.is_control()) {
        None => Ok(()),
        Some(c) => Err(refuse(
            what,
            text,
            format!(
                "holds the control character {c:?}, which would end a line of the sbatch script \
                 (and could start a command of its own); control characters are not allowed"
            ),
        )),
    }
}

/// Checks a `--partition` value as Slurm names partitions: one or more names separated by
/// commas, each of ASCII letters, digits, `_`, `-` and `.`.
pub fn check_partition(value: &str) -> Result<(), SlurmValueError> {
    check_text("--partition", value)?;
    let ok = !value.is_empty()
        && value.split(',').all(|p| {
            !p.is_empty()
                && p.len() <= 64
                && p.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
        });
    if ok {
        Ok(())
    } else {
        Err(refuse(
            "--partition",
            value,
            "expected a partition name (ASCII letters, digits, `_`, `-`, `.`; at most 64 \
             characters), or several separated by commas",
        ))
    }
}

/// The largest time limit Slurm stores, in minutes (a 32-bit count, one below its
/// "infinite").
pub const MAX_TIME_MINUTES: u64 = u32::MAX as u64 - 1;

/// Reads a `--time` value as Slurm does: `minutes`, `minutes:seconds`,
/// `hours:minutes:seconds`, `days-hours`, `days-hours:minutes`, `days-hours:minutes:seconds`
/// (each field digits), or `UNLIMITED` / `INFINITE` (any case). Its length in seconds, `None`
/// for no limit.
///
/// ```
/// use vodbench_harness::experiment::slurm::parse_time;
/// assert_eq!(parse_time("90"), Ok(Some(5400)));
/// assert_eq!(parse_time("1-12"), Ok(Some(129_600)));
/// assert_eq!(parse_time("infinite"), Ok(None));
/// assert!(parse_time("2h").is_err());
/// ```
pub fn parse_time(value: &str) -> Result<Option<u64>, SlurmValueError> {
    check_text("--time", value)?;
    let bad = || {
        refuse(
            "--time",
            value,
            "expected a Slurm time limit: `minutes`, `minutes:seconds`, \
             `hours:minutes:seconds`, `days-hours`, `days-hours:minutes`, \
             `days-hours:minutes:seconds` (whole numbers), or `UNLIMITED`",
        )
    };
    if value.eq_ignore_ascii_case("unlimited") || value.eq_ignore_ascii_case("infinite") {
        return Ok(None);
    }
    let field = |s: &str| -> Result<u64, SlurmValueError> {
        if s.is_empty() || s.len() > 9 || !s.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        s.parse::<u64>().map_err(|_| bad())
    };
    let (days, rest) = match value.split_once('-') {
        Some((d, rest)) => (Some(field(d)?), rest),
        None => (None, value),
    };
    let parts: Vec<u64> = rest.split(':').map(field).collect::<Result<_, _>>()?;
    let seconds = match (days, parts.as_slice()) {
        (None, [m]) => m * 60,
        (None, [m, s]) => m * 60 + s,
        (None, [h, m, s]) => h * 3600 + m * 60 + s,
        (Some(d), [h]) => d * 86_400 + h * 3600,
        (Some(d), [h, m]) => d * 86_400 + h * 3600 + m * 60,
        (Some(d), [h, m, s]) => d * 86_400 + h * 3600 + m * 60 + s,
        _ => return Err(bad()),
    };
    if seconds.div_ceil(60) > MAX_TIME_MINUTES {
        return Err(refuse(
            "--time",
            value,
            format!(
                "longer than Slurm's largest time limit, {MAX_TIME_MINUTES} minutes (give \
                 `UNLIMITED` for none)"
            ),
        ));
    }
    Ok(Some(seconds))
}

/// `a` as one argument of an `#SBATCH` line: double-quoted, with `\` and `"` escaped by a
/// backslash, as sbatch reads its directives (it also groups by single quotes and ends an
/// unquoted argument at `#`). `a` must hold no control character ([`check_text`]).
pub fn sbatch_quote(a: &str) -> String {
    let mut s = String::with_capacity(a.len() + 2);
    s.push('"');
    for c in a.chars() {
        if matches!(c, '\\' | '"') {
            s.push('\\');
        }
        s.push(c);
    }
    s.push('"');
    s
}

/// The log path `dir/file` as an sbatch `--output` pattern: `%` in `dir` doubled, so that
/// only `file`'s own replacement symbols (`%A`, `%a`, `%j`) are replaced.
pub fn output_pattern(dir: &str, file: &str) -> String {
    format!("{}/{file}", dir.replace('%', "%%"))
}

/// `a` quoted for a POSIX shell (as it is when it needs no quotes).
pub fn shell_quote(a: &str) -> String {
    let plain = !a.is_empty()
        && a.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,%@+{}".contains(&b));
    if plain {
        a.to_string()
    } else {
        format!("'{}'", a.replace('\'', r"'\''"))
    }
}

/// An sbatch script: a comment saying `what`, `#SBATCH` lines from `options` (each already
/// checked and quoted), then `exec` and `command`, shell-quoted. Refuses an option or an
/// argument holding a control character, so the script has exactly one line per option.
pub fn script(
    what: &str,
    options: &[String],
    command: &[String],
) -> Result<String, SlurmValueError> {
    check_text("the script's description", what)?;
    let mut s = String::from("#!/bin/bash\n");
    s.push_str(&format!("# written by `vodbench slurm`: {what}\n"));
    for o in options {
        check_text("an #SBATCH option", o)?;
        s.push_str(&format!("#SBATCH {o}\n"));
    }
    s.push_str("set -euo pipefail\n");
    s.push_str("exec");
    for a in command {
        check_text("an argument of the command", a)?;
        s.push(' ');
        s.push_str(&shell_quote(a));
    }
    s.push('\n');
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_are_quoted_for_the_shell_only_when_needed() {
        assert_eq!(shell_quote("/a/b-c_d.toml"), "/a/b-c_d.toml");
        assert_eq!(shell_quote("slurm/4"), "slurm/4");
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        assert_eq!(shell_quote(""), "''");
        assert_eq!(shell_quote("$HOME"), "'$HOME'");
    }

    #[test]
    fn issue49_slurm_time_formats_are_read_as_slurm_reads_them() {
        for (t, secs) in [
            ("45", Some(2700)),
            ("45:30", Some(2730)),
            ("3:04:05", Some(11_045)),
            ("2-3", Some(183_600)),
            ("2-3:04", Some(183_840)),
            ("2-3:04:05", Some(183_845)),
            ("Unlimited", None),
            ("INFINITE", None),
        ] {
            assert_eq!(parse_time(t), Ok(secs), "{t}");
        }
        for t in [
            "",
            "garbage",
            "1h",
            "1:2:3:4",
            "1-2-3",
            "-5",
            "5-",
            ":5",
            "1::2",
            "1- 2",
            " 30",
            "30\n",
            "1-1:1:1:1",
            "9999999999",
        ] {
            let e = parse_time(t).unwrap_err();
            assert_eq!(e.what, "--time", "{t}");
        }
        let e = parse_time("10\ntouch x").unwrap_err().to_string();
        assert!(e.contains("control character '\\n'"), "{e}");
        let e = parse_time("999999999-0").unwrap_err().to_string();
        assert!(e.contains("longer than Slurm's largest time limit"), "{e}");
    }

    #[test]
    fn issue49_partitions_are_names_and_control_characters_are_refused() {
        for p in ["short", "gpu-a100", "long_q.2", "short,long"] {
            assert_eq!(check_partition(p), Ok(()), "{p}");
        }
        for p in ["", "a b", "a,,b", "q;rm -rf /", "x$(id)", ",a", "né"] {
            assert!(check_partition(p).is_err(), "{p}");
        }
        let e = check_partition("a\rb").unwrap_err().to_string();
        assert!(e.contains("control character '\\r'"), "{e}");
        let bad = std::ffi::OsStr::new("dir\u{1b}[2J");
        assert!(script_text("--out", bad).is_err());
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            let e = script_text("--out", std::ffi::OsStr::from_bytes(b"a\xffb")).unwrap_err();
            assert!(e.why.contains("not UTF-8"), "{e}");
        }
    }

    #[test]
    fn issue49_paths_on_sbatch_lines_are_quoted_and_patterns_escaped() {
        assert_eq!(sbatch_quote("/x/my runs"), "\"/x/my runs\"");
        assert_eq!(sbatch_quote(r#"/x/a"b\c#d"#), r#""/x/a\"b\\c#d""#);
        assert_eq!(
            output_pattern("/x/100%/s.slurm", "task-%A_%a.out"),
            "/x/100%%/s.slurm/task-%A_%a.out"
        );
        // a value that would start a line of its own is refused, not written
        let e = script("w", &["--partition=a\nrm -rf ~".into()], &["true".into()]).unwrap_err();
        assert!(e.why.contains("control character"), "{e}");
        let e = script("w", &[], &["a\u{0}b".into()]).unwrap_err();
        assert!(e.why.contains("control character"), "{e}");
    }

    #[test]
    fn a_script_has_its_options_then_one_command() {
        let s = script(
            "w",
            &["--array=0-3%2".into()],
            &[
                "/bin/vodbench".into(),
                "sweep".into(),
                "my file.toml".into(),
            ],
        )
        .unwrap();
        assert_eq!(
            s,
            "#!/bin/bash\n# written by `vodbench slurm`: w\n#SBATCH --array=0-3%2\n\
             set -euo pipefail\nexec /bin/vodbench sweep 'my file.toml'\n"
        );
    }
}
