// One dsanalyze run at a time per save path.
//
// SaveLock::Acquire takes an exclusive, non-blocking flock() on the lock file
// beside the save path S, P/.B.dsanalyze.lock (P its parent, B its name;
// output/commit_recovery.h: not inside S, which the commit swaps away),
// creating the file, and writes "pid P on host H" into it. Rank 0 holds the
// lock from before it creates the staging folder until after the commit or
// the cleanup (AnalysisWriter owns it), so two runs never interleave files
// in one save path. A second run does not wait: Acquire fails
// at once with an IoError (exit code 3: nothing is wrong with its input, the
// save path is busy) naming the save path, the lock file and the holder.
//
// No stale locks: the kernel drops a flock when its holder exits, even by
// SIGKILL. A released SaveLock deletes the file while it still holds the lock,
// so a finished run leaves nothing behind; Acquire re-checks after locking that
// the path still names the file it locked (else it retries), so deleting never
// lets two runs hold the lock. A killed run leaves the file with its dead pid;
// the next run simply takes it over.
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

#include <string>
#include <string_view>

#include "util/status.h"
#include "util/unique_fd.h"

namespace dsanalyze {

class SaveLock {
 public:
  // The lock file's name beside the save path: P/.B<kSuffix>.
  static constexpr std::string_view kSuffix = ".dsanalyze.lock";

  // Locks the file `lock_path`, whose folder must exist. The messages name
  // the save path as `path_key` `save_path`: the run's config key, or
  // merge's "--out".
  static Result<SaveLock> Acquire(const std::string& lock_path, const std::string& save_path,
                                  std::string_view path_key = "output.path");

  SaveLock(SaveLock&& other) noexcept = default;
  SaveLock& operator=(SaveLock&&) = delete;
  SaveLock(const SaveLock&) = delete;
  ~SaveLock();  // deletes the lock file, then releases the lock

 private:
  SaveLock(UniqueFd fd, std::string path) : fd_(std::move(fd)), path_(std::move(path)) {}
  UniqueFd fd_;
  std::string path_;
};

}  // namespace dsanalyze
