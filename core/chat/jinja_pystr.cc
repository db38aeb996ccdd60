#include "core/chat/jinja_pystr.h"

#include <string>
#include <vector>

#include "core/chat/jinja_status.h"
#include "core/limits.h"

namespace oxinfer::chat::jinja_internal {
namespace {

// Simple case mapping of one code point (ASCII, Latin-1, Latin Extended-A,
// Greek, Cyrillic, fullwidth Latin), as Python's str.upper()/lower() for
// those scripts. Returns the code point unchanged if it has no mapping.
char32_t ToUpperCp(char32_t c) {
  if (c >= 'a' && c <= 'z') return c - 32;
  if (c < 0x80) return c;
  if ((c >= 0xE0 && c <= 0xFE && c != 0xF7)) return c - 32;
  if (c == 0xFF) return 0x178;
  if (c == 0xB5) return 0x39C;
  if (c >= 0x100 && c <= 0x17F) {
    if (c == 0x131) return 'I';
    if (c == 0x17F) return 'S';
    if ((c >= 0x100 && c <= 0x137) || (c >= 0x14A && c <= 0x177)) return (c & 1) ? c - 1 : c;
    if ((c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17E)) return (c & 1) ? c : c - 1;
    return c;
  }
  if (c >= 0x3B1 && c <= 0x3CB && c != 0x3C2) return c - 32;
  if (c == 0x3C2) return 0x3A3;
  if (c == 0x3AC) return 0x386;
  if (c >= 0x3AD && c <= 0x3AF) return c - 37;
  if (c == 0x3CC) return 0x38C;
  if (c == 0x3CD || c == 0x3CE) return c - 63;
  if (c >= 0x430 && c <= 0x44F) return c - 32;
  if (c >= 0x450 && c <= 0x45F) return c - 80;
  if (c >= 0xFF41 && c <= 0xFF5A) return c - 32;
  return c;
}

char32_t ToLowerCp(char32_t c) {
  if (c >= 'A' && c <= 'Z') return c + 32;
  if (c < 0x80) return c;
  if (c >= 0xC0 && c <= 0xDE && c != 0xD7) return c + 32;
  if (c == 0x178) return 0xFF;
  if (c >= 0x100 && c <= 0x17F) {
    if ((c >= 0x100 && c <= 0x137) || (c >= 0x14A && c <= 0x177)) return (c & 1) ? c : c + 1;
    if ((c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17E)) return (c & 1) ? c + 1 : c;
    return c;
  }
  if (c >= 0x391 && c <= 0x3AB && c != 0x3A2) return c + 32;
  if (c == 0x386) return 0x3AC;
  if (c >= 0x388 && c <= 0x38A) return c + 37;
  if (c == 0x38C) return 0x3CC;
  if (c == 0x38E || c == 0x38F) return c + 63;
  if (c >= 0x410 && c <= 0x42F) return c + 32;
  if (c >= 0x400 && c <= 0x40F) return c + 80;
  if (c >= 0xFF21 && c <= 0xFF3A) return c + 32;
  return c;
}

bool IsCased(char32_t c) { return ToUpperCp(c) != c || ToLowerCp(c) != c || c == 0xDF; }

std::u32string UpperU(const std::u32string& u) {
  std::u32string out;
  for (char32_t c : u) {
    if (c == 0xDF) {  // sharp s
      out += U"SS";
    } else {
      out.push_back(ToUpperCp(c));
    }
  }
  return out;
}

std::u32string LowerU(const std::u32string& u) {
  std::u32string out;
  for (char32_t c : u) out.push_back(ToLowerCp(c));
  return out;
}

// Python str.capitalize(): first character upper, the rest lower.
std::u32string CapitalizeU(const std::u32string& u) {
  if (u.empty()) return u;
  std::u32string out = UpperU(u.substr(0, 1));
  return out + LowerU(u.substr(1));
}

}  // namespace

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

bool IsPyWhitespace(char32_t c) {
  return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f) || c == 0x85 ||
         c == 0xa0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 ||
         c == 0x202f || c == 0x205f || c == 0x3000;
}

bool IsAscii(absl::string_view s) {
  for (unsigned char c : s) {
    if (c >= 0x80) return false;
  }
  return true;
}

int64_t StrLen(const std::string& s) {
  if (IsAscii(s)) return static_cast<int64_t>(s.size());
  return static_cast<int64_t>(DecodeUtf8(s).size());
}

// Python str.strip/lstrip/rstrip.
std::string PyStrip(const std::string& s, const Value* chars, bool left, bool right) {
  std::u32string u = DecodeUtf8(s);
  std::u32string set;
  bool use_set = chars && chars->is_string();
  if (use_set) set = DecodeUtf8(chars->as_string());
  auto strip_it = [&](char32_t c) {
    return use_set ? set.find(c) != std::u32string::npos : IsPyWhitespace(c);
  };
  size_t b = 0, e = u.size();
  if (left) {
    while (b < e && strip_it(u[b])) ++b;
  }
  if (right) {
    while (e > b && strip_it(u[e - 1])) --e;
  }
  return EncodeUtf8(u.substr(b, e - b));
}

std::string PyLower(std::string s) {
  if (!IsAscii(s)) return EncodeUtf8(LowerU(DecodeUtf8(s)));
  for (char& c : s) {
    if (c >= 'A' && c <= 'Z') c = c - 'A' + 'a';
  }
  return s;
}

std::string PyUpper(std::string s) {
  if (!IsAscii(s)) return EncodeUtf8(UpperU(DecodeUtf8(s)));
  for (char& c : s) {
    if (c >= 'a' && c <= 'z') c = c - 'a' + 'A';
  }
  return s;
}

std::string Capitalize(const std::string& s) { return EncodeUtf8(CapitalizeU(DecodeUtf8(s))); }

// Python str.title(): a cased character after an uncased one is uppercased,
// other cased characters lowercased.
std::string PyTitle(const std::string& s) {
  std::u32string out;
  bool prev_cased = false;
  for (char32_t c : DecodeUtf8(s)) {
    bool cased = IsCased(c);
    if (cased) {
      out += prev_cased ? LowerU(std::u32string(1, c)) : UpperU(std::u32string(1, c));
    } else {
      out.push_back(c);
    }
    prev_cased = cased;
  }
  return EncodeUtf8(out);
}

// Jinja's title filter: capitalize each chunk after [-\s({[<]+.
std::string JinjaTitle(const std::string& s) {
  std::u32string u = DecodeUtf8(s);
  std::u32string out;
  size_t i = 0;
  auto is_delim = [](char32_t c) {
    return c == '-' || c == '(' || c == '{' || c == '[' || c == '<' || IsPyWhitespace(c);
  };
  while (i < u.size()) {
    size_t j = i;
    if (is_delim(u[i])) {
      while (j < u.size() && is_delim(u[j])) ++j;
      out += u.substr(i, j - i);
    } else {
      while (j < u.size() && !is_delim(u[j])) ++j;
      out += CapitalizeU(u.substr(i, j - i));
    }
    i = j;
  }
  return EncodeUtf8(out);
}

std::string PyReplace(const std::string& s, const std::string& old, const std::string& nw,
                      int64_t count) {
  if (old.empty()) {
    std::u32string u = DecodeUtf8(s);
    std::string out;
    int64_t n = 0;
    for (size_t i = 0; i <= u.size(); ++i) {
      if (count < 0 || n < count) {
        out += nw;
        ++n;
      }
      // Over the budget: the renderer refuses the result (its size check).
      if (out.size() > limits::kTemplateOutputBytes) return out;
      if (i < u.size()) out += EncodeUtf8(u.substr(i, 1));
    }
    return out;
  }
  std::string out;
  size_t pos = 0;
  int64_t n = 0;
  while (count < 0 || n < count) {
    size_t f = s.find(old, pos);
    if (f == std::string::npos) break;
    out.append(s, pos, f - pos);
    out += nw;
    pos = f + old.size();
    ++n;
    if (out.size() > limits::kTemplateOutputBytes) return out;  // refused by the renderer
  }
  out.append(s, pos, std::string::npos);
  return out;
}

absl::StatusOr<std::vector<Value>> PySplit(const std::string& s, const Value* sep,
                                           int64_t maxsplit) {
  std::vector<Value> out;
  if (!sep || sep->is_none()) {
    std::u32string u = DecodeUtf8(s);
    size_t i = 0;
    int64_t n = 0;
    while (true) {
      while (i < u.size() && IsPyWhitespace(u[i])) ++i;
      if (i >= u.size()) break;
      if (maxsplit >= 0 && n >= maxsplit) {
        size_t e = u.size();
        while (e > i && IsPyWhitespace(u[e - 1])) --e;
        out.emplace_back(EncodeUtf8(u.substr(i, e - i)));
        break;
      }
      size_t j = i;
      while (j < u.size() && !IsPyWhitespace(u[j])) ++j;
      out.emplace_back(EncodeUtf8(u.substr(i, j - i)));
      ++n;
      i = j;
    }
    return out;
  }
  if (!sep->is_string()) return Err("split(): separator must be str or None");
  const std::string& d = sep->as_string();
  if (d.empty()) return Err("split(): empty separator");
  size_t pos = 0;
  int64_t n = 0;
  while (maxsplit < 0 || n < maxsplit) {
    size_t f = s.find(d, pos);
    if (f == std::string::npos) break;
    out.emplace_back(s.substr(pos, f - pos));
    pos = f + d.size();
    ++n;
  }
  out.emplace_back(s.substr(pos));
  return out;
}

}  // namespace oxinfer::chat::jinja_internal
