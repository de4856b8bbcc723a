// Runs the gather-and-write stage on its own under mpiexec -n k. Each rank
// holds a slice of the global (value, id) key order, as the sample sort leaves
// it; WriteIndexFiles and WriteOrderedScalars write on rank 0. The files are
// read back with IndexedDataset and compared, row by row and element by
// element, with what this test computes from the global pair list
// (docs/format.md §2.2, §2.3). Covered: a value's run of ids across one and
// across several rank boundaries and across chunks (chunks of 1 and 3 keys),
// empty ranks (first, middle, last, all but one, all), U = 1, 50, 199, 200,
// 250, 251, 1234 (step 12, partial last group) and 0, uint64 and WideKey keys,
// the dtypes as given, the progress row
// count on rank 0, no file left under a temporary name, and a signal caught
// on rank 0 stopping the write with no file left. WriteIndexFilesRankOrdered
// gets the same pairs split by id instead (ranks hold ascending id ranges),
// with the same splits and chunk sizes, up to 24 value bits, and wide keys.
// WriteIndexFilesFromGroups gets them with consecutive ids split by id (each
// rank grouping its own on 2 threads), up to 16 value bits and ids past 2^32.
// WriteOrderedScalars also reads each rank's values from a spilling
// ValueStore: the same bytes as from memory. ScalarRowsWriter (every rank
// writing its own rows, the .idx on a thread) writes the same bytes as
// WriteOrderedScalars, from memory (the values overwritten between Start and
// Finish: the thread must not read them) and from the store, leaves no
// temporary file, and stops on a signal with nothing left; opened for more rows
// than it is given, or abandoned after Open, it leaves nothing either.
// Exits non-zero if any check failed, naming each failure.
#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "comm/comm.h"
#include "format/dtype.h"
#include "format/indexed_dataset.h"
#include "index/gather_write.h"
#include "index/group_write.h"
#include "index/scalar_rows.h"
#include "sort/local_sort.h"
#include "sort/sort_key.h"
#include "sort/value_store.h"
#include "support/mpi_suite.h"
#include "support/shared_temp_dir.h"
#include "util/interrupt.h"

namespace dsanalyze::gather_write_test {
namespace {

using test::Check;
using Pair = std::pair<int64_t, int64_t>;  // (value, id)
using Rows = std::vector<std::vector<int64_t>>;

// The calls under test, kept here so that a change of their signatures is
// adapted in one place.
template <class Key>
Status CallWriteIndexFiles(const Comm& comm, const std::vector<Key>& slice,
                           const KeyCodec<Key>& codec, const IndexFilePrefixes& prefixes,
                           DType metric_dtype, DType sample_dtype, const WriteOptions& options) {
  return WriteIndexFiles(comm, slice, codec, {prefixes, metric_dtype, sample_dtype, options});
}

template <class Key>
Status CallWriteIndexFilesRankOrdered(const Comm& comm, const std::vector<Key>& sorted,
                                      const KeyCodec<Key>& codec, const IndexFilePrefixes& prefixes,
                                      DType metric_dtype, DType sample_dtype,
                                      const WriteOptions& options) {
  return WriteIndexFilesRankOrdered(comm, sorted, codec,
                                    {prefixes, metric_dtype, sample_dtype, options});
}

Status CallWriteIndexFilesFromGroups(const Comm& comm, const IdGroups& groups,
                                     const IndexFilePrefixes& prefixes, DType metric_dtype,
                                     DType sample_dtype, const WriteOptions& options) {
  return WriteIndexFilesFromGroups(comm, groups, {prefixes, metric_dtype, sample_dtype, options});
}

Status CallWriteOrderedScalars(const Comm& comm, const std::vector<int64_t>& local,
                               const std::string& prefix, DType dtype,
                               const WriteOptions& options) {
  return WriteOrderedScalars(comm, local, prefix, dtype, options);
}

// ScalarRowsWriter opened for the ranks' `count`s (plus `extra_rows`), then
// started from `read`; `between` runs after Start, before Finish.
Status CallScalarRowsWriter(
    const Comm& comm, uint64_t count, const ScalarReader& read, const std::string& prefix,
    DType dtype, const WriteOptions& options, const std::function<void()>& between = [] {},
    uint64_t extra_rows = 0) {
  ScalarRowsWriter writer(comm, options);
  const uint64_t rows = comm.Allreduce<uint64_t>(count, MPI_SUM) + extra_rows;
  DSA_RETURN_IF_ERROR(writer.Open(prefix, rows));
  DSA_RETURN_IF_ERROR(writer.Start(dtype, count, read));
  between();
  return writer.Finish();
}

// The same through Begin, Write and End, in pieces of chunk_rows() - 1 rows
// (at least 1), not Start's chunks, the .idx deferred to WriteIdx().
Status CallScalarRowsSteps(const Comm& comm, std::span<const int64_t> local,
                           const std::string& prefix, DType dtype, const WriteOptions& options) {
  ScalarRowsWriter writer(comm, options);
  DSA_RETURN_IF_ERROR(
      writer.Open(prefix, comm.Allreduce<uint64_t>(local.size(), MPI_SUM), /*idx_now=*/false));
  DSA_RETURN_IF_ERROR(writer.Begin(dtype, local.size()));
  const uint64_t piece = std::max<uint64_t>(1, writer.chunk_rows() - 1);
  Status written;
  for (uint64_t off = 0; off < local.size() && written.ok(); off += piece)
    written = writer.Write(off, local.subspan(off, std::min<uint64_t>(piece, local.size() - off)));
  DSA_RETURN_IF_ERROR(writer.End(written));
  writer.WriteIdx();
  return writer.Finish();
}

struct Dataset {
  std::string name;
  std::vector<Pair> pairs;  // the global list, sorted by (value, id)
  KeyLayout layout;
  DType metric_dtype = DType::kU8;
  DType sample_dtype = DType::kU8;
};

// The pairs sorted by id.
std::vector<Pair> ById(std::vector<Pair> pairs) {
  std::sort(pairs.begin(), pairs.end(),
            [](const Pair& a, const Pair& b) { return a.second < b.second; });
  return pairs;
}

// Rank 0: which of the files of `prefixes`, under their final, temporary or
// ids' element names, exist (" name" each); empty on other ranks.
std::string LeftBehind(const Comm& comm, const IndexFilePrefixes& prefixes) {
  std::string left;
  if (!comm.is_root()) return left;
  for (const std::string& prefix :
       {prefixes.index_to_metric, prefixes.index_to_sample, prefixes.percentile_merged})
    for (const char* ext : {".bin", ".idx", ".bin.tmp", ".idx.tmp", ".ids.bin"})
      if (std::filesystem::exists(prefix + ext)) left += " " + prefix + ext;
  return left;
}

// The key layout and dtypes of d->pairs (sorted by (value, id)).
void SetLayout(Dataset* d) {
  int64_t vmin = 0, vmax = 0, imin = 0, imax = 0;
  if (!d->pairs.empty()) {
    vmin = d->pairs.front().first;
    vmax = d->pairs.back().first;
    const auto by_id = [](const Pair& a, const Pair& b) { return a.second < b.second; };
    imin = std::min_element(d->pairs.begin(), d->pairs.end(), by_id)->second;
    imax = std::max_element(d->pairs.begin(), d->pairs.end(), by_id)->second;
  }
  d->layout = MakeKeyLayout({vmin, vmax}, {imin, imax});
  d->metric_dtype = FitIntDType(vmin, vmax);
  d->sample_dtype = FitIntDType(std::min<int64_t>(0, imin), imax);
}

// U values value_base + k * stride (k < U) over n >= U distinct ids
// id_base + 3 * (a permutation of 0..n-1). Every value has one id; of the
// other ids, `heavy` percent go to value U / 3 and the rest to random values.
Dataset MakeDataset(const std::string& name, uint64_t u, uint64_t n, int64_t value_base,
                    uint64_t stride, int64_t id_base, unsigned heavy, std::mt19937_64& rng) {
  std::vector<int64_t> ids(n);
  for (uint64_t i = 0; i < n; ++i) ids[i] = id_base + 3 * static_cast<int64_t>(i);
  std::shuffle(ids.begin(), ids.end(), rng);
  auto value = [&](uint64_t k) {
    return static_cast<int64_t>(static_cast<uint64_t>(value_base) + k * stride);
  };
  Dataset d;
  d.name = name;
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t k = i;
    if (i >= u) k = (i - u) * 100 < (n - u) * heavy ? u / 3 : rng() % u;
    d.pairs.emplace_back(value(k), ids[i]);
  }
  std::sort(d.pairs.begin(), d.pairs.end());
  SetLayout(&d);
  return d;
}

// Multiplies every id by 2^shift: ids spread far apart, as wide keys need.
Dataset SpreadIds(Dataset d, unsigned shift) {
  for (Pair& pr : d.pairs)
    pr.second = static_cast<int64_t>(static_cast<uint64_t>(pr.second) << shift);
  d.name += ", ids * 2^" + std::to_string(shift);
  SetLayout(&d);
  return d;
}

// The three files as docs/format.md §2.2 and §2.3 define them, computed from
// the global pair list alone.
struct Expected {
  Rows metric, sample, percentile;
};

Expected Expect(const std::vector<Pair>& pairs) {
  Expected e;
  for (size_t i = 0; i < pairs.size(); ++i) {
    if (i == 0 || pairs[i].first != pairs[i - 1].first) {
      e.metric.push_back({pairs[i].first});
      e.sample.emplace_back();
    }
    e.sample.back().push_back(pairs[i].second);
  }
  const uint64_t u = e.metric.size();
  const uint64_t step = std::max<uint64_t>(1, u / 100);  // §2.3
  for (uint64_t first = 0; first < u; first += step) {
    e.percentile.emplace_back();
    for (uint64_t k = first; k < std::min(u, first + step); ++k)
      e.percentile.back().insert(e.percentile.back().end(), e.sample[k].begin(), e.sample[k].end());
  }
  return e;
}

// Reads PREFIX's rows as int64; returns an error text, empty if none.
std::string ReadRows(const std::string& prefix, DType dtype, Rows* rows) {
  Result<IndexedDataset> ds = IndexedDataset::Open(prefix);
  if (!ds.ok()) return ds.status().message();
  if (ds->dtype() != dtype)
    return prefix + ": dtype " + std::string(DTypeName(ds->dtype())) + ", expected " +
           std::string(DTypeName(dtype));
  for (uint64_t i = 0; i < ds->num_rows(); ++i) {
    const ElementView view = ds->row(i);
    std::vector<int64_t>& row = rows->emplace_back();
    VisitIntDType(view.dtype, [&](auto t) {
      for (auto x : view.as<decltype(t)>()) row.push_back(static_cast<int64_t>(x));
    });
  }
  for (const char* ext : {".bin.tmp", ".idx.tmp"})
    if (std::filesystem::exists(prefix + ext)) return prefix + ext + " left behind";
  return "";
}

std::string CompareRows(const std::string& what, const Rows& got, const Rows& want) {
  if (got.size() != want.size())
    return what + ": " + std::to_string(got.size()) + " rows, expected " +
           std::to_string(want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    const std::string row = what + " row " + std::to_string(i);
    if (got[i].size() != want[i].size())
      return row + ": " + std::to_string(got[i].size()) + " elements, expected " +
             std::to_string(want[i].size());
    for (size_t j = 0; j < got[i].size(); ++j)
      if (got[i][j] != want[i][j])
        return row + " element " + std::to_string(j) + ": " + std::to_string(got[i][j]) +
               ", expected " + std::to_string(want[i][j]);
  }
  return "";
}

// Rank 0's check of the three written files; an error text, empty if none.
std::string CheckIndexFiles(const IndexFilePrefixes& p, const Dataset& d) {
  const Expected e = Expect(d.pairs);
  const struct {
    const std::string& prefix;
    DType dtype;
    const Rows& want;
  } files[] = {{p.index_to_metric, d.metric_dtype, e.metric},
               {p.index_to_sample, d.sample_dtype, e.sample},
               {p.percentile_merged, d.sample_dtype, e.percentile}};
  for (const auto& f : files) {
    Rows got;
    std::string err = ReadRows(f.prefix, f.dtype, &got);
    if (err.empty()) err = CompareRows(f.prefix, got, f.want);
    if (!err.empty()) return err;
  }
  return "";
}

// How the M keys of the global order are split across p ranks.
enum class Split { kEven, kOddRanksEmpty, kFirstAndLastEmpty, kAllOnOne, kRandom };

const char* SplitName(Split s) {
  switch (s) {
    case Split::kEven:
      return "even split";
    case Split::kOddRanksEmpty:
      return "odd ranks empty";
    case Split::kFirstAndLastEmpty:
      return "first and last rank empty";
    case Split::kAllOnOne:
      return "all keys on rank p/2";
    default:
      return "random split";
  }
}

// bounds[r] .. bounds[r + 1] is rank r's part of the M keys. Draws from `rng`
// identically on every rank.
std::vector<uint64_t> Bounds(Split s, uint64_t m, int p, std::mt19937_64& rng) {
  std::vector<uint64_t> weight(p, 1);
  if (s == Split::kOddRanksEmpty)
    for (int r = 1; r < p; r += 2) weight[r] = 0;
  if (s == Split::kFirstAndLastEmpty && p > 1) weight[0] = weight[p - 1] = 0;
  if (s == Split::kFirstAndLastEmpty && p == 2) weight[1] = 1;
  if (s == Split::kAllOnOne) {
    std::fill(weight.begin(), weight.end(), 0);
    weight[p / 2] = 1;
  }
  uint64_t total = 0;
  for (uint64_t w : weight) total += w;
  std::vector<uint64_t> bounds{0};
  uint64_t acc = 0;
  for (int r = 0; r < p; ++r) {
    acc += weight[r];
    bounds.push_back(m * acc / total);
  }
  if (s == Split::kRandom) {
    for (int r = 1; r < p; ++r) bounds[r] = rng() % (m + 1);
    std::sort(bounds.begin() + 1, bounds.end() - 1);
  }
  return bounds;
}

// The most ranks any one value's run of keys is spread over.
uint64_t MostRanksPerValue(const std::vector<Pair>& pairs, const std::vector<uint64_t>& bounds) {
  uint64_t most = 0;
  for (size_t a = 0, b = 0; a < pairs.size(); a = b) {
    while (b < pairs.size() && pairs[b].first == pairs[a].first) ++b;
    uint64_t ranks = 0;
    for (size_t r = 0; r + 1 < bounds.size(); ++r)
      ranks += bounds[r] < bounds[r + 1] && bounds[r] < b && a < bounds[r + 1];
    most = std::max(most, ranks);
  }
  return most;
}

struct CaseSetup {
  std::string dir;  // scratch directory (meaningful on rank 0)
  int next_case = 0;
  std::mt19937_64 rng{7};  // same sequence on every rank
};

// The file names of the next case, in the scratch directory.
IndexFilePrefixes NextPrefixes(CaseSetup* setup) {
  const std::string base = setup->dir + "/case" + std::to_string(setup->next_case++) + "_";
  return {base + "index_to_metric", base + "index_to_sample",
          base + "index_to_sample_percentile_merged"};
}

// Writes d's index files with write(prefixes, options), in chunks of
// `chunk_keys` keys (0: the default chunk size), and checks on rank 0 the
// files and the progress row count.
template <class Key, class Write>
void WriteAndCheck(const Comm& comm, CaseSetup* setup, const Dataset& d, const std::string& label,
                   uint64_t chunk_keys, Write&& write) {
  const IndexFilePrefixes prefixes = NextPrefixes(setup);
  WriteOptions options;
  if (chunk_keys > 0) options.chunk_bytes = chunk_keys * sizeof(Key);
  std::atomic<uint64_t> rows_done{0};
  options.rows_done = &rows_done;
  const Status st = write(prefixes, options);
  Check(comm, st.ok(), label + ": " + st.message());
  std::string err;
  if (comm.is_root() && st.ok()) {
    err = CheckIndexFiles(prefixes, d);
    if (err.empty() && rows_done.load() != d.pairs.size())
      err = "rows_done " + std::to_string(rows_done.load()) + ", expected " +
            std::to_string(d.pairs.size());
  }
  Check(comm, err.empty(), label + ": " + err);
}

// Writes `d` split by `split` in chunks of `chunk_keys` keys (0: the default
// chunk size) and checks the files. Returns MostRanksPerValue of the split.
template <class Key>
uint64_t RunIndexCase(const Comm& comm, CaseSetup* setup, const Dataset& d, Split split,
                      uint64_t chunk_keys) {
  const std::string label = d.name + ", " + SplitName(split) + ", chunk " +
                            (chunk_keys ? std::to_string(chunk_keys) + " keys" : "default");
  const KeyCodec<Key> codec{d.layout};
  std::vector<Key> keys;
  for (const Pair& pr : d.pairs) keys.push_back(codec.Encode(pr.first, pr.second));
  Check(comm, std::is_sorted(keys.begin(), keys.end()), label + ": encoded keys keep pair order");
  const std::vector<uint64_t> bounds = Bounds(split, keys.size(), comm.size(), setup->rng);
  const std::vector<Key> slice(keys.begin() + bounds[comm.rank()],
                               keys.begin() + bounds[comm.rank() + 1]);
  WriteAndCheck<Key>(comm, setup, d, label + ": WriteIndexFiles", chunk_keys,
                     [&](const IndexFilePrefixes& prefixes, const WriteOptions& options) {
                       return CallWriteIndexFiles(comm, slice, codec, prefixes, d.metric_dtype,
                                                  d.sample_dtype, options);
                     });
  return MostRanksPerValue(d.pairs, bounds);
}

// Every split and chunk size for one dataset. Returns the most ranks one
// value's run spanned under the even split.
template <class Key>
uint64_t RunIndexCases(const Comm& comm, CaseSetup* setup, const Dataset& d) {
  Check(comm, d.layout.fits_u64() == std::is_same_v<Key, uint64_t>,
        d.name + ": the layout needs this key type");
  uint64_t even_spread = 0;
  for (Split split : {Split::kEven, Split::kOddRanksEmpty, Split::kFirstAndLastEmpty,
                      Split::kAllOnOne, Split::kRandom}) {
    for (uint64_t chunk_keys : {1, 3, 0}) {
      const uint64_t spread = RunIndexCase<Key>(comm, setup, d, split, chunk_keys);
      if (split == Split::kEven) even_spread = spread;
    }
  }
  return even_spread;
}

// WriteIndexFilesRankOrdered: the pairs are split in id order, so ranks hold
// ascending id ranges (how many each gets: `split`), and each rank sorts its
// own; the files must be those of the whole list. Chunks of 1 and 3 keys make
// windows of 16 and 48 keys, so value runs cross windows as well as ranks.
template <class Key>
void RunRankOrderedCase(const Comm& comm, CaseSetup* setup, const Dataset& d, Split split,
                        uint64_t chunk_keys) {
  const std::string label = "rank-ordered, " + d.name + ", " + SplitName(split) + ", chunk " +
                            (chunk_keys ? std::to_string(chunk_keys) + " keys" : "default");
  const KeyCodec<Key> codec{d.layout};
  const std::vector<Pair> by_id = ById(d.pairs);
  const std::vector<uint64_t> bounds = Bounds(split, by_id.size(), comm.size(), setup->rng);
  std::vector<Key> local;
  for (uint64_t i = bounds[comm.rank()]; i < bounds[comm.rank() + 1]; ++i)
    local.push_back(codec.Encode(by_id[i].first, by_id[i].second));
  std::sort(local.begin(), local.end());
  WriteAndCheck<Key>(comm, setup, d, label + ": WriteIndexFilesRankOrdered", chunk_keys,
                     [&](const IndexFilePrefixes& prefixes, const WriteOptions& options) {
                       return CallWriteIndexFilesRankOrdered(
                           comm, local, codec, prefixes, d.metric_dtype, d.sample_dtype, options);
                     });
}

template <class Key>
void RunRankOrderedCases(const Comm& comm, CaseSetup* setup, const Dataset& d) {
  Check(comm, d.layout.fits_u64() == std::is_same_v<Key, uint64_t>,
        d.name + ": the layout needs this key type");
  for (Split split : {Split::kEven, Split::kOddRanksEmpty, Split::kFirstAndLastEmpty,
                      Split::kAllOnOne, Split::kRandom})
    for (uint64_t chunk_keys : {1, 3, 0})
      RunRankOrderedCase<Key>(comm, setup, d, split, chunk_keys);
}

void RunRankOrderedDatasets(const Comm& comm, CaseSetup* setup) {
  std::mt19937_64& rng = setup->rng;
  RunRankOrderedCases<uint64_t>(comm, setup, MakeDataset("N = 0", 0, 0, 0, 1, 0, 0, rng));
  RunRankOrderedCases<uint64_t>(comm, setup, MakeDataset("U = 1", 1, 500, 42, 1, 0, 0, rng));
  RunRankOrderedCases<uint64_t>(
      comm, setup, MakeDataset("U = 50, one heavy value", 50, 2000, -20, 1, 0, 70, rng));
  RunRankOrderedCases<uint64_t>(comm, setup,
                                MakeDataset("U = 251", 251, 1500, 0, 1, 1000000, 10, rng));
  RunRankOrderedCases<uint64_t>(comm, setup, MakeDataset("U = 1234", 1234, 4000, 0, 1, 0, 30, rng));
  // Every value distinct, spread over the widest value offsets taken (24 bits).
  RunRankOrderedCases<uint64_t>(
      comm, setup, MakeDataset("U = N = 3000, 24 value bits", 3000, 3000, -5, 5592, 0, 0, rng));
  // Value bits + id bits > 64: wide keys.
  RunRankOrderedCases<WideKey>(
      comm, setup, SpreadIds(MakeDataset("wide keys, U = 300", 300, 1200, 9, 1, 0, 40, rng), 50));
}

// The pairs with their ids relabelled id_base, id_base + 1, ... in id order.
Dataset ConsecutiveIds(Dataset d, int64_t id_base) {
  d.pairs = ById(std::move(d.pairs));
  for (size_t i = 0; i < d.pairs.size(); ++i) d.pairs[i].second = id_base + static_cast<int64_t>(i);
  std::sort(d.pairs.begin(), d.pairs.end());
  d.name += ", consecutive ids from " + std::to_string(id_base);
  SetLayout(&d);
  return d;
}

// Rank r's part of d's pairs split in id order by `bounds`, its ids grouped by
// value over d's whole value range (GroupIdsByValue).
IdGroups LocalGroups(const Comm& comm, const Dataset& d, const std::vector<uint64_t>& bounds,
                     unsigned threads) {
  const std::vector<Pair> by_id = ById(d.pairs);
  std::vector<int64_t> values;
  for (uint64_t i = bounds[comm.rank()]; i < bounds[comm.rank() + 1]; ++i)
    values.push_back(by_id[i].first);
  const int64_t first_id = values.empty() ? 0 : by_id[bounds[comm.rank()]].second;
  const int64_t vmin = d.pairs.empty() ? 0 : d.pairs.front().first;
  const int64_t vmax = d.pairs.empty() ? 0 : d.pairs.back().first;
  return GroupIdsByValue(std::move(values), first_id, vmin, static_cast<size_t>(vmax - vmin) + 1,
                         ItemSize(d.sample_dtype), threads);
}

// WriteIndexFilesFromGroups: ranks hold consecutive ascending id ranges (how
// many each gets: `split`) and write their own groups; the files must be
// those of the whole list, and the ids' temporary file must be gone.
void RunGroupedCase(const Comm& comm, CaseSetup* setup, const Dataset& d, Split split) {
  const std::string label = "grouped, " + d.name + ", " + SplitName(split);
  const std::vector<uint64_t> bounds = Bounds(split, d.pairs.size(), comm.size(), setup->rng);
  const IdGroups groups = LocalGroups(comm, d, bounds, 2);
  std::string ids_file;
  WriteAndCheck<uint64_t>(comm, setup, d, label + ": WriteIndexFilesFromGroups", 0,
                          [&](const IndexFilePrefixes& prefixes, const WriteOptions& options) {
                            ids_file = prefixes.index_to_sample + ".ids.bin";
                            return CallWriteIndexFilesFromGroups(
                                comm, groups, prefixes, d.metric_dtype, d.sample_dtype, options);
                          });
  Check(comm, !comm.is_root() || !std::filesystem::exists(ids_file),
        label + ": " + ids_file + " left behind");
}

void RunGroupedDatasets(const Comm& comm, CaseSetup* setup) {
  std::mt19937_64& rng = setup->rng;
  const std::vector<Dataset> sets = {
      ConsecutiveIds(MakeDataset("N = 0", 0, 0, 0, 1, 0, 0, rng), 0),
      ConsecutiveIds(MakeDataset("U = 1", 1, 500, 42, 1, 0, 0, rng), 0),
      ConsecutiveIds(MakeDataset("U = 50, one heavy value", 50, 2000, -20, 1, 0, 70, rng), 7),
      ConsecutiveIds(MakeDataset("U = 251", 251, 1500, 0, 1, 0, 10, rng), 1000000),
      ConsecutiveIds(MakeDataset("U = 1234", 1234, 4000, 0, 1, 0, 30, rng), 0),
      // Every value distinct, over the widest range grouped (2^16 values).
      ConsecutiveIds(MakeDataset("U = N = 3000, 16 value bits", 3000, 3000, -5, 21, 0, 0, rng), 0),
      // Ids past 2^32 (uint64 in the files).
      ConsecutiveIds(MakeDataset("U = 300", 300, 1200, 9, 1, 0, 40, rng), int64_t{1} << 40)};
  for (const Dataset& d : sets)
    for (Split split : {Split::kEven, Split::kOddRanksEmpty, Split::kFirstAndLastEmpty,
                        Split::kAllOnOne, Split::kRandom})
      RunGroupedCase(comm, setup, d, split);
}

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  std::string bytes(in ? static_cast<size_t>(in.tellg()) : 0, '\0');
  in.seekg(0);
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return bytes;
}

// Rank 0: "" when `prefix`.bin and .idx equal `written`'s and no temporary
// file of `prefix` is left, else what differs.
std::string SameScalarFiles(const Comm& comm, const std::string& prefix,
                            const std::string& written) {
  std::string err;
  if (!comm.is_root()) return err;
  for (const char* ext : {".bin", ".idx"})
    if (ReadBytes(prefix + ext) != ReadBytes(written + ext))
      err += " " + prefix + ext + " differs;";
  for (const char* ext : {".bin.tmp", ".idx.tmp"})
    if (std::filesystem::exists(prefix + ext)) err += " " + prefix + ext + " left;";
  return err;
}

// WriteOrderedScalars from each rank's values in a ValueStore of tiny blocks
// that spills: the same file as `written` (from memory), byte for byte.
void RunScalarStoreCase(const Comm& comm, CaseSetup* setup, const std::string& label,
                        const std::vector<int64_t>& local, const std::string& written,
                        const WriteOptions& options) {
  const std::string scratch = setup->dir + "/store-" + std::to_string(comm.rank());
  std::filesystem::create_directories(scratch);
  ValueStore store(0, scratch, 16);  // every whole block spills
  Status st = store.Append(local);
  if (st.ok()) st = store.Seal();
  if (st.ok()) st = WriteOrderedScalars(comm, store, written + "_store", DType::kI32, options);
  Check(comm, st.ok(), label + ": WriteOrderedScalars from a store: " + st.message());
  Check(comm, local.size() < 16 || store.spilled_bytes() > 0,
        label + ": the store spilled nothing");
  bool same = true;
  if (comm.is_root() && st.ok())
    for (const char* ext : {".bin", ".idx"})
      same = same && ReadBytes(written + ext) == ReadBytes(written + "_store" + ext);
  Check(comm, same, label + ": the file from a store differs from the one from memory");
  st = CallScalarRowsWriter(comm, store.size(), ReaderOf(store), written + "_rows_store",
                            DType::kI32, options);
  Check(comm, st.ok(), label + ": ScalarRowsWriter from a store: " + st.message());
  if (st.ok()) {
    const std::string err = SameScalarFiles(comm, written + "_rows_store", written);
    Check(comm, err.empty(), label + ": ScalarRowsWriter from a store:" + err);
  }
}

// ScalarRowsWriter from memory writes `written`'s bytes, and counts every row.
void RunScalarRowsCase(const Comm& comm, const std::string& label, std::vector<int64_t> local,
                       const std::string& written, WriteOptions options) {
  const std::vector<int64_t> local_values = local;  // `local` is overwritten below
  std::atomic<uint64_t> rows_done{0};
  options.rows_done = &rows_done;
  const Status st =
      CallScalarRowsWriter(comm, local.size(), ReaderOf(local), written + "_rows", DType::kI32,
                           options, [&] { std::fill(local.begin(), local.end(), -7); });
  Check(comm, st.ok(), label + ": ScalarRowsWriter: " + st.message());
  if (!st.ok()) return;
  const uint64_t total = comm.Allreduce<uint64_t>(local.size(), MPI_SUM);
  std::string err = SameScalarFiles(comm, written + "_rows", written);
  if (comm.is_root() && rows_done.load() != total)
    err += " rows_done " + std::to_string(rows_done.load()) + ", expected " + std::to_string(total);
  Check(comm, err.empty(), label + ": ScalarRowsWriter:" + err);
  rows_done = 0;
  const Status steps =
      CallScalarRowsSteps(comm, local_values, written + "_steps", DType::kI32, options);
  Check(comm, steps.ok(), label + ": ScalarRowsWriter in steps: " + steps.message());
  if (!steps.ok()) return;
  err = SameScalarFiles(comm, written + "_steps", written);
  if (comm.is_root() && rows_done.load() != total)
    err += " rows_done " + std::to_string(rows_done.load()) + ", expected " + std::to_string(total);
  Check(comm, err.empty(), label + ": ScalarRowsWriter in steps:" + err);
}

// Rank 0: the files of `prefix`, under final or temporary names, that exist.
std::string ScalarFilesLeft(const Comm& comm, const std::string& prefix) {
  std::string left;
  if (comm.is_root())
    for (const char* ext : {".bin", ".idx", ".bin.tmp", ".idx.tmp"})
      if (std::filesystem::exists(prefix + ext)) left += " " + prefix + ext;
  return left;
}

// A ScalarRowsWriter opened for more rows than the ranks start with fails on
// every rank with Internal naming both counts; one abandoned after Open (as
// when the map fails) stops its .idx thread; neither leaves a file.
void RunScalarRowsAbandoned(const Comm& comm, CaseSetup* setup) {
  const std::vector<int64_t> local(100, comm.rank());
  const std::string more = setup->dir + "/case" + std::to_string(setup->next_case++) + "_more";
  const Status st = CallScalarRowsWriter(
      comm, local.size(), ReaderOf(local), more, DType::kI32, WriteOptions{}, [] {}, 1);
  const std::string total = std::to_string(100 * comm.size());
  Check(comm,
        st.code() == Status::Code::kInternal &&
            st.message().find(total + " rows written, " + std::to_string(100 * comm.size() + 1) +
                              " opened for") != std::string::npos,
        "ScalarRowsWriter opened for one row more: '" + st.message() + "'");
  std::string left = ScalarFilesLeft(comm, more);
  Check(comm, left.empty(), "ScalarRowsWriter opened for one row more: left behind:" + left);
  const std::string opened = setup->dir + "/case" + std::to_string(setup->next_case++) + "_open";
  {
    ScalarRowsWriter writer(comm, WriteOptions{});
    const Status ost = writer.Open(opened, 100 * comm.size());
    Check(comm, ost.ok(), "ScalarRowsWriter::Open: " + ost.message());
  }
  left = ScalarFilesLeft(comm, opened);
  Check(comm, left.empty(), "ScalarRowsWriter abandoned after Open: left behind:" + left);
}

// WriteOrderedScalars: rank r contributes counts[r] values; the file must hold
// them one per row, rank 0's first, in rank order.
void RunScalarCase(const Comm& comm, CaseSetup* setup, const std::string& name,
                   const std::vector<uint64_t>& counts, uint64_t chunk_values) {
  const std::string label = "scalars, " + name;
  std::vector<int64_t> all;
  std::vector<int64_t> local;
  for (int r = 0; r < comm.size(); ++r) {
    for (uint64_t i = 0; i < counts[r]; ++i) {
      const int64_t v = 1000 * r - static_cast<int64_t>(i % 700);
      all.push_back(v);
      if (r == comm.rank()) local.push_back(v);
    }
  }
  const DType dtype = DType::kI32;
  const std::string prefix =
      setup->dir + "/case" + std::to_string(setup->next_case++) + "_sample_to_metric";
  WriteOptions options;
  if (chunk_values > 0) options.chunk_bytes = chunk_values * sizeof(int64_t);
  std::atomic<uint64_t> rows_done{0};
  options.rows_done = &rows_done;
  const Status st = CallWriteOrderedScalars(comm, local, prefix, dtype, options);
  Check(comm, st.ok(), label + ": WriteOrderedScalars: " + st.message());
  std::string err;
  if (comm.is_root() && st.ok()) {
    Rows want, got;
    for (int64_t v : all) want.push_back({v});
    err = ReadRows(prefix, dtype, &got);
    if (err.empty()) err = CompareRows(prefix, got, want);
    if (err.empty() && rows_done.load() != all.size())
      err = "rows_done " + std::to_string(rows_done.load()) + ", expected " +
            std::to_string(all.size());
  }
  Check(comm, err.empty(), label + ": " + err);
  RunScalarStoreCase(comm, setup, label, local, prefix, options);
  RunScalarRowsCase(comm, label, local, prefix, options);
}

void RunScalarCases(const Comm& comm, CaseSetup* setup) {
  const int p = comm.size();
  std::vector<uint64_t> even(p, 100), odd_empty(p), last_only(p, 0), none(p, 0);
  for (int r = 0; r < p; ++r) odd_empty[r] = r % 2 ? 0 : 37 + r;
  last_only[p - 1] = 250;
  for (uint64_t chunk : {1, 3, 0}) {
    const std::string c = ", chunk " + std::to_string(chunk);
    RunScalarCase(comm, setup, "100 per rank" + c, even, chunk);
    RunScalarCase(comm, setup, "odd ranks empty" + c, odd_empty, chunk);
    RunScalarCase(comm, setup, "only the last rank" + c, last_only, chunk);
    RunScalarCase(comm, setup, "no rows" + c, none, chunk);
  }
  RunScalarRowsAbandoned(comm, setup);
}

// A signal caught on rank 0 (util/interrupt.h) stops the writing: every rank
// returns Interrupted with the signal, and rank 0 leaves no file behind, under
// a final or a temporary name. Run last: a caught signal stays caught.
void RunInterruptedCase(const Comm& comm, CaseSetup* setup) {
  const Dataset d = MakeDataset("interrupted", 20, 300, 0, 1, 0, 0, setup->rng);
  const KeyCodec<uint64_t> codec{d.layout};
  std::vector<uint64_t> slice;
  const std::vector<uint64_t> bounds =
      Bounds(Split::kEven, d.pairs.size(), comm.size(), setup->rng);
  for (uint64_t i = bounds[comm.rank()]; i < bounds[comm.rank() + 1]; ++i)
    slice.push_back(codec.Encode(d.pairs[i].first, d.pairs[i].second));
  const IndexFilePrefixes prefixes = NextPrefixes(setup);
  InstallInterruptHandlers();
  if (comm.is_root()) std::raise(SIGINT);
  WriteOptions options;
  options.chunk_bytes = 3 * sizeof(uint64_t);
  const Status st =
      CallWriteIndexFiles(comm, slice, codec, prefixes, d.metric_dtype, d.sample_dtype, options);
  Check(comm, st.code() == Status::Code::kInterrupted && st.signal() == SIGINT,
        "signal on rank 0: WriteIndexFiles returned code " +
            std::to_string(static_cast<int>(st.code())) + " '" + st.message() + "'");
  std::string left = LeftBehind(comm, prefixes);
  Check(comm, left.empty(), "signal on rank 0: files left behind:" + left);

  // So does the rank-ordered write (its precondition on ids does not matter:
  // the signal is caught before anything is written).
  const IndexFilePrefixes ordered = NextPrefixes(setup);
  const Status ost = CallWriteIndexFilesRankOrdered(comm, slice, codec, ordered, d.metric_dtype,
                                                    d.sample_dtype, options);
  Check(comm, ost.code() == Status::Code::kInterrupted && ost.signal() == SIGINT,
        "signal on rank 0: WriteIndexFilesRankOrdered returned '" + ost.message() + "'");
  left = LeftBehind(comm, ordered);
  Check(comm, left.empty(), "signal on rank 0, rank-ordered: files left behind:" + left);

  // So does the grouped write, leaving no ids' file either.
  const IndexFilePrefixes grouped = NextPrefixes(setup);
  const Dataset c = ConsecutiveIds(d, 0);
  const IdGroups groups =
      LocalGroups(comm, c, Bounds(Split::kEven, c.pairs.size(), comm.size(), setup->rng), 1);
  const Status gst =
      CallWriteIndexFilesFromGroups(comm, groups, grouped, c.metric_dtype, c.sample_dtype, options);
  Check(comm, gst.code() == Status::Code::kInterrupted && gst.signal() == SIGINT,
        "signal on rank 0: WriteIndexFilesFromGroups returned '" + gst.message() + "'");
  left = LeftBehind(comm, grouped);
  Check(comm, left.empty(), "signal on rank 0, grouped: files left behind:" + left);

  // sample_to_metric stops too, also before rank 0's own rows (at np1 it has
  // no other rows to receive).
  const std::string scalars = NextPrefixes(setup).index_to_metric;
  const std::vector<int64_t> local(100, comm.rank());
  const Status sst = CallWriteOrderedScalars(comm, local, scalars, DType::kI32, options);
  Check(comm, sst.code() == Status::Code::kInterrupted && sst.signal() == SIGINT,
        "signal on rank 0: WriteOrderedScalars returned '" + sst.message() + "'");
  left = ScalarFilesLeft(comm, scalars);
  Check(comm, left.empty(), "signal on rank 0: sample_to_metric left behind:" + left);

  // So does every rank writing its own rows of it.
  const std::string rows = NextPrefixes(setup).index_to_metric;
  const Status rst =
      CallScalarRowsWriter(comm, local.size(), ReaderOf(local), rows, DType::kI32, options);
  Check(comm, rst.code() == Status::Code::kInterrupted && rst.signal() == SIGINT,
        "signal on rank 0: ScalarRowsWriter returned '" + rst.message() + "'");
  left = ScalarFilesLeft(comm, rows);
  Check(comm, left.empty(), "signal on rank 0: ScalarRowsWriter left behind:" + left);
}

void RunIndexDatasets(const Comm& comm, CaseSetup* setup) {
  std::mt19937_64& rng = setup->rng;
  RunIndexCases<uint64_t>(comm, setup, MakeDataset("N = 0", 0, 0, 0, 1, 0, 0, rng));
  RunIndexCases<uint64_t>(comm, setup, MakeDataset("U = 1", 1, 500, 42, 1, 0, 0, rng));
  // Most ids on one value, so under the even split its run spans several ranks.
  const uint64_t spread = RunIndexCases<uint64_t>(
      comm, setup, MakeDataset("U = 50, one heavy value", 50, 2000, -20, 1, 0, 70, rng));
  Check(comm, spread >= static_cast<uint64_t>(std::min(comm.size(), 3)),
        "U = 50: the heavy value spans " + std::to_string(spread) + " ranks");
  RunIndexCases<uint64_t>(comm, setup, MakeDataset("U = 199", 199, 1500, 0, 3, 7, 10, rng));
  RunIndexCases<uint64_t>(comm, setup, MakeDataset("U = 200", 200, 1000, 1000, 1, 0, 10, rng));
  RunIndexCases<uint64_t>(comm, setup, MakeDataset("U = 250", 250, 1500, -300, 7, 0, 10, rng));
  RunIndexCases<uint64_t>(comm, setup, MakeDataset("U = 251", 251, 1500, 0, 1, 1000000, 10, rng));
  RunIndexCases<uint64_t>(comm, setup, MakeDataset("U = 1234", 1234, 4000, 0, 1, 0, 30, rng));
  // Value offsets of 61 and 64 bits: value bits + id bits > 64.
  RunIndexCases<WideKey>(
      comm, setup,
      MakeDataset("wide keys, U = 1234", 1234, 3000, INT64_MIN + 5, uint64_t{1} << 50, 0, 40, rng));
  RunIndexCases<WideKey>(comm, setup,
                         MakeDataset("wide keys, U = 3, full int64 range", 3, 800, INT64_MIN,
                                     uint64_t{INT64_MAX}, 5, 50, rng));
}

}  // namespace
}  // namespace dsanalyze::gather_write_test

DSA_MPI_SUITE(gather_write) {
  using namespace dsanalyze;
  using namespace dsanalyze::gather_write_test;
  CaseSetup setup;
  setup.dir = test::MakeSharedTempDir(comm, "gather_write_test");
  test::Check(comm, !setup.dir.empty(), "mkdtemp");
  if (!setup.dir.empty()) {
    RunIndexDatasets(comm, &setup);
    RunRankOrderedDatasets(comm, &setup);
    RunGroupedDatasets(comm, &setup);
    RunScalarCases(comm, &setup);
    RunInterruptedCase(comm, &setup);
  }
  comm.Barrier();
  if (comm.is_root() && !setup.dir.empty()) std::filesystem::remove_all(setup.dir);
  if (comm.is_root()) std::printf("gather_write: %d cases\n", setup.next_case);
}
