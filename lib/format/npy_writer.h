// Writing NumPy .npy files (docs/format.md §3): what numpy.save writes for a
// C-order little-endian integer (or float32/float64) array, version 1.0, the header padded with
// spaces so that the data starts at a multiple of 64 bytes.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "format/dtype.h"
#include "util/status.h"

namespace dsanalyze {

// The bytes before the data of such a file: magic, version 1.0, header length
// and the header dict for dtype `dtype` and `shape`, padded so that
// their size is a multiple of 64. For writers that stream the data.
std::string NpyHeader(DType dtype, const std::vector<uint64_t>& shape);

// Writes `data` (the elements of integer dtype `dtype`, row-major) as an array
// of `shape` to `path`, through a temporary file renamed into place, so a
// failed write leaves no file under the final name. Requires
// data.size() == product(shape) * ItemSize(dtype).
Status WriteNpy(const std::string& path, DType dtype, std::span<const std::byte> data,
                const std::vector<uint64_t>& shape);

}  // namespace dsanalyze
