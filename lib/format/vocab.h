// The largest vocabulary dsanalyze handles: token ids 0..kMaxVocabSize. One
// limit for a metric's params.vocab_size (docs/config.md) and for generate's
// --vocab-size, so that every corpus generate writes can be analysed.
//
// Why 2^28: a table of int64 counts over the vocabulary (total_vocab_freq's
// accumulator, one per map thread) is then 2 GiB, and every id fits int32.
#pragma once

#include <cstdint>

namespace dsanalyze {

inline constexpr uint64_t kMaxVocabSize = uint64_t{1} << 28;

}  // namespace dsanalyze
