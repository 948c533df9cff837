//! The syntax of DiskSim 4.0 parameter files (`.parv`, `.diskspecs`, `.model`) and seek tables.
//!
//! A parameter file is a list of items:
//!
//! ```text
//! # a comment, to the end of the line
//! disksim_disk NAME { Param name = value, Other param = value }   a named block
//! source other.diskspecs                                           an include
//! instantiate [ disk0, disk1 ] as NAME                             instances of a block
//! topology disksim_iodriver driver0 [ disksim_bus bus0 [ ... ] ]   the component tree
//! ```
//!
//! A value is a number, a word (`trackSwitchPlusRotation`, `barracuda.seek`), a list
//! `[ v, v, … ]`, a nested block `type { … }`, or `source FILE` (the first block of that file).
//! Parameter names contain spaces and punctuation (`Read hit over. after read`); they run to
//! the `=`. Relative file names are resolved against the directory of the including file.
//!
//! Everything here returns [`SpecError`] naming file and line; no input makes it panic.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Where in which parameter file something was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loc {
    /// The file, as it was named.
    pub file: Arc<str>,
    /// 1-based line.
    pub line: u32,
}

impl std::fmt::Display for Loc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.file, self.line)
    }
}

/// Errors reading DiskSim parameter files.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SpecError {
    /// A file could not be read.
    #[error("{file}: cannot read: {message}")]
    Io {
        /// The file.
        file: String,
        /// The operating system's reason.
        message: String,
    },
    /// The text does not follow DiskSim's syntax.
    #[error("{at}: syntax error: {message}")]
    Syntax {
        /// Where.
        at: Loc,
        /// What was expected.
        message: String,
    },
    /// A block lacks a parameter the model needs.
    #[error("{at}: block `{block}` has no parameter `{param}`")]
    Missing {
        /// The block's location.
        at: Loc,
        /// The block's type and name.
        block: String,
        /// The missing parameter.
        param: String,
    },
    /// A parameter has a value of the wrong kind or out of range.
    #[error("{at}: parameter `{param}`: {message}")]
    BadValue {
        /// The parameter's location.
        at: Loc,
        /// The parameter name.
        param: String,
        /// What is allowed.
        message: String,
    },
    /// The files describe no disk, or not the one asked for.
    #[error("{file}: {message}")]
    NoDisk {
        /// The top file.
        file: String,
        /// What was found instead.
        message: String,
    },
    /// `source` includes nest too deeply (or include themselves).
    #[error("{at}: `source` nested more than {max} deep")]
    TooDeep {
        /// Where the include was.
        at: Loc,
        /// The limit.
        max: u32,
    },
}

/// A parameter value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// An integer.
    Int(i64),
    /// A real number.
    Float(f64),
    /// Any other token: a name, a file name, a keyword.
    Word(String),
    /// `[ … ]`.
    List(Vec<Value>),
    /// `type { … }` or `source FILE`.
    Block(Block),
}

impl Value {
    fn describe(&self) -> &'static str {
        match self {
            Value::Int(_) => "an integer",
            Value::Float(_) => "a number",
            Value::Word(_) => "a word",
            Value::List(_) => "a list",
            Value::Block(_) => "a block",
        }
    }
}

/// `Name = value` inside a block.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    /// The name, with runs of white space collapsed to one space.
    pub name: String,
    /// The value.
    pub value: Value,
    /// Where the name was written.
    pub at: Loc,
}

/// `type [name] { params }`.
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    /// The block type (`disksim_disk`, `dm_disk`, `dm_layout_g1_zone`).
    pub kind: String,
    /// The block name, if any.
    pub name: Option<String>,
    /// Parameters in file order.
    pub params: Vec<Param>,
    /// Where the block starts.
    pub at: Loc,
}

/// One node of `topology`: `type instance [ children ]`.
#[derive(Clone, Debug, PartialEq)]
pub struct TopoNode {
    /// Component type (`disksim_bus`).
    pub kind: String,
    /// Instance name (`bus1`).
    pub name: String,
    /// Components attached below it.
    pub children: Vec<TopoNode>,
}

/// Everything a parameter file (with its includes) declares.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ParamFile {
    /// Top-level named blocks, includes expanded in place.
    pub blocks: Vec<Block>,
    /// `instantiate [ names ] as BLOCK`: instance name → block name.
    pub instances: Vec<(String, String)>,
    /// `topology` trees.
    pub topology: Vec<TopoNode>,
}

/// Where parameter files come from: the file system, or the bundled copies.
pub trait Source {
    /// The text of `name` as seen from a file in `dir`, and the name to report and resolve
    /// further includes from.
    fn load(&self, dir: &Path, name: &str) -> Result<(String, PathBuf), String>;
}

/// Reads files from disk, resolving relative names against the including file's directory.
#[derive(Debug, Default, Clone, Copy)]
pub struct FileSystem;

impl Source for FileSystem {
    fn load(&self, dir: &Path, name: &str) -> Result<(String, PathBuf), String> {
        let p = dir.join(name);
        // a regular file within the size limit: `/dev/zero` or a FIFO is refused, not read
        match vodbench_plugin_api::input::read_regular(&p) {
            Ok(bytes) => Ok((String::from_utf8_lossy(&bytes).into_owned(), p)),
            Err(e) => Err(e),
        }
    }
}

/// Files held in memory by name (the bundled disks, tests).
#[derive(Debug, Default, Clone)]
pub struct InMemory(pub HashMap<String, String>);

impl Source for InMemory {
    fn load(&self, _dir: &Path, name: &str) -> Result<(String, PathBuf), String> {
        self.0
            .get(name)
            .map(|t| (t.clone(), PathBuf::from(name)))
            .ok_or_else(|| "no such file".to_string())
    }
}

/// Includes deeper than this are refused (this also stops a file including itself).
pub const MAX_INCLUDE_DEPTH: u32 = 16;

/// Reads `name` (and everything it includes) from `src`.
pub fn read(src: &dyn Source, dir: &Path, name: &str) -> Result<ParamFile, SpecError> {
    let mut out = ParamFile::default();
    read_into(src, dir, name, 0, None, &mut out)?;
    Ok(out)
}

fn read_into(
    src: &dyn Source,
    dir: &Path,
    name: &str,
    depth: u32,
    from: Option<&Loc>,
    out: &mut ParamFile,
) -> Result<PathBuf, SpecError> {
    if depth > MAX_INCLUDE_DEPTH {
        return Err(SpecError::TooDeep {
            at: from.cloned().unwrap_or(Loc {
                file: name.into(),
                line: 0,
            }),
            max: MAX_INCLUDE_DEPTH,
        });
    }
    if let Some(at) = from.filter(|_| Path::new(name).is_absolute()) {
        // DiskSim 4.0's libparam joins every `source` name to the including file's folder,
        // an absolute one too, so it cannot open it (and the `disksim` model would stop)
        return Err(SpecError::Syntax {
            at: at.clone(),
            message: format!(
                "`source {name}`: DiskSim 4.0 looks `source` files up relative to the \
                 including file's folder and cannot open an absolute path; give the name \
                 relative to that folder"
            ),
        });
    }
    let (text, path) = src.load(dir, name).map_err(|message| SpecError::Io {
        file: match from {
            Some(at) => format!("{name} (included from {at})"),
            None => name.to_string(),
        },
        message,
    })?;
    let file: Arc<str> = path.display().to_string().into();
    let here = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let mut p = Parser {
        s: text.as_bytes(),
        i: 0,
        line: 1,
        file,
        src,
        dir: here,
        depth,
    };
    p.file_items(out)?;
    Ok(path)
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
    line: u32,
    file: Arc<str>,
    src: &'a dyn Source,
    dir: PathBuf,
    depth: u32,
}

const MAX_NESTING: u32 = 64;

fn is_delim(c: u8) -> bool {
    matches!(c, b'{' | b'}' | b'[' | b']' | b',' | b'=' | b'#')
}

impl Parser<'_> {
    fn loc(&self) -> Loc {
        Loc {
            file: self.file.clone(),
            line: self.line,
        }
    }

    fn err<T>(&self, message: impl Into<String>) -> Result<T, SpecError> {
        Err(SpecError::Syntax {
            at: self.loc(),
            message: message.into(),
        })
    }

    /// Skips white space and comments.
    fn ws(&mut self) {
        while self.i < self.s.len() {
            match self.s[self.i] {
                b'\n' => {
                    self.line += 1;
                    self.i += 1;
                }
                b'#' => {
                    while self.i < self.s.len() && self.s[self.i] != b'\n' {
                        self.i += 1;
                    }
                }
                c if c.is_ascii_whitespace() => self.i += 1,
                _ => break,
            }
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.s.get(self.i).copied()
    }

    fn expect(&mut self, c: u8) -> Result<(), SpecError> {
        match self.peek() {
            Some(x) if x == c => {
                self.i += 1;
                Ok(())
            }
            Some(x) => self.err(format!(
                "expected `{}`, found `{}`",
                c as char,
                String::from_utf8_lossy(&[x])
            )),
            None => self.err(format!(
                "expected `{}`, found the end of the file",
                c as char
            )),
        }
    }

    /// A token: a run of characters that are neither white space nor delimiters.
    fn word(&mut self) -> Result<String, SpecError> {
        self.ws();
        let start = self.i;
        while self.i < self.s.len()
            && !self.s[self.i].is_ascii_whitespace()
            && !is_delim(self.s[self.i])
        {
            self.i += 1;
        }
        if start == self.i {
            return match self.s.get(self.i) {
                Some(&c) => self.err(format!(
                    "expected a name or value, found `{}`",
                    String::from_utf8_lossy(&[c])
                )),
                None => self.err("expected a name or value, found the end of the file"),
            };
        }
        Ok(String::from_utf8_lossy(&self.s[start..self.i]).into_owned())
    }

    fn file_items(&mut self, out: &mut ParamFile) -> Result<(), SpecError> {
        while self.peek().is_some() {
            let at = self.loc();
            let w = self.word()?;
            match w.as_str() {
                "source" => {
                    let name = self.word()?;
                    read_into(self.src, &self.dir, &name, self.depth + 1, Some(&at), out)?;
                }
                "instantiate" => {
                    self.expect(b'[')?;
                    let mut names = Vec::new();
                    loop {
                        match self.peek() {
                            Some(b']') => {
                                self.i += 1;
                                break;
                            }
                            Some(b',') => self.i += 1,
                            _ => names.push(self.word()?),
                        }
                    }
                    let kw = self.word()?;
                    if kw != "as" {
                        return self.err(format!(
                            "expected `as` after the instance list, found `{kw}`"
                        ));
                    }
                    let block = self.word()?;
                    out.instances
                        .extend(names.into_iter().map(|n| (n, block.clone())));
                }
                "topology" => {
                    let node = self.topo_node(w.clone(), 0)?;
                    out.topology.push(node);
                }
                _ => {
                    let name = match self.peek() {
                        Some(b'{') => None,
                        _ => Some(self.word()?),
                    };
                    let b = self.block_body(w, name, at, 0)?;
                    out.blocks.push(b);
                }
            }
        }
        Ok(())
    }

    /// After `topology` or inside one: `type name [ children ]`.
    fn topo_node(&mut self, first: String, nest: u32) -> Result<TopoNode, SpecError> {
        if nest > MAX_NESTING {
            return self.err("topology nested too deeply");
        }
        let kind = if first == "topology" {
            self.word()?
        } else {
            first
        };
        let name = self.word()?;
        self.expect(b'[')?;
        let mut children = Vec::new();
        loop {
            match self.peek() {
                Some(b']') => {
                    self.i += 1;
                    break;
                }
                Some(b',') => self.i += 1,
                None => return self.err("unterminated topology `[`"),
                _ => {
                    let k = self.word()?;
                    children.push(self.topo_node(k, nest + 1)?);
                }
            }
        }
        Ok(TopoNode {
            kind,
            name,
            children,
        })
    }

    /// `{ params }` after the block's type and name.
    fn block_body(
        &mut self,
        kind: String,
        name: Option<String>,
        at: Loc,
        nest: u32,
    ) -> Result<Block, SpecError> {
        if nest > MAX_NESTING {
            return self.err("blocks nested too deeply");
        }
        self.expect(b'{')?;
        let mut params = Vec::new();
        loop {
            match self.peek() {
                Some(b'}') => {
                    self.i += 1;
                    break;
                }
                Some(b',') => self.i += 1,
                None => return self.err(format!("block `{kind}` is not closed with `}}`")),
                _ => params.push(self.param(nest)?),
            }
        }
        Ok(Block {
            kind,
            name,
            params,
            at,
        })
    }

    /// `Name with spaces = value`.
    fn param(&mut self, nest: u32) -> Result<Param, SpecError> {
        self.ws();
        let at = self.loc();
        let start = self.i;
        while self.i < self.s.len()
            && !matches!(
                self.s[self.i],
                b'=' | b'\n' | b'{' | b'}' | b'[' | b']' | b',' | b'#'
            )
        {
            self.i += 1;
        }
        let raw = String::from_utf8_lossy(&self.s[start..self.i]).into_owned();
        let name = raw.split_whitespace().collect::<Vec<_>>().join(" ");
        if name.is_empty() {
            return self.err("expected a parameter name");
        }
        if self.s.get(self.i) != Some(&b'=') {
            return self.err(format!("expected `=` after parameter name `{name}`"));
        }
        self.i += 1;
        let value = self.value(nest)?;
        Ok(Param { name, value, at })
    }

    fn value(&mut self, nest: u32) -> Result<Value, SpecError> {
        if nest > MAX_NESTING {
            return self.err("values nested too deeply");
        }
        match self.peek() {
            Some(b'[') => {
                self.i += 1;
                let mut items = Vec::new();
                loop {
                    match self.peek() {
                        Some(b']') => {
                            self.i += 1;
                            break;
                        }
                        Some(b',') => self.i += 1,
                        None => return self.err("list is not closed with `]`"),
                        _ => items.push(self.value(nest + 1)?),
                    }
                }
                Ok(Value::List(items))
            }
            _ => {
                let at = self.loc();
                let w = self.word()?;
                if w == "source" {
                    let name = self.word()?;
                    let mut inc = ParamFile::default();
                    read_into(
                        self.src,
                        &self.dir,
                        &name,
                        self.depth + 1,
                        Some(&at),
                        &mut inc,
                    )?;
                    return match inc.blocks.into_iter().next() {
                        Some(b) => Ok(Value::Block(b)),
                        None => Err(SpecError::Syntax {
                            at,
                            message: format!("`source {name}` holds no block"),
                        }),
                    };
                }
                match self.peek() {
                    Some(b'{') => Ok(Value::Block(self.block_body(w, None, at, nest + 1)?)),
                    _ => Ok(atom(w)),
                }
            }
        }
    }
}

fn atom(w: String) -> Value {
    if let Ok(i) = w.parse::<i64>() {
        Value::Int(i)
    } else if let Ok(f) = w.parse::<f64>() {
        Value::Float(f)
    } else {
        Value::Word(w)
    }
}

impl Block {
    /// `kind name` for messages.
    pub fn title(&self) -> String {
        match &self.name {
            Some(n) => format!("{} {n}", self.kind),
            None => self.kind.clone(),
        }
    }

    /// The parameter named `name` (case-insensitive, like DiskSim), if present.
    pub fn find(&self, name: &str) -> Option<&Param> {
        self.params
            .iter()
            .find(|p| p.name.eq_ignore_ascii_case(name))
    }

    /// The parameter named `name`, or an error naming the block.
    pub fn get(&self, name: &str) -> Result<&Param, SpecError> {
        self.find(name).ok_or_else(|| SpecError::Missing {
            at: self.at.clone(),
            block: self.title(),
            param: name.to_string(),
        })
    }

    /// A number (integers are accepted); must be finite.
    pub fn f64(&self, name: &str) -> Result<f64, SpecError> {
        self.get(name)?.f64()
    }

    /// A number, or `default` when the parameter is absent.
    pub fn f64_or(&self, name: &str, default: f64) -> Result<f64, SpecError> {
        match self.find(name) {
            Some(p) => p.f64(),
            None => Ok(default),
        }
    }

    /// An integer within `range`.
    pub fn int(&self, name: &str, range: std::ops::RangeInclusive<i64>) -> Result<i64, SpecError> {
        self.get(name)?.int(range)
    }

    /// An integer within `range`, or `default` when absent.
    pub fn int_or(
        &self,
        name: &str,
        range: std::ops::RangeInclusive<i64>,
        default: i64,
    ) -> Result<i64, SpecError> {
        match self.find(name) {
            Some(p) => p.int(range),
            None => Ok(default),
        }
    }

    /// A nested block.
    pub fn block(&self, name: &str) -> Result<&Block, SpecError> {
        let p = self.get(name)?;
        match &p.value {
            Value::Block(b) => Ok(b),
            v => Err(p.bad(format!("expected a block, found {}", v.describe()))),
        }
    }

    /// A list.
    pub fn list(&self, name: &str) -> Result<&[Value], SpecError> {
        let p = self.get(name)?;
        match &p.value {
            Value::List(l) => Ok(l),
            v => Err(p.bad(format!("expected a list, found {}", v.describe()))),
        }
    }

    /// A word (or a number written where a word is expected, as text).
    pub fn word(&self, name: &str) -> Result<String, SpecError> {
        let p = self.get(name)?;
        match &p.value {
            Value::Word(w) => Ok(w.clone()),
            Value::Int(i) => Ok(i.to_string()),
            Value::Float(f) => Ok(f.to_string()),
            v => Err(p.bad(format!("expected a word, found {}", v.describe()))),
        }
    }
}

impl Param {
    /// An error about this parameter.
    pub fn bad(&self, message: impl Into<String>) -> SpecError {
        SpecError::BadValue {
            at: self.at.clone(),
            param: self.name.clone(),
            message: message.into(),
        }
    }

    /// The value as a finite number.
    pub fn f64(&self) -> Result<f64, SpecError> {
        match self.value {
            Value::Int(i) => Ok(i as f64),
            Value::Float(f) if f.is_finite() => Ok(f),
            Value::Float(f) => Err(self.bad(format!("must be finite, got {f}"))),
            ref v => Err(self.bad(format!("expected a number, found {}", v.describe()))),
        }
    }

    /// The value as an integer in `range` (a real with no fraction is accepted).
    pub fn int(&self, range: std::ops::RangeInclusive<i64>) -> Result<i64, SpecError> {
        let i = match self.value {
            Value::Int(i) => i,
            Value::Float(f) if f.fract() == 0.0 && f.abs() < 9e15 => f as i64,
            ref v => return Err(self.bad(format!("expected an integer, found {}", v.describe()))),
        };
        if range.contains(&i) {
            Ok(i)
        } else {
            Err(self.bad(format!(
                "must be in {}..={}, got {i}",
                range.start(),
                range.end()
            )))
        }
    }
}

/// An extracted seek curve: `(distance in cylinders, time in ms)`, distances increasing.
pub fn read_seek_table(
    src: &dyn Source,
    dir: &Path,
    name: &str,
    from: &Loc,
) -> Result<Vec<(u32, f64)>, SpecError> {
    let (text, path) = src.load(dir, name).map_err(|message| SpecError::Io {
        file: format!("{name} (named at {from})"),
        message,
    })?;
    let file: Arc<str> = path.display().to_string().into();
    let at = |line: usize| Loc {
        file: file.clone(),
        line: line as u32 + 1,
    };
    let syntax = |line: usize, message: String| SpecError::Syntax {
        at: at(line),
        message,
    };
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'));
    let (hl, header) = lines
        .next()
        .ok_or_else(|| syntax(0, "empty seek table".into()))?;
    let count: usize = header
        .trim()
        .strip_prefix("Seek distances measured:")
        .and_then(|n| n.trim().parse().ok())
        .ok_or_else(|| {
            syntax(
                hl,
                "expected `Seek distances measured: N` as the first line".into(),
            )
        })?;
    let mut out: Vec<(u32, f64)> = Vec::with_capacity(count.min(1 << 16));
    for (ln, l) in lines {
        let mut it = l.split(',');
        let (d, t) = match (it.next(), it.next(), it.next()) {
            (Some(d), Some(t), None) => (d.trim(), t.trim()),
            _ => {
                return Err(syntax(
                    ln,
                    format!("expected `distance, time_ms`, found `{l}`"),
                ))
            }
        };
        let d: u32 = d
            .parse()
            .map_err(|_| syntax(ln, format!("bad distance `{d}`")))?;
        let t: f64 = t
            .parse()
            .ok()
            .filter(|t: &f64| (0.0..=1e6).contains(t))
            .ok_or_else(|| syntax(ln, format!("bad seek time `{t}`")))?;
        if d == 0 || out.last().is_some_and(|&(p, _)| p >= d) {
            return Err(syntax(
                ln,
                format!("distances must be positive and increasing, found {d}"),
            ));
        }
        out.push((d, t));
    }
    if out.len() != count {
        return Err(syntax(
            hl,
            format!("header says {count} distances, the table has {}", out.len()),
        ));
    }
    if out.len() < 2 {
        return Err(syntax(hl, "a seek table needs at least 2 points".into()));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mem(files: &[(&str, &str)]) -> InMemory {
        InMemory(
            files
                .iter()
                .map(|(n, t)| (n.to_string(), t.to_string()))
                .collect(),
        )
    }

    #[test]
    fn blocks_lists_includes_and_topology() {
        let src = mem(&[
            (
                "top.parv",
                "# comment\ndisksim_bus B { Read block transfer time = 0.5, Print stats = 1 }\n\
                 source d.diskspecs\ninstantiate [ bus1 ] as B\ninstantiate [disk0, disk1] as D\n\
                 topology disksim_bus bus1 [ disksim_disk disk0 [] ]\n",
            ),
            (
                "d.diskspecs",
                "disksim_disk D {\n Model = source m.model,\n Scheduler = disksim_ioqueue { Scheduling policy = 1 },\n xs = [ 1, 2.5, word ] }\n",
            ),
            ("m.model", "dm_disk M { Number of cylinders = 10 }"),
        ]);
        let f = read(&src, Path::new(""), "top.parv").unwrap();
        assert_eq!(f.blocks.len(), 2);
        assert_eq!(f.blocks[0].f64("read block transfer time").unwrap(), 0.5);
        let d = &f.blocks[1];
        assert_eq!(d.at.line, 1);
        assert_eq!(
            d.block("Model")
                .unwrap()
                .int("Number of cylinders", 0..=99)
                .unwrap(),
            10
        );
        assert_eq!(
            d.list("xs").unwrap(),
            &[Value::Int(1), Value::Float(2.5), Value::Word("word".into())]
        );
        assert_eq!(f.instances.len(), 3);
        assert_eq!(f.topology[0].children[0].name, "disk0");
    }

    #[test]
    fn errors_name_file_line_and_parameter() {
        let src = mem(&[("a", "dm_disk X {\n  Number of cylinders = ten\n}")]);
        let f = read(&src, Path::new(""), "a").unwrap();
        let e = f.blocks[0].int("Number of cylinders", 1..=10).unwrap_err();
        assert_eq!(
            e.to_string(),
            "a:2: parameter `Number of cylinders`: expected an integer, found a word"
        );
        let e = f.blocks[0].f64("Rotation speed (in rpms)").unwrap_err();
        assert_eq!(
            e.to_string(),
            "a:1: block `dm_disk X` has no parameter `Rotation speed (in rpms)`"
        );
        let src = mem(&[("a", "dm_disk X {\n  Number of cylinders 10\n}")]);
        let e = read(&src, Path::new(""), "a").unwrap_err();
        assert!(
            matches!(e, SpecError::Syntax { ref at, .. } if at.line == 2),
            "{e}"
        );
        let src = mem(&[("a", "source b"), ("b", "source a")]);
        assert!(matches!(
            read(&src, Path::new(""), "a").unwrap_err(),
            SpecError::TooDeep { .. }
        ));
        let src = mem(&[("a", "x y { M = source nothere }")]);
        let e = read(&src, Path::new(""), "a").unwrap_err();
        assert!(e.to_string().contains("nothere (included from a:1)"), "{e}");
        let src = mem(&[
            ("a", "x y {\n M = source /abs/m.model }"),
            ("/abs/m.model", "m n { }"),
        ]);
        let e = read(&src, Path::new(""), "a").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("a:2: syntax error: `source /abs/m.model`: DiskSim 4.0 looks"),
            "{e}"
        );
    }

    #[test]
    fn seek_tables() {
        let src = mem(&[
            (
                "s",
                "Seek distances measured: 3\n1, 1.5\n2,\t2.0\n10, 4.0\n",
            ),
            ("bad", "Seek distances measured: 3\n1, 1.5\n2, 2.0\n"),
            ("dec", "Seek distances measured: 2\n5, 1.5\n2, 2.0\n"),
        ]);
        let at = Loc {
            file: "x".into(),
            line: 1,
        };
        assert_eq!(
            read_seek_table(&src, Path::new(""), "s", &at).unwrap(),
            vec![(1, 1.5), (2, 2.0), (10, 4.0)]
        );
        assert!(read_seek_table(&src, Path::new(""), "bad", &at).is_err());
        let e = read_seek_table(&src, Path::new(""), "dec", &at).unwrap_err();
        assert!(e.to_string().starts_with("dec:3:"), "{e}");
    }
}
