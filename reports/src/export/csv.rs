//! CSV export: `summary.csv` and one CSV per table.

use crate::folder::RunFolder;
use polars::prelude::*;
use std::path::{Path, PathBuf};

/// Writes every table of `folder` as CSV into `out`.
pub fn write(folder: &RunFolder, out: &Path) -> Result<Vec<PathBuf>, String> {
    let mut written = Vec::new();
    for (name, mut df) in super::frames(folder)? {
        let path = out.join(format!("{name}.csv"));
        let mut file =
            std::fs::File::create(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        CsvWriter::new(&mut file)
            .include_header(true)
            .finish(&mut df)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        written.push(path);
    }
    Ok(written)
}
