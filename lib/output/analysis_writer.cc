#include "output/analysis_writer.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <random>

#include "output/analysis_folder.h"
#include "output/commit_recovery.h"
#include "util/fault_point.h"
#include "util/file_util.h"

namespace dsanalyze {
namespace fs = std::filesystem;

namespace {

// renameat2 through syscall(): glibc 2.36 has the wrapper but the kernel
// headers decide whether the flags exist.
int Rename2(const std::string& from, const std::string& to, unsigned flags) {
  return static_cast<int>(
      syscall(SYS_renameat2, AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), flags));
}

// The save path itself, or the nearest of its ancestors that exists, when
// that is not a directory (a user's file): empty otherwise.
fs::path NonDirectoryOnPath(fs::path p) {
  for (; !p.empty(); p = p.parent_path()) {
    std::error_code ec;
    const fs::file_status st = fs::status(p, ec);  // follows symlinks, as mkdir does
    if (fs::exists(st)) return fs::is_directory(st) ? fs::path() : p;
    if (p == p.parent_path()) break;
  }
  return {};
}

// The save path itself, or the nearest of its ancestors that exists as an
// entry, when that is a symbolic link to nothing (walked as mkdir follows the
// path): the commit could neither replace its folder nor create one there.
// Empty otherwise; a link loop is left to RealSavePath, which names it.
fs::path DanglingLinkOnPath(fs::path p) {
  for (; !p.empty(); p = p.parent_path()) {
    std::error_code ec;
    if (fs::status(p, ec).type() != fs::file_type::not_found) return {};
    if (fs::is_symlink(fs::symlink_status(p, ec))) return p;
    if (p == p.parent_path()) break;
  }
  return {};
}

// The directories that creating `dir` would make: it and each missing
// parent, deepest first. A walk of its own, not a second answer of
// NonDirectoryOnPath's: that one follows the path as mkdir does (through
// symbolic links and each "..": "a/file/../b" is refused for "a/file"),
// while the folders removed again must be named without "..", and a
// dangling link ends this walk (create_directories fails there first).
std::vector<std::string> MissingDirectories(const fs::path& dir) {
  std::vector<std::string> missing;
  for (fs::path path = dir; !path.empty(); path = path.parent_path()) {
    std::error_code ec;
    if (fs::symlink_status(path, ec).type() != fs::file_type::not_found) break;
    missing.push_back(path.string());
    if (path == path.parent_path()) break;
  }
  return missing;
}

// The swap renames S within its parent: S must not be the root, a mount
// point (the swap cannot cross file systems) or the current directory.
Status CheckSwappable(const std::string& save_path, const fs::path& real,
                      std::string_view path_key) {
  const std::string said = std::string(path_key) + " " + save_path + ": ";
  const std::string why =
      " (the commit swaps the save path with a folder staged beside it, on the same file "
      "system: docs/reliability.md); name a folder inside it";
  struct stat own {
  }, parent{};
  if (real == real.root_path()) return Status::BadInput(said + "is the file system's root" + why);
  if (stat(real.c_str(), &own) == 0 && stat(real.parent_path().c_str(), &parent) == 0 &&
      own.st_dev != parent.st_dev)
    return Status::BadInput(said + "is a mount point" + why);
  std::error_code ec;
  if (real == fs::current_path(ec))
    return Status::BadInput(said +
                            "is the current directory, which the commit replaces with a new "
                            "folder; run from its parent and name the folder");
  return Status::OK();
}

bool Contains(const std::vector<std::string>& list, const std::string& name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

// The commit replaces S/<name> for every metric: refused when that is a
// user's entry rather than part of the analysis (output/analysis_layout.h).
Status CheckMetricNamesAreFree(const std::string& save_path, const fs::path& real,
                               const std::vector<std::string>& metric_names,
                               std::string_view path_key) {
  DSA_ASSIGN_OR_RETURN(std::vector<std::string> analysis, AnalysisEntries(real));
  for (const std::string& name : metric_names) {
    const fs::path entry = fs::path(save_path) / name;
    std::error_code ec;
    if (fs::exists(fs::symlink_status(real / name, ec)) && !Contains(analysis, name))
      return Status::BadInput(std::string(path_key) + " " + save_path + ": " + entry.string() +
                              " exists and is not a metric folder; the output of metric " + name +
                              " would replace it (rename the metric or move it)");
  }
  return Status::OK();
}

// P/.B.dsanalyze-staging-XXXXXX, made with S's permission bits (or, for a
// new S, what mkdir gives under the umask).
Result<std::string> MakeStagingDir(const fs::path& real) {
  const std::string prefix = BesideSavePath(real, kStagingSuffix);
  std::random_device random;
  for (int attempt = 0; attempt < 100; ++attempt) {
    const std::string dir = prefix + std::to_string(random() % 1000000);
    if (mkdir(dir.c_str(), 0777) != 0) {
      if (errno == EEXIST) continue;
      return Status::IoError(
          dir + ": cannot create the staging folder beside the save path: " + ErrnoText(errno));
    }
    struct stat own {};
    if (stat(real.c_str(), &own) == 0) chmod(dir.c_str(), own.st_mode & 07777);
    return dir;
  }
  return Status::IoError(prefix + "*: cannot find a free staging folder name");
}

}  // namespace

AnalysisWriter::AnalysisWriter(std::string save_path, std::string_view path_key,
                               std::string real_path, SaveLock lock,
                               std::vector<std::string> created, double lock_wait)
    : lock_(std::move(lock)),
      save_path_(std::move(save_path)),
      path_key_(path_key),
      real_path_(std::move(real_path)),
      created_(std::move(created)),
      lock_wait_(lock_wait),
      active_(true) {}

Result<AnalysisWriter> AnalysisWriter::Create(const std::string& save_path,
                                              const std::vector<std::string>& metric_names,
                                              std::string_view path_key) {
  // A file where the save path or one of its parents should be is the
  // config's mistake (bad input); any other failure to create it is not.
  if (const fs::path file = NonDirectoryOnPath(save_path); !file.empty())
    return Status::BadInput(std::string(path_key) + " " + save_path + ": " + file.string() +
                            " exists and is not a directory");
  if (const fs::path link = DanglingLinkOnPath(save_path); !link.empty()) {
    std::error_code ec;
    return Status::BadInput(std::string(path_key) + " " + save_path + ": " + link.string() +
                            " is a symbolic link to " + fs::read_symlink(link, ec).string() +
                            ", which does not exist; create the folder it points to, or remove "
                            "the link");
  }
  DSA_ASSIGN_OR_RETURN(const fs::path real, RealSavePath(save_path));
  DSA_RETURN_IF_ERROR(CheckSwappable(save_path, real, path_key));
  DSA_ASSIGN_OR_RETURN(const double lock_wait, LockWaitSeconds());
  DSA_RETURN_IF_ERROR(CheckMetricNamesAreFree(save_path, real, metric_names, path_key));
  std::vector<std::string> created = MissingDirectories(real.parent_path());
  std::error_code ec;
  fs::create_directories(real.parent_path(), ec);
  if (ec) return Status::IoError(save_path + ": cannot create its parent folder: " + ec.message());
  DSA_ASSIGN_OR_RETURN(
      SaveLock lock,
      SaveLock::AcquireRun(BesideSavePath(real, SaveLock::kRunSuffix), save_path, path_key));
  // From here on, a failure cleans up as a run that never commits does.
  AnalysisWriter writer(save_path, path_key, real, std::move(lock), std::move(created), lock_wait);
  CleanUpKilledRuns(real);
  DSA_ASSIGN_OR_RETURN(writer.staging_, MakeStagingDir(real));
  return writer;
}

AnalysisWriter::AnalysisWriter(AnalysisWriter&& other) noexcept
    : lock_(std::move(other.lock_)),
      save_path_(std::move(other.save_path_)),
      path_key_(std::move(other.path_key_)),
      real_path_(std::move(other.real_path_)),
      staging_(std::move(other.staging_)),
      created_(std::move(other.created_)),
      lock_wait_(other.lock_wait_),
      active_(other.active_) {
  other.active_ = false;
}

AnalysisWriter::~AnalysisWriter() {
  if (!active_) return;
  std::error_code ec;
  fs::remove_all(staging_, ec);
  lock_.reset();  // deletes the lock file
  for (const std::string& dir : created_)
    if (!fs::remove(dir, ec)) break;  // not empty (or gone): a parent is not either
}

Result<std::string> AnalysisWriter::MakeMetricDir(const std::string& name) {
  std::string dir = (fs::path(staging_) / name).string();
  std::error_code ec;
  fs::create_directory(dir, ec);
  if (ec) return Status::IoError(dir + ": cannot create: " + ec.message());
  return dir;
}

Status AnalysisWriter::Commit() {
  std::error_code ec;
  const bool replacing = fs::exists(fs::symlink_status(real_path_, ec));
  {
    // Readers of S finish first (save_lock.h); the lock goes with the swap.
    DSA_ASSIGN_OR_RETURN(const SaveLock reading,
                         SaveLock::AcquireSwap(BesideSavePath(real_path_, SaveLock::kSuffix),
                                               save_path_, path_key_, lock_wait_));
    std::vector<std::string> carried;
    if (replacing) {
      DSA_ASSIGN_OR_RETURN(carried, CarryUserEntries(real_path_, staging_));
    }
    FaultPoint("commit");  // test-only (util/fault_point.h), as FaultFails below
    if (const Status swapped = Swap(replacing); !swapped.ok()) {
      PutBackUserEntries(staging_, real_path_, carried);
      DropCarriedList(real_path_);
      return swapped;
    }
  }
  active_ = false;  // the run lock stays until this writer is destroyed
  FaultPoint("commit_swapped");
  if (replacing) SettlePreviousAnalysis(staging_, real_path_);
  return Status::OK();
}

Status AnalysisWriter::Swap(bool replacing) const {
  int error = EIO;  // what a test's FaultFails("commit") reports
  if (!FaultFails("commit"))
    error = Rename2(staging_, real_path_, replacing ? RENAME_EXCHANGE : RENAME_NOREPLACE) == 0
                ? 0
                : errno;
  if (error != 0)
    return Status::IoError("cannot swap " + staging_ + " with " + real_path_ + ": " +
                           ErrnoText(error));
  return Status::OK();
}

}  // namespace dsanalyze
