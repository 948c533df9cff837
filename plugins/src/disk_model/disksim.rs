//! `disksim`: DiskSim 4.0 itself as a disk model, through its external interface (issue 3,
//! item 5). Built only with the cargo feature `disksim`.
//!
//! **What it models.** Whatever the DiskSim 4.0 system in the parameter file models (CMU
//! PDL's DiskSim 4.0, e.g. the unmodified 4.0 tree of `github.com/benh/disksim` built with
//! its 64-bit portability fixes): for the bundled disks, DiskSim's validated drives with
//! their zones, seek curves, caches, controller and buses, behind an FCFS driver queue of
//! depth 1. Requests go to DiskSim's device 0, so the file must describe a system with one
//! disk. vodbench ships no DiskSim code: a small C shim of ours (`plugins/csrc/disksim_shim.c`)
//! drives `disksim_interface_initialize`, `_request_arrive`, `_internal_event` and
//! `_free_disksim`, and `plugins/build.rs` links the DiskSim libraries of the tree named by
//! the environment variable `DISKSIM_DIR`.
//!
//! **Parameters**, as for `mechanical`: `spec` is a bundled disk (`barracuda`,
//! `cheetah9LP`, `hp_c2247a`; `st15150n` is only a disk and a bus for `mechanical`, not a
//! whole DiskSim system) or the path of a DiskSim `.parv` (relative to the
//! scenario; DiskSim reads it, its `source` includes and its `Stat definition file` relative
//! to the file's folder); `disk` optionally names the disk (its instance or its block) and
//! must then be the one disk of the file. Bundled disks are written, with DiskSim's
//! `statdefs`, to a temporary folder for DiskSim to read and removed once it has loaded them
//! (the logorg's `Time stamp file name`, which DiskSim opens relative to the current directory
//! even with time stamps off, is pointed into that folder). With a `.parv` path, DiskSim
//! creates that (empty) file relative to the current directory, as the standalone `disksim`
//! does. DiskSim's own output goes to `/dev/null`.
//!
//! **Timing.** [`service`](DiskModel::service) at `now`: DiskSim first handles its pending
//! internal events that fall strictly before `now`, then the request arrives at `now`, then
//! DiskSim runs until its completion callback fires; the service time is completion − `now`.
//! DiskSim's clock is `f64` milliseconds; `now` (integer ns) is passed as `ns / 1e6` and the
//! completion comes back as `round(ms × 1e6)` ns. DiskSim's interface reports only the
//! completion, not its parts, so the whole service time is reported as
//! [`overhead`](ServiceTime::overhead) (the part not attributed to seek, rotation or
//! transfer); `seek`, `rotation` and `transfer` are 0 and `cache_hit` is `false`. DiskSim
//! cannot go back in time: a `now` before the previous completion is served from the previous
//! completion (the engine never does this; it serves one access at a time).
//!
//! **Geometry** (`geometry`, `cylinder_of`) and [`service_bound`](DiskModel::service_bound)
//! come from the `mechanical` model of the same file (its block count, zones and LBN map
//! match DiskSim's probes exactly for the Barracuda and the HP C2247A, see
//! `tests/mechanical_disksim.rs`; `tests/disksim_binding.rs` checks that DiskSim's service
//! times stay within the bound on the fixtures). DiskSim's interface does not
//! expose the head, so `head_cylinder` is the cylinder of the last sector of the last
//! request.
//!
//! **Several instances** coexist (a scenario with many disks): DiskSim 4.0 keeps each
//! instance's state in a `struct disksim` behind one global pointer, which its interface
//! functions repoint at the instance they are given, and its random numbers live in that
//! state too. A process-wide lock serialises every call into DiskSim, so instances may live
//! on different threads but never run DiskSim at the same time. (One DiskSim scheduler, the
//! shortest-positioning-time "TSPS" policy, keeps static state that DiskSim itself shares
//! even between the disks of one instance; the bundled files use FCFS.) While DiskSim parses
//! a parameter file it points the process's standard output at `/dev/null`.
//!
//! **Errors.** DiskSim stops the process on many bad inputs (its parser dereferences a
//! missing table entry for an unknown parameter name, `exit`s on a value of the wrong type,
//! `abort`s on a failed assertion), so every file is first checked, and DiskSim only sees files
//! that pass: with the `mechanical` parser ([`load_spec`](mechanical::load_spec)) for syntax
//! and the disk's physics, then for a `topology` with exactly one `disksim_disk`, the blocks
//! DiskSim instantiates unconditionally (`disksim_global`, `disksim_stats`) and the `Stat
//! definition file`, and finally every block against the parameter tables of the linked
//! DiskSim's parser (libparam: known block types, parameter names and types, required
//! parameters; the tables are filled by loading the bundled barracuda once per process).
//! These give a typed [`DiskSimError`] naming the file and line. DiskSim's own assertions
//! (`ddbg_assert`) are turned into an error too; after one, DiskSim's state is unknown and no
//! new instance can be made in this process ([`DiskSimError::Broken`]). If DiskSim fails in
//! the middle of a run, `service` (which cannot return an error) reports it once on standard
//! error and that instance continues with its `mechanical` twin; [`DiskSim::failure`] tells.
//!
//! ```no_run
//! use vodbench_plugin_api::plugin::{DiskAccess, DiskModel};
//! use vodbench_plugin_api::time::SimTime;
//! use vodbench_plugins::disk_model::disksim::DiskSim;
//! let mut d = DiskSim::bundled("barracuda", None).unwrap();
//! let t = d.service(&DiskAccess { offset: 0, bytes: 4096, write: false }, SimTime::ZERO);
//! assert!(t.total() > t.seek); // all of it is in `overhead`
//! ```

use super::mechanical::{self, bundled, params, Mechanical};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_ulong, CStr, CString};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};
use vodbench_plugin_api::plugin::{
    BuildContext, DiskAccess, DiskGeometry, DiskModel, Plugin, PluginError, ServiceTime,
};
use vodbench_plugin_api::time::{SimDuration, SimTime};

/// Bytes per sector.
const SECTOR: u64 = mechanical::SECTOR;

/// DiskSim's `statdefs` (statistics buckets), which every `.parv` names; written beside the
/// bundled disks.
const STATDEFS: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/disks/statdefs"));

mod ffi {
    use std::ffi::{c_char, c_int, c_ulong};

    /// `struct vb_disksim` of `csrc/disksim_shim.c`.
    #[repr(C)]
    pub struct VbDisksim {
        _private: [u8; 0],
    }

    extern "C" {
        pub fn vb_disksim_open(
            parv: *const c_char,
            outv: *const c_char,
            out: *mut *mut VbDisksim,
            err: *mut c_char,
            errlen: usize,
        ) -> c_int;
        #[allow(clippy::too_many_arguments)]
        pub fn vb_disksim_serve(
            h: *mut VbDisksim,
            now_ms: f64,
            devno: c_int,
            blkno: c_ulong,
            bytes: c_int,
            write: c_int,
            completed_ms: *mut f64,
            err: *mut c_char,
            errlen: usize,
        ) -> c_int;
        pub fn vb_disksim_close(h: *mut VbDisksim);
        pub fn vb_disksim_broken() -> c_int;
        pub fn vb_lp_module(name: *const c_char) -> c_int;
        pub fn vb_lp_module_name(m: c_int) -> *const c_char;
        pub fn vb_lp_nparams(m: c_int) -> c_int;
        pub fn vb_lp_param(m: c_int, i: c_int, ty: *mut c_int, req: *mut c_int) -> *const c_char;
    }
}

/// Serialises every call into DiskSim (its state sits behind one global pointer).
static DISKSIM_LOCK: Mutex<()> = Mutex::new(());

fn lock() -> MutexGuard<'static, ()> {
    // a panic elsewhere while holding the lock leaves DiskSim as consistent as any return
    DISKSIM_LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// Why a `disksim` disk could not be made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DiskSimError {
    /// The parameter files do not load (file, line and parameter are named).
    #[error(transparent)]
    Spec(#[from] params::SpecError),
    /// The file loads but is not a system DiskSim can run as this model.
    #[error("{file}: {message}")]
    Unsupported {
        /// The top file.
        file: String,
        /// What is wrong.
        message: String,
    },
    /// A parameter DiskSim's parser would crash or exit on (unknown name, wrong type,
    /// missing required parameter, unknown block type).
    #[error("{at}: {message}")]
    Param {
        /// `file:line`.
        at: String,
        /// What is wrong.
        message: String,
    },
    /// DiskSim refused the file.
    #[error("{file}: DiskSim could not load it: {message}")]
    Init {
        /// The top file.
        file: String,
        /// DiskSim's reason.
        message: String,
    },
    /// The bundled files could not be written for DiskSim to read.
    #[error("cannot write the bundled disk `{disk}` for DiskSim in {dir}: {message}")]
    TempFiles {
        /// The bundled disk.
        disk: String,
        /// The folder.
        dir: String,
        /// The operating system's reason.
        message: String,
    },
    /// An assertion inside DiskSim fired earlier in this process; its state is unknown.
    #[error("DiskSim failed earlier in this process and cannot be used again: {0}")]
    Broken(String),
    /// DiskSim failed while serving a request.
    #[error("DiskSim failed while serving a request: {0}")]
    Run(String),
}

/// Parameters of `disksim`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct DiskSimParams {
    /// A bundled DiskSim system (`barracuda`, `cheetah9LP`, `hp_c2247a`) or the path of a
    /// DiskSim 4.0 `.parv` describing a system with one disk, relative to the scenario.
    pub spec: String,
    /// The disk's instance or block name (optional; it must be the file's one disk).
    pub disk: Option<String>,
}

impl Default for DiskSimParams {
    fn default() -> Self {
        DiskSimParams {
            spec: "barracuda".into(),
            disk: None,
        }
    }
}

/// The `disksim` disk model: one DiskSim 4.0 instance.
pub struct DiskSim {
    handle: *mut ffi::VbDisksim,
    twin: Mechanical,
    /// DiskSim's clock: the previous completion, ns.
    clock_ns: u64,
    head: u32,
    failure: Option<String>,
}

// SAFETY: the handle is only used through `&mut self` (or in `drop`), and every call into
// DiskSim holds `DISKSIM_LOCK`, so moving an instance to another thread is sound.
unsafe impl Send for DiskSim {}

fn err_text(buf: &[c_char]) -> String {
    // SAFETY: the shim always NUL-terminates within the buffer (snprintf); the buffer is
    // zeroed beforehand, so it holds a NUL even if nothing was written.
    unsafe { CStr::from_ptr(buf.as_ptr()) }
        .to_string_lossy()
        .into_owned()
}

fn count_disks(n: &params::TopoNode, out: &mut Vec<String>) {
    if n.kind == "disksim_disk" {
        out.push(n.name.clone());
    }
    for c in &n.children {
        count_disks(c, out);
    }
}

fn topo_names(n: &params::TopoNode, out: &mut Vec<String>) {
    out.push(n.name.clone());
    for c in &n.children {
        topo_names(c, out);
    }
}

/// Checks that `pf` (read from `file`) is a one-disk system DiskSim can load; returns the
/// `Stat definition file` it names.
fn check_system(
    pf: &params::ParamFile,
    file: &str,
    disk: Option<&str>,
) -> Result<String, DiskSimError> {
    let unsupported = |message: String| DiskSimError::Unsupported {
        file: file.to_string(),
        message,
    };
    if pf.topology.is_empty() {
        return Err(unsupported(
            "no `topology`: the `disksim` model needs a whole DiskSim system (a `.parv` with \
             driver, buses, controller and one disk), not only a disk spec"
                .into(),
        ));
    }
    for kind in ["disksim_global", "disksim_stats"] {
        if !pf.blocks.iter().any(|b| b.kind == kind) {
            return Err(unsupported(format!(
                "no `{kind}` block (DiskSim requires one)"
            )));
        }
    }
    let mut disks = Vec::new();
    let mut names = Vec::new();
    for t in &pf.topology {
        count_disks(t, &mut disks);
        topo_names(t, &mut names);
    }
    if disks.len() != 1 {
        return Err(unsupported(format!(
            "the topology has {} disks ({}); the `disksim` model drives DiskSim's device 0 and \
             needs a system with exactly one disk",
            disks.len(),
            disks.join(", ")
        )));
    }
    for n in &names {
        if !pf.instances.iter().any(|(i, _)| i == n) {
            return Err(unsupported(format!(
                "topology component `{n}` is never instantiated (`instantiate [ {n} ] as …`)"
            )));
        }
    }
    if let Some(want) = disk {
        let inst = &disks[0];
        let block = pf
            .instances
            .iter()
            .find(|(i, _)| i == inst)
            .map(|(_, b)| b.as_str());
        if want != inst && Some(want) != block {
            return Err(unsupported(format!(
                "disk `{want}` is not the system's disk (`{inst}`, an instance of `{}`)",
                block.unwrap_or("?")
            )));
        }
    }
    let stat = pf
        .blocks
        .iter()
        .filter(|b| b.kind == "disksim_global")
        .flat_map(|b| b.params.iter())
        .find(|p| p.name.eq_ignore_ascii_case("Stat definition file"))
        .ok_or_else(|| {
            unsupported("`disksim_global` has no `Stat definition file` (DiskSim needs one)".into())
        })?;
    match &stat.value {
        params::Value::Word(w) => Ok(w.clone()),
        _ => Err(unsupported(format!(
            "{}: `Stat definition file` must be a file name",
            stat.at
        ))),
    }
}

/// One parameter of a libparam module.
struct VarSpec {
    name: String,
    /// libparam's type: -1 block, -2 string, -3 int, -4 double, -5 list, -6 topology;
    /// >= 0: a block of that module.
    ty: c_int,
    required: bool,
}

/// libparam's parameter tables, read from the linked DiskSim (callers hold `DISKSIM_LOCK`).
#[derive(Default)]
struct Tables {
    modules: HashMap<String, Option<Vec<VarSpec>>>,
}

impl Tables {
    /// The parameters of module `name`, or `None` if libparam has no such module.
    fn vars(&mut self, name: &str) -> Option<&[VarSpec]> {
        self.modules
            .entry(name.to_string())
            .or_insert_with(|| {
                let c = CString::new(name).ok()?;
                // SAFETY: libparam's tables are only read, under DISKSIM_LOCK, after DiskSim
                // registered its modules (`warm_up`); indices come from libparam itself
                unsafe {
                    let m = ffi::vb_lp_module(c.as_ptr());
                    if m < 0 {
                        return None;
                    }
                    let n = ffi::vb_lp_nparams(m);
                    let mut out = Vec::new();
                    for i in 0..n {
                        let (mut ty, mut req) = (0, 0);
                        let p = ffi::vb_lp_param(m, i, &mut ty, &mut req);
                        if p.is_null() {
                            continue;
                        }
                        out.push(VarSpec {
                            name: CStr::from_ptr(p).to_string_lossy().into_owned(),
                            ty,
                            required: req != 0,
                        });
                    }
                    Some(out)
                }
            })
            .as_deref()
    }

    fn module_name(m: c_int) -> String {
        // SAFETY: `m` is a parameter type >= 0, i.e. a registered module's index
        unsafe { CStr::from_ptr(ffi::vb_lp_module_name(m)) }
            .to_string_lossy()
            .into_owned()
    }

    /// The libparam module of a block of type `kind`: the module itself, or through the
    /// blocks it derives from (`SEAGATE_ST32171W foo { … }`).
    fn module_of(&mut self, kind: &str, pf: &params::ParamFile) -> Option<String> {
        let mut k = kind.to_string();
        for _ in 0..=params::MAX_INCLUDE_DEPTH {
            if self.vars(&k).is_some() {
                return Some(k);
            }
            k = pf
                .blocks
                .iter()
                .find(|b| b.name.as_deref() == Some(k.as_str()))?
                .kind
                .clone();
        }
        None
    }

    /// Checks `b` as DiskSim's parser would, without crashing or exiting.
    fn check_block(
        &mut self,
        b: &params::Block,
        pf: &params::ParamFile,
        depth: u32,
    ) -> Result<(), DiskSimError> {
        let bad = |at: &params::Loc, message: String| DiskSimError::Param {
            at: at.to_string(),
            message,
        };
        if depth > 64 {
            return Err(bad(&b.at, "blocks nest too deeply".into()));
        }
        let module = self.module_of(&b.kind, pf).ok_or_else(|| {
            bad(
                &b.at,
                format!(
                    "`{}` is neither a DiskSim 4.0 block type nor a block defined in these files",
                    b.kind
                ),
            )
        })?;
        let derived = module != b.kind;
        let vars: Vec<(String, c_int, bool)> = self
            .vars(&module)
            .unwrap_or_default()
            .iter()
            .map(|v| (v.name.clone(), v.ty, v.required))
            .collect();
        for p in &b.params {
            let Some((_, ty, _)) = vars.iter().find(|(n, _, _)| *n == p.name) else {
                return Err(bad(
                    &p.at,
                    format!(
                        "`{module}` has no parameter `{}` (DiskSim 4.0's parser would crash on it)",
                        p.name
                    ),
                ));
            };
            self.check_value(*ty, &p.value, p, &module, pf, depth)?;
        }
        if !derived {
            for (name, _, required) in &vars {
                if *required && !b.params.iter().any(|p| p.name == *name) {
                    return Err(bad(
                        &b.at,
                        format!("`{module}` block lacks the required parameter `{name}`"),
                    ));
                }
            }
        }
        Ok(())
    }

    fn check_value(
        &mut self,
        ty: c_int,
        v: &params::Value,
        p: &params::Param,
        module: &str,
        pf: &params::ParamFile,
        depth: u32,
    ) -> Result<(), DiskSimError> {
        use params::Value;
        let ok = match (ty, v) {
            (-3, Value::Int(_)) | (-4, Value::Int(_) | Value::Float(_)) | (-2, Value::Word(_)) => {
                true
            }
            (-6, _) => true,
            (-5, Value::List(items)) => {
                for item in items {
                    if let Value::Block(b) = item {
                        self.check_block(b, pf, depth + 1)?;
                    }
                }
                true
            }
            (-1, Value::Block(b)) => {
                self.check_block(b, pf, depth + 1)?;
                true
            }
            (t, Value::Block(b)) if t >= 0 => {
                self.check_block(b, pf, depth + 1)?;
                true
            }
            _ => false,
        };
        if ok {
            return Ok(());
        }
        let want = match ty {
            -1 => "a block".to_string(),
            -2 => "a word (string)".to_string(),
            -3 => "an integer".to_string(),
            -4 => "a number".to_string(),
            -5 => "a list".to_string(),
            t if t >= 0 => format!("a `{}` block", Tables::module_name(t)),
            t => format!("libparam type {t}"),
        };
        let found = match v {
            Value::Int(_) => "an integer",
            Value::Float(_) => "a number",
            Value::Word(_) => "a word",
            Value::List(_) => "a list",
            Value::Block(_) => "a block",
        };
        Err(DiskSimError::Param {
            at: p.at.to_string(),
            message: format!(
                "parameter `{}` of `{module}` takes {want}, found {found} (DiskSim 4.0 would exit)",
                p.name
            ),
        })
    }
}

/// Checks every block of `pf` against the parameter tables of the linked DiskSim.
fn check_params(pf: &params::ParamFile) -> Result<(), DiskSimError> {
    warm_up()?;
    let _g = lock();
    let mut t = Tables::default();
    for b in &pf.blocks {
        t.check_block(b, pf, 0)?;
    }
    Ok(())
}

/// DiskSim registers its parameter tables when it loads its first file: load the bundled
/// barracuda once, so that every later file can be checked before DiskSim sees it.
fn warm_up() -> Result<(), DiskSimError> {
    static WARM: OnceLock<Result<(), DiskSimError>> = OnceLock::new();
    WARM.get_or_init(|| {
        let name = "barracuda";
        let twin =
            Mechanical::bundled(name, None).map_err(|message| DiskSimError::Unsupported {
                file: name.into(),
                message,
            })?;
        let dir = write_bundled(name)?;
        let top = bundled::file_of(name).unwrap_or("barracuda.parv");
        DiskSim::start(&dir.0.join(top), top, twin).map(drop)
    })
    .clone()
}

/// Writes the bundled files and DiskSim's `statdefs` to a fresh temporary folder.
fn write_bundled(disk: &str) -> Result<TempFolder, DiskSimError> {
    let dir = TempFolder::new().map_err(|e| DiskSimError::TempFiles {
        disk: disk.into(),
        dir: std::env::temp_dir().display().to_string(),
        message: e.to_string(),
    })?;
    let files = bundled::FILES
        .iter()
        .copied()
        .chain(std::iter::once(("statdefs", STATDEFS)));
    for (name, text) in files {
        let text = if name.ends_with(".parv") {
            stamps_into(text, &dir.0)
        } else {
            text.to_string()
        };
        std::fs::write(dir.0.join(name), text).map_err(|e| DiskSimError::TempFiles {
            disk: disk.into(),
            dir: dir.0.display().to_string(),
            message: e.to_string(),
        })?;
    }
    Ok(dir)
}

/// `parv` with its logorgs' `Time stamp file name` moved into `dir`: DiskSim creates that
/// file relative to the current directory, even with time stamps off. Left as it is if
/// `dir`'s path is not a plain word in DiskSim's syntax.
fn stamps_into(parv: &str, dir: &Path) -> String {
    let path = dir.join("stamps").display().to_string();
    if !path
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-".contains(c))
    {
        return parv.to_string();
    }
    let mut out = String::with_capacity(parv.len() + 64);
    for line in parv.lines() {
        let t = line.trim_start();
        if t.starts_with("Time stamp file name") && t.contains('=') {
            let indent = &line[..line.len() - t.len()];
            let comma = if t.trim_end().ends_with(',') { "," } else { "" };
            out.push_str(&format!("{indent}Time stamp file name = {path}{comma}"));
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

/// A private folder under the system's temporary directory, removed on drop.
struct TempFolder(PathBuf);

impl TempFolder {
    fn new() -> std::io::Result<TempFolder> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let base = std::env::temp_dir();
        loop {
            let p = base.join(format!(
                "vodbench-disksim-{}-{}",
                std::process::id(),
                NEXT.fetch_add(1, Ordering::Relaxed)
            ));
            match std::fs::create_dir(&p) {
                Ok(()) => return Ok(TempFolder(p)),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        }
    }
}

impl Drop for TempFolder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl DiskSim {
    /// A bundled disk by name.
    pub fn bundled(name: &str, disk: Option<&str>) -> Result<DiskSim, DiskSimError> {
        if bundled::file_of(name).is_none() {
            let known: Vec<&str> = bundled::DISKS.iter().map(|(n, _)| *n).collect();
            return Err(DiskSimError::Unsupported {
                file: name.to_string(),
                message: format!("not a bundled disk (bundled: {})", known.join(", ")),
            });
        }
        DiskSim::open(name, disk, Path::new(""))
    }

    /// The disk named by `spec`: a bundled disk, else a `.parv` path resolved against `base`.
    pub fn open(spec: &str, disk: Option<&str>, base: &Path) -> Result<DiskSim, DiskSimError> {
        // everything DiskSim would die on is checked here first
        let typed = mechanical::load_spec(spec, disk, base)?;
        let twin = Mechanical::new(&typed).map_err(|message| DiskSimError::Unsupported {
            file: spec.to_string(),
            message,
        })?;
        match bundled::file_of(spec) {
            Some(top) => {
                let pf = params::read(&bundled::source(), Path::new(""), top)?;
                check_system(&pf, top, disk)?;
                check_params(&pf)?;
                let dir = write_bundled(spec)?;
                let parv = dir.0.join(top);
                DiskSim::start(&parv, top, twin)
                // `dir` is removed here: DiskSim has read everything it needs
            }
            None => {
                let path = base.join(spec);
                let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
                let name = path
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let shown = path.display().to_string();
                let pf = params::read(&params::FileSystem, &dir, &name)?;
                let stat = check_system(&pf, &shown, disk)?;
                let stat_path = dir.join(&stat);
                if !stat_path.is_file() {
                    return Err(DiskSimError::Unsupported {
                        file: shown,
                        message: format!(
                            "the `Stat definition file` {} does not exist (DiskSim reads it \
                             relative to the parameter file; DiskSim 4.0's `statdefs` is in \
                             vodbench's plugins/disks/)",
                            stat_path.display()
                        ),
                    });
                }
                check_params(&pf)?;
                DiskSim::start(&path, &shown, twin)
            }
        }
    }

    fn start(parv: &Path, shown: &str, twin: Mechanical) -> Result<DiskSim, DiskSimError> {
        let init = |message: String| DiskSimError::Init {
            file: shown.to_string(),
            message,
        };
        let c_parv = CString::new(parv.as_os_str().as_encoded_bytes())
            .map_err(|_| init("the path contains a NUL byte".into()))?;
        // DiskSim copies the output name into a 256-byte field and reads paths into
        // fixed-size buffers
        if parv.as_os_str().len() > 200 {
            return Err(init(
                "the path is longer than 200 bytes (DiskSim keeps paths in fixed-size buffers)"
                    .into(),
            ));
        }
        let c_out = CString::new("/dev/null").expect("no NUL");
        let mut err = [0 as c_char; 512];
        let mut handle: *mut ffi::VbDisksim = std::ptr::null_mut();
        let _g = lock();
        // SAFETY: plain FFI into our shim; the strings and the buffer outlive the call
        unsafe {
            let broken_before = ffi::vb_disksim_broken() != 0;
            let rc = ffi::vb_disksim_open(
                c_parv.as_ptr(),
                c_out.as_ptr(),
                &mut handle,
                err.as_mut_ptr(),
                err.len(),
            );
            if broken_before {
                return Err(DiskSimError::Broken(err_text(&err)));
            }
            if rc != 0 || handle.is_null() {
                return Err(init(err_text(&err)));
            }
        }
        Ok(DiskSim {
            handle,
            twin,
            clock_ns: 0,
            head: 0,
            failure: None,
        })
    }

    /// `Some(reason)` once DiskSim has failed during a request (the instance then serves
    /// with its `mechanical` twin).
    pub fn failure(&self) -> Option<&str> {
        self.failure.as_deref()
    }

    fn sectors(&self, a: &DiskAccess) -> (u64, u64) {
        let blocks = self.geometry().capacity_bytes / SECTOR;
        let lbn = (a.offset / SECTOR).min(blocks - 1);
        let end = a
            .offset
            .saturating_add(a.bytes.max(1))
            .div_ceil(SECTOR)
            .min(blocks);
        (lbn, end.max(lbn + 1) - lbn)
    }

    /// Serves one request in DiskSim: the completion time in ns.
    fn serve(&mut self, lbn: u64, n: u64, write: bool, arrive_ns: u64) -> Result<u64, String> {
        let bytes = c_int::try_from(n * SECTOR)
            .map_err(|_| format!("request of {n} sectors is too large for DiskSim"))?;
        let blkno = c_ulong::try_from(lbn).map_err(|_| format!("block {lbn} out of range"))?;
        let now_ms = arrive_ns as f64 / 1e6;
        let mut done_ms = 0.0f64;
        let mut err = [0 as c_char; 512];
        let rc = {
            let _g = lock();
            // SAFETY: `handle` is a live instance (made by `start`, freed only in `drop`);
            // DiskSim is entered under the lock
            unsafe {
                ffi::vb_disksim_serve(
                    self.handle,
                    now_ms,
                    0,
                    blkno,
                    bytes,
                    c_int::from(write),
                    &mut done_ms,
                    err.as_mut_ptr(),
                    err.len(),
                )
            }
        };
        if rc != 0 {
            return Err(err_text(&err));
        }
        if !done_ms.is_finite() || done_ms < now_ms || done_ms * 1e6 >= u64::MAX as f64 {
            return Err(format!(
                "DiskSim completed a request arriving at {now_ms} ms at {done_ms} ms"
            ));
        }
        Ok(((done_ms * 1e6).round() as u64).max(arrive_ns))
    }
}

impl Drop for DiskSim {
    fn drop(&mut self) {
        let _g = lock();
        // SAFETY: the handle came from `vb_disksim_open` and is freed once, here
        unsafe { ffi::vb_disksim_close(self.handle) };
    }
}

impl std::fmt::Debug for DiskSim {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DiskSim")
            .field("clock_ns", &self.clock_ns)
            .field("failure", &self.failure)
            .finish_non_exhaustive()
    }
}

impl DiskModel for DiskSim {
    fn geometry(&self) -> DiskGeometry {
        self.twin.geometry()
    }

    fn cylinder_of(&self, offset: u64) -> u32 {
        self.twin.cylinder_of(offset)
    }

    fn head_cylinder(&self) -> u32 {
        if self.failure.is_some() {
            return self.twin.head_cylinder();
        }
        self.head
    }

    fn service(&mut self, a: &DiskAccess, now: SimTime) -> ServiceTime {
        if self.failure.is_some() {
            return self.twin.service(a, now);
        }
        let (lbn, n) = self.sectors(a);
        let now_ns = now.as_nanos();
        let arrive = now_ns.max(self.clock_ns);
        match self.serve(lbn, n, a.write, arrive) {
            Ok(done) => {
                self.clock_ns = done;
                self.head = self.twin.cylinder_of((lbn + n - 1) * SECTOR);
                ServiceTime {
                    overhead: SimDuration::from_nanos(done - now_ns),
                    ..ServiceTime::default()
                }
            }
            Err(e) => {
                eprintln!(
                    "vodbench: disk model `disksim`: {}; this disk continues with the \
                     `mechanical` model",
                    DiskSimError::Run(e.clone())
                );
                self.failure = Some(e);
                self.twin.service(a, SimTime::from_nanos(arrive))
            }
        }
    }

    fn service_bound(&self, a: &DiskAccess) -> SimDuration {
        self.twin.service_bound(a)
    }

    fn transfer_includes_bus(&self) -> bool {
        // DiskSim's drive moves the data over its own bus and controller
        true
    }
}

impl Plugin for DiskSim {
    type Kind = dyn DiskModel;
    type Params = DiskSimParams;
    const NAME: &'static str = "disksim";
    const DESCRIPTION: &'static str =
        "DiskSim 4.0 itself, through its external interface (cargo feature `disksim`, DISKSIM_DIR)";

    fn validate(p: &DiskSimParams) -> Result<(), PluginError> {
        if let Some(top) = bundled::file_of(&p.spec) {
            mechanical::load_spec(&p.spec, p.disk.as_deref(), Path::new(""))
                .map_err(|e| PluginError::param("spec", e.to_string()))?;
            let pf = params::read(&bundled::source(), Path::new(""), top)
                .map_err(|e| PluginError::param("spec", e.to_string()))?;
            check_system(&pf, top, p.disk.as_deref())
                .map_err(|e| PluginError::param("spec", e.to_string()))?;
        }
        Ok(())
    }

    fn build(p: &DiskSimParams, ctx: &BuildContext<'_>) -> Result<Box<dyn DiskModel>, PluginError> {
        DiskSim::open(&p.spec, p.disk.as_deref(), ctx.base_dir)
            .map(|d| Box::new(d) as Box<dyn DiskModel>)
            .map_err(|e| match e {
                DiskSimError::Spec(_) | DiskSimError::Unsupported { .. } => {
                    PluginError::param("spec", e.to_string())
                }
                _ => PluginError::Build(e.to_string()),
            })
    }
}
