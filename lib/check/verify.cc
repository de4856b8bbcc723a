#include "check/verify.h"

#include <algorithm>
#include <limits>
#include <type_traits>

#include "check/element_search.h"
#include "format/dtype.h"
#include "format/indexed_dataset.h"
#include "output/analysis_files.h"
#include "output/analysis_folder.h"
#include "output/analysis_layout.h"
#include "output/metric_files.h"

namespace dsanalyze {

std::string FormatViolation(const Violation& v) {
  std::string s = v.metric + ": " + v.file + ": ";
  if (v.row) s += "row " + std::to_string(*v.row) + ": ";
  return s + v.message;
}

namespace {

using std::to_string;

// Calls f(std::span<const T>) on all elements of `ds`, T its element type.
template <class F>
void WithElements(const IndexedDataset& ds, F&& f) {
  VisitIntDType(ds.dtype(), [&](auto tag) { f(ds.elements().as<decltype(tag)>()); });
}

std::string Name(DType t) { return std::string(DTypeName(t)); }

// Opens the files of one metric folder and records its violations.
class MetricChecker {
 public:
  MetricChecker(const std::string& save_path, const std::string& metric,
                const AnalysisFolder& analysis, std::vector<Violation>* out)
      : save_path_(save_path), metric_(metric), analysis_(analysis), out_(out) {}

  void Fail(std::string_view kind, std::optional<uint64_t> row, std::string message) {
    out_->push_back(
        {metric_, metric_ + "/" + metric_ + "_" + std::string(kind), row, std::move(message)});
  }
  void Fail(std::string_view kind, const FileProblem& p) { Fail(kind, p.row, p.message); }
  void FailFolder(std::string message) {
    out_->push_back({metric_, metric_, std::nullopt, std::move(message)});
  }

  // Whether the run chose to write `kind` (output.files).
  bool Writes(std::string_view kind) const { return WritesKind(analysis_.files, kind); }

  // The pair of `kind`, or nullopt after recording why it cannot be read;
  // nullopt without a violation when the run chose not to write it.
  std::optional<IndexedDataset> Open(std::string_view kind) {
    if (!Writes(kind)) return std::nullopt;
    Result<IndexedDataset> ds =
        OpenMetricFile(MetricFilePrefix(save_path_, metric_, kind), analysis_.table);
    if (!ds.ok()) {
      Fail(kind, std::nullopt, ds.status().message());
      return std::nullopt;
    }
    return std::move(ds).value();
  }

 private:
  const std::string& save_path_;
  const std::string& metric_;
  const AnalysisFolder& analysis_;  // its chosen outputs and code table
  std::vector<Violation>* out_;
};

// True when every row of `ds` has exactly one element.
bool CheckScalarRows(MetricChecker& c, const IndexedDataset& ds, std::string_view kind) {
  const std::optional<FileProblem> p = CheckOneValueARow(ds);
  if (p) c.Fail(kind, *p);
  return !p;
}

struct IndexValues {
  std::vector<int64_t> values;  // one per row of index_to_metric
  bool ascending = true;
};

// Reads index_to_metric (O(distinct values)) and checks it is strictly
// ascending; its values are kept when only that rule is broken.
std::optional<IndexValues> ReadIndexValues(MetricChecker& c, const IndexedDataset& i2m) {
  IndexValues iv;
  const std::optional<FileProblem> p = CheckIndexToMetric(i2m, &iv.values);
  if (!p) return iv;
  c.Fail(kIndexToMetric, *p);
  if (p->rule != FileRule::kAscending) return std::nullopt;
  iv.ascending = false;
  return iv;
}

struct IdScan {
  uint64_t count = 0;
  int64_t min = std::numeric_limits<int64_t>::max();
  int64_t max = std::numeric_limits<int64_t>::min();
};

// One pass over index_to_sample: rows non-empty and ascending, id range.
std::optional<IdScan> ScanSampleIds(MetricChecker& c, const IndexedDataset& i2s) {
  IdScan scan;
  bool in_range = true;
  WithElements(i2s, [&](auto ids) {
    bool empty_reported = false, order_reported = false;
    uint64_t begin = 0;
    for (uint64_t r = 0; r < i2s.num_rows(); ++r) {
      const uint64_t end = i2s.row_begin(r + 1);
      if (begin == end && !empty_reported) {
        c.Fail(kIndexToSample, r, "row is empty (each distinct value has at least one sample)");
        empty_reported = true;
      }
      int64_t prev = std::numeric_limits<int64_t>::min();
      for (uint64_t k = begin; k < end; ++k) {
        int64_t id;
        if (!AsInt64(ids[k], &id)) {
          c.Fail(kIndexToSample, r, "sample id " + to_string(ids[k]) + " exceeds the int64 range");
          in_range = false;
          return;
        }
        if (id < prev && !order_reported) {
          c.Fail(kIndexToSample, r,
                 "sample ids are not ascending: " + to_string(id) + " follows " + to_string(prev));
          order_reported = true;
        }
        prev = id;
        scan.min = std::min(scan.min, id);
        scan.max = std::max(scan.max, id);
      }
      begin = end;
    }
    scan.count = ids.size();
  });
  if (!in_range) return std::nullopt;
  return scan;
}

// The row of index_to_sample holding the second occurrence of `id`.
uint64_t RowOfSecondOccurrence(const IndexedDataset& i2s, int64_t id) {
  uint64_t row = 0;
  WithElements(i2s, [&](auto ids) {
    bool seen = false;
    for (uint64_t r = 0; r < i2s.num_rows(); ++r) {
      for (uint64_t k = i2s.row_begin(r); k < i2s.row_begin(r + 1); ++k) {
        if (static_cast<int64_t>(ids[k]) != id) continue;
        if (seen) {
          row = r;
          return;
        }
        seen = true;
      }
    }
  });
  return row;
}

// Checks that index_to_sample holds each id once and n_samples ids in all.
// Returns true when the ids are exactly 0..n_samples-1 (the default ids).
bool CheckIdsExactlyOnce(MetricChecker& c, const IndexedDataset& i2s, const IdScan& scan,
                         std::optional<uint64_t> n_samples) {
  if (n_samples)
    if (std::optional<FileProblem> p = CheckOneIdASample(i2s, *n_samples))
      c.Fail(kIndexToSample, *p);
  if (scan.count == 0) return n_samples == 0;

  bool duplicate = false;
  // Dense non-negative ids (the usual case): a bitmap, which also names a
  // missing id. Sparse or negative ids: a sorted copy.
  const uint64_t dense_limit = std::max<uint64_t>(8 * scan.count, uint64_t{1} << 26);
  if (scan.min >= 0 && static_cast<uint64_t>(scan.max) < dense_limit) {
    std::vector<uint64_t> seen(static_cast<uint64_t>(scan.max) / 64 + 1, 0);
    WithElements(i2s, [&](auto ids) {
      uint64_t begin = 0;
      for (uint64_t r = 0; r < i2s.num_rows(); ++r) {
        const uint64_t end = i2s.row_begin(r + 1);
        for (uint64_t k = begin; k < end; ++k) {
          const uint64_t id = static_cast<uint64_t>(ids[k]);
          const uint64_t bit = uint64_t{1} << (id % 64);
          if ((seen[id / 64] & bit) != 0 && !duplicate) {
            c.Fail(kIndexToSample, r, "sample id " + to_string(id) + " appears more than once");
            duplicate = true;
          }
          seen[id / 64] |= bit;
        }
        begin = end;
      }
    });
    // With all ids inside 0..N-1, a wrong count or a duplicate means an id is missing.
    if (n_samples && *n_samples > 0 && static_cast<uint64_t>(scan.max) < *n_samples &&
        (duplicate || scan.count != *n_samples)) {
      for (uint64_t id = 0; id < *n_samples; ++id) {
        if ((seen[id / 64] & (uint64_t{1} << (id % 64))) == 0) {
          c.Fail(kIndexToSample, std::nullopt,
                 "sample id " + to_string(id) + " of 0.." + to_string(*n_samples - 1) +
                     " is in no row");
          break;
        }
      }
    }
  } else {
    std::vector<int64_t> sorted;
    sorted.reserve(scan.count);
    WithElements(i2s, [&](auto ids) {
      for (auto id : ids) sorted.push_back(static_cast<int64_t>(id));
    });
    std::sort(sorted.begin(), sorted.end());
    auto dup = std::adjacent_find(sorted.begin(), sorted.end());
    if (dup != sorted.end()) {
      duplicate = true;
      c.Fail(kIndexToSample, RowOfSecondOccurrence(i2s, *dup),
             "sample id " + to_string(*dup) + " appears more than once");
    }
  }
  return n_samples && !duplicate && scan.count == *n_samples && scan.min == 0 &&
         static_cast<uint64_t>(scan.max) == *n_samples - 1;
}

// Default ids: sample_to_metric row id must hold the value of the index row containing id.
void CheckAgreementDefaultIds(MetricChecker& c, const IndexedDataset& s2m,
                              const IndexedDataset& i2s, const std::vector<int64_t>& values) {
  constexpr uint64_t kNone = std::numeric_limits<uint64_t>::max();
  uint64_t bad_id = kNone, bad_row = 0;
  VisitIntDType(s2m.dtype(), [&](auto vtag) {
    const auto s = s2m.elements().as<decltype(vtag)>();
    WithElements(i2s, [&](auto ids) {
      uint64_t begin = 0;
      for (uint64_t r = 0; r < i2s.num_rows(); ++r) {
        const uint64_t end = i2s.row_begin(r + 1);
        const int64_t v = values[r];
        for (uint64_t k = begin; k < end; ++k) {
          const uint64_t id = static_cast<uint64_t>(ids[k]);  // < N, checked by the caller
          if (static_cast<int64_t>(s[id]) != v && id < bad_id) {
            bad_id = id;
            bad_row = r;
          }
        }
        begin = end;
      }
    });
  });
  if (bad_id == kNone) return;
  int64_t actual = 0;
  WithElements(s2m, [&](auto s) { actual = static_cast<int64_t>(s[bad_id]); });
  c.Fail(kSampleToMetric, bad_id,
         "value " + to_string(actual) + ", but index_to_sample lists sample " + to_string(bad_id) +
             " under value " + to_string(values[bad_row]) + " (index row " + to_string(bad_row) +
             ")");
}

// User-defined ids: each value must occur in sample_to_metric as often as its
// index_to_sample row has ids (the order of samples is not known here).
void CheckAgreementByCounts(MetricChecker& c, const IndexedDataset& s2m, const IndexedDataset& i2s,
                            const std::vector<int64_t>& values) {
  std::vector<uint64_t> counts(values.size(), 0);
  bool unknown = false;
  WithElements(s2m, [&](auto s) {
    for (uint64_t i = 0; i < s.size(); ++i) {
      int64_t v;
      auto it = values.end();
      if (AsInt64(s[i], &v)) it = std::lower_bound(values.begin(), values.end(), v);
      if (it == values.end() || *it != v) {
        c.Fail(kSampleToMetric, i,
               "value " + to_string(s[i]) + " does not occur in index_to_metric");
        unknown = true;
        return;
      }
      ++counts[static_cast<size_t>(it - values.begin())];
    }
  });
  if (unknown) return;
  for (uint64_t r = 0; r < values.size(); ++r) {
    const uint64_t size = static_cast<uint64_t>(i2s.row_size(r));
    if (counts[r] != size) {
      c.Fail(kSampleToMetric, std::nullopt,
             "value " + to_string(values[r]) + " occurs " + to_string(counts[r]) +
                 " times, but index_to_sample row " + to_string(r) + " holds " + to_string(size) +
                 " sample ids");
      return;
    }
  }
}

// The percentile file must regroup index_to_sample's rows (analysis_layout.h PercentileStep).
void CheckPercentile(MetricChecker& c, const IndexedDataset& i2s, const IndexedDataset& pct) {
  const uint64_t u = i2s.num_rows();
  const uint64_t step = PercentileStep(u);
  const uint64_t expected_rows = PercentileRows(u);
  if (pct.num_rows() != expected_rows)
    c.Fail(kIndexToSamplePercentile, std::nullopt,
           "has " + to_string(pct.num_rows()) + " rows, expected " + to_string(expected_rows) +
               " (ceil(U / step) with U = " + to_string(u) +
               " index_to_sample rows, step = " + to_string(step) + ")");
  const uint64_t rows = std::min(pct.num_rows(), expected_rows);
  for (uint64_t k = 0; k < rows; ++k) {
    const uint64_t lo = k * step, hi = std::min(u, lo + step);
    const uint64_t want = i2s.row_begin(hi) - i2s.row_begin(lo);
    if (static_cast<uint64_t>(pct.row_size(k)) != want) {
      c.Fail(kIndexToSamplePercentile, k,
             "has " + to_string(pct.row_size(k)) + " sample ids, expected " + to_string(want) +
                 " (index_to_sample rows " + to_string(lo) + ".." + to_string(hi - 1) + ")");
      return;
    }
  }
  // Same row grouping: the elements must be index_to_sample's, in order.
  if (pct.num_rows() != expected_rows || pct.dtype() != i2s.dtype()) return;
  const uint64_t bytes = i2s.num_elements() * ItemSize(i2s.dtype());
  std::optional<uint64_t> diff =
      FirstDifferentByte(pct.elements().data, i2s.elements().data, bytes);
  if (!diff) return;
  const uint64_t e = *diff / ItemSize(i2s.dtype());
  const uint64_t k = RowOfElement(pct, e);
  c.Fail(kIndexToSamplePercentile, k,
         "element " + to_string(e - pct.row_begin(k)) +
             " differs from the concatenated index_to_sample rows " + to_string(k * step) + ".." +
             to_string(std::min(u, k * step + step) - 1));
}

void CheckDType(MetricChecker& c, std::string_view kind, DType actual, DType expected,
                const std::string& why) {
  if (actual != expected)
    c.Fail(kind, std::nullopt,
           "dtype is " + Name(actual) + ", expected " + Name(expected) + " (" + why + ")");
}

// `listed_samples`: N as summary.json lists it, for the sample dtype when
// sample_to_metric was not chosen (output.files).
void VerifySingleValue(MetricChecker& c, VerifiedMetric& m,
                       std::optional<uint64_t> listed_samples) {
  std::optional<IndexedDataset> s2m = c.Open(kSampleToMetric);
  std::optional<IndexedDataset> i2m = c.Open(kIndexToMetric);
  std::optional<IndexedDataset> i2s = c.Open(kIndexToSample);
  std::optional<IndexedDataset> pct = c.Open(kIndexToSamplePercentile);

  const bool s2m_scalar = s2m && CheckScalarRows(c, *s2m, kSampleToMetric);
  std::optional<uint64_t> n_samples;
  if (s2m) n_samples = m.samples = s2m->num_rows();
  else if (!c.Writes(kSampleToMetric))
    m.samples = listed_samples;  // not chosen (output.files): N as summary.json lists it

  std::optional<IndexValues> index;
  if (i2m) {
    m.distinct_values = i2m->num_rows();
    index = ReadIndexValues(c, *i2m);
  }
  if (index && !index->values.empty()) {
    auto [lo, hi] = std::minmax_element(index->values.begin(), index->values.end());
    const DType want = FitIntDType(*lo, *hi);
    const std::string why = "fitted to values " + to_string(*lo) + ".." + to_string(*hi);
    CheckDType(c, kIndexToMetric, i2m->dtype(), want, why);
    if (s2m) CheckDType(c, kSampleToMetric, s2m->dtype(), want, why);
  }

  if (!i2s) return;
  if (!c.Writes(kIndexToMetric)) m.distinct_values = i2s->num_rows();  // a row per value
  const std::optional<FileProblem> rows = i2m ? CheckOneRowPerValue(*i2s, *i2m) : std::nullopt;
  const bool rows_match = i2m && !rows;
  if (rows) c.Fail(kIndexToSample, *rows);
  if (pct) CheckPercentile(c, *i2s, *pct);

  std::optional<IdScan> scan = ScanSampleIds(c, *i2s);
  if (!scan) return;
  if (!m.samples && !c.Writes(kSampleToMetric)) m.samples = scan->count;  // each id once
  const bool default_ids = CheckIdsExactlyOnce(c, *i2s, *scan, n_samples);
  if (!s2m) n_samples = listed_samples;
  if (n_samples && (*n_samples > 0 || scan->count > 0)) {
    const int64_t n_last = static_cast<int64_t>(*n_samples) - 1;
    const IdSpan ids =
        SampleIdSpan(*n_samples, scan->count ? scan->min : 0, scan->count ? scan->max : n_last);
    const DType want = FitIntDType(ids.lo, ids.hi);
    const std::string why = "fitted to sample ids " + to_string(ids.lo) + ".." + to_string(ids.hi);
    CheckDType(c, kIndexToSample, i2s->dtype(), want, why);
    if (pct) CheckDType(c, kIndexToSamplePercentile, pct->dtype(), want, why);
  }

  if (!s2m_scalar || !index || !rows_match) return;
  if (default_ids)
    CheckAgreementDefaultIds(c, *s2m, *i2s, index->values);
  else if (index->ascending)
    CheckAgreementByCounts(c, *s2m, *i2s, index->values);
}

void VerifyAccumulate(MetricChecker& c, VerifiedMetric& m) {
  std::optional<IndexedDataset> mv = c.Open(kMetricValue);
  if (!mv) return;
  if (mv->num_rows() > 0) m.length = static_cast<uint64_t>(mv->row_size(0));
  std::vector<int64_t> row;
  if (std::optional<FileProblem> p = CheckMetricValue(*mv, &row)) {
    c.Fail(kMetricValue, *p);
    return;
  }
  const auto [lo, hi] = std::minmax_element(row.begin(), row.end());
  CheckDType(c, kMetricValue, mv->dtype(), MetricValueDType(row),
             "fitted to the row's values " + to_string(*lo) + ".." + to_string(*hi));
}

// A metric as verify reports it before its files are read, with the files
// the run chose not to write.
VerifiedMetric Skipping(const AnalysisFolder& analysis, const std::string& name, MetricType type) {
  VerifiedMetric m;
  m.name = name;
  m.type = type;
  for (std::string_view kind : SkippedKinds(analysis, type))
    m.skipped.push_back(name + "/" + name + "_" + std::string(kind));
  return m;
}

// The N summary.json lists for `metric`, if any.
std::optional<uint64_t> ListedSamples(const AnalysisFolder& analysis, const std::string& metric) {
  for (const ListedMetric& m : analysis.listed)
    if (m.name == metric) return m.samples;
  return std::nullopt;
}

// The save path must hold exactly the analysis its summary.json lists: a
// metric folder it does not list (left from another analysis) and a listed
// metric without a folder are violations of that folder. Without summary.json
// (a DeepSpeed output) the metric folders are the analysis.
void CheckAgainstSummary(const AnalysisFolder& analysis, VerifyReport* report) {
  const SummaryMismatch mismatch = CheckFoldersAgainstSummary(analysis);
  for (const std::string& name : mismatch.unlisted_folders)
    report->violations.push_back(
        {name, name, std::nullopt,
         "metric folder is not listed in summary.json (left from another analysis?)"});
  // Listed metrics none of whose files was chosen: no folder, nothing to check.
  for (const ListedMetric& m : analysis.listed) {
    const bool seen = std::any_of(report->metrics.begin(), report->metrics.end(),
                                  [&](const VerifiedMetric& v) { return v.name == m.name; });
    if (seen || !m.type) continue;
    const bool missing =
        std::any_of(mismatch.missing_folders.begin(), mismatch.missing_folders.end(),
                    [&](const ListedMetric& x) { return x.name == m.name; });
    if (!missing) report->metrics.push_back(Skipping(analysis, m.name, *m.type));
  }
  for (const ListedMetric& m : mismatch.missing_folders) {
    VerifiedMetric missing;
    missing.name = m.name;
    missing.type = m.type.value_or(MetricType::kSingleValuePerSample);
    report->metrics.push_back(std::move(missing));
    report->violations.push_back(
        {m.name, m.name, std::nullopt,
         "listed in summary.json, but there is no metric folder " + m.name + "/ with its files"});
  }
  std::sort(report->metrics.begin(), report->metrics.end(),
            [](const VerifiedMetric& a, const VerifiedMetric& b) { return a.name < b.name; });
}

}  // namespace

Result<VerifyReport> VerifyOutput(const std::string& save_path) {
  DSA_ASSIGN_OR_RETURN(AnalysisFolder analysis, ReadAnalysisFolder(save_path));
  VerifyReport report;
  for (const MetricFolder& f : analysis.folders) {
    MetricChecker checker(save_path, f.name, analysis, &report.violations);
    if (f.types.size() > 1)
      checker.FailFolder("holds both single_value_per_sample files and " + f.name +
                         "_metric_value; a metric is one or the other");
    VerifiedMetric m = Skipping(analysis, f.name, f.types.front());
    if (TraitsOf(m.type).per_sample)
      VerifySingleValue(checker, m, ListedSamples(analysis, f.name));
    else
      VerifyAccumulate(checker, m);
    report.metrics.push_back(std::move(m));
  }
  CheckAgainstSummary(analysis, &report);
  return report;
}

}  // namespace dsanalyze
