//! What `vodbench search` and `sweep` share to run and show their simulations: the worker
//! threads, and a spinner on standard error counting the runs.

use super::CommandError;

/// The worker threads of a command: `threads` of them, or one per core (rayon's default).
/// Each carries the [`StopToken`](crate::interrupt::StopToken) installed on the thread
/// building the pool, so a stop requested of the command reaches its workers' checks.
pub(crate) fn worker_pool(threads: Option<u32>) -> Result<rayon::ThreadPool, CommandError> {
    let token = crate::interrupt::StopToken::current();
    let mut pool = rayon::ThreadPoolBuilder::new()
        .start_handler(move |_| crate::interrupt::adopt(token.clone()));
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interrupt::{check, Interrupted, StopToken};
    use rayon::prelude::*;

    /// Whether `check` unwinds with [`Interrupted`] here.
    fn stopped() -> bool {
        crate::plugin_library::install_hook();
        match std::panic::catch_unwind(check) {
            Ok(()) => false,
            Err(p) if p.downcast_ref::<Interrupted>().is_some() => true,
            Err(p) => std::panic::resume_unwind(p),
        }
    }

    #[test]
    fn a_worker_pool_carries_its_creators_token() {
        let token = StopToken::new();
        let pool = token.install(|| worker_pool(Some(3))).unwrap();
        // installed from this thread, which holds no token: the workers have it all the same
        let holders = pool.install(|| {
            (0..64)
                .into_par_iter()
                .filter(|_| StopToken::current().is_some())
                .count()
        });
        assert_eq!(holders, 64);
        assert_eq!(
            pool.install(|| (0..64).into_par_iter().filter(|_| stopped()).count()),
            0
        );
        token.request();
        assert_eq!(
            pool.install(|| (0..64).into_par_iter().filter(|_| stopped()).count()),
            64
        );
        // a pool built on a thread with no token stops for nobody
        let free = worker_pool(Some(2)).unwrap();
        assert_eq!(
            free.install(|| (0..64).into_par_iter().filter(|_| stopped()).count()),
            0
        );
    }
}
