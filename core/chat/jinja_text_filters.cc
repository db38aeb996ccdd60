// Filters that produce text.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/chat/jinja_filters.h"
#include "core/chat/jinja_format.h"
#include "core/chat/jinja_ops.h"
#include "core/chat/jinja_pystr.h"
#include "core/chat/jinja_status.h"
#include "core/limits.h"
#include "oxinfer/sdk/status.hpp"

namespace oxinfer::chat::jinja_internal {
namespace {

absl::StatusOr<Value> SafeFilter(const Value& v, const CallArgs& /*a*/) { return v; }

absl::StatusOr<Value> EscapeFilter(const Value& v, const CallArgs& /*a*/) {
  std::string out;
  for (char c : v.Str()) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&#34;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out.push_back(c);
    }
  }
  return Value(out);
}

// A width or indent a filter pads with: padding beyond the template budget is
// refused before it is allocated.
absl::Status CheckWidth(const char* filter, const char* arg, int64_t width) {
  if (width <= static_cast<int64_t>(limits::kTemplateOutputBytes)) return absl::OkStatus();
  return absl::ResourceExhaustedError(
      absl::StrFormat("%s: %s=%d is more than the template budget of %d bytes", filter, arg, width,
                      limits::kTemplateOutputBytes));
}

absl::StatusOr<Value> ToJsonFilter(const Value& v, const CallArgs& a) {
  Args args(a);
  const Value* ea = args.Get(0, "ensure_ascii");
  const Value* ind = args.Get(1, "indent");
  const Value* seps = args.Get(2, "separators");
  const Value* sk = args.Get(3, "sort_keys");
  int indent = -1;
  std::string indent_str;
  if (ind && !ind->is_none()) {
    if (ind->is_string()) {
      indent_str = ind->as_string();
      indent = 0;
    } else {
      OXI_RETURN_IF_ERROR(CheckWidth("tojson", "indent", ind->as_int()));
      indent = static_cast<int>(ind->as_int());
      if (indent < 0) indent = 0;
    }
  }
  std::string item_sep, key_sep;
  if (seps && !seps->is_none()) {
    if (!seps->is_array() || seps->array().size() != 2) return Err("tojson: bad separators");
    item_sep = seps->array()[0].Str();
    key_sep = seps->array()[1].Str();
    if (item_sep.empty()) item_sep = "\x01";  // Distinguish "" from default.
    if (key_sep.empty()) key_sep = "\x01";
  }
  auto r = v.ToJson(ea && ea->Truthy(), indent, indent_str, item_sep, key_sep, sk && sk->Truthy());
  if (!r.ok()) return r.status();
  std::string s = *r;
  if (item_sep == "\x01" || key_sep == "\x01")
    s.erase(std::remove(s.begin(), s.end(), '\x01'), s.end());
  return Value(s);
}

absl::StatusOr<Value> TrimFilter(const Value& v, const CallArgs& a) {
  Args args(a);
  return Value(PyStrip(v.Str(), args.Get(0, "chars"), true, true));
}

absl::StatusOr<Value> UpperFilter(const Value& v, const CallArgs& /*a*/) {
  return Value(PyUpper(v.Str()));
}

absl::StatusOr<Value> LowerFilter(const Value& v, const CallArgs& /*a*/) {
  return Value(PyLower(v.Str()));
}

absl::StatusOr<Value> CapitalizeFilter(const Value& v, const CallArgs& /*a*/) {
  return Value(Capitalize(v.Str()));
}

absl::StatusOr<Value> TitleFilter(const Value& v, const CallArgs& /*a*/) {
  return Value(JinjaTitle(v.Str()));
}

absl::StatusOr<Value> StringFilter(const Value& v, const CallArgs& /*a*/) { return Value(v.Str()); }

absl::StatusOr<Value> ReplaceFilter(const Value& v, const CallArgs& a) {
  Args args(a);
  const Value* o = args.Get(0, "old");
  const Value* n = args.Get(1, "new");
  const Value* c = args.Get(2, "count");
  if (!o || !n) return Err("replace needs 2 arguments");
  return Value(PyReplace(v.Str(), o->Str(), n->Str(), c && !c->is_none() ? c->as_int() : -1));
}

absl::StatusOr<Value> IndentFilter(const Value& v, const CallArgs& a) {
  Args args(a);
  const Value* w = args.Get(0, "width");
  const Value* first = args.Get(1, "first");
  const Value* blank = args.Get(2, "blank");
  if (w && !w->is_string()) OXI_RETURN_IF_ERROR(CheckWidth("indent", "width", w->as_int()));
  std::string ind =
      w ? (w->is_string() ? w->as_string() : std::string(std::max<int64_t>(0, w->as_int()), ' '))
        : std::string(4, ' ');
  std::string s = v.Str() + "\n";
  const size_t lines_count = std::count(s.begin(), s.end(), '\n');
  if (!ind.empty() && lines_count > limits::kTemplateOutputBytes / ind.size()) {
    return absl::ResourceExhaustedError(
        absl::StrFormat("indent: the result would be larger than the template budget of %d bytes",
                        limits::kTemplateOutputBytes));
  }
  std::vector<std::string> lines;
  size_t b = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\n') {
      lines.push_back(s.substr(b, i - b));
      b = i + 1;
    }
  }
  std::string rv;
  if (blank && blank->Truthy()) {
    for (size_t i = 0; i < lines.size(); ++i) {
      if (i) rv += "\n" + ind;
      rv += lines[i];
    }
  } else {
    rv = lines.empty() ? "" : lines[0];
    for (size_t i = 1; i < lines.size(); ++i) {
      rv += "\n";
      if (!lines[i].empty()) rv += ind;
      rv += lines[i];
    }
  }
  if (first && first->Truthy()) rv = ind + rv;
  return Value(rv);
}

absl::StatusOr<Value> FormatFilter(const Value& v, const CallArgs& a) {
  Args args(a);
  OXI_ASSIGN_OR_RETURN(auto s, PercentFormat(v.Str(), a.args.size() == 1 && !a.args[0].is_tuple()
                                                          ? a.args[0]
                                                          : Value::Tuple(a.args)));
  return Value(s);
}

absl::StatusOr<Value> WordCountFilter(const Value& v, const CallArgs& /*a*/) {
  OXI_ASSIGN_OR_RETURN(auto parts, PySplit(v.Str(), nullptr, -1));
  return Value(static_cast<int64_t>(parts.size()));
}

absl::StatusOr<Value> CenterFilter(const Value& v, const CallArgs& a) {
  Args args(a);
  const Value* w = args.Get(0, "width");
  int64_t width = w ? w->as_int() : 80;
  OXI_RETURN_IF_ERROR(CheckWidth("center", "width", width));
  std::string s = v.Str();
  int64_t n = StrLen(s);
  if (n >= width) return Value(s);
  int64_t pad = width - n;
  int64_t left = pad / 2 + (pad & width & 1);
  return Value(std::string(left, ' ') + s + std::string(pad - left, ' '));
}

}  // namespace

std::vector<NamedFilter> TextFilters() {
  return {
      {"safe", SafeFilter},          {"e", EscapeFilter},      {"escape", EscapeFilter},
      {"forceescape", EscapeFilter}, {"tojson", ToJsonFilter}, {"trim", TrimFilter},
      {"upper", UpperFilter},        {"lower", LowerFilter},   {"capitalize", CapitalizeFilter},
      {"title", TitleFilter},        {"string", StringFilter}, {"replace", ReplaceFilter},
      {"indent", IndentFilter},      {"format", FormatFilter}, {"wordcount", WordCountFilter},
      {"center", CenterFilter},
  };
}

}  // namespace oxinfer::chat::jinja_internal
