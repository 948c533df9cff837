//! Parquet export: `summary.parquet` and one Parquet file per table.

use crate::folder::RunFolder;
use polars::prelude::*;
use std::path::{Path, PathBuf};

/// Writes every table of `folder` as Parquet into `out`.
pub fn write(folder: &RunFolder, out: &Path) -> Result<Vec<PathBuf>, String> {
    let mut written = Vec::new();
    for (name, mut df) in super::frames(folder)? {
        let path = out.join(format!("{name}.parquet"));
        let mut file =
            std::fs::File::create(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        ParquetWriter::new(&mut file)
            .finish(&mut df)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        written.push(path);
    }
    Ok(written)
}
