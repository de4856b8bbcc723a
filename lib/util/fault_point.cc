#include "util/fault_point.h"

#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace dsanalyze {
namespace {

struct PauseSpec {
  bool armed = false;  // this process is the rank named by DSANALYZE_TEST_PAUSE_AT
  std::string point;
  std::string pid_file;
};

// The point of a "<point>:<rank>" variable when it names this process's rank
// (PMI_RANK, 0 when unset); empty otherwise.
std::string PointForThisRank(const char* variable) {
  const char* at = std::getenv(variable);
  if (at == nullptr) return {};
  const char* colon = std::strrchr(at, ':');
  if (colon == nullptr) return {};
  const char* my_rank = std::getenv("PMI_RANK");
  if (std::string(colon + 1) != (my_rank != nullptr ? my_rank : "0")) return {};
  return std::string(at, colon);
}

PauseSpec ReadSpec() {
  PauseSpec spec;
  spec.point = PointForThisRank("DSANALYZE_TEST_PAUSE_AT");
  if (spec.point.empty()) return spec;
  if (const char* file = std::getenv("DSANALYZE_TEST_PAUSE_FILE")) spec.pid_file = file;
  spec.armed = true;
  return spec;
}

void WritePid(const std::string& path) {
  const std::string tmp = path + ".tmp";
  if (FILE* f = std::fopen(tmp.c_str(), "w")) {
    std::fprintf(f, "%ld\n", static_cast<long>(getpid()));
    std::fclose(f);
    std::rename(tmp.c_str(), path.c_str());
  }
}

}  // namespace

void FaultPoint(const char* point) {
  static const PauseSpec spec = ReadSpec();
  static std::atomic<bool> paused{false};
  if (!spec.armed || spec.point != point || paused.exchange(true)) return;
  if (!spec.pid_file.empty()) WritePid(spec.pid_file);
  std::fprintf(stderr, "dsanalyze: test pause at %s (pid %ld)\n", point,
               static_cast<long>(getpid()));
  std::fflush(stderr);
  std::raise(SIGSTOP);
}

bool FaultFails(const char* point) { return PointForThisRank("DSANALYZE_TEST_FAIL_AT") == point; }

}  // namespace dsanalyze
