// `dsanalyze order --megatron-core-cache OUT_DIR`: a copy of the Megatron-Core
// cache a megatron_core analysis read, in which dataset[i] is the order's i-th
// sample, so that Megatron-LM's sequential sampler trains in that order with
// only --data-cache-path changed. The analysed split's cached blend index
// (dataset_index, dataset_sample_index) is permuted by the order — entry i
// becomes the old entry order[i], the dtypes kept — or, for a lone
// GPTDataset, its shuffle_index; every other file Megatron-LM reads is
// hard-linked or copied (LinkOrCopy).
// The order is never written to OUT_DIR: each of its pieces (a bucket) is
// gathered into the permuted files as it is made (and written to --out when
// given), so OUT_DIR ends holding the cache's files and nothing else.
#include <algorithm>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <numeric>
#include <string>
#include <vector>

#include "cli/command_output.h"
#include "cli/commands.h"
#include "config/config.h"
#include "curriculum/order_file.h"
#include "curriculum/training_order.h"
#include "dataset/megatron_core.h"
#include "format/npy.h"
#include "output/analysis_folder.h"
#include "output/output_paths.h"
#include "util/interrupt.h"

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

// A rewritten file: src's entries permuted by the order, in src's dtype.
struct Permuted {
  NpyArray src;
  std::unique_ptr<OrderFile> dst;
  std::vector<std::byte> scratch;  // a piece's entries before its shuffle
};

// The files of cache.rewrite, opened and checked to hold one entry per
// sample, their permuted copies created in `out` (as hidden temporary files
// until committed: curriculum/order_file.h).
Result<std::vector<Permuted>> OpenPermuted(const CoreCacheFiles& cache, const std::string& out,
                                           uint64_t samples) {
  std::vector<Permuted> files;
  for (const std::string& file : cache.rewrite) {
    DSA_ASSIGN_OR_RETURN(NpyArray a, NpyArray::Open(file));
    if (a.shape().size() != 1 || a.size() != samples)
      return Status::BadInput(std::string(kFlag) + ": the analysis orders " +
                              std::to_string(samples) + " samples, but " + file + " has " +
                              std::to_string(a.size()) +
                              " (is the analysis of a sample_range, or of another cache?)");
    const std::string dst = (fs::path(out) / fs::path(file).filename()).string();
    DSA_ASSIGN_OR_RETURN(std::unique_ptr<OrderFile> f, OrderFile::Create(dst, samples, a.dtype()));
    files.push_back({std::move(a), std::move(f), {}});
  }
  return files;
}

// Entries this many places ahead are prefetched: the ids of a piece are
// spread over the whole index (hundreds of MB), so a load is often a miss.
constexpr size_t kPrefetchAhead = 32;

// A piece of the order: its ids in difficulty order (`sorted`, before the
// bucket's shuffle) and the shuffle (`perm`: the order's ids are
// sorted[perm[0]], sorted[perm[1]], ...; empty without buckets).
struct OrderPiece {
  std::span<const int64_t> sorted;
  std::span<const int64_t> perm;
};

// Appends src[id] for the piece's ids, in the order's order, to f.dst. The
// entries are gathered in difficulty order first — within a value the ids
// ascend, so the loads sweep the index instead of jumping at random — and
// then shuffled inside the piece, which fits in the closer caches.
template <class T>
Status GatherAs(Permuted& f, const OrderPiece& piece) {
  const T* in = reinterpret_cast<const T*>(f.src.elements().data);
  const uint64_t size = f.src.size();
  const std::span<const int64_t> ids = piece.sorted;
  const std::span<T> dst = f.dst->Buffer<T>(ids.size());
  if (!piece.perm.empty()) f.scratch.resize(ids.size() * sizeof(T));
  T* gathered = piece.perm.empty() ? dst.data() : reinterpret_cast<T*>(f.scratch.data());
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i + kPrefetchAhead < ids.size())
      __builtin_prefetch(in + std::min(static_cast<uint64_t>(ids[i + kPrefetchAhead]), size - 1));
    const auto id = static_cast<uint64_t>(ids[i]);
    if (id >= size)
      return Status::BadInput(std::string(kFlag) + ": the analysis has sample id " +
                              std::to_string(id) + ", beyond the " + std::to_string(size) +
                              " entries of the cached index");
    gathered[i] = in[id];
  }
  for (size_t i = 0; i < piece.perm.size(); ++i) dst[i] = gathered[piece.perm[i]];
  return f.dst->Append();
}

// Appends the entries of the order's next piece to f's copy.
Status Gather(Permuted& f, const OrderPiece& piece) {
  switch (ItemSize(f.src.dtype())) {
    case 1:
      return GatherAs<uint8_t>(f, piece);
    case 2:
      return GatherAs<uint16_t>(f, piece);
    case 4:
      return GatherAs<uint32_t>(f, piece);
    default:
      return GatherAs<uint64_t>(f, piece);
  }
}

// `dst` as an ordinary file holding `src`'s bytes, which stays whole when
// `src` is deleted: a hard link when both are on one file system (the maps
// are as large as the rewritten index, and copying them would double the
// command's writes; Megatron-LM never writes into a cache file, it builds
// missing ones anew), else a copy. A file already at `dst` is replaced.
Status LinkOrCopy(const std::string& src, const std::string& dst) {
  std::error_code ec;
  fs::remove(dst, ec);
  fs::create_hard_link(src, dst, ec);
  if (!ec) return Status::OK();
  ec.clear();
  fs::copy_file(src, dst, fs::copy_options::overwrite_existing, ec);
  if (ec) return Status::IoError(std::string(kFlag) + ": copying " + src + ": " + ec.message());
  return Status::OK();
}

// Writes every piece of `order` to the permuted files and, when given, to
// the order file `ids_file`; then copies the cache's other files into `out`
// (LinkOrCopy) and commits the permuted files and the order file.
Status WriteCache(const CoreCacheFiles& cache, const std::string& out, TrainingOrder& order,
                  std::vector<Permuted>& permuted, OrderFile* ids_file) {
  std::vector<int64_t> sorted, perm;
  for (uint64_t p = 0; p < order.pieces(); ++p) {
    const uint64_t size = order.piece_size(p);
    sorted.resize(size);
    DSA_RETURN_IF_ERROR(order.FillSorted(sorted));
    perm.resize(order.shuffles() ? size : 0);
    std::iota(perm.begin(), perm.end(), int64_t{0});
    order.Shuffle(p, perm);
    for (Permuted& f : permuted) DSA_RETURN_IF_ERROR(Gather(f, {sorted, perm}));
    if (ids_file) {
      const std::span<int64_t> ids = ids_file->Buffer(size);
      for (uint64_t i = 0; i < size; ++i) ids[i] = sorted[perm.empty() ? i : perm[i]];
      DSA_RETURN_IF_ERROR(ids_file->Append());
    }
    DSA_RETURN_IF_ERROR(CheckInterrupt());
  }
  for (const std::string& file : cache.files) {
    if (std::find(cache.rewrite.begin(), cache.rewrite.end(), file) != cache.rewrite.end())
      continue;
    DSA_RETURN_IF_ERROR(LinkOrCopy(file, (fs::path(out) / fs::path(file).filename()).string()));
    DSA_RETURN_IF_ERROR(CheckInterrupt());
  }
  DisarmInterrupts();  // past the last checkpoint the commits always complete
  for (Permuted& f : permuted) DSA_RETURN_IF_ERROR(f.dst->Commit());
  return ids_file ? ids_file->Commit() : Status::OK();
}

}  // namespace

Result<uint64_t> WriteCoreCacheOrder(const OrderOptions& options) {
  SetInterruptStage("open");
  // Both outputs before the analysis is read (output/output_paths.h).
  const std::string& out = options.megatron_core_cache;
  DSA_RETURN_IF_ERROR(CheckOutsideAnalyses("--megatron-core-cache", out, {options.analysis}));
  if (!options.out.empty())
    DSA_RETURN_IF_ERROR(CheckOutputFile("--out", options.out, {options.analysis}));
  DSA_ASSIGN_OR_RETURN(const MegatronCoreConfig core, CoreConfigOf(options.analysis));
  Result<CoreCacheFiles> cache = FindCoreCacheFiles(core);
  if (!cache.ok()) return cache.status().WithPrefix(kFlag);
  DSA_RETURN_IF_ERROR(CheckOutIsNoCache(out, *cache));
  DSA_ASSIGN_OR_RETURN(TrainingOrder order, TrainingOrder::Open(options));
  DSA_RETURN_IF_ERROR(CheckInterrupt());
  SetInterruptStage("write");
  std::error_code ec;
  fs::create_directories(out, ec);
  if (ec) return Status::IoError(std::string(kFlag) + ": " + out + ": " + ec.message());
  DSA_ASSIGN_OR_RETURN(std::vector<Permuted> permuted, OpenPermuted(*cache, out, order.size()));
  std::unique_ptr<OrderFile> ids_file;
  if (!options.out.empty()) {
    DSA_ASSIGN_OR_RETURN(ids_file, OrderFile::Create(options.out, order.size()));
  }
  DSA_RETURN_IF_ERROR(WriteCache(*cache, out, order, permuted, ids_file.get()));
  return order.size();
}

}  // namespace dsanalyze::cli
