#include "core/chat/jinja_pystr.h"

#include <unicode/uchar.h>
#include <unicode/ustring.h>
#include <unicode/utf16.h>

#include <string>
#include <vector>

#include "core/chat/jinja_status.h"
#include "core/limits.h"

namespace oxinfer::chat::jinja_internal {
namespace {

// Python's full case mappings (SpecialCasing included: ß -> SS, ligatures,
// İ -> i̇) of one code point, through ICU's string functions on it alone
// (context-free in the root locale; the final sigma is handled below as
// CPython does).
enum class CaseOp { kUpper, kLower, kTitle };

void AppendMapped(char32_t c, CaseOp op, std::u32string* out) {
  if (c < 0x80) {
    if (op == CaseOp::kLower) {
      out->push_back(c >= 'A' && c <= 'Z' ? c + 32 : c);
    } else {
      out->push_back(c >= 'a' && c <= 'z' ? c - 32 : c);
    }
    return;
  }
  UChar src[2];
  int32_t n = 0;
  UBool err = false;
  U16_APPEND(src, n, 2, static_cast<UChar32>(c), err);
  UChar dst[8];
  UErrorCode status = U_ZERO_ERROR;
  int32_t m = 0;
  switch (op) {
    case CaseOp::kUpper:
      m = u_strToUpper(dst, 8, src, n, "", &status);
      break;
    case CaseOp::kLower:
      m = u_strToLower(dst, 8, src, n, "", &status);
      break;
    case CaseOp::kTitle:
      m = u_strToTitle(dst, 8, src, n, nullptr, "", &status);
      break;
  }
  if (U_FAILURE(status) || err || m > 8) {
    out->push_back(c);
    return;
  }
  for (int32_t i = 0; i < m;) {
    UChar32 d;
    U16_NEXT(dst, i, m, d);
    out->push_back(static_cast<char32_t>(d));
  }
}

bool IsCased(char32_t c) { return u_hasBinaryProperty(c, UCHAR_CASED); }
bool IsCaseIgnorable(char32_t c) { return u_hasBinaryProperty(c, UCHAR_CASE_IGNORABLE); }

// CPython's Final_Sigma test for U+03A3 at u[i]: a cased letter before it and
// none after it (case-ignorable characters skipped both ways).
bool FinalSigma(const std::u32string& u, size_t i) {
  size_t j = i;
  while (j > 0 && IsCaseIgnorable(u[j - 1])) --j;
  if (j == 0 || !IsCased(u[j - 1])) return false;
  size_t k = i + 1;
  while (k < u.size() && IsCaseIgnorable(u[k])) ++k;
  return k == u.size() || !IsCased(u[k]);
}

// str.lower() of u[i], final sigma judged over all of u.
void AppendLowerAt(const std::u32string& u, size_t i, std::u32string* out) {
  if (u[i] == 0x3A3) {
    out->push_back(FinalSigma(u, i) ? 0x3C2 : 0x3C3);
  } else {
    AppendMapped(u[i], CaseOp::kLower, out);
  }
}

std::u32string UpperU(const std::u32string& u) {
  std::u32string out;
  for (char32_t c : u) AppendMapped(c, CaseOp::kUpper, &out);
  return out;
}

std::u32string LowerU(const std::u32string& u) {
  std::u32string out;
  for (size_t i = 0; i < u.size(); ++i) AppendLowerAt(u, i, &out);
  return out;
}

// Python str.capitalize() (3.8+): the first character title-cased, the rest
// lower-cased (the sigma test sees the first character too).
std::u32string CapitalizeU(const std::u32string& u) {
  if (u.empty()) return u;
  std::u32string out;
  AppendMapped(u[0], CaseOp::kTitle, &out);
  for (size_t i = 1; i < u.size(); ++i) AppendLowerAt(u, i, &out);
  return out;
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

bool PyIsClass(const std::string& name, const std::string& s) {
  if (s.empty()) return false;
  const std::u32string u = DecodeUtf8(s);
  if (name == "islower" || name == "isupper") {
    // CPython: no character of the other case or title case, one of this case.
    const UProperty want = name == "islower" ? UCHAR_LOWERCASE : UCHAR_UPPERCASE;
    const UProperty other = name == "islower" ? UCHAR_UPPERCASE : UCHAR_LOWERCASE;
    bool cased = false;
    for (char32_t c : u) {
      if (u_hasBinaryProperty(c, other) || u_charType(c) == U_TITLECASE_LETTER) return false;
      cased = cased || u_hasBinaryProperty(c, want);
    }
    return cased;
  }
  for (char32_t c : u) {
    const int32_t nt = u_getIntPropertyValue(c, UCHAR_NUMERIC_TYPE);
    const bool alpha = (U_GET_GC_MASK(c) & (U_GC_LU_MASK | U_GC_LL_MASK | U_GC_LT_MASK |
                                            U_GC_LM_MASK | U_GC_LO_MASK)) != 0;
    const bool digit = nt == U_NT_DECIMAL || nt == U_NT_DIGIT;
    bool ok = false;
    if (name == "isdigit") ok = digit;
    if (name == "isalpha") ok = alpha;
    if (name == "isalnum") ok = alpha || nt != U_NT_NONE;
    if (name == "isspace") ok = IsPyWhitespace(c);
    if (!ok) return false;
  }
  return true;
}

std::string Capitalize(const std::string& s) { return EncodeUtf8(CapitalizeU(DecodeUtf8(s))); }

// Python str.title(): a character after a cased one is lower-cased (final
// sigma included), any other title-cased.
std::string PyTitle(const std::string& s) {
  const std::u32string u = DecodeUtf8(s);
  std::u32string out;
  bool prev_cased = false;
  for (size_t i = 0; i < u.size(); ++i) {
    if (prev_cased) {
      AppendLowerAt(u, i, &out);
    } else {
      AppendMapped(u[i], CaseOp::kTitle, &out);
    }
    prev_cased = IsCased(u[i]);
  }
  return EncodeUtf8(out);
}

// Jinja's title filter: each chunk after [-\s({[<]+ upper-cased in its first
// character (not title-cased) and lower-cased in the rest.
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
      // item[0].upper() + item[1:].lower(), as Jinja2's do_title.
      out += UpperU(u.substr(i, 1)) + LowerU(u.substr(i + 1, j - i - 1));
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
