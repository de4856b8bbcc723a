// The benchmark's floor (scripts/bench.sh, cases FLOOR and FLOORG): the least
// work that produces the output files of the seed benchmark's `value` metric,
// on one core, one thread, with plain write(2) calls. Written from
// docs/format.md (§1 the .idx/.bin pair, §2.2-§2.6 the files, §4 the dataset),
// independently of lib/, so it can be compiled by bench.sh alone:
//
//   g++ -O2 -std=c++20 -o bench_floor scripts/bench_floor.cc
//   bench_floor N PREFIX [--files all|index] [--modulus M] [--disk]
//
// --disk (case DISK) computes nothing: it writes the same files at the same
// sizes, the three large ones (sample_to_metric's .bin and .idx,
// index_to_sample's .bin) as zeros, and writes the way dsanalyze's writers do:
// after every 256 MiB it asks the kernel to start writeback and drop the
// written pages (posix_fadvise DONTNEED). Its time is what this file system
// takes to accept those bytes: a run that must write them cannot be faster.
//
// Sample x (x in [0, N)) has the value (x + 7) % M (M = 10000 by default).
// Writes PREFIX_sample_to_metric, PREFIX_index_to_metric, PREFIX_index_to_sample
// and PREFIX_index_to_sample_percentile_merged (.bin and .idx, `deepspeed` dtype
// codes), the percentile-merged .bin a hard link to index_to_sample's, as
// dsanalyze does. `--files index` leaves out sample_to_metric (case G's
// choice). The (value, id) pairs are ordered by a counting sort: ids arrive
// ascending, so one pass counts, a second scatters the ids into their final
// places. The files must be byte-identical to dsanalyze's for that metric;
// bench.sh checks that with cmp at a small N before timing.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace {

constexpr uint64_t kChunk = uint64_t{1} << 20;  // values computed and written per batch
constexpr size_t kBufBytes = size_t{8} << 20;   // bytes per write(2)
constexpr uint64_t kDropBehindBytes = uint64_t{256} << 20;

bool g_drop_behind = false;  // --disk

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "bench_floor: %s: %s\n", what.c_str(), std::strerror(errno));
  std::exit(1);
}

// A file written front to back through one buffer.
class Out {
 public:
  explicit Out(const std::string& path) : path_(path), buf_(kBufBytes) {
    fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd_ < 0) Die(path);
  }
  ~Out() {
    Flush();
    if (::close(fd_) != 0) Die(path_);
  }
  void Put(const void* data, size_t n) {
    const char* p = static_cast<const char*>(data);
    while (n > 0) {
      size_t take = std::min(n, buf_.size() - used_);
      std::memcpy(buf_.data() + used_, p, take);
      used_ += take;
      p += take;
      n -= take;
      if (used_ == buf_.size()) Flush();
    }
  }
  template <class T>
  void Put(T v) {
    Put(&v, sizeof(v));
  }
  // Writes straight from the caller's memory (after what is buffered).
  void PutLarge(const void* data, size_t n) {
    Flush();
    WriteAll(static_cast<const char*>(data), n);
  }
  void PutZeros(uint64_t n) {
    Flush();
    const std::vector<char> zeros(kBufBytes, 0);
    for (uint64_t done = 0; done < n; done += zeros.size())
      WriteAll(zeros.data(), std::min<uint64_t>(zeros.size(), n - done));
  }

 private:
  void Flush() {
    WriteAll(buf_.data(), used_);
    used_ = 0;
  }
  void WriteAll(const char* p, size_t n) {
    while (n > 0) {
      ssize_t w = ::write(fd_, p, n);
      if (w < 0) {
        if (errno == EINTR) continue;
        Die(path_);
      }
      p += w;
      n -= static_cast<size_t>(w);
      undropped_ += static_cast<uint64_t>(w);
      if (g_drop_behind && undropped_ >= kDropBehindBytes) {
        undropped_ = 0;
        ::posix_fadvise(fd_, 0, 0, POSIX_FADV_DONTNEED);
      }
    }
  }
  std::string path_;
  std::vector<char> buf_;
  size_t used_ = 0;
  uint64_t undropped_ = 0;
  int fd_ = -1;
};

// docs/format.md §2.5 for min >= 0: the item size; §1.2 `deepspeed` codes.
unsigned ItemSize(uint64_t max) {
  return max <= 0xff ? 1 : max <= 0xffff ? 2 : max <= 0xffffffffu ? 4 : 8;
}
uint8_t Code(unsigned itemsize) {
  return itemsize == 1 ? 1 : itemsize == 2 ? 6 : itemsize == 4 ? 7 : 8;
}

void PutUint(Out& out, uint64_t v, unsigned itemsize) {
  out.Put(&v, itemsize);  // little-endian: the low bytes first
}

// The .idx header (§1): magic, version 1, dtype code, rows, doc_idx count 2.
constexpr uint64_t kHeaderBytes = 9 + 8 + 1 + 8 + 8;
void PutHeader(Out& idx, unsigned itemsize, uint64_t rows) {
  static const char kMagic[9] = {'M', 'M', 'I', 'D', 'I', 'D', 'X', 0, 0};
  idx.Put(kMagic, 9);
  idx.Put(uint64_t{1});
  idx.Put(Code(itemsize));
  idx.Put(rows);
  idx.Put(uint64_t{2});
}
// doc_idx = [0, rows] (§2.6).
void PutDocIdx(Out& idx, uint64_t rows) {
  idx.Put(int64_t{0});
  idx.Put(static_cast<int64_t>(rows));
}

// The size of WriteScalarIdx's file: header, sizes, pointers, doc_idx.
uint64_t ScalarIdxBytes(uint64_t rows) { return kHeaderBytes + 12 * rows + 16; }

// An .idx of `rows` rows of one element each (sample_to_metric, index_to_metric).
void WriteScalarIdx(const std::string& path, unsigned itemsize, uint64_t rows) {
  Out idx(path);
  PutHeader(idx, itemsize, rows);
  std::vector<int32_t> ones(kChunk, 1);
  std::vector<int64_t> pointers(kChunk);
  for (uint64_t r = 0; r < rows; r += kChunk) {
    uint64_t n = std::min(kChunk, rows - r);
    idx.Put(ones.data(), 4 * n);
  }
  for (uint64_t r = 0; r < rows; r += kChunk) {
    uint64_t n = std::min(kChunk, rows - r);
    for (uint64_t i = 0; i < n; ++i) pointers[i] = static_cast<int64_t>((r + i) * itemsize);
    idx.Put(pointers.data(), 8 * n);
  }
  PutDocIdx(idx, rows);
}

// An .idx whose rows hold sizes[i] elements.
void WriteIdx(const std::string& path, unsigned itemsize, const std::vector<uint64_t>& sizes) {
  Out idx(path);
  PutHeader(idx, itemsize, sizes.size());
  for (uint64_t s : sizes) idx.Put(static_cast<int32_t>(s));
  int64_t pointer = 0;
  for (uint64_t s : sizes) {
    idx.Put(pointer);
    pointer += static_cast<int64_t>(s * itemsize);
  }
  PutDocIdx(idx, sizes.size());
}

// Pass 1: the values, in sample order: counted, and written as
// sample_to_metric's .bin (--disk: counted by formula, the .bin zeros).
template <class V>
std::vector<uint64_t> CountAndWriteValues(uint64_t n, uint64_t modulus, const std::string& prefix,
                                          bool all, bool disk) {
  const uint64_t offset = 7 % modulus;
  std::vector<uint64_t> count(modulus, 0);
  if (disk) {
    for (uint64_t v = 0; v < modulus; ++v) {
      const uint64_t first = (v + modulus - offset) % modulus;  // the first x of value v
      count[v] = first < n ? (n - 1 - first) / modulus + 1 : 0;
    }
    if (all) Out(prefix + "_sample_to_metric.bin").PutZeros(sizeof(V) * n);
    return count;
  }
  std::vector<V> values(kChunk);
  Out* bin = all ? new Out(prefix + "_sample_to_metric.bin") : nullptr;
  for (uint64_t x0 = 0; x0 < n; x0 += kChunk) {
    const uint64_t m = std::min(kChunk, n - x0);
    uint64_t v = (x0 + offset) % modulus;
    for (uint64_t i = 0; i < m; ++i) {
      values[i] = static_cast<V>(v);
      ++count[v];
      if (++v == modulus) v = 0;
    }
    if (bin) bin->Put(values.data(), sizeof(V) * m);
  }
  delete bin;
  return count;
}

template <class V>
void Run(uint64_t n, uint64_t modulus, const std::string& prefix, bool all, bool disk) {
  const uint64_t offset = 7 % modulus;
  const unsigned vsize = sizeof(V);
  const std::vector<uint64_t> count = CountAndWriteValues<V>(n, modulus, prefix, all, disk);
  if (all && disk) Out(prefix + "_sample_to_metric.idx").PutZeros(ScalarIdxBytes(n));
  if (all && !disk) WriteScalarIdx(prefix + "_sample_to_metric.idx", vsize, n);

  // The distinct values, ascending, and where each one's ids start.
  std::vector<uint64_t> distinct, sizes, start(modulus, 0);
  uint64_t at = 0;
  for (uint64_t v = 0; v < modulus; ++v) {
    start[v] = at;
    at += count[v];
    if (count[v]) {
      distinct.push_back(v);
      sizes.push_back(count[v]);
    }
  }
  {
    Out bin(prefix + "_index_to_metric.bin");
    for (uint64_t v : distinct) PutUint(bin, v, vsize);
  }
  WriteScalarIdx(prefix + "_index_to_metric.idx", vsize, distinct.size());

  // Pass 2: the counting sort's scatter (values recomputed, not stored).
  const unsigned isize = n == 0 ? 1 : ItemSize(n - 1);
  auto scatter = [&](auto zero) {
    using I = decltype(zero);
    if (disk) {
      Out(prefix + "_index_to_sample.bin").PutZeros(sizeof(I) * n);
      return;
    }
    std::vector<I> ids(n);
    uint64_t v = offset;
    for (uint64_t x = 0; x < n; ++x) {
      ids[start[v]++] = static_cast<I>(x);
      if (++v == modulus) v = 0;
    }
    Out bin(prefix + "_index_to_sample.bin");
    bin.PutLarge(ids.data(), sizeof(I) * n);
  };
  switch (isize) {
    case 1:
      scatter(uint8_t{});
      break;
    case 2:
      scatter(uint16_t{});
      break;
    case 4:
      scatter(uint32_t{});
      break;
    default:
      scatter(uint64_t{});
      break;
  }
  WriteIdx(prefix + "_index_to_sample.idx", isize, sizes);

  // Percentile-merged (§2.3): groups of step rows; its .bin is a hard link.
  const uint64_t u = distinct.size();
  const uint64_t step = std::max<uint64_t>(1, u / 100);
  std::vector<uint64_t> groups;
  for (uint64_t k = 0; k < u; k += step) {
    uint64_t s = 0;
    for (uint64_t r = k; r < std::min(u, k + step); ++r) s += sizes[r];
    groups.push_back(s);
  }
  const std::string merged = prefix + "_index_to_sample_percentile_merged";
  ::unlink((merged + ".bin").c_str());
  if (::link((prefix + "_index_to_sample.bin").c_str(), (merged + ".bin").c_str()) != 0)
    Die(merged + ".bin");
  WriteIdx(merged + ".idx", isize, groups);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: bench_floor N PREFIX [--files all|index] [--modulus M] [--disk]\n");
    return 2;
  }
  const uint64_t n = std::strtoull(argv[1], nullptr, 10);
  const std::string prefix = argv[2];
  bool all = true;
  uint64_t modulus = 10000;
  bool disk = false;
  for (int i = 3; i < argc; ++i) {
    const std::string_view opt = argv[i];
    const char* arg = i + 1 < argc ? argv[i + 1] : "";
    if (opt == "--disk") {
      disk = g_drop_behind = true;
    } else if (opt == "--files" &&
               (std::string_view(arg) == "all" || std::string_view(arg) == "index")) {
      all = std::string_view(arg) == "all";
      ++i;
    } else if (opt == "--modulus" && std::strtoull(arg, nullptr, 10) > 0) {
      modulus = std::strtoull(arg, nullptr, 10);
      ++i;
    } else {
      std::fprintf(stderr, "bench_floor: bad option %s %s\n", argv[i], arg);
      return 2;
    }
  }
  // Metric dtype: fit(smallest value, largest value) (§2.5); values are >= 0.
  uint64_t max_value = 0;
  if (n >= modulus) {
    max_value = modulus - 1;
  } else {
    for (uint64_t x = 0; x < n; ++x) max_value = std::max(max_value, (x + 7) % modulus);
  }
  switch (ItemSize(max_value)) {
    case 1:
      Run<uint8_t>(n, modulus, prefix, all, disk);
      break;
    case 2:
      Run<uint16_t>(n, modulus, prefix, all, disk);
      break;
    case 4:
      Run<uint32_t>(n, modulus, prefix, all, disk);
      break;
    default:
      Run<uint64_t>(n, modulus, prefix, all, disk);
      break;
  }
  return 0;
}
