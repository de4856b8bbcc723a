#include "config/memory_budget.h"

#include <atomic>

#include "config/byte_size.h"
#include "util/memory_usage.h"

namespace dsanalyze {
namespace {

std::atomic<uint64_t> run_limit_per_rank{0};

}  // namespace

void SetMemoryLimitPerRank(uint64_t bytes) { run_limit_per_rank.store(bytes); }

uint64_t SaturatingProduct(uint64_t a, uint64_t b) {
  uint64_t product;
  return __builtin_mul_overflow(a, b, &product) ? UINT64_MAX : product;
}

Status CheckMemoryNeed(const MemoryNeed& need) {
  const uint64_t limit = run_limit_per_rank.load();
  AvailableMemory budget{limit, "of memory.limit_per_rank"};
  if (limit == 0) {
    budget = AvailableMemoryNow();
    budget.bound = "this rank can allocate (" + budget.bound + ")";
  }
  if (need.bytes <= budget.bytes) return Status::OK();
  const std::string bytes =
      need.bytes == UINT64_MAX ? "more than 16EiB" : FormatByteSizeRounded(need.bytes);
  return Status::BadInput(need.key + ": " + need.what + " would take " + bytes +
                          " of memory, more than the " + FormatByteSizeRounded(budget.bytes) + " " +
                          budget.bound + (need.fix.empty() ? "" : "; " + need.fix));
}

}  // namespace dsanalyze
