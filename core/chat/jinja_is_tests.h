// Jinja's tests: the `x is name(args)` operator and the test arguments of
// select / reject / selectattr / rejectattr.
#ifndef OXINFER_CORE_CHAT_JINJA_IS_TESTS_H_
#define OXINFER_CORE_CHAT_JINJA_IS_TESTS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/chat/value.h"

namespace oxinfer::chat::jinja_internal {

// Fails for unknown test names and missing arguments.
absl::StatusOr<bool> ApplyTest(const std::string& name, const Value& v,
                               const std::vector<Value>& args);

}  // namespace oxinfer::chat::jinja_internal

#endif  // OXINFER_CORE_CHAT_JINJA_IS_TESTS_H_
