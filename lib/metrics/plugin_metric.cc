#include "metrics/plugin_metric.h"

#include "config/json_fields.h"
#include "metrics/plugin_library.h"
#include "util/checked_add.h"

namespace dsanalyze {
namespace {

constexpr size_t kErrorSize = 1024;

int32_t AbiDType(DType t) {
  switch (t) {
    case DType::kU8:
      return DSA_DTYPE_UINT8;
    case DType::kI8:
      return DSA_DTYPE_INT8;
    case DType::kI16:
      return DSA_DTYPE_INT16;
    case DType::kI32:
      return DSA_DTYPE_INT32;
    case DType::kI64:
      return DSA_DTYPE_INT64;
    case DType::kU16:
      return DSA_DTYPE_UINT16;
    case DType::kU32:
      return DSA_DTYPE_UINT32;
    case DType::kU64:
    default:  // datasets hold integer dtypes only
      return DSA_DTYPE_UINT64;
  }
}

// The plugin's message, or a stand-in when it wrote none.
std::string Message(const char* error, int code) {
  if (error[0] != '\0') return error;
  return "failed with code " + std::to_string(code) + " and no message";
}

class PluginMetric : public Metric {
 public:
  PluginMetric(const MetricConfig& config, std::shared_ptr<const PluginLibrary> library,
               const dsa_metric_def* def)
      : name_(config.name),
        params_(config.params.dump()),
        library_(std::move(library)),
        def_(def),
        length_(def->accumulate_length) {}

  ~PluginMetric() override {
    if (def_->destroy != nullptr && initialized_) def_->destroy(state_);
  }

  // Runs the plugin's init; errors are the message alone (the caller adds the key path).
  Status Init() {
    if (def_->init != nullptr) {
      char error[kErrorSize] = {};
      const int rc = def_->init(params_.c_str(), &state_, &length_, error, sizeof error);
      error[kErrorSize - 1] = '\0';
      if (rc != 0) return Status::BadInput(Describe() + ": " + Message(error, rc));
    }
    initialized_ = true;
    if (type() == MetricType::kAccumulateValueOverSamples &&
        (length_ == 0 || length_ > kMaxPluginAccumulateLength))
      return Status::BadInput(Describe() + ": accumulate_length is " + std::to_string(length_) +
                              "; it must be 1.." + std::to_string(kMaxPluginAccumulateLength));
    return Status::OK();
  }

  MetricType type() const override {
    return def_->type == DSA_SINGLE_VALUE_PER_SAMPLE ? MetricType::kSingleValuePerSample
                                                     : MetricType::kAccumulateValueOverSamples;
  }
  size_t accumulate_length() const override {
    return type() == MetricType::kAccumulateValueOverSamples ? static_cast<size_t>(length_) : 0;
  }

  Status Compute(const SampleBatch& batch, std::span<int64_t> values) const override {
    if (type() != MetricType::kSingleValuePerSample) return Metric::Compute(batch, values);
    if (values.size() != batch.size())
      return Status::Internal(Prefix() + std::to_string(values.size()) +
                              " outputs for a batch of " + std::to_string(batch.size()));
    return Call(batch, values);
  }

  Status Accumulate(const SampleBatch& batch, std::span<int64_t> acc) const override {
    if (type() != MetricType::kAccumulateValueOverSamples) return Metric::Accumulate(batch, acc);
    if (acc.size() != length_)
      return Status::Internal(Prefix() + "accumulator of length " + std::to_string(acc.size()) +
                              ", expected " + std::to_string(length_));
    // The plugin writes the batch's contribution into zeroed scratch; the
    // total is added here so that overflow is caught in one place.
    thread_local std::vector<int64_t> scratch;
    scratch.assign(acc.size(), 0);
    DSA_RETURN_IF_ERROR(Call(batch, scratch));
    return AddChecked(acc, scratch, Prefix() + "at samples " + Range(batch));
  }

 private:
  Status Call(const SampleBatch& batch, std::span<int64_t> out) const {
    if (batch.size() == 0) return Status::OK();
    const dsa_batch b{batch.size(), batch.first, AbiDType(batch.dtype), batch.elements,
                      batch.offsets.data()};
    char error[kErrorSize] = {};
    uint64_t written = 0;
    const int rc = def_->compute(state_, params_.c_str(), &b, out.data(), out.size(), &written,
                                 error, sizeof error);
    error[kErrorSize - 1] = '\0';
    if (rc != 0)
      return Status::BadInput(Prefix() + Message(error, rc) + " (at samples " + Range(batch) + ")");
    if (written != out.size())
      return Status::BadInput(Prefix() + "compute reported " + std::to_string(written) +
                              " values where " + std::to_string(out.size()) +
                              " were expected (samples " + Range(batch) + ")");
    return Status::OK();
  }

  std::string Describe() const {
    return "plugin metric \"" + std::string(def_->name) + "\" of " + library_->path();
  }
  std::string Prefix() const { return "metric \"" + name_ + "\" (" + Describe() + "): "; }
  static std::string Range(const SampleBatch& batch) {
    return std::to_string(batch.first) + ".." + std::to_string(batch.first + batch.size() - 1);
  }

  std::string name_;
  std::string params_;  // compact JSON, as the ABI passes it
  std::shared_ptr<const PluginLibrary> library_;
  const dsa_metric_def* def_;  // points into the library
  uint64_t length_;
  void* state_ = nullptr;
  bool initialized_ = false;
};

}  // namespace

Result<std::unique_ptr<Metric>> NewPluginMetric(const MetricConfig& config) {
  const std::string entry = "metrics[" + std::to_string(config.index) + "]";
  Result<std::shared_ptr<const PluginLibrary>> library = PluginLibrary::Load(config.plugin);
  if (!library.ok()) return ConfigError(entry + ".plugin", library.status().message());
  Result<const dsa_metric_def*> def = (*library)->Find(config.metric);
  if (!def.ok()) return ConfigError(entry + ".metric", def.status().message());
  auto metric = std::make_unique<PluginMetric>(config, std::move(library).value(), *def);
  if (Status st = metric->Init(); !st.ok()) return ConfigError(entry + ".params", st.message());
  return std::unique_ptr<Metric>(std::move(metric));
}

}  // namespace dsanalyze
