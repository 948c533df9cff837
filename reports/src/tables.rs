//! One file per table: CSV and Parquet through polars.

use polars::prelude::*;
use std::path::{Path, PathBuf};
use vodbench_harness::output::{TableFormat, TableWriter};
use vodbench_harness::results::{Column as Col, Table};

/// Converts a harness table into a polars `DataFrame` (column order kept).
pub fn to_dataframe(t: &Table) -> PolarsResult<DataFrame> {
    let cols: Vec<Column> = t
        .columns
        .iter()
        .map(|(name, c)| match c {
            Col::U64(v) => Column::new(name.as_str().into(), v.as_slice()),
            Col::F64(v) => Column::new(name.as_str().into(), v.as_slice()),
            Col::Str(v) => Column::new(name.as_str().into(), v.as_slice()),
        })
        .collect();
    DataFrame::new(t.rows(), cols)
}

/// Writes tables with polars.
#[derive(Debug, Default, Clone, Copy)]
pub struct PolarsTableWriter;

impl TableWriter for PolarsTableWriter {
    fn write(&self, table: &Table, dir: &Path, format: TableFormat) -> Result<PathBuf, String> {
        let mut df = to_dataframe(table).map_err(|e| e.to_string())?;
        let path = dir.join(format!("{}.{}", table.name, format.extension()));
        let mut file =
            std::fs::File::create(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        match format {
            TableFormat::Csv => CsvWriter::new(&mut file)
                .include_header(true)
                .finish(&mut df)
                .map_err(|e| e.to_string())?,
            TableFormat::Parquet => {
                ParquetWriter::new(&mut file)
                    .finish(&mut df)
                    .map_err(|e| e.to_string())?;
            }
        }
        Ok(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> Table {
        Table {
            name: "disks".into(),
            columns: vec![
                ("disk".into(), Col::U64(vec![0, 1])),
                ("utilization_ratio".into(), Col::F64(vec![0.5, 0.25])),
                ("label".into(), Col::Str(vec!["a".into(), "b,c".into()])),
            ],
        }
    }

    #[test]
    fn csv_has_header_rows_and_quoting() {
        let dir = tempfile::tempdir().unwrap();
        let p = PolarsTableWriter
            .write(&table(), dir.path(), TableFormat::Csv)
            .unwrap();
        let text = std::fs::read_to_string(p).unwrap();
        assert_eq!(
            text,
            "disk,utilization_ratio,label\n0,0.5,a\n1,0.25,\"b,c\"\n"
        );
    }

    #[test]
    fn parquet_round_trips() {
        let dir = tempfile::tempdir().unwrap();
        let p = PolarsTableWriter
            .write(&table(), dir.path(), TableFormat::Parquet)
            .unwrap();
        let df = ParquetReader::new(std::fs::File::open(p).unwrap())
            .finish()
            .unwrap();
        assert_eq!(df.shape(), (2, 3));
    }
}
