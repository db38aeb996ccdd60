#include "core/chat/value.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace oxinfer::chat {

// ---------------------------------------------------------------- Object

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

// ---------------------------------------------------------------- UTF-8

std::u32string DecodeUtf8(absl::string_view s) {
  std::u32string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = s[i];
    int n = 0;
    char32_t cp = 0;
    if (c < 0x80) {
      cp = c;
      n = 1;
    } else if ((c & 0xE0) == 0xC0) {
      cp = c & 0x1F;
      n = 2;
    } else if ((c & 0xF0) == 0xE0) {
      cp = c & 0x0F;
      n = 3;
    } else if ((c & 0xF8) == 0xF0) {
      cp = c & 0x07;
      n = 4;
    } else {
      out.push_back(0xFFFD);
      ++i;
      continue;
    }
    if (i + n > s.size()) {
      out.push_back(0xFFFD);
      ++i;
      continue;
    }
    bool ok = true;
    for (int k = 1; k < n; ++k) {
      unsigned char cc = s[i + k];
      if ((cc & 0xC0) != 0x80) {
        ok = false;
        break;
      }
      cp = (cp << 6) | (cc & 0x3F);
    }
    if (!ok) {
      out.push_back(0xFFFD);
      ++i;
      continue;
    }
    out.push_back(cp);
    i += n;
  }
  return out;
}

static void AppendUtf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

std::string EncodeUtf8(const std::u32string& s) {
  std::string out;
  out.reserve(s.size());
  for (char32_t cp : s) AppendUtf8(out, cp);
  return out;
}

// ---------------------------------------------------------------- Value

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
  switch (type_) {
    case Type::kUndefined:
      return "";
    case Type::kNone:
      return "None";
    case Type::kBool:
      return int_ ? "True" : "False";
    case Type::kInt:
      return absl::StrCat(int_);
    case Type::kFloat:
      return PythonFloatRepr(float_);
    case Type::kString:
      return PyStrRepr(str_);
    case Type::kArray: {
      std::string out = tuple_ ? "(" : "[";
      for (size_t i = 0; i < array_->size(); ++i) {
        if (i) out += ", ";
        out += (*array_)[i].Repr();
      }
      if (tuple_ && array_->size() == 1) out += ",";
      return out + (tuple_ ? ")" : "]");
    }
    case Type::kObject: {
      std::string out = kind_ == ObjectKind::kNamespace ? "<Namespace {" : "{";
      bool first = true;
      for (const auto& [k, v] : object_->items()) {
        if (!first) out += ", ";
        first = false;
        out += PyStrRepr(k) + ": " + v.Repr();
      }
      return out + (kind_ == ObjectKind::kNamespace ? "}>" : "}");
    }
    case Type::kFunction:
      return absl::StrCat("<function ", str_, ">");
  }
  return "";
}

bool Value::Equals(const Value& o) const {
  if (is_number() && o.is_number()) {
    if (is_float() || o.is_float()) return as_double() == o.as_double();
    return int_ == o.int_;
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

// ---------------------------------------------------------------- JSON out

static void JsonString(std::string& out, const std::string& s, bool ensure_ascii) {
  out.push_back('"');
  if (!ensure_ascii) {
    for (unsigned char c : s) {
      switch (c) {
        case '"':
          out += "\\\"";
          break;
        case '\\':
          out += "\\\\";
          break;
        case '\n':
          out += "\\n";
          break;
        case '\r':
          out += "\\r";
          break;
        case '\t':
          out += "\\t";
          break;
        case '\b':
          out += "\\b";
          break;
        case '\f':
          out += "\\f";
          break;
        default:
          if (c < 0x20) {
            out += absl::StrFormat("\\u%04x", c);
          } else {
            out.push_back(c);
          }
      }
    }
  } else {
    for (char32_t cp : DecodeUtf8(s)) {
      switch (cp) {
        case '"':
          out += "\\\"";
          break;
        case '\\':
          out += "\\\\";
          break;
        case '\n':
          out += "\\n";
          break;
        case '\r':
          out += "\\r";
          break;
        case '\t':
          out += "\\t";
          break;
        case '\b':
          out += "\\b";
          break;
        case '\f':
          out += "\\f";
          break;
        default:
          if (cp >= 0x20 && cp < 0x7f) {
            out.push_back(static_cast<char>(cp));
          } else if (cp < 0x10000) {
            out += absl::StrFormat("\\u%04x", static_cast<unsigned>(cp));
          } else {
            unsigned v = cp - 0x10000;
            out += absl::StrFormat("\\u%04x\\u%04x", 0xD800 + (v >> 10), 0xDC00 + (v & 0x3FF));
          }
      }
    }
  }
  out.push_back('"');
}

namespace {
struct JsonWriter {
  bool ensure_ascii;
  bool pretty;
  std::string indent;
  std::string item_sep;
  std::string key_sep;
  bool sort_keys;

  absl::Status Write(std::string& out, const Value& v, int level) const {
    switch (v.type()) {
      case Value::Type::kNone:
        out += "null";
        return absl::OkStatus();
      case Value::Type::kBool:
        out += v.as_bool() ? "true" : "false";
        return absl::OkStatus();
      case Value::Type::kInt:
        absl::StrAppend(&out, v.as_int());
        return absl::OkStatus();
      case Value::Type::kFloat: {
        double d = v.as_float();
        if (std::isnan(d)) {
          out += "NaN";
        } else if (std::isinf(d)) {
          out += d > 0 ? "Infinity" : "-Infinity";
        } else {
          out += PythonFloatRepr(d);
        }
        return absl::OkStatus();
      }
      case Value::Type::kString:
        JsonString(out, v.as_string(), ensure_ascii);
        return absl::OkStatus();
      case Value::Type::kArray: {
        const auto& a = v.array();
        if (a.empty()) {
          out += "[]";
          return absl::OkStatus();
        }
        out += "[";
        for (size_t i = 0; i < a.size(); ++i) {
          if (i) out += item_sep;
          Newline(out, level + 1);
          absl::Status s = Write(out, a[i], level + 1);
          if (!s.ok()) return s;
        }
        Newline(out, level);
        out += "]";
        return absl::OkStatus();
      }
      case Value::Type::kObject: {
        if (v.object_kind() != Value::ObjectKind::kDict) {
          return absl::InvalidArgumentError(
              absl::StrCat("Object of type ", v.TypeName(), " is not JSON serializable"));
        }
        std::vector<const std::pair<std::string, Value>*> items;
        for (const auto& kv : v.object().items()) items.push_back(&kv);
        if (sort_keys) {
          std::stable_sort(items.begin(), items.end(),
                           [](auto* a, auto* b) { return a->first < b->first; });
        }
        if (items.empty()) {
          out += "{}";
          return absl::OkStatus();
        }
        out += "{";
        for (size_t i = 0; i < items.size(); ++i) {
          if (i) out += item_sep;
          Newline(out, level + 1);
          JsonString(out, items[i]->first, ensure_ascii);
          out += key_sep;
          absl::Status s = Write(out, items[i]->second, level + 1);
          if (!s.ok()) return s;
        }
        Newline(out, level);
        out += "}";
        return absl::OkStatus();
      }
      default:
        return absl::InvalidArgumentError(
            absl::StrCat("Object of type ", v.TypeName(), " is not JSON serializable"));
    }
  }

  void Newline(std::string& out, int level) const {
    if (!pretty) return;
    out.push_back('\n');
    for (int i = 0; i < level; ++i) out += indent;
  }
};
}  // namespace

absl::StatusOr<std::string> Value::ToJson(bool ensure_ascii, int indent, std::string indent_str,
                                          std::string item_sep, std::string key_sep,
                                          bool sort_keys) const {
  JsonWriter w;
  w.ensure_ascii = ensure_ascii;
  w.pretty = indent >= 0 || !indent_str.empty();
  w.indent = indent_str.empty() && indent > 0 ? std::string(indent, ' ') : indent_str;
  w.item_sep = !item_sep.empty() ? item_sep : (w.pretty ? "," : ", ");
  w.key_sep = !key_sep.empty() ? key_sep : ": ";
  w.sort_keys = sort_keys;
  std::string out;
  absl::Status s = w.Write(out, *this, 0);
  if (!s.ok()) return s;
  return out;
}

// ---------------------------------------------------------------- JSON in

namespace {
class JsonParser {
 public:
  explicit JsonParser(absl::string_view s) : s_(s) {}

  absl::StatusOr<Value> ParseDocument() {
    auto v = ParseValue(0);
    if (!v.ok()) return v;
    SkipWs();
    if (pos_ != s_.size()) return Error("trailing characters");
    return v;
  }

 private:
  absl::Status Error(absl::string_view what) const {
    return absl::InvalidArgumentError(absl::StrFormat("JSON: %s at offset %d", what, pos_));
  }
  void SkipWs() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\r' || s_[pos_] == '\t')) {
      ++pos_;
    }
  }
  bool Consume(absl::string_view lit) {
    if (s_.substr(pos_, lit.size()) == lit) {
      pos_ += lit.size();
      return true;
    }
    return false;
  }

  absl::StatusOr<Value> ParseValue(int depth) {
    if (depth > 512) return Error("nesting too deep");
    SkipWs();
    if (pos_ >= s_.size()) return Error("unexpected end");
    char c = s_[pos_];
    if (c == '{') {
      ++pos_;
      Value obj = Value::Dict();
      SkipWs();
      if (pos_ < s_.size() && s_[pos_] == '}') {
        ++pos_;
        return obj;
      }
      while (true) {
        SkipWs();
        if (pos_ >= s_.size() || s_[pos_] != '"') return Error("expected key");
        auto key = ParseString();
        if (!key.ok()) return key.status();
        SkipWs();
        if (!Consume(":")) return Error("expected ':'");
        auto val = ParseValue(depth + 1);
        if (!val.ok()) return val;
        obj.object().Set(*key, std::move(*val));
        SkipWs();
        if (Consume(",")) continue;
        if (Consume("}")) return obj;
        return Error("expected ',' or '}'");
      }
    }
    if (c == '[') {
      ++pos_;
      Value arr = Value::Array();
      SkipWs();
      if (pos_ < s_.size() && s_[pos_] == ']') {
        ++pos_;
        return arr;
      }
      while (true) {
        auto val = ParseValue(depth + 1);
        if (!val.ok()) return val;
        arr.array().push_back(std::move(*val));
        SkipWs();
        if (Consume(",")) continue;
        if (Consume("]")) return arr;
        return Error("expected ',' or ']'");
      }
    }
    if (c == '"') {
      auto str = ParseString();
      if (!str.ok()) return str.status();
      return Value(std::move(*str));
    }
    if (Consume("true")) return Value(true);
    if (Consume("false")) return Value(false);
    if (Consume("null")) return Value::None();
    if (Consume("NaN")) return Value(std::nan(""));
    if (Consume("Infinity")) return Value(HUGE_VAL);
    if (Consume("-Infinity")) return Value(-HUGE_VAL);
    return ParseNumber();
  }

  absl::StatusOr<Value> ParseNumber() {
    size_t start = pos_;
    bool is_float = false;
    if (pos_ < s_.size() && s_[pos_] == '-') ++pos_;
    while (pos_ < s_.size()) {
      char c = s_[pos_];
      if (c >= '0' && c <= '9') {
        ++pos_;
      } else if (c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
        is_float = true;
        ++pos_;
      } else {
        break;
      }
    }
    std::string text(s_.substr(start, pos_ - start));
    if (text.empty() || text == "-") return Error("invalid value");
    if (!is_float) {
      errno = 0;
      long long v = std::strtoll(text.c_str(), nullptr, 10);
      if (errno == 0) return Value(static_cast<int64_t>(v));
    }
    return Value(std::strtod(text.c_str(), nullptr));
  }

  absl::StatusOr<unsigned> Hex4() {
    if (pos_ + 4 > s_.size()) return Error("bad \\u escape");
    unsigned v = 0;
    for (int i = 0; i < 4; ++i) {
      char c = s_[pos_++];
      v <<= 4;
      if (c >= '0' && c <= '9') {
        v |= c - '0';
      } else if (c >= 'a' && c <= 'f') {
        v |= c - 'a' + 10;
      } else if (c >= 'A' && c <= 'F') {
        v |= c - 'A' + 10;
      } else {
        return Error("bad \\u escape");
      }
    }
    return v;
  }

  absl::StatusOr<std::string> ParseString() {
    ++pos_;  // opening quote
    std::string out;
    while (true) {
      if (pos_ >= s_.size()) return Error("unterminated string");
      char c = s_[pos_++];
      if (c == '"') return out;
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      if (pos_ >= s_.size()) return Error("unterminated string");
      char e = s_[pos_++];
      switch (e) {
        case '"':
        case '\\':
        case '/':
          out.push_back(e);
          break;
        case 'b':
          out.push_back('\b');
          break;
        case 'f':
          out.push_back('\f');
          break;
        case 'n':
          out.push_back('\n');
          break;
        case 'r':
          out.push_back('\r');
          break;
        case 't':
          out.push_back('\t');
          break;
        case 'u': {
          auto hi = Hex4();
          if (!hi.ok()) return hi.status();
          char32_t cp = *hi;
          if (cp >= 0xD800 && cp < 0xDC00 && s_.substr(pos_, 2) == "\\u") {
            size_t save = pos_;
            pos_ += 2;
            auto lo = Hex4();
            if (lo.ok() && *lo >= 0xDC00 && *lo < 0xE000) {
              cp = 0x10000 + ((cp - 0xD800) << 10) + (*lo - 0xDC00);
            } else {
              pos_ = save;
            }
          }
          AppendUtf8(out, cp);
          break;
        }
        default:
          return Error("bad escape");
      }
    }
  }

  absl::string_view s_;
  size_t pos_ = 0;
};
}  // namespace

absl::StatusOr<Value> Value::FromJson(absl::string_view json) {
  return JsonParser(json).ParseDocument();
}

}  // namespace oxinfer::chat
