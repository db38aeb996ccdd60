// oxinfer SDK: Status and StatusOr, the error type of every SDK function and
// of the plugin adapters, and the one set of status macros.
//
// The codes are the ABI's oxi_status (absl::StatusCode's numbers). The macros
// work with any status type that has ok() (and StatusOr with status() and
// value()), so code written against Abseil uses the same two macros.
#ifndef OXINFER_SDK_STATUS_HPP_
#define OXINFER_SDK_STATUS_HPP_

#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <utility>

#include "oxinfer/abi_common.h"

namespace oxinfer {
namespace sdk {

class Status {
 public:
  Status() = default;  // OK
  Status(int32_t code, std::string message) : code_(code), message_(std::move(message)) {
    if (code_ == OXI_OK) message_.clear();
  }
  bool ok() const { return code_ == OXI_OK; }
  int32_t code() const { return code_; }
  const std::string& message() const { return message_; }
  // "<message>" prefixed with context: "loading layer 3: <message>".
  Status WithContext(const std::string& context) const {
    return ok() ? *this : Status(code_, context + ": " + message_);
  }

 private:
  int32_t code_ = OXI_OK;
  std::string message_;
};

inline Status OkStatus() { return Status(); }
inline Status CancelledError(std::string m) { return Status(OXI_CANCELLED, std::move(m)); }
inline Status InvalidArgumentError(std::string m) {
  return Status(OXI_INVALID_ARGUMENT, std::move(m));
}
inline Status NotFoundError(std::string m) { return Status(OXI_NOT_FOUND, std::move(m)); }
inline Status ResourceExhaustedError(std::string m) {
  return Status(OXI_RESOURCE_EXHAUSTED, std::move(m));
}
inline Status FailedPreconditionError(std::string m) {
  return Status(OXI_FAILED_PRECONDITION, std::move(m));
}
inline Status OutOfRangeError(std::string m) { return Status(OXI_OUT_OF_RANGE, std::move(m)); }
inline Status UnimplementedError(std::string m) { return Status(OXI_UNIMPLEMENTED, std::move(m)); }
inline Status InternalError(std::string m) { return Status(OXI_INTERNAL, std::move(m)); }
inline Status DataLossError(std::string m) { return Status(OXI_DATA_LOSS, std::move(m)); }

// A value or the Status saying why there is none.
template <typename T>
class StatusOr {
 public:
  StatusOr(const T& value) : value_(value) {}         // NOLINT: implicit, as absl::StatusOr
  StatusOr(T&& value) : value_(std::move(value)) {}   // NOLINT
  StatusOr(const Status& status) : status_(status) {  // NOLINT
    if (status_.ok()) status_ = InternalError("StatusOr built from an OK status without a value");
  }
  template <typename U, typename = std::enable_if_t<std::is_convertible<U&&, T>::value &&
                                                    !std::is_same<std::decay_t<U>, T>::value &&
                                                    !std::is_same<std::decay_t<U>, Status>::value>>
  StatusOr(U&& value) : value_(std::forward<U>(value)) {}  // NOLINT

  bool ok() const { return status_.ok(); }
  const Status& status() const& { return status_; }
  Status status() && { return std::move(status_); }
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }
  T&& operator*() && { return std::move(*value_); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }

 private:
  Status status_;
  std::optional<T> value_;
};

// Concatenates anything std::ostream prints: StrCat("layer ", i, ": ", name).
template <typename... Args>
std::string StrCat(const Args&... args) {
  std::ostringstream s;
  (void)(s << ... << args);
  return s.str();
}

}  // namespace sdk
}  // namespace oxinfer

#define OXI_STATUS_CONCAT_INNER_(a, b) a##b
#define OXI_STATUS_CONCAT_(a, b) OXI_STATUS_CONCAT_INNER_(a, b)

// Returns the status of `expr` from the enclosing function when it is not OK.
#define OXI_RETURN_IF_ERROR(expr)              \
  do {                                         \
    auto _oxi_status = (expr);                 \
    if (!_oxi_status.ok()) return _oxi_status; \
  } while (0)

// `lhs = value of expr` (lhs may declare: `auto x`), or returns its status.
#define OXI_ASSIGN_OR_RETURN(lhs, expr) \
  OXI_ASSIGN_OR_RETURN_IMPL_(OXI_STATUS_CONCAT_(_oxi_statusor_, __LINE__), lhs, expr)
#define OXI_ASSIGN_OR_RETURN_IMPL_(var, lhs, expr) \
  auto var = (expr);                               \
  if (!var.ok()) return std::move(var).status();   \
  lhs = std::move(var).value()

#endif  // OXINFER_SDK_STATUS_HPP_
