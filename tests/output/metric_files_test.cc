#include "output/metric_files.h"

#include <catch2/catch.hpp>
#include <filesystem>

#include "output/analysis_layout.h"
#include "output/metric_value_file.h"
#include "support/output_fixture.h"
#include "support/test_util.h"

namespace dsanalyze {
namespace {

namespace fs = std::filesystem;

// The one writer of metric_value (output/metric_value_file.h) and the
// reader (output/metric_files.h rule 6) agree: no empty row.
TEST_CASE("metric files: metric_value's row is never empty, read or written", "[metric_files]") {
  test::ScratchDir scratch;
  const std::string mv = (scratch.path() / "mv").string();
  const std::string empty_message =
      "row 0: is empty (DeepSpeed's reduce never writes an empty metric_value)";

  test::WriteRows(mv, DType::kU8, {{}});
  Result<IndexedDataset> read = IndexedDataset::Open(mv);
  REQUIRE(read.ok());
  CHECK(ReadMetricValueRow(*read).status().message() == mv + ": " + empty_message);

  const std::string never = (scratch.path() / "never").string();
  const Status st = WriteMetricValueFile(never, {}, {});
  CHECK(st.code() == Status::Code::kInternal);
  CHECK_FALSE(fs::exists(never + ".bin"));
  CHECK_FALSE(fs::exists(never + ".idx"));

  const std::vector<int64_t> row = {-1, 300};
  REQUIRE(WriteMetricValueFile(mv, row, {}).ok());
  Result<IndexedDataset> written = IndexedDataset::Open(mv);
  REQUIRE(written.ok());
  CHECK(written->dtype() == DType::kI16);
  CHECK(MetricValueDType(row) == DType::kI16);
  CHECK(ReadMetricValueRow(*written).value() == row);
}

}  // namespace
}  // namespace dsanalyze
