#include "output/output_commit.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <spdlog/spdlog.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <string_view>

#include "output/analysis_folder.h"
#include "util/fault_point.h"
#include "util/file_util.h"

namespace dsanalyze {
namespace fs = std::filesystem;

namespace {

// renameat2(RENAME_EXCHANGE) through syscall(): glibc 2.36 has the wrapper but
// the kernel headers decide whether the flag exists.
int ExchangePaths(const std::string& a, const std::string& b) {
  return static_cast<int>(
      syscall(SYS_renameat2, AT_FDCWD, a.c_str(), AT_FDCWD, b.c_str(), RENAME_EXCHANGE));
}

constexpr std::string_view kStagingPrefix = ".dsanalyze-staging-";

// Removes the staging directories of runs that died before they could (a
// SIGKILL runs no destructor). Called with the save path's lock held, so none
// of them belongs to a live run.
void RemoveStaleStaging(const std::string& save_path) {
  std::vector<fs::path> stale;
  std::error_code ec;
  for (fs::directory_iterator it(save_path, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().filename().string().rfind(kStagingPrefix, 0) == 0) stale.push_back(it->path());
  for (const fs::path& dir : stale) {
    std::error_code rm;
    fs::remove_all(dir, rm);
    if (rm)
      spdlog::warn("{}: cannot remove a killed run's staging directory: {}", dir.string(),
                   rm.message());
    else
      spdlog::info("removed {}, left by a run that did not finish", dir.string());
  }
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

// The directories that creating `save_path` would make: the save path and
// each missing parent, deepest first. A walk of its own, not a second answer
// of NonDirectoryOnPath's: that one follows the path as mkdir does (through
// symbolic links and each "..": "a/file/../b" is refused for "a/file"),
// while the folders removed again must be named without "..", and a
// dangling link ends this walk (create_directories fails there first).
std::vector<std::string> MissingDirectories(const std::string& save_path) {
  std::vector<std::string> missing;
  fs::path path = fs::path(save_path).lexically_normal();
  if (!path.has_filename()) path = path.parent_path();  // a trailing '/'
  for (; !path.empty(); path = path.parent_path()) {
    std::error_code ec;
    if (fs::symlink_status(path, ec).type() != fs::file_type::not_found) break;
    missing.push_back(path.string());
    if (path == path.parent_path()) break;
  }
  return missing;
}

bool Contains(const std::vector<std::string>& list, const std::string& name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

// The commit replaces SAVE/<name> for every metric: refused when that is a
// user's entry rather than part of the analysis (output/analysis_layout.h).
Status CheckMetricNamesAreFree(const std::string& save_path,
                               const std::vector<std::string>& metric_names,
                               std::string_view path_key) {
  DSA_ASSIGN_OR_RETURN(std::vector<std::string> analysis, AnalysisEntries(save_path));
  for (const std::string& name : metric_names) {
    const fs::path entry = fs::path(save_path) / name;
    std::error_code ec;
    if (fs::exists(fs::symlink_status(entry, ec)) && !Contains(analysis, name))
      return Status::BadInput(std::string(path_key) + " " + save_path + ": " + entry.string() +
                              " exists and is not a metric folder; the output of metric " + name +
                              " would replace it (rename the metric or move it)");
  }
  return Status::OK();
}

}  // namespace

StagedOutput::StagedOutput(std::string save_path, std::string staging, SaveLock lock,
                           std::vector<std::string> created)
    : lock_(std::move(lock)),
      save_path_(std::move(save_path)),
      staging_(std::move(staging)),
      created_(std::move(created)),
      active_(true) {}

Result<StagedOutput> StagedOutput::Create(const std::string& save_path,
                                          const std::vector<std::string>& metric_names,
                                          std::string_view path_key) {
  // A file where the save path or one of its parents should be is the
  // config's mistake (bad input); any other failure to create it is not.
  if (const fs::path file = NonDirectoryOnPath(save_path); !file.empty())
    return Status::BadInput(std::string(path_key) + " " + save_path + ": " + file.string() +
                            " exists and is not a directory");
  std::vector<std::string> created = MissingDirectories(save_path);
  std::error_code ec;
  fs::create_directories(save_path, ec);
  if (ec) return Status::IoError(save_path + ": cannot create save path: " + ec.message());
  DSA_RETURN_IF_ERROR(CheckMetricNamesAreFree(save_path, metric_names, path_key));
  DSA_ASSIGN_OR_RETURN(SaveLock lock, SaveLock::Acquire(save_path, path_key));
  RemoveStaleStaging(save_path);
  std::string tmpl = (fs::path(save_path) / (std::string(kStagingPrefix) + "XXXXXX")).string();
  if (mkdtemp(tmpl.data()) == nullptr)
    return Status::IoError(save_path + ": cannot create a staging directory: " + ErrnoText(errno));
  return StagedOutput(save_path, std::move(tmpl), std::move(lock), std::move(created));
}

StagedOutput::StagedOutput(StagedOutput&& other) noexcept
    : lock_(std::move(other.lock_)),
      save_path_(std::move(other.save_path_)),
      staging_(std::move(other.staging_)),
      created_(std::move(other.created_)),
      active_(other.active_) {
  other.active_ = false;
}

StagedOutput::~StagedOutput() {
  if (!active_) return;
  std::error_code ec;
  fs::remove_all(staging_, ec);
  lock_.reset();  // deletes the lock file
  for (const std::string& dir : created_)
    if (!fs::remove(dir, ec)) break;  // not empty (or gone): a parent is not either
}

Result<std::string> StagedOutput::MakeMetricDir(const std::string& name) {
  std::string dir = (fs::path(staging_) / name).string();
  std::error_code ec;
  fs::create_directory(dir, ec);
  if (ec) return Status::IoError(dir + ": cannot create: " + ec.message());
  return dir;
}

Status StagedOutput::Commit(const std::vector<std::string>& metric_names,
                            const std::vector<std::string>& files) {
  // Listed before anything moves, so a listing error changes nothing.
  DSA_ASSIGN_OR_RETURN(std::vector<std::string> previous, AnalysisEntries(save_path_));
  for (const std::string& name : metric_names) {
    const std::string staged = (fs::path(staging_) / name).string();
    const std::string final_dir = (fs::path(save_path_) / name).string();
    if (ExchangePaths(staged, final_dir) == 0) {
      std::error_code ec;
      fs::remove_all(staged, ec);  // now the previous result
      FaultPoint("commit");        // test-only (util/fault_point.h)
      continue;
    }
    if (errno != ENOENT)
      return Status::IoError("cannot move " + staged + " to " + final_dir + ": " +
                             ErrnoText(errno));
    DSA_RETURN_IF_ERROR(RenameFile(staged, final_dir));
  }
  DSA_RETURN_IF_ERROR(RemoveStale(previous, metric_names, files));
  for (const std::string& file : files)
    DSA_RETURN_IF_ERROR(
        RenameFile((fs::path(staging_) / file).string(), (fs::path(save_path_) / file).string()));
  std::error_code ec;
  fs::remove_all(staging_, ec);
  active_ = false;
  return Status::OK();
}

Status StagedOutput::RemoveStale(const std::vector<std::string>& previous,
                                 const std::vector<std::string>& metric_names,
                                 const std::vector<std::string>& files) {
  const fs::path replaced = fs::path(staging_) / ".replaced";
  for (const std::string& name : previous) {
    if (Contains(metric_names, name) || Contains(files, name)) continue;
    std::error_code ec;
    fs::create_directory(replaced, ec);
    if (ec) return Status::IoError(replaced.string() + ": cannot create: " + ec.message());
    const std::string from = (fs::path(save_path_) / name).string();
    DSA_RETURN_IF_ERROR(RenameFile(from, (replaced / name).string()));
    spdlog::info("removed {}: part of the previous analysis, not written by this run", from);
  }
  return Status::OK();
}

}  // namespace dsanalyze
