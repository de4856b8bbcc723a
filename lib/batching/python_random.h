// Python's `random.Random(seed)` for an integer seed, bit for bit: the
// Mersenne Twister MT19937 seeded as CPython's random_seed seeds it
// (init_by_array over the seed's magnitude as 32-bit words, little end
// first), getrandbits, _randbelow and shuffle (Lib/random.py, unchanged from
// Python 3.2 to 3.13). DeepSpeed's dynamic batching shuffles its
// (seqlen, id) list with random.Random(seed).shuffle, so reproducing its
// plan needs the very same permutation. Plain value type; not thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <utility>

namespace dsanalyze {

class PythonRandom {
 public:
  // random.Random(seed): Python seeds with abs(seed).
  explicit PythonRandom(int64_t seed);
  // random.Random(s) for every integer s with abs(s) == magnitude, including
  // those beyond int64 (an epoch's seed + e - 1: batching/epochs.h).
  static PythonRandom OfMagnitude(uint64_t magnitude) { return PythonRandom(Magnitude{magnitude}); }

  // genrand_uint32: the next 32-bit output of the generator.
  uint32_t NextUint32();
  // random.getrandbits(k) for 1 <= k <= 64: the top k bits of one draw for
  // k <= 32; else the first draw is the low word and the top k - 32 bits of
  // the second the high word.
  uint64_t GetRandBits(int k);
  // random._randbelow(n) for n >= 1: getrandbits(n.bit_length()) drawn again
  // until it is below n.
  uint64_t RandBelow(uint64_t n);

 private:
  static constexpr int kN = 624;
  struct Magnitude {
    uint64_t value;
  };
  explicit PythonRandom(Magnitude magnitude);
  void InitGenrand(uint32_t s);
  void Twist();
  std::array<uint32_t, kN> mt_{};
  int index_ = kN;
};

// random.Random(seed).shuffle(x): for i from len - 1 down to 1, swap x[i] and
// x[_randbelow(i + 1)].
//
// Each swap's partner is a random place in the whole array: a cache and TLB
// miss, one after another (measured at 10^8 samples of 16 bytes: most of the
// `random` order's time). The draws do not depend on x, so partners are
// drawn kAhead swaps early and their lines fetched meanwhile; the swaps, and
// so the permutation, are the same.
template <class T>
void PythonShuffle(std::span<T> x, PythonRandom& random) {
  constexpr size_t kAhead = 32;
  if (x.size() < 2) return;
  const size_t swaps = x.size() - 1;  // swap s exchanges x[len - 1 - s]
  std::array<size_t, kAhead> partner{};
  size_t drawn = 0;
  for (size_t s = 0; s < swaps; ++s) {
    for (; drawn < swaps && drawn < s + kAhead; ++drawn) {
      const size_t j = random.RandBelow(x.size() - drawn);
      __builtin_prefetch(&x[j], 1);
      partner[drawn % kAhead] = j;
    }
    std::swap(x[x.size() - 1 - s], x[partner[s % kAhead]]);
  }
}

}  // namespace dsanalyze
