#include "synth/token_generator.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <filesystem>
#include <limits>
#include <memory>

#include "format/indexed_writer.h"
#include "format/vocab.h"
#include "util/splitmix64.h"

namespace dsanalyze::synth {
namespace {

constexpr double kLn2 = 0.69314718055994530942;
constexpr double kSqrtHalf = 0.70710678118654752440;

// Tokens generated between two writer calls: enough that per-call costs
// vanish, few enough (512 KB of int64) that the block stays in cache while the
// writer narrows it.
constexpr size_t kBlockTokens = size_t{1} << 16;

}  // namespace

Xoshiro256::Xoshiro256(uint64_t seed) {
  SplitMix64 seeder(seed);
  for (uint64_t& s : s_) s = seeder.Next();
}

uint64_t Xoshiro256::Next() {
  const uint64_t result = std::rotl(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = std::rotl(s_[3], 45);
  return result;
}

uint64_t Xoshiro256::Below(uint64_t n) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(Next()) * n) >> 64);
}

double InversePower(double x, double e) {
  // ln x = k ln2 + ln m with m in [sqrt(1/2), sqrt(2)), and
  // ln m = 2 atanh(s) = 2 (s + s^3/3 + s^5/5 + ...) with s = (m-1)/(m+1), |s| < 0.172.
  int k = 0;
  double m = std::frexp(x, &k);  // exact: x = m 2^k, m in [0.5, 1)
  if (m < kSqrtHalf) {
    m *= 2;
    --k;
  }
  const double s = (m - 1) / (m + 1);
  const double s2 = s * s;
  double power = s, series = 0;
  for (int n = 1; n <= 29; n += 2) {  // s^31 < 2^-78: far below an ulp
    series += power / n;
    power *= s2;
  }
  const double y = -e * (k * kLn2 + 2 * series);
  if (y < -746) return 0;  // below the smallest subnormal
  // e^y = 2^j e^t with t = y - j ln2, |t| <= ln2/2, by Taylor series.
  const double j = std::nearbyint(y / kLn2);
  const double t = y - j * kLn2;
  double term = 1, sum = 1;
  for (int n = 1; n <= 22; ++n) {  // 0.35^23 / 23! < 2^-100
    term *= t / n;
    sum += term;
  }
  return std::ldexp(sum, static_cast<int>(j));  // exact scaling (or correct subnormal rounding)
}

ZipfSampler::ZipfSampler(uint64_t n, double exponent) {
  // Cumulative weights, summed in rank order (deterministic), then scaled to
  // 64-bit thresholds. The last rank takes every draw above the others.
  std::vector<double> cumulative(n);
  double total = 0;
  for (uint64_t r = 0; r < n; ++r) {
    total += InversePower(static_cast<double>(r + 1), exponent);
    cumulative[r] = total;
  }
  constexpr double kTwo64 = 18446744073709551616.0;
  upper_.resize(n);
  for (uint64_t r = 0; r < n; ++r) {
    const double scaled = cumulative[r] / total * kTwo64;
    upper_[r] =
        scaled >= kTwo64 ? std::numeric_limits<uint64_t>::max() : static_cast<uint64_t>(scaled);
  }
  upper_[n - 1] = std::numeric_limits<uint64_t>::max();

  // One guide bucket per rank (rounded up to a power of two), at most 2^22.
  const uint64_t buckets = std::clamp<uint64_t>(std::bit_ceil(n), 2, uint64_t{1} << 22);
  shift_ = 64 - std::countr_zero(buckets);
  guide_.resize(buckets + 1);
  uint64_t r = 0;
  for (uint64_t k = 0; k < buckets; ++k) {
    const uint64_t lowest = k << shift_;
    while (r < n - 1 && upper_[r] <= lowest) ++r;
    guide_[k] = static_cast<uint32_t>(r);
  }
  guide_[buckets] = static_cast<uint32_t>(n - 1);
}

uint64_t ZipfSampler::Sample(uint64_t random) const {
  // The answer lies in [guide_[k], guide_[k+1]]: search the half-open range
  // and fall back to its end.
  const uint64_t k = random >> shift_;
  const auto first = upper_.begin() + guide_[k];
  const auto last = upper_.begin() + guide_[k + 1];
  return static_cast<uint64_t>(std::upper_bound(first, last, random) - upper_.begin());
}

DType TokenDType(uint64_t vocab_size) { return vocab_size <= 65536 ? DType::kU16 : DType::kI32; }

namespace {

Status Validate(const TokenDatasetOptions& o) {
  if (o.prefix.empty()) return Status::BadInput("generate: the output prefix is empty");
  if (o.documents < 1) return Status::BadInput("--documents must be at least 1");
  if (o.vocab_size < 1 || o.vocab_size > kMaxVocabSize)
    return Status::BadInput("--vocab-size " + std::to_string(o.vocab_size) +
                            " is out of range [1, " + std::to_string(kMaxVocabSize) + "]");
  if (o.min_length < 1) return Status::BadInput("--min-length must be at least 1");
  if (o.max_length > kMaxDocumentLength)
    return Status::BadInput("--max-length " + std::to_string(o.max_length) +
                            " exceeds the format's row size limit " +
                            std::to_string(kMaxDocumentLength));
  if (o.min_length > o.max_length)
    return Status::BadInput("--min-length " + std::to_string(o.min_length) +
                            " is greater than --max-length " + std::to_string(o.max_length));
  if (!std::isfinite(o.zipf) || o.zipf < 0)
    return Status::BadInput("--zipf must be a finite number >= 0, got " + std::to_string(o.zipf));
  return Status::OK();
}

}  // namespace

Result<GeneratedTokens> WriteTokenDataset(const TokenDatasetOptions& options) {
  DSA_RETURN_IF_ERROR(Validate(options));
  std::optional<CodeTable> table = CodeTableFromName(options.dtype_codes);
  if (!table)
    return Status::BadInput("--dtype-codes \"" + options.dtype_codes +
                            "\" is not one of megatron, deepspeed, deepspeed-legacy");

  GeneratedTokens out;
  out.table = *table;
  out.dtype = TokenDType(options.vocab_size);
  out.code = *CodeForDType(out.table, out.dtype);  // uint16 and int32 are in every table

  // Like a run's save path, the prefix's folder is made if missing.
  const std::filesystem::path folder = std::filesystem::path(options.prefix).parent_path();
  std::error_code ec;
  if (!folder.empty()) std::filesystem::create_directories(folder, ec);
  if (ec) return Status::IoError(folder.string() + ": cannot create the folder: " + ec.message());

  IndexedWriter::Options wo;
  wo.table = out.table;
  wo.rows = options.documents;
  wo.doc_idx_per_row = true;
  DSA_ASSIGN_OR_RETURN(std::unique_ptr<IndexedWriter> writer,
                       IndexedWriter::Create(options.prefix, out.dtype, wo));

  const ZipfSampler sampler(options.vocab_size, options.zipf);
  Xoshiro256 rng(options.seed);
  const uint64_t length_choices = options.max_length - options.min_length + 1;

  // Tokens go into a block; documents complete in the block are ended after
  // the block is appended. A document longer than the block spans blocks.
  std::vector<int64_t> block(kBlockTokens);
  size_t used = 0;
  std::vector<uint64_t> ended;  // lengths of documents complete in the block
  auto flush = [&]() -> Status {
    DSA_RETURN_IF_ERROR(writer->Append({block.data(), used}));
    for (uint64_t len : ended) DSA_RETURN_IF_ERROR(writer->EndRowOfSize(len));
    used = 0;
    ended.clear();
    return Status::OK();
  };

  for (uint64_t d = 0; d < options.documents; ++d) {
    const uint64_t length = options.min_length + rng.Below(length_choices);
    uint64_t remaining = length;
    while (remaining > 0) {
      const size_t take = static_cast<size_t>(std::min<uint64_t>(remaining, kBlockTokens - used));
      int64_t* out_tokens = block.data() + used;
      for (size_t i = 0; i < take; ++i)
        out_tokens[i] = static_cast<int64_t>(sampler.Sample(rng.Next()));
      used += take;
      remaining -= take;
      if (used == kBlockTokens) DSA_RETURN_IF_ERROR(flush());
    }
    ended.push_back(length);
    out.tokens += length;
  }
  DSA_RETURN_IF_ERROR(flush());
  DSA_RETURN_IF_ERROR(writer->Finish());
  out.documents = options.documents;
  return out;
}

}  // namespace dsanalyze::synth
