// Fuzz target for the .npy reader (format/npy.h).
//
// Input: the whole .npy file. On success the target reads every element both
// through at() and through the raw elements() view (with memcpy, as the
// header says the data need not be aligned) and checks that they agree, that
// the size is the product of the shape and that header + data is exactly the
// file. On failure it checks that the error is one BadInput line naming the
// file.
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include "format/npy.h"
#include "fuzz_support.h"

namespace dsanalyze {
namespace {

// Element i of `v` read with memcpy and widened the way NpyArray::at() promises.
int64_t RawElement(const ElementView& v, uint64_t i) {
  return VisitIntDType(v.dtype, [&](auto tag) -> int64_t {
    decltype(tag) x;
    std::memcpy(&x, v.data + i * sizeof(x), sizeof(x));
    if constexpr (std::is_same_v<decltype(tag), uint64_t>) {
      constexpr uint64_t kMax = std::numeric_limits<int64_t>::max();
      return static_cast<int64_t>(x > kMax ? kMax : x);
    } else {
      return static_cast<int64_t>(x);
    }
  });
}

void CheckArray(const NpyArray& a, size_t file_size) {
  FUZZ_CHECK(a.major_version() >= 1 && a.major_version() <= 3, "a supported version");
  FUZZ_CHECK(IsInteger(a.dtype()), "only integer arrays open");
  uint64_t product = 1;
  for (uint64_t dim : a.shape()) product *= dim;  // checked below against the file size
  FUZZ_CHECK(product == a.size(), "size is the product of the shape");
  const uint64_t item = ItemSize(a.dtype());
  FUZZ_CHECK(a.data_offset() <= file_size && a.size() * item == file_size - a.data_offset(),
             "header and data fill the file exactly");
  const std::string shape = a.shape_string();
  FUZZ_CHECK(shape.front() == '(' && shape.back() == ')', "shape_string is a tuple: " + shape);

  const ElementView v = a.elements();
  FUZZ_CHECK(v.count == a.size() && v.dtype == a.dtype(), "elements() is the whole array");
  for (uint64_t i = 0; i < a.size(); ++i)
    FUZZ_CHECK(a.at(i) == RawElement(v, i), "at(" + std::to_string(i) + ") reads element i");
}

}  // namespace
}  // namespace dsanalyze

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dsanalyze;
  const std::string path = fuzz::ScratchDir() + "/array.npy";
  fuzz::WriteFileOrDie(path, data, size);
  Result<NpyArray> a = NpyArray::Open(path);
  if (a.ok()) {
    CheckArray(*a, size);
    NpyArray moved = std::move(a).value();  // moving keeps the views valid
    CheckArray(moved, size);
  } else {
    const Status status = a.status();  // a copy: status() returns by value
    const std::string& m = status.message();
    FUZZ_CHECK(status.code() == Status::Code::kBadInput, "bad bytes are bad input: " + m);
    FUZZ_CHECK(m.rfind(path + ": ", 0) == 0, "the error names the file: " + m);
    FUZZ_CHECK(m.find('\n') == std::string::npos, "the error is one line: " + m);
  }
  return 0;
}
