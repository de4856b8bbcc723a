#include "util/fault_point.h"

#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>

namespace dsanalyze {
namespace {

struct PointSpec {
  bool armed = false;  // this process is the rank `variable` names
  std::string point;
};

// `variable` = "<point>:<rank>" ("*": every rank), for this process's rank.
PointSpec ReadPointSpec(const char* variable) {
  PointSpec spec;
  const char* at = std::getenv(variable);
  if (at == nullptr) return spec;
  const char* colon = std::strrchr(at, ':');
  if (colon == nullptr) return spec;
  const char* my_rank = std::getenv("PMI_RANK");
  const std::string rank(colon + 1);
  if (rank != "*" && rank != (my_rank != nullptr ? my_rank : "0")) return spec;
  spec.point.assign(at, colon);
  spec.armed = true;
  return spec;
}

struct PauseSpec : PointSpec {
  std::string pid_file;
};

PauseSpec ReadSpec() {
  PauseSpec spec{ReadPointSpec("DSANALYZE_TEST_PAUSE_AT"), ""};
  if (const char* file = std::getenv("DSANALYZE_TEST_PAUSE_FILE")) spec.pid_file = file;
  return spec;
}

// DSANALYZE_TEST_THROW_AT's exception: std::bad_alloc when
// DSANALYZE_TEST_THROW is "bad_alloc", else a std::runtime_error.
[[noreturn]] void ThrowAt(const char* point) {
  const char* what = std::getenv("DSANALYZE_TEST_THROW");
  if (what != nullptr && std::string(what) == "bad_alloc") throw std::bad_alloc();
  throw std::runtime_error(std::string("test exception at ") + point);
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
  static const PointSpec throw_spec = ReadPointSpec("DSANALYZE_TEST_THROW_AT");
  static std::atomic<bool> thrown{false};
  if (throw_spec.armed && throw_spec.point == point && !thrown.exchange(true)) ThrowAt(point);
  static const PauseSpec spec = ReadSpec();
  static std::atomic<bool> paused{false};
  if (!spec.armed || spec.point != point || paused.exchange(true)) return;
  if (!spec.pid_file.empty()) WritePid(spec.pid_file);
  std::fprintf(stderr, "dsanalyze: test pause at %s (pid %ld)\n", point,
               static_cast<long>(getpid()));
  std::fflush(stderr);
  std::raise(SIGSTOP);
}

bool FaultFails(const char* point) {
  const PointSpec spec = ReadPointSpec("DSANALYZE_TEST_FAIL_AT");
  return spec.armed && spec.point == point;
}

}  // namespace dsanalyze
