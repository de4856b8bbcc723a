#include <catch2/catch.hpp>
#include <limits>

#include "dataset/open_dataset.h"

namespace dsanalyze {
namespace {

DatasetConfig Synthetic(uint64_t n, int64_t modulus, int64_t offset) {
  DatasetConfig c;
  c.type = SyntheticModConfig{.num_samples = n, .modulus = modulus, .offset = offset};
  return c;
}

std::vector<int64_t> Values(const SampleBatch& b) {
  REQUIRE(b.dtype == DType::kI64);
  std::vector<int64_t> out;
  for (size_t i = 0; i < b.size(); ++i) {
    REQUIRE(b.length(i) == 1);
    out.push_back(b.sample(i).as<int64_t>()[0]);
  }
  return out;
}

TEST_CASE("synthetic_mod: sample x is (x + 7) % 10000", "[dataset]") {
  Result<std::unique_ptr<Dataset>> ds = OpenDataset(Synthetic(100000, 10000, 7));
  REQUIRE(ds.ok());
  CHECK((*ds)->size() == 100000);
  CHECK((*ds)->dtype() == DType::kI64);
  CHECK((*ds)->Describe() == "synthetic_mod N=100000 (x + 7) % 10000");
  CHECK((*ds)->ignore_token_ids().empty());
  std::unique_ptr<SampleReader> reader = (*ds)->NewReader();
  SampleBatch b;
  // Batches of different sizes, including one across the wrap at x = 9993.
  for (auto [begin, end] : std::vector<std::pair<uint64_t, uint64_t>>{
           {0, 1024}, {9990, 10000}, {9000, 11000}, {99999, 100000}, {5, 5}}) {
    REQUIRE(reader->Read(begin, end, true, &b).ok());
    CHECK(b.first == begin);
    REQUIRE(b.size() == end - begin);
    std::vector<int64_t> expected;
    for (uint64_t x = begin; x < end; ++x)
      expected.push_back(static_cast<int64_t>((x + 7) % 10000));
    CHECK(Values(b) == expected);
  }
  REQUIRE(reader->Read(9992, 9995, true, &b).ok());
  CHECK(Values(b) == std::vector<int64_t>{9999, 0, 1});
}

TEST_CASE("synthetic_mod: samples are not cut from documents", "[dataset][document_pieces]") {
  Result<std::unique_ptr<Dataset>> ds = OpenDataset(Synthetic(10, 5, 0));
  REQUIRE(ds.ok());
  CHECK((*ds)->num_documents() == 0);
}

TEST_CASE("synthetic_mod: offsets follow Python's %, whatever their sign", "[dataset]") {
  SampleBatch b;
  auto read = [&](const DatasetConfig& c, uint64_t begin, uint64_t end) {
    Result<std::unique_ptr<Dataset>> ds = OpenDataset(c);
    REQUIRE(ds.ok());
    std::unique_ptr<SampleReader> r = (*ds)->NewReader();
    REQUIRE(r->Read(begin, end, true, &b).ok());
    return Values(b);
  };
  CHECK(read(Synthetic(10, 5, -3), 0, 6) == std::vector<int64_t>{2, 3, 4, 0, 1, 2});
  CHECK(read(Synthetic(10, 5, 0), 3, 8) == std::vector<int64_t>{3, 4, 0, 1, 2});
  // INT64_MAX = 9223372036854775807, so (x + INT64_MAX) % 10 starts at 7.
  CHECK(read(Synthetic(10, 10, std::numeric_limits<int64_t>::max()), 0, 4) ==
        std::vector<int64_t>{7, 8, 9, 0});
  CHECK(read(Synthetic(10, 10, std::numeric_limits<int64_t>::min()), 0, 3) ==
        std::vector<int64_t>{2, 3, 4});  // INT64_MIN = -...808, ≡ 2 (mod 10)
  CHECK(read(Synthetic(3, 1, 12345), 0, 3) == std::vector<int64_t>{0, 0, 0});
}

TEST_CASE("synthetic_mod: lengths-only reads, reuse and bounds", "[dataset]") {
  DatasetConfig c = Synthetic(50, 10000, 7);
  c.ignore_token_ids = {9, 3, 9, -1};
  Result<std::unique_ptr<Dataset>> ds = OpenDataset(c);
  REQUIRE(ds.ok());
  CHECK(std::vector<int64_t>((*ds)->ignore_token_ids().begin(), (*ds)->ignore_token_ids().end()) ==
        std::vector<int64_t>{-1, 3, 9});
  std::unique_ptr<SampleReader> r = (*ds)->NewReader();
  SampleBatch b;
  REQUIRE(r->Read(10, 20, false, &b).ok());
  CHECK(b.elements == nullptr);
  REQUIRE(b.size() == 10);
  for (size_t i = 0; i <= 10; ++i) CHECK(b.offsets[i] == i);

  // A smaller batch after a larger one still sees the right values.
  REQUIRE(r->Read(0, 50, true, &b).ok());
  REQUIRE(r->Read(40, 43, true, &b).ok());
  CHECK(Values(b) == std::vector<int64_t>{47, 48, 49});

  Status past_end = r->Read(40, 51, true, &b);
  CHECK(past_end.code() == Status::Code::kInternal);
  CHECK(r->Read(30, 20, true, &b).code() == Status::Code::kInternal);
}

TEST_CASE("synthetic_mod: an empty dataset is refused at open", "[dataset]") {
  Result<std::unique_ptr<Dataset>> ds = OpenDataset(Synthetic(0, 10000, 7));
  REQUIRE_FALSE(ds.ok());
  CHECK(ds.status().message() == "config: dataset.num_samples: the dataset is empty (0 samples)");
}

}  // namespace
}  // namespace dsanalyze
