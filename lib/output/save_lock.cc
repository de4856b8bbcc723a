#include "output/save_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "util/file_util.h"

namespace dsanalyze {
namespace {

// "pid P on host H", as the holder wrote it into the lock file.
std::string ReadHolder(int fd) {
  char buf[256];
  const ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
  std::string text(buf, n > 0 ? static_cast<size_t>(n) : 0);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\0')) text.pop_back();
  // Empty: the holder has locked but not yet written (or is an older version).
  return text.empty() ? "another process" : text;
}

std::string HolderText() {
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) != 0) host[0] = '\0';
  return "pid " + std::to_string(getpid()) + " on host " + (host[0] ? host : "?") + "\n";
}

// True when `path` still names the file open as `fd` (the previous holder may
// have deleted it between our open() and flock()).
bool SameFile(int fd, const std::string& path) {
  struct stat by_fd {
  }, by_path{};
  return fstat(fd, &by_fd) == 0 && stat(path.c_str(), &by_path) == 0 &&
         by_fd.st_dev == by_path.st_dev && by_fd.st_ino == by_path.st_ino;
}

}  // namespace

Result<SaveLock> SaveLock::Acquire(const std::string& path, const std::string& save_path,
                                   std::string_view path_key) {
  // A retry happens only when a finishing run deletes the file in the instant
  // between our open() and flock(); a few attempts are plenty.
  for (int attempt = 0; attempt < 8; ++attempt) {
    UniqueFd fd(open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
    if (!fd.valid())
      return Status::IoError(std::string(path_key) + " " + save_path +
                             ": cannot create the lock file beside it, " + path + ": " +
                             ErrnoText(errno) +
                             " (its parent folder must be writable: docs/reliability.md)");
    if (flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      const std::string holder = ReadHolder(fd.get());
      if (err == EWOULDBLOCK)
        return Status::IoError(std::string(path_key) + " " + save_path +
                               ": another dsanalyze run is writing here (lock " + path +
                               " held by " + holder + ")");
      return Status::IoError(path + ": cannot lock: " + ErrnoText(err));
    }
    if (!SameFile(fd.get(), path)) continue;
    // The holder's name is only for the message a second run prints: a failed
    // write costs nothing but that.
    const std::string holder = HolderText();
    if (ftruncate(fd.get(), 0) == 0) (void)!pwrite(fd.get(), holder.data(), holder.size(), 0);
    return SaveLock(std::move(fd), path);
  }
  return Status::IoError(path + ": cannot lock: the lock file keeps being replaced");
}

SaveLock::~SaveLock() {
  // Delete only our own file (not one a user put there after deleting ours);
  // fd_ then releases the lock as it closes.
  if (fd_.valid() && SameFile(fd_.get(), path_)) unlink(path_.c_str());
}

}  // namespace dsanalyze
