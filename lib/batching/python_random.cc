#include "batching/python_random.h"

#include <algorithm>
#include <bit>
#include <vector>

namespace dsanalyze {
namespace {

constexpr uint32_t kMatrixA = 0x9908b0dfU;
constexpr uint32_t kUpperMask = 0x80000000U;
constexpr uint32_t kLowerMask = 0x7fffffffU;

}  // namespace

void PythonRandom::InitGenrand(uint32_t s) {
  mt_[0] = s;
  for (int i = 1; i < kN; ++i)
    mt_[i] = 1812433253U * (mt_[i - 1] ^ (mt_[i - 1] >> 30)) + static_cast<uint32_t>(i);
  index_ = kN;
}

// CPython's random_seed: the key is abs(seed) as 32-bit words, little end
// first, at least one word (so 0 is the key [0]); then init_by_array.
PythonRandom::PythonRandom(int64_t seed)
    : PythonRandom(Magnitude{seed < 0 ? uint64_t{0} - static_cast<uint64_t>(seed)
                                      : static_cast<uint64_t>(seed)}) {}

PythonRandom::PythonRandom(Magnitude m) {
  const uint64_t magnitude = m.value;
  std::vector<uint32_t> key = {static_cast<uint32_t>(magnitude)};
  if (magnitude >> 32) key.push_back(static_cast<uint32_t>(magnitude >> 32));
  InitGenrand(19650218U);
  int i = 1;
  size_t j = 0;
  for (int k = std::max<int>(kN, static_cast<int>(key.size())); k > 0; --k) {
    mt_[i] = (mt_[i] ^ ((mt_[i - 1] ^ (mt_[i - 1] >> 30)) * 1664525U)) + key[j] +
             static_cast<uint32_t>(j);
    if (++i >= kN) mt_[0] = mt_[kN - 1], i = 1;
    if (++j >= key.size()) j = 0;
  }
  for (int k = kN - 1; k > 0; --k) {
    mt_[i] =
        (mt_[i] ^ ((mt_[i - 1] ^ (mt_[i - 1] >> 30)) * 1566083941U)) - static_cast<uint32_t>(i);
    if (++i >= kN) mt_[0] = mt_[kN - 1], i = 1;
  }
  mt_[0] = 0x80000000U;
}

void PythonRandom::Twist() {
  constexpr int kM = 397;
  for (int k = 0; k < kN; ++k) {
    const uint32_t y = (mt_[k] & kUpperMask) | (mt_[(k + 1) % kN] & kLowerMask);
    mt_[k] = mt_[(k + kM) % kN] ^ (y >> 1) ^ ((y & 1U) ? kMatrixA : 0U);
  }
  index_ = 0;
}

uint32_t PythonRandom::NextUint32() {
  if (index_ >= kN) Twist();
  uint32_t y = mt_[index_++];
  y ^= (y >> 11);
  y ^= (y << 7) & 0x9d2c5680U;
  y ^= (y << 15) & 0xefc60000U;
  y ^= (y >> 18);
  return y;
}

uint64_t PythonRandom::GetRandBits(int k) {
  if (k <= 32) return NextUint32() >> (32 - k);
  const uint64_t low = NextUint32();
  const uint64_t high = NextUint32() >> (64 - k);
  return low | (high << 32);
}

uint64_t PythonRandom::RandBelow(uint64_t n) {
  const int k = std::bit_width(n);
  uint64_t r = GetRandBits(k);
  while (r >= n) r = GetRandBits(k);
  return r;
}

}  // namespace dsanalyze
