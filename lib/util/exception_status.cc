#include "util/exception_status.h"

#include <new>
#include <stdexcept>

namespace dsanalyze {

Status StatusOfException(const std::exception_ptr& e, std::string_view during) {
  const std::string prefix = std::string(during) + ": ";
  try {
    std::rethrow_exception(e);
  } catch (const std::bad_alloc& x) {
    return Status::IoError(prefix + "out of memory (" + x.what() +
                           "); see docs/reliability.md, \"Memory and internal errors\"");
  } catch (const std::length_error& x) {
    return Status::IoError(prefix + "out of memory (std::length_error: " + x.what() +
                           ", a size past what can be allocated); see docs/reliability.md, "
                           "\"Memory and internal errors\"");
  } catch (const std::exception& x) {
    return Status::Internal(prefix + "internal error: " + x.what());
  } catch (...) {
    return Status::Internal(prefix + "internal error: an exception of unknown type");
  }
}

}  // namespace dsanalyze
