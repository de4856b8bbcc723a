// Fuzz target for the readers of .npy index maps: the megatron_gpt dataset's
// doc_idx, sample_idx and shuffle_idx (dataset/open_dataset.h,
// OpenType of a MegatronGptConfig; format.md §3) and the sample_indices array
// (dataset/sample_ids.h).
//
// Input: an options byte, two little-endian uint16 sizes a and b, then the
// three .npy files: doc_idx (a bytes), sample_idx (b bytes) and shuffle_idx
// (the rest); sizes past the end are cut to what is there. Options bits 0-3
// are seq_length (0: not given). The token file is fixed: 8 int32 rows of
// sizes 3 1 4 1 5 9 2 6, token k of row r being 100 r + k.
//
// On success the target reads every sample twice (lengths only, then with
// elements) and checks that the lengths agree, that with seq_length every
// sample has seq_length + 1 tokens, that the tokens run through whole rows in
// the order of the sample's document pieces, and that the pieces add up to
// the sample. It also opens shuffle_idx as sample_indices and checks the ids
// it accepts (one per sample, distinct, min and max). On failure it checks
// that the error is one BadInput line naming the config key.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "dataset/open_dataset.h"
#include "dataset/sample_ids.h"
#include "fuzz_support.h"

namespace dsanalyze {
namespace {

constexpr int32_t kRowSizes[] = {3, 1, 4, 1, 5, 9, 2, 6};
constexpr int kRows = 8;

// Writes PREFIX.idx/.bin (DeepSpeed/Megatron code 4, int32) once.
const std::string& TokenPrefix() {
  static const std::string prefix = [] {
    const std::string p = fuzz::ScratchDir() + "/tokens";
    std::vector<uint8_t> idx = {'M', 'M', 'I', 'D', 'I', 'D', 'X', 0, 0};
    const auto put = [&idx](uint64_t v, int bytes) {
      for (int i = 0; i < bytes; ++i) idx.push_back(static_cast<uint8_t>(v >> (8 * i)));
    };
    put(1, 8), put(4, 1), put(kRows, 8), put(kRows + 1, 8);
    for (int32_t s : kRowSizes) put(static_cast<uint32_t>(s), 4);
    std::vector<int32_t> bin;
    for (int r = 0; r < kRows; ++r) {
      put(bin.size() * 4, 8);
      for (int k = 0; k < kRowSizes[r]; ++k) bin.push_back(100 * r + k);
    }
    for (int d = 0; d <= kRows; ++d) put(static_cast<uint64_t>(d), 8);
    fuzz::WriteFileOrDie(p + ".idx", idx.data(), idx.size());
    fuzz::WriteFileOrDie(p + ".bin", reinterpret_cast<const uint8_t*>(bin.data()), bin.size() * 4);
    return p;
  }();
  return prefix;
}

// `prefix`: where the error must start ("dataset." names the config key).
void CheckError(const Status& status, const std::string& prefix) {
  const std::string& m = status.message();
  FUZZ_CHECK(status.code() == Status::Code::kBadInput, "bad maps are bad input: " + m);
  FUZZ_CHECK(m.rfind(prefix, 0) == 0, "the error names the key: " + m);
  FUZZ_CHECK(m.find('\n') == std::string::npos, "the error is one line: " + m);
}

// Sample i's tokens run through rows in the order of its pieces, each piece
// a run of consecutive tokens of its row.
void CheckSample(const Dataset& ds, uint64_t i, const ElementView& tokens) {
  std::vector<DocumentPiece> pieces;
  ds.AppendDocumentPieces(i, &pieces);
  uint64_t at = 0;
  for (const DocumentPiece& p : pieces) {
    FUZZ_CHECK(p.document < kRows && p.tokens > 0, "a piece is a non-empty part of a row");
    int32_t previous = -1;
    for (uint64_t k = 0; k < p.tokens; ++k, ++at) {
      FUZZ_CHECK(at < tokens.count, "the pieces fit the sample");
      int32_t t;
      std::memcpy(&t, tokens.data + 4 * at, 4);
      FUZZ_CHECK(static_cast<uint64_t>(t / 100) == p.document, "the token is from its piece's row");
      FUZZ_CHECK(k == 0 || t == previous + 1, "a piece is consecutive tokens");
      previous = t;
    }
  }
  FUZZ_CHECK(at == tokens.count, "the pieces add up to the sample");
}

void CheckDataset(const Dataset& ds, uint64_t seq_length) {
  FUZZ_CHECK(ds.size() > 0 && ds.dtype() == DType::kI32, "samples of int32 tokens");
  std::unique_ptr<SampleReader> lengths = ds.NewReader(), tokens = ds.NewReader();
  SampleBatch a, b;
  FUZZ_CHECK(lengths->Read(0, ds.size(), false, &a).ok(), "lengths read");
  FUZZ_CHECK(tokens->Read(0, ds.size(), true, &b).ok(), "tokens read");
  for (uint64_t i = 0; i < ds.size(); ++i) {
    FUZZ_CHECK(a.length(i) == b.length(i), "lengths-only and element reads agree");
    FUZZ_CHECK(seq_length == 0 || a.length(i) == seq_length + 1, "seq_length + 1 tokens");
    CheckSample(ds, i, b.sample(i));
  }
}

void CheckSampleIds(const std::string& path, uint64_t n) {
  Result<SampleIds> s = SampleIds::Open(path, n);
  if (!s.ok()) return CheckError(s.status(), "dataset.sample_indices: ");
  const std::span<const int64_t> ids = s->ids();
  FUZZ_CHECK(ids.size() == n, "one id per sample");
  FUZZ_CHECK(std::set<int64_t>(ids.begin(), ids.end()).size() == n, "distinct ids");
  if (n > 0)
    FUZZ_CHECK(*std::min_element(ids.begin(), ids.end()) == s->min() &&
                   *std::max_element(ids.begin(), ids.end()) == s->max(),
               "min and max");
}

}  // namespace
}  // namespace dsanalyze

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dsanalyze;
  if (size < 5) return 0;
  const size_t rest = size - 5;
  const size_t a = std::min<size_t>(rest, data[1] | data[2] << 8);
  const size_t b = std::min<size_t>(rest - a, data[3] | data[4] << 8);
  MegatronGptConfig c;
  c.prefix = TokenPrefix();
  c.dtype_codes = CodeTable::kMegatron;
  c.seq_length = data[0] & 15;
  c.doc_idx = fuzz::ScratchDir() + "/doc_idx.npy";
  c.sample_idx = fuzz::ScratchDir() + "/sample_idx.npy";
  c.shuffle_idx = fuzz::ScratchDir() + "/shuffle_idx.npy";
  fuzz::WriteFileOrDie(c.doc_idx, data + 5, a);
  fuzz::WriteFileOrDie(c.sample_idx, data + 5 + a, b);
  fuzz::WriteFileOrDie(c.shuffle_idx, data + 5 + a + b, rest - a - b);
  Result<std::unique_ptr<Dataset>> ds = OpenType(c, {});
  if (ds.ok()) {
    CheckDataset(**ds, c.seq_length);
    CheckSampleIds(c.shuffle_idx, (*ds)->size());
  } else {
    CheckError(ds.status(), "dataset");
  }
  return 0;
}
