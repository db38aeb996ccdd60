// The filter table, and the filters of single values: default, attr and
// the numeric conversions.
#include "core/chat/jinja_filters.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "core/chat/jinja_methods.h"
#include "core/chat/jinja_ops.h"
#include "core/chat/jinja_pystr.h"
#include "core/chat/jinja_status.h"
#include "oxinfer/sdk/status.hpp"

namespace oxinfer::chat::jinja_internal {
namespace {

Value PyRound(const Value& v, int64_t precision, const std::string& method) {
  if (v.is_int() || v.is_bool()) {
    if (method == "common" || precision >= 0) return Value(v.as_int());
  }
  double x = v.as_double();
  if (method == "ceil" || method == "floor") {
    double m = std::pow(10.0, static_cast<double>(precision));
    double r = method == "ceil" ? std::ceil(x * m) / m : std::floor(x * m) / m;
    return Value(r);
  }
  if (precision >= 0 && precision < 300) {
    char buf[512];
    std::snprintf(buf, sizeof(buf), "%.*f", static_cast<int>(precision), x);
    return Value(std::strtod(buf, nullptr));
  }
  return Value(x);
}

absl::StatusOr<Value> DefaultFilter(const Value& v, const CallArgs& a) {
  Args args(a);
  const Value* def = args.Get(0, "default_value");
  const Value* boolean = args.Get(1, "boolean");
  bool use_default = v.is_undefined() || (boolean && boolean->Truthy() && !v.Truthy());
  if (use_default) return def ? *def : Value("");
  return v;
}

absl::StatusOr<Value> AttrFilter(const Value& v, const CallArgs& a) {
  Args args(a);
  const Value* n = args.Get(0, "name");
  if (!n) return Err("attr needs a name");
  // Attribute lookup only (no item fallback): dict keys are not attributes.
  if (v.is_dict()) {
    if (IsDictMethodName(n->Str())) return DictMethod(v, n->Str());
    return Value::Undefined(absl::StrCat("'dict object' has no attribute '", n->Str(), "'"));
  }
  return GetAttr(v, n->Str());
}

absl::StatusOr<Value> IntFilter(const Value& v, const CallArgs& a) {
  Args args(a);
  const Value* def = args.Get(0, "default");
  Value d = def ? *def : Value(int64_t{0});
  if (v.is_int()) return v;
  if (v.is_bool()) return Value(v.as_int());
  if (v.is_float()) return Value(static_cast<int64_t>(v.as_float()));
  if (v.is_string()) {
    std::string s = PyStrip(v.as_string(), nullptr, true, true);
    char* end = nullptr;
    long long i = std::strtoll(s.c_str(), &end, 10);
    if (!s.empty() && end && *end == 0) return Value(static_cast<int64_t>(i));
    double f = std::strtod(s.c_str(), &end);
    if (!s.empty() && end && *end == 0) return Value(static_cast<int64_t>(f));
  }
  return d;
}

absl::StatusOr<Value> FloatFilter(const Value& v, const CallArgs& a) {
  Args args(a);
  const Value* def = args.Get(0, "default");
  if (v.is_number()) return Value(v.as_double());
  if (v.is_string()) {
    std::string s = PyStrip(v.as_string(), nullptr, true, true);
    char* end = nullptr;
    double f = std::strtod(s.c_str(), &end);
    if (!s.empty() && end && *end == 0) return Value(f);
  }
  return def ? *def : Value(0.0);
}

absl::StatusOr<Value> AbsFilter(const Value& v, const CallArgs& /*a*/) {
  if (v.is_int() || v.is_bool()) return Value(std::abs(v.as_int()));
  if (v.is_float()) return Value(std::fabs(v.as_float()));
  return Err(absl::StrCat("bad operand type for abs(): '", v.TypeName(), "'"));
}

absl::StatusOr<Value> RoundFilter(const Value& v, const CallArgs& a) {
  Args args(a);
  const Value* p = args.Get(0, "precision");
  const Value* m = args.Get(1, "method");
  if (!v.is_number()) return Err("round needs a number");
  return PyRound(v, p ? p->as_int() : 0, m ? m->Str() : "common");
}

std::vector<NamedFilter> ValueFilters() {
  return {
      {"default", DefaultFilter}, {"d", DefaultFilter}, {"attr", AttrFilter},   {"int", IntFilter},
      {"float", FloatFilter},     {"abs", AbsFilter},   {"round", RoundFilter},
  };
}

}  // namespace

absl::StatusOr<Value> ApplyFilter(const std::string& name, const Value& v, const CallArgs& a) {
  static const auto* const kFilters = [] {
    auto* filters = new absl::flat_hash_map<std::string, FilterFn>();
    for (const std::vector<NamedFilter>& group :
         {ValueFilters(), TextFilters(), SequenceFilters()}) {
      for (const NamedFilter& f : group) filters->emplace(f.name, f.fn);
    }
    return filters;
  }();
  auto it = kFilters->find(name);
  if (it == kFilters->end()) return Err(absl::StrCat("no filter named '", name, "'"));
  return it->second(v, a);
}

}  // namespace oxinfer::chat::jinja_internal
