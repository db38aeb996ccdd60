#include "core/chat/jinja_ops.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/chat/jinja_bigint.h"
#include "core/chat/jinja_format.h"
#include "core/chat/jinja_methods.h"
#include "core/chat/jinja_pystr.h"
#include "core/chat/jinja_status.h"
#include "core/limits.h"
#include "oxinfer/sdk/status.hpp"

namespace oxinfer::chat::jinja_internal {

absl::StatusOr<std::vector<Value>> Iterate(const Value& v) {
  switch (v.type()) {
    case Value::Type::kUndefined:
      return std::vector<Value>{};
    case Value::Type::kArray:
      return v.array();
    case Value::Type::kObject: {
      if (v.object_kind() != Value::ObjectKind::kDict) {
        return Err(absl::StrCat("'", v.TypeName(), "' object is not iterable"));
      }
      std::vector<Value> keys;
      for (const auto& kv : v.object().items()) keys.emplace_back(kv.first);
      return keys;
    }
    case Value::Type::kString: {
      std::vector<Value> chars;
      if (IsAscii(v.as_string())) {
        for (char c : v.as_string()) chars.emplace_back(std::string(1, c));
      } else {
        for (char32_t c : DecodeUtf8(v.as_string())) {
          chars.emplace_back(EncodeUtf8(std::u32string(1, c)));
        }
      }
      return chars;
    }
    default:
      return Err(absl::StrCat("'", v.TypeName(), "' object is not iterable"));
  }
}

absl::StatusOr<int64_t> Length(const Value& v) {
  switch (v.type()) {
    case Value::Type::kUndefined:
      return 0;
    case Value::Type::kString:
      return StrLen(v.as_string());
    case Value::Type::kArray:
      return static_cast<int64_t>(v.array().size());
    case Value::Type::kObject:
      return static_cast<int64_t>(v.object().size());
    default:
      return Err(absl::StrCat("object of type '", v.TypeName(), "' has no len()"));
  }
}

absl::StatusOr<int> PyCompare(const Value& a, const Value& b, bool case_sensitive) {
  if (a.is_number() && b.is_number()) {
    if (!a.is_float() && !b.is_float()) {
      if (a.is_big_int() || b.is_big_int()) return BigIntCompare(a, b);
      return a.as_int() < b.as_int() ? -1 : (a.as_int() > b.as_int() ? 1 : 0);
    }
    double x = a.as_double(), y = b.as_double();
    return x < y ? -1 : (x > y ? 1 : 0);
  }
  if (a.is_string() && b.is_string()) {
    int c = case_sensitive ? a.as_string().compare(b.as_string())
                           : PyLower(a.as_string()).compare(PyLower(b.as_string()));
    return c < 0 ? -1 : (c > 0 ? 1 : 0);
  }
  if (a.is_array() && b.is_array()) {
    const auto &x = a.array(), &y = b.array();
    for (size_t i = 0; i < x.size() && i < y.size(); ++i) {
      if (x[i].Equals(y[i])) continue;
      return PyCompare(x[i], y[i], case_sensitive);
    }
    return x.size() < y.size() ? -1 : (x.size() > y.size() ? 1 : 0);
  }
  return Err(absl::StrCat("'<' not supported between instances of '", a.TypeName(), "' and '",
                          b.TypeName(), "'"));
}

absl::StatusOr<bool> Contains(const Value& container, const Value& item) {
  switch (container.type()) {
    case Value::Type::kUndefined:
      return false;
    case Value::Type::kString:
      if (!item.is_string()) {
        return Err(
            absl::StrCat("'in <string>' requires string as left operand, not ", item.TypeName()));
      }
      return container.as_string().find(item.as_string()) != std::string::npos;
    case Value::Type::kArray:
      for (const Value& v : container.array()) {
        if (v.Equals(item)) return true;
      }
      return false;
    case Value::Type::kObject:
      if (!item.is_string()) return false;
      return container.object().Contains(item.as_string());
    default:
      return Err(absl::StrCat("argument of type '", container.TypeName(), "' is not iterable"));
  }
}

absl::StatusOr<Value> Slice(const Value& obj, const Value* start, const Value* stop,
                            const Value* step) {
  auto get = [](const Value* v, int64_t def) -> absl::StatusOr<int64_t> {
    if (!v || v->is_none()) return def;
    if (!v->is_int() && !v->is_bool()) return Err("slice indices must be integers or None");
    return v->as_int();
  };
  OXI_ASSIGN_OR_RETURN(auto st, get(step, 1));
  if (st == 0) return Err("slice step cannot be zero");
  std::vector<Value> items;
  bool is_str = obj.is_string();
  std::u32string u;
  if (is_str) {
    u = DecodeUtf8(obj.as_string());
  } else if (obj.is_array()) {
    items = obj.array();
  } else if (obj.is_undefined()) {
    return Err("cannot slice an undefined value");
  } else {
    return Err(absl::StrCat("'", obj.TypeName(), "' object is not subscriptable"));
  }
  int64_t n = is_str ? static_cast<int64_t>(u.size()) : static_cast<int64_t>(items.size());
  auto clamp = [&](int64_t i, bool is_start) {
    if (i < 0) i += n;
    if (st > 0) return std::max<int64_t>(0, std::min(i, n));
    (void)is_start;
    return std::max<int64_t>(-1, std::min(i, n - 1));
  };
  int64_t b, e;
  if (st > 0) {
    OXI_ASSIGN_OR_RETURN(auto b0, get(start, 0));
    OXI_ASSIGN_OR_RETURN(auto e0, get(stop, n));
    b = clamp(b0, true);
    e = clamp(e0, false);
  } else {
    OXI_ASSIGN_OR_RETURN(auto b0, get(start, n - 1));
    OXI_ASSIGN_OR_RETURN(auto e0, get(stop, -n - 1));
    b = clamp(b0, true);
    e = clamp(e0, false);
  }
  std::vector<Value> out_items;
  std::u32string out_str;
  for (int64_t i = b; st > 0 ? i < e : i > e; i += st) {
    if (is_str) {
      out_str.push_back(u[i]);
    } else {
      out_items.push_back(items[i]);
    }
  }
  if (is_str) return Value(EncodeUtf8(out_str));
  return obj.is_tuple() ? Value::Tuple(std::move(out_items)) : Value::Array(std::move(out_items));
}

Value MakeItems(const Value& dict) {
  std::vector<Value> items;
  for (const auto& [k, v] : dict.object().items()) {
    items.push_back(Value::Tuple({Value(k), v}));
  }
  return Value::Array(std::move(items));
}

absl::StatusOr<Value> GetAttr(const Value& obj, const std::string& name) {
  switch (obj.type()) {
    case Value::Type::kUndefined:
      return Err(obj.undefined_hint().empty()
                     ? absl::StrCat("undefined value has no attribute '", name, "'")
                     : absl::StrCat(obj.undefined_hint(), " (reading attribute '", name, "')"));
    case Value::Type::kString: {
      Value m = StringMethod(obj.as_string(), name);
      return m;
    }
    case Value::Type::kObject: {
      if (obj.object_kind() == Value::ObjectKind::kDict && IsDictMethodName(name)) {
        return DictMethod(obj, name);
      }
      const Value* v = obj.object().Find(name);
      if (v) return *v;
      return Value::Undefined(
          absl::StrCat("'", obj.TypeName(), " object' has no attribute '", name, "'"));
    }
    case Value::Type::kArray:
      return ListMethod(obj, name);
    default:
      return Value::Undefined(
          absl::StrCat("'", obj.TypeName(), " object' has no attribute '", name, "'"));
  }
}

absl::StatusOr<Value> GetItem(const Value& obj, const Value& key) {
  if (obj.is_undefined()) {
    return Err(obj.undefined_hint().empty()
                   ? absl::StrCat("undefined value has no item ", key.Repr())
                   : absl::StrCat(obj.undefined_hint(), " (reading item ", key.Repr(), ")"));
  }
  if (obj.is_array() || obj.is_string()) {
    if (key.is_int() || key.is_bool()) {
      int64_t i = key.as_int();
      if (obj.is_array()) {
        int64_t n = static_cast<int64_t>(obj.array().size());
        if (i < 0) i += n;
        if (i < 0 || i >= n) return Value::Undefined("list index out of range");
        return obj.array()[i];
      }
      std::u32string u = DecodeUtf8(obj.as_string());
      int64_t n = static_cast<int64_t>(u.size());
      if (i < 0) i += n;
      if (i < 0 || i >= n) return Value::Undefined("string index out of range");
      return Value(EncodeUtf8(u.substr(i, 1)));
    }
    if (key.is_string()) return GetAttr(obj, key.as_string());
    return Value::Undefined("bad index");
  }
  if (obj.is_object()) {
    if (key.is_string()) {
      if (obj.object_kind() == Value::ObjectKind::kDict) {
        const Value* v = obj.object().Find(key.as_string());
        if (v) return *v;
      }
      return GetAttr(obj, key.as_string());
    }
    return Value::Undefined(absl::StrCat("'dict object' has no key ", key.Repr()));
  }
  return Value::Undefined(absl::StrCat("'", obj.TypeName(), " object' has no item ", key.Repr()));
}

absl::StatusOr<Value> GetPath(const Value& obj, const std::string& path) {
  Value cur = obj;
  size_t b = 0;
  while (true) {
    size_t e = path.find('.', b);
    std::string part = path.substr(b, e == std::string::npos ? std::string::npos : e - b);
    Value key = Value(part);
    if (!part.empty() && std::all_of(part.begin(), part.end(), ::isdigit)) {
      key = Value(static_cast<int64_t>(std::strtoll(part.c_str(), nullptr, 10)));
    }
    if (cur.is_undefined()) return cur;
    OXI_ASSIGN_OR_RETURN(auto next, GetItem(cur, key));
    cur = next;
    if (e == std::string::npos) break;
    b = e + 1;
  }
  return cur;
}

absl::StatusOr<bool> Compare(const std::string& op, const Value& left, const Value& right) {
  if (op == "==") return left.Equals(right);
  if (op == "!=") return !left.Equals(right);
  if (op == "in" || op == "notin") {
    OXI_ASSIGN_OR_RETURN(bool c, Contains(right, left));
    return op == "in" ? c : !c;
  }
  if (left.is_undefined() || right.is_undefined()) {
    const Value& u = left.is_undefined() ? left : right;
    return Err(u.undefined_hint().empty() ? "undefined value in comparison"
                                          : absl::StrCat(u.undefined_hint(), " (compared)"));
  }
  auto c = PyCompare(left, right);
  if (!c.ok()) {
    return Err(absl::StrCat("'", op, "' not supported between instances of '", left.TypeName(),
                            "' and '", right.TypeName(), "'"));
  }
  return op == "<" ? *c < 0 : op == ">" ? *c > 0 : op == "<=" ? *c <= 0 : *c >= 0;
}

namespace {

// A 64-bit result that overflows (the caller then computes it exactly with
// BigIntArith).
absl::Status IntTooLarge(const std::string& op) {
  return absl::ResourceExhaustedError(
      absl::StrCat("integer result of '", op, "' does not fit in 64 bits"));
}

absl::StatusOr<Value> IntPow(int64_t base, int64_t exp) {
  int64_t r = 1;
  for (;;) {
    if (exp & 1) {
      if (__builtin_mul_overflow(r, base, &r)) return IntTooLarge("**");
    }
    exp >>= 1;
    if (exp == 0) return Value(r);
    // base is squared only while more bits of exp remain; |base| <= 1 never
    // overflows, whatever the exponent.
    if (__builtin_mul_overflow(base, base, &base)) return IntTooLarge("**");
  }
}

}  // namespace

absl::StatusOr<Value> Arith(const std::string& op, const Value& a, const Value& b) {
  auto type_error = [&]() {
    if (a.is_undefined() || b.is_undefined()) {
      const Value& u = a.is_undefined() ? a : b;
      return Err(u.undefined_hint().empty() ? "undefined value in arithmetic"
                                            : absl::StrCat(u.undefined_hint(), " (in '", op, "')"));
    }
    return Err(absl::StrCat("unsupported operand type(s) for ", op, ": '", a.TypeName(), "' and '",
                            b.TypeName(), "'"));
  };
  if (a.is_undefined() || b.is_undefined()) return type_error();
  if (op == "+") {
    if (a.is_string() && b.is_string()) return Value(a.as_string() + b.as_string());
    if (a.is_array() && b.is_array()) {
      std::vector<Value> out = a.array();
      out.insert(out.end(), b.array().begin(), b.array().end());
      return a.is_tuple() ? Value::Tuple(out) : Value::Array(out);
    }
  }
  if (op == "*") {
    const Value* seq =
        a.is_string() || a.is_array() ? &a : (b.is_string() || b.is_array() ? &b : nullptr);
    const Value* n = seq == &a ? &b : &a;
    if (seq && (n->is_int() || n->is_bool())) {
      int64_t k = std::max<int64_t>(0, n->as_int());
      size_t unit = seq->is_string() ? seq->as_string().size() : seq->array().size();
      const size_t cap =
          seq->is_string() ? limits::kTemplateOutputBytes : limits::kTemplateListItems;
      if (unit > 0 && k > static_cast<int64_t>(cap / unit)) {
        return absl::ResourceExhaustedError(
            absl::StrFormat("repetition result larger than the template budget of %d %s", cap,
                            seq->is_string() ? "bytes" : "items"));
      }
      if (seq->is_string()) {
        std::string out;
        for (int64_t i = 0; i < k; ++i) out += seq->as_string();
        return Value(out);
      }
      std::vector<Value> out;
      for (int64_t i = 0; i < k; ++i)
        out.insert(out.end(), seq->array().begin(), seq->array().end());
      return Value::Array(out);
    }
  }
  if (op == "%" && a.is_string()) {
    OXI_ASSIGN_OR_RETURN(auto s, PercentFormat(a.as_string(), b));
    return Value(s);
  }
  if (!a.is_number() || !b.is_number()) return type_error();
  bool ints = !a.is_float() && !b.is_float();
  const bool big = a.is_big_int() || b.is_big_int();
  if (ints && big && op != "/") return BigIntArith(op, a, b);
  if (ints && (op == "+" || op == "-" || op == "*")) {
    int64_t r = 0;
    const bool over = op == "+"   ? __builtin_add_overflow(a.as_int(), b.as_int(), &r)
                      : op == "-" ? __builtin_sub_overflow(a.as_int(), b.as_int(), &r)
                                  : __builtin_mul_overflow(a.as_int(), b.as_int(), &r);
    if (over) return BigIntArith(op, a, b);  // beyond 64 bits, exactly
    return Value(r);
  }
  if (op == "+") return Value(a.as_double() + b.as_double());
  if (op == "-") return Value(a.as_double() - b.as_double());
  if (op == "*") return Value(a.as_double() * b.as_double());
  if (op == "/") {
    if (b.as_double() == 0) return Err("division by zero");
    return Value(a.as_double() / b.as_double());
  }
  if (op == "//" || op == "%") {
    if (b.as_double() == 0) return Err(op == "%" ? "modulo by zero" : "integer division by zero");
    if (ints) {
      int64_t x = a.as_int(), y = b.as_int();
      if (x == INT64_MIN && y == -1) {
        if (op == "%") return Value(int64_t{0});
        return BigIntArith(op, a, b);  // 2^63
      }
      int64_t q = x / y, r = x % y;
      if (r != 0 && ((r < 0) != (y < 0))) {
        --q;
        r += y;
      }
      return op == "//" ? Value(q) : Value(r);
    }
    double x = a.as_double(), y = b.as_double();
    double r = std::fmod(x, y);
    if (r != 0 && ((r < 0) != (y < 0))) r += y;
    if (op == "%") return Value(r);
    return Value(std::floor((x - r) / y + 0.5));
  }
  if (op == "**") {
    if (ints && b.as_int() >= 0) {
      absl::StatusOr<Value> small = IntPow(a.as_int(), b.as_int());
      if (small.ok()) return small;
      return BigIntArith(op, a, b);  // beyond 64 bits, exactly (or over the digit limit)
    }
    return Value(std::pow(a.as_double(), b.as_double()));
  }
  return Err(absl::StrCat("unknown operator ", op));
}

}  // namespace oxinfer::chat::jinja_internal
