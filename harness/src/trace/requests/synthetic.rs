//! Request traces written by vodbench (`vodbench cache generate`): Zipf-distributed requests,
//! each record's next access, and the `oracleGeneral` and CSV writers.

use super::ORACLE_RECORD;
use std::io::Write;

/// Writes `objects` (id, size) as an `oracleGeneral` trace, each record's next access
/// computed (the record number of the object's next request, −1 for never), record `i`'s
/// time `i`. Needs memory for the whole list (a generator's output).
pub fn write_oracle_general<W: Write>(out: &mut W, objects: &[(u64, u32)]) -> std::io::Result<()> {
    let next = next_accesses(objects.iter().map(|o| o.0));
    for (i, ((id, size), next)) in objects.iter().zip(next).enumerate() {
        let mut rec = [0u8; ORACLE_RECORD];
        rec[0..4].copy_from_slice(&(i as u32).to_le_bytes());
        rec[4..12].copy_from_slice(&id.to_le_bytes());
        rec[12..16].copy_from_slice(&size.to_le_bytes());
        rec[16..24].copy_from_slice(&next.map_or(-1i64, |n| n as i64).to_le_bytes());
        out.write_all(&rec)?;
    }
    Ok(())
}

/// Writes `objects` (id, size) as CSV `time,id,size` with a header line, record `i`'s time
/// `i` ([`CsvLayout`] with `header`).
pub fn write_csv<W: Write>(out: &mut W, objects: &[(u64, u32)]) -> std::io::Result<()> {
    writeln!(out, "time,id,size")?;
    for (i, (id, size)) in objects.iter().enumerate() {
        writeln!(out, "{i},{id},{size}")?;
    }
    Ok(())
}

/// For each position of `ids`, the position of the same id's next occurrence.
pub fn next_accesses(
    ids: impl DoubleEndedIterator<Item = u64> + ExactSizeIterator,
) -> Vec<Option<u64>> {
    let n = ids.len();
    let mut next = vec![None; n];
    let mut seen: rustc_hash::FxHashMap<u64, u64> = rustc_hash::FxHashMap::default();
    for (i, id) in ids.enumerate().rev() {
        next[i] = seen.insert(id, i as u64);
    }
    next
}

/// `requests` requests for objects `1..=objects` drawn from a Zipf distribution of skew
/// `alpha` (object `k` with probability ∝ `k^−alpha`), every object `bytes` bytes, from the
/// random stream of `seed`: the synthetic traces cache studies use.
pub fn zipf_requests(
    objects: u64,
    requests: u64,
    alpha: f64,
    bytes: u32,
    seed: u64,
) -> Vec<(u64, u32)> {
    use rand::Rng;
    let mut cdf = Vec::with_capacity(objects as usize);
    let mut sum = 0.0;
    for k in 1..=objects {
        sum += (k as f64).powf(-alpha);
        cdf.push(sum);
    }
    let mut rng = crate::rng::stream(seed, "cache-zipf", 0);
    (0..requests)
        .map(|_| {
            let u: f64 = rng.random::<f64>() * sum;
            let k = cdf
                .partition_point(|c| *c <= u)
                .min(cdf.len().saturating_sub(1));
            (k as u64 + 1, bytes)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next_accesses_point_forward() {
        assert_eq!(
            next_accesses([1u64, 2, 1, 1, 3].into_iter()),
            vec![Some(2), None, Some(3), None, None]
        );
    }

    #[test]
    fn zipf_is_skewed_and_deterministic() {
        let a = zipf_requests(1000, 20_000, 1.0, 1, 3);
        assert_eq!(a, zipf_requests(1000, 20_000, 1.0, 1, 3));
        let ones = a.iter().filter(|r| r.0 == 1).count();
        // P(1) = 1 / H(1000) ≈ 0.1336
        assert!((2400..2950).contains(&ones), "{ones}");
        assert!(a.iter().all(|r| (1..=1000).contains(&r.0)));
    }
}
