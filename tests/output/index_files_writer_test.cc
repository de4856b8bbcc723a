#include "output/index_files_writer.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "support/test_util.h"

namespace dsanalyze {
namespace {
namespace fs = std::filesystem;

// A metric's rows in ascending value order: counts[i] ids belong to values[i],
// taken in order from ids.
struct RowSet {
  std::vector<int64_t> values;
  std::vector<uint64_t> counts;
  std::vector<int64_t> ids;
};

// `n` values from `first` in steps of `stride`, value i holding count(i) ids.
template <class Count>
RowSet MakeRows(uint64_t n, int64_t first, int64_t stride, Count count) {
  RowSet r;
  for (uint64_t i = 0; i < n; ++i) {
    r.values.push_back(first + static_cast<int64_t>(i) * stride);
    r.counts.push_back(count(i));
    for (uint64_t k = 0; k < r.counts.back(); ++k)
      r.ids.push_back(static_cast<int64_t>((r.ids.size() * 7919) % 60000));
  }
  return r;
}

struct Chosen {
  bool metric = true, sample = true, percentile = true;
};

IndexFilePrefixes PrefixesIn(const fs::path& dir, Chosen c) {
  IndexFilePrefixes p;
  if (c.metric) p.index_to_metric = (dir / "m_index_to_metric").string();
  if (c.sample) p.index_to_sample = (dir / "m_index_to_sample").string();
  if (c.percentile) p.percentile_merged = (dir / "m_index_to_sample_percentile_merged").string();
  return p;
}

// Feeds `rows` with ids appended `chunk` at a time, ahead of the row ends that
// claim them, so chunks do not line up with rows.
void Feed(IndexFilesWriter& w, const RowSet& rows, size_t chunk) {
  size_t appended = 0, claimed = 0;
  for (size_t i = 0; i < rows.values.size(); ++i) {
    claimed += rows.counts[i];
    while (w.writes_ids() && appended < claimed) {
      const size_t n = std::min(chunk, rows.ids.size() - appended);
      REQUIRE(w.AppendIds(std::span(rows.ids).subspan(appended, n)).ok());
      appended += n;
    }
    REQUIRE(w.EndValue(rows.values[i], rows.counts[i]).ok());
  }
}

std::set<std::string> FileNames(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
  return names;
}

struct Dtypes {
  DType metric = DType::kI64;
  DType sample = DType::kU16;
};

// Writes `rows` with Open(distinct) and with OpenDeferred and checks the two
// results are the same files, byte for byte, and nothing else.
void CheckSameFiles(const RowSet& rows, Chosen chosen, Dtypes t = {}) {
  test::ScratchDir dir;
  const fs::path known = dir.path() / "known", deferred = dir.path() / "deferred";
  const fs::path scratch = dir.path() / "scratch";
  for (const fs::path& d : {known, deferred, scratch}) fs::create_directory(d);
  {
    IndexFilesWriter w;
    REQUIRE(w.Open(PrefixesIn(known, chosen), t.metric, t.sample, {}, rows.values.size()).ok());
    Feed(w, rows, 7);
    REQUIRE(w.Finish().ok());
  }
  {
    IndexFilesWriter w;
    IndexedWriter::Options base;
    base.buffer_bytes = 4096;  // the ids' file flushes many times
    REQUIRE(w.OpenDeferred(PrefixesIn(deferred, chosen), t.metric, t.sample, base, scratch.string())
                .ok());
    CHECK(w.writes_ids() == chosen.sample);
    Feed(w, rows, 3);
    const Status st = w.Finish();
    INFO(st.message());
    REQUIRE(st.ok());
  }
  const std::set<std::string> names = FileNames(known);
  CHECK(names.size() == 2u * (chosen.metric + chosen.sample + chosen.percentile));
  CHECK(FileNames(deferred) == names);
  CHECK(FileNames(scratch).empty());
  for (const std::string& name : names) {
    INFO(name);
    CHECK(test::ReadBytes(known / name) == test::ReadBytes(deferred / name));
  }
  if (chosen.sample && chosen.percentile) {
    // The ids are written once: the percentile file links index_to_sample's
    // (where the file system allows it, as with Open).
    const auto linked = [](const fs::path& d) {
      return fs::equivalent(d / "m_index_to_sample.bin",
                            d / "m_index_to_sample_percentile_merged.bin");
    };
    CHECK(linked(deferred) == linked(known));
  }
}

auto OneId = [](uint64_t) -> uint64_t { return 1; };

TEST_CASE("OpenDeferred writes what Open does for no values", "[index_files_writer]") {
  CheckSameFiles(RowSet{}, Chosen{});
}

TEST_CASE("OpenDeferred writes what Open does for one value", "[index_files_writer]") {
  CheckSameFiles(MakeRows(1, 42, 1, [](uint64_t) -> uint64_t { return 3; }), Chosen{});
}

TEST_CASE("OpenDeferred writes what Open does for values of 1 to N ids", "[index_files_writer]") {
  CheckSameFiles(MakeRows(50, 0, 3, [](uint64_t i) -> uint64_t { return 1 + i % 17; }), Chosen{});
}

TEST_CASE("OpenDeferred writes what Open does past a value buffer flush", "[index_files_writer]") {
  // More values than IndexFilesWriter buffers and than a replay batch holds.
  CheckSameFiles(MakeRows((1 << 16) * 2 + 123, -5000, 1, OneId), Chosen{},
                 Dtypes{DType::kI32, DType::kU32});
}

TEST_CASE("OpenDeferred matches Open around percentile step boundaries", "[index_files_writer]") {
  // Steps 1 and 2 and 3, with a full or a short last percentile group.
  for (uint64_t n : {99, 100, 101, 199, 200, 201, 299, 350}) {
    INFO("distinct " << n);
    CheckSameFiles(MakeRows(n, 10, 2, [](uint64_t i) -> uint64_t { return 1 + i % 4; }), Chosen{});
  }
}

TEST_CASE("OpenDeferred matches Open for negative int64 values", "[index_files_writer]") {
  CheckSameFiles(MakeRows(300, -(int64_t{1} << 40), int64_t{1} << 33,
                          [](uint64_t i) -> uint64_t { return 1 + i % 3; }),
                 Chosen{}, Dtypes{DType::kI64, DType::kI64});
}

TEST_CASE("OpenDeferred matches Open when only some files are chosen", "[index_files_writer]") {
  const RowSet rows = MakeRows(250, 0, 1, [](uint64_t i) -> uint64_t { return 1 + i % 5; });
  for (Chosen c : {Chosen{true, false, false}, Chosen{false, true, false},
                   Chosen{false, true, true}, Chosen{true, true, false}}) {
    INFO("metric " << c.metric << " sample " << c.sample << " percentile " << c.percentile);
    CheckSameFiles(rows, c);
  }
}

TEST_CASE("A deferred writer destroyed without Finish leaves no files", "[index_files_writer]") {
  test::ScratchDir dir;
  const fs::path out = dir.path() / "out", scratch = dir.path() / "scratch";
  fs::create_directory(out);
  fs::create_directory(scratch);
  {
    IndexFilesWriter w;
    REQUIRE(
        w.OpenDeferred(PrefixesIn(out, {}), DType::kI64, DType::kU16, {}, scratch.string()).ok());
    Feed(w, MakeRows(1000, 0, 1, OneId), 5);
    CHECK_FALSE(FileNames(out).empty());  // the ids' temporary file
  }
  CHECK(FileNames(out).empty());
  CHECK(FileNames(scratch).empty());
}

TEST_CASE("A deferred Finish that fails leaves no temporary files", "[index_files_writer]") {
  test::ScratchDir dir;
  const fs::path out = dir.path() / "out";
  fs::create_directory(out);
  {
    IndexFilesWriter w;
    REQUIRE(w.OpenDeferred(PrefixesIn(out, {}), DType::kI64, DType::kU16, {}, dir.path().string())
                .ok());
    const std::vector<int64_t> ids = {1, 2, 3};
    REQUIRE(w.AppendIds(ids).ok());
    REQUIRE(w.EndValue(5, 2).ok());  // one id is never claimed
    CHECK_FALSE(w.Finish().ok());
  }
  for (const std::string& name : FileNames(out)) {
    INFO(name);
    CHECK(name.find(".tmp") == std::string::npos);
    CHECK(name.find(".ids") == std::string::npos);
  }
}

TEST_CASE("OpenDeferred names a scratch directory it cannot use", "[index_files_writer]") {
  test::ScratchDir dir;
  const std::string missing = dir / "no-such-scratch";
  IndexFilesWriter w;
  const Status st =
      w.OpenDeferred(PrefixesIn(dir.path(), {}), DType::kI64, DType::kU16, {}, missing);
  CHECK_FALSE(st.ok());
  CHECK(st.message().find(missing) != std::string::npos);
  CHECK(FileNames(dir.path()).empty());
}

TEST_CASE("OpenDeferred refuses percentile_merged without index_to_sample",
          "[index_files_writer]") {
  test::ScratchDir dir;
  IndexFilesWriter w;
  CHECK_FALSE(w.OpenDeferred(PrefixesIn(dir.path(), Chosen{true, false, true}), DType::kI64,
                             DType::kU16, {}, dir.path().string())
                  .ok());
}

}  // namespace
}  // namespace dsanalyze
