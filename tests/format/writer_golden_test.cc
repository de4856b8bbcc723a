// The writer's bytes equal DeepSpeed's: golden files are read, re-written row by
// row in several ways, and compared byte for byte (.bin with both analyzers'
// files, .idx with DistributedDataAnalyzer's; format.md §2 "doc_idx"). The
// seedmod files are also rebuilt from their defining formula, so the test does
// not depend on the reader alone.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "format/indexed_dataset.h"
#include "format/indexed_writer.h"
#include "support/test_util.h"

namespace dsanalyze {
namespace {

namespace fs = std::filesystem;
using Rows = std::vector<std::vector<int64_t>>;

Rows ReadRows(const IndexedDataset& ds) {
  Rows rows(ds.num_rows());
  for (uint64_t i = 0; i < ds.num_rows(); ++i)
    VisitIntDType(ds.dtype(), [&](auto t) {
      for (auto v : ds.typed_row<decltype(t)>(i)) rows[i].push_back(static_cast<int64_t>(v));
    });
  return rows;
}

enum class Mode {
  kAddRowKnownCount,
  kAddRowUnknownCount,
  kEndRowOfSizeTinyBuffer,
  kPiecesTinyBuffer
};

const char* ModeName(Mode m) {
  switch (m) {
    case Mode::kAddRowKnownCount:
      return "AddRow, known row count";
    case Mode::kAddRowUnknownCount:
      return "AddRow, unknown row count";
    case Mode::kEndRowOfSizeTinyBuffer:
      return "Append all then EndRowOfSize, known row count, tiny buffer";
    default:
      return "small Appends (or AddScalarRows), unknown row count, tiny buffer";
  }
}

// Feeds `rows` to `writer` in the given way; the first call that fails ends it.
// (One REQUIRE a file: a REQUIRE a row was most of the suite's time.)
Status FeedRows(IndexedWriter& writer, const Rows& rows, Mode mode) {
  switch (mode) {
    case Mode::kAddRowKnownCount:
    case Mode::kAddRowUnknownCount:
      for (const auto& r : rows) DSA_RETURN_IF_ERROR(writer.AddRow(r));
      return Status::OK();
    case Mode::kEndRowOfSizeTinyBuffer: {
      std::vector<int64_t> all;
      for (const auto& r : rows) all.insert(all.end(), r.begin(), r.end());
      DSA_RETURN_IF_ERROR(writer.Append(all));
      for (const auto& r : rows) DSA_RETURN_IF_ERROR(writer.EndRowOfSize(r.size()));
      return Status::OK();
    }
    case Mode::kPiecesTinyBuffer: {
      bool scalar = std::all_of(rows.begin(), rows.end(), [](auto& r) { return r.size() == 1; });
      if (scalar) {
        std::vector<int64_t> values;
        for (const auto& r : rows) values.push_back(r[0]);
        return writer.AddScalarRows(values);
      }
      for (const auto& r : rows) {
        for (size_t at = 0; at < r.size(); at += 7)
          DSA_RETURN_IF_ERROR(
              writer.Append(std::span(r).subspan(at, std::min<size_t>(7, r.size() - at))));
        DSA_RETURN_IF_ERROR(writer.EndRow());
      }
      return Status::OK();
    }
  }
  return Status::Internal("unknown mode");
}

// Writes `rows` to `prefix` with dtype `dtype` in the given way.
void WriteRows(const std::string& prefix, DType dtype, const Rows& rows, Mode mode) {
  IndexedWriter::Options o;
  if (mode == Mode::kAddRowKnownCount || mode == Mode::kEndRowOfSizeTinyBuffer)
    o.rows = rows.size();
  if (mode == Mode::kEndRowOfSizeTinyBuffer || mode == Mode::kPiecesTinyBuffer)
    o.buffer_bytes = 1;  // the writer's minimum buffer: flushes often
  auto w = IndexedWriter::Create(prefix, dtype, o);
  REQUIRE(w.ok());
  const Status fed = FeedRows(**w, rows, mode);
  INFO(fed.message());
  REQUIRE(fed.ok());
  const Status st = (*w)->Finish();
  INFO(st.message());
  REQUIRE(st.ok());
}

void CheckSameBytes(const fs::path& written, const fs::path& golden) {
  INFO("written " << written << " vs golden " << golden);
  const auto a = test::ReadBytes(written);
  const auto b = test::ReadBytes(golden);
  REQUIRE(a.size() == b.size());
  CHECK(a == b);
}

// Every metric output prefix under <set>/dda, relative to it (e.g. "mod/mod_index_to_metric").
std::vector<std::string> GoldenPrefixes(const std::string& set) {
  std::vector<std::string> out;
  const fs::path root = test::GoldenDir() / set / "dda";
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.path().extension() == ".idx")
      out.push_back(fs::relative(e.path(), root).replace_extension("").string());
  std::sort(out.begin(), out.end());
  return out;
}

void CheckWrittenMatchesGolden(const std::string& prefix, const std::string& set,
                               const std::string& rel) {
  const fs::path golden = test::GoldenDir() / set;
  CheckSameBytes(prefix + ".bin", golden / "da" / (rel + ".bin"));
  CheckSameBytes(prefix + ".bin", golden / "dda" / (rel + ".bin"));
  CheckSameBytes(prefix + ".idx", golden / "dda" / (rel + ".idx"));
}

}  // namespace

TEST_CASE("writer reproduces every golden file read back by the reader",
          "[format][writer][golden]") {
  test::ScratchDir dir;
  for (const std::string set : {"seedmod-100k", "tokens"}) {
    const auto prefixes = GoldenPrefixes(set);
    REQUIRE(prefixes.size() >= 5);
    for (const std::string& rel : prefixes) {
      for (const std::string analyzer : {"da", "dda"}) {
        const std::string in = (test::GoldenDir() / set / analyzer / rel).string();
        auto ds = IndexedDataset::Open(in);
        INFO(in << ": " << ds.status().message());
        REQUIRE(ds.ok());
        const Rows rows = ReadRows(*ds);
        for (Mode m : {Mode::kAddRowKnownCount, Mode::kAddRowUnknownCount,
                       Mode::kEndRowOfSizeTinyBuffer, Mode::kPiecesTinyBuffer}) {
          INFO(ModeName(m));
          const std::string out = dir / "out";
          WriteRows(out, ds->dtype(), rows, m);
          CheckWrittenMatchesGolden(out, set, rel);
        }
      }
    }
  }
}

TEST_CASE("seedmod golden files rebuilt from their formula", "[format][writer][golden]") {
  // format.md §4 and golden/README.md: N = 100000, sample x has value (x+7) % 10000.
  constexpr int64_t kN = 100000, kMod = 10000;
  auto value = [](int64_t x) { return (x + 7) % kMod; };

  Rows sample_to_metric, index_to_metric, index_to_sample(kMod), percentile;
  int64_t sum = 0, min_value = kMod, max_value = -1;
  for (int64_t x = 0; x < kN; ++x) {
    const int64_t v = value(x);
    sample_to_metric.push_back({v});
    index_to_sample[v].push_back(x);  // x ascending, so each row is ascending
    sum += v;
    min_value = std::min(min_value, v);
    max_value = std::max(max_value, v);
  }
  for (int64_t v = 0; v < kMod; ++v) index_to_metric.push_back({v});  // every value occurs
  const size_t distinct = index_to_metric.size();
  const size_t step = std::max<size_t>(1, distinct / 100);
  for (size_t k = 0; k < distinct; k += step) {
    std::vector<int64_t> merged;
    for (size_t r = k; r < std::min(distinct, k + step); ++r)
      merged.insert(merged.end(), index_to_sample[r].begin(), index_to_sample[r].end());
    percentile.push_back(merged);
  }
  REQUIRE(percentile.size() == 100);
  REQUIRE(sum == 499950000);

  const DType metric_dtype = FitIntDType(min_value, max_value);
  const DType sample_dtype = FitIntDType(0, kN - 1);
  CHECK(metric_dtype == DType::kU16);
  CHECK(sample_dtype == DType::kU32);

  const std::map<std::string, std::pair<DType, const Rows*>> files = {
      {"mod/mod_sample_to_metric", {metric_dtype, &sample_to_metric}},
      {"mod/mod_index_to_metric", {metric_dtype, &index_to_metric}},
      {"mod/mod_index_to_sample", {sample_dtype, &index_to_sample}},
      {"mod/mod_index_to_sample_percentile_merged", {sample_dtype, &percentile}},
  };
  test::ScratchDir dir;
  for (const auto& [rel, spec] : files) {
    INFO(rel);
    WriteRows(dir / "f", spec.first, *spec.second, Mode::kAddRowKnownCount);
    CheckWrittenMatchesGolden(dir / "f", "seedmod-100k", rel);
  }
  const Rows batch_sum = {{sum}};
  WriteRows(dir / "s", FitIntDType(sum, sum), batch_sum, Mode::kAddRowUnknownCount);
  CheckWrittenMatchesGolden(dir / "s", "seedmod-100k", "batch_sum/batch_sum_metric_value");
}

}  // namespace dsanalyze
