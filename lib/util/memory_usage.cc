#include "util/memory_usage.h"

#include <sys/resource.h>

#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <optional>
#include <utility>

namespace dsanalyze {

int64_t PeakRssBytes() {
  struct rusage ru {};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<int64_t>(ru.ru_maxrss) * 1024;  // Linux reports KiB
}

int64_t AnonRssBytes() {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (f == nullptr) return 0;
  char line[256];
  long long kib = 0;
  while (std::fgets(line, sizeof(line), f) != nullptr) {
    if (std::sscanf(line, "RssAnon: %lld kB", &kib) == 1) break;
  }
  std::fclose(f);
  return static_cast<int64_t>(kib) * 1024;
}

namespace {

// The "Name: N kB" fields of a /proc file, in bytes; fields it lacks stay 0.
void ReadKilobyteFields(const char* path,
                        std::initializer_list<std::pair<const char*, uint64_t*>> fields) {
  std::FILE* f = std::fopen(path, "r");
  if (f == nullptr) return;
  char line[256];
  while (std::fgets(line, sizeof(line), f) != nullptr) {
    for (const auto& [name, out] : fields) {
      const size_t n = std::strlen(name);
      unsigned long long kib = 0;
      if (std::strncmp(line, name, n) == 0 && line[n] == ':' &&
          std::sscanf(line + n + 1, " %llu kB", &kib) == 1)
        *out = static_cast<uint64_t>(kib) * 1024;
    }
  }
  std::fclose(f);
}

// The first number in `path` ("max" and unreadable files: nullopt).
std::optional<uint64_t> ReadNumber(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "r");
  if (f == nullptr) return std::nullopt;
  unsigned long long v = 0;
  const bool read = std::fscanf(f, "%llu", &v) == 1;
  std::fclose(f);
  if (!read) return std::nullopt;
  return static_cast<uint64_t>(v);
}

// Keeps the smaller of `*least` and {bytes, bound}.
void KeepLeast(AvailableMemory* least, uint64_t bytes, const char* bound) {
  if (bytes < least->bytes) *least = {bytes, bound};
}

void BoundByMachine(AvailableMemory* least) {
  uint64_t available = 0, swap_free = 0, commit_limit = 0, committed = 0;
  ReadKilobyteFields("/proc/meminfo", {{"MemAvailable", &available},
                                       {"SwapFree", &swap_free},
                                       {"CommitLimit", &commit_limit},
                                       {"Committed_AS", &committed}});
  if (available > 0) KeepLeast(least, available + swap_free, "MemAvailable + SwapFree");
  if (ReadNumber("/proc/sys/vm/overcommit_memory") == 2 && commit_limit > 0)
    KeepLeast(least, commit_limit > committed ? commit_limit - committed : 0,
              "CommitLimit - Committed_AS, under strict overcommit");
}

// cgroup v2: the line "0::/path" of /proc/self/cgroup names this process's
// group under /sys/fs/cgroup; every group above it limits it too.
void BoundByCgroup(AvailableMemory* least) {
  std::FILE* f = std::fopen("/proc/self/cgroup", "r");
  if (f == nullptr) return;
  char line[4096];
  std::string group;
  while (std::fgets(line, sizeof(line), f) != nullptr)
    if (std::strncmp(line, "0::", 3) == 0)
      group = std::string(line + 3, std::strcspn(line + 3, "\n"));
  std::fclose(f);
  for (std::string dir = group; !dir.empty() && dir != "/"; dir.resize(dir.rfind('/'))) {
    const std::string base = "/sys/fs/cgroup" + dir;
    const std::optional<uint64_t> max = ReadNumber(base + "/memory.max");
    const std::optional<uint64_t> current = ReadNumber(base + "/memory.current");
    if (max && current)
      KeepLeast(least, *max > *current ? *max - *current : 0, "its cgroup's memory.max");
  }
}

void BoundByAddressSpace(AvailableMemory* least) {
  struct rlimit limit {};
  if (getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return;
  uint64_t mapped = 0;
  ReadKilobyteFields("/proc/self/status", {{"VmSize", &mapped}});
  const uint64_t cap = static_cast<uint64_t>(limit.rlim_cur);
  KeepLeast(least, cap > mapped ? cap - mapped : 0, "ulimit -v");
}

}  // namespace

AvailableMemory AvailableMemoryNow() {
  AvailableMemory least;
  BoundByMachine(&least);
  BoundByCgroup(&least);
  BoundByAddressSpace(&least);
  return least;
}

}  // namespace dsanalyze
