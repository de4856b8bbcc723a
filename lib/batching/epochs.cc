#include "batching/epochs.h"

#include <numeric>

#include "batching/python_random.h"

namespace dsanalyze {

std::vector<uint64_t> EpochBatchOrder(int64_t seed, int64_t epoch, uint64_t batches) {
  // |seed + epoch - 1| <= 2^63 + epoch fits in uint64 for any int64 pair.
  const __int128 epoch_seed = static_cast<__int128>(seed) + epoch - 1;
  PythonRandom random =
      PythonRandom::OfMagnitude(static_cast<uint64_t>(epoch_seed < 0 ? -epoch_seed : epoch_seed));
  std::vector<uint64_t> order(batches);
  std::iota(order.begin(), order.end(), uint64_t{0});
  PythonShuffle<uint64_t>(order, random);
  return order;
}

}  // namespace dsanalyze
