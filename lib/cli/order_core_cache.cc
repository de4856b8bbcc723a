// `dsanalyze order --megatron-core-cache OUT_DIR`: a copy of the Megatron-Core
// cache a megatron_core analysis read, in which dataset[i] is the order's i-th
// sample, so that Megatron-LM's sequential sampler trains in that order with
// only --data-cache-path changed. The analysed split's cached blend index
// (dataset_index, dataset_sample_index) is permuted by the order — entry i
// becomes the old entry order[i], the dtypes kept — or, for a lone
// GPTDataset, its shuffle_index; every other file Megatron-LM reads is
// hard-linked or copied (LinkOrCopy).
// The order is never written to OUT_DIR: each of its pieces (a bucket) is
// written into the permuted files as it is made (and to --out when given),
// so OUT_DIR ends holding the cache's files and nothing else. For an order
// by one metric of fewer than 65,536 values' span, a window of pieces'
// entries is placed in a pass over the index files in id order, its two
// halves at once (curriculum/row_cursors.h), the windows holding up to
// 1 GiB of entries (WindowBytes), and its pieces are shuffled two at a time,
// the second on a worker thread; otherwise each piece's entries are gathered
// by its ids. A blend's two files are staged packed, one word a sample: 4
// bytes when its dataset and sample indexes fit them, else 8 (Packing).
// Memory: that GiB (or one piece's entries, if larger; up to 2.5 times as
// much for a window whose indexes do not fit the packing) or the gathered
// piece, the buffers of two pieces being written and two queued
// (curriculum/order_file.h), and the ids of one piece with --out.
#include <algorithm>
#include <bit>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "cli/command_output.h"
#include "cli/commands.h"
#include "config/config.h"
#include "curriculum/order_file.h"
#include "curriculum/row_cursors.h"
#include "curriculum/training_order.h"
#include "dataset/megatron_core.h"
#include "format/npy.h"
#include "output/analysis_folder.h"
#include "output/output_paths.h"
#include "util/huge_pages.h"
#include "util/interrupt.h"
#include "util/worker_thread.h"
#include "util/write_behind.h"

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
  // Entries in difficulty order, before the buckets' shuffle: a window of
  // pieces' (placed by RowCursors) or one piece's (gathered). Not zeroed:
  // every entry of a window is written before it is read.
  std::unique_ptr<std::byte[]> staged;
  uint64_t staged_bytes = 0;  // its size
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
    files.push_back({std::move(a), std::move(f), nullptr, 0});
  }
  return files;
}

// Calls fn(T{}), T the unsigned integer type as wide as f's entries.
template <class F>
Status ByEntryType(const Permuted& f, F&& fn) {
  switch (ItemSize(f.src.dtype())) {
    case 1:
      return fn(uint8_t{});
    case 2:
      return fn(uint16_t{});
    case 4:
      return fn(uint32_t{});
    default:
      return fn(uint64_t{});
  }
}

// f.staged as `count` entries of T, grown (on huge pages: a window is up to
// 1 GiB, its first touch a page fault each 4 KiB page) when it holds fewer.
template <class T>
std::span<T> Staged(Permuted& f, uint64_t count) {
  if (f.staged_bytes < count * sizeof(T)) {
    f.staged.reset();  // the old one freed first
    f.staged = std::make_unique_for_overwrite<std::byte[]>(count * sizeof(T));
    f.staged_bytes = count * sizeof(T);
    AdviseHugePages(f.staged.get(), f.staged_bytes);
  }
  return {reinterpret_cast<T*>(f.staged.get()), count};
}

// A file whose entries are of T (ByEntryTypes).
template <class T>
struct Typed {
  using Entry = T;
  Permuted* f;
  const T* entries() const { return reinterpret_cast<const T*>(f->src.elements().data); }
  T* staged() const { return reinterpret_cast<T*>(f->staged.get()); }
};

// Calls fn(Typed<T>{&f}...) for `files`, one or two (a blend's dataset_index
// and dataset_sample_index, or a shuffle_index), each T the unsigned integer
// type as wide as its entries: the files are placed and shuffled together.
template <class F>
Status ByEntryTypes(std::vector<Permuted>& files, F&& fn) {
  if (files.size() == 1)
    return ByEntryType(files[0], [&](auto a) { return fn(Typed<decltype(a)>{&files[0]}); });
  if (files.size() != 2)
    return Status::Internal(std::string(kFlag) + ": " + std::to_string(files.size()) +
                            " index files to rewrite");
  return ByEntryType(files[0], [&](auto a) {
    return ByEntryType(files[1], [&](auto b) {
      return fn(Typed<decltype(a)>{&files[0]}, Typed<decltype(b)>{&files[1]});
    });
  });
}

// Whether files of entries T... (a blend's dataset_index, of 1 or 2 bytes,
// and dataset_sample_index, of 8) can be staged packed: each sample's two
// entries as one word (sample index << shift) | dataset index in the
// latter's stage (Packing). Then the pass that places them writes one stream
// a cursor instead of two, and the bucket's shuffle moves one word a swap:
// one random access instead of two, and the swaps' cache misses are most of
// the shuffle's time. The same swaps, so the same bytes.
template <class... T>
constexpr bool kPackable = false;
template <class A, class B>
constexpr bool kPackable<A, B> = sizeof(A) <= 2 && std::is_same_v<B, uint64_t>;

// How a blend's two files are staged (kPackable): one word of `word` bytes a
// sample, the sample index shifted left by `shift` bits over the dataset
// index; or, word 0, as two arrays. A 4-byte word halves the stage that is
// placed, shuffled and read again (docs/benchmarks.md, case OC). What does
// not fit the packing tried first is staged again: a 4-byte word in 8
// bytes, then an 8-byte one (a sample index of 2^48 or more) as two arrays.
struct Packing {
  int word = 0;
  int shift = 0;
};
constexpr Packing kWidePacking{8, 16};

// Calls fn(W{}), W the unsigned integer type of a packing's word (4 or 8
// bytes; not for word 0).
template <class F>
decltype(auto) ByWordType(Packing packing, F&& fn) {
  return packing.word == 4 ? fn(uint32_t{}) : fn(uint64_t{});
}

// The packing a blend is staged in first: 4 bytes when `components` datasets
// and `samples` samples fit them as Megatron-Core builds blends (each
// dataset's sample index below the blend's samples), else 8.
Packing FirstPacking(uint64_t components, uint64_t samples) {
  const int shift = std::max(1, static_cast<int>(std::bit_width(components - 1)));
  const int sample_bits = std::max(1, static_cast<int>(std::bit_width(samples - 1)));
  if (components == 0 || samples == 0 || shift + sample_bits > 32) return kWidePacking;
  return {4, shift};
}

// put(at, id): stages each file's entry `id` at `at` of its own stage.
template <class... T>
struct EachStager {
  std::tuple<std::pair<const T*, T*>...> files;  // entries, stage
  explicit EachStager(Typed<T>... t) : files{std::pair{t.entries(), t.staged()}...} {}
  void operator()(uint64_t at, uint64_t id) const {
    std::apply([&](auto... f) { ((f.second[at] = f.first[id]), ...); }, files);
  }
  void Prefetch(uint64_t id) const {
    std::apply([&](auto... f) { (__builtin_prefetch(f.first + id), ...); }, files);
  }
  uint64_t high() const { return 0; }
};

// put(at, id): stages the two entries of sample `id` packed (kPackable) in
// a word W, shifted by `shift`, at `at` of the dataset_sample_index's stage.
template <class A, class W>
struct PackedStager {
  const A* dataset;
  const uint64_t* sample;
  W* stage;
  int shift;
  uint64_t samples = 0;   // the OR of the sample indexes staged
  uint64_t datasets = 0;  // and of the dataset indexes
  void operator()(uint64_t at, uint64_t id) {
    samples |= sample[id];
    datasets |= dataset[id];
    stage[at] = static_cast<W>(sample[id] << shift | dataset[id]);
  }
  void Prefetch(uint64_t id) const {
    __builtin_prefetch(dataset + id);
    __builtin_prefetch(sample + id);
  }
  // Whether an index did not fit.
  uint64_t high() const { return samples >> (8 * sizeof(W) - shift) | datasets >> shift; }
};

// Entries this many places ahead are prefetched: the ids of a piece are
// spread over the whole index (hundreds of MB), so a load is often a miss.
constexpr size_t kPrefetchAhead = 32;

// Stages the entries of a piece's ids in difficulty order (`sorted`, before
// the bucket's shuffle) with `put`; returns put.high(). Within a value the
// ids ascend, so the loads sweep the index instead of jumping at random.
template <class Put>
Result<uint64_t> Gather(std::span<const int64_t> sorted, uint64_t size, Put put) {
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (i + kPrefetchAhead < sorted.size())
      put.Prefetch(std::min(static_cast<uint64_t>(sorted[i + kPrefetchAhead]), size - 1));
    const auto id = static_cast<uint64_t>(sorted[i]);
    if (id >= size)
      return Status::BadInput(std::string(kFlag) + ": the analysis has sample id " +
                              std::to_string(id) + ", beyond the " + std::to_string(size) +
                              " entries of the cached index");
    put(i, id);
  }
  return put.high();
}

// Stages the entries of positions [begin, begin + count) of the order with
// `put`: one pass over the index files together (RowCursors::Place), in
// kLanes ranges at once. Returns the OR of the copies' high().
template <class Put>
Result<uint64_t> Place(const RowCursors& cursors, uint64_t begin, uint64_t count, const Put& put) {
  DSA_ASSIGN_OR_RETURN(const auto puts, cursors.Place(begin, count, put));
  uint64_t high = 0;
  for (const Put& p : puts) high |= p.high();
  return high;
}

// StageEntries for a blend's two files (kPackable) in `packing`: false, and
// the stage to be made again, when an index did not fit.
template <class Stage, class A>
Result<bool> StagePacked(Stage& stage, uint64_t count, Packing packing, Typed<A> dataset,
                         Typed<uint64_t> sample) {
  const auto packed = [&](auto word) -> Result<bool> {
    using W = decltype(word);
    const std::span<W> words = Staged<W>(*sample.f, count);
    DSA_ASSIGN_OR_RETURN(const uint64_t high,
                         stage(PackedStager<A, W>{dataset.entries(), sample.entries(), words.data(),
                                                  packing.shift}));
    return high == 0;
  };
  return ByWordType(packing, packed);
}

// Stages `count` entries of each file by stage(put) (Gather or Place, with
// put(at, id) staging sample id's entries at `at`): packed when the files
// are (kPackable) and their indexes fit, in `first` or else kWidePacking;
// else each in its own stage. Returns the packing (word 0: two arrays).
template <class Stage, class... T>
Result<Packing> StageEntries(Stage&& stage, uint64_t count, Packing first, Typed<T>... files) {
  if constexpr (kPackable<T...>) {
    DSA_ASSIGN_OR_RETURN(const bool fits, StagePacked(stage, count, first, files...));
    if (fits) return first;
    if (first.word != kWidePacking.word) {
      DSA_ASSIGN_OR_RETURN(const bool wide_fits, StagePacked(stage, count, kWidePacking, files...));
      if (wide_fits) return kWidePacking;
    }
  }
  (Staged<T>(*files.f, count), ...);
  DSA_RETURN_IF_ERROR(stage(EachStager<T...>(files...)).status());
  return Packing{};
}

// A piece's buffers, one a file (OrderFile::TakeBuffer).
using PieceBuffers = std::vector<WriteBuffer>;

// A file of a piece and the buffer its entries are written into.
template <class T>
struct PieceFile {
  Typed<T> file;
  WriteBuffer* buffer;
  T* out() const { return reinterpret_cast<T*>(buffer->data.get()); }
};

// Fills the buffers with the files' `size` entries staged from `offset` on,
// each file's in its own stage, shuffled together as piece p's ids are
// (TrainingOrder::Shuffle moves any array of its length alike). (Shuffling
// them in the stage, without this copy, was slower: the copy's sequential
// reads bring the piece into the cache for the shuffle's random ones.)
template <class... T>
void ShuffleEach(const TrainingOrder& order, uint64_t p, uint64_t offset, uint64_t size,
                 PieceFile<T>... files) {
  (std::copy_n(files.file.staged() + offset, size, files.out()), ...);
  order.Shuffle(p, std::span<T>{files.out(), size}...);
}

// The same for a blend's two files staged packed in words W (kPackable):
// the words shuffled in the stage, then unpacked into the two buffers.
// (Here a copy first gained nothing measurable, and the unpacking reads the
// piece in order anyway.)
template <class W, class A>
void ShufflePacked(const TrainingOrder& order, uint64_t p, uint64_t offset, uint64_t size,
                   int shift, PieceFile<A> dataset, PieceFile<uint64_t> sample) {
  const std::span<W> packed{reinterpret_cast<W*>(sample.file.f->staged.get()) + offset, size};
  order.Shuffle(p, packed);
  const W mask = static_cast<W>((W{1} << shift) - 1);
  A* const dataset_out = dataset.out();
  uint64_t* const sample_out = sample.out();
  for (uint64_t i = 0; i < size; ++i) {
    dataset_out[i] = static_cast<A>(packed[i] & mask);
    sample_out[i] = packed[i] >> shift;
  }
}

// Fills `buffers` with piece p of the order, whose `size` entries are staged
// from `offset` on (in `packed`: StageEntries). Reads the files and writes
// only `buffers` and the piece's part of the stage: safe on a worker thread
// beside another piece's.
Status FillPiece(std::vector<Permuted>& files, const TrainingOrder& order, uint64_t p,
                 uint64_t offset, uint64_t size, Packing packed, PieceBuffers& buffers) {
  return ByEntryTypes(files, [&](auto... typed) {
    const auto piece = [&](auto t) {
      return PieceFile<typename decltype(t)::Entry>{t, &buffers[t.f - files.data()]};
    };
    if constexpr (kPackable<typename decltype(typed)::Entry...>) {
      if (packed.word != 0) {
        ByWordType(packed, [&](auto word) {
          ShufflePacked<decltype(word)>(order, p, offset, size, packed.shift, piece(typed)...);
        });
        return Status::OK();
      }
    }
    ShuffleEach(order, p, offset, size, piece(typed)...);
    return Status::OK();
  });
}

// Appends piece p's ids to the order file (the next ids of the order).
Status AppendIds(TrainingOrder& order, uint64_t p, OrderFile& ids_file,
                 std::vector<int64_t>& sorted) {
  const uint64_t size = order.piece_size(p);
  if (sorted.size() != size) {  // not read yet for a gather
    sorted.resize(size);
    DSA_RETURN_IF_ERROR(order.FillSorted(sorted));
  }
  const std::span<int64_t> ids = ids_file.Buffer(size);
  std::copy(sorted.begin(), sorted.end(), ids.begin());
  order.Shuffle(p, ids);
  sorted.clear();
  return ids_file.Append();
}

// Bytes of staged entries a window of pieces may hold, at the bytes a
// sample the packing tried first takes (StagedBytes): a blend of up to
// 2.7e8 samples packed in 4 bytes is one window; a larger one is placed in
// windows, a pass over the index each. A window staged again wider (its
// indexes did not fit) takes up to 2.5 times as much: 10 bytes a sample as
// two arrays. A window holds one piece at least. The test-only
// DSANALYZE_TEST_ORDER_WINDOW_BYTES sets it (tests/blend/core_test.py).
uint64_t WindowBytes() {
  const char* test = std::getenv("DSANALYZE_TEST_ORDER_WINDOW_BYTES");
  return test ? std::strtoull(test, nullptr, 10) : uint64_t{1} << 30;
}

// Bytes a sample's entries take in the stage: the packing's word when the
// files are packable (kPackable), else the files' entries side by side.
uint64_t StagedBytes(std::vector<Permuted>& files, Packing first) {
  uint64_t bytes = 0;
  for (const Permuted& f : files) bytes += ItemSize(f.src.dtype());
  bool packable = false;
  (void)ByEntryTypes(files, [&](auto... typed) {
    packable = kPackable<typename decltype(typed)::Entry...>;
    return Status::OK();
  });
  return packable ? static_cast<uint64_t>(first.word) : bytes;
}

// The end of the window of pieces from `first` on: as many as fit in
// `budget` bytes at `entry_bytes` a position, one at least.
uint64_t WindowEnd(const TrainingOrder& order, uint64_t first, uint64_t entry_bytes,
                   uint64_t budget) {
  uint64_t end = first + 1, bytes = order.piece_size(first) * entry_bytes;
  while (end < order.pieces() && bytes + order.piece_size(end) * entry_bytes <= budget)
    bytes += order.piece_size(end++) * entry_bytes;
  return end;
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

// Stages the entries of positions [begin, begin + count) of the order
// (StageEntries, packed in `first` if they fit), placed by the cursors.
// Returns the packing.
Result<Packing> PlaceEntries(std::vector<Permuted>& files, const RowCursors& cursors,
                             uint64_t begin, uint64_t count, Packing first) {
  Packing packed;
  DSA_RETURN_IF_ERROR(ByEntryTypes(files, [&](auto... typed) -> Status {
    const auto place = [&](const auto& put) { return Place(cursors, begin, count, put); };
    DSA_ASSIGN_OR_RETURN(packed, StageEntries(place, count, first, typed...));
    return Status::OK();
  }));
  return packed;
}

// Stages the entries of the next piece of the order (StageEntries, packed
// in `first` if they fit), gathered by its ids, which it reads into
// `sorted`. Returns the packing.
Result<Packing> GatherEntries(TrainingOrder& order, uint64_t p, std::vector<Permuted>& files,
                              std::vector<int64_t>& sorted, Packing first) {
  sorted.resize(order.piece_size(p));
  DSA_RETURN_IF_ERROR(order.FillSorted(sorted));
  Packing packed;
  DSA_RETURN_IF_ERROR(ByEntryTypes(files, [&](auto... typed) -> Status {
    const auto gather = [&](const auto& put) { return Gather(sorted, files[0].src.size(), put); };
    DSA_ASSIGN_OR_RETURN(packed, StageEntries(gather, sorted.size(), first, typed...));
    return Status::OK();
  }));
  return packed;
}

// Writes `n` pieces from p on (one or two) to the files and, when given, to
// the order file: their entries staged from `offset` on (in `packed`:
// StageEntries). The second piece is filled on a worker thread while this
// one fills the first: the bucket shuffles are most of the command's time,
// and the pieces are independent.
Status WriteFromStage(TrainingOrder& order, uint64_t p, uint64_t n, uint64_t offset, Packing packed,
                      std::vector<Permuted>& files, OrderFile* ids_file,
                      std::vector<int64_t>& sorted) {
  const uint64_t size = order.piece_size(p);
  std::vector<PieceBuffers> buffers(n);
  for (uint64_t k = 0; k < n; ++k)
    for (Permuted& f : files) buffers[k].push_back(f.dst->TakeBuffer(order.piece_size(p + k)));
  Status second;
  WorkerThread helper;
  if (n == 2)
    helper = StartWorkerThread([&] {
      second = FillPiece(files, order, p + 1, offset + size, order.piece_size(p + 1), packed,
                         buffers[1]);
    });
  const Status first = FillPiece(files, order, p, offset, size, packed, buffers[0]);
  if (helper.joinable()) helper.join();
  DSA_RETURN_IF_ERROR(first);
  DSA_RETURN_IF_ERROR(second);
  for (uint64_t k = 0; k < n; ++k) {
    for (size_t i = 0; i < files.size(); ++i)
      DSA_RETURN_IF_ERROR(files[i].dst->Append(std::move(buffers[k][i])));
    if (ids_file) DSA_RETURN_IF_ERROR(AppendIds(order, p + k, *ids_file, sorted));
  }
  return Status::OK();
}

// Writes every piece of `order` to the permuted files and, when given, to
// the order file `ids_file`. With `cursors`, the entries of a window of
// pieces are placed first (a pass over the index files a window), then
// written two pieces at a time; without, each piece's are gathered by its
// sorted ids. A blend's are packed in `first` where they fit (StageEntries).
Status WritePieces(TrainingOrder& order, const RowCursors* cursors, std::vector<Permuted>& permuted,
                   OrderFile* ids_file, Packing first) {
  const uint64_t entry_bytes = StagedBytes(permuted, first);
  const uint64_t budget = cursors ? WindowBytes() : 0;
  std::vector<int64_t> sorted;
  for (uint64_t p = 0, begin = 0; p < order.pieces();) {
    const uint64_t end = WindowEnd(order, p, entry_bytes, budget);
    uint64_t count = 0;
    for (uint64_t q = p; q < end; ++q) count += order.piece_size(q);
    Packing packed;
    if (cursors) {
      DSA_ASSIGN_OR_RETURN(packed, PlaceEntries(permuted, *cursors, begin, count, first));
    }
    for (uint64_t offset = 0; p < end;) {
      if (!cursors) {
        DSA_ASSIGN_OR_RETURN(packed, GatherEntries(order, p, permuted, sorted, first));
      }
      const uint64_t n = cursors && p + 1 < end ? 2 : 1;
      DSA_RETURN_IF_ERROR(
          WriteFromStage(order, p, n, cursors ? offset : 0, packed, permuted, ids_file, sorted));
      for (uint64_t k = 0; k < n; ++k) offset += order.piece_size(p++);
      DSA_RETURN_IF_ERROR(CheckInterrupt());
    }
    begin += count;
  }
  return Status::OK();
}

// Writes the order (WritePieces, a blend of `components` datasets packed in
// FirstPacking where it fits); then copies the cache's other files into
// `out` (LinkOrCopy) and commits the permuted files and the order file.
Status WriteCache(const CoreCacheFiles& cache, const std::string& out, TrainingOrder& order,
                  const RowCursors* cursors, std::vector<Permuted>& permuted, OrderFile* ids_file,
                  uint64_t components) {
  DSA_RETURN_IF_ERROR(
      WritePieces(order, cursors, permuted, ids_file, FirstPacking(components, order.size())));
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
  // A megatron_core analysis has no dataset.sample_indices (CoreConfigOf), as
  // RowCursors requires.
  DSA_ASSIGN_OR_RETURN(const std::optional<RowCursors> cursors, RowCursors::Open(options));
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
  DSA_RETURN_IF_ERROR(WriteCache(*cache, out, order, cursors ? &*cursors : nullptr, permuted,
                                 ids_file.get(), core.prefixes.size()));
  return order.size();
}

}  // namespace dsanalyze::cli
