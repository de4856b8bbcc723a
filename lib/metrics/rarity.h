// The arithmetic behind vocab_rarity and seqlen_vocab_rarity, exactly as
// DeepSpeed's curriculum-learning example computes it (Megatron-DeepSpeed,
// examples_deepspeed/data_efficiency/analyze_data.py, run_map):
//
//   freq = total_vocab_freq;  freq[freq == 0] = 1
//   rarity = np.log(freq / sum(freq)) * -1            # float64, per token id
//   vocab_rarity(sample) = int(torch.sum(rarity[tokens]))   # truncated
//   seqlen_coeff = 10 ** (math.ceil(math.log(seq_length * max(rarity), 10)) + 1)
//
// Pure functions; safe from any thread.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "util/status.h"

namespace dsanalyze {

// rarity[t] = -ln(freq[t] / Σfreq) with zero counts taken as 1: each count
// converted to double, Σfreq summed exactly (as an integer) and converted once,
// then one correctly rounded division and glibc's log. `counts` must be
// non-negative (an error names the first negative entry).
Result<std::vector<double>> TokenRarities(std::span<const int64_t> counts);

// The coefficient C of seqlen_vocab_rarity = seqlen · C + vocab_rarity:
// 10^(ceil(log(x) / log(10)) + 1) with x = seq_length · max_rarity in double,
// which is Python's math.log(x, 10). It is not log10: for x just above a
// power of ten they round differently (x = 10.000000000000004 gives C = 100
// here, 1000 with log10). It makes C larger than any sample's vocab_rarity, so
// the metric orders by seqlen first. When x <= 1 (every rarity below 1),
// C = 10. An exponent past 18 does not fit int64 and is an error.
Result<int64_t> SeqlenCoefficient(uint64_t seq_length, double max_rarity);

// Reads a total_vocab_freq_metric_value file (PREFIX.idx/.bin, deepspeed dtype
// codes, as dsanalyze and DeepSpeed write it): exactly one row of
// vocab_size + 1 non-negative counts. Errors name the file.
Result<std::vector<int64_t>> ReadVocabCounts(const std::string& prefix, uint64_t vocab_size);

}  // namespace dsanalyze
