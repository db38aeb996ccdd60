// Operations on template values with Python's and Jinja's semantics:
// iteration, len(), ordering, `in`, slicing, attribute and item lookup, and
// the arithmetic operators. Failures are Err statuses (without a line; the
// evaluator adds it).
#ifndef OXINFER_CORE_CHAT_JINJA_OPS_H_
#define OXINFER_CORE_CHAT_JINJA_OPS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/chat/value.h"

namespace oxinfer::chat::jinja_internal {

// Reads the arguments of a native call by position, else by keyword.
class Args {
 public:
  explicit Args(const CallArgs& a) : a_(a) {}
  // Null when the argument was not passed.
  const Value* Get(size_t i, absl::string_view name) const {
    if (i < a_.args.size()) return &a_.args[i];
    for (const auto& [k, v] : a_.kwargs) {
      if (k == name) return &v;
    }
    return nullptr;
  }

 private:
  const CallArgs& a_;
};

// The items of a for loop over `v`: list items, dict keys, string characters;
// nothing for Undefined.
absl::StatusOr<std::vector<Value>> Iterate(const Value& v);
// len(v); 0 for Undefined.
absl::StatusOr<int64_t> Length(const Value& v);
// Python ordering (-1, 0, 1) of numbers, strings and lists; strings compare
// case-insensitively unless `case_sensitive`.
absl::StatusOr<int> PyCompare(const Value& a, const Value& b, bool case_sensitive = true);
// `item in container`.
absl::StatusOr<bool> Contains(const Value& container, const Value& item);
// obj[start:stop:step] of a string, list or tuple (null bounds: omitted).
absl::StatusOr<Value> Slice(const Value& obj, const Value* start, const Value* stop,
                            const Value* step);
// dict.items(): a list of (key, value) tuples.
Value MakeItems(const Value& dict);

// obj.name, with Jinja's getattr-then-getitem lookup.
absl::StatusOr<Value> GetAttr(const Value& obj, const std::string& name);
// obj[key], with Jinja's getitem-then-getattr lookup.
absl::StatusOr<Value> GetItem(const Value& obj, const Value& key);
// Jinja's attribute getter for filters: "a.b.0".
absl::StatusOr<Value> GetPath(const Value& obj, const std::string& path);

// `left op right` for the comparison operators: == != < > <= >= in notin.
absl::StatusOr<bool> Compare(const std::string& op, const Value& left, const Value& right);

// The binary operator `op` (+ - * / // % **): numbers as Python, + and * on
// strings and lists, % formatting on strings.
absl::StatusOr<Value> Arith(const std::string& op, const Value& a, const Value& b);

}  // namespace oxinfer::chat::jinja_internal

#endif  // OXINFER_CORE_CHAT_JINJA_OPS_H_
