#include "util/terminal.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>

namespace dsanalyze {
namespace {

// The target of /proc/<pid>/fd/<fd>, e.g. "pipe:[1234]" or "/dev/pts/0".
std::string FdTarget(const std::string& pid, const std::string& fd) {
  const std::string link = "/proc/" + pid + "/fd/" + fd;
  char buf[256];
  const ssize_t n = readlink(link.c_str(), buf, sizeof(buf) - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

std::string ParentOf(const std::string& pid) {
  std::FILE* f = std::fopen(("/proc/" + pid + "/stat").c_str(), "r");
  if (!f) return {};
  char line[1024];
  const bool read = std::fgets(line, sizeof(line), f) != nullptr;
  std::fclose(f);
  // "pid (comm) state ppid ...": comm may hold spaces, so parse after the last ')'.
  const std::string s = read ? line : "";
  const size_t paren = s.rfind(')');
  int ppid = 0;
  if (paren == std::string::npos || std::sscanf(s.c_str() + paren + 1, " %*c %d", &ppid) != 1)
    return {};
  return ppid > 1 ? std::to_string(ppid) : std::string();
}

bool HoldsFile(const std::string& pid, const std::string& target) {
  DIR* dir = opendir(("/proc/" + pid + "/fd").c_str());
  if (!dir) return false;
  bool found = false;
  while (const dirent* e = readdir(dir))
    if (e->d_name[0] != '.' && FdTarget(pid, e->d_name) == target) found = true;
  closedir(dir);
  return found;
}

// Processes that forward their ranks' output to their own stderr.
bool IsLauncher(const std::string& pid) {
  std::FILE* f = std::fopen(("/proc/" + pid + "/comm").c_str(), "r");
  if (!f) return false;
  char name[64] = {};
  const bool read = std::fgets(name, sizeof(name), f) != nullptr;
  std::fclose(f);
  const std::string comm = read ? std::string(name, std::strcspn(name, "\n")) : "";
  for (const char* launcher : {"mpiexec", "mpiexec.hydra", "mpiexec.mpich", "mpirun",
                               "hydra_pmi_proxy", "orted", "prted", "prterun"})
    if (comm == launcher) return true;
  return false;
}

bool IsTerminal(const std::string& pid) {
  const int fd = open(("/proc/" + pid + "/fd/2").c_str(), O_WRONLY | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) return false;
  const bool tty = isatty(fd);
  close(fd);
  return tty;
}

}  // namespace

bool StderrReachesTerminal() {
  if (isatty(STDERR_FILENO)) return true;
  // Launchers nest a few levels deep (mpiexec → proxy → rank); 8 is plenty.
  std::string pid = std::to_string(getpid());
  for (int depth = 0; depth < 8; ++depth) {
    const std::string pipe = FdTarget(pid, "2");
    if (pipe.rfind("pipe:", 0) != 0) return false;
    const std::string parent = ParentOf(pid);
    if (parent.empty() || !IsLauncher(parent) || !HoldsFile(parent, pipe)) return false;
    if (IsTerminal(parent)) return true;
    pid = parent;
  }
  return false;
}

}  // namespace dsanalyze
