// Element dtypes, the three dtype-code tables of MMapIndexedDataset files, and
// DeepSpeed's rule for fitting an integer range to the narrowest dtype
// (docs/format.md §1 and §2).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace dsanalyze {

enum class DType : uint8_t { kU8, kI8, kI16, kI32, kI64, kU16, kU32, kU64, kF32, kF64 };

// Which table maps the .idx dtype byte to a dtype. The same byte means different
// things to different writers (code 8 is uint64 to DeepSpeed >= 0.13.3 and
// uint16 to Megatron), so a reader must be told which table to use.
enum class CodeTable : uint8_t { kDeepSpeed, kDeepSpeedLegacy, kMegatron };

size_t ItemSize(DType t);
bool IsInteger(DType t);
bool IsSigned(DType t);
std::string_view DTypeName(DType t);  // numpy spelling: "uint16", "int64", ...
std::optional<DType> DTypeFromName(std::string_view name);

std::string_view CodeTableName(CodeTable t);  // "deepspeed", "deepspeed-legacy", "megatron"
std::optional<CodeTable> CodeTableFromName(std::string_view name);

std::optional<DType> DTypeFromCode(CodeTable table, uint8_t code);
std::optional<uint8_t> CodeForDType(CodeTable table, DType t);

// DeepSpeed's find_fit_int_dtype(min, max). Requires min <= max.
DType FitIntDType(int64_t min, int64_t max);
// For a range known to be non-negative that may exceed int64 (sums).
DType FitUnsignedDType(uint64_t max);

// Smallest and largest value representable in integer dtype t, as int64
// (uint64's max is clamped to INT64_MAX).
int64_t IntMin(DType t);
int64_t IntMax(DType t);

// Calls f(T{}) with T the C++ type of integer dtype t. t must be an integer.
template <class F>
decltype(auto) VisitIntDType(DType t, F&& f) {
  switch (t) {
    case DType::kU8:
      return f(uint8_t{});
    case DType::kI8:
      return f(int8_t{});
    case DType::kI16:
      return f(int16_t{});
    case DType::kI32:
      return f(int32_t{});
    case DType::kI64:
      return f(int64_t{});
    case DType::kU16:
      return f(uint16_t{});
    case DType::kU32:
      return f(uint32_t{});
    case DType::kU64:
    default:
      return f(uint64_t{});
  }
}

}  // namespace dsanalyze
