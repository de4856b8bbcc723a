#include "metrics/builtin_metrics.h"

#include <catch2/catch.hpp>
#include <limits>
#include <optional>
#include <random>

#include "dataset/open_dataset.h"
#include "metrics/batch_builder.h"
#include "util/checked_add.h"

namespace dsanalyze {
namespace {

using test::OwnedBatch;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

TEST_CASE("MetricTypeName uses DeepSpeed's spelling", "[metrics]") {
  CHECK(MetricTypeName(MetricType::kSingleValuePerSample) == "single_value_per_sample");
  CHECK(MetricTypeName(MetricType::kAccumulateValueOverSamples) == "accumulate_value_over_samples");
}

TEST_CASE("value: the single integer of each sample, for every integer dtype", "[metrics]") {
  std::unique_ptr<Metric> m = NewValueMetric("mod");
  CHECK(m->type() == MetricType::kSingleValuePerSample);
  CHECK(m->needs_elements());
  std::vector<int64_t> out(3);

  OwnedBatch<int64_t> i64(10, DType::kI64, {{-5}, {kMax}, {0}});
  REQUIRE(m->Compute(i64.batch, out).ok());
  CHECK(out == std::vector<int64_t>{-5, kMax, 0});

  OwnedBatch<uint16_t> u16(0, DType::kU16, {{65535}, {1}, {2}});
  REQUIRE(m->Compute(u16.batch, out).ok());
  CHECK(out == std::vector<int64_t>{65535, 1, 2});

  OwnedBatch<int8_t> i8(0, DType::kI8, {{-128}, {127}, {-1}});
  REQUIRE(m->Compute(i8.batch, out).ok());
  CHECK(out == std::vector<int64_t>{-128, 127, -1});

  OwnedBatch<uint64_t> u64(0, DType::kU64, {{7}, {uint64_t{1} << 63}, {1}});
  Status st = m->Compute(u64.batch, out);
  CHECK(st.code() == Status::Code::kBadInput);
  CHECK(st.message() ==
        "metric \"mod\": sample 1 has value 9223372036854775808, which does not fit in int64");
}

TEST_CASE("value: a sample without exactly one element is an error naming it", "[metrics]") {
  std::unique_ptr<Metric> m = NewValueMetric("mod");
  std::vector<int64_t> out(3);
  OwnedBatch<int32_t> two(100, DType::kI32, {{1}, {2}, {3, 4}});
  Status st = m->Compute(two.batch, out);
  CHECK(st.code() == Status::Code::kBadInput);
  CHECK(st.message() ==
        "metric \"mod\": sample 102 has 2 elements, but this metric needs exactly one per sample");
  OwnedBatch<int32_t> empty(7, DType::kI32, {{}, {2}, {3}});
  CHECK(m->Compute(empty.batch, out).message() ==
        "metric \"mod\": sample 7 has 0 elements, but this metric needs exactly one per sample");
  // Wrong output size is the caller's bug.
  std::vector<int64_t> short_out(2);
  CHECK(m->Compute(empty.batch, short_out).code() == Status::Code::kInternal);
  // value is not an accumulate metric.
  int64_t acc = 0;
  CHECK(m->Accumulate(empty.batch, std::span<int64_t>(&acc, 1)).code() == Status::Code::kInternal);
}

// What ExtractSingleValues must give, worked out sample by sample: the
// values, or else the first sample that has other than one element.
struct OneByOne {
  std::vector<int64_t> values;
  std::optional<uint64_t> bad_sample;
};

OneByOne ValuesOneByOne(const SampleBatch& b) {
  OneByOne r;
  const auto* elements = reinterpret_cast<const int32_t*>(b.elements);
  for (size_t i = 0; i < b.size(); ++i) {
    if (b.length(i) != 1) return {{}, b.first + i};
    r.values.push_back(elements[b.offsets[i]]);
  }
  return r;
}

TEST_CASE("value: any batch gives what sample-by-sample extraction gives", "[metrics]") {
  std::unique_ptr<Metric> m = NewValueMetric("mod");
  std::mt19937_64 rng(5);
  for (int round = 0; round < 300; ++round) {
    const size_t n = 1 + rng() % 600;
    std::vector<std::vector<int32_t>> rows(n);
    for (auto& row : rows) row = {static_cast<int32_t>(rng())};
    // Most batches are one element a sample; others break it once, some with
    // lengths (2 and 0) that keep the element count of a batch of n.
    const size_t at = rng() % n;
    if (round % 3 == 1) rows[at].push_back(1);
    if (round % 3 == 2 && at + 1 < n) {
      rows[at].push_back(1);
      rows[at + 1].clear();
    }
    OwnedBatch<int32_t> owned(1000, DType::kI32, rows);
    // A batch that starts inside a reader's buffer: offsets[0] > 0.
    SampleBatch b = owned.batch;
    const size_t skip = rng() % n;
    b.first += skip;
    b.offsets = b.offsets.subspan(skip);
    std::vector<int64_t> out(b.size());
    const Status st = m->Compute(b, out);
    const OneByOne expected = ValuesOneByOne(b);
    if (!expected.bad_sample) {
      REQUIRE(st.ok());
      CHECK(out == expected.values);
      continue;
    }
    CHECK(st.message() == "metric \"mod\": sample " + std::to_string(*expected.bad_sample) +
                              " has " + std::to_string(b.length(*expected.bad_sample - b.first)) +
                              " elements, but this metric needs exactly one per sample");
  }
}

TEST_CASE("value: over synthetic_mod batches", "[metrics]") {
  DatasetConfig c;
  c.type = SyntheticModConfig{.num_samples = 20000};
  Result<std::unique_ptr<Dataset>> ds = OpenDataset(c);
  REQUIRE(ds.ok());
  std::unique_ptr<SampleReader> r = (*ds)->NewReader();
  std::unique_ptr<Metric> m = NewValueMetric("mod");
  SampleBatch b;
  std::vector<int64_t> out(1024);
  REQUIRE(r->Read(9000, 10024, true, &b).ok());
  REQUIRE(m->Compute(b, out).ok());
  for (size_t i = 0; i < out.size(); ++i)
    CHECK(out[i] == static_cast<int64_t>((9000 + i + 7) % 10000));
}

TEST_CASE("sum: accumulates the samples' values over batches", "[metrics]") {
  std::unique_ptr<Metric> m = NewSumMetric("batch_sum");
  CHECK(m->type() == MetricType::kAccumulateValueOverSamples);
  CHECK(m->accumulate_length() == 1);
  int64_t acc = 0;
  std::span<int64_t> accs(&acc, 1);
  OwnedBatch<int16_t> a(0, DType::kI16, {{3}, {-10}, {32767}});
  OwnedBatch<uint32_t> b(3, DType::kU32, {{4000000000u}, {1}});
  REQUIRE(m->Accumulate(a.batch, accs).ok());
  CHECK(acc == 32760);
  REQUIRE(m->Accumulate(b.batch, accs).ok());
  CHECK(acc == 32760 + 4000000001);

  // A batch larger than the internal chunk: the seed benchmark's sum for N = 100,000.
  DatasetConfig c;
  c.type = SyntheticModConfig{.num_samples = 100000};
  Result<std::unique_ptr<Dataset>> ds = OpenDataset(c);
  REQUIRE(ds.ok());
  std::unique_ptr<SampleReader> r = (*ds)->NewReader();
  SampleBatch batch;
  acc = 0;
  for (uint64_t begin = 0; begin < 100000; begin += 1500) {
    REQUIRE(r->Read(begin, std::min<uint64_t>(begin + 1500, 100000), true, &batch).ok());
    REQUIRE(m->Accumulate(batch, accs).ok());
  }
  CHECK(acc == 499950000);  // golden batch_sum; DeepSpeed's float32 sum gets 499950016
}

TEST_CASE("sum: int64 overflow is an error naming the sample", "[metrics]") {
  std::unique_ptr<Metric> m = NewSumMetric("total");
  int64_t acc = 0;
  std::span<int64_t> accs(&acc, 1);
  std::vector<std::vector<int64_t>> rows(700, {0});
  rows[600] = {kMax};
  rows[650] = {1};
  OwnedBatch<int64_t> big(1000, DType::kI64, rows);
  Status st = m->Accumulate(big.batch, accs);
  CHECK(st.code() == Status::Code::kBadInput);
  CHECK(st.message() == "metric \"total\": the sum overflows int64 at sample 1650");

  acc = std::numeric_limits<int64_t>::min();
  OwnedBatch<int8_t> neg(5, DType::kI8, {{0}, {-1}});
  CHECK(m->Accumulate(neg.batch, accs).message() ==
        "metric \"total\": the sum overflows int64 at sample 6");

  acc = 0;
  OwnedBatch<int8_t> two(0, DType::kI8, {{1, 2}});
  CHECK(m->Accumulate(two.batch, accs).message() ==
        "metric \"total\": sample 0 has 2 elements, but this metric needs exactly one per sample");
  std::vector<int64_t> wide(2);
  CHECK(m->Accumulate(neg.batch, wide).code() == Status::Code::kInternal);
  CHECK(m->Compute(neg.batch, wide).code() == Status::Code::kInternal);
}

TEST_CASE("sum: the same total, or the same overflowing sample, as adding one value at a time",
          "[metrics]") {
  std::unique_ptr<Metric> m = NewSumMetric("total");
  std::mt19937_64 rng(9);
  // Magnitudes around the bounds below which values are added unchecked.
  const int64_t magnitudes[] = {
      1000, (int64_t{1} << 51) - 1, int64_t{1} << 51, (int64_t{1} << 51) + 1, int64_t{1} << 60,
      kMax};
  const int64_t starts[] = {0,        int64_t{1} << 62,        (int64_t{1} << 62) + 1,
                            kMax - 3, -(int64_t{1} << 62) - 1, std::numeric_limits<int64_t>::min()};
  for (int round = 0; round < 400; ++round) {
    const int64_t magnitude = magnitudes[rng() % std::size(magnitudes)];
    std::vector<std::vector<int64_t>> rows(1 + rng() % 1500);
    for (auto& row : rows) {
      const int64_t v = static_cast<int64_t>(rng() % static_cast<uint64_t>(magnitude));
      row = {rng() % 2 ? v : -v};
    }
    if (rng() % 4 == 0) rows[rng() % rows.size()] = {rng() % 2 ? kMax : -kMax};
    const int64_t start = starts[rng() % std::size(starts)];
    int64_t expected = start;
    std::optional<size_t> overflow;
    for (size_t i = 0; i < rows.size() && !overflow; ++i)
      if (!AddChecked(&expected, rows[i][0])) overflow = i;
    OwnedBatch<int64_t> b(100, DType::kI64, rows);
    int64_t acc = start;
    const Status st = m->Accumulate(b.batch, std::span<int64_t>(&acc, 1));
    if (overflow) {
      CHECK(st.message() == "metric \"total\": the sum overflows int64 at sample " +
                                std::to_string(100 + *overflow));
    } else {
      REQUIRE(st.ok());
      CHECK(acc == expected);
    }
  }
}

TEST_CASE("seqlen: sample lengths, without elements when nothing is ignored", "[metrics]") {
  std::unique_ptr<Metric> m = NewSeqlenMetric("seqlen", {});
  CHECK(m->type() == MetricType::kSingleValuePerSample);
  CHECK_FALSE(m->needs_elements());
  SampleBatch lengths_only;
  const std::vector<uint64_t> offsets = {5, 8, 8, 20};  // offsets need not start at 0
  lengths_only.dtype = DType::kU16;
  lengths_only.offsets = offsets;
  std::vector<int64_t> out(3);
  REQUIRE(m->Compute(lengths_only, out).ok());
  CHECK(out == std::vector<int64_t>{3, 0, 12});
}

TEST_CASE("seqlen: ignored token ids are not counted", "[metrics]") {
  std::vector<int64_t> out(3);
  SECTION("a small id range (dense table)") {
    const std::vector<int64_t> ignore = {0, 2};
    std::unique_ptr<Metric> m = NewSeqlenMetric("len", ignore);
    CHECK(m->needs_elements());
    OwnedBatch<uint16_t> b(0, DType::kU16, {{0, 1, 2, 3}, {}, {2, 2, 65535}});
    REQUIRE(m->Compute(b.batch, out).ok());
    CHECK(out == std::vector<int64_t>{2, 0, 1});
  }
  SECTION("a wide id range (binary search), negative ids, uint64 values") {
    const std::vector<int64_t> ignore = {-1, 7, int64_t{1} << 40};
    std::unique_ptr<Metric> m = NewSeqlenMetric("len", ignore);
    OwnedBatch<int64_t> b(0, DType::kI64, {{-1, 7, 8}, {int64_t{1} << 40, 6}, {-2, kMax}});
    REQUIRE(m->Compute(b.batch, out).ok());
    CHECK(out == std::vector<int64_t>{1, 1, 2});
    // -1 as int64 is 2^64-1 as uint64: not the same token.
    OwnedBatch<uint64_t> u(0, DType::kU64, {{~uint64_t{0}, 7}, {uint64_t{1} << 40}, {}});
    REQUIRE(m->Compute(u.batch, out).ok());
    CHECK(out == std::vector<int64_t>{1, 0, 0});
  }
}

}  // namespace
}  // namespace dsanalyze
