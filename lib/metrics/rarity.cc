#include "metrics/rarity.h"

#include <cmath>
#include <limits>
#include <type_traits>

#include "format/indexed_dataset.h"

namespace dsanalyze {

Result<std::vector<double>> TokenRarities(std::span<const int64_t> counts) {
  unsigned __int128 total = 0;  // at most 2^63 · counts.size(): cannot overflow
  for (size_t t = 0; t < counts.size(); ++t) {
    if (counts[t] < 0)
      return Status::BadInput("total_vocab_freq: token " + std::to_string(t) + " has count " +
                              std::to_string(counts[t]) + "; counts cannot be negative");
    total += counts[t] == 0 ? 1 : static_cast<uint64_t>(counts[t]);
  }
  const double sum = static_cast<double>(total);
  std::vector<double> rarity(counts.size());
  for (size_t t = 0; t < counts.size(); ++t) {
    const double freq = counts[t] == 0 ? 1.0 : static_cast<double>(counts[t]);
    rarity[t] = -std::log(freq / sum);
  }
  return rarity;
}

Result<int64_t> SeqlenCoefficient(uint64_t seq_length, double max_rarity) {
  const double x = static_cast<double>(seq_length) * max_rarity;
  const double exponent = x <= 1 ? 1 : std::ceil(std::log(x) / std::log(10.0)) + 1;
  constexpr int kMaxExponent = 18;  // 10^18 < 2^63 < 10^19
  if (!(exponent <= kMaxExponent))
    return Status::BadInput("seqlen_vocab_rarity: the seqlen coefficient 10^" +
                            std::to_string(static_cast<int64_t>(exponent)) + " (from seq_length " +
                            std::to_string(seq_length) + " x largest token rarity " +
                            std::to_string(max_rarity) + ") does not fit in int64");
  int64_t c = 1;
  for (int i = 0; i < static_cast<int>(exponent); ++i) c *= 10;
  return c;
}

Result<std::vector<int64_t>> ReadVocabCounts(const std::string& prefix, uint64_t vocab_size) {
  DSA_ASSIGN_OR_RETURN(IndexedDataset file, IndexedDataset::Open(prefix));
  if (file.num_rows() != 1)
    return Status::BadInput(prefix + ".idx: holds " + std::to_string(file.num_rows()) +
                            " rows; a total_vocab_freq metric_value file has exactly one");
  const ElementView row = file.row(0);
  if (row.count != vocab_size + 1)
    return Status::BadInput(prefix + ".idx: its row has " + std::to_string(row.count) +
                            " counts, but vocab_size " + std::to_string(vocab_size) + " needs " +
                            std::to_string(vocab_size + 1) + " (ids 0.." +
                            std::to_string(vocab_size) + ")");
  std::vector<int64_t> counts(row.count);
  Status st;
  VisitIntDType(row.dtype, [&](auto zero) {
    using T = decltype(zero);
    const std::span<const T> values = row.as<T>();
    for (size_t t = 0; t < values.size() && st.ok(); ++t) {
      bool bad = false;
      if constexpr (std::is_signed_v<T>) bad = values[t] < 0;
      if constexpr (std::is_same_v<T, uint64_t>)
        bad = values[t] > static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
      if (bad)
        st = Status::BadInput(prefix + ".bin: the count of token " + std::to_string(t) + " is " +
                              std::to_string(values[t]) + ", not a count in [0, 2^63)");
      counts[t] = static_cast<int64_t>(values[t]);
    }
  });
  DSA_RETURN_IF_ERROR(st);
  return counts;
}

}  // namespace dsanalyze
