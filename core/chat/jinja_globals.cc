#include "core/chat/jinja_globals.h"

#include <cstdint>
#include <ctime>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/chat/jinja_status.h"
#include "core/chat/value.h"

namespace oxinfer::chat::jinja_internal {
namespace {

Value MakeNamespace(const CallArgs& a) {
  Value ns = Value::Namespace();
  for (const Value& v : a.args) {
    if (v.is_dict()) {
      for (const auto& [k, x] : v.object().items()) ns.object().Set(k, x);
    }
  }
  for (const auto& [k, v] : a.kwargs) ns.object().Set(k, v);
  return ns;
}

}  // namespace

void AddGlobals(Scope* g) {
  g->vars["range"] = Value::Function("range", [](const CallArgs& a) -> absl::StatusOr<Value> {
    int64_t start = 0, stop = 0, step = 1;
    for (const Value& v : a.args) {
      if (!v.is_int() && !v.is_bool()) return Err("range() arguments must be integers");
    }
    if (a.args.size() == 1) {
      stop = a.args[0].as_int();
    } else if (a.args.size() >= 2) {
      start = a.args[0].as_int();
      stop = a.args[1].as_int();
      if (a.args.size() >= 3) step = a.args[2].as_int();
    } else {
      return Err("range() expects arguments");
    }
    if (step == 0) return Err("range() arg 3 must not be zero");
    std::vector<Value> out;
    for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) {
      out.emplace_back(i);
      if (out.size() > 100000) return Err("range too big");
    }
    return Value::Array(std::move(out));
  });
  g->vars["namespace"] =
      Value::Function("namespace", [](const CallArgs& a) -> absl::StatusOr<Value> {
        for (const auto& kv : a.kwargs) {
          if (!kv.first.empty() && kv.first[0] == '_') {
            return Err("namespace attributes cannot start with an underscore");
          }
        }
        return MakeNamespace(a);
      });
  g->vars["dict"] = Value::Function("dict", [](const CallArgs& a) -> absl::StatusOr<Value> {
    Value d = Value::Dict();
    for (const Value& v : a.args) {
      if (v.is_dict()) {
        for (const auto& [k, x] : v.object().items()) d.object().Set(k, x);
      } else {
        return Err("dict() positional argument must be a mapping");
      }
    }
    for (const auto& [k, v] : a.kwargs) d.object().Set(k, v);
    return d;
  });
  g->vars["raise_exception"] =
      Value::Function("raise_exception", [](const CallArgs& a) -> absl::StatusOr<Value> {
        std::string msg = a.args.empty() ? "" : a.args[0].Str();
        return absl::InvalidArgumentError(absl::StrCat("raise_exception: ", msg));
      });
  g->vars["strftime_now"] =
      Value::Function("strftime_now", [](const CallArgs& a) -> absl::StatusOr<Value> {
        if (a.args.empty() || !a.args[0].is_string()) return Err("strftime_now(format)");
        std::time_t t = std::time(nullptr);
        std::tm tm;
        localtime_r(&t, &tm);
        char buf[256];
        size_t n = std::strftime(buf, sizeof(buf), a.args[0].as_string().c_str(), &tm);
        return Value(std::string(buf, n));
      });
}

}  // namespace oxinfer::chat::jinja_internal
