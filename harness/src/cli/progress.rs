//! What `vodbench search` and `sweep` share to run and show their simulations: the worker
//! threads, and a spinner on standard error counting the runs.

use super::CommandError;

/// The worker threads of a search: `threads` of them, or one per core.
pub(crate) fn worker_pool(threads: Option<u32>) -> Result<rayon::ThreadPool, CommandError> {
    let mut pool = rayon::ThreadPoolBuilder::new();
    if let Some(t) = threads {
        pool = pool.num_threads(t as usize);
    }
    pool.build()
        .map_err(|e| CommandError::failure(format!("cannot start worker threads: {e}")))
}

/// A spinner on standard error drawn from `template` (hidden when `quiet`).
pub(crate) fn progress_bar(quiet: bool, template: &str) -> indicatif::ProgressBar {
    let bar = if quiet {
        indicatif::ProgressBar::hidden()
    } else {
        indicatif::ProgressBar::with_draw_target(None, indicatif::ProgressDrawTarget::stderr())
    };
    bar.set_style(indicatif::ProgressStyle::with_template(template).expect("valid template"));
    bar.enable_steady_tick(std::time::Duration::from_millis(200));
    bar
}
