#include <limits>
#include <type_traits>

#include "metrics/builtin_metrics.h"

namespace dsanalyze {

Status ExtractSingleValues(const SampleBatch& batch, std::string_view metric_name,
                           std::span<int64_t> out) {
  const size_t n = batch.size();
  if (out.size() != n)
    return Status::Internal("metric \"" + std::string(metric_name) +
                            "\": " + std::to_string(out.size()) + " outputs for a batch of " +
                            std::to_string(n));
  const uint64_t* offsets = batch.offsets.data();
  return VisitIntDType(batch.dtype, [&](auto zero) -> Status {
    using T = decltype(zero);
    const T* elements = reinterpret_cast<const T*>(batch.elements);
    for (size_t i = 0; i < n; ++i) {
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
  });
}

}  // namespace dsanalyze
