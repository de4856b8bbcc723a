#include "pipeline/global_reduce.h"

#include <algorithm>
#include <limits>
#include <new>

namespace dsanalyze {
namespace {

// Elements per Allreduce round: bounds the messages (2 int64 per element).
constexpr size_t kSumChunk = size_t{1} << 16;

}  // namespace

Result<std::vector<int64_t>> AllreduceSumChecked(const Comm& comm, std::span<const int64_t> local,
                                                 const std::string& what) {
  // Each value is split as x = hi·2^32 + lo with lo in [0, 2^32): the ranks'
  // sums of hi and of lo cannot overflow int64 for any realistic rank count
  // (< 2^31), and recombining them in 128 bits gives the exact total.
  std::vector<int64_t> total(local.size());
  std::vector<int64_t> parts(2 * std::min(kSumChunk, local.size()));
  for (size_t begin = 0; begin < local.size(); begin += kSumChunk) {
    const size_t n = std::min(kSumChunk, local.size() - begin);
    for (size_t i = 0; i < n; ++i) {
      const int64_t x = local[begin + i];
      parts[2 * i] = x >> 32;  // arithmetic shift: floor(x / 2^32)
      parts[2 * i + 1] = x & 0xffffffff;
    }
    const std::vector<int64_t> sums =
        comm.Allreduce<int64_t>(std::span<const int64_t>(parts.data(), 2 * n), MPI_SUM);
    for (size_t i = 0; i < n; ++i) {
      const __int128 exact = (static_cast<__int128>(sums[2 * i]) << 32) + sums[2 * i + 1];
      if (exact > std::numeric_limits<int64_t>::max() ||
          exact < std::numeric_limits<int64_t>::min())
        return Status::BadInput(what + ": the sum of element " + std::to_string(begin + i) +
                                " over all samples overflows int64");
      total[begin + i] = static_cast<int64_t>(exact);
    }
  }
  return total;
}

ValueRange GlobalMinMax(const Comm& comm, std::span<const int64_t> local) {
  return GlobalMinMax(comm, local, nullptr);
}

ValueCounts::ValueCounts(int64_t first, size_t entries)
    : base(first),
      size(entries),
      counts(static_cast<uint64_t*>(std::calloc(entries, sizeof(uint64_t))), std::free) {
  if (!counts) throw std::bad_alloc();  // as a vector would (util/exception_status.h)
}

uint64_t ValueCounts::of(int64_t v) const {
  const uint64_t at = static_cast<uint64_t>(v) - static_cast<uint64_t>(base);  // wraps below
  return at < size ? counts[at] : 0;
}

ValueRange GlobalMinMax(const Comm& comm, std::span<const int64_t> local, ValueCounts* counts) {
  // One loop the compiler can keep in registers (std::minmax_element's
  // iterators cannot be), counting on the way when asked to.
  int64_t mn = std::numeric_limits<int64_t>::max(), mx = std::numeric_limits<int64_t>::min();
  const auto scan = [&](const auto& count) {
    for (const int64_t v : local) {
      mn = std::min(mn, v);
      mx = std::max(mx, v);
      count(v);
    }
  };
  if (counts == nullptr) {
    scan([](int64_t) {});
  } else {
    scan([counts](int64_t v) { counts->Add(v); });
  }
  return GlobalMinMax(comm, ValueRange{mn, mx});
}

ValueRange GlobalMinMax(const Comm& comm, ValueRange local) {
  return {comm.Allreduce(local.min, MPI_MIN), comm.Allreduce(local.max, MPI_MAX)};
}

}  // namespace dsanalyze
