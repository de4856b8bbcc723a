// Status and Result<T>: how errors cross layers in dsanalyze.
//
// A Status is either OK or an error with a kind and a one-line message that
// names the file or config key and what is wrong. The kind decides the exit
// code (see docs/reliability.md): bad input is the user's to fix, an I/O or
// internal failure is not; an interrupted run exits as a shell reports the
// signal (128 + its number). Result<T> carries a value or an error Status.
//
// Both are plain values: cheap to move, safe to copy, not thread-aware.
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace dsanalyze {

class [[nodiscard]] Status {
 public:
  enum class Code { kOk = 0, kBadInput, kIoError, kInternal, kInterrupted };

  Status() = default;  // OK
  static Status OK() { return Status(); }
  static Status BadInput(std::string msg) { return Status(Code::kBadInput, std::move(msg)); }
  static Status IoError(std::string msg) { return Status(Code::kIoError, std::move(msg)); }
  static Status Internal(std::string msg) { return Status(Code::kInternal, std::move(msg)); }
  // The run stopped because it caught `signal` (util/interrupt.h).
  static Status Interrupted(int signal, std::string msg) {
    Status s(Code::kInterrupted, std::move(msg));
    s.signal_ = signal;
    return s;
  }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }
  int signal() const { return signal_; }  // of an Interrupted status, else 0

  // Process exit code for this status: 0 ok, 2 bad input, 3 I/O or internal,
  // 128 + signal interrupted.
  int exit_code() const;

  // Returns a copy whose message is "prefix: message" (for adding context).
  Status WithPrefix(const std::string& prefix) const;

 private:
  Status(Code code, std::string msg) : code_(code), message_(std::move(msg)) {}
  Code code_ = Code::kOk;
  std::string message_;
  int signal_ = 0;
};

// Exit codes shared by every subcommand.
inline constexpr int kExitOk = 0;
inline constexpr int kExitDifferent = 1;  // verify/compare found a difference
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitFailure = 3;

inline int Status::exit_code() const {
  switch (code_) {
    case Code::kOk:
      return kExitOk;
    case Code::kBadInput:
      return kExitBadInput;
    case Code::kInterrupted:
      return 128 + signal_;
    default:
      return kExitFailure;
  }
}

inline Status Status::WithPrefix(const std::string& prefix) const {
  if (ok()) return *this;
  Status s = *this;
  s.message_ = prefix + ": " + message_;
  return s;
}

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}        // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) {  // NOLINT: implicit by design
    assert(!std::get<Status>(v_).ok());
  }

  bool ok() const { return std::holds_alternative<T>(v_); }
  Status status() const { return ok() ? Status::OK() : std::get<Status>(v_); }

  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace dsanalyze

// Returns from the enclosing function if `expr` (a Status) is an error.
#define DSA_RETURN_IF_ERROR(expr)     \
  do {                                \
    ::dsanalyze::Status _st = (expr); \
    if (!_st.ok()) return _st;        \
  } while (0)

#define DSA_CONCAT_INNER(a, b) a##b
#define DSA_CONCAT(a, b) DSA_CONCAT_INNER(a, b)
// `DSA_ASSIGN_OR_RETURN(auto x, MakeX());` declares x from a Result or returns its error.
#define DSA_ASSIGN_OR_RETURN(decl, expr)                                              \
  auto DSA_CONCAT(_res_, __LINE__) = (expr);                                          \
  if (!DSA_CONCAT(_res_, __LINE__).ok()) return DSA_CONCAT(_res_, __LINE__).status(); \
  decl = std::move(DSA_CONCAT(_res_, __LINE__)).value()
