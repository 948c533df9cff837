//! Where a sweep's settings are in the file's text: the lines its messages name.

use super::Axis;
use crate::scenario::locate;

/// Where setting `i` of `axis` sets `key`: the sweep key for messages and its line.
pub(super) fn setting_place(
    text: &str,
    axis: &Axis,
    i: usize,
    key: &str,
) -> (String, Option<usize>) {
    match axis {
        Axis::Key { key: k, .. } => (format!("sweep.{k}"), sweep_line(text, k)),
        Axis::Series { name, .. } => (
            format!("sweep.series.{name}.{i}.{key}"),
            key_line_in_entry(text, name, i, key).or_else(|| entry_line(text, name, i)),
        ),
    }
}

/// The line of `key` inside the `[sweep]` table (keys there are quoted dotted strings).
pub fn sweep_line(text: &str, key: &str) -> Option<usize> {
    let start = text.find("[sweep]")?;
    let rest = &text[start..];
    let pos = rest
        .find(&format!("\"{key}\""))
        .or_else(|| rest.find(&format!("\n{key} ")).map(|p| p + 1))?
        + start;
    Some(locate::line_of(text, pos))
}

/// The line of the header of entry `i` of series `name`.
pub(super) fn entry_line(text: &str, name: &str, i: usize) -> Option<usize> {
    let header = format!("[[sweep.series.{name}]]");
    let pos = text.match_indices(&header).nth(i)?.0;
    Some(locate::line_of(text, pos))
}

/// The line where entry `i` of series `name` sets `key`.
pub(super) fn key_line_in_entry(text: &str, name: &str, i: usize, key: &str) -> Option<usize> {
    let header = format!("[[sweep.series.{name}]]");
    let start = text.match_indices(&header).nth(i)?.0 + header.len();
    let end = text[start..].find("\n[").map_or(text.len(), |p| start + p);
    let body = &text[start..end];
    let first = key.split('.').next().unwrap_or(key);
    let pos = body.find(&format!("\"{key}\"")).or_else(|| {
        body.match_indices(first)
            .find(|(p, _)| *p == 0 || body.as_bytes()[p - 1] == b'\n')
            .map(|m| m.0)
    })?;
    Some(locate::line_of(text, start + pos))
}
