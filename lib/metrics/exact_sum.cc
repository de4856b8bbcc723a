#include "metrics/exact_sum.h"

#include <cassert>
#include <cmath>
#include <string>

namespace dsanalyze {
namespace {

constexpr int kMantissaBits = 53;
constexpr int kTermBits = 128;

// Bits [shift, shift + 64) of the 192-bit number w[0] + w[1]·2^64 + w[2]·2^128.
uint64_t BitsFrom(const uint64_t (&w)[3], int shift) {
  const int q = shift / 64, r = shift % 64;
  const uint64_t lo = q < 3 ? w[q] : 0;
  const uint64_t hi = q + 1 < 3 ? w[q + 1] : 0;
  return r == 0 ? lo : (lo >> r) | (hi << (64 - r));
}

// True if any of the bits below position `shift` is set.
bool AnyBitBelow(const uint64_t (&w)[3], int shift) {
  const int q = shift / 64, r = shift % 64;
  for (int i = 0; i < q; ++i)
    if (w[i] != 0) return true;
  return r != 0 && (w[q] & ((uint64_t{1} << r) - 1)) != 0;
}

int TopBit(const uint64_t (&w)[3]) {
  for (int i = 2; i >= 0; --i)
    if (w[i] != 0) return 64 * i + 63 - __builtin_clzll(w[i]);
  return -1;
}

}  // namespace

Result<FixedPointScale> ScaleFor(std::span<const double> values) {
  int frac_bits = 0;
  int top = 0;  // values < 2^top
  for (double v : values) {
    if (!std::isfinite(v) || v < 0)
      return Status::Internal("exact sum: term " + std::to_string(v) +
                              " is not a finite non-negative number");
    if (v == 0) continue;
    int exponent = 0;
    std::frexp(v, &exponent);  // v = m · 2^exponent, 0.5 <= m < 1
    // The lowest bit v can have set is 2^(exponent - 53).
    frac_bits = std::max(frac_bits, kMantissaBits - exponent);
    top = std::max(top, exponent);
  }
  if (top + frac_bits > kTermBits)
    return Status::Internal("exact sum: terms span more than " + std::to_string(kTermBits) +
                            " bits (2^" + std::to_string(top) + " down to 2^-" +
                            std::to_string(frac_bits) + ")");
  return FixedPointScale{frac_bits};
}

Units ToUnits(double value, FixedPointScale scale) {
  if (value == 0) return 0;
  int exponent = 0;
  const double m = std::frexp(value, &exponent);
  // value = mantissa · 2^(exponent - 53), with a 53-bit integer mantissa.
  const auto mantissa = static_cast<uint64_t>(std::ldexp(m, kMantissaBits));
  const int shift = exponent - kMantissaBits + scale.frac_bits;
  assert(shift >= 0 && shift + kMantissaBits <= kTermBits);
  return Units{mantissa} << shift;
}

WordTable WordTable::From(std::span<const Units> terms) {
  Units all = 0;
  for (Units t : terms) all |= t;
  WordTable table;
  table.count = (all >> 64) == 0 ? 1 : 2;
  table.words.resize(terms.size() * table.count);
  for (size_t t = 0; t < terms.size(); ++t)
    for (int w = 0; w < table.count; ++w)
      table.words[t * table.count + w] = static_cast<uint64_t>(terms[t] >> (64 * w));
  return table;
}

void ExactSum::AddWordSums(std::span<const Units> word_sums) {
  assert(word_sums.size() <= 2);
  if (!word_sums.empty()) Add(word_sums[0]);
  if (word_sums.size() == 2) {  // bits 64 and up: the low 64 in low_, the rest in high_
    Add(word_sums[1] << 64);
    high_ += static_cast<uint64_t>(word_sums[1] >> 64);
  }
}

double ExactSum::ToDouble(FixedPointScale scale) const {
  const uint64_t w[3] = {static_cast<uint64_t>(low_), static_cast<uint64_t>(low_ >> 64), high_};
  const int top = TopBit(w);
  if (top < kMantissaBits)  // exact in a double already
    return std::ldexp(static_cast<double>(w[0]), -scale.frac_bits);
  // Keep the 53 bits from `top` down; round on the bits below.
  int shift = top - (kMantissaBits - 1);
  uint64_t mantissa = BitsFrom(w, shift) & ((uint64_t{1} << kMantissaBits) - 1);
  const bool round_bit = (BitsFrom(w, shift - 1) & 1) != 0;
  const bool sticky = AnyBitBelow(w, shift - 1);
  if (round_bit && (sticky || (mantissa & 1))) {
    ++mantissa;
    if (mantissa == uint64_t{1} << kMantissaBits) {
      mantissa >>= 1;
      ++shift;
    }
  }
  return std::ldexp(static_cast<double>(mantissa), shift - scale.frac_bits);
}

}  // namespace dsanalyze
