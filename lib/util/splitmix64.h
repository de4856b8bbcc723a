// splitmix64 (Steele, Lea and Flood): the one random stream of dsanalyze's own
// data (generated tokens, GPT maps, a training order's bucket shuffles):
//
//   Mix(z):  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
//            z = (z ^ (z >> 27)) * 0x94D049BB133111EB
//            return z ^ (z >> 31)                        (all mod 2^64)
//   next():  state += 0x9E3779B97F4A7C15; return Mix(state)
//
// A value type; each generator is used by one thread at a time.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace dsanalyze {

class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t state) : state_(state) {}
  static uint64_t Mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  uint64_t Next() { return Mix(state_ += 0x9E3779B97F4A7C15ULL); }
  // Fisher-Yates with next() % i: the GPT maps' and the tests' shuffle (a
  // training order's buckets draw differently: curriculum/bucket_shuffle.h).
  template <class T>
  void Shuffle(std::vector<T>* v) {
    for (size_t i = v->size(); i > 1; --i) std::swap((*v)[i - 1], (*v)[Next() % i]);
  }

 private:
  uint64_t state_;
};

}  // namespace dsanalyze
