// An example dsanalyze metric plugin (the ABI is dsanalyze/plugin.h; the
// walk-through is docs/plugins.md). Built as build/libdsa_example_plugin.so
// and used by configs/plugin.json:
//
//   token_sum        single_value_per_sample: the sum of the sample's tokens
//   token_histogram  accumulate_value_over_samples: how many tokens fall in
//                    each of `buckets` equal ranges of [0, vocab_size)
//
// compute runs on several threads at once, so it only reads its state.
#include <dsanalyze/plugin.h>

#include <cstdint>
#include <cstdio>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <type_traits>

namespace {

// Writes a message for dsanalyze and returns the failure code.
int Fail(char* error, size_t error_size, const std::string& message) {
  std::snprintf(error, error_size, "%s", message.c_str());
  return 1;
}

// Calls f(const T*) with the batch's elements as the C type of its dtype.
template <class F>
void WithElements(const dsa_batch& b, F&& f) {
  switch (b.dtype) {
    case DSA_DTYPE_UINT8:
      return f(static_cast<const uint8_t*>(b.elements));
    case DSA_DTYPE_INT8:
      return f(static_cast<const int8_t*>(b.elements));
    case DSA_DTYPE_INT16:
      return f(static_cast<const int16_t*>(b.elements));
    case DSA_DTYPE_INT32:
      return f(static_cast<const int32_t*>(b.elements));
    case DSA_DTYPE_INT64:
      return f(static_cast<const int64_t*>(b.elements));
    case DSA_DTYPE_UINT16:
      return f(static_cast<const uint16_t*>(b.elements));
    case DSA_DTYPE_UINT32:
      return f(static_cast<const uint32_t*>(b.elements));
    default:
      return f(static_cast<const uint64_t*>(b.elements));
  }
}

// token_sum: no params, no state.
int TokenSum(void*, const char*, const dsa_batch* b, int64_t* values, uint64_t capacity,
             uint64_t* written, char* error, size_t error_size) {
  int rc = 0;
  WithElements(*b, [&](auto elements) {
    for (uint64_t i = 0; i < b->count && i < capacity && rc == 0; ++i) {
      __int128 sum = 0;
      for (uint64_t k = b->offsets[i]; k < b->offsets[i + 1]; ++k) sum += elements[k];
      if (sum > std::numeric_limits<int64_t>::max() || sum < std::numeric_limits<int64_t>::min())
        rc = Fail(
            error, error_size,
            "the token sum of sample " + std::to_string(b->first + i) + " does not fit in int64");
      values[i] = static_cast<int64_t>(sum);
      *written = i + 1;
    }
  });
  return rc;
}

struct Histogram {
  uint64_t vocab_size;
  uint64_t buckets;
};

// token_histogram: params {"vocab_size": V, "buckets": B}, both positive integers.
int HistogramInit(const char* params_json, void** state, uint64_t* accumulate_length, char* error,
                  size_t error_size) {
  const nlohmann::json params = nlohmann::json::parse(params_json, nullptr, false);
  Histogram h{};
  for (const char* key : {"vocab_size", "buckets"}) {
    if (!params.contains(key) || !params[key].is_number_unsigned() || params[key] == 0)
      return Fail(error, error_size,
                  std::string("token_histogram needs \"") + key + "\": a positive integer");
  }
  for (const auto& item : params.items())
    if (item.key() != "vocab_size" && item.key() != "buckets")
      return Fail(error, error_size, "token_histogram: unknown parameter \"" + item.key() + "\"");
  h.vocab_size = params["vocab_size"].get<uint64_t>();
  h.buckets = params["buckets"].get<uint64_t>();
  if (h.buckets > h.vocab_size)
    return Fail(error, error_size, "token_histogram: buckets must be at most vocab_size");
  *state = new Histogram(h);
  *accumulate_length = h.buckets;
  return 0;
}

void HistogramDestroy(void* state) { delete static_cast<Histogram*>(state); }

int HistogramCompute(void* state, const char*, const dsa_batch* b, int64_t* values,
                     uint64_t capacity, uint64_t* written, char* error, size_t error_size) {
  const Histogram& h = *static_cast<const Histogram*>(state);
  if (capacity != h.buckets) return Fail(error, error_size, "unexpected capacity");
  int rc = 0;
  WithElements(*b, [&](auto elements) {
    for (uint64_t i = 0; i < b->count && rc == 0; ++i) {
      for (uint64_t k = b->offsets[i]; k < b->offsets[i + 1]; ++k) {
        const auto t = elements[k];
        bool negative = false;
        if constexpr (std::is_signed_v<decltype(t)>) negative = t < 0;
        if (negative || static_cast<uint64_t>(t) >= h.vocab_size) {
          rc = Fail(error, error_size,
                    "sample " + std::to_string(b->first + i) + " has token " + std::to_string(t) +
                        ", outside [0, vocab_size " + std::to_string(h.vocab_size) + ")");
          break;
        }
        ++values[static_cast<unsigned __int128>(t) * h.buckets / h.vocab_size];
      }
    }
  });
  *written = h.buckets;
  return rc;
}

const dsa_metric_def kMetrics[] = {
    {"token_sum", "sum of the sample's token ids", DSA_SINGLE_VALUE_PER_SAMPLE, 0, nullptr, nullptr,
     TokenSum},
    {"token_histogram",
     "tokens per bucket: `buckets` equal ranges of [0, vocab_size) (params: vocab_size, buckets)",
     DSA_ACCUMULATE_VALUE_OVER_SAMPLES, 0, HistogramInit, HistogramDestroy, HistogramCompute},
};

const dsa_plugin kPlugin = {DSA_PLUGIN_ABI_VERSION, "example", "token_sum and token_histogram",
                            sizeof kMetrics / sizeof kMetrics[0], kMetrics};

}  // namespace

DSA_PLUGIN_EXPORT const dsa_plugin* dsa_plugin_register(void) { return &kPlugin; }
