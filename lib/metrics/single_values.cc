#include <limits>
#include <type_traits>

#include "metrics/builtin_metrics.h"

namespace dsanalyze {
namespace {

// The element-by-element extraction; it stops at the first sample that is
// not one element, or a uint64 past INT64_MAX, and names it.
template <class T>
Status ExtractChecked(const SampleBatch& batch, std::string_view metric_name,
                      std::span<int64_t> out) {
  const uint64_t* offsets = batch.offsets.data();
  const T* elements = reinterpret_cast<const T*>(batch.elements);
  for (size_t i = 0; i < out.size(); ++i) {
    const uint64_t length = offsets[i + 1] - offsets[i];
    if (length != 1)
      return Status::BadInput("metric \"" + std::string(metric_name) + "\": sample " +
                              std::to_string(batch.first + i) + " has " + std::to_string(length) +
                              " elements, but this metric needs exactly one per sample");
    const T v = elements[offsets[i]];
    if constexpr (std::is_same_v<T, uint64_t>) {
      if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
        return Status::BadInput("metric \"" + std::string(metric_name) + "\": sample " +
                                std::to_string(batch.first + i) + " has value " +
                                std::to_string(v) + ", which does not fit in int64");
    }
    out[i] = static_cast<int64_t>(v);
  }
  return Status::OK();
}

// The common case, in loops without an early exit (so they vectorize): every
// sample one element, so the elements lie in a row from offsets[0]. False,
// leaving `out` partly written, when a sample breaks that or a uint64 does
// not fit; ExtractChecked then finds and names it.
template <class T>
bool ExtractContiguous(const SampleBatch& batch, std::span<int64_t> out) {
  const uint64_t* offsets = batch.offsets.data();
  const size_t n = out.size();
  uint64_t off_by_one = 0;
  for (size_t i = 0; i < n; ++i) off_by_one |= offsets[i + 1] - offsets[i] - 1;
  if (off_by_one != 0) return false;
  const T* elements = reinterpret_cast<const T*>(batch.elements) + offsets[0];
  uint64_t high = 0;
  for (size_t i = 0; i < n; ++i) {
    out[i] = static_cast<int64_t>(elements[i]);
    if constexpr (std::is_same_v<T, uint64_t>) high |= elements[i];
  }
  return (high >> 63) == 0;
}

}  // namespace

Status ExtractSingleValues(const SampleBatch& batch, std::string_view metric_name,
                           std::span<int64_t> out) {
  const size_t n = batch.size();
  if (out.size() != n)
    return Status::Internal("metric \"" + std::string(metric_name) +
                            "\": " + std::to_string(out.size()) + " outputs for a batch of " +
                            std::to_string(n));
  return VisitIntDType(batch.dtype, [&](auto zero) -> Status {
    using T = decltype(zero);
    if (n == 0 || ExtractContiguous<T>(batch, out)) return Status::OK();
    return ExtractChecked<T>(batch, metric_name, out);
  });
}

}  // namespace dsanalyze
