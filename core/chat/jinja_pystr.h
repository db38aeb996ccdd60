// Python str semantics the interpreter needs: whitespace classes, length in
// code points, strip, case mapping, title, replace and split, as CPython
// computes them on UTF-8 text.
#ifndef OXINFER_CORE_CHAT_JINJA_PYSTR_H_
#define OXINFER_CORE_CHAT_JINJA_PYSTR_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/chat/value.h"

namespace oxinfer::chat::jinja_internal {

// ASCII whitespace (C's isspace in the C locale), whatever the locale.
bool IsSpace(char c);
// Python's str.isspace() for one code point.
bool IsPyWhitespace(char32_t c);
bool IsAscii(absl::string_view s);
// len(s): code points.
int64_t StrLen(const std::string& s);

// str.strip / lstrip / rstrip; `chars` null or None strips whitespace.
std::string PyStrip(const std::string& s, const Value* chars, bool left, bool right);

// str.lower() / str.upper() / str.capitalize() / str.title(): Python's full
// Unicode case mapping (ICU's data) with CPython's final-sigma rule.
std::string PyLower(std::string s);
std::string PyUpper(std::string s);
std::string Capitalize(const std::string& s);
std::string PyTitle(const std::string& s);
// str.islower() / isupper() / isdigit() / isalpha() / isalnum() / isspace(),
// `name` being the method's name.
bool PyIsClass(const std::string& name, const std::string& s);
// Jinja's `title` filter, which differs from str.title(): words start after
// [-\s({[<].
std::string JinjaTitle(const std::string& s);

// str.replace(old, new, count); count < 0: all.
std::string PyReplace(const std::string& s, const std::string& old, const std::string& nw,
                      int64_t count);
// str.split(sep, maxsplit); `sep` null or None splits on whitespace runs.
absl::StatusOr<std::vector<Value>> PySplit(const std::string& s, const Value* sep,
                                           int64_t maxsplit);

}  // namespace oxinfer::chat::jinja_internal

#endif  // OXINFER_CORE_CHAT_JINJA_PYSTR_H_
