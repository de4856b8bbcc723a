#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <random>

#include "dataset/open_dataset.h"
#include "format/indexed_dataset.h"
#include "format/indexed_writer.h"
#include "format/vocab.h"
#include "metrics/batch_builder.h"
#include "metrics/builtin_metrics.h"
#include "metrics/exact_sum.h"
#include "metrics/rarity.h"
#include "metrics/registry.h"
#include "metrics/word_sums.h"
#include "support/test_util.h"

namespace dsanalyze {
namespace {

using test::OwnedBatch;

std::unique_ptr<Metric> RarityWithCounts(std::vector<int64_t> counts, bool with_seqlen = false,
                                         uint64_t seq_length = 0,
                                         std::span<const int64_t> ignore = {}) {
  VocabRarityOptions o;
  o.name = with_seqlen ? "svr" : "vr";
  o.vocab_size = counts.size() - 1;
  o.counts = std::move(counts);
  o.with_seqlen = with_seqlen;
  o.seq_length = seq_length;
  o.ignore_token_ids = ignore;
  Result<std::unique_ptr<Metric>> m = NewVocabRarityMetric(o);
  REQUIRE(m.ok());
  return std::move(m).value();
}

TEST_CASE("total_vocab_freq: counts every token id, for any dtype", "[metrics]") {
  std::unique_ptr<Metric> m = NewTotalVocabFreqMetric("tvf", 4, {});
  CHECK(m->type() == MetricType::kAccumulateValueOverSamples);
  CHECK(m->accumulate_length() == 5);
  std::vector<int64_t> acc(5, 0);
  OwnedBatch<uint16_t> a(0, DType::kU16, {{0, 1, 1}, {}, {4, 4, 4}});
  OwnedBatch<int8_t> b(3, DType::kI8, {{2}, {1, 0}});
  REQUIRE(m->Accumulate(a.batch, acc).ok());
  REQUIRE(m->Accumulate(b.batch, acc).ok());
  CHECK(acc == std::vector<int64_t>{2, 3, 1, 0, 3});
}

TEST_CASE("total_vocab_freq: ignored ids are not counted, wherever they are", "[metrics]") {
  const std::vector<int64_t> ignore = {-1, 2, 70000};  // sorted, as datasets give them
  std::unique_ptr<Metric> m = NewTotalVocabFreqMetric("tvf", 3, ignore);
  std::vector<int64_t> acc(4, 0);
  OwnedBatch<int32_t> batch(0, DType::kI32, {{2, 2, 1, -1}, {70000, 3, 2}});
  REQUIRE(m->Accumulate(batch.batch, acc).ok());
  REQUIRE(m->Accumulate(batch.batch, acc).ok());
  CHECK(acc == std::vector<int64_t>{0, 2, 0, 2});
}

TEST_CASE("total_vocab_freq: a token outside 0..vocab_size names the sample", "[metrics]") {
  std::unique_ptr<Metric> m = NewTotalVocabFreqMetric("tvf", 3, {});
  std::vector<int64_t> acc(4, 0);
  OwnedBatch<uint16_t> high(100, DType::kU16, {{3}, {1, 4}});
  CHECK(m->Accumulate(high.batch, acc).message() ==
        "metric \"tvf\": sample 101 has token 4, outside the vocabulary 0..3 of params.vocab_size "
        "3 (list it in dataset.ignore_token_ids to leave it out)");
  OwnedBatch<int8_t> negative(7, DType::kI8, {{-1}});
  Status st = m->Accumulate(negative.batch, acc);
  CHECK(st.code() == Status::Code::kBadInput);
  CHECK(st.message().find("sample 7 has token -1,") != std::string::npos);
  std::vector<int64_t> wrong(3);
  CHECK(m->Accumulate(high.batch, wrong).code() == Status::Code::kInternal);
}

TEST_CASE("TokenRarities: -ln(freq / total) with zero counts taken as 1", "[metrics]") {
  Result<std::vector<double>> r = TokenRarities(std::vector<int64_t>{0, 1, 3, 0});
  REQUIRE(r.ok());
  // freq = {1, 1, 3, 1}, total 6.
  CHECK(*r == std::vector<double>{-std::log(1.0 / 6), -std::log(1.0 / 6), -std::log(3.0 / 6),
                                  -std::log(1.0 / 6)});
  // One token holding everything has rarity 0.
  CHECK(TokenRarities(std::vector<int64_t>{5})->front() == 0.0);
  CHECK(TokenRarities(std::vector<int64_t>{4, -2}).status().message() ==
        "total_vocab_freq: token 1 has count -2; counts cannot be negative");
}

TEST_CASE("SeqlenCoefficient: Python's math.log(x, 10), not log10", "[metrics]") {
  CHECK(*SeqlenCoefficient(2048, 15.475) == 1000000);  // x = 31692.8: ceil(4.5) + 1 = 6
  CHECK(*SeqlenCoefficient(1, 1000.0) == 10000);       // 2.9999999999999996 -> 3, + 1
  // log(x)/log(10) rounds to exactly 1 where log10 gives 1.0000000000000002.
  CHECK(*SeqlenCoefficient(1, 10.000000000000004) == 100);
  CHECK(*SeqlenCoefficient(3, 0.25) == 10);  // x <= 1
  CHECK(*SeqlenCoefficient(5, 0.0) == 10);
  CHECK(*SeqlenCoefficient(1, 1e17) == 1000000000000000000);  // 10^18 fits
  Result<int64_t> big = SeqlenCoefficient(10, 1e17);
  CHECK(big.status().code() == Status::Code::kBadInput);
  CHECK(big.status().message().find("10^19") != std::string::npos);
}

TEST_CASE("vocab_rarity: the truncated sum of the tokens' rarities", "[metrics]") {
  // freq = {1, 1, 3, 1} of 6 (token 0 and 3 never occur).
  std::unique_ptr<Metric> m = RarityWithCounts({0, 1, 3, 0});
  CHECK(m->type() == MetricType::kSingleValuePerSample);
  CHECK(m->dependencies().empty());
  const double r1 = std::log(6.0), r2 = std::log(2.0);  // -ln(1/6), -ln(3/6)
  OwnedBatch<uint8_t> b(0, DType::kU8, {{1}, {1, 1, 2}, {}, {2, 2, 2, 2, 2}, {3, 0, 1}});
  std::vector<int64_t> out(5);
  REQUIRE(m->Compute(b.batch, out).ok());
  CHECK(out == std::vector<int64_t>{static_cast<int64_t>(r1), static_cast<int64_t>(2 * r1 + r2), 0,
                                    static_cast<int64_t>(5 * r2), static_cast<int64_t>(3 * r1)});
  OwnedBatch<uint8_t> bad(9, DType::kU8, {{1, 4}});
  std::vector<int64_t> one(1);
  CHECK(m->Compute(bad.batch, one).message().find("sample 9 has token 4") != std::string::npos);
}

TEST_CASE("vocab_rarity: ignored tokens add nothing, even outside the vocabulary", "[metrics]") {
  const std::vector<int64_t> ignore = {1, 99};
  std::unique_ptr<Metric> m = RarityWithCounts({0, 1, 3, 0}, false, 0, ignore);
  OwnedBatch<int64_t> b(0, DType::kI64, {{1, 99, 2, 2, 1}, {2}});
  std::vector<int64_t> out(2);
  REQUIRE(m->Compute(b.batch, out).ok());
  CHECK(out == std::vector<int64_t>{1, 0});  // 2 ln 2 = 1.39, where all five would give 6.8
}

TEST_CASE("vocab metrics: samples and batches longer than a piece of 8192 tokens", "[metrics]") {
  // Tokens 0..4 and the ignored 7 (outside the vocabulary) anywhere, in a
  // sample of 20000 tokens (three pieces), then shorter ones.
  const std::vector<int64_t> counts = {5, 0, 17, 1, 1000000};
  const std::vector<int64_t> ignore = {7};
  std::mt19937_64 rng(3);
  std::vector<std::vector<uint16_t>> rows = {std::vector<uint16_t>(20000), {}, {7, 7}, {4, 3}};
  for (uint16_t& t : rows[0]) t = rng() % 7 == 0 ? 7 : rng() % 5;
  rows[1].assign(rows[0].begin() + 9000, rows[0].end());
  OwnedBatch<uint16_t> batch(40, DType::kU16, rows);
  // The reference: each token's exact rarity added one by one.
  Result<std::vector<double>> rarity = TokenRarities(counts);
  REQUIRE(rarity.ok());
  const Result<FixedPointScale> scale = ScaleFor(*rarity);
  REQUIRE(scale.ok());
  std::vector<int64_t> want_counts(5, 0), want(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    ExactSum sum;
    int64_t seqlen = 0;
    for (uint16_t t : rows[i]) {
      if (t == 7) continue;
      ++want_counts[t];
      ++seqlen;
      sum.Add(ToUnits((*rarity)[t], *scale));
    }
    want[i] = seqlen * 10000000 + static_cast<int64_t>(sum.ToDouble(*scale));
  }
  // ln(1000024 / 1) = 13.8, times seq_length 20000: C = 10^(6 + 1).
  std::unique_ptr<Metric> m = RarityWithCounts(counts, true, 20000, ignore);
  std::vector<int64_t> out(rows.size());
  REQUIRE(m->Compute(batch.batch, out).ok());
  CHECK(out == want);
  std::vector<int64_t> acc(5, 0);
  REQUIRE(NewTotalVocabFreqMetric("tvf", 4, ignore)->Accumulate(batch.batch, acc).ok());
  CHECK(acc == want_counts);
  // A bad token in the second piece of the batch, in its second sample.
  rows = {std::vector<uint16_t>(5000, 2), std::vector<uint16_t>(5000, 3)};
  rows[1][4000] = 5;
  OwnedBatch<uint16_t> bad(50, DType::kU16, rows);
  CHECK(NewTotalVocabFreqMetric("tvf", 4, ignore)
            ->Accumulate(bad.batch, acc)
            .message()
            .find("sample 51 has token 5,") != std::string::npos);
  CHECK(m->Compute(bad.batch, std::span<int64_t>(out.data(), 2))
            .message()
            .find("sample 51 has token 5,") != std::string::npos);
}

// Counts `rows` with total_vocab_freq (vocab_size, ignore) and checks them
// against one count a token, ignored ids left out.
template <class T>
void CheckCounts(DType dtype, uint64_t vocab_size, const std::vector<int64_t>& ignore,
                 const std::vector<std::vector<T>>& rows) {
  std::vector<int64_t> want(vocab_size + 1, 0), acc(vocab_size + 1, 0);
  for (const std::vector<T>& row : rows)
    for (T t : row)
      if (!std::binary_search(ignore.begin(), ignore.end(), static_cast<int64_t>(t))) ++want[t];
  OwnedBatch<T> batch(0, dtype, rows);
  REQUIRE(NewTotalVocabFreqMetric("tvf", vocab_size, ignore)->Accumulate(batch.batch, acc).ok());
  CHECK(acc == want);
}

// Rows of `total` tokens in all, of 1 to 999 tokens each, drawn from `draw`.
template <class T, class Draw>
std::vector<std::vector<T>> LongRows(uint64_t total, std::mt19937_64& rng, Draw draw) {
  std::vector<std::vector<T>> rows;
  for (uint64_t done = 0; done < total;) {
    rows.emplace_back(std::min<uint64_t>(total - done, 1 + rng() % 999));
    for (T& t : rows.back()) t = draw();
    done += rows.back().size();
  }
  return rows;
}

TEST_CASE("total_vocab_freq: batches of 2^15 tokens and more, counted in one table", "[metrics]") {
  std::mt19937_64 rng(5);
  // 2^20 + 50000 tokens: two runs of the table. Ignored ids inside the
  // vocabulary (3) and outside it (65535 for uint16, -1 for int16).
  const uint64_t total = (uint64_t{1} << 20) + 50000;
  auto u16 = LongRows<uint16_t>(
      total, rng, [&] { return static_cast<uint16_t>(rng() % 20 == 0 ? 65535 : rng() % 50001); });
  CheckCounts<uint16_t>(DType::kU16, 50000, {3, 65535}, u16);
  CheckCounts<uint16_t>(DType::kU16, 70000, {}, u16);  // every uint16 is an id
  auto i16 = LongRows<int16_t>(
      total, rng, [&] { return static_cast<int16_t>(rng() % 20 == 0 ? -1 : rng() % 30001); });
  CheckCounts<int16_t>(DType::kI16, 30000, {-1, 3}, i16);
  auto u8 = LongRows<uint8_t>(40000, rng, [&] { return static_cast<uint8_t>(rng() % 201); });
  CheckCounts<uint8_t>(DType::kU8, 200, {}, u8);
  auto i8 = LongRows<int8_t>(40000, rng, [&] { return static_cast<int8_t>(rng() % 101); });
  CheckCounts<int8_t>(DType::kI8, 100, {7}, i8);

  // The first id outside the vocabulary that is not ignored names its
  // sample, in the second run and in the first.
  std::vector<int64_t> acc(50001);
  const std::unique_ptr<Metric> m =
      NewTotalVocabFreqMetric("tvf", 50000, std::vector<int64_t>{65535});
  u16[u16.size() - 2].front() = 50001;
  u16.back().back() = 60000;
  OwnedBatch<uint16_t> late(1000, DType::kU16, u16);
  CHECK(m->Accumulate(late.batch, acc)
            .message()
            .find("sample " + std::to_string(1000 + u16.size() - 2) + " has token 50001,") !=
        std::string::npos);
  u16[1].back() = 50002;
  OwnedBatch<uint16_t> early(1000, DType::kU16, u16);
  CHECK(m->Accumulate(early.batch, acc).message().find("sample 1001 has token 50002,") !=
        std::string::npos);
}

TEST_CASE("SumWords: the AVX-512 gathers and the portable loop give the exact sum", "[metrics]") {
  std::mt19937_64 rng(9);
  // Words near 2^64: the 128-bit sum carries, and so do the halves' lanes.
  std::vector<uint64_t> words(size_t{1} << 16);
  for (uint64_t& w : words) w = rng() | (uint64_t{0xFFFF} << 48);
  const bool avx512 = HaveAvx512Gathers();
  auto check = [&](auto zero, uint64_t span) {
    using T = decltype(zero);
    for (uint64_t n : {0, 1, 15, 16, 17, 31, 33, 8192, 9001}) {
      std::vector<T> ids(n);
      Units want = 0;
      for (T& id : ids) {
        id = static_cast<T>(rng() % span);
        want += words[static_cast<size_t>(id)];
      }
      CAPTURE(sizeof(T), n);
      CHECK(SumWordsScalar(ids.data(), n, words.data()) == want);
      CHECK(SumWords(ids.data(), n, words.data()) == want);
      if constexpr (sizeof(T) == 4) {
        if (avx512) CHECK(SumWordsAvx512(ids.data(), n, words.data()) == want);
      }
      if constexpr (sizeof(T) == 2) {
        if (!avx512 || n == 0) continue;
        const auto* u = reinterpret_cast<const uint16_t*>(ids.data());
        CHECK(SumWordsAvx512UpTo(u, n, words.data(), span - 1) == want);
        // One id past the limit, in the gathered part or in the tail.
        for (uint64_t at : {uint64_t{0}, n - 1}) {
          const T kept = ids[at];
          ids[at] = static_cast<T>(span);
          CHECK_FALSE(SumWordsAvx512UpTo(u, n, words.data(), span - 1).has_value());
          ids[at] = kept;
        }
      }
    }
  };
  check(uint16_t{}, 50001);
  check(int16_t{}, 30001);
  check(uint32_t{}, 1000);
  check(int32_t{}, 1000);
  check(uint8_t{}, 200);
  if (!avx512) WARN("no AVX-512 on this CPU: only the portable loop was checked");
}

TEST_CASE("vocab_rarity: 16-bit ids in pieces with and without ignored ids", "[metrics]") {
  // Pieces of 1 to 40 tokens: in some, the ignored 7 (outside the vocabulary)
  // sends the piece to the per-token loop; the others are checked and summed
  // at once. Both must give each token's exact rarity, added one by one.
  const std::vector<int64_t> counts = {5, 0, 17, 1, 1000, 3};
  std::mt19937_64 rng(13);
  std::vector<std::vector<uint16_t>> rows(200);
  for (auto& row : rows) {
    row.resize(1 + rng() % 40);
    for (uint16_t& t : row) t = static_cast<uint16_t>(rng() % 50 == 0 ? 7 : rng() % 6);
  }
  const std::vector<int64_t> ignore = {7};
  const Result<std::vector<double>> rarity = TokenRarities(counts);
  REQUIRE(rarity.ok());
  const Result<FixedPointScale> scale = ScaleFor(*rarity);
  REQUIRE(scale.ok());
  std::vector<int64_t> want(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    ExactSum sum;
    for (uint16_t t : rows[i])
      if (t != 7) sum.Add(ToUnits((*rarity)[t], *scale));
    want[i] = static_cast<int64_t>(sum.ToDouble(*scale));
  }
  std::unique_ptr<Metric> m = RarityWithCounts(counts, false, 0, ignore);
  OwnedBatch<uint16_t> u16(0, DType::kU16, rows);
  std::vector<int64_t> out(rows.size());
  REQUIRE(m->Compute(u16.batch, out).ok());
  CHECK(out == want);
  std::vector<std::vector<int16_t>> signed_rows;
  for (const auto& row : rows) signed_rows.emplace_back(row.begin(), row.end());
  OwnedBatch<int16_t> i16(0, DType::kI16, signed_rows);
  REQUIRE(m->Compute(i16.batch, out).ok());
  CHECK(out == want);
  signed_rows[3].back() = -2;  // a negative id: outside, not ignored
  OwnedBatch<int16_t> bad(0, DType::kI16, signed_rows);
  CHECK(m->Compute(bad.batch, out).message().find("sample 3 has token -2,") != std::string::npos);
}

TEST_CASE("seqlen_vocab_rarity: seqlen * C + vocab_rarity", "[metrics]") {
  const std::vector<int64_t> ignore = {0};
  // max rarity ln 6 = 1.79; seq_length 8: x = 14.3, C = 10^(2+1).
  std::unique_ptr<Metric> m = RarityWithCounts({0, 1, 3, 0}, true, 8, ignore);
  OwnedBatch<uint16_t> b(0, DType::kU16, {{1, 1, 1}, {0, 0, 2}, {}});
  std::vector<int64_t> out(3);
  REQUIRE(m->Compute(b.batch, out).ok());
  CHECK(out == std::vector<int64_t>{3 * 1000 + 5, 1 * 1000 + 0, 0});
  OwnedBatch<uint16_t> long_sample(4, DType::kU16, {std::vector<uint16_t>(9, 2)});
  std::vector<int64_t> one(1);
  CHECK(m->Compute(long_sample.batch, one).message() ==
        "metric \"svr\": sample 4 has 9 tokens, more than params.seq_length 8");
}

TEST_CASE("vocab metrics: dependencies, and results handed over later", "[metrics]") {
  VocabRarityOptions o;
  o.name = "svr";
  o.config_index = 3;
  o.vocab_size = 3;
  o.with_seqlen = true;
  Result<std::unique_ptr<Metric>> created = NewVocabRarityMetric(o);
  REQUIRE(created.ok());
  Metric& m = **created;
  const std::vector<MetricConfig> deps = m.dependencies();
  REQUIRE(deps.size() == 2);
  CHECK(deps[0].metric == "total_vocab_freq");
  CHECK(deps[0].params == nlohmann::json{{"vocab_size", 3}});
  CHECK(deps[0].name == "total_vocab_freq (for svr)");
  CHECK(deps[0].index == 3);
  CHECK(deps[1].metric == "seqlen");
  CHECK(deps[1].params == nlohmann::json::object());

  OwnedBatch<uint8_t> b(0, DType::kU8, {{1, 2}});
  std::vector<int64_t> out(1);
  CHECK(m.Compute(b.batch, out).code() == Status::Code::kInternal);  // not ready yet

  const std::vector<std::vector<int64_t>> wrong = {{1, 2, 3}};
  CHECK(m.SetDependencyResults(wrong).code() == Status::Code::kInternal);
  const std::vector<std::vector<int64_t>> results = {{0, 1, 3, 0}, {0, 20}};
  REQUIRE(m.SetDependencyResults(results).ok());
  REQUIRE(m.Compute(b.batch, out).ok());
  // seq_length 20: x = 20 ln 6 = 35.8, C = 10^3; rarity ln 6 + ln 2 = 2.48.
  CHECK(out[0] == 2 * 1000 + 2);
}

TEST_CASE("registry: vocab params are checked by key path", "[metrics]") {
  DatasetConfig dc;
  dc.type = SyntheticModConfig{.num_samples = 10};
  Result<std::unique_ptr<Dataset>> ds = OpenDataset(dc);
  REQUIRE(ds.ok());
  MetricConfig c;
  c.name = "vr";
  c.metric = "vocab_rarity";
  c.index = 1;
  CHECK(CreateMetric(c, **ds).status().message() ==
        "config: metrics[1].params.vocab_size: required key is missing");
  c.params = {{"vocab_size", 0}};
  CHECK(CreateMetric(c, **ds).status().message() ==
        "config: metrics[1].params.vocab_size: expected a positive integer, got 0");
  c.params = {{"vocab_size", 10}, {"seq_length", 5}};
  CHECK(CreateMetric(c, **ds).status().message() ==
        "config: metrics[1].params: unknown key \"seq_length\"");
  c.params = {{"vocab_size", 10}, {"total_vocab_freq", "/nonexistent/tvf"}};
  Status st = CreateMetric(c, **ds).status();
  CHECK(st.code() == Status::Code::kBadInput);
  CHECK(st.message().rfind("config: metrics[1].params.total_vocab_freq: ", 0) == 0);
  c.metric = "total_vocab_freq";
  c.params = {{"vocab_size", 10}, {"vocab", 5}};
  CHECK(CreateMetric(c, **ds).status().message() ==
        "config: metrics[1].params: unknown key \"vocab\" (did you mean \"vocab_size\"?)");
  c.metric = "seqlen_vocab_rarity";
  c.params = {{"vocab_size", 10}, {"seq_length", 0}};
  CHECK(CreateMetric(c, **ds).status().message() ==
        "config: metrics[1].params.seq_length: expected a positive integer, got 0");
}

TEST_CASE("registry: vocab_size is at most kMaxVocabSize, generate's limit too", "[metrics]") {
  DatasetConfig dc;
  dc.type = SyntheticModConfig{.num_samples = 10};
  Result<std::unique_ptr<Dataset>> ds = OpenDataset(dc);
  REQUIRE(ds.ok());
  MetricConfig c;
  c.name = "tvf";
  c.metric = "total_vocab_freq";
  c.params = {{"vocab_size", kMaxVocabSize + 1}};
  CHECK(CreateMetric(c, **ds).status().message() ==
        "config: metrics[0].params.vocab_size: must be between 1 and 268435456, got 268435457");
  c.params = {{"vocab_size", kMaxVocabSize}};
  Result<std::unique_ptr<Metric>> m = CreateMetric(c, **ds);
  REQUIRE(m.ok());
  CHECK((*m)->accumulate_length() == kMaxVocabSize + 1);
}

TEST_CASE("ReadVocabCounts: one row of vocab_size + 1 counts", "[metrics]") {
  test::ScratchDir dir;
  const std::string prefix = dir / "tvf";
  auto w = IndexedWriter::Create(prefix, DType::kU32);
  REQUIRE(w.ok());
  REQUIRE((*w)->AddRow(std::vector<int64_t>{5, 0, 7}).ok());
  REQUIRE((*w)->Finish().ok());
  Result<std::vector<int64_t>> counts = ReadVocabCounts(prefix, 2);
  REQUIRE(counts.ok());
  CHECK(*counts == std::vector<int64_t>{5, 0, 7});
  CHECK(ReadVocabCounts(prefix, 3).status().message() ==
        prefix + ".idx: its row has 3 counts, but vocab_size 3 needs 4 (ids 0..3)");

  const std::string two = dir / "two";
  auto w2 = IndexedWriter::Create(two, DType::kI8);
  REQUIRE(w2.ok());
  REQUIRE((*w2)->AddRow(std::vector<int64_t>{1}).ok());
  REQUIRE((*w2)->AddRow(std::vector<int64_t>{-1}).ok());
  REQUIRE((*w2)->Finish().ok());
  CHECK(ReadVocabCounts(two, 0).status().message() ==
        two + ".idx: holds 2 rows; a total_vocab_freq metric_value file has exactly one");
}

// The golden set, metric by metric (the whole run is tests/metrics/vocab_golden_test.sh).
struct Golden {
  std::string dir = (test::GoldenDir() / "tokens").string();
  std::unique_ptr<Dataset> dataset;
  Golden() {
    DatasetConfig c;
    c.type = DocumentsConfig{.prefixes = {dir + "/data/tok_d20000_v50000_s1234"},
                             .dtype_codes = CodeTable::kDeepSpeed};
    Result<std::unique_ptr<Dataset>> ds = OpenDataset(c);
    REQUIRE(ds.ok());
    dataset = std::move(ds).value();
  }
  std::vector<int64_t> Row(const std::string& prefix, uint64_t row) {
    Result<IndexedDataset> f = IndexedDataset::Open(dir + "/dda/" + prefix);
    REQUIRE(f.ok());
    std::vector<int64_t> out;
    VisitIntDType(f->dtype(), [&](auto zero) {
      for (auto v : f->typed_row<decltype(zero)>(row)) out.push_back(static_cast<int64_t>(v));
    });
    return out;
  }
  std::vector<int64_t> Scalars(const std::string& prefix) {
    Result<IndexedDataset> f = IndexedDataset::Open(dir + "/dda/" + prefix);
    REQUIRE(f.ok());
    std::vector<int64_t> out;
    VisitIntDType(f->dtype(), [&](auto zero) {
      for (auto v : f->elements().as<decltype(zero)>()) out.push_back(static_cast<int64_t>(v));
    });
    return out;
  }
};

TEST_CASE("vocab metrics over the golden tokens match DeepSpeed's outputs", "[metrics][golden]") {
  Golden g;
  std::unique_ptr<Metric> tvf = NewTotalVocabFreqMetric("tvf", 50000, {});
  std::vector<int64_t> counts(50001, 0);
  std::unique_ptr<SampleReader> reader = g.dataset->NewReader();
  SampleBatch batch;
  const uint64_t n = g.dataset->size();
  for (uint64_t begin = 0; begin < n; begin += 1000) {
    REQUIRE(reader->Read(begin, std::min(n, begin + 1000), true, &batch).ok());
    REQUIRE(tvf->Accumulate(batch, counts).ok());
  }
  CHECK(counts == g.Row("total_vocab_freq/total_vocab_freq_metric_value", 0));

  std::unique_ptr<Metric> vr = RarityWithCounts(counts);
  std::vector<int64_t> rarity(n);
  for (uint64_t begin = 0; begin < n; begin += 1000) {
    const uint64_t end = std::min(n, begin + 1000);
    REQUIRE(reader->Read(begin, end, true, &batch).ok());
    REQUIRE(vr->Compute(batch, std::span<int64_t>(rarity).subspan(begin, end - begin)).ok());
  }
  const std::vector<int64_t> golden = g.Scalars("vocab_rarity/vocab_rarity_sample_to_metric");
  REQUIRE(golden.size() == n);
  uint64_t mismatches = 0;
  for (uint64_t i = 0; i < n; ++i) mismatches += rarity[i] != golden[i];
  CHECK(mismatches == 0);
}

}  // namespace
}  // namespace dsanalyze
