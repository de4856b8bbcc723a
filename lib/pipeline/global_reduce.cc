#include "pipeline/global_reduce.h"

#include <algorithm>
#include <limits>

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
  ValueRange r{std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min()};
  if (!local.empty()) {
    const auto [mn, mx] = std::minmax_element(local.begin(), local.end());
    r = {*mn, *mx};
  }
  return GlobalMinMax(comm, r);
}

ValueRange GlobalMinMax(const Comm& comm, ValueRange local) {
  return {comm.Allreduce(local.min, MPI_MIN), comm.Allreduce(local.max, MPI_MAX)};
}

}  // namespace dsanalyze
