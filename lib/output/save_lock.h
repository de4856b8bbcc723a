// The two locks of a save path S, files beside it (P/.B<suffix>, P its parent,
// B its name; output/commit_recovery.h: not inside S, which the commit swaps
// away), both flock()s:
//
// - The run lock, P/.B.dsanalyze-run.lock: one dsanalyze run (or merge) at a
//   time per save path. Rank 0 holds it exclusively from before it creates the
//   staging folder until after the commit or the cleanup (AnalysisWriter owns
//   it), so two runs never interleave files in one save path. A second run
//   does not wait: AcquireRun fails at once with an IoError (exit code 3:
//   nothing is wrong with its input, the save path is busy) naming the save
//   path, the lock file and the holder.
// - The save path's lock, P/.B.dsanalyze.lock: what a reader of the analysis
//   holds shared while it reads (verify, compare, curriculum, order, batches,
//   merge: LockForReading; or anyone with `flock -s`), and the commit holds
//   exclusively around its swap (AcquireSwap). Each waits for the other up to
//   a bounded time (LockWaitSeconds), then fails with an IoError naming the
//   lock and the holder it records. Readers do not conflict with the run
//   lock: a run may start while S is read; only its swap waits.
//
// Each holder writes "pid P on host H" into the file (a reader as a fixed-size
// record, so concurrent readers overwrite each other whole: the file names
// the latest).
//
// No stale locks and no file left behind: the kernel drops a flock when its
// holder exits, even by SIGKILL. The file is deleted only by a holder of its
// exclusive lock, while it holds it: a released exclusive lock deletes it; a
// released shared one first tries to turn exclusive without waiting, which
// succeeds only for the last holder, and then deletes it. Every Acquire
// re-checks after locking that the path still names the file it locked (else
// it opens the new one and locks again), so deleting never lets a holder keep
// a lock on a file nobody else can reach. A killed holder leaves the file with
// its dead pid; the next one simply takes it over.
//
// NFS: Linux's NFS client turns flock() into a POSIX byte-range lock held by
// the server (NFSv4 locking, or NLM/lockd for v3), which is why the file is
// opened read-write: the lock then holds across hosts. Mounts with
// `local_lock=flock` or `local_lock=all` make it local to each host, `nolock`
// too (v3); where the server refuses locks, Acquire fails with ENOLCK rather
// than run unlocked. A lock held by a client that lost its lease is freed by
// the server when the lease expires (NFSv4: about 90 s).
//
// Move-only; not thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/status.h"
#include "util/unique_fd.h"

namespace dsanalyze {

// How long the commit's swap waits for readers, and a reader for a swap:
// DSANALYZE_LOCK_WAIT seconds when set (a number from 0 to 86400), else
// kDefaultLockWaitSeconds. BadInput naming the variable when it is not such a
// number.
inline constexpr double kDefaultLockWaitSeconds = 10;
Result<double> LockWaitSeconds();

class SaveLock {
 public:
  // The lock files' names beside the save path: P/.B<suffix>.
  static constexpr std::string_view kSuffix = ".dsanalyze.lock";
  static constexpr std::string_view kRunSuffix = ".dsanalyze-run.lock";

  // The run lock at `lock_path` (its folder must exist): exclusive, refused
  // at once while another holds it. The messages name the save path as
  // `path_key` `save_path`: the run's config key, or merge's "--out".
  static Result<SaveLock> AcquireRun(const std::string& lock_path, const std::string& save_path,
                                     std::string_view path_key = "output.path");

  // The save path's lock at `lock_path`, exclusive, for the commit's swap:
  // waits up to `wait_seconds` for the readers to finish.
  static Result<SaveLock> AcquireSwap(const std::string& lock_path, const std::string& save_path,
                                      std::string_view path_key, double wait_seconds);

  // The save path's lock at `lock_path`, shared, for a reader of `analysis`:
  // waits up to `wait_seconds` for a swap. nullopt when the file does not
  // exist and cannot be created (its folder missing, or not writable by this
  // user: then no run of this user commits there either), and the reader
  // reads without it.
  static Result<std::optional<SaveLock>> AcquireShared(const std::string& lock_path,
                                                       const std::string& analysis,
                                                       double wait_seconds);

  SaveLock(SaveLock&& other) noexcept = default;
  SaveLock& operator=(SaveLock&&) = delete;
  SaveLock(const SaveLock&) = delete;
  ~SaveLock();  // deletes the lock file (a shared lock: when the last), then releases

 private:
  SaveLock(UniqueFd fd, std::string path, bool shared)
      : fd_(std::move(fd)), path_(std::move(path)), shared_(shared) {}
  UniqueFd fd_;
  std::string path_;
  bool shared_ = false;
};

// What a command that reads analyses holds while it reads them (verify,
// compare, curriculum, order, batches, merge): the save path's lock beside
// each of `analyses` (symbolic links resolved, as a run's commit resolves
// them), shared, each waiting LockWaitSeconds(). None for an analysis
// AcquireShared gives none, or that has no parent to hold a lock file; a path
// that cannot be resolved is left to the command, which reports it as it
// reads.
Result<std::vector<SaveLock>> LockForReading(const std::vector<std::string>& analyses);

}  // namespace dsanalyze
