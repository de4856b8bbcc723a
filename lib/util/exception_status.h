// Exceptions as Status, where a rank must report an error with the other
// ranks instead of unwinding alone.
//
// dsanalyze's own errors are Status values (util/status.h), agreed on by every
// rank at the stage boundaries (Comm::AgreeOnStatus). Exceptions still come
// from the standard library (std::bad_alloc when an allocation fails,
// std::length_error for a size past what a vector can hold) and from
// libraries. A rank that lets one unwind past a collective leaves the others
// waiting in it; CatchAsStatus turns it into a Status at the stage's end, so
// that it is agreed on like any error: the map, the local sort and the
// exchange of the run use it (docs/reliability.md, "Memory and internal
// errors"). What escapes anyway meets the command's last resort (cli::Run,
// main).
//
// Thread-safe: plain functions.
#pragma once

#include <exception>
#include <string>
#include <string_view>

#include "util/status.h"

namespace dsanalyze {

// The Status of an exception caught during `during` ("map", "sort of metric
// seqlen"): IoError "<during>: out of memory (std::bad_alloc)" for a failed
// allocation (std::bad_alloc, or std::length_error: a size past what can be
// allocated), else Internal "<during>: internal error: <what()>". Both exit 3.
Status StatusOfException(const std::exception_ptr& e, std::string_view during);

// work(), a function returning Status, with an exception it throws turned into
// StatusOfException's Status.
template <class F>
Status CatchAsStatus(std::string_view during, F&& work) {
  try {
    return work();
  } catch (...) {
    return StatusOfException(std::current_exception(), during);
  }
}

}  // namespace dsanalyze
