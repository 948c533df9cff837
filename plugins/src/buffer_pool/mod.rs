//! Buffer-pool page replacement ([`BufferPool`](vodbench_plugin_api::plugin::BufferPool)):
//! the server's pools (`global-lru`, `love-prefetch`) and the policies cache studies compare
//! (`fifo`, `clock`, `lfu`, `arc`, `s3-fifo`, `belady`), which `vodbench cache replay` runs on
//! request traces and a scenario may choose as well.

pub mod arc;
pub mod belady;
mod chain;
pub mod clock;
pub mod fifo;
pub mod global_lru;
pub mod lfu;
pub mod love_prefetch;
pub mod s3_fifo;

use vodbench_plugin_api::plugin::{BufferPool, Kind, Registry};

/// Registers the built-in buffer pools; `global-lru` is `[buffer_pool]`'s default.
pub fn register(r: &mut Registry) {
    r.add::<global_lru::GlobalLru>();
    r.add::<love_prefetch::LovePrefetch>();
    r.add::<fifo::Fifo>();
    r.add::<clock::Clock>();
    r.add::<lfu::Lfu>();
    r.add::<arc::Arc>();
    r.add::<s3_fifo::S3Fifo>();
    r.add::<belady::Belady>();
    r.set_default::<dyn BufferPool>(Kind::BufferPool.key(), "global-lru", toml::Table::new());
}
