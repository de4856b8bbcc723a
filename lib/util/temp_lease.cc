#include "util/temp_lease.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <vector>

#include "util/file_util.h"

namespace dsanalyze {
namespace fs = std::filesystem;
namespace {

// True when `entry` belongs to no live command: its lease is missing or
// can be locked now.
bool Dead(const fs::path& entry) {
  std::error_code ec;
  const fs::path lease =
      fs::is_directory(fs::symlink_status(entry, ec)) ? entry / std::string(kLeaseFile) : entry;
  const UniqueFd fd(::open(lease.c_str(), O_RDWR | O_CLOEXEC | O_NOFOLLOW));
  if (!fd.valid()) return errno == ENOENT;
  return ::flock(fd.get(), LOCK_EX | LOCK_NB) == 0;
}

// Locks `fd`, the lease of `path`, and gives `path` the mode `mode` less the umask
// (mkostemp and mkdtemp make it private).
Status Lock(const UniqueFd& fd, const std::string& path, mode_t mode) {
  if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0)
    return Status::IoError(path + ": cannot lock: " + ErrnoText(errno));
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::chmod(path.c_str(), mode & ~mask);
  return Status::OK();
}

}  // namespace

Result<LeasedTemp> CreateLeasedFile(const std::string& final_path, std::string_view kind) {
  LeasedTemp t{TempPrefix(final_path, kind) + "XXXXXX", UniqueFd()};
  t.lease = UniqueFd(::mkostemp(t.path.data(), O_CLOEXEC));
  if (!t.lease.valid()) return Status::IoError(t.path + ": cannot create: " + ErrnoText(errno));
  if (Status st = Lock(t.lease, t.path, 0666); !st.ok()) {
    ::unlink(t.path.c_str());
    return st;
  }
  return t;
}

Result<LeasedTemp> CreateLeasedFolder(const std::string& final_path, std::string_view kind) {
  LeasedTemp t{TempPrefix(final_path, kind) + "XXXXXX", UniqueFd()};
  if (::mkdtemp(t.path.data()) == nullptr)
    return Status::IoError(t.path + ": cannot create: " + ErrnoText(errno));
  const std::string lease = t.path + "/" + std::string(kLeaseFile);
  t.lease = UniqueFd(::open(lease.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
  Status st = t.lease.valid() ? Lock(t.lease, t.path, 0777)
                              : Status::IoError(lease + ": cannot create: " + ErrnoText(errno));
  if (!st.ok()) {
    std::error_code ec;
    fs::remove_all(t.path, ec);
    return st;
  }
  return t;
}

std::string TempPrefix(const std::string& final_path, std::string_view kind) {
  const fs::path path(final_path);
  std::string hidden = ".";  // not "." + name: g++ 12 warns (-Wrestrict) on that
  hidden.append(path.filename().string()).append(".").append(kind).append("-");
  return (path.parent_path() / hidden).string();
}

int RemoveDeadTemps(const std::string& final_path, std::string_view kind) {
  const fs::path prefix(TempPrefix(final_path, kind));
  const std::string name = prefix.filename().string();
  fs::path folder = prefix.parent_path();
  if (folder.empty()) folder = ".";
  std::vector<fs::path> dead;
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().filename().string().rfind(name, 0) == 0 && Dead(it->path()))
      dead.push_back(it->path());
  int removed = 0;
  for (const fs::path& entry : dead) removed += fs::remove_all(entry, ec) > 0 ? 1 : 0;
  return removed;
}

}  // namespace dsanalyze
