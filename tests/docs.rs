//! The documentation cannot drift from the repository or the binary:
//! - every relative link (and image) of every Markdown file in the repository names a file or
//!   folder that exists, and a `#anchor` names a heading of the Markdown file it points at;
//!   no link leaves the repository (`../shared/…`, `/home/…`), since a clone does not have it;
//! - every `vodbench COMMAND …` the README and `docs/` quote (in code blocks and code spans)
//!   names a command the binary has, and every `--flag` after it is one of that command's;
//! - `docs/plugins.md`'s table of kinds lists every plugin kind of the kinds table, with its
//!   scenario table, its trait and what it decides, and the README's "Writing a plugin" links
//!   that table (the README lists no kinds of its own);
//! - every slot of both systems (a table where a scenario chooses a plugin) has a heading in
//!   `docs/scenarios.md`;
//! - the README's set-up commands are the build and the test command `.ci/run` runs.
//!
//! Links are read as CommonMark writes them (`[text](target)`, `![alt](target)`,
//! `[label]: target`, `href`/`src` attributes), outside code blocks and code spans; anchors
//! are the heading slugs GitHub makes.

mod common;
use common::{root, text, vodbench};
use std::collections::{BTreeSet, HashMap};
use std::path::{Component, Path, PathBuf};
use vodbench_harness::plugin::Kind;

/// Every Markdown file of the repository, except in build output, virtual environments and
/// hidden folders (`.git`), which a clone's tree does not hold.
fn markdown_files(repo: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let e = e.unwrap();
            let name = e.file_name().to_string_lossy().into_owned();
            let ty = e.file_type().unwrap();
            if ty.is_dir() {
                if !(name.starts_with('.') || name == "target" || name == "out") {
                    walk(&e.path(), out);
                }
            } else if ty.is_file() && name.ends_with(".md") {
                out.push(e.path());
            }
        }
    }
    let mut out = Vec::new();
    walk(repo, &mut out);
    out.sort();
    out
}

/// The text outside fenced code blocks, line for line (lines inside a block are left empty,
/// so line numbers stay right), and the blocks: (info string, first line number, lines).
type Fence = (String, usize, Vec<String>);

fn split_fences(md: &str) -> (Vec<String>, Vec<Fence>) {
    let mut prose = Vec::new();
    let mut blocks = Vec::new();
    let mut open: Option<(String, String, usize, Vec<String>)> = None;
    for (i, line) in md.lines().enumerate() {
        let t = line.trim_start();
        let fence: String = t.chars().take_while(|&c| c == '`' || c == '~').collect();
        let is_fence =
            fence.len() >= 3 && fence.chars().all(|c| c == fence.chars().next().unwrap());
        match open.take() {
            Some((marker, info, at, lines)) => {
                if is_fence && fence.starts_with(&marker) && t[fence.len()..].trim().is_empty() {
                    blocks.push((info, at, lines));
                } else {
                    let mut lines = lines;
                    lines.push(line.to_string());
                    open = Some((marker, info, at, lines));
                }
                prose.push(String::new());
            }
            None if is_fence => {
                open = Some((
                    fence.clone(),
                    t[fence.len()..].trim().to_string(),
                    i + 1,
                    Vec::new(),
                ));
                prose.push(String::new());
            }
            None => prose.push(line.to_string()),
        }
    }
    if let Some((_, info, at, lines)) = open {
        blocks.push((info, at, lines));
    }
    (prose, blocks)
}

/// Splits prose into the text outside code spans (code replaced by spaces, newlines kept)
/// and the code spans themselves, each with the line it starts on (1-based).
fn split_code_spans(prose: &str) -> (String, Vec<(usize, String)>) {
    let chars: Vec<char> = prose.chars().collect();
    let mut outside = String::new();
    let mut spans = Vec::new();
    let mut line = 1;
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '`' {
            if chars[i] == '\n' {
                line += 1;
            }
            outside.push(chars[i]);
            i += 1;
            continue;
        }
        let n = chars[i..].iter().take_while(|&&c| c == '`').count();
        // the closing run: the same number of backticks, within the paragraph
        let mut j = i + n;
        let mut close = None;
        while j < chars.len() {
            if chars[j] == '\n' && chars.get(j + 1) == Some(&'\n') {
                break;
            }
            if chars[j] == '`' {
                let m = chars[j..].iter().take_while(|&&c| c == '`').count();
                if m == n {
                    close = Some(j);
                    break;
                }
                j += m;
            } else {
                j += 1;
            }
        }
        match close {
            Some(j) => {
                let code: String = chars[i + n..j].iter().collect();
                spans.push((line, code.replace('\n', " ")));
                for &c in &chars[i..j + n] {
                    if c == '\n' {
                        line += 1;
                        outside.push('\n');
                    } else {
                        outside.push(' ');
                    }
                }
                i = j + n;
            }
            None => {
                for _ in 0..n {
                    outside.push('`');
                }
                i += n;
            }
        }
    }
    (outside, spans)
}

/// The link targets of Markdown text outside code, each with its line (1-based).
fn link_targets(md: &str) -> Vec<(usize, String)> {
    let (prose, _) = split_fences(md);
    let (text, _) = split_code_spans(&prose.join("\n"));
    let mut out = Vec::new();
    for (k, line) in text.lines().enumerate() {
        let n = k + 1;
        // inline links and images: `](target)`
        let mut rest = line;
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let mut depth = 0usize;
            let mut end = after.len();
            for (p, c) in after.char_indices() {
                match c {
                    '(' => depth += 1,
                    ')' if depth == 0 => {
                        end = p;
                        break;
                    }
                    ')' => depth -= 1,
                    _ => {}
                }
            }
            out.push((n, destination(&after[..end])));
            rest = &after[end.min(after.len())..];
        }
        // reference definitions: `[label]: target`
        let t = line.trim_start();
        if t.starts_with('[') && !t.starts_with("[^") {
            if let Some(close) = t.find("]:") {
                out.push((n, destination(&t[close + 2..])));
            }
        }
        // HTML attributes
        for attr in ["href=\"", "src=\""] {
            let mut rest = line;
            while let Some(at) = rest.find(attr) {
                let after = &rest[at + attr.len()..];
                let end = after.find('"').unwrap_or(after.len());
                out.push((n, after[..end].to_string()));
                rest = &after[end..];
            }
        }
    }
    out
}

/// A link destination without its title and angle brackets.
fn destination(raw: &str) -> String {
    let raw = raw.trim();
    if let Some(inner) = raw.strip_prefix('<') {
        return inner.split('>').next().unwrap_or("").to_string();
    }
    raw.split_whitespace().next().unwrap_or("").to_string()
}

/// GitHub's anchor for a heading: lower case, markup and punctuation dropped (letters,
/// digits, `-` and `_` kept), spaces as `-`.
fn slug(heading: &str) -> String {
    // a link in a heading counts by its text
    let mut text = String::new();
    let mut rest = heading;
    while let Some(open) = rest.find('[') {
        match rest[open..].find("](") {
            Some(mid) => {
                let after = &rest[open + mid + 2..];
                let Some(close) = after.find(')') else { break };
                text.push_str(&rest[..open]);
                text.push_str(&rest[open + 1..open + mid]);
                rest = &after[close + 1..];
            }
            None => break,
        }
    }
    text.push_str(rest);
    text.trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors a Markdown file defines: its headings' slugs (a repeated one gets `-1`, `-2`…)
/// and HTML `id`/`name` attributes.
fn anchors(md: &str) -> BTreeSet<String> {
    let (prose, _) = split_fences(md);
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut out = BTreeSet::new();
    for line in &prose {
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if (1..=6).contains(&hashes) && line[hashes..].starts_with(' ') {
            let title = line[hashes..].trim().trim_end_matches('#').trim();
            let s = slug(title);
            let k = seen.entry(s.clone()).or_insert(0);
            out.insert(if *k == 0 {
                s.clone()
            } else {
                format!("{s}-{k}")
            });
            *k += 1;
        }
        for attr in ["id=\"", "name=\""] {
            let mut rest = line.as_str();
            while let Some(at) = rest.find(attr) {
                let after = &rest[at + attr.len()..];
                let end = after.find('"').unwrap_or(after.len());
                out.insert(after[..end].to_string());
                rest = &after[end..];
            }
        }
    }
    out
}

/// `path` with `.` and `..` resolved without touching the file system; `None` when `..`
/// climbs above the start.
fn normalize(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::CurDir => {}
            c => out.push(c),
        }
    }
    Some(out)
}

/// `%20` and the like, as a browser decodes a link.
fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            if let Ok(v) = u8::from_str_radix(&s[i + 1..i + 3], 16) {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// What is wrong with one link of `file` (relative to `repo`), if anything.
fn check_link(repo: &Path, file: &Path, target: &str) -> Option<String> {
    let lower = target.to_ascii_lowercase();
    if target.is_empty() {
        return Some("an empty link".into());
    }
    if lower.contains("://") || lower.starts_with("mailto:") {
        return None;
    }
    let (path, anchor) = match target.split_once('#') {
        Some((p, a)) => (p, Some(a)),
        None => (target, None),
    };
    let path = percent_decode(path.split('?').next().unwrap_or(""));
    let resolved = if path.is_empty() {
        file.to_path_buf()
    } else {
        if path.starts_with('/') || path.starts_with('~') {
            return Some(format!(
                "`{target}` is a path outside the repository (a clone has no such file)"
            ));
        }
        let rel_dir = file.parent().unwrap().strip_prefix(repo).unwrap();
        match normalize(&rel_dir.join(&path)) {
            Some(p) => repo.join(p),
            None => {
                return Some(format!(
                    "`{target}` leads outside the repository (a clone does not have it): \
                     give a citation or a path inside the repository"
                ))
            }
        }
    };
    if !resolved.exists() {
        return Some(format!(
            "`{target}`: no such file or folder in the repository"
        ));
    }
    if let Some(anchor) = anchor.filter(|a| !a.is_empty()) {
        if resolved.extension().is_some_and(|e| e == "md") {
            let md = std::fs::read_to_string(&resolved).unwrap();
            let have = anchors(&md);
            let want = percent_decode(anchor).to_lowercase();
            if !have.contains(&want) {
                return Some(format!(
                    "`{target}`: {} has no heading with the anchor `#{want}`",
                    resolved.strip_prefix(repo).unwrap().display()
                ));
            }
        }
    }
    None
}

#[test]
fn every_relative_link_of_the_markdown_files_resolves_inside_the_repository() {
    let repo = root();
    let files = markdown_files(&repo);
    for must in [
        "README.md",
        "ARCHITECTURE.md",
        "CHANGELOG.md",
        "docs/plugins.md",
    ] {
        assert!(
            files.contains(&repo.join(must)),
            "{must} was not found among {files:?}"
        );
    }
    let mut problems = Vec::new();
    let mut links = 0;
    for file in &files {
        let md = std::fs::read_to_string(file).unwrap();
        for (line, target) in link_targets(&md) {
            links += 1;
            if let Some(p) = check_link(&repo, file, &target) {
                problems.push(format!(
                    "{}:{line}: {p}",
                    file.strip_prefix(&repo).unwrap().display()
                ));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "broken links:\n{}",
        problems.join("\n")
    );
    // the README alone links every page of docs/
    assert!(
        links >= 30,
        "only {links} links found: is the parser reading them?"
    );
}

/// `@NAME@` markers a script meant to fill (upper-case letters and digits between two `@`),
/// outside code: (line, marker).
fn unfilled_markers(md: &str) -> Vec<(usize, String)> {
    let (prose, _) = split_fences(md);
    let mut out = Vec::new();
    for (i, line) in prose.iter().enumerate() {
        let (line, _) = split_code_spans(line);
        let chars: Vec<char> = line.chars().collect();
        for (at, _) in chars.iter().enumerate().filter(|(_, &c)| c == '@') {
            let name: String = chars[at + 1..]
                .iter()
                .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || **c == '_')
                .collect();
            if !name.is_empty() && chars.get(at + 1 + name.chars().count()) == Some(&'@') {
                out.push((i + 1, format!("@{name}@")));
            }
        }
    }
    out
}

#[test]
fn no_markdown_file_carries_an_unfilled_marker() {
    assert_eq!(
        unfilled_markers("| a | @FIG10@ |\nx@y.z `@CODE@` @T2@\n```\n@IN@\n```\n"),
        [(1, "@FIG10@".to_string()), (2, "@T2@".to_string())]
    );
    let repo = root();
    let mut found = Vec::new();
    for file in markdown_files(&repo) {
        let md = std::fs::read_to_string(&file).unwrap();
        for (line, m) in unfilled_markers(&md) {
            found.push(format!(
                "{}:{line}: {m}",
                file.strip_prefix(&repo).unwrap().display()
            ));
        }
    }
    assert!(found.is_empty(), "unfilled markers:\n{}", found.join("\n"));
}

#[test]
fn the_readme_links_every_page_of_docs() {
    let repo = root();
    let readme = std::fs::read_to_string(repo.join("README.md")).unwrap();
    let linked: BTreeSet<String> = link_targets(&readme)
        .into_iter()
        .map(|(_, t)| t.split('#').next().unwrap().to_string())
        .collect();
    let mut missing = Vec::new();
    for e in std::fs::read_dir(repo.join("docs")).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        if name.ends_with(".md") && !linked.contains(&format!("docs/{name}")) {
            missing.push(name);
        }
    }
    assert!(
        missing.is_empty(),
        "README.md does not link docs/{missing:?}"
    );
}

/// The subcommands `vodbench PATH… --help` lists under "Commands:".
fn subcommands(help: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut inside = false;
    for line in help.lines() {
        if line.trim_end() == "Commands:" {
            inside = true;
        } else if inside {
            match line.strip_prefix("  ") {
                Some(l) if !l.starts_with(' ') => {
                    out.insert(l.split_whitespace().next().unwrap().to_string());
                }
                Some(_) => {}
                None => inside = false,
            }
        }
    }
    out
}

/// `--flag`s a help text lists.
fn flags(help: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for word in help.split(|c: char| c.is_whitespace() || c == ',' || c == '[' || c == ']') {
        if let Some(f) = word.strip_prefix("--") {
            let name: String = f
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                .collect();
            if !name.is_empty() {
                out.insert(name);
            }
        }
    }
    out
}

/// `vodbench` invocations in a line of shell or a code span: for each, its words up to the
/// end of that command (a pipe, `&&`, `;`, a redirection or a comment).
fn invocations(code: &str) -> Vec<Vec<String>> {
    let words: Vec<&str> = code.split_whitespace().collect();
    let mut out = Vec::new();
    for (i, w) in words.iter().enumerate() {
        let w = w.trim_start_matches(['(', '$']);
        if w != "vodbench" {
            continue;
        }
        // a command, not a word of prose or another program's argument
        if i > 0 {
            let prev = words[i - 1];
            if ![
                "|", "&&", "||", ";", "$", "do", "then", "parallel", "(", "time",
            ]
            .contains(&prev)
                && !prev.ends_with(';')
            {
                continue;
            }
        }
        let mut args = Vec::new();
        for w in &words[i + 1..] {
            if ["|", "&&", "||", ";", "&", "#", ">", ">>", "2>", ":::"].contains(w)
                || w.starts_with('#')
                || w.starts_with('>')
            {
                break;
            }
            let end = w.ends_with(';');
            args.push(w.trim_end_matches(';').to_string());
            if end {
                break;
            }
        }
        out.push(args);
    }
    out
}

#[test]
fn the_commands_and_flags_the_docs_quote_exist() {
    let repo = root();
    let mut files = vec![repo.join("README.md")];
    for e in std::fs::read_dir(repo.join("docs")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|e| e == "md") {
            files.push(p);
        }
    }
    files.sort();
    let mut helps: HashMap<Vec<String>, String> = HashMap::new();
    let mut help_of = |path: &[String]| -> String {
        helps
            .entry(path.to_vec())
            .or_insert_with(|| {
                let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
                args.push("--help");
                let out = vodbench(&args);
                assert!(out.status.success(), "vodbench {args:?}: {}", text(&out).1);
                text(&out).0
            })
            .clone()
    };
    let mut problems = Vec::new();
    let mut checked = 0;
    for file in &files {
        let md = std::fs::read_to_string(file).unwrap();
        let (prose, blocks) = split_fences(&md);
        let (_, spans) = split_code_spans(&prose.join("\n"));
        let mut code: Vec<(usize, String)> = spans;
        for (info, at, lines) in &blocks {
            if ["", "sh", "console", "text", "bash", "shell"].contains(&info.as_str()) {
                // a line ending in `\` goes on
                let mut joined = String::new();
                let mut first = 0;
                for (k, l) in lines.iter().enumerate() {
                    if joined.is_empty() {
                        first = at + 1 + k;
                    }
                    let l = l.strip_prefix("$ ").unwrap_or(l);
                    match l.strip_suffix('\\') {
                        Some(head) => joined.push_str(head),
                        None => {
                            joined.push_str(l);
                            code.push((first, std::mem::take(&mut joined)));
                        }
                    }
                }
            }
        }
        let name = file.strip_prefix(&repo).unwrap().display().to_string();
        for (line, c) in code {
            for args in invocations(&c) {
                let Some(first) = args.first() else { continue };
                if first.starts_with('-') || first == "…" {
                    continue;
                }
                let mut path: Vec<String> = Vec::new();
                let mut rest = args.as_slice();
                // the command, then its subcommands while the help lists them
                while let Some(w) = rest.first() {
                    let known = subcommands(&help_of(&path));
                    if known.is_empty() {
                        break;
                    }
                    if known.contains(w.as_str()) {
                        path.push(w.clone());
                        rest = &rest[1..];
                        if w == "help" {
                            break;
                        }
                    } else if path.is_empty() {
                        problems.push(format!(
                            "{name}:{line}: `vodbench {w}`: vodbench has no command `{w}` \
                             (it has {known:?})"
                        ));
                        break;
                    } else {
                        break;
                    }
                }
                // `vodbench help COMMAND` prints another command's help: the command is checked
                if path.is_empty() || path[0] == "help" {
                    continue;
                }
                let have = flags(&help_of(&path));
                for w in rest {
                    let w = w.trim_matches(['[', ']', '(', ')', ',', '`', '"', '\'']);
                    let Some(f) = w.strip_prefix("--") else {
                        continue;
                    };
                    let f: String = f
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                        .collect();
                    if !f.is_empty() && !have.contains(&f) {
                        problems.push(format!(
                            "{name}:{line}: `vodbench {}` has no flag `--{f}`",
                            path.join(" ")
                        ));
                    }
                }
                checked += 1;
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(
        checked >= 40,
        "only {checked} vodbench commands found in the docs"
    );
}

#[test]
fn the_plugin_guide_lists_every_plugin_kind_and_the_readme_links_it() {
    let repo = root();
    let guide = std::fs::read_to_string(repo.join("docs/plugins.md")).unwrap();
    let rows: Vec<&str> = guide.lines().filter(|l| l.starts_with('|')).collect();
    for kind in Kind::ALL {
        let key = format!("`[{}]`", kind.key());
        let tr = format!("`{}`", kind.trait_name());
        // an exported kind's row names its C table; a kind not exported says so
        let c = kind
            .c_table_name()
            .map_or("— (Rust only)".to_string(), |t| format!("`{t}`"));
        assert!(
            rows.iter().any(|r| r.contains(&key)
                && r.contains(&format!("{tr} / {c}"))
                && r.contains(kind.decides())),
            "docs/plugins.md: no table row names the kind {key} with `{tr} / {c}` and what it \
             decides ({})",
            kind.decides()
        );
    }
    assert!(
        anchors(&guide).contains("the-kinds"),
        "docs/plugins.md has no `## The kinds` heading"
    );
    let readme = std::fs::read_to_string(repo.join("README.md")).unwrap();
    let at = readme
        .find("\n## Writing a plugin\n")
        .expect("README.md has a `## Writing a plugin` section");
    let section = &readme[at + 1..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |e| e + 3)];
    assert!(
        link_targets(section)
            .iter()
            .any(|(_, t)| t == "docs/plugins.md#the-kinds"),
        "README.md's \"Writing a plugin\" does not link docs/plugins.md#the-kinds"
    );
}

#[test]
fn every_slot_has_a_heading_in_the_scenario_format() {
    use vodbench_harness::system::{broadcast, ondemand};
    let md = std::fs::read_to_string(root().join("docs/scenarios.md")).unwrap();
    let (prose, _) = split_fences(&md);
    let headings: Vec<&String> = prose.iter().filter(|l| l.starts_with('#')).collect();
    let slots = ondemand::scenario::SLOTS
        .iter()
        .chain(broadcast::scenario::SLOTS);
    let mut checked = 0;
    for slot in slots {
        let key = format!("`[{}]`", slot.key);
        assert!(
            headings.iter().any(|h| h.contains(&key)),
            "docs/scenarios.md: no heading names the slot {key}"
        );
        checked += 1;
    }
    assert!(checked > 0, "no slots found");
}

#[test]
fn the_readme_set_up_commands_are_the_build_and_what_ci_runs() {
    let repo = root();
    let readme = std::fs::read_to_string(repo.join("README.md")).unwrap();
    let at = readme
        .find("\n## Set up\n")
        .expect("README.md has a `## Set up` section");
    let section = &readme[at + 1..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |e| e + 3)];
    let (_, blocks) = split_fences(section);
    let (_, _, lines) = blocks.first().expect("a code block under `## Set up`");
    let commands: Vec<&str> = lines
        .iter()
        .map(|l| l.split(" #").next().unwrap().trim())
        .filter(|l| !l.is_empty())
        .collect();
    assert_eq!(
        commands.len(),
        2,
        "the set-up block holds two commands: {commands:?}"
    );
    let ci = std::fs::read_to_string(repo.join(".ci/run")).unwrap();
    assert!(
        ci.lines().any(|l| l.trim() == commands[1]),
        "README.md's test command `{}` is not a line of .ci/run",
        commands[1]
    );
    let build = commands[1].replace("--no-fail-fast", "--no-run");
    assert!(
        commands[0].starts_with(&format!("{build} && ")),
        "README.md's first command `{}` should build what the test command `{}` runs ({build})",
        commands[0],
        commands[1]
    );
}

#[test]
fn the_link_reader_sees_links_only_outside_code() {
    let md =
        "# T\n[a](x.md) `[b](y.md)` ![c](img/d.png \"t\")\n```\n[e](z.md)\n```\n[f]: <g h.md>\n";
    let got: Vec<String> = link_targets(md).into_iter().map(|(_, t)| t).collect();
    assert_eq!(got, ["x.md", "img/d.png", "g h.md"]);
    assert_eq!(
        slug("Output folders are vodbench's only by their mark"),
        "output-folders-are-vodbenchs-only-by-their-mark"
    );
    assert_eq!(
        slug("How many viewers: `vodbench search`"),
        "how-many-viewers-vodbench-search"
    );
    assert_eq!(
        slug("Interactive viewing (SPIFFI §8)"),
        "interactive-viewing-spiffi-8"
    );
    let a = anchors("# A\n## A\n```\n# not\n```\n");
    assert_eq!(a, BTreeSet::from(["a".to_string(), "a-1".to_string()]));
}

#[test]
fn links_outside_the_repository_and_to_missing_files_are_refused() {
    let repo = root();
    let file = repo.join("docs/plugins.md");
    assert!(check_link(&repo, &file, "../README.md#a-ten-minute-tour").is_none());
    assert!(check_link(&repo, &file, "../../shared/papers/README.md").is_some());
    assert!(check_link(&repo, &file, "/etc/passwd").is_some());
    assert!(check_link(&repo, &file, "no-such-page.md").is_some());
    assert!(check_link(&repo, &file, "../README.md#no-such-heading").is_some());
    assert!(check_link(&repo, &file, "https://example.org/x").is_none());
}

#[test]
fn a_quoted_invocation_is_read_up_to_its_end() {
    assert_eq!(
        invocations("for n in 1; do vodbench run a.toml --terminals $n | grep x; done"),
        [vec!["run", "a.toml", "--terminals", "$n"]]
    );
    assert!(invocations("the stock vodbench loads it").is_empty());
    assert_eq!(
        invocations("vodbench sweep F --task {}/4 ::: 0 1 && vodbench sweep F --merge"),
        [
            vec!["sweep", "F", "--task", "{}/4"],
            vec!["sweep", "F", "--merge"]
        ]
    );
}

#[test]
fn the_repository_paths_the_readme_and_docs_name_exist() {
    // a path in a code span that starts at one of the repository's top folders
    const TOP: [&str; 12] = [
        "harness/",
        "plugin-api/",
        "plugins/",
        "reports/",
        "scenarios/",
        "tests/",
        "examples/",
        "python/",
        "traces/",
        "docs/",
        "fuzz/",
        "workspace-hack/",
    ];
    let repo = root();
    let mut files = vec![repo.join("README.md")];
    for e in std::fs::read_dir(repo.join("docs")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|e| e == "md") {
            files.push(p);
        }
    }
    let mut problems = Vec::new();
    let mut checked = 0;
    for file in &files {
        let md = std::fs::read_to_string(file).unwrap();
        let (prose, _) = split_fences(&md);
        let (_, spans) = split_code_spans(&prose.join("\n"));
        for (line, code) in spans {
            let path = code.trim().trim_end_matches('/');
            if !TOP.iter().any(|t| path.starts_with(t))
                || path.contains(char::is_whitespace)
                || path.contains(['<', '*', '{', '…', '|'])
                || path.contains("NNN")
            {
                continue;
            }
            checked += 1;
            if !repo.join(path).exists() {
                problems.push(format!(
                    "{}:{line}: `{path}` does not exist in the repository",
                    file.strip_prefix(&repo).unwrap().display()
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(checked >= 40, "only {checked} paths found in the docs");
}
