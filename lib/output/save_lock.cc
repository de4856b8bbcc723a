#include "output/save_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <thread>

#include "output/commit_recovery.h"
#include "util/file_util.h"

namespace dsanalyze {
namespace {

using Clock = std::chrono::steady_clock;
// How often a waiting lock is tried again. flock() has no timeout, and a
// blocking one would not be served sooner: Linux grants a shared lock past a
// waiting exclusive one.
constexpr auto kRetryInterval = std::chrono::milliseconds(2);
// A reader's "pid P on host H" is padded with newlines to this many bytes.
constexpr size_t kReaderRecord = 128;

// "pid P on host H", as the holder wrote it into the lock file.
std::string ReadHolder(int fd) {
  char buf[256];
  const ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
  std::string text(buf, n > 0 ? static_cast<size_t>(n) : 0);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\0')) text.pop_back();
  // Empty: the holder has locked but not yet written (or is an older version,
  // or `flock` run by hand).
  return text.empty() ? "another process" : text;
}

std::string HolderText() {
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) != 0) host[0] = '\0';
  return "pid " + std::to_string(getpid()) + " on host " + (host[0] ? host : "?") + "\n";
}

// The holder's name is only for the message of whoever waits for the lock: a
// failed write costs nothing but that. Readers share the file: each writes a
// record of one size, which overwrites the previous one whole.
void WriteHolder(int fd, bool shared) {
  std::string text = HolderText();
  if (shared) {
    text.resize(std::max(text.size(), kReaderRecord), '\n');
    (void)!pwrite(fd, text.data(), text.size(), 0);
  } else if (ftruncate(fd, 0) == 0) {
    (void)!pwrite(fd, text.data(), text.size(), 0);
  }
}

// True when `path` still names the file open as `fd` (the previous holder may
// have deleted it between our open() and flock()).
bool SameFile(int fd, const std::string& path) {
  struct stat by_fd {
  }, by_path{};
  return fstat(fd, &by_fd) == 0 && stat(path.c_str(), &by_path) == 0 &&
         by_fd.st_dev == by_path.st_dev && by_fd.st_ino == by_path.st_ino;
}

// The lock file, created when missing; a reader that may not create it opens
// it read-only (a folder another user's runs write into). -1 with errno.
int OpenLockFile(const std::string& path, bool shared) {
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd >= 0 || !shared || (errno != EACCES && errno != EROFS && errno != EPERM)) return fd;
  return open(path.c_str(), O_RDONLY | O_CLOEXEC);
}

// flock(op | LOCK_NB) until it is granted (true) or, while another holds it,
// until `deadline`; false with errno set otherwise (EWOULDBLOCK: still held).
bool FlockUntil(int fd, int op, Clock::time_point deadline) {
  for (;;) {
    if (flock(fd, op | LOCK_NB) == 0) return true;
    if (errno == EINTR) continue;
    if (errno != EWOULDBLOCK || Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(kRetryInterval);
  }
}

// What Lock found: the descriptor holding the lock; or open() failed with
// open_error; or another still held it at the deadline, naming itself holder.
struct Locked {
  UniqueFd fd;
  int open_error = 0;
  std::string holder;
};

// Locks `path` in `op` (LOCK_EX or LOCK_SH) as the header says: open, lock,
// check the path still names the file locked, write the holder.
Result<Locked> Lock(const std::string& path, int op, double wait_seconds) {
  const Clock::time_point deadline =
      Clock::now() +
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(wait_seconds));
  // The file is replaced only when a holder deletes it between our open() and
  // flock(): a few attempts are plenty without a wait, and a waiting one
  // tries until its deadline (readers that come and go delete it often).
  for (int attempt = 0; attempt < 8 || Clock::now() < deadline; ++attempt) {
    UniqueFd fd(OpenLockFile(path, op == LOCK_SH));
    Locked locked;
    if (!fd.valid()) {
      locked.open_error = errno;
      return locked;
    }
    if (!FlockUntil(fd.get(), op, deadline)) {
      if (errno != EWOULDBLOCK) return Status::IoError(path + ": cannot lock: " + ErrnoText(errno));
      locked.holder = ReadHolder(fd.get());
      return locked;
    }
    if (!SameFile(fd.get(), path)) continue;
    WriteHolder(fd.get(), op == LOCK_SH);
    locked.fd = std::move(fd);
    return locked;
  }
  return Status::IoError(path + ": cannot lock: the lock file keeps being replaced");
}

Status CannotCreate(const std::string& said, const std::string& path, int error) {
  return Status::IoError(said + "cannot create the lock file beside it, " + path + ": " +
                         ErrnoText(error) +
                         " (its parent folder must be writable: docs/reliability.md)");
}

// "(lock L held by H) for over W s (DSANALYZE_LOCK_WAIT)".
std::string HeldFor(const std::string& path, const std::string& holder, double wait_seconds) {
  std::ostringstream text;
  text << "(lock " << path << " held by " << holder << ") for over " << wait_seconds
       << " s (DSANALYZE_LOCK_WAIT)";
  return text.str();
}

}  // namespace

Result<double> LockWaitSeconds() {
  const char* text = std::getenv("DSANALYZE_LOCK_WAIT");
  if (text == nullptr) return kDefaultLockWaitSeconds;
  char* end = nullptr;
  errno = 0;
  const double seconds = std::strtod(text, &end);
  if (end == text || *end != '\0' || errno != 0 || !(seconds >= 0 && seconds <= 86400))
    return Status::BadInput(std::string("DSANALYZE_LOCK_WAIT=") + text +
                            ": not a number of seconds from 0 to 86400");
  return seconds;
}

Result<SaveLock> SaveLock::AcquireRun(const std::string& path, const std::string& save_path,
                                      std::string_view path_key) {
  const std::string said = std::string(path_key) + " " + save_path + ": ";
  DSA_ASSIGN_OR_RETURN(Locked locked, Lock(path, LOCK_EX, 0));
  if (locked.open_error != 0) return CannotCreate(said, path, locked.open_error);
  if (!locked.fd.valid())
    return Status::IoError(said + "another dsanalyze run is writing here (lock " + path +
                           " held by " + locked.holder + ")");
  return SaveLock(std::move(locked.fd), path, false);
}

Result<SaveLock> SaveLock::AcquireSwap(const std::string& path, const std::string& save_path,
                                       std::string_view path_key, double wait_seconds) {
  const std::string said = std::string(path_key) + " " + save_path + ": ";
  DSA_ASSIGN_OR_RETURN(Locked locked, Lock(path, LOCK_EX, wait_seconds));
  if (locked.open_error != 0) return CannotCreate(said, path, locked.open_error);
  if (!locked.fd.valid())
    return Status::IoError(said + "cannot commit: the save path is being read " +
                           HeldFor(path, locked.holder, wait_seconds) + "; nothing was committed");
  return SaveLock(std::move(locked.fd), path, false);
}

Result<std::optional<SaveLock>> SaveLock::AcquireShared(const std::string& path,
                                                        const std::string& analysis,
                                                        double wait_seconds) {
  DSA_ASSIGN_OR_RETURN(Locked locked, Lock(path, LOCK_SH, wait_seconds));
  switch (locked.open_error) {
    case 0:
      break;
    case ENOENT:
    case ENOTDIR:
    case EACCES:
    case EPERM:
    case EROFS:
      return std::optional<SaveLock>();  // no lock file, and none can be made here
    default:
      return Status::IoError(analysis + ": cannot open its lock " + path + ": " +
                             ErrnoText(locked.open_error));
  }
  if (!locked.fd.valid())
    return Status::IoError(analysis + ": cannot read it: a run is committing into it " +
                           HeldFor(path, locked.holder, wait_seconds));
  return std::optional<SaveLock>(SaveLock(std::move(locked.fd), path, true));
}

SaveLock::~SaveLock() {
  if (!fd_.valid()) return;
  // Only a holder of the exclusive lock deletes the file (not one a user put
  // there after deleting ours); a reader is one only when it is the last.
  // fd_ then releases the lock as it closes.
  if (shared_ && flock(fd_.get(), LOCK_EX | LOCK_NB) != 0) return;
  if (SameFile(fd_.get(), path_)) unlink(path_.c_str());
}

Result<std::vector<SaveLock>> LockForReading(const std::vector<std::string>& analyses) {
  DSA_ASSIGN_OR_RETURN(const double wait, LockWaitSeconds());
  std::vector<SaveLock> locks;
  for (const std::string& analysis : analyses) {
    const Result<std::string> real = RealSavePath(analysis);
    if (!real.ok() || !std::filesystem::path(*real).has_filename()) continue;
    DSA_ASSIGN_OR_RETURN(
        std::optional<SaveLock> lock,
        SaveLock::AcquireShared(BesideSavePath(*real, SaveLock::kSuffix), analysis, wait));
    if (lock) locks.push_back(std::move(*lock));
  }
  return locks;
}

}  // namespace dsanalyze
