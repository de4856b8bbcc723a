#include "merge/merge_metric.h"

#include <algorithm>
#include <limits>
#include <memory>

#include "format/indexed_dataset.h"
#include "format/indexed_writer.h"
#include "output/analysis_layout.h"
#include "output/index_files_writer.h"
#include "util/checked_add.h"

namespace dsanalyze {
namespace {

constexpr uint64_t kChunk = uint64_t{1} << 16;  // elements per buffered write

// Element i of `v`, widened (format/indexed_dataset.h WidenElements).
int64_t At(const ElementView& v, uint64_t i) {
  int64_t x = 0;
  WidenElements(v, i, {&x, 1});
  return x;
}

// Elements [begin, end) of `v`, widened into `out`.
void Widen(const ElementView& v, uint64_t begin, uint64_t end, std::vector<int64_t>* out) {
  out->resize(end - begin);
  WidenElements(v, begin, *out);
}

Result<IndexedDataset> OpenKind(const MetricMergeJob& job, const std::string& save,
                                std::string_view kind) {
  Result<IndexedDataset> ds = IndexedDataset::Open(
      MetricFilePrefix(save, job.name, kind),
      IndexedDataset::Options(job.table, /*integer=*/true, "output.dtype_codes"));
  if (!ds.ok()) return Status::BadInput("merge: " + ds.status().message());
  return ds;
}

IndexedWriter::Options WriterOptions(const MetricMergeJob& job, uint64_t rows) {
  IndexedWriter::Options o;
  o.table = job.table;
  o.rows = rows;
  o.sync = job.sync;
  return o;
}

// The inputs' single-value files, in position order.
struct SingleValueFiles {
  std::vector<IndexedDataset> s2m, i2m, i2s;
};

Result<SingleValueFiles> OpenSingleValue(const MetricMergeJob& job) {
  SingleValueFiles f;
  for (const std::string& save : job.inputs) {
    DSA_ASSIGN_OR_RETURN(IndexedDataset s2m, OpenKind(job, save, kSampleToMetric));
    DSA_ASSIGN_OR_RETURN(IndexedDataset i2m, OpenKind(job, save, kIndexToMetric));
    DSA_ASSIGN_OR_RETURN(IndexedDataset i2s, OpenKind(job, save, kIndexToSample));
    f.s2m.push_back(std::move(s2m));
    f.i2m.push_back(std::move(i2m));
    f.i2s.push_back(std::move(i2s));
  }
  return f;
}

// The union's dtypes, refitted by analysis_layout.h's rules.
struct UnionFit {
  uint64_t samples = 0;
  DType metric = DType::kU8;
  DType sample = DType::kU8;
};

UnionFit FitUnion(const SingleValueFiles& f) {
  int64_t vmin = std::numeric_limits<int64_t>::max(), vmax = std::numeric_limits<int64_t>::min();
  int64_t id_min = vmin, id_max = vmax;
  UnionFit fit;
  for (size_t k = 0; k < f.s2m.size(); ++k) {
    fit.samples += f.s2m[k].num_rows();
    const ElementView values = f.i2m[k].elements();
    if (values.count > 0) {  // ascending: the first and last values bound the input's
      vmin = std::min(vmin, At(values, 0));
      vmax = std::max(vmax, At(values, values.count - 1));
    }
    const ElementView ids = f.i2s[k].elements();
    VisitIntDType(ids.dtype, [&](auto zero) {
      for (const auto id : ids.as<decltype(zero)>()) {
        id_min = std::min<int64_t>(id_min, static_cast<int64_t>(id));
        id_max = std::max<int64_t>(id_max, static_cast<int64_t>(id));
      }
    });
  }
  if (vmin > vmax) vmin = vmax = 0;  // no samples
  if (id_min > id_max) id_min = 0, id_max = -1;
  fit.metric = FitIntDType(vmin, vmax);
  fit.sample = SampleIdDType(fit.samples, id_min, id_max);
  return fit;
}

Status WriteSampleToMetric(const MetricMergeJob& job, const SingleValueFiles& f,
                           const UnionFit& fit) {
  DSA_ASSIGN_OR_RETURN(
      std::unique_ptr<IndexedWriter> w,
      IndexedWriter::Create(MetricFilePrefix(job.out_dir, job.name, kSampleToMetric), fit.metric,
                            WriterOptions(job, fit.samples)));
  std::vector<int64_t> buf;
  for (const IndexedDataset& s2m : f.s2m) {
    const ElementView v = s2m.elements();
    for (uint64_t b = 0; b < v.count; b += kChunk) {
      Widen(v, b, std::min(v.count, b + kChunk), &buf);
      DSA_RETURN_IF_ERROR(w->AddScalarRows(buf));
    }
  }
  return w->Finish();
}

// The k-way merge of the inputs' index_to_metric rows: calls
// visit(value, holders, rows) once per distinct value, ascending, with the
// inputs that hold it and every input's current row.
template <class Visit>
Status ForEachValue(const std::vector<IndexedDataset>& i2m, Visit&& visit) {
  std::vector<uint64_t> rows(i2m.size(), 0);
  std::vector<size_t> holders;
  const auto value = [&](size_t k) { return At(i2m[k].elements(), i2m[k].row_begin(rows[k])); };
  for (;;) {
    holders.clear();
    int64_t v = 0;
    for (size_t k = 0; k < i2m.size(); ++k) {
      if (rows[k] == i2m[k].num_rows()) continue;
      const int64_t x = value(k);
      if (!holders.empty() && x > v) continue;
      if (holders.empty() || x < v) holders.clear();
      v = x;
      holders.push_back(k);
    }
    if (holders.empty()) return Status::OK();
    DSA_RETURN_IF_ERROR(visit(v, holders, rows));
    for (size_t k : holders) ++rows[k];
  }
}

// The ids of one value: the holders' index_to_sample rows, each ascending,
// merged ascending into `out` in chunks.
Result<uint64_t> MergeIdRows(const SingleValueFiles& f, const std::vector<size_t>& holders,
                             const std::vector<uint64_t>& rows, IndexFilesWriter* out) {
  std::vector<uint64_t> pos, end;
  for (size_t k : holders) {
    pos.push_back(f.i2s[k].row_begin(rows[k]));
    end.push_back(f.i2s[k].row_begin(rows[k] + 1));
  }
  std::vector<int64_t> buf;
  buf.reserve(kChunk);
  uint64_t merged = 0;
  for (;;) {
    size_t best = holders.size();
    int64_t id = 0;
    for (size_t h = 0; h < holders.size(); ++h) {
      if (pos[h] == end[h]) continue;
      const int64_t x = At(f.i2s[holders[h]].elements(), pos[h]);
      if (best == holders.size() || x < id) best = h, id = x;
    }
    if (best == holders.size() || buf.size() == kChunk) {
      DSA_RETURN_IF_ERROR(out->AppendIds(buf));
      merged += buf.size();
      buf.clear();
    }
    if (best == holders.size()) return merged;
    buf.push_back(id);
    ++pos[best];
  }
}

}  // namespace

Status MergeSingleValueMetric(const MetricMergeJob& job) {
  DSA_ASSIGN_OR_RETURN(SingleValueFiles f, OpenSingleValue(job));
  const UnionFit fit = FitUnion(f);
  DSA_RETURN_IF_ERROR(WriteSampleToMetric(job, f, fit));
  uint64_t distinct = 0;
  DSA_RETURN_IF_ERROR(ForEachValue(f.i2m, [&](int64_t, const auto&, const auto&) {
    ++distinct;
    return Status::OK();
  }));
  const auto prefix = [&](std::string_view kind) {
    return MetricFilePrefix(job.out_dir, job.name, kind);
  };
  IndexFilesWriter writer;
  DSA_RETURN_IF_ERROR(writer.Open(
      {prefix(kIndexToMetric), prefix(kIndexToSample), prefix(kIndexToSamplePercentile)},
      fit.metric, fit.sample, WriterOptions(job, 0), distinct));
  DSA_RETURN_IF_ERROR(ForEachValue(f.i2m,
                                   [&](int64_t value, const std::vector<size_t>& holders,
                                       const std::vector<uint64_t>& rows) -> Status {
                                     DSA_ASSIGN_OR_RETURN(const uint64_t ids,
                                                          MergeIdRows(f, holders, rows, &writer));
                                     return writer.EndValue(value, ids);
                                   }));
  return writer.Finish();
}

Status CheckSingleValueInputs(const MetricMergeJob& job) { return OpenSingleValue(job).status(); }

Result<std::vector<int64_t>> SumMetricValues(const MetricMergeJob& job) {
  std::vector<int64_t> sum, row;
  for (size_t k = 0; k < job.inputs.size(); ++k) {
    DSA_ASSIGN_OR_RETURN(IndexedDataset value, OpenKind(job, job.inputs[k], kMetricValue));
    if (value.num_rows() != 1)
      return Status::BadInput("merge: " + value.prefix() + ": " + std::to_string(value.num_rows()) +
                              " rows; expected 1");
    Widen(value.elements(), 0, value.num_elements(), &row);
    if (k == 0) {
      sum = row;
      continue;
    }
    if (row.size() != sum.size())
      return Status::BadInput("merge: " + value.prefix() + ": length " +
                              std::to_string(row.size()) + ", but " + job.inputs[0] + "'s is " +
                              std::to_string(sum.size()));
    DSA_RETURN_IF_ERROR(AddChecked(sum, row, "merge: metric " + job.name));
  }
  return sum;
}

Status WriteMergedMetricValue(const MetricMergeJob& job, std::span<const int64_t> sum) {
  const auto [lo, hi] = std::minmax_element(sum.begin(), sum.end());
  const DType dtype = sum.empty() ? DType::kU8 : FitIntDType(*lo, *hi);
  DSA_ASSIGN_OR_RETURN(std::unique_ptr<IndexedWriter> w,
                       IndexedWriter::Create(MetricFilePrefix(job.out_dir, job.name, kMetricValue),
                                             dtype, WriterOptions(job, 1)));
  DSA_RETURN_IF_ERROR(w->AddRow(sum));
  return w->Finish();
}

}  // namespace dsanalyze
