/* dsanalyze metric plugins: the C ABI between dsanalyze and a shared library
 * that provides extra metrics (docs/plugins.md has a complete example).
 *
 * A plugin is a shared library that exports one function,
 *
 *     const dsa_plugin* dsa_plugin_register(void);
 *
 * returning a pointer to a static description of its metrics. dsanalyze loads
 * the library with dlopen when a config entry names it ("plugin": "path.so",
 * "metric": "<exported name>", "params": {...}) or when `dsanalyze metrics
 * --plugin path.so` lists it, calls dsa_plugin_register once, and checks
 * abi_version before reading anything else.
 *
 * Versioning: DSA_PLUGIN_ABI_VERSION changes whenever a struct or a function
 * signature here changes; dsanalyze refuses a plugin built for another
 * version. abi_version stays the first member of dsa_plugin in every version.
 *
 * Lifetime: everything dsa_plugin_register returns (strings, the metric
 * array) must stay valid while the library is loaded; static storage is the
 * simple way. The library is unloaded after the last metric instance using it
 * is destroyed.
 *
 * Threads: for each config entry dsanalyze calls init once, then compute from
 * several map threads AT THE SAME TIME with the same state, then destroy
 * once after every compute call has returned. compute must therefore be
 * thread-safe: treat the state as read-only, keep scratch memory on the stack
 * or allocate it per call. init and destroy are never called concurrently
 * for the same metric instance.
 *
 * Errors: a function that fails returns a non-zero int and writes a
 * NUL-terminated, one-line message (no trailing newline) of at most
 * error_size bytes, including the NUL, into `error`. dsanalyze prefixes it
 * with the metric's config name and ends the run with that message.
 * Functions must not throw C++ exceptions or call exit.
 */
#ifndef DSANALYZE_PLUGIN_H_
#define DSANALYZE_PLUGIN_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DSA_PLUGIN_ABI_VERSION 1

/* The name of the function a plugin exports. */
#define DSA_PLUGIN_REGISTER_SYMBOL "dsa_plugin_register"

/* Exports a function from the shared library with C linkage (also when the
 * plugin is C++ compiled with -fvisibility=hidden). */
#ifdef __cplusplus
#define DSA_PLUGIN_EXPORT extern "C" __attribute__((visibility("default")))
#else
#define DSA_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

/* Metric types, as DeepSpeed's DataAnalyzer names them. */
enum {
  /* One int64 per sample; dsanalyze sorts and indexes the values. */
  DSA_SINGLE_VALUE_PER_SAMPLE = 0,
  /* One int64 vector per batch; dsanalyze sums the vectors over all samples
   * (checking for int64 overflow) and writes the sum. */
  DSA_ACCUMULATE_VALUE_OVER_SAMPLES = 1
};

/* Element dtypes of the samples. */
enum {
  DSA_DTYPE_UINT8 = 1,
  DSA_DTYPE_INT8 = 2,
  DSA_DTYPE_INT16 = 3,
  DSA_DTYPE_INT32 = 4,
  DSA_DTYPE_INT64 = 5,
  DSA_DTYPE_UINT16 = 6,
  DSA_DTYPE_UINT32 = 7,
  DSA_DTYPE_UINT64 = 8
};

/* A batch of consecutive samples, valid only during the compute call. */
typedef struct dsa_batch {
  /* Number of samples in the batch (at least 1). */
  uint64_t count;
  /* Position of the first sample in the dataset's iteration order (0-based);
   * sample i of the batch is at position first + i, which is also its sample
   * id unless the config gives sample_indices. */
  uint64_t first;
  /* dtype of every element: one of DSA_DTYPE_*. */
  int32_t dtype;
  /* The elements of sample i are elements[offsets[i]] .. elements[offsets[i+1] - 1]
   * (element units, not bytes; offsets[0] need not be 0). Cast `elements` to
   * the C type of `dtype`. */
  const void* elements;
  const uint64_t* offsets; /* count + 1 entries, non-decreasing */
} dsa_batch;

typedef struct dsa_metric_def {
  /* The name a config's "metric" refers to: [A-Za-z0-9_.-]+, unique in the plugin. */
  const char* name;
  /* One line for `dsanalyze metrics` (what it computes, which params it takes). */
  const char* description;
  /* DSA_SINGLE_VALUE_PER_SAMPLE or DSA_ACCUMULATE_VALUE_OVER_SAMPLES. */
  int32_t type;
  /* Accumulate metrics: the length of the vector (at least 1), unless init
   * sets it. Ignored for single-value metrics. */
  uint64_t accumulate_length;

  /* Optional (may be NULL). Called once per config entry, before any compute.
   * params_json is the entry's "params" object as compact JSON ("{}" when
   * absent). May store per-instance state in *state (NULL on entry) and, for
   * accumulate metrics, set *accumulate_length (preset to the value above).
   * Rejecting the params is the usual reason to fail; a failing init frees
   * what it allocated, as destroy is then not called. */
  int (*init)(const char* params_json, void** state, uint64_t* accumulate_length, char* error,
              size_t error_size);

  /* Optional (may be NULL). Frees what init stored in state (which is NULL
   * if init stored nothing or there is no init). */
  void (*destroy)(void* state);

  /* Required. Called concurrently from several threads (see above).
   * Single-value metrics: write one value per sample, values[0 .. batch->count).
   * Accumulate metrics: values[0 .. accumulate_length) are zero on entry;
   * write this batch's contribution (dsanalyze adds it to the total).
   * `capacity` is the number of values expected, and the most that may be
   * written; set *written to the number written (dsanalyze checks it).
   * `state` is what init stored (NULL without init); params_json is also
   * passed for metrics that need no init. */
  int (*compute)(void* state, const char* params_json, const dsa_batch* batch, int64_t* values,
                 uint64_t capacity, uint64_t* written, char* error, size_t error_size);
} dsa_metric_def;

typedef struct dsa_plugin {
  /* DSA_PLUGIN_ABI_VERSION as the plugin saw it when it was compiled. */
  uint32_t abi_version;
  /* A short name and one-line description of the plugin, for listings. */
  const char* name;
  const char* description;
  /* The metrics it provides. */
  uint64_t metric_count;
  const dsa_metric_def* metrics;
} dsa_plugin;

/* The type of the exported function. */
typedef const dsa_plugin* (*dsa_plugin_register_fn)(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DSANALYZE_PLUGIN_H_ */
