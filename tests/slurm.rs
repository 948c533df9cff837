//! `vodbench slurm --submit` on a real Slurm: a one-node cluster started by the test itself
//! (munged, slurmctld and slurmd as the user running the test — root on CI, any user works —
//! without systemd, in a temporary folder with ports and a munge key of its own), a small sweep submitted as a 2-task array and a merge job, and the merged folder
//! checked byte-identical to a local `vodbench sweep` of the same file; then a search whose
//! replications three tasks share, against a local `vodbench search`. The daemons are
//! stopped by their pids when the test ends, passed or not.
//!
//! Needs Debian's `slurmctld`, `slurmd`, `slurm-client` and `munge`; `.ci/run` installs
//! them. Without them the test says why it is skipped; under CI (`CI` set) it fails
//! instead, so CI always runs it.

mod common;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const SMALL: &str = "tests/fixtures/sweep_small.toml";
const SEARCH: &str = "tests/fixtures/search_small.toml";

/// The programs the cluster needs, each found on PATH or in /usr/sbin.
fn program(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/sbin"), PathBuf::from("/sbin")])
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

fn ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0")
}

/// Why the test cannot run here, if it cannot.
fn missing() -> Option<String> {
    let absent: Vec<&str> = ["munged", "slurmctld", "slurmd", "sbatch", "squeue", "sinfo"]
        .into_iter()
        .filter(|p| program(p).is_none())
        .collect();
    if !absent.is_empty() {
        return Some(format!(
            "{} not found (Debian's slurmctld, slurmd, slurm-client and munge)",
            absent.join(", ")
        ));
    }
    None
}

/// A free TCP port on this machine.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn run(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A one-node Slurm cluster in `dir`; stopping it (on drop) kills its daemons by pid.
struct Cluster {
    dir: PathBuf,
    conf: PathBuf,
    pid_files: Vec<PathBuf>,
}

impl Cluster {
    fn start(dir: &Path) -> Cluster {
        for sub in ["ctld", "d", "log", "run"] {
            std::fs::create_dir_all(dir.join(sub)).unwrap();
        }
        let mut cluster = Cluster {
            dir: dir.to_path_buf(),
            conf: dir.join("slurm.conf"),
            pid_files: Vec::new(),
        };
        // munge: a key of its own, on a socket of its own
        let mut key = vec![0u8; 1024];
        std::fs::File::open("/dev/urandom")
            .unwrap()
            .read_exact(&mut key)
            .unwrap();
        let key_file = dir.join("munge.key");
        std::fs::write(&key_file, &key).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&key_file, std::fs::Permissions::from_mode(0o600)).unwrap();
        let socket = dir.join("run/munge.socket");
        let munge_pid = dir.join("run/munged.pid");
        run(Command::new(program("munged").unwrap())
            .arg("--force")
            .arg(format!("--socket={}", socket.display()))
            .arg(format!("--key-file={}", key_file.display()))
            .arg(format!("--pid-file={}", munge_pid.display()))
            .arg(format!(
                "--log-file={}",
                dir.join("log/munged.log").display()
            ))
            .arg(format!(
                "--seed-file={}",
                dir.join("run/munged.seed").display()
            )));
        cluster.pid_files.push(munge_pid);
        // the node as slurmd sees it (CPUs, memory)
        let node = run(Command::new(program("slurmd").unwrap()).arg("-C"));
        let node = node.lines().next().unwrap().to_string();
        let host = run(Command::new("hostname").arg("-s")).trim().to_string();
        // the daemons run as whoever runs the test (root on CI; a user of its own works too,
        // for jobs of that user)
        let user = run(Command::new("id").arg("-un")).trim().to_string();
        let d = |s: &str| dir.join(s).display().to_string();
        let conf = format!(
            "ClusterName=vodbench\n\
             SlurmctldHost={host}\n\
             SlurmctldPort={}\n\
             SlurmdPort={}\n\
             AuthType=auth/munge\n\
             AuthInfo=socket={}\n\
             CredType=cred/munge\n\
             SlurmUser={user}\n\
             SlurmdUser={user}\n\
             StateSaveLocation={}\n\
             SlurmdSpoolDir={}\n\
             SlurmctldPidFile={}\n\
             SlurmdPidFile={}\n\
             SlurmctldLogFile={}\n\
             SlurmdLogFile={}\n\
             ProctrackType=proctrack/linuxproc\n\
             TaskPlugin=task/none\n\
             SelectType=select/cons_tres\n\
             SelectTypeParameters=CR_Core\n\
             ReturnToService=2\n\
             MpiDefault=none\n\
             JobAcctGatherType=jobacct_gather/none\n\
             AccountingStorageType=accounting_storage/none\n\
             {node} State=UNKNOWN\n\
             PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP\n",
            free_port(),
            free_port(),
            socket.display(),
            d("ctld"),
            d("d"),
            d("run/slurmctld.pid"),
            d("run/slurmd.pid"),
            d("log/slurmctld.log"),
            d("log/slurmd.log"),
        );
        std::fs::write(&cluster.conf, conf).unwrap();
        run(cluster.command("slurmctld").arg("-i"));
        cluster.pid_files.push(dir.join("run/slurmctld.pid"));
        run(&mut cluster.command("slurmd"));
        cluster.pid_files.push(dir.join("run/slurmd.pid"));
        // the node comes up idle
        let since = Instant::now();
        loop {
            let state = cluster.command("sinfo").args(["-h", "-o", "%t"]).output();
            if state.is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "idle") {
                break;
            }
            assert!(
                since.elapsed() < Duration::from_secs(60),
                "the Slurm node did not come up idle in 60 s:\n{}",
                cluster.logs()
            );
            std::thread::sleep(Duration::from_millis(250));
        }
        cluster
    }

    /// A Slurm program run against this cluster.
    fn command(&self, name: &str) -> Command {
        let mut c = Command::new(program(name).unwrap_or_else(|| PathBuf::from(name)));
        c.env("SLURM_CONF", &self.conf);
        c
    }

    /// Runs `vodbench ARGS --submit` against this cluster and waits until the jobs it
    /// submitted have left the queue; what it printed.
    fn submit_and_wait(&self, args: &[&str]) -> String {
        let mut submit = Command::new(env!("CARGO_BIN_EXE_vodbench"));
        submit
            .args(args)
            .arg("--submit")
            .current_dir(common::root())
            .env("SLURM_CONF", &self.conf);
        let stdout = run(&mut submit);
        let jobs = stdout
            .lines()
            .find_map(|l| l.strip_prefix("watch them: squeue -j "))
            .unwrap_or_else(|| panic!("no job ids in:\n{stdout}"))
            .to_string();
        let since = Instant::now();
        loop {
            let queued = run(self.command("squeue").args(["-h", "-j", &jobs]));
            if queued.trim().is_empty() {
                return stdout;
            }
            assert!(
                since.elapsed() < Duration::from_secs(600),
                "jobs {jobs} still queued after 10 min:\n{queued}\n{}",
                self.logs()
            );
            std::thread::sleep(Duration::from_millis(500));
        }
    }

    /// The daemons' logs, for a failure's message.
    fn logs(&self) -> String {
        let mut s = String::new();
        for f in ["log/slurmctld.log", "log/slurmd.log", "log/munged.log"] {
            let text = std::fs::read_to_string(self.dir.join(f)).unwrap_or_default();
            let tail: Vec<&str> = text.lines().rev().take(15).collect();
            s += &format!("--- {f} (last lines)\n");
            for l in tail.into_iter().rev() {
                s += l;
                s.push('\n');
            }
        }
        s
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        // the daemons this test started, by pid, the last started first
        let pids: Vec<String> = self
            .pid_files
            .iter()
            .rev()
            .filter_map(|f| std::fs::read_to_string(f).ok())
            .map(|p| p.trim().to_string())
            .filter(|p| !p.is_empty())
            .collect();
        for p in &pids {
            let _ = Command::new("kill").arg(p).status();
        }
        let since = Instant::now();
        while pids.iter().any(|p| Path::new("/proc").join(p).exists())
            && since.elapsed() < Duration::from_secs(10)
        {
            std::thread::sleep(Duration::from_millis(100));
        }
        for p in &pids {
            if Path::new("/proc").join(p).exists() {
                let _ = Command::new("kill").args(["-9", p]).status();
            }
        }
    }
}

#[test]
fn a_sweep_and_a_search_submitted_to_slurm_merge_into_the_local_ones() {
    if let Some(why) = missing() {
        assert!(
            !ci(),
            "{why}, and CI is set: CI must run the Slurm test (.ci/run installs it)"
        );
        eprintln!("skipped: {why}");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let cluster = Cluster::start(&tmp.path().join("cluster"));
    let out = tmp.path().join("shared/sweep");
    let stdout = cluster.submit_and_wait(&[
        "slurm",
        SMALL,
        "--seeds",
        "4",
        "--tasks",
        "2",
        "--max-running",
        "2",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(stdout.contains("array 0-1, at most 2 at once"), "{stdout}");
    let slurm_dir = tmp.path().join("shared/sweep.slurm");
    let logs = || {
        let mut s = String::new();
        for e in std::fs::read_dir(&slurm_dir).unwrap().flatten() {
            s += &format!(
                "--- {}\n{}\n",
                e.path().display(),
                std::fs::read_to_string(e.path()).unwrap_or_default()
            );
        }
        s + &cluster.logs()
    };
    assert!(
        out.join("sweep.json").is_file(),
        "the merge job wrote no sweep.json:\n{}",
        logs()
    );
    // two tasks' logs and the merge's
    let names: Vec<String> = std::fs::read_dir(&slurm_dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names.iter().filter(|n| n.starts_with("task-")).count(),
        2,
        "{names:?}"
    );
    assert!(names.iter().any(|n| n.starts_with("merge-")), "{names:?}");
    // the same as a sweep made here in one go
    let local = tmp.path().join("local");
    let o = common::vodbench(&[
        "sweep",
        SMALL,
        "--seeds",
        "4",
        "--quiet",
        "--out",
        local.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{:?}", common::text(&o));
    common::assert_same_files(
        &out,
        &local,
        &common::SWEEP_SMALL_FILES,
        "between the Slurm sweep and the local one",
    );
    // a scenario without a [sweep]: its search's replications are shared by the tasks
    let searched = tmp.path().join("shared/search");
    let stdout = cluster.submit_and_wait(&[
        "slurm",
        SEARCH,
        "--seeds",
        "6",
        "--tasks",
        "3",
        "--out",
        searched.to_str().unwrap(),
    ]);
    assert!(
        stdout.contains("3–6 replications shared by 3 tasks"),
        "{stdout}"
    );
    let local = tmp.path().join("local-search");
    let o = common::vodbench(&[
        "search",
        SEARCH,
        "--seeds",
        "6",
        "--quiet",
        "--out",
        local.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{:?}", common::text(&o));
    common::assert_same_files(
        &searched,
        &local,
        &["search.json", "curve.csv", "report.html"],
        "between the Slurm search and the local one",
    );
    drop(cluster);
}
