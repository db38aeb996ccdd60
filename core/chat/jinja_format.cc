#include "core/chat/jinja_format.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/chat/jinja_status.h"

namespace oxinfer::chat::jinja_internal {

absl::StatusOr<std::string> PercentFormat(const std::string& fmt, const Value& args) {
  std::vector<Value> list;
  const Value* mapping = nullptr;
  if (args.is_tuple()) {
    list = args.array();
  } else if (args.is_dict()) {
    mapping = &args;
  } else {
    list.push_back(args);
  }
  std::string out;
  size_t next = 0;
  for (size_t i = 0; i < fmt.size(); ++i) {
    if (fmt[i] != '%') {
      out.push_back(fmt[i]);
      continue;
    }
    ++i;
    if (i >= fmt.size()) return Err("incomplete format");
    if (fmt[i] == '%') {
      out.push_back('%');
      continue;
    }
    const Value* arg = nullptr;
    if (fmt[i] == '(' && mapping) {
      size_t e = fmt.find(')', i);
      if (e == std::string::npos) return Err("incomplete format key");
      arg = mapping->object().Find(fmt.substr(i + 1, e - i - 1));
      if (!arg) return Err("format key not found");
      i = e + 1;
    }
    std::string spec;
    while (i < fmt.size() && std::strchr("-+ #0123456789.", fmt[i])) spec.push_back(fmt[i++]);
    if (i >= fmt.size()) return Err("incomplete format");
    char conv = fmt[i];
    if (!arg) {
      if (next >= list.size()) return Err("not enough arguments for format string");
      arg = &list[next++];
    }
    switch (conv) {
      case 's':
        out += arg->Str();
        break;
      case 'r':
        out += arg->Repr();
        break;
      case 'd':
      case 'i':
        if (!arg->is_number()) return Err("%d format: a number is required");
        {
          char buf[128];
          std::string f = absl::StrCat("%", spec, "lld");
          std::snprintf(buf, sizeof(buf), f.c_str(),
                        static_cast<long long>(arg->is_float() ? std::trunc(arg->as_double())
                                                               : arg->as_int()));
          out += buf;
        }
        break;
      case 'f':
      case 'e':
      case 'g': {
        if (!arg->is_number()) return Err("%f format: a number is required");
        char buf[128];
        std::string f = absl::StrCat("%", spec, std::string(1, conv));
        std::snprintf(buf, sizeof(buf), f.c_str(), arg->as_double());
        out += buf;
        break;
      }
      default:
        return Err(absl::StrFormat("unsupported format character '%c'", conv));
    }
  }
  return out;
}

absl::StatusOr<std::string> BraceFormat(const std::string& fmt, const CallArgs& a) {
  std::string out;
  size_t auto_idx = 0;
  for (size_t i = 0; i < fmt.size(); ++i) {
    char c = fmt[i];
    if (c == '{' && i + 1 < fmt.size() && fmt[i + 1] == '{') {
      out.push_back('{');
      ++i;
      continue;
    }
    if (c == '}' && i + 1 < fmt.size() && fmt[i + 1] == '}') {
      out.push_back('}');
      ++i;
      continue;
    }
    if (c != '{') {
      out.push_back(c);
      continue;
    }
    size_t e = fmt.find('}', i);
    if (e == std::string::npos) return Err("format(): single '{' encountered");
    std::string field = fmt.substr(i + 1, e - i - 1);
    if (field.find(':') != std::string::npos || field.find('!') != std::string::npos) {
      return Err("format(): format specs are not supported");
    }
    const Value* v = nullptr;
    if (field.empty()) {
      if (auto_idx < a.args.size()) v = &a.args[auto_idx++];
    } else if (std::isdigit(static_cast<unsigned char>(field[0]))) {
      size_t idx = std::strtoul(field.c_str(), nullptr, 10);
      if (idx < a.args.size()) v = &a.args[idx];
    } else {
      for (const auto& [k, kv] : a.kwargs) {
        if (k == field) v = &kv;
      }
    }
    if (!v) return Err(absl::StrCat("format(): missing argument '", field, "'"));
    out += v->Str();
    i = e;
  }
  return out;
}

}  // namespace oxinfer::chat::jinja_internal
