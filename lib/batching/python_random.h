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
  void InitGenrand(uint32_t s);
  void Twist();
  std::array<uint32_t, kN> mt_{};
  int index_ = kN;
};

// random.Random(seed).shuffle(x): for i from len - 1 down to 1, swap x[i] and
// x[_randbelow(i + 1)].
template <class T>
void PythonShuffle(std::span<T> x, PythonRandom& random) {
  for (size_t i = x.size(); i-- > 1;) std::swap(x[i], x[random.RandBelow(i + 1)]);
}

}  // namespace dsanalyze
