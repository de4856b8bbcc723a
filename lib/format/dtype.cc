#include "format/dtype.h"

#include <array>
#include <limits>

namespace dsanalyze {
namespace {

struct DTypeInfo {
  DType type;
  std::string_view name;
  size_t size;
  bool integer;
  bool is_signed;
};

constexpr std::array<DTypeInfo, 10> kInfo = {{
    {DType::kU8, "uint8", 1, true, false},
    {DType::kI8, "int8", 1, true, true},
    {DType::kI16, "int16", 2, true, true},
    {DType::kI32, "int32", 4, true, true},
    {DType::kI64, "int64", 8, true, true},
    {DType::kU16, "uint16", 2, true, false},
    {DType::kU32, "uint32", 4, true, false},
    {DType::kU64, "uint64", 8, true, false},
    {DType::kF32, "float32", 4, false, true},
    {DType::kF64, "float64", 8, false, true},
}};

const DTypeInfo& Info(DType t) { return kInfo[static_cast<size_t>(t)]; }

// Index = code - 1; nullopt where the table has no entry.
using Table = std::array<std::optional<DType>, 10>;
constexpr Table kDeepSpeed = {DType::kU8,  DType::kI8,  DType::kI16, DType::kI32,  DType::kI64,
                              DType::kU16, DType::kU32, DType::kU64, std::nullopt, std::nullopt};
constexpr Table kDeepSpeedLegacy = {DType::kU8,  DType::kI8,  DType::kI16, DType::kI32,
                                    DType::kI64, DType::kF64, DType::kF64, DType::kU16,
                                    DType::kU32, DType::kU64};
constexpr Table kMegatron = {DType::kU8,  DType::kI8,  DType::kI16, DType::kI32,  DType::kI64,
                             DType::kF64, DType::kF32, DType::kU16, std::nullopt, std::nullopt};

const Table& TableFor(CodeTable t) {
  switch (t) {
    case CodeTable::kDeepSpeed:
      return kDeepSpeed;
    case CodeTable::kDeepSpeedLegacy:
      return kDeepSpeedLegacy;
    case CodeTable::kMegatron:
    default:
      return kMegatron;
  }
}

}  // namespace

size_t ItemSize(DType t) { return Info(t).size; }
bool IsInteger(DType t) { return Info(t).integer; }
bool IsSigned(DType t) { return Info(t).is_signed; }
std::string_view DTypeName(DType t) { return Info(t).name; }

std::optional<DType> DTypeFromName(std::string_view name) {
  for (const auto& i : kInfo)
    if (i.name == name) return i.type;
  return std::nullopt;
}

std::string_view CodeTableName(CodeTable t) {
  switch (t) {
    case CodeTable::kDeepSpeed:
      return "deepspeed";
    case CodeTable::kDeepSpeedLegacy:
      return "deepspeed-legacy";
    case CodeTable::kMegatron:
    default:
      return "megatron";
  }
}

std::optional<CodeTable> CodeTableFromName(std::string_view name) {
  for (CodeTable t : {CodeTable::kDeepSpeed, CodeTable::kDeepSpeedLegacy, CodeTable::kMegatron})
    if (CodeTableName(t) == name) return t;
  return std::nullopt;
}

std::optional<DType> DTypeFromCode(CodeTable table, uint8_t code) {
  if (code < 1 || code > 10) return std::nullopt;
  return TableFor(table)[code - 1];
}

std::optional<uint8_t> CodeForDType(CodeTable table, DType t) {
  // The first code that maps to t: legacy maps both 6 and 7 to float64, and 6 is
  // what its writer uses.
  const Table& tab = TableFor(table);
  for (size_t i = 0; i < tab.size(); ++i)
    if (tab[i] == t) return static_cast<uint8_t>(i + 1);
  return std::nullopt;
}

DType FitIntDType(int64_t min, int64_t max) {
  if (min >= 0) return FitUnsignedDType(static_cast<uint64_t>(max));
  if (min >= -128 && max <= 127) return DType::kI8;
  if (min >= -32768 && max <= 32767) return DType::kI16;
  if (min >= std::numeric_limits<int32_t>::min() && max <= std::numeric_limits<int32_t>::max())
    return DType::kI32;
  return DType::kI64;
}

DType FitUnsignedDType(uint64_t max) {
  if (max <= 255) return DType::kU8;
  if (max <= 65535) return DType::kU16;
  if (max <= 4294967295ULL) return DType::kU32;
  return DType::kU64;
}

int64_t IntMin(DType t) {
  return VisitIntDType(t, [](auto v) -> int64_t {
    return static_cast<int64_t>(std::numeric_limits<decltype(v)>::min());
  });
}

int64_t IntMax(DType t) {
  return VisitIntDType(t, [](auto v) -> int64_t {
    using T = decltype(v);
    if constexpr (std::is_same_v<T, uint64_t>) return std::numeric_limits<int64_t>::max();
    return static_cast<int64_t>(std::numeric_limits<T>::max());
  });
}

}  // namespace dsanalyze
