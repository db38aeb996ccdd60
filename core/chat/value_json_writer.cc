// Value::ToJson: Python's json.dumps, byte for byte.
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/chat/value.h"

namespace oxinfer::chat {
namespace {

// The two-character escapes of json.dumps; false for other characters.
bool AppendShortEscape(char32_t c, std::string& out) {
  switch (c) {
    case '"':
      out += "\\\"";
      return true;
    case '\\':
      out += "\\\\";
      return true;
    case '\n':
      out += "\\n";
      return true;
    case '\r':
      out += "\\r";
      return true;
    case '\t':
      out += "\\t";
      return true;
    case '\b':
      out += "\\b";
      return true;
    case '\f':
      out += "\\f";
      return true;
    default:
      return false;
  }
}

void JsonString(std::string& out, const std::string& s, bool ensure_ascii) {
  out.push_back('"');
  if (!ensure_ascii) {
    for (unsigned char c : s) {
      if (AppendShortEscape(c, out)) continue;
      if (c < 0x20) {
        out += absl::StrFormat("\\u%04x", c);
      } else {
        out.push_back(c);
      }
    }
  } else {
    for (char32_t cp : DecodeUtf8(s)) {
      if (AppendShortEscape(cp, out)) continue;
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
  out.push_back('"');
}

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
        if (v.is_big_int()) {
          absl::StrAppend(&out, v.as_string());
        } else {
          absl::StrAppend(&out, v.as_int());
        }
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

}  // namespace oxinfer::chat
