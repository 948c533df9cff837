//! `vodbench slurm`: a sweep (or a search) as a Slurm job array and a merge job.
//!
//! vodbench grows no scheduler of its own: it writes two sbatch scripts, and with `--submit`
//! hands them to `sbatch`. The array's task I runs `vodbench sweep FILE --out DIR --task
//! slurm/N` (or `vodbench search … --task slurm/N` for a scenario without a `[sweep]`), which
//! searches the points (replications) that fall to task I of N ([`crate::experiment::task`])
//! and saves each into the shared output folder; the merge job, submitted with
//! `--dependency=afterok:ARRAY`, runs `--merge` once every task succeeded and writes the
//! folder whole, byte-identical to a sweep made on one machine. Points already saved are
//! never searched again, so after a failure the same command submits the work that is left.
//!
//! The scripts and Slurm's logs go beside the output folder, in `DIR.slurm/`: the merge
//! replaces `DIR` as a whole, and its own log must not be inside it.

use super::search::{searchable_scenario, SearchLimits};
use super::sweep::sweepable_suite;
use super::CommandError;
use crate::experiment::slurm::{
    check_partition, output_pattern, parse_time, sbatch_quote, script, script_text, shell_quote,
};
use crate::output;
use crate::plugin::Registry;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Arguments of `vodbench slurm`.
#[derive(Debug, clap::Args)]
pub(crate) struct SlurmArgs {
    /// Scenario file (TOML): with a `[sweep]`, its points are shared among the tasks; without
    /// one, its search's replications are.
    scenario: PathBuf,
    /// Output folder, on a file system every node of the cluster sees (default:
    /// out/NAME-sweep or out/NAME-search); the scripts and logs go to DIR.slurm beside it.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Number of array tasks (default: one per point; for a search, as many as its fewest
    /// replications).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    tasks: Option<u32>,
    /// Most tasks running at once (sbatch --array=0-N%K; default: no limit).
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(1..=100_000))]
    max_running: Option<u32>,
    /// Slurm partition to submit to (sbatch --partition; default: the cluster's): a name of
    /// ASCII letters, digits, `_`, `-` and `.`, or several separated by commas.
    #[arg(long)]
    partition: Option<String>,
    /// Time limit of each task (sbatch --time, in Slurm's formats: `minutes`,
    /// `minutes:seconds`, `hours:minutes:seconds`, `days-hours`, `days-hours:minutes`,
    /// `days-hours:minutes:seconds`, or `UNLIMITED`; default: the partition's). Values
    /// written into the scripts may hold no control character.
    #[arg(long)]
    time: Option<String>,
    /// CPUs per task (sbatch --cpus-per-task): each task searches on this many threads.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1024))]
    cpus_per_task: u32,
    /// Share the search's replications among the tasks even when the file has a `[sweep]`
    /// of one point (a file without a `[sweep]` always does).
    #[arg(long)]
    search: bool,
    /// Submit the array and the merge job with sbatch, and print their job ids and how to
    /// watch them; without it the scripts are written and the commands to submit them (or
    /// to run the same tasks without Slurm) printed.
    #[arg(long)]
    submit: bool,
    /// Replication and terminal limits, passed on to every task and the merge.
    #[command(flatten)]
    limits: SearchLimits,
    /// Refuse a scenario (each sweep point) whose run is estimated to need more memory than
    /// this (`8GiB`, `500MiB`; default 8GiB); passed on to every task.
    #[arg(long, value_name = "SIZE")]
    max_memory: Option<String>,
}

/// What the tasks share.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Work {
    /// The points of a sweep.
    Points(usize),
    /// The replications of a search (at least, at most).
    Replications(u32, u32),
}

/// What the array shares and how: the command its tasks run, the work, the output folder's
/// default name and the number of tasks.
struct Plan {
    command: &'static str,
    work: Work,
    name: String,
    tasks: u32,
}

/// The paths the scripts hold, absolute, and their text as written into them.
struct Paths {
    dir: PathBuf,
    scripts: PathBuf,
    exe_text: String,
    scenario_text: String,
    dir_text: String,
    scripts_text: String,
    cwd_text: String,
}

/// `vodbench slurm`.
pub(crate) fn cmd(registry: &Registry, args: SlurmArgs) -> Result<(), CommandError> {
    let opts = check_args(&args)?;
    let plan = plan(registry, &args, &opts)?;
    let (command, work, tasks) = (plan.command, plan.work, plan.tasks);
    let path = &args.scenario;
    let dir = args
        .out
        .clone()
        .unwrap_or_else(|| output::default_dir(&plan.name));
    let writer = if command == "search" {
        output::Writer::Search
    } else {
        output::Writer::Sweep
    };
    output::check_output_dir(&dir, writer)?;
    let paths = resolve_paths(&dir, path)?;
    let common = common_args(registry, &args, command, &paths);
    let (array_lines, merge_lines) = sbatch_options(&args, &plan, &paths);
    let mut task_cmd = common.clone();
    task_cmd.extend([
        "--task".into(),
        format!("slurm/{tasks}"),
        "--threads".into(),
        args.cpus_per_task.to_string(),
    ]);
    let mut merge_cmd = common.clone();
    merge_cmd.extend(["--merge".into(), "--threads".into(), "1".into()]);
    let array_script = script(
        &format!(
            "task I of the array makes the part of the {command} that falls to task I of \
             {tasks} and saves it in the output folder"
        ),
        &array_lines,
        &task_cmd,
    )
    .map_err(CommandError::input)?;
    let merge_script = script(
        &format!("writes the {command} from what the tasks saved, once every task succeeded"),
        &merge_lines,
        &merge_cmd,
    )
    .map_err(CommandError::input)?;
    let scripts = &paths.scripts;
    let _lock = output::lock_output(scripts, output::Claim::Exclusive)?;
    let (array_path, merge_path) = write_scripts(scripts, &array_script, &merge_script)?;
    let what = match work {
        Work::Points(n) => format!("{n} points"),
        Work::Replications(min, max) => format!("{min}–{max} replications"),
    };
    println!(
        "{} {} of {}: {what} shared by {tasks} tasks; scripts in {}",
        command,
        paths.dir.display(),
        path.display(),
        scripts.display()
    );
    if !args.submit {
        print_how_to_submit(&common, tasks, &array_path, &merge_path, &merge_cmd);
        return Ok(());
    }
    submit(&args, tasks, scripts, &array_path, &merge_path)
}

/// The checks of the options that need no scenario, and the search's limits.
fn check_args(args: &SlurmArgs) -> Result<crate::experiment::search::SearchOptions, CommandError> {
    super::check::set_max_memory(args.max_memory.as_deref())?;
    if let Some(p) = &args.partition {
        check_partition(p).map_err(CommandError::input)?;
    }
    if let Some(t) = &args.time {
        parse_time(t).map_err(CommandError::input)?;
    }
    if args.limits.threads.is_some() {
        return Err(CommandError::input(
            "--threads: each task searches on --cpus-per-task threads; give that instead",
        ));
    }
    args.limits.options()
}

/// Whether the tasks share a sweep's points or a search's replications, and how many tasks
/// there are (at most one per point or replication).
fn plan(
    registry: &Registry,
    args: &SlurmArgs,
    opts: &crate::experiment::search::SearchOptions,
) -> Result<Plan, CommandError> {
    let path = &args.scenario;
    let suite = sweepable_suite(registry, path)?;
    let single = suite.axes.is_empty() && suite.points.len() == 1;
    if args.search && !single {
        return Err(CommandError::input(format!(
            "--search: {} sweeps {} points; --search shares one search's replications, for a \
             file without a [sweep]",
            path.display(),
            suite.points.len()
        )));
    }
    let (command, work, name) = if single || args.search {
        let scenario = searchable_scenario(registry, path)?;
        let (min, max) = opts.replication_limits();
        (
            "search",
            Work::Replications(min, max),
            format!("{}-search", scenario.name()),
        )
    } else {
        (
            "sweep",
            Work::Points(suite.points.len()),
            format!("{}-sweep", suite.name),
        )
    };
    let items = match work {
        Work::Points(n) => n as u32,
        Work::Replications(_, max) => max,
    };
    let tasks = args.tasks.unwrap_or(match work {
        Work::Points(n) => n as u32,
        Work::Replications(min, _) => min,
    });
    if tasks > items {
        return Err(CommandError::input(format!(
            "--tasks {tasks}: {} has only {items} {} to share; at most {items} tasks",
            path.display(),
            match work {
                Work::Points(_) => "points",
                Work::Replications(..) => "replications (--seeds)",
            }
        )));
    }
    Ok(Plan {
        command,
        work,
        name,
        tasks,
    })
}

/// The output folder `dir` and the scenario at `path` made absolute, the executable, the
/// current folder and the scripts' folder, each checked as a value a script may hold.
fn resolve_paths(dir: &Path, path: &Path) -> Result<Paths, CommandError> {
    let abs = |p: &Path| -> Result<PathBuf, CommandError> {
        std::path::absolute(p).map_err(|e| CommandError::input(format!("{}: {e}", p.display())))
    };
    let dir = abs(dir)?;
    let scenario = std::fs::canonicalize(path)
        .map_err(|e| CommandError::input(format!("{}: {e}", path.display())))?;
    let exe = std::env::current_exe()
        .map_err(|e| CommandError::failure(format!("the vodbench executable's path: {e}")))?;
    let cwd = std::env::current_dir()
        .map_err(|e| CommandError::failure(format!("the current folder: {e}")))?;
    let scripts = slurm_dir(&dir);
    // every value written into the scripts: UTF-8 without control characters, the partition
    // and time limit as Slurm reads them
    let text = |what: &str, p: &Path| -> Result<String, CommandError> {
        script_text(what, p.as_os_str())
            .map(str::to_string)
            .map_err(CommandError::input)
    };
    let (exe_text, scenario_text, dir_text) = (
        text("the vodbench executable's path", &exe)?,
        text("the scenario's path", &scenario)?,
        text("--out", &dir)?,
    );
    let (scripts_text, cwd_text) = (
        text("the scripts' folder", &scripts)?,
        text("the current folder", &cwd)?,
    );
    Ok(Paths {
        dir,
        scripts,
        exe_text,
        scenario_text,
        dir_text,
        scripts_text,
        cwd_text,
    })
}

/// The command line every task and the merge share: the executable, `command`, the scenario,
/// the output folder, the search's limits, the loaded libraries and the memory limit.
fn common_args(registry: &Registry, args: &SlurmArgs, command: &str, paths: &Paths) -> Vec<String> {
    let mut common: Vec<String> = vec![
        paths.exe_text.clone(),
        command.into(),
        paths.scenario_text.clone(),
        "--out".into(),
        paths.dir_text.clone(),
    ];
    common.extend(args.limits.to_args());
    // every task and the merge load the libraries this command loaded (`--plugin`), by
    // their absolute paths; a scenario's own `[plugins] load` travels in its file
    for origin in registry.origins() {
        common.extend(["--plugin".into(), origin.path.clone()]);
    }
    if let Some(m) = &args.max_memory {
        common.extend(["--max-memory".into(), m.clone()]);
    }
    common
}

/// The `#SBATCH` options of the array's script and of the merge's.
fn sbatch_options(args: &SlurmArgs, plan: &Plan, paths: &Paths) -> (Vec<String>, Vec<String>) {
    let (tasks, scripts_text, cwd_text) = (plan.tasks, &paths.scripts_text, &paths.cwd_text);
    let job = format!("vodbench-{}", output::folder_name(&plan.name));
    let mut array_lines = vec![
        format!("--job-name={job}"),
        format!(
            "--array=0-{}{}",
            tasks - 1,
            args.max_running.map_or(String::new(), |k| format!("%{k}"))
        ),
        format!("--cpus-per-task={}", args.cpus_per_task),
        format!(
            "--output={}",
            sbatch_quote(&output_pattern(scripts_text, "task-%A_%a.out"))
        ),
        format!("--chdir={}", sbatch_quote(cwd_text)),
    ];
    let mut merge_lines = vec![
        format!("--job-name={job}-merge"),
        "--cpus-per-task=1".to_string(),
        format!(
            "--output={}",
            sbatch_quote(&output_pattern(scripts_text, "merge-%j.out"))
        ),
        format!("--chdir={}", sbatch_quote(cwd_text)),
        // when a task failed the merge can never run: it leaves the queue instead of waiting
        "--kill-on-invalid-dep=yes".to_string(),
    ];
    for lines in [&mut array_lines, &mut merge_lines] {
        if let Some(p) = &args.partition {
            lines.push(format!("--partition={p}"));
        }
        if let Some(t) = &args.time {
            lines.push(format!("--time={t}"));
        }
    }
    (array_lines, merge_lines)
}

/// Writes the two scripts into `scripts` (replacing only scripts of ours); their paths.
fn write_scripts(
    scripts: &Path,
    array_script: &str,
    merge_script: &str,
) -> Result<(PathBuf, PathBuf), CommandError> {
    std::fs::create_dir_all(scripts).map_err(|e| output::oerr(scripts, e))?;
    let array_path = scripts.join("tasks.sbatch");
    let merge_path = scripts.join("merge.sbatch");
    for p in [&array_path, &merge_path] {
        replaceable_script(p)?;
    }
    output::write_atomic(&array_path, array_script.as_bytes())?;
    output::write_atomic(&merge_path, merge_script.as_bytes())?;
    Ok((array_path, merge_path))
}

/// Without `--submit`: the commands that submit the scripts, or run the same tasks without
/// Slurm.
fn print_how_to_submit(
    common: &[String],
    tasks: u32,
    array_path: &Path,
    merge_path: &Path,
    merge_cmd: &[String],
) {
    let q = |v: &[String]| {
        v.iter()
            .map(|a| shell_quote(a))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut t = common.to_vec();
    t.extend(["--task".into(), format!("{{}}/{tasks}")]);
    println!("submit them:");
    println!(
        "  job=$(sbatch --parsable {})",
        shell_quote(&array_path.display().to_string())
    );
    println!(
        "  sbatch --dependency=afterok:$job {}",
        shell_quote(&merge_path.display().to_string())
    );
    println!("or, without Slurm, on this machine (GNU parallel):");
    println!(
        "  parallel {} ::: $(seq 0 {}) && {}",
        q(&t),
        tasks - 1,
        q(merge_cmd)
    );
}

/// With `--submit`: submits the array and the merge after it, and says how to watch them.
fn submit(
    args: &SlurmArgs,
    tasks: u32,
    scripts: &Path,
    array_path: &Path,
    merge_path: &Path,
) -> Result<(), CommandError> {
    let array_id = sbatch(&[], array_path)?;
    let merge_id = sbatch(&[format!("--dependency=afterok:{array_id}")], merge_path)?;
    println!(
        "submitted the tasks as job {array_id} (array 0-{}{}) and the merge as job {merge_id} \
         (runs once every task succeeded)",
        tasks - 1,
        args.max_running
            .map_or(String::new(), |k| format!(", at most {k} at once"))
    );
    println!("watch them: squeue -j {array_id},{merge_id}");
    println!(
        "logs: {}/task-{array_id}_*.out and merge-{merge_id}.out",
        scripts.display()
    );
    println!(
        "when a task fails the merge is cancelled: run this command again; its tasks make only \
         what no task saved"
    );
    Ok(())
}

/// The folder of the scripts and logs of output folder `dir`: `DIR.slurm` beside it.
fn slurm_dir(dir: &Path) -> PathBuf {
    let mut name = dir.file_name().unwrap_or_default().to_os_string();
    name.push(".slurm");
    dir.with_file_name(name)
}

/// Refuses to replace `path` unless it is absent or a script `vodbench slurm` wrote (its
/// second line says so): a file of the user's is never overwritten (exit 2).
fn replaceable_script(path: &Path) -> Result<(), CommandError> {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return Ok(());
    };
    let ours = meta.is_file()
        && meta.len() < 1 << 20
        && std::fs::read_to_string(path).is_ok_and(|t| {
            t.lines()
                .nth(1)
                .is_some_and(|l| l.starts_with("# written by `vodbench slurm`"))
        });
    if ours {
        Ok(())
    } else {
        Err(CommandError::input(format!(
            "{}: exists and is not a script `vodbench slurm` wrote; writing there would \
             overwrite it: choose another --out, or remove this file",
            path.display()
        )))
    }
}

/// Submits `script` with `sbatch --parsable` and `extra` options; the job id.
fn sbatch(extra: &[String], script: &Path) -> Result<String, CommandError> {
    let out = Command::new("sbatch")
        .arg("--parsable")
        .args(extra)
        .arg(script)
        .output()
        .map_err(|e| {
            CommandError::failure(format!(
                "sbatch could not be run ({e}): is Slurm's client installed here? The script \
                 is written: {}",
                script.display()
            ))
        })?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(CommandError::failure(format!(
            "sbatch {} failed ({}): {}{}",
            script.display(),
            out.status,
            stdout.trim(),
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    // `--parsable` prints `ID` or `ID;CLUSTER`
    let id = stdout
        .trim()
        .split(';')
        .next()
        .unwrap_or_default()
        .to_string();
    if id.is_empty() || !id.bytes().all(|b| b.is_ascii_digit()) {
        return Err(CommandError::failure(format!(
            "sbatch {} printed `{}`, not a job id",
            script.display(),
            stdout.trim()
        )));
    }
    Ok(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_scripts_it_wrote_are_replaced() {
        let tmp = tempfile::tempdir().unwrap();
        let p = tmp.path().join("tasks.sbatch");
        assert!(replaceable_script(&p).is_ok(), "absent");
        std::fs::write(
            &p,
            script("w", &["--array=0-1".into()], &["true".into()]).unwrap(),
        )
        .unwrap();
        assert!(replaceable_script(&p).is_ok(), "its own");
        std::fs::write(&p, "#!/bin/bash\n#SBATCH --time=1:00\nmy_job.sh\n").unwrap();
        match replaceable_script(&p) {
            Err(CommandError::Input(e)) => {
                assert!(e.contains("is not a script `vodbench slurm` wrote"), "{e}")
            }
            _ => panic!("a user's script would be replaced"),
        }
        let d = tmp.path().join("dir.sbatch");
        std::fs::create_dir(&d).unwrap();
        assert!(replaceable_script(&d).is_err(), "a folder");
    }

    #[test]
    fn scripts_sit_beside_the_output_folder() {
        assert_eq!(
            slurm_dir(Path::new("/x/out/a-sweep")),
            PathBuf::from("/x/out/a-sweep.slurm")
        );
    }
}
