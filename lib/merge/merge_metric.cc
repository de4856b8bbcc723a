#include "merge/merge_metric.h"

#include <algorithm>
#include <atomic>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "format/indexed_writer.h"
#include "output/analysis_layout.h"
#include "output/index_files_writer.h"
#include "output/metric_value_file.h"
#include "util/checked_add.h"
#include "util/fault_point.h"
#include "util/interrupt.h"
#include "util/worker_thread.h"

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

IndexedDataset::Options InputOptions(const MetricMergeJob& job) {
  return IndexedDataset::Options(job.table, /*integer=*/true, "output.dtype_codes");
}

// An input's errors are the merge's bad input.
Status AsMergeInput(const Status& st) {
  return st.ok() ? st : Status::BadInput("merge: " + st.message());
}

Result<IndexedDataset> OpenKind(const MetricMergeJob& job, const std::string& save,
                                std::string_view kind) {
  Result<IndexedDataset> ds =
      IndexedDataset::Open(MetricFilePrefix(save, job.name, kind), InputOptions(job));
  DSA_RETURN_IF_ERROR(AsMergeInput(ds.status()));
  return ds;
}

IndexedWriter::Options WriterOptions(const MetricMergeJob& job, uint64_t rows) {
  return IndexedWriter::OptionsFor(job.table, rows, job.sync);
}

// One input's files.
Result<MetricFiles> OpenInput(const MetricMergeJob& job, const std::string& save) {
  MetricFiles f;
  f.name = job.name;
  f.sample_to_metric_prefix = MetricFilePrefix(save, job.name, kSampleToMetric);
  // Its rows are checked later (CheckSampleToMetricRows), while the output is
  // written: they are a pass over 12 bytes a sample.
  Result<IndexedDataset> s2m =
      IndexedDataset::OpenScalarRows(f.sample_to_metric_prefix, InputOptions(job));
  DSA_RETURN_IF_ERROR(AsMergeInput(s2m.status()));
  f.sample_to_metric = std::move(s2m).value();
  f.sample_rows = f.sample_to_metric->num_rows();
  DSA_ASSIGN_OR_RETURN(f.index_to_metric, OpenKind(job, save, kIndexToMetric));
  DSA_ASSIGN_OR_RETURN(f.index_to_sample, OpenKind(job, save, kIndexToSample));
  DSA_RETURN_IF_ERROR(AsMergeInput(CheckIndexFiles(f.index_to_sample, f.index_to_metric)));
  if (std::optional<FileProblem> p = CheckOneIdASample(f.index_to_sample, f.sample_rows))
    return AsMergeInput(BadFile(f.index_to_sample.prefix(), *p));
  return f;
}

// The union's metric dtype: index_to_metric is ascending, so each input's
// first and last values bound its values.
DType FitMetric(const SingleValueFiles& f) {
  int64_t vmin = std::numeric_limits<int64_t>::max(), vmax = std::numeric_limits<int64_t>::min();
  for (const MetricFiles& input : f) {
    const ElementView values = input.index_to_metric.elements();
    if (values.count == 0) continue;
    vmin = std::min(vmin, At(values, 0));
    vmax = std::max(vmax, At(values, values.count - 1));
  }
  if (vmin > vmax) vmin = vmax = 0;  // no samples
  return FitIntDType(vmin, vmax);
}

// The union's sample dtype. Each index_to_sample row is ascending, so its
// first and last ids bound it: two reads a row, not a scan of every id.
DType FitSample(const SingleValueFiles& f) {
  int64_t id_min = std::numeric_limits<int64_t>::max();
  int64_t id_max = std::numeric_limits<int64_t>::min();
  for (const MetricFiles& input : f) {
    const IndexedDataset& i2s = input.index_to_sample;
    for (uint64_t r = 0; r < i2s.num_rows(); ++r) {
      const ElementView ids = i2s.row(r);
      if (ids.count == 0) continue;
      id_min = std::min(id_min, At(ids, 0));
      id_max = std::max(id_max, At(ids, ids.count - 1));
    }
  }
  if (id_min > id_max) id_min = 0, id_max = -1;
  return SampleIdDType(UnionSamples(f), id_min, id_max);
}

// The inputs' elements in order into `bin`, a chunk at a time: written
// straight from the input when its dtype is the union's, so no element passes
// through int64.
Status WriteSampleToMetricBin(const SingleValueFiles& f, DType dtype, OutputFile* bin) {
  constexpr uint64_t kRows = 16 * kChunk;
  const size_t out_item = ItemSize(dtype);
  std::vector<std::byte> converted;
  uint64_t offset = 0;
  for (const MetricFiles& input : f) {
    const ElementView all = input.sample_to_metric->elements();
    const size_t item = ItemSize(all.dtype);
    for (uint64_t at = 0; at < all.count; at += kRows) {
      DSA_RETURN_IF_ERROR(CheckInterrupt());
      const uint64_t n = std::min(kRows, all.count - at);
      const std::byte* data = all.data + at * item;
      if (all.dtype != dtype) {
        converted.resize(n * out_item);
        ConvertElements(all.dtype, data, n, dtype, converted.data());
        data = converted.data();
      }
      DSA_RETURN_IF_ERROR(bin->WriteAt(offset, data, n * out_item));
      offset += n * out_item;
    }
  }
  return Status::OK();
}

// sample_to_metric: its .bin on this thread while another writes its .idx, a
// function of the row count and dtype alone (format/indexed_writer.h
// WriteBesideScalarIdx), so the two files go to the disk side by side. A failure
// leaves the files under their temporary names in the staging folder, which
// the failed merge removes (merge.h).
Status WriteSampleToMetric(const MetricMergeJob& job, const SingleValueFiles& f) {
  const std::string prefix = MetricFilePrefix(job.out_dir, job.name, kSampleToMetric);
  const DType dtype = FitMetric(f);
  DSA_ASSIGN_OR_RETURN(const uint8_t code, DTypeCodeFor(prefix, job.table, dtype));
  DSA_ASSIGN_OR_RETURN(OutputFile bin, OutputFile::Create(prefix + ".bin.tmp"));
  DSA_ASSIGN_OR_RETURN(OutputFile idx, OutputFile::Create(prefix + ".idx.tmp"));
  const IdxHeader header{.dtype_code = code, .rows = UnionSamples(f), .doc_count = 2};
  Status st = WriteBesideScalarIdx(&idx, header, ItemSize(dtype),
                                   [&] { return WriteSampleToMetricBin(f, dtype, &bin); });
  if (st.ok()) st = bin.Close(job.sync);
  if (st.ok()) st = idx.Close(job.sync);
  if (st.ok()) st = RenameFile(prefix + ".bin.tmp", prefix + ".bin");
  if (st.ok()) st = RenameFile(prefix + ".idx.tmp", prefix + ".idx");
  return st;
}

// The k-way merge of the inputs' index_to_metric rows: calls
// visit(value, holders, rows) once per distinct value, ascending, with the
// inputs that hold it and every input's current row.
template <class Visit>
Status ForEachValue(const SingleValueFiles& f, Visit&& visit) {
  std::vector<uint64_t> rows(f.size(), 0);
  std::vector<size_t> holders;
  for (;;) {
    holders.clear();
    int64_t v = 0;
    for (size_t k = 0; k < f.size(); ++k) {
      if (rows[k] == f[k].index_to_metric.num_rows()) continue;
      const int64_t x = f[k].value(rows[k]);
      if (!holders.empty() && x > v) continue;
      if (holders.empty() || x < v) holders.clear();
      v = x;
      holders.push_back(k);
    }
    if (holders.empty()) return Status::OK();
    DSA_RETURN_IF_ERROR(CheckInterrupt());
    DSA_RETURN_IF_ERROR(visit(v, holders, rows));
    for (size_t k : holders) ++rows[k];
  }
}

// One input's ids of one value, read a widened chunk at a time.
struct IdCursor {
  ElementView ids;
  uint64_t next = 0;  // the first element not yet in `buf`
  std::vector<int64_t> buf;
  size_t at = 0;  // the head: buf[at]

  // False when every id has been taken; else buf[at] is the head.
  bool Fill() {
    if (at < buf.size()) return true;
    if (next == ids.count) return false;
    const uint64_t end = std::min(ids.count, next + kChunk);
    Widen(ids, next, end, &buf);
    next = end;
    at = 0;
    return true;
  }
};

// Several inputs' ids of one value, each ascending, merged ascending.
Status MergeIds(std::vector<ElementView> runs, IndexFilesWriter* out) {
  std::vector<IdCursor> cursors;
  for (const ElementView& r : runs) cursors.emplace_back().ids = r;
  std::vector<int64_t> merged;
  merged.reserve(kChunk);
  for (;;) {
    IdCursor* best = nullptr;
    for (IdCursor& c : cursors)
      if (c.Fill() && (!best || c.buf[c.at] < best->buf[best->at])) best = &c;
    if (!best || merged.size() == kChunk) {
      DSA_RETURN_IF_ERROR(CheckInterrupt());
      DSA_RETURN_IF_ERROR(out->AppendIds(merged));
      merged.clear();
    }
    if (!best) return Status::OK();
    merged.push_back(best->buf[best->at++]);
  }
}

// The ids of one value: the holders' index_to_sample rows, each ascending,
// merged ascending into `out`; returns how many. Shards of consecutive ids
// (sample_range) hold runs that do not interleave: those are appended whole,
// in order of their first id, without comparing id by id.
Result<uint64_t> MergeIdRows(const SingleValueFiles& f, const std::vector<size_t>& holders,
                             const std::vector<uint64_t>& rows, IndexFilesWriter* out) {
  std::vector<ElementView> runs;
  uint64_t total = 0;
  for (size_t k : holders) {
    runs.push_back(f[k].index_to_sample.row(rows[k]));
    total += runs.back().count;
  }
  std::erase_if(runs, [](const ElementView& r) { return r.count == 0; });
  std::sort(runs.begin(), runs.end(),
            [](const ElementView& a, const ElementView& b) { return At(a, 0) < At(b, 0); });
  bool apart = true;
  for (size_t i = 1; i < runs.size(); ++i)
    apart = apart && At(runs[i - 1], runs[i - 1].count - 1) < At(runs[i], 0);
  if (!apart) {
    DSA_RETURN_IF_ERROR(MergeIds(std::move(runs), out));
    return total;
  }
  for (const ElementView& r : runs) DSA_RETURN_IF_ERROR(out->AppendIds(r));
  return total;
}

// index_to_metric, index_to_sample and index_to_sample_percentile_merged:
// the k-way merge of the inputs' rows, after a first pass counts the values.
Status WriteIndexFiles(const MetricMergeJob& job, const SingleValueFiles& f) {
  uint64_t distinct = 0;
  DSA_RETURN_IF_ERROR(ForEachValue(f, [&](int64_t, const auto&, const auto&) {
    ++distinct;
    return Status::OK();
  }));
  const auto prefix = [&](std::string_view kind) {
    return MetricFilePrefix(job.out_dir, job.name, kind);
  };
  IndexFilesWriter writer;
  DSA_RETURN_IF_ERROR(writer.Open(
      {prefix(kIndexToMetric), prefix(kIndexToSample), prefix(kIndexToSamplePercentile)},
      FitMetric(f), FitSample(f), WriterOptions(job, 0), distinct));
  FaultPoint("merge");  // test-only (util/fault_point.h): the files are being written
  DSA_RETURN_IF_ERROR(ForEachValue(f,
                                   [&](int64_t value, const std::vector<size_t>& holders,
                                       const std::vector<uint64_t>& rows) -> Status {
                                     DSA_ASSIGN_OR_RETURN(const uint64_t ids,
                                                          MergeIdRows(f, holders, rows, &writer));
                                     if (job.ids_done) job.ids_done->fetch_add(ids);
                                     return writer.EndValue(value, ids);
                                   }));
  return writer.Finish();
}

}  // namespace

uint64_t UnionSamples(const SingleValueFiles& f) {
  uint64_t samples = 0;
  for (const MetricFiles& input : f) samples += input.sample_rows;
  return samples;
}

Result<SingleValueFiles> OpenSingleValueInputs(const MetricMergeJob& job) {
  // Opening checks each .idx row by row, and sample_to_metric has a row per
  // sample: the inputs are opened on parallel threads.
  std::vector<Result<MetricFiles>> opened;
  for (size_t k = 0; k < job.inputs.size(); ++k)
    opened.emplace_back(Status::Internal("not opened"));
  std::atomic<size_t> next{0};
  const auto open_inputs = [&] {
    for (size_t k; (k = next++) < job.inputs.size();) opened[k] = OpenInput(job, job.inputs[k]);
  };
  const size_t threads = std::min<size_t>(job.inputs.size(), std::thread::hardware_concurrency());
  std::vector<WorkerThread> pool;
  for (size_t t = 1; t < threads; ++t) pool.push_back(StartWorkerThread(open_inputs));
  open_inputs();
  for (WorkerThread& t : pool) t.join();
  SingleValueFiles f;
  for (Result<MetricFiles>& input : opened) {  // the first error in input order
    DSA_RETURN_IF_ERROR(input.status());
    f.push_back(std::move(input).value());
  }
  return f;
}

Status CheckSampleToMetricRows(const MetricMergeJob& job, const SingleValueFiles& f) {
  for (const MetricFiles& input : f) {
    DSA_RETURN_IF_ERROR(CheckInterrupt());
    DSA_RETURN_IF_ERROR(AsMergeInput(input.sample_to_metric->CheckRows(InputOptions(job))));
  }
  return Status::OK();
}

Status MergeSingleValueMetric(const MetricMergeJob& job, const SingleValueFiles& f) {
  // sample_to_metric (most of the bytes) shares nothing with the index files
  // but the inputs: a worker writes it while this thread merges the indexes.
  Status s2m;
  WorkerThread worker = StartWorkerThread([&] { s2m = WriteSampleToMetric(job, f); });
  const Status index = WriteIndexFiles(job, f);
  worker.join();
  DSA_RETURN_IF_ERROR(s2m);
  return index;
}

Result<std::vector<int64_t>> SumMetricValues(const MetricMergeJob& job) {
  std::vector<int64_t> sum, row;
  for (size_t k = 0; k < job.inputs.size(); ++k) {
    DSA_ASSIGN_OR_RETURN(IndexedDataset value, OpenKind(job, job.inputs[k], kMetricValue));
    Result<std::vector<int64_t>> read = ReadMetricValueRow(value);
    DSA_RETURN_IF_ERROR(AsMergeInput(read.status()));
    row = std::move(read).value();
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
  return WriteMetricValueFile(MetricFilePrefix(job.out_dir, job.name, kMetricValue), sum,
                              WriterOptions(job, 1));
}

}  // namespace dsanalyze
