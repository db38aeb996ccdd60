#include "core/tokenizer/json.h"

#include <cstdlib>
#include <cstring>

#include "absl/strings/str_format.h"
#include "core/tokenizer/utf8.h"

namespace oxinfer {
namespace tokenizer {
namespace {

constexpr int kMaxDepth = 256;

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The four hex digits at text[at..at+4) as a code unit; false if they are not.
bool ReadHex4(absl::string_view text, size_t at, uint32_t* v) {
  if (at + 4 > text.size()) return false;
  uint32_t r = 0;
  for (size_t i = 0; i < 4; ++i) {
    const int h = HexValue(text[at + i]);
    if (h < 0) return false;
    r = (r << 4) | static_cast<uint32_t>(h);
  }
  *v = r;
  return true;
}

}  // namespace

const JsonValue* JsonValue::Find(absl::string_view key) const {
  for (const auto& member : object) {
    if (member.first == key) return &member.second;
  }
  return nullptr;
}

size_t FindLoneSurrogateEscape(absl::string_view text) {
  // Backslashes occur only in strings (elsewhere the text does not parse),
  // and each starts a two-character escape or a \uXXXX one.
  for (size_t i = 0; i + 1 < text.size(); ++i) {
    if (text[i] != '\\') continue;
    uint32_t cp = 0;
    if (text[i + 1] != 'u' || !ReadHex4(text, i + 2, &cp)) {
      ++i;  // a two-character escape (or a malformed one, for the parser)
      continue;
    }
    if (cp >= 0xDC00 && cp <= 0xDFFF) return i;
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      uint32_t lo = 0;
      if (i + 7 < text.size() && text[i + 6] == '\\' && text[i + 7] == 'u' &&
          ReadHex4(text, i + 8, &lo) && lo >= 0xDC00 && lo <= 0xDFFF) {
        i += 11;  // the pair
        continue;
      }
      return i;
    }
    i += 5;
  }
  return absl::string_view::npos;
}

absl::Status JsonReader::Error(absl::string_view what) const {
  return absl::InvalidArgumentError(absl::StrFormat("JSON parse error at byte %d: %s", pos_, what));
}

void JsonReader::SkipWs() {
  while (pos_ < text_.size()) {
    const char c = text_[pos_];
    if (c != ' ' && c != '\n' && c != '\r' && c != '\t') break;
    ++pos_;
  }
}

absl::Status JsonReader::Expect(char c) {
  SkipWs();
  if (pos_ >= text_.size() || text_[pos_] != c) {
    return Error(absl::StrFormat("expected '%c'", c));
  }
  ++pos_;
  return absl::OkStatus();
}

bool JsonReader::Consume(char c) {
  SkipWs();
  if (pos_ < text_.size() && text_[pos_] == c) {
    ++pos_;
    return true;
  }
  return false;
}

absl::Status JsonReader::ParseString(std::string* out) {
  SkipWs();
  if (pos_ >= text_.size() || text_[pos_] != '"') return Error("expected a string");
  ++pos_;
  out->clear();
  const char* data = text_.data();
  const size_t n = text_.size();
  while (true) {
    // Copy the plain run up to the next quote or backslash.
    size_t start = pos_;
    while (pos_ < n && data[pos_] != '"' && data[pos_] != '\\') ++pos_;
    out->append(data + start, pos_ - start);
    if (pos_ >= n) return Error("unterminated string");
    if (data[pos_] == '"') {
      ++pos_;
      return absl::OkStatus();
    }
    // Escape.
    if (pos_ + 1 >= n) return Error("unterminated escape");
    const char e = data[pos_ + 1];
    pos_ += 2;
    switch (e) {
      case '"':
        out->push_back('"');
        break;
      case '\\':
        out->push_back('\\');
        break;
      case '/':
        out->push_back('/');
        break;
      case 'b':
        out->push_back('\b');
        break;
      case 'f':
        out->push_back('\f');
        break;
      case 'n':
        out->push_back('\n');
        break;
      case 'r':
        out->push_back('\r');
        break;
      case 't':
        out->push_back('\t');
        break;
      case 'u': {
        auto read4 = [&](uint32_t* v) -> bool {
          if (!ReadHex4(text_, pos_, v)) return false;
          pos_ += 4;
          return true;
        };
        uint32_t cp;
        if (!read4(&cp)) return Error("bad \\u escape");
        if (cp >= 0xD800 && cp <= 0xDBFF && pos_ + 1 < n && data[pos_] == '\\' &&
            data[pos_ + 1] == 'u') {
          const size_t save = pos_;
          pos_ += 2;
          uint32_t lo;
          if (read4(&lo) && lo >= 0xDC00 && lo <= 0xDFFF) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          } else {
            pos_ = save;
          }
        }
        if (cp >= 0xD800 && cp <= 0xDFFF) cp = kReplacementChar;  // lone surrogate
        AppendUtf8(cp, out);
        break;
      }
      default:
        return Error("bad escape");
    }
  }
}

absl::Status JsonReader::ParseNumber(double* out) {
  SkipWs();
  const size_t start = pos_;
  while (pos_ < text_.size()) {
    const char c = text_[pos_];
    if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E') {
      ++pos_;
    } else {
      break;
    }
  }
  if (pos_ == start) return Error("expected a number");
  // Fast path: plain non-negative integers (ids, ranks) without strtod.
  if (pos_ - start <= 15) {
    uint64_t v = 0;
    bool digits = true;
    for (size_t i = start; i < pos_; ++i) {
      const char c = text_[i];
      if (c < '0' || c > '9') {
        digits = false;
        break;
      }
      v = v * 10 + static_cast<uint64_t>(c - '0');
    }
    if (digits) {
      *out = static_cast<double>(v);
      return absl::OkStatus();
    }
  }
  const std::string tmp(text_.substr(start, pos_ - start));
  char* end = nullptr;
  *out = std::strtod(tmp.c_str(), &end);
  if (end != tmp.c_str() + tmp.size()) return Error("bad number");
  return absl::OkStatus();
}

absl::Status JsonReader::SkipValue(absl::string_view* span) {
  SkipWs();
  const size_t start = pos_;
  const char* data = text_.data();
  const size_t n = text_.size();
  auto skip_string = [&]() -> bool {  // pos_ is at the opening quote
    ++pos_;
    while (true) {
      const void* q = std::memchr(data + pos_, '"', n - pos_);
      if (q == nullptr) return false;
      const size_t qpos = static_cast<const char*>(q) - data;
      // An odd number of backslashes before the quote escapes it.
      size_t bs = 0;
      while (qpos - bs > pos_ && data[qpos - bs - 1] == '\\') ++bs;
      pos_ = qpos + 1;
      if ((bs & 1) == 0) return true;
    }
  };
  if (pos_ >= n) return Error("unexpected end of input");
  if (data[pos_] == '{' || data[pos_] == '[') {
    int depth = 0;
    do {
      if (pos_ >= n) return Error("unexpected end of input");
      const char c = data[pos_];
      if (c == '"') {
        if (!skip_string()) return Error("unterminated string");
        continue;
      }
      if (c == '{' || c == '[') ++depth;
      if (c == '}' || c == ']') --depth;
      ++pos_;
    } while (depth > 0);
  } else if (data[pos_] == '"') {
    if (!skip_string()) return Error("unterminated string");
  } else {
    while (pos_ < n && std::strchr(",}] \n\r\t", data[pos_]) == nullptr) ++pos_;
  }
  *span = text_.substr(start, pos_ - start);
  return absl::OkStatus();
}

absl::Status JsonReader::ParseValue(JsonValue* out) {
  std::string path;
  return ParseValueAt(out, &path, 0);
}

absl::Status JsonReader::ParseDocument(JsonValue* out, const std::vector<std::string>& raw_paths) {
  raw_paths_ = &raw_paths;
  std::string path;
  absl::Status status = ParseValueAt(out, &path, 0);
  raw_paths_ = nullptr;
  if (!status.ok()) return status;
  SkipWs();
  if (!AtEnd()) return Error("trailing characters after the document");
  return absl::OkStatus();
}

absl::Status JsonReader::ParseValueAt(JsonValue* out, std::string* path, int depth) {
  if (depth > kMaxDepth) return Error("nesting too deep");
  SkipWs();
  if (AtEnd()) return Error("unexpected end of input");
  const char c = text_[pos_];
  if (c == '{') {
    ++pos_;
    out->kind = JsonValue::Kind::kObject;
    if (Consume('}')) return absl::OkStatus();
    while (true) {
      std::string key;
      absl::Status s = ParseString(&key);
      if (!s.ok()) return s;
      s = Expect(':');
      if (!s.ok()) return s;
      const size_t path_len = path->size();
      if (!path->empty()) path->push_back('.');
      path->append(key);
      out->object.emplace_back(std::move(key), JsonValue());
      JsonValue* child = &out->object.back().second;
      bool raw = false;
      if (raw_paths_ != nullptr) {
        for (const auto& p : *raw_paths_) raw |= (p == *path);
      }
      if (raw) {
        child->kind = JsonValue::Kind::kRaw;
        s = SkipValue(&child->raw);
      } else {
        s = ParseValueAt(child, path, depth + 1);
      }
      path->resize(path_len);
      if (!s.ok()) return s;
      if (Consume(',')) continue;
      return Expect('}');
    }
  }
  if (c == '[') {
    ++pos_;
    out->kind = JsonValue::Kind::kArray;
    if (Consume(']')) return absl::OkStatus();
    const std::string no_path = "[]";
    while (true) {
      out->array.emplace_back();
      std::string child_path = *path + no_path;
      absl::Status s = ParseValueAt(&out->array.back(), &child_path, depth + 1);
      if (!s.ok()) return s;
      if (Consume(',')) continue;
      return Expect(']');
    }
  }
  if (c == '"') {
    out->kind = JsonValue::Kind::kString;
    return ParseString(&out->str);
  }
  if (text_.substr(pos_, 4) == "null") {
    pos_ += 4;
    out->kind = JsonValue::Kind::kNull;
    return absl::OkStatus();
  }
  if (text_.substr(pos_, 4) == "true") {
    pos_ += 4;
    out->kind = JsonValue::Kind::kBool;
    out->boolean = true;
    return absl::OkStatus();
  }
  if (text_.substr(pos_, 5) == "false") {
    pos_ += 5;
    out->kind = JsonValue::Kind::kBool;
    out->boolean = false;
    return absl::OkStatus();
  }
  out->kind = JsonValue::Kind::kNumber;
  return ParseNumber(&out->number);
}

}  // namespace tokenizer
}  // namespace oxinfer
