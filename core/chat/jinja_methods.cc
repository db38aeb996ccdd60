#include "core/chat/jinja_methods.h"

#include <cctype>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/chat/jinja_format.h"
#include "core/chat/jinja_ops.h"
#include "core/chat/jinja_pystr.h"
#include "core/chat/jinja_status.h"
#include "core/limits.h"
#include "oxinfer/sdk/status.hpp"

namespace oxinfer::chat::jinja_internal {
namespace {

Value BindMethod(const std::string& name, NativeFunction fn) {
  return Value::Function(name, std::move(fn));
}

// A mutating method: templates render in a sandbox that forbids it.
Value RefusedMethod(const std::string& type, const std::string& name) {
  return BindMethod(name, [type, name](const CallArgs&) -> absl::StatusOr<Value> {
    return Err(
        absl::StrCat(type, ".", name, "() is not allowed: chat templates cannot modify values"));
  });
}

}  // namespace

Value StringMethod(const std::string& s, const std::string& name) {
  auto bind = [&](auto f) { return BindMethod(name, f); };
  if (name == "strip" || name == "lstrip" || name == "rstrip") {
    bool l = name != "rstrip", r = name != "lstrip";
    return bind([s, l, r](const CallArgs& a) -> absl::StatusOr<Value> {
      return Value(PyStrip(s, Args(a).Get(0, "chars"), l, r));
    });
  }
  if (name == "split" || name == "rsplit") {
    bool rs = name == "rsplit";
    return bind([s, rs](const CallArgs& a) -> absl::StatusOr<Value> {
      Args args(a);
      const Value* sep = args.Get(0, "sep");
      const Value* ms = args.Get(1, "maxsplit");
      int64_t maxsplit = ms ? ms->as_int() : -1;
      if (rs && maxsplit >= 0) {
        // rsplit with a limit: split from the right.
        OXI_ASSIGN_OR_RETURN(auto all, PySplit(s, sep, -1));
        if (static_cast<int64_t>(all.size()) <= maxsplit + 1) return Value::Array(all);
        if (!sep || sep->is_none()) return Err("rsplit() without sep and with maxsplit");
        size_t keep = all.size() - maxsplit;
        std::string head;
        for (size_t i = 0; i < keep; ++i) {
          if (i) head += sep->as_string();
          head += all[i].as_string();
        }
        std::vector<Value> out{Value(head)};
        for (size_t i = keep; i < all.size(); ++i) out.push_back(all[i]);
        return Value::Array(out);
      }
      OXI_ASSIGN_OR_RETURN(auto parts, PySplit(s, sep, maxsplit));
      return Value::Array(std::move(parts));
    });
  }
  if (name == "startswith" || name == "endswith") {
    bool sw = name == "startswith";
    return bind([s, sw](const CallArgs& a) -> absl::StatusOr<Value> {
      const Value* p = Args(a).Get(0, "prefix");
      if (!p) return Err("startswith/endswith: missing argument");
      std::vector<Value> cands = p->is_array() ? p->array() : std::vector<Value>{*p};
      for (const Value& c : cands) {
        if (!c.is_string()) return Err("startswith/endswith: argument must be str");
        const std::string& x = c.as_string();
        if (x.size() > s.size()) continue;
        if (sw ? s.compare(0, x.size(), x) == 0
               : s.compare(s.size() - x.size(), x.size(), x) == 0) {
          return Value(true);
        }
      }
      return Value(false);
    });
  }
  if (name == "replace") {
    return bind([s](const CallArgs& a) -> absl::StatusOr<Value> {
      Args args(a);
      const Value* o = args.Get(0, "old");
      const Value* n = args.Get(1, "new");
      const Value* c = args.Get(2, "count");
      if (!o || !n || !o->is_string() || !n->is_string()) return Err("replace(): needs 2 strings");
      return Value(PyReplace(s, o->as_string(), n->as_string(), c ? c->as_int() : -1));
    });
  }
  if (name == "upper")
    return bind([s](const CallArgs&) -> absl::StatusOr<Value> { return Value(PyUpper(s)); });
  if (name == "lower")
    return bind([s](const CallArgs&) -> absl::StatusOr<Value> { return Value(PyLower(s)); });
  if (name == "title")
    return bind([s](const CallArgs&) -> absl::StatusOr<Value> { return Value(PyTitle(s)); });
  if (name == "capitalize")
    return bind([s](const CallArgs&) -> absl::StatusOr<Value> { return Value(Capitalize(s)); });
  if (name == "find" || name == "rfind" || name == "index" || name == "count") {
    std::string n = name;
    return bind([s, n](const CallArgs& a) -> absl::StatusOr<Value> {
      const Value* sub = Args(a).Get(0, "sub");
      if (!sub || !sub->is_string()) return Err(n + "(): argument must be str");
      const std::string& x = sub->as_string();
      if (n == "count") {
        if (x.empty()) return Value(StrLen(s) + 1);
        int64_t c = 0;
        for (size_t p = s.find(x); p != std::string::npos; p = s.find(x, p + x.size())) ++c;
        return Value(c);
      }
      size_t p = n == "rfind" ? s.rfind(x) : s.find(x);
      if (p == std::string::npos) {
        if (n == "index") return Err("substring not found");
        return Value(int64_t{-1});
      }
      return Value(StrLen(s.substr(0, p)));
    });
  }
  if (name == "join") {
    return bind([s](const CallArgs& a) -> absl::StatusOr<Value> {
      const Value* it = Args(a).Get(0, "iterable");
      if (!it) return Err("join(): missing argument");
      OXI_ASSIGN_OR_RETURN(auto items, Iterate(*it));
      std::string out;
      for (size_t i = 0; i < items.size(); ++i) {
        if (!items[i].is_string()) return Err("join(): sequence item must be str");
        if (i) out += s;
        out += items[i].as_string();
        if (out.size() > limits::kTemplateOutputBytes) break;  // refused by the renderer
      }
      return Value(out);
    });
  }
  if (name == "format") {
    return bind([s](const CallArgs& a) -> absl::StatusOr<Value> {
      OXI_ASSIGN_OR_RETURN(auto r, BraceFormat(s, a));
      return Value(r);
    });
  }
  if (name == "isdigit" || name == "isalpha" || name == "isalnum" || name == "isspace" ||
      name == "islower" || name == "isupper") {
    std::string n = name;
    return bind(
        [s, n](const CallArgs&) -> absl::StatusOr<Value> { return Value(PyIsClass(n, s)); });
  }
  if (name == "splitlines") {
    return bind([s](const CallArgs&) -> absl::StatusOr<Value> {
      std::vector<Value> out;
      size_t b = 0;
      for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '\n' || s[i] == '\r') {
          out.emplace_back(s.substr(b, i - b));
          if (s[i] == '\r' && i + 1 < s.size() && s[i + 1] == '\n') ++i;
          b = i + 1;
        }
      }
      if (b < s.size()) out.emplace_back(s.substr(b));
      return Value::Array(std::move(out));
    });
  }
  return Value::Undefined(absl::StrCat("str object has no attribute '", name, "'"));
}

Value DictMethod(const Value& d, const std::string& name) {
  if (name == "items") {
    return BindMethod(name, [d](const CallArgs&) -> absl::StatusOr<Value> { return MakeItems(d); });
  }
  if (name == "keys" || name == "values") {
    bool keys = name == "keys";
    return BindMethod(name, [d, keys](const CallArgs&) -> absl::StatusOr<Value> {
      std::vector<Value> out;
      for (const auto& [k, v] : d.object().items()) out.push_back(keys ? Value(k) : v);
      return Value::Array(std::move(out));
    });
  }
  if (name == "get") {
    return BindMethod(name, [d](const CallArgs& a) -> absl::StatusOr<Value> {
      Args args(a);
      const Value* k = args.Get(0, "key");
      const Value* def = args.Get(1, "default");
      if (!k) return Err("get(): missing key");
      if (k->is_string()) {
        const Value* v = d.object().Find(k->as_string());
        if (v) return *v;
      }
      return def ? *def : Value::None();
    });
  }
  if (name == "copy") {
    return BindMethod(name, [d](const CallArgs&) -> absl::StatusOr<Value> {
      Value c = Value::Dict();
      for (const auto& [k, v] : d.object().items()) c.object().Set(k, v);
      return c;
    });
  }
  if (name == "update" || name == "pop" || name == "setdefault" || name == "clear" ||
      name == "popitem") {
    return RefusedMethod("dict", name);
  }
  return Value();
}

bool IsDictMethodName(const std::string& name) {
  return name == "items" || name == "keys" || name == "values" || name == "get" || name == "copy" ||
         name == "update" || name == "pop" || name == "setdefault" || name == "clear" ||
         name == "popitem";
}

Value ListMethod(const Value& list, const std::string& name) {
  if (name == "append" || name == "extend" || name == "pop" || name == "insert" ||
      name == "remove" || name == "clear" || name == "sort" || name == "reverse") {
    return RefusedMethod("list", name);
  }
  if (name == "index" || name == "count") {
    Value l = list;
    bool idx = name == "index";
    return BindMethod(name, [l, idx](const CallArgs& a) -> absl::StatusOr<Value> {
      const Value* x = Args(a).Get(0, "value");
      if (!x) return Err("missing argument");
      int64_t c = 0;
      for (size_t i = 0; i < l.array().size(); ++i) {
        if (l.array()[i].Equals(*x)) {
          if (idx) return Value(static_cast<int64_t>(i));
          ++c;
        }
      }
      if (idx) return Err("value is not in list");
      return Value(c);
    });
  }
  return Value::Undefined(absl::StrCat("'list object' has no attribute '", name, "'"));
}

}  // namespace oxinfer::chat::jinja_internal
