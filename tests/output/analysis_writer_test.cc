#include "output/analysis_writer.h"

#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

#include "output/commit_recovery.h"
#include "output/save_lock.h"
#include "support/test_util.h"

namespace dsanalyze {
namespace {
namespace fs = std::filesystem;
using std::chrono::steady_clock;

void Touch(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }
std::string Slurp(const fs::path& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
// The staging folders beside `save` (commit_recovery.h).
size_t StagingDirs(const fs::path& save) {
  const std::string prefix = BesideSavePath(save.string(), kStagingSuffix);
  size_t n = 0;
  for (auto& e : fs::directory_iterator(save.parent_path()))
    n += e.path().string().rfind(prefix, 0) == 0;
  return n;
}
fs::path LockOf(const fs::path& save) {
  return BesideSavePath(save.string(), SaveLock::kRunSuffix);
}
std::vector<std::string> Entries(const fs::path& dir) {
  std::vector<std::string> entries;
  for (auto& e : fs::directory_iterator(dir)) entries.push_back(e.path().filename().string());
  std::sort(entries.begin(), entries.end());
  return entries;
}

// Every entry under `dir`, sorted: "path/" for a folder, "path=bytes" for a file.
std::vector<std::string> Tree(const fs::path& dir) {
  std::vector<std::string> tree;
  for (auto& e : fs::recursive_directory_iterator(dir)) {
    const std::string rel = fs::relative(e.path(), dir).string();
    tree.push_back(e.is_directory() ? rel + "/" : rel + "=" + Slurp(e.path()));
  }
  std::sort(tree.begin(), tree.end());
  return tree;
}
// Arms the test-only fault point `point` (util/fault_point.h) for this rank.
void FailAt(const std::string& point) {
  const char* rank = std::getenv("PMI_RANK");
  setenv("DSANALYZE_TEST_FAIL_AT", (point + ":" + (rank ? rank : "0")).c_str(), 1);
}

TEST_CASE("A run that never commits leaves the save path as it was", "[commit]") {
  test::ScratchDir dir;
  const fs::path save = dir.path() / "save";
  fs::create_directories(save / "m");
  Touch(save / "m" / "old.bin", "old");
  {
    auto out = AnalysisWriter::Create(save.string());
    REQUIRE(out.ok());
    auto m = out->MakeMetricDir("m");
    REQUIRE(m.ok());
    Touch(fs::path(*m) / "new.bin", "new");
    CHECK(StagingDirs(save) == 1);
  }
  CHECK(StagingDirs(save) == 0);
  CHECK(Slurp(save / "m" / "old.bin") == "old");
  CHECK_FALSE(fs::exists(save / "m" / "new.bin"));
}

TEST_CASE("A run that never commits removes the folders it created, and only those", "[commit]") {
  test::ScratchDir dir;
  fs::create_directories(dir.path() / "kept");
  {
    auto out = AnalysisWriter::Create((dir.path() / "kept" / "new" / "save").string() + "/");
    REQUIRE(out.ok());
    CHECK(fs::is_directory(dir.path() / "kept" / "new"));  // holds the lock and the staging
    CHECK_FALSE(fs::exists(dir.path() / "kept" / "new" / "save"));  // made by the commit
  }
  CHECK_FALSE(fs::exists(dir.path() / "kept" / "new"));
  CHECK(fs::is_directory(dir.path() / "kept"));
  {
    auto out = AnalysisWriter::Create((dir.path() / "kept" / "new" / "save").string());
    REQUIRE(out.ok());
    Touch(dir.path() / "kept" / "new" / "user.txt", "a user's file");  // written meanwhile
  }
  CHECK(Entries(dir.path() / "kept" / "new") == std::vector<std::string>{"user.txt"});
  CHECK(Slurp(dir.path() / "kept" / "new" / "user.txt") == "a user's file");
}

TEST_CASE("Commit swaps a previous result for the new one whole", "[commit]") {
  test::ScratchDir dir;
  const fs::path save = dir.path() / "deep" / "save";  // parents are created
  {
    auto first = AnalysisWriter::Create(save.string());
    REQUIRE(first.ok());
    REQUIRE(first->MakeMetricDir("m").ok());
    Touch(fs::path(first->dir()) / "m" / "m_index_to_sample.bin", "stale");
    REQUIRE(first->Commit().ok());  // makes the save path
  }
  CHECK(Slurp(save / "m" / "m_index_to_sample.bin") == "stale");
  auto out = AnalysisWriter::Create(save.string());
  REQUIRE(out.ok());
  auto m = out->MakeMetricDir("m");
  auto fresh = out->MakeMetricDir("fresh");
  REQUIRE(m.ok());
  REQUIRE(fresh.ok());
  Touch(fs::path(*m) / "m.bin", "new");
  Touch(fs::path(*fresh) / "f.bin", "f");
  Touch(fs::path(out->dir()) / "summary.json", "{}");
  REQUIRE(out->Commit().ok());
  CHECK(Slurp(save / "m" / "m.bin") == "new");
  CHECK_FALSE(fs::exists(save / "m" / "m_index_to_sample.bin"));
  CHECK(Slurp(save / "fresh" / "f.bin") == "f");
  CHECK(Slurp(save / "summary.json") == "{}");
  CHECK(StagingDirs(save) == 0);
  CHECK(Entries(save) == std::vector<std::string>{"fresh", "m", "summary.json"});
}

TEST_CASE("Commit replaces the whole previous analysis and nothing else", "[commit]") {
  test::ScratchDir dir;
  const fs::path save = dir.path() / "save";
  // A previous analysis: metrics kept and dropped, its reports, DeepSpeed's clusters.
  for (const char* m : {"kept", "dropped", "dropped_half"}) fs::create_directories(save / m);
  Touch(save / "kept" / "kept_index_to_metric.idx", "old");
  Touch(save / "dropped" / "dropped_metric_value.idx", "old");
  Touch(save / "dropped_half" / "dropped_half_index_to_sample.bin", "old");  // a .bin is enough
  Touch(save / "summary.json", "old");
  Touch(save / "curriculum_config.json", "old");
  Touch(save / "report.html", "old");
  fs::create_directories(save / "data_clusters");
  Touch(save / "data_clusters" / "cluster_kept1.bin", "old");
  // Not dsanalyze's: must survive.
  Touch(save / "notes.txt", "mine");
  fs::create_directories(save / "plots");
  Touch(save / "plots" / "dropped_metric_value.idx", "mine");  // wrong name for a metric file
  fs::create_directories(save / ".hidden");

  {
    auto out = AnalysisWriter::Create(save.string());
    REQUIRE(out.ok());
    auto kept = out->MakeMetricDir("kept");
    REQUIRE(kept.ok());
    Touch(fs::path(*kept) / "kept_index_to_metric.idx", "new");
    Touch(fs::path(out->dir()) / "summary.json", "new");
    // This run writes no curriculum_config.json (an accumulate-only run).
    REQUIRE(out->Commit().ok());
  }  // releases the lock

  CHECK(Entries(save.parent_path()) == std::vector<std::string>{"save"});  // no lock, no staging
  CHECK(Entries(save) ==
        std::vector<std::string>{".hidden", "kept", "notes.txt", "plots", "summary.json"});
  CHECK(Slurp(save / "kept" / "kept_index_to_metric.idx") == "new");
  CHECK(Slurp(save / "summary.json") == "new");
  CHECK(Slurp(save / "notes.txt") == "mine");
  CHECK(Slurp(save / "plots" / "dropped_metric_value.idx") == "mine");
}

TEST_CASE("A metric name taken by a user's entry is bad input, before anything is created",
          "[commit]") {
  test::ScratchDir dir;
  const fs::path save = dir.path() / "save";
  fs::create_directories(save / "plots");
  Touch(save / "plots" / "a.png", "mine");
  Touch(save / "notes", "mine");
  fs::create_directories(save / "old");  // an earlier analysis's metric: may be replaced
  Touch(save / "old" / "old_metric_value.idx", "old");
  for (const char* taken : {"plots", "notes"}) {
    auto out = AnalysisWriter::Create(save.string(), {"old", taken});
    REQUIRE_FALSE(out.ok());
    CHECK(out.status().code() == Status::Code::kBadInput);
    CHECK(out.status().message() == "output.path " + save.string() + ": " +
                                        (save / taken).string() +
                                        " exists and is not a metric folder; the output of "
                                        "metric " +
                                        taken +
                                        " would replace it (rename the "
                                        "metric or move it)");
  }
  CHECK(Entries(save) == std::vector<std::string>{"notes", "old", "plots"});
  CHECK(Entries(dir.path()) == std::vector<std::string>{"save"});  // no lock, no staging
  CHECK(AnalysisWriter::Create(save.string(), {"old", "new"}).ok());
}

TEST_CASE("A save path that is a file, or under one, is bad input", "[commit]") {
  test::ScratchDir dir;
  const fs::path file = dir.path() / "file";
  Touch(file, "x");
  for (const fs::path& save : {file, file / "results"}) {
    auto out = AnalysisWriter::Create(save.string());
    REQUIRE_FALSE(out.ok());
    CHECK(out.status().exit_code() == kExitBadInput);
    CHECK(out.status().message() ==
          "output.path " + save.string() + ": " + file.string() + " exists and is not a directory");
  }
  CHECK(Slurp(file) == "x");
}

TEST_CASE("A second run into a locked save path fails at once, naming the holder", "[commit]") {
  test::ScratchDir dir;
  const fs::path save = dir.path() / "save";
  auto first = AnalysisWriter::Create(save.string());
  REQUIRE(first.ok());
  const fs::path lock = LockOf(save);
  CHECK_THAT(Slurp(lock), Catch::StartsWith("pid " + std::to_string(getpid()) + " on host "));

  auto second = AnalysisWriter::Create(save.string());
  REQUIRE_FALSE(second.ok());
  CHECK(second.status().exit_code() == kExitFailure);
  const std::string msg = second.status().message();
  CHECK_THAT(msg,
             Catch::StartsWith("output.path " + save.string() +
                               ": another dsanalyze run is writing here (lock " + lock.string() +
                               " held by pid " + std::to_string(getpid()) + " on host "));
  CHECK(StagingDirs(save) == 1);  // the second run created nothing
}

TEST_CASE("A finished run releases the lock and leaves no lock file", "[commit]") {
  test::ScratchDir dir;
  const fs::path save = dir.path() / "save";
  {
    auto out = AnalysisWriter::Create(save.string());
    REQUIRE(out.ok());
    REQUIRE(out->Commit().ok());
    CHECK(fs::exists(LockOf(save)));  // held until destroyed
  }
  CHECK_FALSE(fs::exists(LockOf(save)));
  {
    auto failed = AnalysisWriter::Create(save.string());  // a run that fails: no Commit
    REQUIRE(failed.ok());
  }
  CHECK(fs::is_empty(save));
  CHECK(Entries(dir.path()) == std::vector<std::string>{"save"});
  CHECK(AnalysisWriter::Create(save.string()).ok());
}

TEST_CASE("A lock file left by a dead run is taken over", "[commit]") {
  test::ScratchDir dir;
  const fs::path save = dir.path() / "save";
  fs::create_directories(save);
  Touch(LockOf(save), "pid 999999 on host gone\n");  // not flocked by anyone
  auto lock = SaveLock::AcquireRun(LockOf(save).string(), save.string());
  REQUIRE(lock.ok());
  CHECK_THAT(Slurp(LockOf(save)), Catch::StartsWith("pid " + std::to_string(getpid()) + " "));
}

TEST_CASE("The lock is held across processes and freed when its holder is SIGKILLed", "[commit]") {
  test::ScratchDir dir;
  const fs::path save = dir.path() / "save";
  fs::create_directories(save);
  int ready[2];
  REQUIRE(pipe(ready) == 0);
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {  // holds the lock until killed
    auto lock = SaveLock::AcquireRun(LockOf(save).string(), save.string());
    if (!lock.ok()) _exit(1);
    (void)!write(ready[1], "y", 1);
    for (;;) pause();
  }
  close(ready[1]);
  char ok = 0;
  const bool child_ready = read(ready[0], &ok, 1) == 1;  // EOF if the child failed
  close(ready[0]);
  auto busy = SaveLock::AcquireRun(LockOf(save).string(), save.string());
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  REQUIRE(child_ready);
  REQUIRE_FALSE(busy.ok());
  CHECK_THAT(busy.status().message(),
             Catch::Contains("held by pid " + std::to_string(child) + " on host "));

  // The kernel dropped the dead child's lock; its file (with its pid) remains.
  CHECK(fs::exists(LockOf(save)));
  CHECK(SaveLock::AcquireRun(LockOf(save).string(), save.string()).ok());
}

TEST_CASE("Creating the staging folder removes those of killed runs and restores what they took",
          "[commit]") {
  test::ScratchDir dir;
  const fs::path save = dir.path() / "save";
  const fs::path dead = dir.path() / ".save.dsanalyze-staging-dead01";
  const fs::path other = dir.path() / ".other.dsanalyze-staging-dead02";  // another save path's
  fs::create_directories(dead / "m");
  Touch(dead / "m" / "m.bin.tmp", "partial");
  fs::create_directories(other);
  fs::create_directories(save / "m");
  Touch(save / "m" / "m.bin", "old");
  // A commit killed while carrying the user's entries: notes.txt moved, plots/ not yet.
  const std::string list = BesideSavePath(save.string(), kCarriedSuffix);
  Touch(list,
        R"({"staging": ".save.dsanalyze-staging-dead01", "entries": ["notes.txt", "plots"]})");
  Touch(dead / "notes.txt", "mine");
  fs::create_directories(save / "plots");
  auto out = AnalysisWriter::Create(save.string());
  REQUIRE(out.ok());
  CHECK_FALSE(fs::exists(dead));
  CHECK_FALSE(fs::exists(list));
  CHECK(fs::exists(other));
  CHECK(StagingDirs(save) == 1);
  CHECK(Entries(save) == std::vector<std::string>{"m", "notes.txt", "plots"});
  CHECK(Slurp(save / "notes.txt") == "mine");
  CHECK(Slurp(save / "m" / "m.bin") == "old");
}

TEST_CASE("Commit keeps the user's entries and the save path's permissions", "[commit]") {
  test::ScratchDir dir;
  const fs::path save = dir.path() / "save";
  fs::create_directories(save / "m");
  Touch(save / "m" / "m_metric_value.idx", "old");
  Touch(save / ".dsanalyze.lock", "");  // an older dsanalyze's: not kept
  fs::create_directories(save / ".git");
  Touch(save / ".git" / "HEAD", "mine");
  fs::permissions(save, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec);
  {
    auto out = AnalysisWriter::Create(save.string(), {"m"});
    REQUIRE(out.ok());
    REQUIRE(out->MakeMetricDir("m").ok());
    Touch(fs::path(out->dir()) / "m" / "m_metric_value.idx", "new");
    REQUIRE(out->Commit().ok());
  }
  CHECK(Entries(save) == std::vector<std::string>{".git", "m"});
  CHECK(Slurp(save / ".git" / "HEAD") == "mine");
  CHECK(Slurp(save / "m" / "m_metric_value.idx") == "new");
  CHECK((fs::status(save).permissions() & fs::perms::all) ==
        (fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec));
  CHECK(Entries(dir.path()) == std::vector<std::string>{"save"});
}

TEST_CASE("A save path the swap cannot replace is bad input", "[commit]") {
  test::ScratchDir dir;
  for (const std::string& path : {std::string("/"), std::string("/proc")}) {
    auto out = AnalysisWriter::Create(path);
    REQUIRE_FALSE(out.ok());
    CHECK(out.status().exit_code() == kExitBadInput);
    CHECK_THAT(out.status().message(), Catch::StartsWith("output.path " + path + ": is "));
  }
  const fs::path cwd = fs::current_path();
  fs::current_path(dir.path());
  auto here = AnalysisWriter::Create(".");
  fs::current_path(cwd);
  REQUIRE_FALSE(here.ok());
  CHECK(here.status().message() ==
        "output.path .: is the current directory, which the commit replaces with a new folder; "
        "run from its parent and name the folder");
  CHECK(fs::is_empty(dir.path()));
}

TEST_CASE("A swap that fails gives the user's entries back and keeps the previous analysis",
          "[commit]") {
  test::ScratchDir dir;
  const fs::path save = dir.path() / "save";
  fs::create_directories(save / "m");
  Touch(save / "m" / "m_metric_value.idx", "old");
  Touch(save / "summary.json", R"({"metrics": {"m": {"type": "accumulate_value_over_samples"}}})");
  Touch(save / "notes.txt", "mine");
  fs::create_directories(save / "plots" / "deep");
  Touch(save / "plots" / "deep" / "a.png", "png");
  fs::create_directories(save / ".git");
  Touch(save / ".git" / "HEAD", "ref");
  const std::vector<std::string> before = Tree(save);
  auto out = AnalysisWriter::Create(save.string(), {"n"});
  REQUIRE(out.ok());
  REQUIRE(out->MakeMetricDir("n").ok());
  Touch(fs::path(out->dir()) / "n" / "n_metric_value.idx", "new");

  FailAt("commit");  // the swap fails, after the user's entries were carried
  const Status failed = out->Commit();
  unsetenv("DSANALYZE_TEST_FAIL_AT");
  CHECK(failed.code() == Status::Code::kIoError);
  CHECK(failed.message() ==
        "cannot swap " + out->dir() + " with " + save.string() + ": Input/output error");
  CHECK(Tree(save) == before);  // the user's entries back, the previous analysis whole
  CHECK(Tree(out->dir()) == std::vector<std::string>{"n/", "n/n_metric_value.idx=new"});
  CHECK_FALSE(fs::exists(BesideSavePath(save.string(), kCarriedSuffix)));

  REQUIRE(out->Commit().ok());  // the staged analysis is kept for another try
  CHECK(Entries(save) == std::vector<std::string>{".git", "n", "notes.txt", "plots"});
  CHECK(Slurp(save / "plots" / "deep" / "a.png") == "png");
}

TEST_CASE("An empty metric folder summary.json lists is replaced like the analysis's others",
          "[commit]") {
  // output.files without any of mod's files leaves S/mod/ empty.
  test::ScratchDir dir;
  const fs::path save = dir.path() / "save";
  fs::create_directories(save / "mod");
  fs::create_directories(save / "batch_sum");
  Touch(save / "batch_sum" / "batch_sum_metric_value.idx", "old");
  Touch(save / "summary.json", test::kSeedmodSummary);
  fs::create_directories(save / "plots");  // a user's empty folder, listed nowhere
  auto taken = AnalysisWriter::Create(save.string(), {"plots"});
  REQUIRE_FALSE(taken.ok());
  CHECK(taken.status().code() == Status::Code::kBadInput);

  auto out = AnalysisWriter::Create(save.string(), {"mod", "batch_sum"});
  REQUIRE(out.ok());
  REQUIRE(out->MakeMetricDir("mod").ok());
  Touch(fs::path(out->dir()) / "mod" / "mod_index_to_sample.bin", "new");
  REQUIRE(out->Commit().ok());
  CHECK(Tree(save) ==
        std::vector<std::string>{"mod/", "mod/mod_index_to_sample.bin=new", "plots/"});
}

TEST_CASE("After the swap only the previous analysis's own entries go; the rest moves into S",
          "[commit]") {
  test::ScratchDir dir;
  const fs::path save = dir.path() / "save";
  const fs::path previous = dir.path() / ".save.dsanalyze-staging-123";
  // The new analysis, with the user's entries the commit carried into it.
  fs::create_directories(save / "m");
  Touch(save / "m" / "m_metric_value.idx", "new");
  Touch(save / "notes.txt", "carried");
  Touch(save / "notes.txt.before-commit", "carried too");
  // The previous analysis: a metric folder, an empty one its summary.json
  // lists, its reports, DeepSpeed's clusters, an older dsanalyze's lock.
  fs::create_directories(previous / "m");
  Touch(previous / "m" / "m_metric_value.idx", "old");
  fs::create_directories(previous / "mod");
  fs::create_directories(previous / "batch_sum");
  Touch(previous / "batch_sum" / "batch_sum_metric_value.bin", "old");
  Touch(previous / "summary.json", test::kSeedmodSummary);
  Touch(previous / "curriculum_config.json", "old");
  fs::create_directories(previous / "data_clusters");
  Touch(previous / "data_clusters" / "c.bin", "old");
  Touch(previous / ".dsanalyze.lock", "");
  // Created in S while the commit ran, after it listed the user's entries.
  Touch(previous / "late.txt", "late");
  fs::create_directories(previous / "late_dir" / "sub");
  Touch(previous / "late_dir" / "sub" / "f", "f");
  fs::create_directories(previous / ".hidden");
  Touch(previous / "notes.txt", "late notes");  // S has both names: kept as -2

  REQUIRE(SettlePreviousAnalysis(previous.string(), save.string()));
  CHECK_FALSE(fs::exists(previous));
  CHECK(Tree(save) ==
        std::vector<std::string>{".hidden/", "late.txt=late", "late_dir/", "late_dir/sub/",
                                 "late_dir/sub/f=f", "m/", "m/m_metric_value.idx=new",
                                 "notes.txt.before-commit-2=late notes",
                                 "notes.txt.before-commit=carried too", "notes.txt=carried"});
}

TEST_CASE("A run killed after its swap: the next run moves what was created meanwhile into S",
          "[commit]") {
  test::ScratchDir dir;
  const fs::path save = dir.path() / "save";
  const fs::path previous = dir.path() / ".save.dsanalyze-staging-dead01";
  fs::create_directories(save / "m");
  Touch(save / "m" / "m_metric_value.idx", "new");
  Touch(save / "notes.txt", "carried");
  fs::create_directories(previous / "m");
  Touch(previous / "m" / "m_metric_value.idx", "old");
  Touch(previous / "late.txt", "late");
  // The list names the staging folder by the identity it had before the
  // swap: the folder now at S.
  struct stat st {};
  REQUIRE(stat(save.c_str(), &st) == 0);
  Touch(
      BesideSavePath(save.string(), kCarriedSuffix),
      R"({"staging": ".save.dsanalyze-staging-dead01", "entries": ["notes.txt"], "staging_id": [)" +
          std::to_string(st.st_dev) + ", " + std::to_string(st.st_ino) + "]}");
  auto out = AnalysisWriter::Create(save.string());
  REQUIRE(out.ok());
  CHECK_FALSE(fs::exists(previous));
  CHECK_FALSE(fs::exists(BesideSavePath(save.string(), kCarriedSuffix)));
  CHECK(Tree(save) == std::vector<std::string>{"late.txt=late", "m/", "m/m_metric_value.idx=new",
                                               "notes.txt=carried"});
}

// --- The save path's lock between readers and the commit's swap (save_lock.h) ---

fs::path ReadLockOf(const fs::path& save) {
  return BesideSavePath(save.string(), SaveLock::kSuffix);
}

// DSANALYZE_LOCK_WAIT set for one test.
class LockWait {
 public:
  explicit LockWait(const char* seconds) { setenv("DSANALYZE_LOCK_WAIT", seconds, 1); }
  ~LockWait() { unsetenv("DSANALYZE_LOCK_WAIT"); }
};

// A child process that runs `hold` (which takes a lock and returns whether it
// did), tells the parent, and keeps the lock until killed.
class Holder {
 public:
  explicit Holder(const std::function<bool()>& hold) {
    int ready[2];
    REQUIRE(pipe(ready) == 0);
    pid_ = fork();
    REQUIRE(pid_ >= 0);
    if (pid_ == 0) {
      if (!hold()) _exit(1);
      (void)!write(ready[1], "y", 1);
      for (;;) pause();
    }
    close(ready[1]);
    char ok = 0;
    holding_ = read(ready[0], &ok, 1) == 1;  // EOF if the child failed
    close(ready[0]);
  }
  ~Holder() { Stop(); }
  void Stop() {
    if (pid_ <= 0) return;
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }
  pid_t pid() const { return pid_; }
  bool holding() const { return holding_; }

 private:
  pid_t pid_ = -1;
  bool holding_ = false;
};

TEST_CASE("Readers share the save path's lock and the last one out deletes its file", "[commit]") {
  test::ScratchDir dir;
  const fs::path save = dir.path() / "save";
  fs::create_directories(save);
  auto first = LockForReading({save.string()});
  REQUIRE(first.ok());
  CHECK(first->size() == 1);
  CHECK_THAT(Slurp(ReadLockOf(save)),
             Catch::StartsWith("pid " + std::to_string(getpid()) + " on host "));
  auto second = LockForReading({save.string(), save.string()});  // compare S S: two locks
  REQUIRE(second.ok());
  CHECK(second->size() == 2);
  first->clear();
  CHECK(fs::exists(ReadLockOf(save)));  // others still read
  second->clear();
  CHECK_FALSE(fs::exists(ReadLockOf(save)));
  // Nothing to lock beside a missing folder: the command reports it as it reads.
  auto missing = LockForReading({(dir.path() / "no" / "such").string()});
  REQUIRE(missing.ok());
  CHECK(missing->empty());
  CHECK(fs::exists(save));
  CHECK(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()) == 1);
}

TEST_CASE("A run starts while its save path is read; its swap waits, then fails naming the reader",
          "[commit]") {
  test::ScratchDir dir;
  const fs::path save = dir.path() / "save";
  fs::create_directories(save / "m");
  std::ofstream(save / "m" / "m_metric_value.idx") << "old";
  std::ofstream(save / "notes.txt") << "mine";
  const LockWait wait("0.2");
  Holder reader([&] {
    auto lock = LockForReading({save.string()});
    if (!lock.ok() || lock->empty()) return false;
    static std::vector<SaveLock> kept;
    kept = std::move(*lock);
    return true;
  });
  REQUIRE(reader.holding());
  auto out = AnalysisWriter::Create(save.string(), {"m"});  // not refused: readers only hold
  REQUIRE(out.ok());                                        // off the swap
  REQUIRE(out->MakeMetricDir("m").ok());
  std::ofstream(fs::path(out->dir()) / "m" / "m_metric_value.idx") << "new";
  const auto start = steady_clock::now();
  const Status busy = out->Commit();
  CHECK(steady_clock::now() - start >= std::chrono::milliseconds(200));
  CHECK(busy.code() == Status::Code::kIoError);
  CHECK_THAT(busy.message(),
             Catch::StartsWith("output.path " + save.string() +
                               ": cannot commit: the save path is being read (lock " +
                               ReadLockOf(save).string() + " held by pid " +
                               std::to_string(reader.pid()) + " on host ") &&
                 Catch::EndsWith(") for over 0.2 s (DSANALYZE_LOCK_WAIT); nothing was committed"));
  CHECK(Slurp(save / "m" / "m_metric_value.idx") == "old");
  CHECK(Slurp(save / "notes.txt") == "mine");
  reader.Stop();
  REQUIRE(out->Commit().ok());
  CHECK(Slurp(save / "m" / "m_metric_value.idx") == "new");
  CHECK(Slurp(save / "notes.txt") == "mine");
}

TEST_CASE("A reader waits for a swap, then fails naming the committer", "[commit]") {
  test::ScratchDir dir;
  const fs::path save = dir.path() / "save";
  fs::create_directories(save);
  const LockWait wait("0.1");
  Holder swap([&] {
    auto lock = SaveLock::AcquireSwap(ReadLockOf(save).string(), save.string(), "output.path", 0);
    if (!lock.ok()) return false;
    static std::optional<SaveLock> kept;
    kept.emplace(std::move(*lock));
    return true;
  });
  REQUIRE(swap.holding());
  auto reading = LockForReading({save.string()});
  REQUIRE_FALSE(reading.ok());
  CHECK(reading.status().code() == Status::Code::kIoError);
  CHECK_THAT(
      reading.status().message(),
      Catch::StartsWith(save.string() + ": cannot read it: a run is committing into it (lock " +
                        ReadLockOf(save).string() + " held by pid " + std::to_string(swap.pid()) +
                        " on host "));
  swap.Stop();
  CHECK(LockForReading({save.string()}).ok());
}

TEST_CASE("DSANALYZE_LOCK_WAIT that is not a number of seconds is bad input", "[commit]") {
  test::ScratchDir dir;
  for (const char* bad : {"abc", "-1", "1e9", "nan", "2s", ""}) {
    const LockWait wait(bad);
    auto out = AnalysisWriter::Create((dir.path() / "save").string());
    REQUIRE_FALSE(out.ok());
    CHECK(out.status().message() ==
          std::string("DSANALYZE_LOCK_WAIT=") + bad + ": not a number of seconds from 0 to 86400");
    CHECK(out.status().code() == Status::Code::kBadInput);
    CHECK_FALSE(LockForReading({(dir.path() / "save").string()}).ok());
  }
  CHECK(fs::is_empty(dir.path()));
}

// What the processes of the next test count, in memory they share.
struct Tally {
  std::atomic<int> readers{0}, swaps{0}, overlaps{0}, failures{0}, rounds{0};
};

// Readers take the lock, count themselves in, check no swap is in, and leave.
void ReadLoop(const fs::path& save, Tally* tally, steady_clock::time_point end) {
  while (steady_clock::now() < end) {
    auto lock = LockForReading({save.string()});
    if (!lock.ok() || lock->size() != 1) ++tally->failures;
    ++tally->readers;
    if (tally->swaps != 0) ++tally->overlaps;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    --tally->readers;
    ++tally->rounds;
  }
}

void SwapLoop(const fs::path& save, Tally* tally, steady_clock::time_point end) {
  while (steady_clock::now() < end) {
    auto lock = SaveLock::AcquireSwap(ReadLockOf(save).string(), save.string(), "output.path", 5);
    if (!lock.ok()) ++tally->failures;
    if (++tally->swaps != 1 || tally->readers != 0) ++tally->overlaps;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    --tally->swaps;
    ++tally->rounds;
  }
}

TEST_CASE("Readers and swaps in many processes never hold the lock together, nor leave its file",
          "[commit]") {
  test::ScratchDir dir;
  const fs::path save = dir.path() / "save";
  fs::create_directories(save);
  void* shared =
      mmap(nullptr, sizeof(Tally), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  REQUIRE(shared != MAP_FAILED);
  Tally* tally = new (shared) Tally;
  const auto end = steady_clock::now() + std::chrono::milliseconds(400);
  std::vector<pid_t> children;
  for (int i = 0; i < 5; ++i) {
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      if (i < 2)
        SwapLoop(save, tally, end);
      else
        ReadLoop(save, tally, end);
      _exit(0);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) waitpid(pid, nullptr, 0);
  INFO("rounds " << tally->rounds.load());
  CHECK(tally->overlaps == 0);
  CHECK(tally->failures == 0);
  CHECK(tally->rounds > 100);
  CHECK_FALSE(fs::exists(ReadLockOf(save)));
  munmap(shared, sizeof(Tally));
}

}  // namespace
}  // namespace dsanalyze
