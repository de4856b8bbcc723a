#include "batching/batch_params.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

#include "config/json_fields.h"
#include "curriculum/batch_size.h"
#include "curriculum/ds_config.h"
#include "curriculum/ds_json.h"
#include "util/closest_name.h"

namespace dsanalyze {
namespace {

using nlohmann::json;
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr std::string_view kSection = "data_efficiency.data_sampling.dynamic_batching";

// The keys DeepSpeed reads in dynamic_batching (data_pipeline/constants.py);
// "verbose" only makes DeepSpeed log each batch.
constexpr std::string_view kSectionKeys[] = {"enabled",
                                             "max_tokens",
                                             "min_batch_size",
                                             "max_batch_size",
                                             "sequence_picking_order",
                                             "lr_scaling_method",
                                             "metrics_path",
                                             "verbose"};

// What a DeepSpeed config gives, each value with where it is ("FILE: key").
struct ConfigValues {
  std::optional<int64_t> max_tokens, min_batch_size, max_batch_size, seed, effective;
  std::optional<std::string> order, lr_scaling, metrics_path;
  std::map<std::string, std::string> at;
  bool has_section = false;
  std::string auto_batch;  // AutoBatchKeys when the config's batch keys are "auto"
};

// Python's int() of a string, for ASCII text: blanks around, a sign, digits
// with single underscores between them ("4096", " +4_096 "). Else the
// problem, to follow "FILE: key: ".
Result<int64_t> PythonInt(std::string_view text) {
  const std::string got = ShortJson(text);
  const Status not_int =
      Status::BadInput("expected an integer, got " + got + " (DeepSpeed's int() fails on it)");
  const size_t first = text.find_first_not_of(" \t\n\v\f\r");
  if (first == std::string_view::npos) return not_int;
  text = text.substr(first, text.find_last_not_of(" \t\n\v\f\r") - first + 1);
  std::string digits;
  if (text.starts_with('-') || text.starts_with('+')) {
    if (text[0] == '-') digits = "-";
    text.remove_prefix(1);
  }
  for (size_t i = 0; i < text.size(); ++i) {
    const bool between = text[i] == '_' && i > 0 && i + 1 < text.size() && text[i - 1] != '_';
    if (between) continue;
    if (text[i] < '0' || text[i] > '9') return not_int;
    digits += text[i];
  }
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec == std::errc::result_out_of_range)
    return Status::BadInput("is out of the 64-bit integer range, got " + got);
  if (ec != std::errc() || end != digits.data() + digits.size()) return not_int;
  return v;
}

// A dynamic_batching count as DeepSpeed's int() reads it (data_pipeline/
// config.py): a JSON integer (or integral number), or a numeric string. A
// string int() refuses, null, a boolean or a fraction is BadInput.
Status DeepSpeedInt(const JsonFields& s, std::string_view key, int64_t* out) {
  const nlohmann::json& value = s.at(key);
  if (!value.is_string()) return s.Int(key, kMin, kMax, out);
  Result<int64_t> v = PythonInt(value.get_ref<const std::string&>());
  if (!v.ok()) return ConfigError(s.KeyPath(key), v.status().message());
  *out = *v;
  return Status::OK();
}

// The object at `keys` below `top`, or nullopt where a key is missing.
Result<std::optional<JsonFields>> Descend(const JsonFields& top,
                                          std::initializer_list<std::string_view> keys) {
  JsonFields f = top;
  for (std::string_view key : keys) {
    if (!f.has(key)) return std::optional<JsonFields>();
    DSA_ASSIGN_OR_RETURN(f, JsonFields::Of(f.at(key), f.KeyPath(key)));
  }
  return std::optional<JsonFields>(f);
}

Status ReadSection(const JsonFields& s, const std::string& file, ConfigValues* c) {
  DSA_RETURN_IF_ERROR(s.CheckKnown(kSectionKeys));
  bool enabled = false;
  DSA_RETURN_IF_ERROR(DeepSpeedEnabled(s, "enabled", &enabled));
  if (!enabled)
    return ConfigError(s.KeyPath("enabled"),
                       "is not true: DeepSpeed would not batch by tokens; set it true");
  const std::pair<const char*, std::optional<int64_t>*> ints[] = {
      {"max_tokens", &c->max_tokens},
      {"min_batch_size", &c->min_batch_size},
      {"max_batch_size", &c->max_batch_size}};
  for (const auto& [key, out] : ints) {
    if (!s.has(key)) continue;
    int64_t v = 0;
    DSA_RETURN_IF_ERROR(DeepSpeedInt(s, key, &v));
    *out = v;
    c->at[key] = file + ": " + s.KeyPath(key);
  }
  const std::pair<const char*, std::optional<std::string>*> strings[] = {
      {"sequence_picking_order", &c->order},
      {"lr_scaling_method", &c->lr_scaling},
      {"metrics_path", &c->metrics_path}};
  for (const auto& [key, out] : strings) {
    if (!s.has(key)) continue;
    // DeepSpeed takes str() of the method: null is "None", no scaling.
    std::string v = "None";
    if (key != std::string_view("lr_scaling_method") || !s.at(key).is_null())
      DSA_RETURN_IF_ERROR(s.String(key, &v));
    *out = v;
    c->at[key] = file + ": " + s.KeyPath(key);
  }
  return Status::OK();
}

// data_efficiency.seed: DeepSpeed hands it to random.Random as it is, and a
// string seeds another sequence than its number.
Status ReadSeed(const JsonFields& de, const std::string& file, ConfigValues* c) {
  if (!de.has("seed")) return Status::OK();
  if (de.at("seed").is_string())
    return ConfigError(de.KeyPath("seed"),
                       "expected an integer, got " + ShortJson(de.at("seed")) +
                           ": DeepSpeed seeds random.Random with the string, another sequence "
                           "than the number's; write it without quotes");
  int64_t seed = 0;
  DSA_RETURN_IF_ERROR(de.Int("seed", kMin, kMax, &seed));
  c->seed = seed;
  c->at["seed"] = file + ": " + de.KeyPath("seed");
  return Status::OK();
}

Status ReadSections(const json& plain, const std::string& file, ConfigValues* c) {
  DSA_ASSIGN_OR_RETURN(const JsonFields top, JsonFields::Of(plain, ""));
  DSA_ASSIGN_OR_RETURN(const std::optional<JsonFields> de, Descend(top, {"data_efficiency"}));
  if (de) DSA_RETURN_IF_ERROR(ReadSeed(*de, file, c));
  DSA_ASSIGN_OR_RETURN(const std::optional<JsonFields> s,
                       Descend(top, {"data_efficiency", "data_sampling", "dynamic_batching"}));
  c->has_section = s.has_value();
  return s ? ReadSection(*s, file, c) : Status::OK();
}

Result<ConfigValues> ReadConfig(const std::string& file, int64_t data_parallel_size) {
  ConfigValues c;
  if (file.empty()) return c;
  DSA_ASSIGN_OR_RETURN(const nlohmann::ordered_json doc, ReadDeepSpeedJson(file));
  const json plain(doc);
  DSA_ASSIGN_OR_RETURN(const DeepSpeedTrainKeys keys, ReadTrainKeys(plain, file));
  if (keys.train_batch_size || keys.train_micro_batch_size_per_gpu) {
    DSA_ASSIGN_OR_RETURN(c.effective, DeepSpeedGlobalBatch(keys, data_parallel_size, file));
  }
  c.auto_batch = AutoBatchKeys(keys, file);
  c.at["effective_batch_size"] =
      file + (keys.train_batch_size ? ": train_batch_size"
                                    : ": train_micro_batch_size_per_gpu x "
                                      "gradient_accumulation_steps x --data-parallel-size");
  DSA_RETURN_IF_ERROR(InDeepSpeedConfig(ReadSections(plain, file, &c), file));
  return c;
}

// The flag's value, else the config's, else `fallback`; records where it came from.
template <class T>
std::optional<T> Pick(const std::optional<T>& flag, const std::string& flag_name,
                      const std::optional<T>& config, const ConfigValues& c, const std::string& key,
                      std::optional<T> fallback, std::map<std::string, std::string>* from) {
  if (flag) return (*from)[key] = flag_name, flag;
  if (config) return (*from)[key] = c.at.at(key), config;
  if (fallback) (*from)[key] = "default";
  return fallback;
}

Status AtLeast(const std::map<std::string, std::string>& from, const std::string& key,
               int64_t value, int64_t least) {
  if (value >= least) return Status::OK();
  return Status::BadInput(from.at(key) + ": must be at least " + std::to_string(least) + ", got " +
                          std::to_string(value));
}

// The index of `value` in `names`, or BadInput naming where it came from.
Result<size_t> ChoiceOf(const std::string& value, std::initializer_list<std::string_view> names,
                        const std::string& where) {
  const std::vector<std::string_view> list(names);
  for (size_t i = 0; i < list.size(); ++i)
    if (list[i] == value) return i;
  return Status::BadInput(where + ": unknown value \"" + value + "\"" + DidYouMean(value, list) +
                          ": expected " + std::string(list[0]) + ", " + std::string(list[1]) +
                          " or " + std::string(list[2]));
}

Status ResolveNumbers(const BatchesRequest& r, const ConfigValues& c, BatchParams* p) {
  auto& from = p->from;
  const std::optional<int64_t> max_tokens =
      Pick(r.max_tokens, "--max-tokens", c.max_tokens, c, "max_tokens", {}, &from);
  if (!max_tokens)
    return Status::BadInput(
        r.ds_config.empty() || c.has_section
            ? "no max_tokens: give --max-tokens, or a --ds-config with " + std::string(kSection)
            : r.ds_config + ": has no " + std::string(kSection) + " section: give --max-tokens");
  const std::optional<int64_t> effective = Pick(r.effective_batch_size, "--effective-batch-size",
                                                c.effective, c, "effective_batch_size", {}, &from);
  if (!effective)
    return Status::BadInput(
        c.auto_batch.empty()
            ? "no effective batch size: give --effective-batch-size, or a --ds-config with "
              "train_batch_size or train_micro_batch_size_per_gpu"
            : "no effective batch size: " + c.auto_batch + ": give --effective-batch-size");
  BatchingRule& rule = p->rule;
  rule.max_tokens = *max_tokens;
  rule.effective_batch_size = *effective;
  rule.min_batch_size = *Pick(r.min_batch_size, "--min-batch-size", c.min_batch_size, c,
                              "min_batch_size", std::optional<int64_t>(1), &from);
  rule.max_batch_size = *Pick(r.max_batch_size, "--max-batch-size", c.max_batch_size, c,
                              "max_batch_size", std::optional<int64_t>(0), &from);
  DSA_RETURN_IF_ERROR(AtLeast(from, "max_tokens", rule.max_tokens, 1));
  DSA_RETURN_IF_ERROR(AtLeast(from, "effective_batch_size", rule.effective_batch_size, 1));
  DSA_RETURN_IF_ERROR(AtLeast(from, "min_batch_size", rule.min_batch_size, 0));
  DSA_RETURN_IF_ERROR(AtLeast(from, "max_batch_size", rule.max_batch_size, 0));
  if (rule.max_batch_size > 0 && rule.min_batch_size > rule.max_batch_size)
    return Status::BadInput(from["min_batch_size"] + ": min_batch_size " +
                            std::to_string(rule.min_batch_size) + " is above max_batch_size " +
                            std::to_string(rule.max_batch_size) + " (" + from["max_batch_size"] +
                            "): no micro-batch can be formed");
  rule.same_size = r.same_size;
  p->seed = *Pick(r.seed, "--seed", c.seed, c, "seed", std::optional<int64_t>(1234), &from);
  return Status::OK();
}

Status ResolveChoices(const BatchesRequest& r, const ConfigValues& c, BatchParams* p) {
  const std::string order = *Pick(r.order, "--order", c.order, c, "sequence_picking_order",
                                  std::optional<std::string>("dataloader"), &p->from);
  DSA_ASSIGN_OR_RETURN(const size_t o, ChoiceOf(order, {"dataloader", "seqlen", "random"},
                                                p->from["sequence_picking_order"]));
  p->order = static_cast<PickingOrder>(o);
  std::string scaling = *Pick(r.lr_scaling, "--lr-scaling", c.lr_scaling, c, "lr_scaling_method",
                              std::optional<std::string>("linear"), &p->from);
  // DeepSpeed compares "none" in upper case, linear and sqrt as written.
  std::string upper = scaling;
  std::transform(upper.begin(), upper.end(), upper.begin(), ::toupper);
  if (upper == "NONE") scaling = "none";
  DSA_ASSIGN_OR_RETURN(const size_t s,
                       ChoiceOf(scaling, {"linear", "sqrt", "none"}, p->from["lr_scaling_method"]));
  p->lr_scaling = static_cast<LrScaling>(s);
  p->analysis = *Pick<std::string>(r.analysis.empty() ? std::nullopt : std::optional(r.analysis),
                                   "--analysis", c.metrics_path, c, "metrics_path",
                                   std::optional<std::string>(""), &p->from);
  if (p->analysis.empty())
    return Status::BadInput(
        "no analysis: give --analysis, or a --ds-config whose dynamic_batching has metrics_path");
  return Status::OK();
}

}  // namespace

std::string_view PickingOrderName(PickingOrder order) {
  constexpr std::string_view kNames[] = {"dataloader", "seqlen", "random"};
  return kNames[static_cast<int>(order)];
}

std::string_view LrScalingName(LrScaling scaling) {
  constexpr std::string_view kNames[] = {"linear", "sqrt", "none"};
  return kNames[static_cast<int>(scaling)];
}

Result<BatchParams> ResolveBatchParams(const BatchesRequest& request) {
  if (request.data_parallel_size < 1)
    return Status::BadInput("--data-parallel-size: must be at least 1, got " +
                            std::to_string(request.data_parallel_size));
  DSA_ASSIGN_OR_RETURN(const ConfigValues c,
                       ReadConfig(request.ds_config, request.data_parallel_size));
  BatchParams p;
  DSA_RETURN_IF_ERROR(ResolveNumbers(request, c, &p));
  DSA_RETURN_IF_ERROR(ResolveChoices(request, c, &p));
  p.epochs = request.epochs.value_or(1);
  p.from["epochs"] = request.epochs ? "--epochs" : "default";
  DSA_RETURN_IF_ERROR(AtLeast(p.from, "epochs", p.epochs, 1));
  return p;
}

double LrScale(LrScaling scaling, uint64_t batch_size, int64_t effective_batch_size) {
  // Python's int / int is the correctly rounded quotient, as IEEE division
  // of the two (exact) doubles is.
  const double ratio = static_cast<double>(batch_size) / static_cast<double>(effective_batch_size);
  if (scaling == LrScaling::kLinear) return ratio;
  if (scaling == LrScaling::kSqrt) return std::sqrt(ratio);
  return 1.0;
}

}  // namespace dsanalyze
