//! Maps a dotted key path back to its line in the scenario text, for error messages.
//! [`super::Source`] parses a file for this once and keeps the spans.

use toml_edit::{Document, Item};

/// 1-based line of byte offset `pos` in `text`.
pub fn line_of(text: &str, pos: usize) -> usize {
    text[..pos.min(text.len())]
        .bytes()
        .filter(|b| *b == b'\n')
        .count()
        + 1
}

/// The line where `key` (dotted path, e.g. `server.disks_per_node` or `run.duration`) is set,
/// or failing that the line of the deepest table on the path that exists.
pub fn line_of_key(text: &str, key: &str) -> Option<usize> {
    line_in(&document(text)?, text, key)
}

/// `text` parsed with the spans of its keys (integers above `i64::MAX` read as 0, so that a
/// large seed does not hide every line); `None` if it is not TOML.
pub fn document(text: &str) -> Option<Document<String>> {
    Document::parse(text.to_string())
        .or_else(|_| Document::parse(without_large_integers(text)))
        .ok()
}

/// [`line_of_key`] in a document already parsed from `text` ([`document`]).
pub fn line_in(doc: &Document<String>, text: &str, key: &str) -> Option<usize> {
    let mut item: &Item = doc.as_item();
    let mut best = None;
    // an array element is `list[2]` (as serde paths name it) or `list.2`: its own line, not
    // the line of the table holding the list
    let normalized = key.replace('[', ".").replace(']', "");
    for seg in normalized.split('.').filter(|s| !s.is_empty()) {
        let next = if let Ok(i) = seg.parse::<usize>() {
            item.get(i)
        } else {
            item.get(seg)
        };
        match next {
            Some(n) => {
                if let Some(tbl) = item.as_table_like() {
                    if let Some((k, _)) = tbl.get_key_value(seg) {
                        if let Some(span) = k.span() {
                            best = Some(line_of(text, span.start));
                        }
                    }
                }
                if let Some(span) = n.span() {
                    best = Some(line_of(text, span.start));
                } else if let Some(t) = n.as_table() {
                    if let Some(span) = t.span() {
                        best = Some(line_of(text, span.start));
                    }
                }
                item = n;
            }
            None => break,
        }
    }
    best
}

/// `text` with every value that is a decimal integer above `i64::MAX` (a seed such as
/// `seed = 13702643148169166723`, which scenarios accept as a `u64` but TOML's own integers
/// cannot hold) replaced by `0` and spaces of the same length, so that the rest can be
/// located at the same byte offsets.
pub fn without_large_integers(text: &str) -> String {
    text.split_inclusive('\n')
        .map(|line| {
            let Some(eq) = line.find('=') else {
                return line.to_string();
            };
            let value = &line[eq + 1..];
            let value = value.split_once('#').map_or(value, |(v, _)| v);
            let digits = value.trim();
            let large = !digits.is_empty()
                && digits.bytes().all(|b| b.is_ascii_digit() || b == b'_')
                && digits.replace('_', "").parse::<i64>().is_err();
            if !large {
                return line.to_string();
            }
            let start = eq + 1 + value.find(digits).unwrap_or(0);
            let mut out = line.to_string();
            let blank = format!("0{}", " ".repeat(digits.len() - 1));
            out.replace_range(start..start + digits.len(), &blank);
            out
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_keys_and_tables() {
        let t = "seed = 1\n\n[server]\nnodes = 4\ndisks_per_node = 0\n[disk.model]\nname = \"x\"\n";
        assert_eq!(line_of_key(t, "server.disks_per_node"), Some(5));
        assert_eq!(line_of_key(t, "seed"), Some(1));
        assert_eq!(line_of_key(t, "disk.model.name"), Some(7));
        // A missing key falls back to its table.
        assert_eq!(line_of_key(t, "server.memory_per_node"), Some(3));
    }

    #[test]
    fn issue49_array_elements_are_found_at_their_own_lines() {
        let t = "[analytic]\nname = \"m\"\ndm_max = [\n  4,\n  \"x\",\n]\n\n[clients]\n\
                 [[clients.profile]]\nshare = 0.5\n\n[[clients.profile]]\nshare = 0.5\n\
                 rate = \"fast\"\n";
        assert_eq!(line_of_key(t, "analytic.dm_max[1]"), Some(5));
        assert_eq!(line_of_key(t, "analytic.dm_max.0"), Some(4));
        assert_eq!(line_of_key(t, "clients.profile[1].rate"), Some(14));
        assert_eq!(line_of_key(t, "clients.profile[1]"), Some(12));
        assert_eq!(line_of_key(t, "clients.profile[0].share"), Some(10));
    }

    #[test]
    fn a_seed_above_i64_max_does_not_hide_the_lines() {
        let t = "seed = 13702643148169166723 # a replication's seed\n[server]\n\
                 nodes = 4\ndisks_per_node = 0\n[disk.model]\nname = \"x\"\n";
        assert_eq!(line_of_key(t, "server.disks_per_node"), Some(4));
        assert_eq!(line_of_key(t, "disk.model"), Some(5));
        assert_eq!(line_of_key(t, "seed"), Some(1));
    }
}
