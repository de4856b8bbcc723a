// The token generator behind `dsanalyze generate`: the PRNG, the deterministic
// power function, the Zipf sampler, and the written dataset (determinism,
// Megatron layout, lengths, ids, frequencies, option validation).
#include "synth/token_generator.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "format/indexed_dataset.h"
#include "format/vocab.h"
#include "support/test_util.h"

namespace dsanalyze::synth {
namespace {

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

TokenDatasetOptions SmallOptions(const std::string& prefix) {
  TokenDatasetOptions o;
  o.prefix = prefix;
  o.documents = 300;
  o.vocab_size = 5000;
  o.min_length = 3;
  o.max_length = 900;
  o.seed = 42;
  o.zipf = 1.1;
  return o;
}

uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

}  // namespace

TEST_CASE("Xoshiro256 is xoshiro256** seeded by splitmix64", "[generate]") {
  // Published splitmix64 outputs for seed 0 (Vigna's splitmix64.c) form the
  // state; the outputs follow the xoshiro256** reference code transcribed here.
  uint64_t s[4] = {0xe220a8397b1dcdafULL, 0x6e789e6aa1b965f4ULL, 0x06c45d188009454fULL,
                   0xf88bb8a8724c81ecULL};
  Xoshiro256 rng(0);
  for (int i = 0; i < 5; ++i) {
    const uint64_t want = Rotl(s[1] * 5, 7) * 9;
    const uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = Rotl(s[3], 45);
    CHECK(rng.Next() == want);
  }
  // Below(n) stays below n and covers it.
  Xoshiro256 r2(5);
  std::vector<int> seen(7, 0);
  for (int i = 0; i < 7000; ++i) {
    uint64_t v = r2.Below(7);
    REQUIRE(v < 7);
    ++seen[v];
  }
  for (int c : seen) CHECK(c > 800);
  CHECK(r2.Below(1) == 0);
}

TEST_CASE("InversePower agrees with std::pow", "[generate]") {
  for (double x : {1.0, 2.0, 3.0, 10.0, 255.0, 256.0, 1000.0, 65536.0, 123457.0, 1e7})
    for (double e : {0.0, 0.5, 1.0, 1.1, 2.0, 3.5}) {
      INFO("x " << x << " e " << e);
      const double want = std::pow(x, -e);
      CHECK(std::abs(InversePower(x, e) - want) <= 1e-14 * want);
    }
  CHECK(InversePower(7.0, 0.0) == 1.0);
  CHECK(InversePower(1.0, 2.0) == 1.0);
  CHECK(InversePower(1e6, 200.0) == 0.0);  // underflows
}

TEST_CASE("ZipfSampler inverts the cumulative distribution", "[generate]") {
  for (uint64_t n : {1ull, 2ull, 3ull, 1000ull, 50000ull})
    for (double e : {0.0, 0.5, 1.1, 3.0}) {
      INFO("n " << n << " e " << e);
      const ZipfSampler sampler(n, e);
      CHECK(sampler.Sample(0) == 0);
      CHECK(sampler.Sample(std::numeric_limits<uint64_t>::max()) == n - 1);
      // Independent CDF with std::pow; a draw at fraction u must land on the
      // rank whose CDF interval holds u (skipping draws within rounding of an edge).
      std::vector<double> cdf(n);
      double total = 0;
      for (uint64_t r = 0; r < n; ++r) cdf[r] = (total += std::pow(r + 1.0, -e));
      for (double& c : cdf) c /= total;
      Xoshiro256 rng(n * 31 + static_cast<uint64_t>(e * 10));
      for (int i = 0; i < 20000; ++i) {
        const uint64_t x = rng.Next();
        const uint64_t r = sampler.Sample(x);
        REQUIRE(r < n);
        const double u = std::ldexp(static_cast<double>(x), -64);
        const double lo = r == 0 ? 0.0 : cdf[r - 1];
        const double hi = cdf[r];
        if (u < lo - 1e-12 || u > hi + 1e-12) FAIL("draw " << u << " gave rank " << r);
      }
    }
}

TEST_CASE("generate is deterministic for a seed", "[generate]") {
  test::ScratchDir dir;
  auto run = [&](const std::string& name, uint64_t seed) {
    TokenDatasetOptions o = SmallOptions(dir / name);
    o.seed = seed;
    auto r = WriteTokenDataset(o);
    INFO(r.status().message());
    REQUIRE(r.ok());
  };
  run("a", 42);
  run("b", 42);
  run("c", 43);
  CHECK(test::ReadBytes(dir / "a.bin") == test::ReadBytes(dir / "b.bin"));
  CHECK(test::ReadBytes(dir / "a.idx") == test::ReadBytes(dir / "b.idx"));
  CHECK(test::ReadBytes(dir / "a.bin") != test::ReadBytes(dir / "c.bin"));
  CHECK(test::ReadBytes(dir / "a.idx") != test::ReadBytes(dir / "c.idx"));  // other lengths
}

TEST_CASE("generated dataset is a Megatron token dataset with Zipf-like ids", "[generate]") {
  test::ScratchDir dir;
  TokenDatasetOptions o = SmallOptions(dir / "t");
  auto r = WriteTokenDataset(o);
  REQUIRE(r.ok());
  CHECK(r->documents == 300);
  CHECK(r->dtype == DType::kU16);
  CHECK(r->code == 8);
  CHECK(test::ReadBytes(dir / "t.idx")[17] == 8);

  auto ds = IndexedDataset::Open(dir / "t", {CodeTable::kMegatron, true});
  INFO(ds.status().message());
  REQUIRE(ds.ok());
  CHECK(ds->dtype() == DType::kU16);
  CHECK(ds->num_rows() == 300);
  CHECK(ds->num_elements() == r->tokens);
  REQUIRE(ds->doc_count() == 301);
  for (uint64_t i = 0; i <= 300; ++i) CHECK(ds->doc_idx(i) == static_cast<int64_t>(i));

  int32_t shortest = std::numeric_limits<int32_t>::max(), longest = 0;
  for (uint64_t i = 0; i < 300; ++i) {
    shortest = std::min(shortest, ds->row_size(i));
    longest = std::max(longest, ds->row_size(i));
  }
  CHECK(shortest >= 3);
  CHECK(longest <= 900);
  CHECK(longest - shortest > 600);  // uniform over [3, 900]: 300 draws spread out
  const double mean = static_cast<double>(r->tokens) / 300;
  CHECK(mean > 400);
  CHECK(mean < 500);

  std::vector<uint64_t> freq(o.vocab_size, 0);
  for (uint16_t t : ds->elements().as<uint16_t>()) {
    REQUIRE(t < o.vocab_size);
    ++freq[t];
  }
  CHECK(std::max_element(freq.begin(), freq.end()) - freq.begin() == 0);
  for (int k = 0; k < 4; ++k) CHECK(freq[k] > freq[k + 1]);
  // P(0)/P(1) = 2^1.1 = 2.14, P(0)/P(3) = 4^1.1 = 4.59.
  CHECK(static_cast<double>(freq[0]) / freq[1] == Approx(std::pow(2.0, 1.1)).epsilon(0.08));
  CHECK(static_cast<double>(freq[0]) / freq[3] == Approx(std::pow(4.0, 1.1)).epsilon(0.1));
}

TEST_CASE("generate picks int32 for large vocabularies and honours the code table", "[generate]") {
  test::ScratchDir dir;
  TokenDatasetOptions o = SmallOptions(dir / "w");
  o.vocab_size = 70000;
  o.zipf = 0.3;  // flat enough that ids above 65535 appear
  auto r = WriteTokenDataset(o);
  REQUIRE(r.ok());
  CHECK(r->dtype == DType::kI32);
  CHECK(test::ReadBytes(dir / "w.idx")[17] == 4);
  auto ds = IndexedDataset::Open(dir / "w", {CodeTable::kMegatron, true});
  REQUIRE(ds.ok());
  int32_t max_id = 0;
  for (int32_t t : ds->elements().as<int32_t>()) {
    REQUIRE(t >= 0);
    max_id = std::max(max_id, t);
  }
  CHECK(max_id < 70000);
  CHECK(max_id > 65535);

  CHECK(TokenDType(65536) == DType::kU16);
  CHECK(TokenDType(65537) == DType::kI32);

  o = SmallOptions(dir / "d");
  o.dtype_codes = "deepspeed";
  o.min_length = o.max_length = 17;
  r = WriteTokenDataset(o);
  REQUIRE(r.ok());
  CHECK(r->code == 6);
  CHECK(r->tokens == 17 * 300);
  auto dd = IndexedDataset::Open(dir / "d", {CodeTable::kDeepSpeed, true});
  REQUIRE(dd.ok());
  CHECK(dd->dtype() == DType::kU16);
}

TEST_CASE("generate rejects bad options with one clear message", "[generate]") {
  test::ScratchDir dir;
  auto error = [&](auto change) {
    TokenDatasetOptions o = SmallOptions(dir / "x");
    change(o);
    auto r = WriteTokenDataset(o);
    REQUIRE_FALSE(r.ok());
    return r.status();
  };
  Status st = error([](TokenDatasetOptions& o) { o.min_length = 10, o.max_length = 5; });
  CHECK(st.code() == Status::Code::kBadInput);
  CHECK(st.message() == "--min-length 10 is greater than --max-length 5");
  CHECK(error([](TokenDatasetOptions& o) { o.documents = 0; }).message() ==
        "--documents must be at least 1");
  CHECK(error([](TokenDatasetOptions& o) { o.vocab_size = 0; }).message() ==
        "--vocab-size 0 is out of range [1, 268435456]");
  CHECK_THAT(error([](TokenDatasetOptions& o) { o.vocab_size = kMaxVocabSize + 1; }).message(),
             Contains("--vocab-size 268435457 is out of range"));
  CHECK(error([](TokenDatasetOptions& o) { o.min_length = 0; }).message() ==
        "--min-length must be at least 1");
  CHECK(error([](TokenDatasetOptions& o) { o.max_length = 3000000000ull; }).message() ==
        "--max-length 3000000000 exceeds the format's row size limit 2147483647");
  CHECK_THAT(error([](TokenDatasetOptions& o) { o.zipf = -1; }).message(),
             Contains("--zipf must be a finite number >= 0"));
  CHECK_THAT(error([](TokenDatasetOptions& o) { o.zipf = std::nan(""); }).message(),
             Contains("--zipf must be a finite number >= 0"));
  CHECK(error([](TokenDatasetOptions& o) { o.dtype_codes = "numpy"; }).message() ==
        "--dtype-codes \"numpy\" is not one of megatron, deepspeed, deepspeed-legacy");
  CHECK(std::filesystem::is_empty(dir.path()));
  test::WriteBytes(dir / "file", {1, 2, 3});
  Status io = error([&](TokenDatasetOptions& o) { o.prefix = dir / "file/x"; });
  CHECK(io.code() == Status::Code::kIoError);
  CHECK_THAT(io.message(), StartsWith(dir / "file" + ": cannot create the folder: "));
}

TEST_CASE("generate makes the prefix's missing folders", "[generate]") {
  test::ScratchDir dir;
  REQUIRE(WriteTokenDataset(SmallOptions(dir / "a/b/t")).ok());
  REQUIRE(WriteTokenDataset(SmallOptions(dir / "u")).ok());
  CHECK(test::ReadBytes(dir / "a/b/t.bin") == test::ReadBytes(dir / "u.bin"));
  CHECK(test::ReadBytes(dir / "a/b/t.idx") == test::ReadBytes(dir / "u.idx"));
}

}  // namespace dsanalyze::synth
