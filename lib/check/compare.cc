#include "check/compare.h"

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <set>
#include <system_error>
#include <utility>

#include "check/element_search.h"
#include "format/indexed_dataset.h"
#include "output/analysis_files.h"
#include "output/analysis_folder.h"
#include "output/analysis_layout.h"

namespace dsanalyze {
namespace {

namespace fs = std::filesystem;
using std::to_string;

// Relative prefixes of the .bin and .idx files under `dir`, skipping dot-entries.
Result<std::set<std::string>> PairPrefixes(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return Status::BadInput(dir + ": " +
                            (fs::exists(dir, ec) ? "not a directory" : "no such directory"));
  std::set<std::string> prefixes;
  fs::recursive_directory_iterator it(dir, ec);
  if (ec) return Status::IoError(dir + ": cannot list: " + ec.message());
  for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) break;
    const fs::path& p = it->path();
    if (IsHiddenName(p.filename().string())) {
      if (it->is_directory(ec)) it.disable_recursion_pending();
      continue;
    }
    const std::string ext = p.extension().string();
    if ((ext == ".bin" || ext == ".idx") && it->is_regular_file(ec))
      prefixes.insert(p.lexically_relative(dir).replace_extension().generic_string());
  }
  if (ec) return Status::IoError(dir + ": cannot list: " + ec.message());
  return prefixes;
}

// "[1, 2, 3, ...] (40 elements)" for messages.
std::string RowPreview(const IndexedDataset& ds, uint64_t r) {
  if (r >= ds.num_rows()) return "(no such row)";
  constexpr uint64_t kShown = 8;
  std::string s = "[";
  VisitIntDType(ds.dtype(), [&](auto tag) {
    const auto row = ds.row(r).as<decltype(tag)>();
    for (uint64_t i = 0; i < std::min<uint64_t>(row.size(), kShown); ++i)
      s += (i ? ", " : "") + to_string(row[i]);
    if (row.size() > kShown) s += ", ...";
  });
  return s + "] (" + to_string(ds.row_size(r)) + " elements)";
}

std::string DocIdxText(const IndexedDataset& ds) {
  constexpr uint64_t kShown = 6;
  std::string s = "[";
  for (uint64_t i = 0; i < std::min(ds.doc_count(), kShown); ++i)
    s += (i ? ", " : "") + to_string(ds.doc_idx(i));
  if (ds.doc_count() > kShown) s += ", ... (" + to_string(ds.doc_count()) + " entries)";
  return s + "]";
}

bool SameDocIdx(const IndexedDataset& a, const IndexedDataset& b) {
  if (a.doc_count() != b.doc_count()) return false;
  for (uint64_t i = 0; i < a.doc_count(); ++i)
    if (a.doc_idx(i) != b.doc_idx(i)) return false;
  return true;
}

// The content difference of two valid pairs (dtype, rows, row sizes, values), if any.
std::optional<FileDifference> ContentDifference(const std::string& prefix, const IndexedDataset& a,
                                                const IndexedDataset& b) {
  if (a.dtype() != b.dtype())
    return FileDifference{prefix, std::nullopt,
                          "dtype " + std::string(DTypeName(a.dtype())) + " in A, " +
                              std::string(DTypeName(b.dtype())) + " in B"};
  const uint64_t common = std::min(a.num_rows(), b.num_rows());
  uint64_t first = common;  // first row whose size differs
  for (uint64_t r = 0; r < common; ++r) {
    if (a.row_size(r) != b.row_size(r)) {
      first = r;
      break;
    }
  }
  // Rows before `first` have equal sizes, so their elements line up byte for byte.
  const size_t item = ItemSize(a.dtype());
  std::optional<uint64_t> element;  // first differing element, inside a row of equal size
  if (std::optional<uint64_t> byte =
          FirstDifferentByte(a.elements().data, b.elements().data, a.row_begin(first) * item)) {
    element = *byte / item;
    first = RowOfElement(a, *element);
  }
  if (first == common && a.num_rows() == b.num_rows()) return std::nullopt;

  std::string msg;
  if (a.num_rows() != b.num_rows())
    msg = to_string(a.num_rows()) + " rows in A, " + to_string(b.num_rows()) + " in B; ";
  if (element) {
    VisitIntDType(a.dtype(), [&](auto tag) {
      using T = decltype(tag);
      msg += "element " + to_string(*element - a.row_begin(first)) + " of " +
             to_string(a.row_size(first)) + ": " + to_string(a.elements().as<T>()[*element]) +
             " in A, " + to_string(b.elements().as<T>()[*element]) + " in B";
    });
  } else {
    msg += "A " + RowPreview(a, first) + ", B " + RowPreview(b, first);
  }
  return FileDifference{prefix, first, msg};
}

// Where a side's metric list comes from, for the message naming a metric
// the other side lacks.
std::string WhyAbsent(const AnalysisFolder& side, const char* label) {
  return side.has_summary ? std::string(label) + "'s summary.json does not list it"
                          : std::string(label) + " has no such metric folder";
}

// The metrics of one analysis and not the other, as differences named by the metric.
void CompareMetricLists(const AnalysisFolder& a, const AnalysisFolder& b, CompareReport* report) {
  const std::vector<std::string> names_a = AnalysisMetricNames(a);
  const std::vector<std::string> names_b = AnalysisMetricNames(b);
  std::vector<std::string> all;
  std::set_union(names_a.begin(), names_a.end(), names_b.begin(), names_b.end(),
                 std::back_inserter(all));
  for (const std::string& name : all) {
    const bool in_a = std::binary_search(names_a.begin(), names_a.end(), name);
    const bool in_b = std::binary_search(names_b.begin(), names_b.end(), name);
    if (in_a && !in_b)
      report->different.push_back(
          {name, std::nullopt, "metric only in A (" + WhyAbsent(b, "B") + ")"});
    else if (in_b && !in_a)
      report->different.push_back(
          {name, std::nullopt, "metric only in B (" + WhyAbsent(a, "A") + ")"});
  }
}

// The pairs under `dir`'s folders of `metrics` (sorted): a metric only one
// side has is one difference of its own, and a folder of no metric of the
// analysis (left from another one, data_clusters/) is not compared.
Result<std::set<std::string>> PairsOf(const std::string& dir,
                                      const std::vector<std::string>& metrics) {
  DSA_ASSIGN_OR_RETURN(std::set<std::string> all, PairPrefixes(dir));
  std::set<std::string> pairs;
  for (const std::string& prefix : all)
    if (std::binary_search(metrics.begin(), metrics.end(), prefix.substr(0, prefix.find('/'))))
      pairs.insert(prefix);
  return pairs;
}

// A metric folder that `side`'s summary.json does not list, or a listed metric
// without a folder: the folder does not hold the analysis it claims to.
void CheckAgainstSummary(const AnalysisFolder& analysis, const std::string& side,
                         CompareReport* report) {
  const SummaryMismatch mismatch = CheckFoldersAgainstSummary(analysis);
  for (const std::string& name : mismatch.unlisted_folders)
    report->different.push_back({name, std::nullopt,
                                 "metric folder in " + side + " is not listed in " + side +
                                     "'s summary.json (left from another analysis?)"});
  for (const ListedMetric& m : mismatch.missing_folders)
    report->different.push_back(
        {m.name, std::nullopt,
         "listed in " + side + "'s summary.json, but " + side + " has no metric folder"});
}

// For a pair only one side has: the side that chose not to write it
// (summary.json "files", analysis_layout.h), or nullptr.
const char* SkippingSide(const std::string& prefix, const AnalysisFolder& a,
                         const AnalysisFolder& b) {
  const std::string metric = prefix.substr(0, prefix.find('/'));
  const std::string stem = metric + "/" + metric + "_";
  if (prefix.rfind(stem, 0) != 0) return nullptr;
  const std::string kind = prefix.substr(stem.size());
  const auto is_kind = [&](std::string_view k) { return k == kind; };
  const auto of_type = [&](const MetricTypeTraits& t) {
    return std::any_of(t.kinds.begin(), t.kinds.end(), is_kind);
  };
  if (std::none_of(kMetricTypes.begin(), kMetricTypes.end(), of_type)) return nullptr;
  if (!WritesKind(a.files, kind)) return "A";
  if (!WritesKind(b.files, kind)) return "B";
  return nullptr;
}

// The iteration positions [begin, end) a dsanalyze analysis holds, as its
// summary.json records them: its config's dataset.sample_range (a part, or a
// merge of parts), else [0, N) with N a single-value metric's samples.
// Unknown for a DeepSpeed output or an analysis with no single-value metric.
std::optional<std::pair<uint64_t, uint64_t>> PositionsOf(const AnalysisFolder& side) {
  if (!side.has_summary || !side.config.is_object()) return std::nullopt;
  const auto dataset = side.config.find("dataset");
  if (dataset != side.config.end() && dataset->is_object() && dataset->contains("sample_range")) {
    const nlohmann::json& range = dataset->at("sample_range");
    if (range.is_array() && range.size() == 2 && range[0].is_number_unsigned() &&
        range[1].is_number_unsigned() && range[0] < range[1])
      return std::pair(range[0].get<uint64_t>(), range[1].get<uint64_t>());
  }
  for (const ListedMetric& m : side.listed)
    if (m.type && TraitsOf(*m.type).per_sample && m.samples)
      return std::pair(uint64_t{0}, *m.samples);
  return std::nullopt;
}

std::string DescribePositions(const std::pair<uint64_t, uint64_t>& p) {
  return "positions [" + to_string(p.first) + ", " + to_string(p.second) + ") (" +
         to_string(p.second - p.first) + " samples)";
}

// CompareReport::samples_differ.
std::optional<std::string> SamplesDiffer(const AnalysisFolder& a, const AnalysisFolder& b) {
  const auto in_a = PositionsOf(a), in_b = PositionsOf(b);
  if (!in_a || !in_b || *in_a == *in_b) return std::nullopt;
  return "A and B analyse different samples: A " + DescribePositions(*in_a) + ", B " +
         DescribePositions(*in_b) + " (dataset.sample_range in their summary.json)";
}

// The pairs of the metrics both sides list that neither chose to write
// (summary.json "files"): skipped by choice on both sides, not missing.
void AddSkippedByBoth(const AnalysisFolder& a, const AnalysisFolder& b,
                      const std::vector<std::string>& common, CompareReport* report) {
  for (const ListedMetric& m : a.listed) {
    if (!m.type || !std::binary_search(common.begin(), common.end(), m.name)) continue;
    const std::vector<std::string_view> by_b = SkippedKinds(b, *m.type);
    for (std::string_view kind : SkippedKinds(a, *m.type))
      if (std::find(by_b.begin(), by_b.end(), kind) != by_b.end())
        report->skipped_by_choice.push_back(
            {MetricFilePrefix("", m.name, kind), std::nullopt,
             "A and B chose not to write it (output.files in their summary.json)"});
  }
}

// One analysis side: its path and what ReadAnalysisFolder found there.
struct Side {
  const std::string& path;
  const AnalysisFolder& analysis;
};

// The pair `prefix` both sides have, compared by content, into `report`.
void ComparePair(const std::string& prefix, const Side& a, const Side& b, bool strict,
                 CompareReport* report) {
  // Analysis outputs are integer; a float file is reported as not comparable.
  Result<IndexedDataset> da =
      OpenMetricFile((fs::path(a.path) / prefix).string(), a.analysis.table);
  Result<IndexedDataset> db =
      OpenMetricFile((fs::path(b.path) / prefix).string(), b.analysis.table);
  if (!da.ok() || !db.ok()) {
    report->different.push_back(
        {prefix, std::nullopt,
         "cannot compare: " + (da.ok() ? db.status() : da.status()).message()});
    return;
  }
  if (std::optional<FileDifference> d = ContentDifference(prefix, *da, *db)) {
    report->different.push_back(std::move(*d));
  } else if (!SameDocIdx(*da, *db)) {
    FileDifference d{prefix, std::nullopt,
                     "doc_idx " + DocIdxText(*da) + " in A, " + DocIdxText(*db) + " in B"};
    (strict ? report->different : report->equal_except_doc_idx).push_back(std::move(d));
  } else {
    report->equal.push_back(prefix);
  }
}

}  // namespace

Result<CompareReport> CompareOutputs(const std::string& a, const std::string& b, bool strict) {
  DSA_ASSIGN_OR_RETURN(AnalysisFolder analysis_a, ReadAnalysisFolder(a));
  DSA_ASSIGN_OR_RETURN(AnalysisFolder analysis_b, ReadAnalysisFolder(b));
  const std::vector<std::string> names_a = AnalysisMetricNames(analysis_a);
  const std::vector<std::string> names_b = AnalysisMetricNames(analysis_b);
  std::vector<std::string> common;
  std::set_intersection(names_a.begin(), names_a.end(), names_b.begin(), names_b.end(),
                        std::back_inserter(common));
  DSA_ASSIGN_OR_RETURN(std::set<std::string> in_a, PairsOf(a, common));
  DSA_ASSIGN_OR_RETURN(std::set<std::string> in_b, PairsOf(b, common));
  std::set<std::string> all = in_a;
  all.insert(in_b.begin(), in_b.end());

  CompareReport report;
  report.samples_differ = SamplesDiffer(analysis_a, analysis_b);
  CheckAgainstSummary(analysis_a, "A", &report);
  CheckAgainstSummary(analysis_b, "B", &report);
  CompareMetricLists(analysis_a, analysis_b, &report);
  for (const std::string& prefix : all) {
    if (!in_b.count(prefix) || !in_a.count(prefix)) {
      if (const char* side = SkippingSide(prefix, analysis_a, analysis_b)) {
        report.skipped_by_choice.push_back({prefix, std::nullopt,
                                            std::string(side) +
                                                " chose not to write it (output.files in " + side +
                                                "'s summary.json)"});
        continue;
      }
      report.different.push_back(
          {prefix, std::nullopt, std::string("only in ") + (in_b.count(prefix) ? "B" : "A")});
      continue;
    }
    ComparePair(prefix, {a, analysis_a}, {b, analysis_b}, strict, &report);
  }
  AddSkippedByBoth(analysis_a, analysis_b, common, &report);
  // Nothing compared cannot show two analyses equal (both left out every
  // file the other wrote, or wrote none).
  if (report.equal.empty() && report.equal_except_doc_idx.empty() && report.different.empty())
    report.different.push_back({"(all files)", std::nullopt,
                                "nothing to compare: no metric file is in both A and B (" +
                                    std::to_string(report.skipped_by_choice.size()) +
                                    " skipped by choice)"});
  return report;
}

}  // namespace dsanalyze
