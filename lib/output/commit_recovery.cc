#include "output/commit_recovery.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <spdlog/spdlog.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "output/analysis_folder.h"
#include "util/fault_point.h"
#include "util/file_util.h"

namespace dsanalyze {
namespace fs = std::filesystem;

namespace {

// A user's entry never replaces one of the new analysis's (RENAME_NOREPLACE),
// and a restored one never replaces one the user made since.
int MoveNoReplace(const fs::path& from, const fs::path& to) {
  return static_cast<int>(
      syscall(SYS_renameat2, AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE));
}

bool IsRunName(const std::string& name) { return name.rfind(".dsanalyze", 0) == 0; }

// The entries of `real_path` the commit keeps: all but its analysis's and
// the runs' own (an older dsanalyze's lock or staging folder inside S).
Result<std::vector<std::string>> UserEntries(const std::string& real_path) {
  DSA_ASSIGN_OR_RETURN(std::vector<std::string> analysis, AnalysisEntries(real_path));
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(real_path, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!IsRunName(name) && std::find(analysis.begin(), analysis.end(), name) == analysis.end())
      names.push_back(name);
  }
  if (ec) return Status::IoError(real_path + ": cannot list: " + ec.message());
  std::sort(names.begin(), names.end());
  return names;
}

// The carried list's staging folder name and entries (empty when there is
// no list: a killed run that had not started to carry).
struct CarriedList {
  std::string staging;
  std::vector<std::string> names;
};

CarriedList ReadCarriedList(const std::string& real_path) {
  const Result<std::string> text = ReadTextFile(BesideSavePath(real_path, kCarriedSuffix));
  if (!text.ok()) return {};
  const nlohmann::json j = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  CarriedList list;
  if (!j.is_object() || !j["staging"].is_string() || !j["entries"].is_array()) return list;
  list.staging = j["staging"].get<std::string>();
  for (const nlohmann::json& name : j["entries"])
    if (name.is_string()) list.names.push_back(name.get<std::string>());
  return list;
}

// Moves the listed entries still in the killed run's staging folder back
// into the save path; false when one could not be (the folder is then kept).
bool RestoreCarried(const CarriedList& list, const std::string& real_path) {
  bool all = true;
  for (const std::string& name : list.names) {
    const fs::path from = fs::path(real_path).parent_path() / list.staging / name;
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(from, ec))) continue;  // never moved, or swapped in
    if (MoveNoReplace(from, fs::path(real_path) / name) == 0) {
      spdlog::info("moved {} back into {}, where a run killed during its commit had taken it from",
                   name, real_path);
      continue;
    }
    spdlog::warn("{}: cannot move it back into {}: {}; kept where it is", from.string(), real_path,
                 ErrnoText(errno));
    all = false;
  }
  return all;
}

}  // namespace

std::string BesideSavePath(const std::string& real_path, std::string_view suffix) {
  const fs::path path(real_path);
  fs::path name = ".";
  name += path.filename();
  name += suffix;
  return (path.parent_path() / name).string();
}

Result<std::vector<std::string>> CarryUserEntries(const std::string& real_path,
                                                  const std::string& staging) {
  DSA_ASSIGN_OR_RETURN(std::vector<std::string> names, UserEntries(real_path));
  if (names.empty()) return names;
  const nlohmann::json list = {{"staging", fs::path(staging).filename().string()},
                               {"entries", names}};
  DSA_RETURN_IF_ERROR(WriteFileAtomic(BesideSavePath(real_path, kCarriedSuffix), list.dump()));
  for (size_t i = 0; i < names.size(); ++i) {
    const fs::path from = fs::path(real_path) / names[i];
    if (MoveNoReplace(from, fs::path(staging) / names[i]) != 0) {
      const std::string why = ErrnoText(errno);
      PutBackUserEntries(staging, real_path, {names.begin(), names.begin() + i});
      DropCarriedList(real_path);
      return Status::IoError(from.string() + ": cannot carry it into the new analysis in " +
                             staging + ": " + why);
    }
    if (i == 0) FaultPoint("commit_carry");  // test-only (util/fault_point.h)
  }
  return names;
}

void DropCarriedList(const std::string& real_path) {
  std::error_code ec;
  fs::remove(BesideSavePath(real_path, kCarriedSuffix), ec);
}

void PutBackUserEntries(const std::string& staging, const std::string& real_path,
                        const std::vector<std::string>& names) {
  for (const std::string& name : names)
    if (MoveNoReplace(fs::path(staging) / name, fs::path(real_path) / name) != 0)
      spdlog::warn("{}/{}: cannot move it back into {}: {}", staging, name, real_path,
                   ErrnoText(errno));
}

void CleanUpKilledRuns(const std::string& real_path) {
  const std::string prefix = fs::path(BesideSavePath(real_path, kStagingSuffix)).filename();
  std::vector<fs::path> stale;
  std::error_code ec;
  for (fs::directory_iterator it(fs::path(real_path).parent_path(), ec), end; !ec && it != end;
       it.increment(ec))
    if (it->path().filename().string().rfind(prefix, 0) == 0) stale.push_back(it->path());
  const CarriedList list = ReadCarriedList(real_path);
  const bool restored = RestoreCarried(list, real_path);
  for (const fs::path& dir : stale) {
    if (!restored && dir.filename() == list.staging) continue;
    std::error_code rm;
    fs::remove_all(dir, rm);
    if (rm)
      spdlog::warn("{}: cannot remove a killed run's staging folder: {}", dir.string(),
                   rm.message());
    else
      spdlog::info("removed {}, left by a run that did not finish", dir.string());
  }
  if (restored) DropCarriedList(real_path);
}

}  // namespace dsanalyze
