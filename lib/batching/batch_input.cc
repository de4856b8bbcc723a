#include "batching/batch_input.h"

#include <algorithm>

#include "batching/python_random.h"
#include "output/analysis_files.h"
#include "output/analysis_folder.h"
#include "output/analysis_layout.h"
#include "util/huge_pages.h"

namespace dsanalyze {
namespace {

using std::to_string;

Status CheckNotSampleIndices(const std::string& analysis, const AnalysisFolder& folder) {
  const nlohmann::json& c = folder.config;
  if (!c.is_object() || !c.contains("dataset") || !c["dataset"].is_object()) return Status::OK();
  const nlohmann::json& d = c["dataset"];
  if (!d.contains("sample_indices") || d["sample_indices"].is_null()) return Status::OK();
  return Status::BadInput(analysis +
                          ": was made with dataset.sample_indices: its ids are not the rows of "
                          "sample_to_metric, which DeepSpeed's dynamic batching takes as sample "
                          "ids; run the analysis without sample_indices and pass the ids you "
                          "want as --sample-ids");
}

// A value the planner cannot take: negative, or a uint64 past int64.
Status BadValue(const std::string& prefix, const std::string& where, const std::string& value) {
  const std::string said = prefix + ": " + where + "holds the value " + value;
  if (value.starts_with('-'))
    return Status::BadInput(said + ": token counts cannot be negative; batch by a length metric");
  return Status::BadInput(said + ", past the int64 range of token counts");
}

// The seqlen order's smallest value: index_to_metric's first (it ascends).
// The other orders check each row as they read it (RowSource).
Status CheckIndexValues(const MetricFiles& index) {
  if (index.index_to_metric.num_rows() == 0 || index.value(0) >= 0) return Status::OK();
  return BadValue(index.index_to_metric.prefix(), "", to_string(index.value(0)));
}

// The rows of sample_to_metric in order, or the filter ids in theirs. A
// negative value, or a uint64 past int64, is BadInput naming its row.
class RowSource : public SampleSource {
 public:
  RowSource(const IndexedDataset& values, const FilterIds* filter)
      : file_(values),
        values_(values.elements()),
        filter_(filter),
        end_(filter ? filter->array.size() : values.num_rows()) {}

  Result<size_t> Read(std::span<Sample> out) override {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(out.size(), end_ - next_));
    Status status;
    VisitIntDType(values_.dtype, [&](auto tag) {
      const auto v = values_.as<decltype(tag)>();
      for (size_t i = 0; i < n && status.ok(); ++i) {
        const int64_t id = filter_ ? filter_->array.at(next_ + i) : static_cast<int64_t>(next_ + i);
        const auto value = v[static_cast<size_t>(id)];
        out[i].id = id;
        if (!AsInt64(value, &out[i].value) || out[i].value < 0)
          status = BadValue(file_.prefix(), "row " + to_string(id) + ": ", to_string(value));
      }
    });
    if (!status.ok()) return status;
    next_ += n;
    return n;
  }

 private:
  const IndexedDataset& file_;
  ElementView values_;
  const FilterIds* filter_;
  uint64_t end_;
  uint64_t next_ = 0;
};

// index_to_sample's ids in order with their row's value, those not in the
// filter skipped.
class IndexSource : public SampleSource {
 public:
  IndexSource(const BatchInput& in, const FilterIds* filter) : in_(in), filter_(filter) {}

  Result<size_t> Read(std::span<Sample> out) override {
    const IndexedDataset& i2s = in_.index->index_to_sample;
    const ElementView all = i2s.elements();
    size_t n = 0;
    Status status;
    while (n < out.size() && row_ < i2s.num_rows() && status.ok()) {
      const int64_t value = in_.index->value(row_);
      const uint64_t end = i2s.row_begin(row_ + 1);
      VisitIntDType(all.dtype, [&](auto tag) {
        const auto ids = all.as<decltype(tag)>();
        for (; pos_ < end && n < out.size(); ++pos_) {
          const int64_t id = static_cast<int64_t>(ids[pos_]);
          if (id < 0 || static_cast<uint64_t>(id) >= in_.samples) {
            status = OutOfRange(id);
            return;
          }
          if (!filter_ || filter_->member[static_cast<size_t>(id)]) out[n++] = {value, id};
        }
      });
      if (pos_ == end) ++row_;
    }
    if (!status.ok()) return status;
    return n;
  }

 private:
  Status OutOfRange(int64_t id) const {
    return Status::BadInput(in_.index->index_to_sample.prefix() + ": holds the id " +
                            to_string(id) + ", not a row of sample_to_metric (" +
                            to_string(in_.samples) +
                            " rows): was the analysis made with sample_indices?");
  }
  const BatchInput& in_;
  const FilterIds* filter_;
  uint64_t row_ = 0;
  uint64_t pos_ = 0;
};

// The dataloader list, shuffled once, handed out in order.
class ShuffledSource : public SampleSource {
 public:
  explicit ShuffledSource(std::vector<Sample> samples) : samples_(std::move(samples)) {}

  Result<size_t> Read(std::span<Sample> out) override {
    const size_t n = std::min(out.size(), samples_.size() - next_);
    std::copy_n(samples_.begin() + static_cast<ptrdiff_t>(next_), n, out.begin());
    next_ += n;
    return n;
  }

 private:
  std::vector<Sample> samples_;
  size_t next_ = 0;
};

Result<std::unique_ptr<SampleSource>> Shuffled(const BatchInput& input, const FilterIds* filter,
                                               int64_t seed) {
  // Huge pages: the shuffle touches the whole array at random.
  const size_t most = filter ? filter->array.size() : input.samples;
  std::vector<Sample> all;
  ReserveOnHugePages(all, most);
  all.resize(most);
  RowSource rows(input.sample_to_metric, filter);
  DSA_ASSIGN_OR_RETURN(const size_t n, rows.Read(all));
  all.resize(n);
  PythonRandom random(seed);
  PythonShuffle<Sample>(all, random);
  return std::unique_ptr<SampleSource>(new ShuffledSource(std::move(all)));
}

}  // namespace

Result<BatchInput> OpenBatchInput(const std::string& analysis, const std::string& metric,
                                  PickingOrder order) {
  DSA_ASSIGN_OR_RETURN(const AnalysisFolder folder, ReadAnalysisFolder(analysis));
  DSA_RETURN_IF_ERROR(CheckNotSampleIndices(analysis, folder));
  DSA_RETURN_IF_ERROR(FindSingleValueMetric(analysis, folder, metric));
  BatchInput in;
  DSA_ASSIGN_OR_RETURN(in.sample_to_metric,
                       OpenAnalysisFile(analysis, folder, metric, kSampleToMetric));
  if (std::optional<FileProblem> p = CheckOneValueARow(in.sample_to_metric))
    return BadFile(in.sample_to_metric.prefix(), *p);
  in.samples = in.sample_to_metric.num_rows();
  if (order == PickingOrder::kSeqlen) {
    Result<MetricFiles> index = OpenMetricFiles(analysis, folder, metric, SampleToMetric::kCount);
    if (!index.ok() && index.status().code() == Status::Code::kBadInput)
      return Status::BadInput(index.status().message() +
                              " (the seqlen order reads the index files; dataloader and random "
                              "read only sample_to_metric, as DeepSpeed does)");
    DSA_ASSIGN_OR_RETURN(in.index, std::move(index));
    DSA_RETURN_IF_ERROR(CheckIndexValues(*in.index));
  }
  return in;
}

Result<FilterIds> ReadFilterIds(const std::string& path, uint64_t samples) {
  FilterIds f;
  DSA_ASSIGN_OR_RETURN(f.array, NpyArray::Open(path));
  if (f.array.shape().size() != 1)
    return Status::BadInput(path + ": has shape " + f.array.shape_string() +
                            ": --sample-ids must be a 1-D array of sample ids");
  f.member.assign(static_cast<size_t>(samples), false);
  for (uint64_t i = 0; i < f.array.size(); ++i) {
    const int64_t id = f.array.at(i);
    if (id < 0 || static_cast<uint64_t>(id) >= samples)
      return Status::BadInput(path + ": entry " + to_string(i) + " is " + to_string(id) +
                              ", not a sample id of the analysis (0 to " + to_string(samples) +
                              " exclusive)");
    if (f.member[static_cast<size_t>(id)])
      return Status::BadInput(path + ": entry " + to_string(i) + " repeats the id " +
                              to_string(id) + ": each sample may be listed once");
    f.member[static_cast<size_t>(id)] = true;
  }
  return f;
}

Result<std::unique_ptr<SampleSource>> MakeSampleSource(const BatchInput& input,
                                                       const FilterIds* filter, PickingOrder order,
                                                       int64_t seed) {
  switch (order) {
    case PickingOrder::kSeqlen:
      return std::unique_ptr<SampleSource>(new IndexSource(input, filter));
    case PickingOrder::kRandom:
      return Shuffled(input, filter, seed);
    default:
      return std::unique_ptr<SampleSource>(new RowSource(input.sample_to_metric, filter));
  }
}

}  // namespace dsanalyze
