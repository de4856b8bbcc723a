// Sort keys for (metric value, sample id) pairs.
//
// A pair is encoded as an unsigned key whose integer order is the pair's
// lexicographic order: value offset (value - value_min) in the high bits, id
// offset (id - id_min) in the low bits. When both offsets fit in 64 bits
// together (the usual case: 14 value bits + 24 id bits for 10M samples with
// values < 10000) the key is a plain uint64_t, 8 bytes a pair; otherwise it is
// a 16-byte WideKey. Either way the sort, exchange and merge move keys only.
#pragma once

#include <bit>
#include <cstdint>

namespace dsanalyze {

using u128 = unsigned __int128;

struct WideKey {
  uint64_t hi;  // value offset
  uint64_t lo;  // id offset
  friend bool operator<(const WideKey& a, const WideKey& b) {
    return a.hi != b.hi ? a.hi < b.hi : a.lo < b.lo;
  }
  friend bool operator==(const WideKey& a, const WideKey& b) = default;
};

// Number of bits needed for offsets 0..span (span = max - min as unsigned).
inline unsigned BitsFor(uint64_t span) { return static_cast<unsigned>(std::bit_width(span)); }

// Shared by both key types: the value/id ranges the keys are relative to.
struct KeyLayout {
  int64_t value_min = 0;
  int64_t id_min = 0;
  unsigned value_bits = 0;
  unsigned id_bits = 0;
  bool fits_u64() const { return value_bits + id_bits <= 64; }
  unsigned total_bits() const { return value_bits + id_bits; }
  // Significant bits of a key: of the uint64_t, or of the WideKey (whose id
  // half is always 64 bits).
  unsigned key_bits() const { return fits_u64() ? total_bits() : 64 + value_bits; }
};

// A closed range [min, max] of values or of ids.
struct KeyBounds {
  int64_t min = 0;
  int64_t max = 0;
};

// Keys for values in `values` and ids in `ids`.
inline KeyLayout MakeKeyLayout(KeyBounds values, KeyBounds ids) {
  KeyLayout layout;
  layout.value_min = values.min;
  layout.id_min = ids.min;
  layout.value_bits =
      BitsFor(static_cast<uint64_t>(values.max) - static_cast<uint64_t>(values.min));
  layout.id_bits = BitsFor(static_cast<uint64_t>(ids.max) - static_cast<uint64_t>(ids.min));
  return layout;
}

template <class Key>
struct KeyCodec;

template <>
struct KeyCodec<uint64_t> {
  KeyLayout layout;
  uint64_t Encode(int64_t value, int64_t id) const {
    const uint64_t v = static_cast<uint64_t>(value) - static_cast<uint64_t>(layout.value_min);
    const uint64_t i = static_cast<uint64_t>(id) - static_cast<uint64_t>(layout.id_min);
    return layout.id_bits >= 64 ? i : (v << layout.id_bits) | i;
  }
  int64_t Value(uint64_t k) const {
    const uint64_t v = layout.id_bits >= 64 ? 0 : k >> layout.id_bits;
    return static_cast<int64_t>(v + static_cast<uint64_t>(layout.value_min));
  }
  int64_t Id(uint64_t k) const {
    const uint64_t mask = layout.id_bits >= 64 ? ~0ULL : (1ULL << layout.id_bits) - 1;
    return static_cast<int64_t>((k & mask) + static_cast<uint64_t>(layout.id_min));
  }
  // The value offset alone: equal for keys of equal value.
  uint64_t ValueOffset(uint64_t k) const { return layout.id_bits >= 64 ? 0 : k >> layout.id_bits; }
  static uint64_t FromOrdinal(u128 o) { return static_cast<uint64_t>(o); }
  static u128 Ordinal(uint64_t k) { return k; }
};

template <>
struct KeyCodec<WideKey> {
  KeyLayout layout;
  WideKey Encode(int64_t value, int64_t id) const {
    return {static_cast<uint64_t>(value) - static_cast<uint64_t>(layout.value_min),
            static_cast<uint64_t>(id) - static_cast<uint64_t>(layout.id_min)};
  }
  int64_t Value(const WideKey& k) const {
    return static_cast<int64_t>(k.hi + static_cast<uint64_t>(layout.value_min));
  }
  int64_t Id(const WideKey& k) const {
    return static_cast<int64_t>(k.lo + static_cast<uint64_t>(layout.id_min));
  }
  uint64_t ValueOffset(const WideKey& k) const { return k.hi; }
  static WideKey FromOrdinal(u128 o) {
    return {static_cast<uint64_t>(o >> 64), static_cast<uint64_t>(o)};
  }
  static u128 Ordinal(const WideKey& k) { return (u128{k.hi} << 64) | k.lo; }
};

}  // namespace dsanalyze
