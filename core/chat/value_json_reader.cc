// Value::FromJson: JSON text to values, dict order and the int / float
// distinction kept (as Python's json.loads).
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "core/chat/value.h"
#include "core/chat/value_utf8.h"
#include "core/limits.h"

namespace oxinfer::chat {

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
      // Python's json reads any integer exactly; within the template limit.
      if (text.size() <= limits::kTemplateIntegerDigits + 1) return Value::BigInt(text);
      return Error("integer with more digits than the template limit");
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
