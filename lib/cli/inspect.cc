// `dsanalyze inspect PREFIX [--rows A:B] [--json] [--dtype-codes T]`: shows
// the header of a .bin/.idx pair (dtype, counts, doc_idx, file sizes) and a
// range of rows. Text output shows each row's size and first 16 values; JSON
// output holds every value of the chosen rows. `--dtype-codes auto` (the
// default) reads the dtype byte with the table the file sizes fit.
// `dsanalyze inspect --config FILE [--json]`: opens the dataset of a run
// config as a run does (every check included) and describes it: its samples
// and, for a blend, each component's samples, draws, epochs and weight.
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <type_traits>

#include "cli/command_output.h"
#include "cli/commands.h"
#include "config/config.h"
#include "dataset/open_dataset.h"
#include "format/indexed_dataset.h"

namespace dsanalyze::cli {
namespace {

constexpr uint64_t kDefaultRows = 5;
constexpr uint64_t kValuesPerRowShown = 16;
constexpr uint64_t kDocIdxShown = 4;  // entries shown at each end of doc_idx

struct RowRange {
  uint64_t begin = 0;
  uint64_t end = 0;
};

// Parses one end of "A:B": empty means `fallback`, negative counts from the end.
Result<uint64_t> ParseRowBound(const std::string& spec, std::string_view text, uint64_t rows,
                               uint64_t fallback) {
  if (text.empty()) return fallback;
  int64_t v = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || ptr != end)
    return Status::BadInput("--rows \"" + spec +
                            "\": expected A:B with integers A and B (end exclusive; "
                            "negative counts from the end; either may be omitted)");
  const int64_t n = static_cast<int64_t>(rows);
  const int64_t resolved = v < 0 ? v + n : v;
  if (resolved < 0 || resolved > n)
    return Status::BadInput("--rows \"" + spec + "\": " + std::string(text) +
                            " is out of range for a dataset of " + std::to_string(rows) + " rows");
  return static_cast<uint64_t>(resolved);
}

Result<RowRange> ParseRowRange(const std::string& spec, uint64_t rows) {
  if (spec.empty()) return RowRange{0, std::min(rows, kDefaultRows)};
  const size_t colon = spec.find(':');
  if (colon == std::string::npos || spec.find(':', colon + 1) != std::string::npos)
    return Status::BadInput("--rows \"" + spec +
                            "\": expected A:B (end exclusive), for example 0:10, -5: or :100");
  std::string_view s(spec);
  DSA_ASSIGN_OR_RETURN(uint64_t begin, ParseRowBound(spec, s.substr(0, colon), rows, 0));
  DSA_ASSIGN_OR_RETURN(uint64_t end, ParseRowBound(spec, s.substr(colon + 1), rows, rows));
  if (begin > end)
    return Status::BadInput("--rows \"" + spec + "\": start " + std::to_string(begin) +
                            " is after end " + std::to_string(end));
  return RowRange{begin, end};
}

// Elements [0, limit) of row i as JSON numbers (int64 or uint64, exactly).
nlohmann::json RowValues(const IndexedDataset& ds, uint64_t i, uint64_t limit) {
  nlohmann::json values = nlohmann::json::array();
  VisitIntDType(ds.dtype(), [&](auto t) {
    using T = decltype(t);
    using Wide = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;
    std::span<const T> row = ds.typed_row<T>(i);
    for (uint64_t k = 0; k < std::min<uint64_t>(limit, row.size()); ++k)
      values.push_back(static_cast<Wide>(row[k]));
  });
  return values;
}

// doc_idx entries [from, to).
nlohmann::json DocIdx(const IndexedDataset& ds, uint64_t from, uint64_t to) {
  nlohmann::json out = nlohmann::json::array();
  for (uint64_t i = from; i < to; ++i) out.push_back(ds.doc_idx(i));
  return out;
}

std::string Join(const nlohmann::json& values) {
  std::string out;
  for (const auto& v : values) {
    if (!out.empty()) out += ' ';
    out += v.dump();
  }
  return out;
}

// The code table: the one given, or with "auto" the one the files fit
// (megatron, what `generate` writes, when they fit several). `how` says which:
// "given", "detected" or "default".
Result<CodeTable> ChooseTable(const InspectOptions& options, const IndexedDataset::Options& ro,
                              std::string* how) {
  if (options.dtype_codes != "auto") {
    std::optional<CodeTable> table = CodeTableFromName(options.dtype_codes);
    if (!table)
      return Status::BadInput("--dtype-codes \"" + options.dtype_codes +
                              "\" is not one of auto, deepspeed, deepspeed-legacy, megatron");
    return *table;
  }
  DSA_ASSIGN_OR_RETURN(DetectedTable d, DetectCodeTable(options.prefix, CodeTable::kMegatron, ro));
  *how = d.ambiguous ? "default" : "detected";
  return d.table;
}

// One line per component of DescribeJson's "components" (a blend's).
void PrintComponents(const nlohmann::json& description) {
  if (!description.is_object() || !description.contains("components")) return;
  const nlohmann::json& components = description["components"];
  for (size_t k = 0; k < components.size(); ++k) {
    const nlohmann::json& c = components[k];
    std::string line = "  component " + std::to_string(k) + "  " + c["prefix"].get<std::string>() +
                       "  samples " + c["samples"].dump() + "  drawn " + c["samples_drawn"].dump() +
                       "  epochs " + c["epochs"].dump();
    if (c.contains("weight")) line += "  weight " + c["weight"].dump();
    std::printf("%s\n", line.c_str());
  }
}

Status InspectConfig(const InspectOptions& options) {
  if (!options.prefix.empty() || !options.rows.empty())
    return Status::BadInput("--config: give a PREFIX (with --rows) or --config, not both");
  DSA_ASSIGN_OR_RETURN(Config config, LoadConfig(options.config));
  DSA_ASSIGN_OR_RETURN(std::unique_ptr<Dataset> ds, OpenDataset(config.dataset));
  const nlohmann::json description = ds->DescribeJson();
  if (options.json) {
    nlohmann::json j = {{"config", options.config},
                        {"type", DatasetTypeName(config.dataset.type)},
                        {"describe", ds->Describe()},
                        {"samples", ds->size()},
                        {"dtype", std::string(DTypeName(ds->dtype()))},
                        {"dataset", description}};
    std::printf("%s\n", j.dump().c_str());
    return Status::OK();
  }
  std::printf("dataset   %s\n", ds->Describe().c_str());
  std::printf("samples   %llu (%s)\n", static_cast<unsigned long long>(ds->size()),
              std::string(DTypeName(ds->dtype())).c_str());
  PrintComponents(description);
  return Status::OK();
}

Status InspectImpl(const InspectOptions& options) {
  if (!options.config.empty()) return InspectConfig(options);
  if (options.prefix.empty())
    return Status::BadInput("inspect: give a PREFIX (a .bin/.idx pair) or --config FILE");
  IndexedDataset::Options ro;
  ro.table_setting = "--dtype-codes";
  std::string how = "given";
  DSA_ASSIGN_OR_RETURN(ro.table, ChooseTable(options, ro, &how));
  DSA_ASSIGN_OR_RETURN(IndexedDataset ds, IndexedDataset::Open(options.prefix, ro));
  DSA_ASSIGN_OR_RETURN(RowRange range, ParseRowRange(options.rows, ds.num_rows()));

  std::error_code ec;
  const uint64_t idx_bytes = std::filesystem::file_size(options.prefix + ".idx", ec);
  const uint64_t bin_bytes = std::filesystem::file_size(options.prefix + ".bin", ec);
  // doc_idx head and tail, without overlap.
  const uint64_t docs = ds.doc_count();
  const uint64_t head_end = std::min(docs, kDocIdxShown);
  const uint64_t tail_begin = std::max(head_end, docs > kDocIdxShown ? docs - kDocIdxShown : 0);
  const nlohmann::json doc_head = DocIdx(ds, 0, head_end);
  const nlohmann::json doc_tail = DocIdx(ds, tail_begin, docs);

  if (options.json) {
    nlohmann::json j;
    j["prefix"] = options.prefix;
    j["dtype"] = std::string(DTypeName(ds.dtype()));
    j["dtype_code"] = ds.dtype_code();
    j["dtype_codes"] = std::string(CodeTableName(ro.table));
    j["dtype_codes_chosen"] = how;
    j["num_rows"] = ds.num_rows();
    j["num_elements"] = ds.num_elements();
    j["doc_idx_count"] = docs;
    j["doc_idx_first"] = doc_head;
    j["doc_idx_last"] = doc_tail;
    j["idx_bytes"] = idx_bytes;
    j["bin_bytes"] = bin_bytes;
    j["row_begin"] = range.begin;
    j["row_end"] = range.end;
    nlohmann::json rows = nlohmann::json::array();
    for (uint64_t i = range.begin; i < range.end; ++i)
      rows.push_back(RowValues(ds, i, static_cast<uint64_t>(ds.row_size(i))));
    j["rows"] = std::move(rows);
    std::printf("%s\n", j.dump().c_str());
    return Status::OK();
  }

  std::string doc_text = Join(doc_head);
  if (tail_begin > head_end) doc_text += " …";
  if (!doc_tail.empty()) doc_text += " " + Join(doc_tail);
  std::printf("prefix    %s\n", options.prefix.c_str());
  const char* note = how == "detected"  ? ", detected from the file sizes"
                     : how == "default" ? ", the default: the file sizes fit several tables"
                                        : "";
  std::printf("dtype     %s (code %u in the %s table%s)\n",
              std::string(DTypeName(ds.dtype())).c_str(), static_cast<unsigned>(ds.dtype_code()),
              std::string(CodeTableName(ro.table)).c_str(), note);
  std::printf("rows      %llu\n", static_cast<unsigned long long>(ds.num_rows()));
  std::printf("elements  %llu\n", static_cast<unsigned long long>(ds.num_elements()));
  std::printf("doc_idx   %llu entries: %s\n", static_cast<unsigned long long>(docs),
              doc_text.c_str());
  std::printf("files     .idx %llu bytes, .bin %llu bytes\n",
              static_cast<unsigned long long>(idx_bytes),
              static_cast<unsigned long long>(bin_bytes));
  std::printf("rows %llu:%llu\n", static_cast<unsigned long long>(range.begin),
              static_cast<unsigned long long>(range.end));
  for (uint64_t i = range.begin; i < range.end; ++i) {
    const uint64_t size = static_cast<uint64_t>(ds.row_size(i));
    std::string line = "  row " + std::to_string(i) + "  size " + std::to_string(size);
    if (size > 0) line += ": " + Join(RowValues(ds, i, kValuesPerRowShown));
    if (size > kValuesPerRowShown) line += " …";
    std::printf("%s\n", line.c_str());
  }
  return Status::OK();
}

}  // namespace

int Inspect(const InspectOptions& options) {
  Status st = InspectImpl(options);
  if (!st.ok()) return ReportFailure(st);
  return kExitOk;
}

}  // namespace dsanalyze::cli
