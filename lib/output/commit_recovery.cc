#include "output/commit_recovery.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

#include "output/analysis_folder.h"
#include "util/fault_point.h"
#include "util/file_util.h"

namespace dsanalyze {
namespace fs = std::filesystem;

namespace {

// Rounds of SettlePreviousAnalysis: each moves what arrived during the last.
constexpr int kSettleRounds = 100;
// How long SettlePreviousAnalysis waits after its first round before it may
// remove the folder: a create by S's path that looked S up before the swap
// lands in the previous analysis, and a process descheduled in mid-call can
// land there milliseconds later. In time it is moved into S; after the
// folder is removed it fails with ENOENT. reliability.commit_writer under a
// loaded machine (3 tests at once on 2 cores): 4 of 12 runs saw that failure
// without the wait.
constexpr auto kLateCreateGrace = std::chrono::milliseconds(20);

// A user's entry never replaces one of the new analysis's (RENAME_NOREPLACE),
// and a restored one never replaces one the user made since.
int MoveNoReplace(const fs::path& from, const fs::path& to) {
  return static_cast<int>(
      syscall(SYS_renameat2, AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE));
}

bool IsRunName(const std::string& name) { return name.rfind(".dsanalyze", 0) == 0; }

bool IsListed(const std::vector<std::string>& list, const std::string& name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

// The names in `dir`, unsorted.
Result<std::vector<std::string>> ListEntries(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    names.push_back(it->path().filename().string());
  if (ec) return Status::IoError(dir + ": cannot list: " + ec.message());
  return names;
}

// The entries of `real_path` the commit keeps: all but its analysis's and
// the runs' own (an older dsanalyze's lock or staging folder inside S).
Result<std::vector<std::string>> UserEntries(const std::string& real_path) {
  DSA_ASSIGN_OR_RETURN(std::vector<std::string> analysis, AnalysisEntries(real_path));
  DSA_ASSIGN_OR_RETURN(std::vector<std::string> names, ListEntries(real_path));
  std::erase_if(names, [&](const std::string& n) { return IsRunName(n) || IsListed(analysis, n); });
  std::sort(names.begin(), names.end());
  return names;
}

// Which folder a path names: the swap gives the staging folder's name the
// save path's folder.
struct FolderId {
  uint64_t dev = 0;
  uint64_t ino = 0;
  bool operator==(const FolderId&) const = default;
};

std::optional<FolderId> IdOf(const std::string& path) {
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) return std::nullopt;
  return FolderId{st.st_dev, st.st_ino};
}

// The carried list: the staging folder's name and (unless an older dsanalyze
// wrote the list) its identity then, and the user's entries listed; empty
// when there is no list.
struct CarriedList {
  std::string staging;
  std::optional<FolderId> staged;
  std::vector<std::string> names;
};

CarriedList ReadCarriedList(const std::string& real_path) {
  const Result<std::string> text = ReadTextFile(BesideSavePath(real_path, kCarriedSuffix));
  if (!text.ok()) return {};
  const nlohmann::json j = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  CarriedList list;
  // A const json's operator[] on a missing key is undefined: look keys up.
  if (!j.is_object() || !j.contains("staging") || !j.contains("entries") ||
      !j.at("staging").is_string() || !j.at("entries").is_array())
    return list;
  list.staging = j.at("staging").get<std::string>();
  const nlohmann::json id = j.value("staging_id", nlohmann::json());
  if (id.is_array() && id.size() == 2 && id[0].is_number_unsigned() && id[1].is_number_unsigned())
    list.staged = FolderId{id[0].get<uint64_t>(), id[1].get<uint64_t>()};
  for (const nlohmann::json& name : j.at("entries"))
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
    if (!fs::exists(fs::symlink_status(from, ec))) continue;  // never moved
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

// Moves `name` from `from_dir` into `to_dir` under its own name or, when that
// is taken, with kKeptSuffix (one warning line); false, with a warning, when
// it cannot. An entry its owner removed meanwhile needs no move.
bool MoveInto(const fs::path& from_dir, const fs::path& to_dir, const std::string& name) {
  for (int n = 0; n < 1000; ++n) {
    std::string target = name;
    if (n > 0) target += kKeptSuffix;
    if (n > 1) target += '-' + std::to_string(n);
    if (MoveNoReplace(from_dir / name, to_dir / target) == 0) {
      if (n > 0)
        spdlog::warn(
            "{}: taken in the new analysis already; the entry of this name created while "
            "the commit ran is kept as {}",
            (to_dir / name).string(), target);
      return true;
    }
    if (errno == ENOENT) return true;
    if (errno != EEXIST) break;
  }
  spdlog::warn("{}: cannot move it into {}: {}; left where it is", (from_dir / name).string(),
               to_dir.string(), ErrnoText(errno));
  return false;
}

// One round of SettlePreviousAnalysis: deletes the entries of `previous`
// named in `own` (and runs' names), moves the rest into the save path; false
// when an entry stays.
bool SettleRound(const std::string& previous, const std::vector<std::string>& own,
                 const std::string& real_path) {
  const Result<std::vector<std::string>> names = ListEntries(previous);
  if (!names.ok()) {
    spdlog::warn("{}", names.status().message());
    return false;
  }
  bool all = true;
  for (const std::string& name : *names) {
    if (!IsRunName(name) && !IsListed(own, name)) {
      all = MoveInto(previous, real_path, name) && all;
      continue;
    }
    std::error_code ec;
    fs::remove_all(fs::path(previous) / name, ec);
    if (ec) spdlog::warn("{}/{}: cannot remove it: {}", previous, name, ec.message());
    all = all && !ec;
  }
  return all;
}

// The commit the list records, if a run was killed during it (header): true
// when its staging folder may be deleted.
bool FinishKilledCommit(const CarriedList& list, const std::string& real_path) {
  if (list.staging.empty()) return true;
  const std::string staging = (fs::path(real_path).parent_path() / list.staging).string();
  const std::optional<FolderId> now = IdOf(staging);
  if (!now) return true;
  if (!list.staged || *now == *list.staged) return RestoreCarried(list, real_path);
  spdlog::info(
      "{}: the previous analysis, left by a run killed just after its commit: moving "
      "what was created in {} meanwhile into it",
      staging, real_path);
  return SettlePreviousAnalysis(staging, real_path);
}

}  // namespace

Result<std::string> RealSavePath(const std::string& save_path) {
  std::error_code ec;
  fs::path real = fs::weakly_canonical(fs::absolute(save_path), ec);
  if (ec) return Status::IoError(save_path + ": cannot resolve the save path: " + ec.message());
  if (!real.has_filename() && real != real.root_path()) real = real.parent_path();
  return real.string();
}

std::string BesideSavePath(const std::string& real_path, std::string_view suffix) {
  const fs::path path(real_path);
  fs::path name = ".";
  name += path.filename();
  name += suffix;
  return (path.parent_path() / name).string();
}

Result<std::vector<std::string>> CarryUserEntries(const std::string& real_path,
                                                  const std::string& staging) {
  DSA_ASSIGN_OR_RETURN(const std::vector<std::string> names, UserEntries(real_path));
  nlohmann::json list = {{"staging", fs::path(staging).filename().string()}, {"entries", names}};
  if (const std::optional<FolderId> id = IdOf(staging)) list["staging_id"] = {id->dev, id->ino};
  DSA_RETURN_IF_ERROR(WriteFileAtomic(BesideSavePath(real_path, kCarriedSuffix), list.dump()));
  std::vector<std::string> carried;
  for (const std::string& name : names) {
    const fs::path from = fs::path(real_path) / name;
    if (MoveNoReplace(from, fs::path(staging) / name) == 0) {
      carried.push_back(name);
      if (carried.size() == 1) FaultPoint("commit_carry");  // test-only (util/fault_point.h)
      continue;
    }
    if (errno == ENOENT) continue;  // removed by its owner since the listing
    const std::string why = ErrnoText(errno);
    PutBackUserEntries(staging, real_path, carried);
    DropCarriedList(real_path);
    return Status::IoError(from.string() + ": cannot carry it into the new analysis in " + staging +
                           ": " + why);
  }
  return carried;
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

bool SettlePreviousAnalysis(const std::string& previous, const std::string& real_path) {
  // The previous analysis's entries, named once: what arrives later is a user's.
  const Result<std::vector<std::string>> own = AnalysisEntries(previous);
  for (int round = 0; own.ok() && round < kSettleRounds; ++round) {
    if (!SettleRound(previous, *own, real_path)) break;
    if (round == 0) {
      std::this_thread::sleep_for(kLateCreateGrace);
      continue;
    }
    if (rmdir(previous.c_str()) == 0 || errno == ENOENT) {
      DropCarriedList(real_path);
      return true;
    }
    if (errno != ENOTEMPTY && errno != EEXIST) break;  // else entries arrived: another round
  }
  spdlog::warn("{}: cannot empty the previous analysis{}; the next run on {} finishes it", previous,
               own.ok() ? "" : ": " + own.status().message(), real_path);
  return false;
}

void CleanUpKilledRuns(const std::string& real_path) {
  const CarriedList list = ReadCarriedList(real_path);
  const bool finished = FinishKilledCommit(list, real_path);
  const std::string prefix = fs::path(BesideSavePath(real_path, kStagingSuffix)).filename();
  std::vector<fs::path> stale;
  std::error_code ec;
  for (fs::directory_iterator it(fs::path(real_path).parent_path(), ec), end; !ec && it != end;
       it.increment(ec))
    if (it->path().filename().string().rfind(prefix, 0) == 0) stale.push_back(it->path());
  for (const fs::path& dir : stale) {
    if (!finished && dir.filename() == list.staging) continue;
    std::error_code rm;
    fs::remove_all(dir, rm);
    if (rm)
      spdlog::warn("{}: cannot remove a killed run's staging folder: {}", dir.string(),
                   rm.message());
    else
      spdlog::info("removed {}, left by a run that did not finish", dir.string());
  }
  if (finished) DropCarriedList(real_path);
}

}  // namespace dsanalyze
