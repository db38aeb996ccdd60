#include "core/chat/value.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace oxinfer::chat {

const Value* Object::Find(absl::string_view key) const {
  auto it = index_.find(std::string(key));
  return it == index_.end() ? nullptr : &items_[it->second].second;
}

void Object::Set(const std::string& key, Value value) {
  auto it = index_.find(key);
  if (it != index_.end()) {
    items_[it->second].second = std::move(value);
    return;
  }
  index_.emplace(key, items_.size());
  items_.emplace_back(key, std::move(value));
}

Value Value::BigInt(std::string decimal) {
  errno = 0;
  const long long fits = std::strtoll(decimal.c_str(), nullptr, 10);  // NOLINT
  if (errno == 0) return Value(static_cast<int64_t>(fits));
  Value v(int64_t{0});
  v.int_ = decimal[0] == '-' ? INT64_MIN : INT64_MAX;
  v.str_ = std::move(decimal);
  return v;
}

Value Value::None() {
  Value v;
  v.type_ = Type::kNone;
  return v;
}

Value Value::Undefined(std::string hint) {
  Value v;
  v.str_ = std::move(hint);
  return v;
}

Value Value::Array(std::vector<Value> items) {
  Value v;
  v.type_ = Type::kArray;
  v.array_ = std::make_shared<std::vector<Value>>(std::move(items));
  return v;
}

Value Value::Tuple(std::vector<Value> items) {
  Value v = Array(std::move(items));
  v.tuple_ = true;
  return v;
}

Value Value::Dict() {
  Value v;
  v.type_ = Type::kObject;
  v.object_ = std::make_shared<Object>();
  return v;
}

Value Value::Namespace() {
  Value v = Dict();
  v.kind_ = ObjectKind::kNamespace;
  return v;
}

Value Value::Loop() {
  Value v = Dict();
  v.kind_ = ObjectKind::kLoop;
  return v;
}

Value Value::Function(std::string name, NativeFunction fn) {
  Value v;
  v.type_ = Type::kFunction;
  v.str_ = std::move(name);
  v.function_ = std::make_shared<NativeFunction>(std::move(fn));
  return v;
}

bool Value::Truthy() const {
  switch (type_) {
    case Type::kUndefined:
    case Type::kNone:
      return false;
    case Type::kBool:
    case Type::kInt:
      return int_ != 0;
    case Type::kFloat:
      return float_ != 0.0;
    case Type::kString:
      return !str_.empty();
    case Type::kArray:
      return !array_->empty();
    case Type::kObject:
      return kind_ != ObjectKind::kDict || object_->size() > 0;
    case Type::kFunction:
      return true;
  }
  return false;
}

std::string PythonFloatRepr(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == 0) return std::signbit(v) ? "-0.0" : "0.0";
  char buf[64];
  int prec = 1;
  for (; prec <= 17; ++prec) {
    std::snprintf(buf, sizeof(buf), "%.*e", prec - 1, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  // buf: [-]d.ddde[+-]xx
  std::string s(buf);
  bool neg = s[0] == '-';
  if (neg) s = s.substr(1);
  size_t epos = s.find('e');
  std::string mant = s.substr(0, epos);
  int exp = std::atoi(s.c_str() + epos + 1);
  std::string digits;
  for (char c : mant) {
    if (c != '.') digits.push_back(c);
  }
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  std::string out;
  if (exp < -4 || exp >= 16) {
    out = digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    out += absl::StrFormat("e%c%02d", exp < 0 ? '-' : '+', std::abs(exp));
  } else if (exp >= 0) {
    std::string ip, fp;
    if (static_cast<int>(digits.size()) <= exp + 1) {
      ip = digits + std::string(exp + 1 - digits.size(), '0');
      fp = "0";
    } else {
      ip = digits.substr(0, exp + 1);
      fp = digits.substr(exp + 1);
    }
    out = ip + "." + fp;
  } else {
    out = "0." + std::string(-exp - 1, '0') + digits;
  }
  return neg ? "-" + out : out;
}

static std::string PyStrRepr(const std::string& s) {
  bool has_single = s.find('\'') != std::string::npos;
  bool has_double = s.find('"') != std::string::npos;
  char q = (has_single && !has_double) ? '"' : '\'';
  std::string out(1, q);
  for (unsigned char c : s) {
    if (c == q || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      out += absl::StrFormat("\\x%02x", c);
    } else {
      out.push_back(c);
    }
  }
  out.push_back(q);
  return out;
}

std::string Value::Str() const {
  switch (type_) {
    case Type::kUndefined:
      return "";
    case Type::kString:
      return str_;
    default:
      return Repr();
  }
}

std::string Value::Repr() const {
  std::vector<const void*> open;
  return ReprOf(&open);
}

std::string Value::ReprOf(std::vector<const void*>* open) const {
  switch (type_) {
    case Type::kUndefined:
      return "";
    case Type::kNone:
      return "None";
    case Type::kBool:
      return int_ ? "True" : "False";
    case Type::kInt:
      return is_big_int() ? str_ : absl::StrCat(int_);
    case Type::kFloat:
      return PythonFloatRepr(float_);
    case Type::kString:
      return PyStrRepr(str_);
    case Type::kArray: {
      if (std::find(open->begin(), open->end(), array_.get()) != open->end()) {
        return tuple_ ? "(...)" : "[...]";
      }
      open->push_back(array_.get());
      std::string out = tuple_ ? "(" : "[";
      for (size_t i = 0; i < array_->size(); ++i) {
        if (i) out += ", ";
        out += (*array_)[i].ReprOf(open);
      }
      open->pop_back();
      if (tuple_ && array_->size() == 1) out += ",";
      return out + (tuple_ ? ")" : "]");
    }
    case Type::kObject: {
      const bool ns = kind_ == ObjectKind::kNamespace;
      if (std::find(open->begin(), open->end(), object_.get()) != open->end()) {
        return ns ? "<Namespace {...}>" : "{...}";
      }
      open->push_back(object_.get());
      std::string out = ns ? "<Namespace {" : "{";
      bool first = true;
      for (const auto& [k, v] : object_->items()) {
        if (!first) out += ", ";
        first = false;
        out += PyStrRepr(k) + ": " + v.ReprOf(open);
      }
      open->pop_back();
      return out + (ns ? "}>" : "}");
    }
    case Type::kFunction:
      return absl::StrCat("<function ", str_, ">");
  }
  return "";
}

bool Value::Equals(const Value& o) const {
  if (is_number() && o.is_number()) {
    if (is_float() || o.is_float()) return as_double() == o.as_double();
    // Big ints are canonical: never equal to one that fits 64 bits.
    return int_ == o.int_ && str_ == o.str_;
  }
  if (type_ != o.type_) return false;
  switch (type_) {
    case Type::kUndefined:
    case Type::kNone:
      return true;
    case Type::kString:
      return str_ == o.str_;
    case Type::kArray: {
      if (array_ == o.array_) return true;
      if (array_->size() != o.array_->size()) return false;
      for (size_t i = 0; i < array_->size(); ++i) {
        if (!(*array_)[i].Equals((*o.array_)[i])) return false;
      }
      return true;
    }
    case Type::kObject: {
      if (object_ == o.object_) return true;
      if (kind_ != ObjectKind::kDict || o.kind_ != ObjectKind::kDict) return false;
      if (object_->size() != o.object_->size()) return false;
      for (const auto& [k, v] : object_->items()) {
        const Value* ov = o.object_->Find(k);
        if (!ov || !v.Equals(*ov)) return false;
      }
      return true;
    }
    case Type::kFunction:
      return function_ == o.function_;
    default:
      return false;
  }
}

std::string Value::TypeName() const {
  switch (type_) {
    case Type::kUndefined:
      return "Undefined";
    case Type::kNone:
      return "NoneType";
    case Type::kBool:
      return "bool";
    case Type::kInt:
      return "int";
    case Type::kFloat:
      return "float";
    case Type::kString:
      return "str";
    case Type::kArray:
      return "list";
    case Type::kObject:
      return kind_ == ObjectKind::kNamespace
                 ? "Namespace"
                 : (kind_ == ObjectKind::kLoop ? "LoopContext" : "dict");
    case Type::kFunction:
      return "function";
  }
  return "?";
}

}  // namespace oxinfer::chat
