//! Maps a dotted key path back to its line in the scenario text, for error messages.

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
    let doc = Document::parse(text).ok()?;
    let mut item: &Item = doc.as_item();
    let mut best = None;
    for seg in key.split('.').filter(|s| !s.is_empty()) {
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
}
