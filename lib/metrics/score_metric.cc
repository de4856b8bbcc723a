// score: a per-sample value read from a score file (score_file.h), per
// document or per sample, reduced over a sample's documents and turned into
// the integers DeepSpeed's files hold (docs/config.md, "score").
#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include "config/dataset_types.h"
#include "config/json_fields.h"
#include "metrics/builtin_metrics.h"
#include "metrics/ignore_set.h"
#include "metrics/score_file.h"
#include "util/ordered_double.h"

namespace dsanalyze {
namespace {

enum class Reduce { kTokenMean, kMin, kMax, kFirst };

// Every rank keeps a few words per bin (rank_bins.h); a curriculum needs far fewer.
constexpr uint64_t kMaxBins = 1000000;

struct ScoreOptions {
  std::string name;
  bool per_document = true;
  Reduce reduce = Reduce::kTokenMean;
  ScoreMeaning meaning;
};

// A sample's score and, when it is not finite, the row that made it so.
struct Score {
  double value = 0;
  uint64_t row = 0;
};

// x in the fewest digits that read back as x ("1e+30", not 31 digits).
std::string Shortest(double x) {
  char buf[32];
  return std::string(buf, std::to_chars(buf, buf + sizeof(buf), x).ptr);
}

// Sets each piece's tokens to those of its part of `sample` that are not in
// `ignore` (the pieces cover the sample's tokens in order, one after another).
template <class T>
Status KeepTokens(std::span<const T> sample, const IgnoreSet& ignore,
                  std::span<DocumentPiece> pieces) {
  uint64_t begin = 0;
  for (DocumentPiece& p : pieces) {
    if (p.tokens > sample.size() - begin) break;
    const uint64_t end = begin + p.tokens;
    p.tokens = 0;
    for (; begin < end; ++begin) p.tokens += !ignore.contains(sample[begin]);
  }
  if (begin == sample.size()) return Status::OK();
  return Status::Internal("score: the documents of a sample of " + std::to_string(sample.size()) +
                          " tokens do not cover it");
}

class ScoreMetric : public Metric {
 public:
  ScoreMetric(ScoreOptions o, ScoreColumn column, const Dataset& dataset)
      : o_(std::move(o)),
        column_(std::move(column)),
        dataset_(dataset),
        ignore_(dataset.ignore_token_ids()),
        // Only token_mean weighs documents by their tokens, and only ignored
        // ids make that need the tokens themselves, not just the sizes.
        weigh_kept_tokens_(o_.per_document && o_.reduce == Reduce::kTokenMean && !ignore_.empty()) {
  }

  MetricType type() const override { return MetricType::kSingleValuePerSample; }
  bool needs_elements() const override { return weigh_kept_tokens_; }
  std::optional<RankBins> rank_bins() const override {
    if (o_.meaning.bins == 0) return std::nullopt;
    return RankBins{o_.meaning.bins, o_.meaning.nan_value.value_or(0)};
  }
  std::optional<ScoreMeaning> score_meaning() const override { return o_.meaning; }
  uint64_t nan_scores() const override { return nan_scores_.load(std::memory_order_relaxed); }

  Status Compute(const SampleBatch& batch, std::span<int64_t> values) const override {
    thread_local std::vector<DocumentPiece> pieces;
    uint64_t nan_scores = 0;
    for (size_t i = 0; i < batch.size(); ++i) {
      const uint64_t position = batch.first + i;
      Score s{0, position};
      if (o_.per_document) {
        pieces.clear();
        dataset_.AppendDocumentPieces(position, &pieces);
        if (weigh_kept_tokens_) DSA_RETURN_IF_ERROR(KeepSampleTokens(batch.sample(i), pieces));
        s = ReduceScores(pieces);
      } else {
        s.value = column_.at(position);
      }
      nan_scores += std::isnan(s.value);
      DSA_ASSIGN_OR_RETURN(values[i], ToValue(s, position));
    }
    nan_scores_.fetch_add(nan_scores, std::memory_order_relaxed);
    return Status::OK();
  }

 private:
  Status KeepSampleTokens(const ElementView& sample, std::span<DocumentPiece> pieces) const {
    Status st;
    VisitIntDType(sample.dtype, [&](auto zero) {
      st = KeepTokens(sample.as<decltype(zero)>(), ignore_, pieces);
    });
    return st;
  }

  // A sample's score from its documents' (NaN when any of them is NaN). One
  // document's score is taken as it is (x·n/n need not give x back).
  Score ReduceScores(std::span<const DocumentPiece> pieces) const {
    if (pieces.size() == 1) return {column_.at(pieces[0].document), pieces[0].document};
    double acc = 0, plain = 0;
    uint64_t tokens = 0;
    for (size_t p = 0; p < pieces.size(); ++p) {
      const double x = column_.at(pieces[p].document);
      if (!std::isfinite(x)) return {x, pieces[p].document};
      if (o_.reduce == Reduce::kFirst) return {x, 0};
      if (o_.reduce == Reduce::kTokenMean) {
        acc += x * static_cast<double>(pieces[p].tokens);
        tokens += pieces[p].tokens;
        plain += x;
      } else if (p == 0 || (o_.reduce == Reduce::kMin ? x < acc : x > acc)) {
        acc = x;
      }
    }
    if (o_.reduce != Reduce::kTokenMean) return {acc, 0};
    // No tokens (an empty document): the plain mean of the scores.
    if (tokens == 0) return {plain / static_cast<double>(pieces.size()), 0};
    return {acc / static_cast<double>(tokens), 0};
  }

  Result<int64_t> ToValue(Score s, uint64_t position) const {
    if (std::isnan(s.value)) {
      if (o_.meaning.nan_value)
        return o_.meaning.bins > 0 ? RankBins::kUnranked : *o_.meaning.nan_value;
      return RowError(s.row, "is NaN; give params.nan a value for NaN scores");
    }
    if (std::isinf(s.value)) return RowError(s.row, s.value > 0 ? "is inf" : "is -inf");
    const double x = o_.meaning.descending ? -s.value : s.value;
    if (o_.meaning.bins > 0) return OrderedBits(x);
    const double v = std::nearbyint(x * o_.meaning.scale);  // ties to even
    // Not INT64_MIN: reports negate values (score_summary.h).
    if (v > -0x1p63 && v < 0x1p63) return static_cast<int64_t>(v);
    return Status::BadInput("metric " + o_.name + ": sample " + std::to_string(position) +
                            ": score " + Shortest(s.value) + " × scale " +
                            Shortest(o_.meaning.scale) + " is outside int64");
  }

  Status RowError(uint64_t row, const std::string& what) const {
    return Status::BadInput("metric " + o_.name + ": " + column_.path() + ": row " +
                            std::to_string(row) + " " + what);
  }

  ScoreOptions o_;
  ScoreColumn column_;
  const Dataset& dataset_;
  IgnoreSet ignore_;
  bool weigh_kept_tokens_;
  mutable std::atomic<uint64_t> nan_scores_{0};  // summed by every map thread
};

Result<Reduce> ReduceParam(const JsonFields& params) {
  std::string text = "token_mean";
  DSA_RETURN_IF_ERROR(params.String("reduce", &text));
  if (text == "token_mean") return Reduce::kTokenMean;
  if (text == "min") return Reduce::kMin;
  if (text == "max") return Reduce::kMax;
  if (text == "first") return Reduce::kFirst;
  return ConfigError(params.KeyPath("reduce"),
                     "expected \"token_mean\", \"min\", \"max\" or "
                     "\"first\", got " +
                         ShortJson(params.at("reduce")));
}

// The dataset types whose samples are made of documents, the rows of token
// files: those that read .idx files, which the type table (config/dataset_types.h)
// says by their dtype_codes key. "documents, packed, megatron_gpt or megatron_blend".
std::string DocumentDatasetTypes() {
  std::vector<std::string_view> names;
  for (const DatasetTypeInfo& type : DatasetTypes())
    if (std::find(type.keys.begin(), type.keys.end(), "dtype_codes") != type.keys.end())
      names.push_back(type.name);
  std::string list;
  for (size_t i = 0; i < names.size(); ++i)
    list += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + std::string(names[i]);
  return list;
}

Result<bool> PerDocument(const JsonFields& params, const Dataset& dataset) {
  std::string per;
  DSA_RETURN_IF_ERROR(params.Require("per"));
  DSA_RETURN_IF_ERROR(params.String("per", &per));
  if (per != "document" && per != "sample")
    return ConfigError(params.KeyPath("per"),
                       "expected \"document\" or \"sample\", got " + ShortJson(params.at("per")));
  if (per == "sample") {
    if (params.has("reduce"))
      return ConfigError(params.KeyPath("reduce"), "applies only with \"per\": \"document\"");
    return false;
  }
  if (dataset.num_documents() == 0)
    return ConfigError(params.KeyPath("per"), "\"document\" needs a dataset of documents (" +
                                                  DocumentDatasetTypes() +
                                                  "); this one has none (use \"per\": \"sample\")");
  return true;
}

Result<ScoreFileOptions> FileParams(const JsonFields& params, bool per_document,
                                    const Dataset& dataset) {
  ScoreFileOptions f;
  f.field = "score";
  DSA_RETURN_IF_ERROR(params.Require("file"));
  DSA_RETURN_IF_ERROR(params.String("file", &f.path));
  DSA_RETURN_IF_ERROR(params.String("field", &f.field));
  DSA_RETURN_IF_ERROR(params.String("id_field", &f.id_field));
  if (!f.path.ends_with(".jsonl"))
    for (const char* key : {"field", "id_field"})
      if (params.has(key))
        return ConfigError(params.KeyPath(key), "applies only to a .jsonl score file");
  // For the reader's errors about a line's keys: the param that chose each.
  f.field_note = params.KeyPath("field") +
                 (params.has("field") ? "" : ", default \"score\": set it to the key of the score");
  f.id_field_note = params.KeyPath("id_field");
  f.rows = per_document ? dataset.num_documents() : dataset.size();
  f.rows_are = per_document ? "documents" : "samples";
  return f;
}

}  // namespace

Status ParseScoreMeaning(const JsonFields& params, ScoreMeaning* meaning) {
  if (params.has("scale") == params.has("bins"))
    return ConfigError(params.path(),
                       "give exactly one of \"scale\" (value = round(score · scale)) "
                       "or \"bins\" (equal-count bins)");
  DSA_RETURN_IF_ERROR(params.PositiveNumber("scale", &meaning->scale));
  DSA_RETURN_IF_ERROR(params.Uint("bins", 1, kMaxBins, &meaning->bins));
  DSA_RETURN_IF_ERROR(params.Bool("descending", &meaning->descending));
  if (params.has("nan")) {
    int64_t nan_value = 0;
    DSA_RETURN_IF_ERROR(params.Int("nan", INT64_MIN + 1, INT64_MAX, &nan_value));
    meaning->nan_value = nan_value;
  }
  return Status::OK();
}

Result<std::unique_ptr<Metric>> MakeScoreMetric(const MetricConfig& config,
                                                const JsonFields& params, const Dataset& dataset) {
  ScoreOptions o;
  o.name = config.name;
  DSA_ASSIGN_OR_RETURN(o.per_document, PerDocument(params, dataset));
  if (o.per_document) {
    DSA_ASSIGN_OR_RETURN(o.reduce, ReduceParam(params));
  }
  DSA_RETURN_IF_ERROR(ParseScoreMeaning(params, &o.meaning));
  DSA_ASSIGN_OR_RETURN(const ScoreFileOptions file, FileParams(params, o.per_document, dataset));
  Result<ScoreColumn> column = ScoreColumn::Open(file);
  if (!column.ok()) return ConfigError(params.KeyPath("file"), column.status().message());
  return std::unique_ptr<Metric>(
      std::make_unique<ScoreMetric>(std::move(o), std::move(column).value(), dataset));
}

}  // namespace dsanalyze
