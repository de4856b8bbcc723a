// The memory budget and its one check (config/memory_budget.h), and what the
// kernel says a process can allocate (util/memory_usage.h).
#include "config/memory_budget.h"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdio>

#include "config/dataset_types.h"
#include "util/memory_usage.h"

namespace dsanalyze {
namespace {

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

constexpr uint64_t kBudgetMiB = uint64_t{1} << 20, kBudgetGiB = uint64_t{1} << 30;

// Restores "no limit" when a test that set one ends.
struct LimitFor {
  explicit LimitFor(uint64_t bytes) { SetMemoryLimitPerRank(bytes); }
  ~LimitFor() { SetMemoryLimitPerRank(0); }
};

}  // namespace

TEST_CASE("SaturatingProduct: a product past 2^64 is UINT64_MAX", "[config][memory_budget]") {
  CHECK(SaturatingProduct(3, 5) == 15);
  CHECK(SaturatingProduct(uint64_t{1} << 32, uint64_t{1} << 31) == uint64_t{1} << 63);
  CHECK(SaturatingProduct(uint64_t{1} << 32, uint64_t{1} << 32) == UINT64_MAX);
  CHECK(SaturatingProduct(INT64_MAX, 24) == UINT64_MAX);
}

TEST_CASE("CheckMemoryNeed: under memory.limit_per_rank, the limit is the budget",
          "[config][memory_budget]") {
  const LimitFor limit(kBudgetGiB);
  CHECK(CheckMemoryNeed({.key = "config: dataset.size", .what = "w", .bytes = kBudgetGiB}).ok());
  const Status st = CheckMemoryNeed({.key = "config: dataset.size",
                                     .what = "a blend index of 1099511627776 samples at 10 "
                                             "bytes each",
                                     .bytes = SaturatingProduct(uint64_t{1} << 40, 10)});
  CHECK(st.code() == Status::Code::kBadInput);
  CHECK(st.exit_code() == 2);
  CHECK(st.message() ==
        "config: dataset.size: a blend index of 1099511627776 samples at 10 bytes each would "
        "take 10TiB of memory, more than the 1GiB of memory.limit_per_rank");
  CHECK(
      CheckMemoryNeed({.key = "k", .what = "w", .bytes = UINT64_MAX, .fix = "do this"}).message() ==
      "k: w would take more than 16EiB of memory, more than the 1GiB of "
      "memory.limit_per_rank; do this");
}

TEST_CASE("CheckMemoryNeed: without a limit, what the kernel says this rank can allocate",
          "[config][memory_budget]") {
  const AvailableMemory now = AvailableMemoryNow();
  REQUIRE(now.bytes > 64 * kBudgetMiB);
  CHECK(CheckMemoryNeed({.key = "k", .what = "w", .bytes = 64 * kBudgetMiB}).ok());
  const Status st = CheckMemoryNeed({.key = "k", .what = "w", .bytes = UINT64_MAX});
  CHECK_THAT(st.message(), StartsWith("k: w would take more than 16EiB of memory, more than the "));
  CHECK_THAT(st.message(), Contains(" this rank can allocate (" + now.bound + ")"));
}

TEST_CASE("AvailableMemoryNow: ulimit -v bounds what a process can allocate",
          "[config][memory_budget]") {
  // In a child: the limit stays with it.
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    const AvailableMemory before = AvailableMemoryNow();
    // 256 MiB above what the process maps now.
    uint64_t mapped = 0;
    struct rlimit cap {};
    FILE* f = std::fopen("/proc/self/status", "r");
    char line[256];
    while (f != nullptr && std::fgets(line, sizeof(line), f) != nullptr) {
      unsigned long long kib = 0;
      if (std::sscanf(line, "VmSize: %llu kB", &kib) == 1) mapped = kib * 1024;
    }
    if (f != nullptr) std::fclose(f);
    cap.rlim_cur = cap.rlim_max = mapped + 256 * kBudgetMiB;
    if (setrlimit(RLIMIT_AS, &cap) != 0) _exit(10);
    const AvailableMemory after = AvailableMemoryNow();
    const bool bounded = after.bound == "ulimit -v" && after.bytes <= 256 * kBudgetMiB &&
                         after.bytes > 128 * kBudgetMiB && after.bytes <= before.bytes;
    _exit(bounded ? 0 : 11);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("SampleCountKey names the key that sets N", "[config][memory_budget]") {
  CHECK(SampleCountKey(DatasetTypeConfig(SyntheticModConfig{})) == "dataset.num_samples");
  CHECK(SampleCountKey(DatasetTypeConfig(DocumentsConfig{})) == "dataset.prefixes");
  CHECK(SampleCountKey(DatasetTypeConfig(PackedConfig{})) == "dataset.prefixes");
  MegatronGptConfig gpt;
  CHECK(SampleCountKey(DatasetTypeConfig(gpt)) == "dataset.shuffle_idx");
  gpt.index_prefix = "maps/x";
  CHECK(SampleCountKey(DatasetTypeConfig(gpt)) == "dataset.index_prefix");
  MegatronBlendConfig blend;
  CHECK(SampleCountKey(blend) == "dataset.dataset_index");
  blend.weights = {1};
  blend.train_samples = 10;
  CHECK(SampleCountKey(blend) == "dataset.train_samples");
  blend.size = 10;
  CHECK(SampleCountKey(DatasetTypeConfig(blend)) == "dataset.size");
}

}  // namespace dsanalyze
