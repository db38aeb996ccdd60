// The value type of the Jinja interpreter: a JSON-like dynamic value with the
// semantics of the Python objects that Jinja2 templates see (None, bool, int,
// float, str, list, dict, callables, namespaces and Jinja's Undefined).
//
// Lists and dicts have reference semantics, as in Python: copying a Value
// shares the container. Dicts keep insertion order, as Python dicts do, so
// that `tojson` and iteration match Python byte for byte.
#ifndef OXINFER_CORE_CHAT_VALUE_H_
#define OXINFER_CORE_CHAT_VALUE_H_

#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace oxinfer::chat {

class Value;
class Object;

// Arguments of a call from a template: positional and keyword.
struct CallArgs {
  std::vector<Value> args;
  std::vector<std::pair<std::string, Value>> kwargs;
};

using NativeFunction = std::function<absl::StatusOr<Value>(const CallArgs&)>;

class Value {
 public:
  enum class Type { kUndefined, kNone, kBool, kInt, kFloat, kString, kArray, kObject, kFunction };
  // What an object is: a plain dict, or a Jinja namespace (attributes only,
  // assignable with `set ns.x = ...`), or a loop object.
  enum class ObjectKind { kDict, kNamespace, kLoop };

  Value() = default;                                                  // Undefined.
  Value(bool b) : type_(Type::kBool), int_(b) {}                      // NOLINT
  Value(int v) : type_(Type::kInt), int_(v) {}                        // NOLINT
  Value(int64_t v) : type_(Type::kInt), int_(v) {}                    // NOLINT
  Value(double v) : type_(Type::kFloat), float_(v) {}                 // NOLINT
  Value(std::string s) : type_(Type::kString), str_(std::move(s)) {}  // NOLINT
  Value(const char* s) : type_(Type::kString), str_(s) {}             // NOLINT
  Value(absl::string_view s) : type_(Type::kString), str_(s) {}       // NOLINT

  static Value None();
  // An undefined value remembering what was looked up (for error messages).
  static Value Undefined(std::string hint);
  static Value Array(std::vector<Value> items = {});
  // A Python tuple: an array that prints as (a, b).
  static Value Tuple(std::vector<Value> items);
  static Value Dict();
  static Value Namespace();
  static Value Loop();
  static Value Function(std::string name, NativeFunction fn);
  // An integer from its decimal text ("-123..."; no leading zeros): a plain
  // int when it fits 64 bits, else a big one.
  static Value BigInt(std::string decimal);

  Type type() const { return type_; }
  bool is_undefined() const { return type_ == Type::kUndefined; }
  bool is_none() const { return type_ == Type::kNone; }
  bool is_bool() const { return type_ == Type::kBool; }
  bool is_int() const { return type_ == Type::kInt; }
  // An int outside [-2^63, 2^63) (jinja_bigint.h): as_string() is its decimal
  // text, as_int() saturates to INT64_MIN / INT64_MAX (so indexing, range()
  // and repetition refuse it as out of range).
  bool is_big_int() const { return type_ == Type::kInt && !str_.empty(); }
  bool is_float() const { return type_ == Type::kFloat; }
  // Python's numbers.Number: bool counts, as in Python.
  bool is_number() const { return is_int() || is_float() || is_bool(); }
  bool is_string() const { return type_ == Type::kString; }
  bool is_array() const { return type_ == Type::kArray; }
  bool is_tuple() const { return is_array() && tuple_; }
  bool is_object() const { return type_ == Type::kObject; }
  bool is_dict() const { return is_object() && kind_ == ObjectKind::kDict; }
  bool is_function() const { return type_ == Type::kFunction; }
  ObjectKind object_kind() const { return kind_; }

  bool as_bool() const { return int_ != 0; }
  int64_t as_int() const { return int_; }
  double as_float() const { return float_; }
  // Numeric value as double (bool and int converted).
  double as_double() const {
    if (is_big_int()) return std::strtod(str_.c_str(), nullptr);
    return is_float() ? float_ : static_cast<double>(int_);
  }
  const std::string& as_string() const { return str_; }  // also a big int's digits
  const std::string& undefined_hint() const { return str_; }
  std::vector<Value>& array() const { return *array_; }
  Object& object() const { return *object_; }
  const NativeFunction& function() const { return *function_; }
  const std::string& function_name() const { return str_; }

  // Python truthiness.
  bool Truthy() const;
  // Python str(): what `{{ value }}` prints.
  std::string Str() const;
  // Python repr(). A container met again inside itself (a namespace or dict
  // holding itself) prints as Python's recursion guard does: [...], {...}.
  std::string Repr() const;
  // Python ==.
  bool Equals(const Value& other) const;
  // Python type name for error messages ("str", "dict", ...).
  std::string TypeName() const;

  // Python json.dumps(value, ensure_ascii, indent, separators, sort_keys).
  // indent < 0 means None. item_sep/key_sep empty means the default.
  absl::StatusOr<std::string> ToJson(bool ensure_ascii = false, int indent = -1,
                                     std::string indent_str = "", std::string item_sep = "",
                                     std::string key_sep = "", bool sort_keys = false) const;
  // Parses JSON text (dict order kept; integers stay ints, floats floats).
  static absl::StatusOr<Value> FromJson(absl::string_view json);

 private:
  Type type_ = Type::kUndefined;
  ObjectKind kind_ = ObjectKind::kDict;
  bool tuple_ = false;
  int64_t int_ = 0;
  double float_ = 0;
  std::string str_;
  // `open`: the containers being printed, outer to inner.
  std::string ReprOf(std::vector<const void*>* open) const;

  std::shared_ptr<std::vector<Value>> array_;
  std::shared_ptr<Object> object_;
  std::shared_ptr<NativeFunction> function_;
};

// An insertion-ordered string-keyed map.
class Object {
 public:
  const Value* Find(absl::string_view key) const;
  bool Contains(absl::string_view key) const { return Find(key) != nullptr; }
  void Set(const std::string& key, Value value);
  size_t size() const { return items_.size(); }
  const std::vector<std::pair<std::string, Value>>& items() const { return items_; }
  void Clear() {
    items_.clear();
    index_.clear();
  }

 private:
  std::vector<std::pair<std::string, Value>> items_;
  std::unordered_map<std::string, size_t> index_;
};

// Python float repr (shortest round-trip, "1e-05", "1.0", "inf").
std::string PythonFloatRepr(double v);

// UTF-8 helpers: decode to code points / encode back (invalid bytes map to
// U+FFFD on decode).
std::u32string DecodeUtf8(absl::string_view s);
std::string EncodeUtf8(const std::u32string& s);

}  // namespace oxinfer::chat

#endif  // OXINFER_CORE_CHAT_VALUE_H_
