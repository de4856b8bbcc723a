// Synthetic token datasets for `dsanalyze generate`.
//
// A dataset is `documents` rows, one per document, written in Megatron's
// MMapIndexedDataset layout (doc_idx [0, 1, ..., documents], as Megatron's
// builder writes when every document is one row). Document lengths are uniform
// in [min_length, max_length]; token id r has frequency proportional to
// 1/(r+1)^zipf, so id 0 is the most frequent.
//
// The bytes depend only on the options, never on the machine: the random stream
// is xoshiro256** seeded by splitmix64 (not a std:: distribution, whose output
// differs between standard libraries) and the id distribution is built without
// libm (whose last bits differ between libm builds and CPUs). Draw order: for
// each document one draw for its length, then one draw per token.
//
// Memory is bounded by the vocabulary (the sampler keeps 8 bytes per id plus a
// guide of at most 8 more) and a fixed block of tokens, whatever the number of
// documents. Everything here is
// a plain value; ZipfSampler is immutable after construction and may be shared
// between threads, Xoshiro256 may not.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "format/dtype.h"
#include "util/status.h"

namespace dsanalyze::synth {

// xoshiro256** (Blackman & Vigna), its state expanded from the seed by splitmix64.
class Xoshiro256 {
 public:
  explicit Xoshiro256(uint64_t seed);
  uint64_t Next();
  // Uniform in [0, n) for n >= 1 by multiply-high (bias below n / 2^64).
  uint64_t Below(uint64_t n);

 private:
  uint64_t s_[4];
};

// x^(-e) for x >= 1 and finite e >= 0, computed with +, -, *, / and exact
// power-of-two scaling only, so that it is bit-identical on every IEEE-754
// machine that does not fuse multiply-adds (x86-64 never does unless built
// with -mfma); accurate to a few ulps.
double InversePower(double x, double e);

// Draws ranks 0..n-1 with P(r) proportional to 1/(r+1)^e from one 64-bit
// random number, by inverting the cumulative distribution: the answer is the
// first r whose cumulative threshold exceeds the number. A guide table indexed
// by the number's top bits narrows the binary search to a few entries, so a
// draw costs O(1) on average (this is what makes 1e9 tokens take seconds).
class ZipfSampler {
 public:
  ZipfSampler(uint64_t n, double exponent);  // n >= 1, finite exponent >= 0
  uint64_t Sample(uint64_t random) const;

 private:
  std::vector<uint64_t> upper_;  // draws in [upper_[r-1], upper_[r]) give r
  std::vector<uint32_t> guide_;  // guide_[k]: the rank of the smallest draw with top bits k
  int shift_ = 63;               // 64 - log2(number of guide buckets)
};

// Longest document: a row's size is an int32 in the format.
inline constexpr uint64_t kMaxDocumentLength = 2147483647;

// uint16 when every id fits (vocab_size <= 65536), else int32.
DType TokenDType(uint64_t vocab_size);

// What to write; the defaults are `dsanalyze generate`'s.
struct TokenDatasetOptions {
  std::string prefix;  // the output path without .bin/.idx
  uint64_t documents = 1000;
  uint64_t vocab_size = 50000;
  uint64_t min_length = 1;
  uint64_t max_length = 1024;
  uint64_t seed = 1234;
  double zipf = 1.1;
  std::string dtype_codes = "megatron";  // the dtype code table the .idx uses
};

struct GeneratedTokens {
  uint64_t documents = 0;
  uint64_t tokens = 0;
  DType dtype = DType::kU16;
  uint8_t code = 0;  // dtype code written in the .idx
  CodeTable table = CodeTable::kMegatron;
};

// Validates the options (BadInput naming the option) and writes
// options.prefix + ".bin"/".idx" through IndexedWriter (so a failed run leaves
// no final files).
Result<GeneratedTokens> WriteTokenDataset(const TokenDatasetOptions& options);

}  // namespace dsanalyze::synth
