// `dsanalyze order --megatron-core-cache OUT_DIR`: a copy of the Megatron-Core
// cache a megatron_core analysis read, in which dataset[i] is the order's i-th
// sample, so that Megatron-LM's sequential sampler trains in that order with
// only --data-cache-path changed. The analysed split's cached blend index
// (dataset_index, dataset_sample_index) is permuted by the order — entry i
// becomes the old entry order[i], the dtypes kept — or, for a lone
// GPTDataset, its shuffle_index; every other file Megatron-LM reads is copied.
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/command_output.h"
#include "cli/commands.h"
#include "config/config.h"
#include "dataset/megatron_core.h"
#include "format/npy.h"
#include "format/npy_writer.h"
#include "output/analysis_folder.h"
#include "output/output_paths.h"

namespace dsanalyze::cli {
namespace {

namespace fs = std::filesystem;

const char kFlag[] = "order: --megatron-core-cache";

// The analysis's megatron_core config; BadInput for any other dataset type.
Result<MegatronCoreConfig> CoreConfigOf(const std::string& analysis) {
  DSA_ASSIGN_OR_RETURN(const AnalysisFolder folder, ReadAnalysisFolder(analysis));
  Result<Config> config = folder.config.is_null()
                              ? Result<Config>(Status::BadInput("no config recorded"))
                              : ParseConfig(folder.config);
  if (!config.ok())
    return Status::BadInput(std::string(kFlag) + ": " + analysis +
                            "/summary.json: " + config.status().message());
  const auto* core = std::get_if<MegatronCoreConfig>(&config->dataset.type);
  if (core == nullptr || !config->dataset.sample_indices.empty())
    return Status::BadInput(std::string(kFlag) + ": " + analysis + " is an analysis of a " +
                            std::string(DatasetTypeName(config->dataset.type)) +
                            (core ? " dataset with sample_indices" : " dataset") +
                            "; it takes one of a megatron_core dataset, whose sample ids are "
                            "Megatron-Core's dataset indices");
  return *core;
}

// BadInput when `out` is (or is inside) a folder the analysis reads.
Status CheckOutIsNoCache(const std::string& out, const CoreCacheFiles& cache) {
  std::error_code ec;
  const fs::path target = fs::weakly_canonical(out, ec);
  for (const std::string& dir : cache.cache_dirs) {
    const fs::path source = fs::weakly_canonical(dir, ec);
    const auto [a, b] = std::mismatch(source.begin(), source.end(), target.begin(), target.end());
    if (a == source.end())
      return Status::BadInput(std::string(kFlag) + ": " + out + " is the cache folder " + dir +
                              " (or inside it) that the analysis reads; give a new folder");
  }
  return Status::OK();
}

// dst = src permuted by `order` (entry i is src's entry order[i]), src's dtype.
Status WritePermuted(const std::string& src, const std::string& dst, const NpyArray& order) {
  DSA_ASSIGN_OR_RETURN(const NpyArray a, NpyArray::Open(src));
  if (a.shape().size() != 1 || a.size() != order.size())
    return Status::BadInput(std::string(kFlag) + ": the analysis orders " +
                            std::to_string(order.size()) + " samples, but " + src + " has " +
                            std::to_string(a.size()) +
                            " (is the analysis of a sample_range, or of another cache?)");
  const size_t item = ItemSize(a.dtype());
  const ElementView from = a.elements();
  std::vector<std::byte> bytes(a.size() * item);
  for (uint64_t i = 0; i < a.size(); ++i)
    std::memcpy(bytes.data() + i * item, from.data + static_cast<uint64_t>(order.at(i)) * item,
                item);
  return WriteNpy(dst, a.dtype(), bytes, {a.size()});
}

// Copies the cache into `out`, the files of cache.rewrite permuted by `order_path`.
Status WriteCache(const CoreCacheFiles& cache, const std::string& out,
                  const std::string& order_path) {
  DSA_ASSIGN_OR_RETURN(const NpyArray order, NpyArray::Open(order_path));
  for (const std::string& file : cache.files) {
    const std::string dst = (fs::path(out) / fs::path(file).filename()).string();
    if (std::find(cache.rewrite.begin(), cache.rewrite.end(), file) != cache.rewrite.end()) {
      DSA_RETURN_IF_ERROR(WritePermuted(file, dst, order));
      continue;
    }
    std::error_code ec;
    fs::copy_file(file, dst, fs::copy_options::overwrite_existing, ec);
    if (ec) return Status::IoError(std::string(kFlag) + ": copying " + file + ": " + ec.message());
  }
  return Status::OK();
}

}  // namespace

Result<uint64_t> WriteCoreCacheOrder(const OrderOptions& options) {
  // Both outputs before the analysis is read (output/output_paths.h).
  const std::string& out = options.megatron_core_cache;
  DSA_RETURN_IF_ERROR(CheckOutsideAnalyses("--megatron-core-cache", out, {options.analysis}));
  if (!options.out.empty())
    DSA_RETURN_IF_ERROR(CheckOutputFile("--out", options.out, {options.analysis}));
  DSA_ASSIGN_OR_RETURN(const MegatronCoreConfig core, CoreConfigOf(options.analysis));
  Result<CoreCacheFiles> cache = FindCoreCacheFiles(core);
  if (!cache.ok()) return cache.status().WithPrefix(kFlag);
  DSA_RETURN_IF_ERROR(CheckOutIsNoCache(out, *cache));
  std::error_code ec;
  fs::create_directories(out, ec);
  if (ec) return Status::IoError(std::string(kFlag) + ": " + out + ": " + ec.message());
  OrderOptions written = options;
  if (written.out.empty()) written.out = (fs::path(out) / ".dsanalyze_order.npy").string();
  DSA_ASSIGN_OR_RETURN(const uint64_t samples, WriteTrainingOrder(written));
  const Status st = WriteCache(*cache, out, written.out);
  if (options.out.empty()) fs::remove(written.out, ec);
  DSA_RETURN_IF_ERROR(st);
  return samples;
}

}  // namespace dsanalyze::cli
