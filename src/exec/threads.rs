//! The executor's threads: how many it may use, and running two pieces
//! of work at once.
//!
//! Owns: the thread budget ([`budget`]: `EQSCAN_NUM_THREADS` when set,
//! else the cores this process may run on, which honours `taskset`) and
//! [`join`], which runs two closures at once on this thread and one
//! helper thread when the budget allows, one after the other otherwise.
//! Callers split work so that either way gives the same bits; this module
//! never decides how work is split. Must not: run a closure after `join`
//! has returned, or keep a core busy long after the last join.
//!
//! The helper is started on the first join and lives as long as the
//! process. Starting a thread, or waking a sleeping one, takes 30-60 µs on
//! the virtual machines this was measured on, as long as the halves of
//! the passes worth splitting; so after each job the helper waits for the
//! next one by polling (spinning at first, then yielding its core at
//! every poll) for [`SPIN`],
//! and only then sleeps. Back-to-back calls (a sampler's, `run --repeat`)
//! find it awake: the hand-over then takes well under a microsecond.
//! On a machine whose cores are busy with other work the helper may not
//! be scheduled for milliseconds: a join whose own half is done before
//! the helper has taken the other takes it back and runs it itself, and
//! a join waiting for the helper yields its core after a short spin.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// How long the helper polls for a next job before it sleeps.
pub const SPIN: Duration = Duration::from_millis(2);

/// Polls right after a job that only spin (tens of microseconds), before
/// the helper yields its core at each poll.
const HOT_POLLS: u32 = 1 << 14;

/// The environment variable that sets the thread budget.
pub const BUDGET_VAR: &str = "EQSCAN_NUM_THREADS";

/// `EQSCAN_NUM_THREADS` holds something other than a positive whole
/// number (the command line refuses to start with it; the library then
/// uses the cores the process may run on).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{BUDGET_VAR} must be a whole number of threads, 1 or more, not '{0}'")]
pub struct BadBudget(pub String);

/// The thread count `EQSCAN_NUM_THREADS` asks for: `Ok(None)` when it is
/// not set.
pub fn budget_setting() -> Result<Option<usize>, BadBudget> {
    match std::env::var_os(BUDGET_VAR) {
        None => Ok(None),
        Some(v) => {
            let text = v.to_string_lossy().into_owned();
            match text.trim().parse::<usize>() {
                Ok(n) if n > 0 => Ok(Some(n)),
                _ => Err(BadBudget(text)),
            }
        }
    }
}

/// The number of threads the executor may use (at least 1):
/// `EQSCAN_NUM_THREADS` when it holds a positive integer, else the cores
/// the process may run on. Read once per process.
pub fn budget() -> usize {
    static BUDGET: OnceLock<usize> = OnceLock::new();
    *BUDGET.get_or_init(|| {
        budget_setting()
            .ok()
            .flatten()
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
    })
}

/// A posted job: a type-erased pointer to the caller's [`Slot`] and the
/// function that runs it.
#[derive(Clone, Copy)]
struct Job {
    slot: *const (),
    run: unsafe fn(*const ()),
}

// SAFETY: the pointer is only dereferenced by `run`, on the helper, while
// the posting `join` waits for it (see `join`); the closure and result it
// points to are `Send`.
unsafe impl Send for Job {}

/// The helper thread's mailbox.
struct Helper {
    /// Held by the `join` that uses the helper; a `join` that finds it
    /// held runs both closures itself.
    busy: AtomicBool,
    /// Incremented when a job is posted.
    posted: AtomicU64,
    /// Set to `posted`'s value once that job has run.
    finished: AtomicU64,
    /// The posted job (taken by the helper).
    job: Mutex<Option<Job>>,
    /// Wakes a sleeping helper.
    wake: Condvar,
    /// The helper sleeps on `wake` (written and read under `job`'s lock).
    asleep: AtomicBool,
}

/// The helper, started on first use; `None` when it cannot start.
fn helper() -> Option<&'static Helper> {
    static HELPER: OnceLock<Option<&'static Helper>> = OnceLock::new();
    *HELPER.get_or_init(|| {
        let h: &'static Helper = Box::leak(Box::new(Helper {
            busy: AtomicBool::new(false),
            posted: AtomicU64::new(0),
            finished: AtomicU64::new(0),
            job: Mutex::new(None),
            wake: Condvar::new(),
            asleep: AtomicBool::new(false),
        }));
        std::thread::Builder::new()
            .name("eqscan-helper".into())
            .spawn(move || serve(h))
            .ok()
            .map(|_| h)
    })
}

/// The helper's loop: poll for a job (yielding the core) for [`SPIN`],
/// then sleep until one is posted; run it; tell it is done.
fn serve(h: &'static Helper) {
    let mut seen = 0u64;
    loop {
        let since = Instant::now();
        let mut polls = 0u32;
        while h.posted.load(Ordering::Acquire) == seen {
            polls = polls.wrapping_add(1);
            if polls.is_multiple_of(64) && since.elapsed() > SPIN {
                let Ok(mut g) = h.job.lock() else { return };
                h.asleep.store(true, Ordering::Relaxed);
                while h.posted.load(Ordering::Acquire) == seen {
                    g = match h.wake.wait(g) {
                        Ok(g) => g,
                        Err(_) => return,
                    };
                }
                h.asleep.store(false, Ordering::Relaxed);
                break;
            }
            // Jobs in a loop come microseconds apart (a product per
            // step): poll without a system call at first, then yield the
            // core at every poll.
            if polls < HOT_POLLS {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
        seen = h.posted.load(Ordering::Acquire);
        let job = match h.job.lock() {
            Ok(mut g) => g.take(),
            Err(_) => return,
        };
        if let Some(job) = job {
            // SAFETY: `join` posted the job and waits for `finished`
            // before its slot goes out of scope.
            unsafe { (job.run)(job.slot) };
        }
        h.finished.store(seen, Ordering::Release);
    }
}

/// The second closure of a join and, once it ran, its result.
struct Slot<R, B> {
    f: Mutex<Option<R>>,
    out: Mutex<Option<std::thread::Result<B>>>,
}

/// Runs the closure of the [`Slot`] at `p` and stores its result (or its
/// panic).
///
/// # Safety
/// `p` points to a live `Slot<R, B>`.
unsafe fn run_slot<R: FnOnce() -> B, B>(p: *const ()) {
    // SAFETY: the caller guarantees `p` is a live `Slot<R, B>`.
    let slot = unsafe { &*(p as *const Slot<R, B>) };
    let f = slot.f.lock().ok().and_then(|mut g| g.take());
    if let Some(f) = f {
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
        if let Ok(mut g) = slot.out.lock() {
            *g = Some(r);
        }
    }
}

/// Waits for the posted job `n` to finish, even when the closure run on
/// this thread panics (so the helper never outlives the slot it reads).
struct WaitFor<'h> {
    h: &'h Helper,
    n: u64,
}

impl Drop for WaitFor<'_> {
    fn drop(&mut self) {
        let mut polls = 0u32;
        while self.h.finished.load(Ordering::Acquire) != self.n {
            // The helper runs the job; on a machine whose cores are busy
            // it may have been descheduled in the middle, so after a short
            // spin give the core away rather than burn a time slice.
            polls = polls.saturating_add(1);
            if polls < WAIT_SPINS {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
        self.h.busy.store(false, Ordering::Release);
    }
}

/// Spins of a join waiting for the helper to finish its half before it
/// yields its core at each poll.
const WAIT_SPINS: u32 = 1 << 12;

/// Takes the job posted for `slot` back out of the helper's mailbox if the
/// helper has not taken it yet (it was not scheduled in time: on a machine
/// whose other cores are busy it may not be for milliseconds). `true`: the
/// helper will never see the job, and the caller runs it.
fn reclaim(h: &Helper, slot: *const ()) -> bool {
    match h.job.lock() {
        Ok(mut g) => {
            if g.as_ref().is_some_and(|j| std::ptr::eq(j.slot, slot)) {
                *g = None;
                true
            } else {
                false
            }
        }
        Err(_) => false,
    }
}

/// Runs `left` and `right` and returns both results: `right` on the
/// helper thread while `left` runs on this one when the budget is 2 or
/// more and the helper is free, else `right` after `left` on this thread.
/// A panic in either is resumed here.
pub fn join<L, R, A, B>(left: L, right: R) -> (A, B)
where
    L: FnOnce() -> A + Send,
    R: FnOnce() -> B + Send,
    A: Send,
    B: Send,
{
    let h = if budget() >= 2 { helper() } else { None };
    let Some(h) = h.filter(|h| {
        h.busy
            .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
    }) else {
        let a = left();
        return (a, right());
    };
    let slot: Slot<R, B> = Slot {
        f: Mutex::new(Some(right)),
        out: Mutex::new(None),
    };
    let n = {
        let Ok(mut g) = h.job.lock() else {
            h.busy.store(false, Ordering::Release);
            let a = left();
            let right = slot.f.into_inner().ok().flatten();
            return (a, run_here(right));
        };
        *g = Some(Job {
            slot: &slot as *const Slot<R, B> as *const (),
            run: run_slot::<R, B>,
        });
        let n = h.posted.fetch_add(1, Ordering::AcqRel) + 1;
        // Set and read under the lock: a helper about to sleep sees the
        // job first. (A wake is a system call: a polling helper skips it.)
        if h.asleep.load(Ordering::Relaxed) {
            h.wake.notify_one();
        }
        n
    };
    let slot_ptr = &slot as *const Slot<R, B> as *const ();
    let a = {
        let wait = WaitFor { h, n };
        let a = left();
        // The helper has not started the right half: run it here, as the
        // budget-1 path does (callers split so that either way gives the
        // same bits). The helper then finds an empty mailbox and only
        // counts the job as finished; this join does not wait for that
        // (a later join waits for its own number, which is counted after
        // this one).
        if reclaim(h, slot_ptr) {
            std::mem::forget(wait);
            h.busy.store(false, Ordering::Release);
            let right = slot.f.into_inner().ok().flatten();
            return (a, run_here(right));
        }
        a
    };
    let out = slot.out.lock().ok().and_then(|mut g| g.take());
    match out {
        Some(Ok(b)) => (a, b),
        Some(Err(p)) => std::panic::resume_unwind(p),
        // The helper found no closure: it cannot happen, as only the
        // helper takes it; run it here if it is still there.
        None => {
            let right = slot.f.lock().ok().and_then(|mut g| g.take());
            (a, run_here(right))
        }
    }
}

/// Runs a join's second closure on this thread.
fn run_here<R: FnOnce() -> B, B>(right: Option<R>) -> B {
    match right {
        Some(f) => f(),
        None => lost(),
    }
}

#[cold]
fn lost() -> ! {
    // Only `join` and the helper take the closure, once each at most, and
    // the helper stores what it ran.
    panic!("a join's second closure was taken and not run")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether `p` is a payload of a panic.
    fn is_panic(p: &(dyn std::any::Any + Send)) -> bool {
        p.is::<&str>() || p.is::<String>()
    }

    #[test]
    fn both_halves_run_and_return() {
        let xs: Vec<u64> = (0..100_000).collect();
        for _ in 0..50 {
            let (a, b) = join(
                || xs[..50_000].iter().sum::<u64>(),
                || xs[50_000..].iter().sum::<u64>(),
            );
            assert_eq!(a + b, xs.iter().sum::<u64>());
        }
    }

    #[test]
    fn a_panic_on_either_side_reaches_the_caller() {
        let r = std::panic::catch_unwind(|| join(|| 1, || -> u32 { panic!("right") }));
        assert!(r.as_ref().is_err_and(|p| is_panic(p.as_ref())));
        let r = std::panic::catch_unwind(|| join(|| -> u32 { panic!("left") }, || 2));
        assert!(r.is_err());
        // The helper is free again.
        assert_eq!(join(|| 3, || 4), (3, 4));
    }

    /// After a pause longer than [`SPIN`] the helper sleeps, and waking
    /// it takes longer than a trivial left half: the join then takes the
    /// right half back and runs it itself (or the helper runs it, if it
    /// woke first). Either way both results come back, and a later join
    /// still finds the helper.
    #[test]
    fn a_join_whose_helper_is_slow_to_wake_runs_both_halves() {
        for round in 0..20u64 {
            std::thread::sleep(SPIN * 2);
            let (a, b) = join(|| round, || round * 2);
            assert_eq!((a, b), (round, round * 2));
            let r = std::panic::catch_unwind(|| join(|| 1, || -> u32 { panic!("right") }));
            assert!(r.is_err());
            let xs: Vec<u64> = (0..10_000).collect();
            let (a, b) = join(
                || xs[..5_000].iter().sum::<u64>(),
                || xs[5_000..].iter().sum::<u64>(),
            );
            assert_eq!(a + b, xs.iter().sum::<u64>());
        }
    }

    #[test]
    fn joins_from_several_threads_at_once() {
        let total: u64 = std::thread::scope(|s| {
            let hs: Vec<_> = (0..4u64)
                .map(|t| s.spawn(move || (0..200).map(|i| join(|| t + i, || i).0).sum::<u64>()))
                .collect();
            hs.into_iter().map(|h| h.join().unwrap_or(0)).sum()
        });
        let want: u64 = (0..4u64)
            .map(|t| (0..200).map(|i| t + i).sum::<u64>())
            .sum();
        assert_eq!(total, want);
    }
}
