//! A share of a sweep's points (or of a search's replications) for one of several processes:
//! `vodbench sweep --task I/N` and `vodbench search --task I/N`, run as the tasks of a Slurm
//! job array (`SLURM_ARRAY_TASK_ID`), GNU parallel jobs or a shell loop, each saving what it
//! makes into one shared output folder, which `--merge` then writes out whole.
//!
//! The assignment is round-robin and depends on nothing but the item's index and `N`: point
//! (or replication) `i` belongs to task `i mod N`, every time, on every machine. So a task
//! that died is run again as it was and finds the same items, neighbouring points of a sweep
//! (which often cost alike, as load grows along an axis) are spread over the tasks, and the
//! first replications of a search, which every search needs, go to different tasks.

use std::fmt;

/// Task `index` of `count` (`0 ≤ index < count`).
///
/// ```
/// use vodbench_harness::experiment::task::Task;
/// let t = Task::parse("1/3", |_| None).unwrap();
/// assert_eq!(t.items(8), vec![1, 4, 7]);
/// let slurm = Task::parse("slurm/3", |k| (k == "SLURM_ARRAY_TASK_ID").then(|| "2".into()));
/// assert_eq!(slurm.unwrap().items(8), vec![2, 5]);
/// assert!(Task::parse("3/3", |_| None).is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Task {
    /// Which task (0-based).
    pub index: u32,
    /// How many tasks share the work.
    pub count: u32,
}

/// The environment variable of a Slurm array task holding its index.
pub const SLURM_TASK_ID: &str = "SLURM_ARRAY_TASK_ID";
/// The environment variable of a Slurm array task holding the number of tasks in the array.
pub const SLURM_TASK_COUNT: &str = "SLURM_ARRAY_TASK_COUNT";

impl Task {
    /// Whether item `i` (a point's grid index, a replication's index) is this task's.
    pub fn owns(&self, i: usize) -> bool {
        i % self.count as usize == self.index as usize
    }

    /// This task's items among `0..n`, in order.
    pub fn items(&self, n: usize) -> Vec<usize> {
        (0..n).filter(|&i| self.owns(i)).collect()
    }

    /// Reads `I/N`; `slurm` (I and N from the Slurm array task's `SLURM_ARRAY_TASK_ID` and
    /// `SLURM_ARRAY_TASK_COUNT`, as `env` gives them), or `slurm/N` (I from
    /// `SLURM_ARRAY_TASK_ID`, N given: a task of an array resubmitted in part still knows
    /// how many share the work). The error says what is wrong and what is allowed.
    pub fn parse(text: &str, env: impl Fn(&str) -> Option<String>) -> Result<Task, String> {
        let (i, n) = text.split_once('/').unwrap_or((text, ""));
        let from_env = |var: &str| -> Result<String, String> {
            env(var).filter(|v| !v.is_empty()).ok_or_else(|| {
                format!(
                    "`{text}` takes the task from {var}, which is not set: run it as a task of \
                     a Slurm job array (sbatch --array), or give `I/N`"
                )
            })
        };
        let number = |what: &str, s: &str, origin: &str| -> Result<u32, String> {
            let t = s.trim();
            t.parse::<u32>().map_err(|_| {
                if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) {
                    format!(
                        "{what} `{s}`{origin} is out of range: at most {} (give `I/N`, \
                         0 ≤ I < N)",
                        u32::MAX
                    )
                } else {
                    format!("{what} `{s}`{origin} is not a whole number (give `I/N`, 0 ≤ I < N)")
                }
            })
        };
        let (index, count) = if i == "slurm" {
            let id = from_env(SLURM_TASK_ID)?;
            let index = number("the task index", &id, &format!(" (from {SLURM_TASK_ID})"))?;
            let count = if n.is_empty() {
                let c = from_env(SLURM_TASK_COUNT)?;
                number("the task count", &c, &format!(" (from {SLURM_TASK_COUNT})"))?
            } else {
                number("the task count", n, "")?
            };
            (index, count)
        } else if n.is_empty() {
            return Err(format!(
                "`{text}` is not a task: give `I/N` (task I of N, 0 ≤ I < N), `slurm` or `slurm/N`"
            ));
        } else {
            (
                number("the task index", i, "")?,
                number("the task count", n, "")?,
            )
        };
        if count == 0 {
            return Err(format!("`{text}`: the number of tasks must be at least 1"));
        }
        if index >= count {
            return Err(format!(
                "`{text}`: task {index} is not one of 0..{count} (tasks are numbered from 0; a \
                 Slurm array for this must be --array=0-{})",
                count - 1
            ));
        }
        Ok(Task { index, count })
    }
}

impl fmt::Display for Task {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn issue49_a_task_number_too_large_is_out_of_range_not_a_non_number() {
        let e = Task::parse("99999999999999999999/3", |_| None).unwrap_err();
        assert!(
            e.contains("the task index `99999999999999999999` is out of range: at most 4294967295"),
            "{e}"
        );
        let e = Task::parse("1/4294967296", |_| None).unwrap_err();
        assert!(
            e.contains("the task count `4294967296` is out of range"),
            "{e}"
        );
        let e = Task::parse("1/x3", |_| None).unwrap_err();
        assert!(e.contains("`x3` is not a whole number"), "{e}");
    }

    #[test]
    fn every_item_falls_to_exactly_one_task_and_always_the_same() {
        for count in 1..=16u32 {
            let tasks: Vec<Task> = (0..count).map(|index| Task { index, count }).collect();
            for n in [0usize, 1, 5, 16, 17, 100] {
                let mut seen = vec![0u32; n];
                for t in &tasks {
                    let items = t.items(n);
                    // stable: the same items every time, and by index alone
                    assert_eq!(items, t.items(n));
                    assert_eq!(
                        items,
                        Task::parse(&t.to_string(), |_| None).unwrap().items(n)
                    );
                    for i in items {
                        seen[i] += 1;
                        // an item's task does not depend on how many items there are
                        assert!(t.items(n + 7).contains(&i));
                    }
                }
                assert!(seen.iter().all(|&s| s == 1), "N={count} n={n}: {seen:?}");
                // balanced: task sizes differ by at most one
                let sizes: Vec<usize> = tasks.iter().map(|t| t.items(n).len()).collect();
                let (lo, hi) = (sizes.iter().min(), sizes.iter().max());
                assert!(hi.unwrap() - lo.unwrap() <= 1, "{sizes:?}");
            }
        }
    }

    #[test]
    fn slurm_tasks_come_from_the_environment() {
        let env = |id: &'static str, count: &'static str| {
            move |k: &str| match k {
                SLURM_TASK_ID => Some(id.to_string()),
                SLURM_TASK_COUNT => Some(count.to_string()),
                _ => None,
            }
        };
        assert_eq!(
            Task::parse("slurm", env("2", "4")),
            Ok(Task { index: 2, count: 4 })
        );
        // the count given wins over a partial array's
        assert_eq!(
            Task::parse("slurm/8", env("5", "1")),
            Ok(Task { index: 5, count: 8 })
        );
        let e = Task::parse("slurm", |_| None).unwrap_err();
        assert!(
            e.contains("SLURM_ARRAY_TASK_ID") && e.contains("I/N"),
            "{e}"
        );
        let e = Task::parse("slurm", env("4", "4")).unwrap_err();
        assert!(e.contains("--array=0-3"), "{e}");
        let e = Task::parse("slurm", env("x", "4")).unwrap_err();
        assert!(e.contains("`x` (from SLURM_ARRAY_TASK_ID)"), "{e}");
    }

    #[test]
    fn bad_tasks_say_what_is_allowed() {
        for (text, says) in [
            ("3", "give `I/N`"),
            ("a/2", "`a` is not a whole number"),
            ("1/0", "at least 1"),
            ("2/2", "not one of 0..2"),
            ("-1/2", "not a whole number"),
        ] {
            let e = Task::parse(text, |_| None).unwrap_err();
            assert!(e.contains(says), "{text}: {e}");
        }
    }
}
