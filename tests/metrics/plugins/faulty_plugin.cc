// Well-formed plugin whose metrics misbehave at run time, one way each:
//   fails         compute fails on a batch holding sample 5, with a message
//   fails_silent  compute fails with code 7 and no message
//   short         compute reports one value fewer than the batch has samples
//   zero_length   an accumulate metric of length 0
//   bad_params    init rejects every params object
#include <dsanalyze/plugin.h>

#include <cstdio>

namespace {

int Fails(void*, const char*, const dsa_batch* b, int64_t* values, uint64_t capacity,
          uint64_t* written, char* error, size_t error_size) {
  for (uint64_t i = 0; i < capacity; ++i) values[i] = 1;
  *written = capacity;
  if (b->first <= 5 && 5 < b->first + b->count) {
    std::snprintf(error, error_size, "deliberate failure at sample 5");
    return 1;
  }
  return 0;
}

int FailsSilent(void*, const char*, const dsa_batch*, int64_t*, uint64_t, uint64_t*, char*,
                size_t) {
  return 7;
}

int Short(void*, const char*, const dsa_batch*, int64_t* values, uint64_t capacity,
          uint64_t* written, char*, size_t) {
  for (uint64_t i = 0; i + 1 < capacity; ++i) values[i] = 0;
  *written = capacity - 1;
  return 0;
}

int RejectParams(const char* params_json, void**, uint64_t*, char* error, size_t error_size) {
  std::snprintf(error, error_size, "no params are good enough, not even %s", params_json);
  return 1;
}

const dsa_metric_def kMetrics[] = {
    {"fails", "fails at sample 5", DSA_SINGLE_VALUE_PER_SAMPLE, 0, nullptr, nullptr, Fails},
    {"fails_silent", "fails without a message", DSA_SINGLE_VALUE_PER_SAMPLE, 0, nullptr, nullptr,
     FailsSilent},
    {"short", "one value too few", DSA_SINGLE_VALUE_PER_SAMPLE, 0, nullptr, nullptr, Short},
    {"zero_length", "accumulates nothing", DSA_ACCUMULATE_VALUE_OVER_SAMPLES, 0, nullptr, nullptr,
     Short},
    {"bad_params", "rejects its params", DSA_SINGLE_VALUE_PER_SAMPLE, 0, RejectParams, nullptr,
     Short},
};
const dsa_plugin kPlugin = {DSA_PLUGIN_ABI_VERSION, "faulty", "misbehaves on purpose",
                            sizeof kMetrics / sizeof kMetrics[0], kMetrics};

}  // namespace

DSA_PLUGIN_EXPORT const dsa_plugin* dsa_plugin_register(void) { return &kPlugin; }
