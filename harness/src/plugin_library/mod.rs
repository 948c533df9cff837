//! Plugin libraries loaded at run time: the host side of the C ABI
//! ([`vodbench_plugin_api::abi`]).
//!
//! `--plugin PATH` on the command line and `[plugins] load = ["lib.so"]` in a scenario load a
//! shared library built apart from vodbench — a Rust `cdylib` made with
//! [`export_plugins!`](vodbench_plugin_api::export_plugins), or C against
//! `vodbench_plugin.h` — and register each of its policies in the [`Registry`] beside the
//! built-ins, chosen by name like them. Loading checks, in order, and refuses with an error
//! naming the file:
//!
//! 1. that the file is a regular file and a shared library for this machine (an ELF header
//!    of this architecture, on Linux);
//! 2. that it exports `vodbench_plugin_library`;
//! 3. its ABI version, then the size of every struct of the ABI, against this build's;
//! 4. every policy: a known kind, a name (unique among the registry's plugins of its kind),
//!    a valid parameter schema, the function table's required calls.
//!
//! Each call into a loaded policy goes through an adapter ([`imported`]) that implements the
//! kind's Rust trait; the engine checks its answers exactly as it checks a built-in's. A
//! failed call abandons the run with a [`PluginFailure`] naming the library, the policy and
//! the call ([`failure`]). A library's path and SHA-256 ([`Origin`]) are an input of every
//! result made with it: manifests record them, and checkpoints, the run cache and `rerun`
//! compare them.

mod failure;
mod imported;
pub mod params;

pub use failure::{abandon, catch, install_hook, PluginFailure};

use params::ParamSchema;
use std::borrow::Cow;
use std::ffi::{c_char, c_void, CStr, CString};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use vodbench_plugin_api::abi::*;
use vodbench_plugin_api::plugin::{
    params_of_schema, BuildContext, Kind, Origin, ParamInfo, PluginError, Registry,
};

/// Why a library was not loaded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("plugin library {path}: {message}")]
pub struct LibraryError {
    /// The library as it was named.
    pub path: PathBuf,
    /// What is wrong.
    pub message: String,
}

/// A library kept loaded for as long as a policy of it may be called.
pub(crate) struct LoadedLibrary {
    _lib: libloading::Library,
    pub(crate) origin: Arc<Origin>,
}

/// One policy of a loaded library, its calls checked present.
pub(crate) struct Policy {
    pub(crate) lib: Arc<LoadedLibrary>,
    pub(crate) kind: Kind,
    pub(crate) name: &'static str,
    description: &'static str,
    /// ``disk.scheduler `name` ``, for messages.
    pub(crate) label: String,
    schema: ParamSchema,
    check: Option<unsafe extern "C" fn(*const c_char, *mut VbStrSink, *mut VbError) -> i32>,
    create: unsafe extern "C" fn(*const c_char, *const VbBuildContext, *mut VbError) -> *mut c_void,
    pub(crate) destroy: unsafe extern "C" fn(*mut c_void),
    last_error: Option<unsafe extern "C" fn(*mut c_void) -> *const c_char>,
    /// The kind's function table (checked by [`imported::check_vtable`]).
    pub(crate) vtable: *const c_void,
}

// SAFETY: a policy's fields are immutable after loading; the library is kept alive by `lib`.
// Instances are created and called as the Rust traits allow (one thread at a time per
// instance; `&self` calls of layouts, schedules and models possibly at once, as the header
// states).
unsafe impl Send for Policy {}
unsafe impl Sync for Policy {}

/// The largest library read to hash it.
const MAX_LIBRARY_BYTES: u64 = crate::input::MAX_TEXT_BYTES;

/// Loads the library at `path` into `registry`: each of its policies becomes an entry of its
/// kind. Loading a library the registry already holds (same file, same bytes) does nothing.
/// Returns the names added, kind by kind.
pub fn load(registry: &mut Registry, path: &Path) -> Result<Vec<(Kind, String)>, LibraryError> {
    let refuse = |message: String| LibraryError {
        path: path.to_path_buf(),
        message,
    };
    let size = crate::input::regular_file_size(path, MAX_LIBRARY_BYTES).map_err(refuse)?;
    let canonical = path.canonicalize().map_err(|e| refuse(e.to_string()))?;
    let bytes = crate::input::read_regular(&canonical).map_err(refuse)?;
    if bytes.len() as u64 != size {
        return Err(refuse("changed while it was read".into()));
    }
    check_object_file(&bytes).map_err(refuse)?;
    let origin = Origin {
        path: canonical.display().to_string(),
        sha256: crate::digest::sha256_hex(&bytes),
    };
    if let Some(o) = registry
        .origins()
        .into_iter()
        .find(|o| o.path == origin.path)
    {
        if o.sha256 == origin.sha256 {
            return Ok(Vec::new());
        }
        return Err(refuse(format!(
            "was loaded already with other contents (sha256 {}, now {}); a process cannot \
             load two versions of one library",
            o.sha256, origin.sha256
        )));
    }
    // SAFETY: loading runs the library's initialisers; the library is the user's choice, as
    // a binary they run would be. Everything it returns is checked below before use.
    let lib = unsafe { libloading::Library::new(&canonical) }
        .map_err(|e| refuse(format!("cannot be loaded: {e}")))?;
    let symbol = format!("{VB_LIBRARY_SYMBOL}\0");
    // SAFETY: the symbol's type is the ABI's `VbLibraryFn`.
    let entry: VbLibraryFn = unsafe { lib.get::<VbLibraryFn>(symbol.as_bytes()) }
        .map(|s| *s)
        .map_err(|_| {
            refuse(format!(
                "exports no `{VB_LIBRARY_SYMBOL}`: not a vodbench plugin library (Rust: \
                 `vodbench_plugin_api::export_plugins!`; C: see vodbench_plugin.h)"
            ))
        })?;
    // SAFETY: calling the library's entry point; a null answer is refused.
    let table = unsafe { entry() };
    if table.is_null() {
        return Err(refuse(format!("`{VB_LIBRARY_SYMBOL}` returned NULL")));
    }
    // the version is read alone first: the rest of the struct may differ in another version
    // SAFETY: every version of `VbLibrary` starts with the version number.
    let version = unsafe { std::ptr::read(table.cast::<u32>()) };
    if version != VB_ABI_VERSION {
        return Err(refuse(format!(
            "built for plugin ABI version {version}; this vodbench speaks version \
             {VB_ABI_VERSION}: rebuild it against this version's vodbench_plugin.h or \
             vodbench-plugin-api"
        )));
    }
    // SAFETY: same version, so the same layout.
    let table = unsafe { &*table };
    check_sizes(&table.sizes).map_err(refuse)?;
    let lib = Arc::new(LoadedLibrary {
        _lib: lib,
        origin: Arc::new(origin),
    });
    let policies: &[VbPolicy] = if table.policy_count == 0 {
        return Err(refuse("exports no policy".into()));
    } else if table.policies.is_null() {
        return Err(refuse("`policies` is NULL".into()));
    } else {
        // SAFETY: the library promises `policy_count` entries.
        unsafe { std::slice::from_raw_parts(table.policies, table.policy_count as usize) }
    };
    let mut added = Vec::new();
    let mut next = registry.clone();
    for (i, p) in policies.iter().enumerate() {
        let policy = Arc::new(policy(&lib, i, p).map_err(refuse)?);
        imported::register(&mut next, Arc::clone(&policy)).map_err(|e| refuse(e.to_string()))?;
        added.push((policy.kind, policy.name.to_string()));
    }
    *registry = next;
    Ok(added)
}

/// Loads every library of `paths` (as [`load`] does) into a copy of `registry`, or borrows
/// it when there are none.
pub fn with_libraries<'r>(
    registry: &'r Registry,
    paths: &[PathBuf],
) -> Result<Cow<'r, Registry>, LibraryError> {
    if paths.is_empty() {
        return Ok(Cow::Borrowed(registry));
    }
    let mut r = registry.clone();
    for p in paths {
        load(&mut r, p)?;
    }
    Ok(Cow::Owned(r))
}

/// A file that cannot be a shared library for this machine, said plainly before the loader
/// says it obscurely.
fn check_object_file(bytes: &[u8]) -> Result<(), String> {
    if !cfg!(target_os = "linux") {
        return Ok(());
    }
    if bytes.len() < 20 || &bytes[..4] != b"\x7fELF" {
        return Err("not a shared library (no ELF header)".into());
    }
    let class = if cfg!(target_pointer_width = "64") {
        2
    } else {
        1
    };
    if bytes[4] != class {
        return Err(format!(
            "built for a {}-bit machine; this is {}",
            if bytes[4] == 1 { 32 } else { 64 },
            std::env::consts::ARCH
        ));
    }
    let machine = u16::from_le_bytes([bytes[18], bytes[19]]);
    let ours: Option<u16> = match std::env::consts::ARCH {
        "x86_64" => Some(62),
        "aarch64" => Some(183),
        "x86" => Some(3),
        "arm" => Some(40),
        "riscv64" => Some(243),
        _ => None,
    };
    if let Some(ours) = ours.filter(|&o| o != machine) {
        let name = match machine {
            3 => "x86",
            40 => "ARM",
            62 => "x86_64",
            183 => "aarch64",
            243 => "RISC-V",
            _ => "another architecture",
        };
        return Err(format!(
            "built for {name} (ELF machine {machine}); this is {} (ELF machine {ours})",
            std::env::consts::ARCH
        ));
    }
    let kind = u16::from_le_bytes([bytes[16], bytes[17]]);
    if kind != 3 {
        return Err(format!(
            "an ELF file of type {kind}, not a shared library (type 3): build it with \
             `-shared` (C) or `crate-type = [\"cdylib\"]` (Rust)"
        ));
    }
    check_elf_extents(bytes)
}

/// Every part of an ELF file that the loader maps (the program headers, each loadable
/// segment's bytes) and the section headers lie within the file: a truncated library is
/// refused here, where the loader would map past its end and the process die of SIGBUS.
fn check_elf_extents(bytes: &[u8]) -> Result<(), String> {
    let wide = bytes[4] == 2;
    if bytes[5] != 1 {
        return Err("a big-endian ELF file; this machine is little-endian".into());
    }
    let u16_at = |o: usize| {
        bytes
            .get(o..o + 2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
    };
    let u32_at = |o: usize| {
        bytes
            .get(o..o + 4)
            .map(|b| u64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]])))
    };
    let u64_at = |o: usize| {
        bytes
            .get(o..o + 8)
            .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
    };
    let word = |o64: usize, o32: usize| if wide { u64_at(o64) } else { u32_at(o32) };
    let truncated = |what: &str| {
        format!(
            "truncated: its {what} lies past the end of the file ({} bytes); build or copy it \
             again",
            bytes.len()
        )
    };
    let len = bytes.len() as u64;
    let header = |o64, o32| word(o64, o32).ok_or_else(|| truncated("ELF header"));
    let (phoff, shoff) = (header(32, 28)?, header(40, 32)?);
    let field = |o64: usize, o32: usize| {
        u16_at(if wide { o64 } else { o32 })
            .map(u64::from)
            .ok_or_else(|| truncated("ELF header"))
    };
    let (phentsize, phnum) = (field(54, 42)?, field(56, 44)?);
    let (shentsize, shnum) = (field(58, 46)?, field(60, 48)?);
    let end = |off: u64, size: u64, n: u64| off.checked_add(size.checked_mul(n)?);
    if end(phoff, phentsize, phnum).is_none_or(|e| e > len) {
        return Err(truncated("program header table"));
    }
    if shoff != 0 && end(shoff, shentsize, shnum).is_none_or(|e| e > len) {
        return Err(truncated("section header table"));
    }
    for i in 0..phnum {
        let at = (phoff + i * phentsize) as usize;
        let kind = u32_at(at).ok_or_else(|| truncated("program header table"))?;
        // PT_LOAD: a segment the loader maps from the file
        if kind != 1 {
            continue;
        }
        let (offset, filesz) = if wide {
            (u64_at(at + 8), u64_at(at + 32))
        } else {
            (u32_at(at + 4), u32_at(at + 16))
        };
        let (Some(offset), Some(filesz)) = (offset, filesz) else {
            return Err(truncated("program header table"));
        };
        if offset.checked_add(filesz).is_none_or(|e| e > len) {
            return Err(truncated(&format!("loadable segment {i}")));
        }
    }
    Ok(())
}

/// The library's struct sizes against this build's: the first that differs, named.
fn check_sizes(theirs: &VbSizes) -> Result<(), String> {
    let ours = sizes();
    macro_rules! each {
        ($($f:ident => $name:literal),*) => {
            $(if theirs.$f != ours.$f {
                return Err(format!(
                    "struct {} is {} bytes in the library and {} in this vodbench (ABI \
                     version {VB_ABI_VERSION}): rebuild it against this version's header",
                    $name, theirs.$f, ours.$f
                ));
            })*
        };
    }
    each!(
        library => "VbLibrary", policy => "VbPolicy", error => "VbError",
        build_context => "VbBuildContext", disk_model => "VbDiskModelVtable",
        disk_scheduler => "VbDiskSchedulerVtable", buffer_pool => "VbBufferPoolVtable",
        prefetcher => "VbPrefetcherVtable", layout => "VbLayoutVtable",
        interconnect => "VbInterconnectVtable", admission => "VbAdmissionVtable",
        transmission => "VbTransmissionVtable",
        broadcast_schedule => "VbBroadcastScheduleVtable",
        client_buffer => "VbClientBufferVtable", analytic_model => "VbAnalyticModelVtable"
    );
    Ok(())
}

/// A loaded policy's name (`label` names it in the message): letters, digits, `-`, `_` and
/// `.`, as scenario tables and command lines take it unquoted.
pub fn check_name(label: &str, name: &str) -> Result<(), String> {
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
    {
        return Err(format!(
            "{label}: a name takes letters, digits, '-', '_' and '.' only"
        ));
    }
    Ok(())
}

/// A string the library owns, copied (and leaked: names live as long as the process, as a
/// library does once loaded).
fn library_str(p: *const c_char, what: &str) -> Result<&'static str, String> {
    if p.is_null() {
        return Err(format!("{what} is NULL"));
    }
    // SAFETY: the library promises a NUL-terminated string.
    let s = unsafe { CStr::from_ptr(p) }
        .to_str()
        .map_err(|_| format!("{what} is not UTF-8"))?;
    Ok(Box::leak(s.to_string().into_boxed_str()))
}

fn policy(lib: &Arc<LoadedLibrary>, i: usize, p: &VbPolicy) -> Result<Policy, String> {
    // a kind added later keeps the ABI version: a number this build lacks is a newer kind
    let kind = Kind::from_abi_id(p.kind).ok_or_else(|| {
        format!(
            "policy {i} has kind {}, which this vodbench does not know (it knows kinds 1-{}): \
             this vodbench is older than the library, which uses a kind added since; load it \
             with a vodbench that has kind {}",
            p.kind,
            Kind::EXPORTED.len(),
            p.kind
        )
    })?;
    let name = library_str(p.name, &format!("policy {i}'s name"))?;
    let label = format!("{} `{name}`", kind.key());
    check_name(&label, name)?;
    let description = library_str(p.description, &format!("{label}'s description"))?;
    let schema_text = if p.params_schema.is_null() {
        None
    } else {
        Some(library_str(
            p.params_schema,
            &format!("{label}'s parameter schema"),
        )?)
    };
    let schema = ParamSchema::compile(schema_text).map_err(|e| format!("{label}: {e}"))?;
    let create = p
        .create
        .ok_or_else(|| format!("{label}: `create` is NULL"))?;
    let destroy = p
        .destroy
        .ok_or_else(|| format!("{label}: `destroy` is NULL"))?;
    if p.vtable.is_null() {
        return Err(format!("{label}: `vtable` is NULL"));
    }
    imported::check_vtable(kind, p.vtable).map_err(|e| format!("{label}: {e}"))?;
    Ok(Policy {
        lib: Arc::clone(lib),
        kind,
        name,
        description,
        label,
        schema,
        check: p.check,
        create,
        destroy,
        last_error: p.last_error,
        vtable: p.vtable,
    })
}

unsafe extern "C" fn push_string(ctx: *mut c_void, text: *const c_char, len: usize) {
    let out = &mut *ctx.cast::<Vec<String>>();
    let bytes = if text.is_null() {
        &[][..]
    } else {
        std::slice::from_raw_parts(text.cast::<u8>(), len)
    };
    out.push(String::from_utf8_lossy(bytes).into_owned());
}

/// A sink collecting strings into `out`.
pub(crate) fn string_sink(out: &mut Vec<String>) -> VbStrSink {
    VbStrSink {
        ctx: (out as *mut Vec<String>).cast(),
        push: push_string,
    }
}

fn empty_error() -> VbError {
    VbError {
        key: [0; 128],
        message: [0; 512],
    }
}

/// An error a library filled in: (key, message).
fn read_error(e: &VbError) -> (String, String) {
    let text = |b: &[c_char]| {
        let bytes: Vec<u8> = b
            .iter()
            .take_while(|&&c| c != 0)
            .map(|&c| c as u8)
            .collect();
        String::from_utf8_lossy(&bytes).into_owned()
    };
    (text(&e.key), text(&e.message))
}

impl Policy {
    /// The library's path.
    pub(crate) fn library(&self) -> &str {
        &self.lib.origin.path
    }

    /// The message of the last failed call on `state`.
    pub(crate) fn last_error(&self, state: *mut c_void) -> String {
        let Some(f) = self.last_error else {
            return "the call returned VB_ERROR (the library gives no message: no last_error)"
                .into();
        };
        // SAFETY: the ABI's call; the string is copied at once.
        let p = unsafe { f(state) };
        if p.is_null() {
            return "the call returned VB_ERROR with no message".into();
        }
        // SAFETY: a NUL-terminated string, valid until the next call on `state`.
        unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
    }

    /// Checks a scenario table for this policy: the JSON its `create` takes, defaults filled
    /// in, or the first thing wrong at its key.
    pub(crate) fn parse(&self, table: &toml::Table) -> Result<serde_json::Value, PluginError> {
        let json = params::table_json(table)?;
        self.schema.validate(&json)?;
        let Some(check) = self.check else {
            return Ok(self.schema.with_defaults(json));
        };
        let text = CString::new(json.to_string())
            .map_err(|_| PluginError::Build("parameters hold a NUL character".into()))?;
        let mut out = Vec::new();
        let mut sink = string_sink(&mut out);
        let mut err = empty_error();
        // SAFETY: the ABI's call with host-owned arguments that outlive it.
        let status = unsafe { check(text.as_ptr(), &mut sink, &mut err) };
        if status != VB_OK {
            let (key, message) = read_error(&err);
            let message = if message.is_empty() {
                "refused its parameters without a message".to_string()
            } else {
                message
            };
            return Err(PluginError::param(key, message));
        }
        let normalized = out.concat();
        serde_json::from_str(&normalized).map_err(|e| {
            PluginError::Build(format!(
                "{} ({}): its `check` gave back parameters that are not JSON: {e}",
                self.label,
                self.library()
            ))
        })
    }

    /// The parameters, for `vodbench plugins`: the schema's properties, with the defaults
    /// the library's check fills in when it takes an empty table.
    fn param_infos(&self) -> Vec<ParamInfo> {
        let defaults = self.parse(&toml::Table::new()).ok();
        params_of_schema(&self.schema.value, defaults.as_ref())
    }

    /// One instance, from parameters [`parse`](Policy::parse) made.
    pub(crate) fn create(
        &self,
        params: &str,
        ctx: &BuildContext<'_>,
    ) -> Result<*mut c_void, PluginError> {
        let text = CString::new(params)
            .map_err(|_| PluginError::Build("parameters hold a NUL character".into()))?;
        let component = CString::new(ctx.component).unwrap_or_default();
        let base_dir = CString::new(ctx.base_dir.display().to_string()).unwrap_or_default();
        let geometry = ctx.geometry.unwrap_or_default_geometry();
        let c = VbBuildContext {
            seed: ctx.seed,
            component: component.as_ptr(),
            index: ctx.index,
            nodes: ctx.nodes,
            interfaces: ctx.interfaces,
            managers: ctx.managers,
            disks_per_node: ctx.disks_per_node,
            terminals: ctx.terminals,
            pages: ctx.pages,
            block_bytes: ctx.block_bytes,
            video_blocks: ctx.video_blocks.as_ptr(),
            videos: ctx.video_blocks.len(),
            has_geometry: ctx.geometry.is_some() as u8,
            geometry,
            base_dir: base_dir.as_ptr(),
        };
        let mut err = empty_error();
        // SAFETY: the ABI's call with host-owned arguments that outlive it.
        let state = unsafe { (self.create)(text.as_ptr(), &c, &mut err) };
        if state.is_null() {
            let (key, message) = read_error(&err);
            let message = if message.is_empty() {
                "`create` returned NULL without a message".to_string()
            } else {
                message
            };
            return Err(if key.is_empty() {
                PluginError::Build(format!("{} ({}): {message}", self.label, self.library()))
            } else {
                PluginError::param(key, message)
            });
        }
        Ok(state)
    }
}

trait GeometryOrDefault {
    fn unwrap_or_default_geometry(self) -> VbDiskGeometry;
}

impl GeometryOrDefault for Option<vodbench_plugin_api::plugin::DiskGeometry> {
    fn unwrap_or_default_geometry(self) -> VbDiskGeometry {
        self.map_or(VbDiskGeometry::default(), |g| VbDiskGeometry {
            capacity_bytes: g.capacity_bytes,
            cylinders: g.cylinders,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_that_are_no_shared_library_are_named_plainly() {
        assert!(check_object_file(b"hello, not a library at all")
            .unwrap_err()
            .contains("no ELF header"));
        if cfg!(all(target_os = "linux", target_arch = "x86_64")) {
            let mut elf = vec![0u8; 64];
            elf[..4].copy_from_slice(b"\x7fELF");
            elf[4] = 2;
            elf[5] = 1;
            elf[16] = 3;
            elf[18] = 183; // aarch64
            let e = check_object_file(&elf).unwrap_err();
            assert!(e.contains("built for aarch64"), "{e}");
            elf[18] = 62;
            assert_eq!(check_object_file(&elf), Ok(()));
            // one loadable segment, past the end of the file
            elf[32] = 64; // e_phoff
            elf[54] = 56; // e_phentsize
            elf[56] = 1; // e_phnum
            elf.resize(64 + 56, 0);
            elf[64] = 1; // PT_LOAD
            elf[64 + 8] = 0x40; // p_offset
            elf[64 + 33] = 0x10; // p_filesz 4096
            let e = check_object_file(&elf).unwrap_err();
            assert!(e.contains("truncated: its loadable segment 0"), "{e}");
            elf.resize(64 + 4096 + 64, 0);
            assert_eq!(check_object_file(&elf), Ok(()));
            elf[16] = 2; // an executable
            assert!(check_object_file(&elf)
                .unwrap_err()
                .contains("not a shared library"));
        }
    }

    #[test]
    fn a_size_that_differs_names_the_struct() {
        let mut s = sizes();
        assert_eq!(check_sizes(&s), Ok(()));
        s.prefetcher += 8;
        let e = check_sizes(&s).unwrap_err();
        assert!(e.contains("VbPrefetcherVtable"), "{e}");
    }

    #[test]
    fn a_missing_file_is_refused_with_its_name() {
        let mut r = Registry::new();
        let e = load(&mut r, Path::new("/nonexistent/libx.so")).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("plugin library /nonexistent/libx.so: "),
            "{e}"
        );
    }
}
