#include "support/output_fixture.h"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "format/indexed_dataset.h"
#include "format/indexed_writer.h"
#include "support/test_util.h"

namespace dsanalyze::test {
namespace fs = std::filesystem;

void CopyGolden(const std::string& name, const fs::path& to) {
  fs::copy(GoldenDir() / name, to, fs::copy_options::recursive);
  // The golden tree is read-only; its copy must not be.
  fs::permissions(to, fs::perms::owner_write, fs::perm_options::add);
  for (const auto& e : fs::recursive_directory_iterator(to))
    fs::permissions(e.path(), fs::perms::owner_write, fs::perm_options::add);
}

Rows ReadRows(const std::string& prefix) {
  Result<IndexedDataset> ds = IndexedDataset::Open(prefix);
  if (!ds.ok()) throw std::runtime_error(ds.status().message());
  Rows rows(ds->num_rows());
  VisitIntDType(ds->dtype(), [&](auto tag) {
    for (uint64_t r = 0; r < ds->num_rows(); ++r)
      for (auto v : ds->row(r).as<decltype(tag)>()) rows[r].push_back(static_cast<int64_t>(v));
  });
  return rows;
}

DType ReadDType(const std::string& prefix) {
  Result<IndexedDataset> ds = IndexedDataset::Open(prefix);
  if (!ds.ok()) throw std::runtime_error(ds.status().message());
  return ds->dtype();
}

void WriteRows(const std::string& prefix, DType dtype, const Rows& rows) {
  auto w = IndexedWriter::Create(prefix, dtype);
  if (!w.ok()) throw std::runtime_error(w.status().message());
  for (const auto& row : rows)
    if (Status st = (*w)->AddRow(row); !st.ok()) throw std::runtime_error(st.message());
  if (Status st = (*w)->Finish(); !st.ok()) throw std::runtime_error(st.message());
}

void WriteSingleValueMetric(const fs::path& save_path, const std::string& metric,
                            const std::vector<int64_t>& values, const std::vector<int64_t>& ids) {
  fs::create_directories(save_path / metric);
  const std::string base = (save_path / metric / metric).string() + "_";
  std::map<int64_t, std::vector<int64_t>> by_value;
  for (size_t i = 0; i < values.size(); ++i) by_value[values[i]].push_back(ids[i]);
  Rows s2m, i2m, i2s;
  for (int64_t v : values) s2m.push_back({v});
  for (auto& [v, row] : by_value) {
    std::sort(row.begin(), row.end());
    i2m.push_back({v});
    i2s.push_back(row);
  }
  const int64_t n = static_cast<int64_t>(values.size());
  const DType metric_dtype = FitIntDType(by_value.begin()->first, by_value.rbegin()->first);
  const DType sample_dtype =
      FitIntDType(std::min<int64_t>(0, *std::min_element(ids.begin(), ids.end())),
                  std::max<int64_t>(n - 1, *std::max_element(ids.begin(), ids.end())));
  const size_t u = i2s.size(), step = std::max<size_t>(1, u / 100);
  Rows merged;
  for (size_t k = 0; k < u; k += step) {
    merged.emplace_back();
    for (size_t r = k; r < std::min(u, k + step); ++r)
      merged.back().insert(merged.back().end(), i2s[r].begin(), i2s[r].end());
  }
  WriteRows(base + "sample_to_metric", metric_dtype, s2m);
  WriteRows(base + "index_to_metric", metric_dtype, i2m);
  WriteRows(base + "index_to_sample", sample_dtype, i2s);
  WriteRows(base + "index_to_sample_percentile_merged", sample_dtype, merged);
}

}  // namespace dsanalyze::test
