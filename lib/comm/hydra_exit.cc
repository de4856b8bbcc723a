#include "comm/hydra_exit.h"

#include <fcntl.h>
#include <sys/types.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

namespace dsanalyze {
namespace {

// True once the process whose /proc/PID/stat is `stat_path` is a zombie or
// gone ("PID (comm) STATE ..."). Only async-signal-safe calls: it runs in a
// child forked from a process that may have had other threads.
bool HasExited(const char* stat_path) {
  const int fd = open(stat_path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return true;
  char buf[512];
  const ssize_t n = read(fd, buf, sizeof(buf) - 1);
  close(fd);
  if (n <= 0) return true;
  buf[n] = '\0';
  const char* paren = std::strrchr(buf, ')');
  return paren == nullptr || paren[1] == '\0' || paren[2] == 'Z';
}

}  // namespace

bool StartedByHydra() { return std::getenv("MPI_LOCALNRANKS") != nullptr; }

void PrintAfterExit(const std::string& line) {
  char stat_path[64];
  std::snprintf(stat_path, sizeof(stat_path), "/proc/%ld/stat", static_cast<long>(getpid()));
  std::fflush(nullptr);
  const pid_t child = fork();
  if (child > 0) return;
  if (child == 0) {
    const timespec tick{0, 1000000};  // 1 ms, for at most 2 s
    for (int i = 0; i < 2000 && !HasExited(stat_path); ++i) nanosleep(&tick, nullptr);
  }
  (void)!write(STDERR_FILENO, line.data(), line.size());
  if (child == 0) _exit(0);
}

}  // namespace dsanalyze
