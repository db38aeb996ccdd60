#include "core/chat/jinja_is_tests.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/chat/jinja_ops.h"
#include "core/chat/jinja_pystr.h"
#include "core/chat/jinja_status.h"
#include "oxinfer/sdk/status.hpp"

namespace oxinfer::chat::jinja_internal {

absl::StatusOr<bool> ApplyTest(const std::string& name, const Value& v,
                               const std::vector<Value>& args) {
  auto arg0 = [&]() -> absl::StatusOr<Value> {
    if (args.empty()) return Err(absl::StrCat("test '", name, "' needs an argument"));
    return args[0];
  };
  if (name == "defined") return !v.is_undefined();
  if (name == "undefined") return v.is_undefined();
  if (name == "none") return v.is_none();
  if (name == "boolean") return v.is_bool();
  if (name == "true") return v.is_bool() && v.as_bool();
  if (name == "false") return v.is_bool() && !v.as_bool();
  if (name == "integer") return v.is_int();
  if (name == "float") return v.is_float();
  if (name == "number") return v.is_number();
  if (name == "string") return v.is_string();
  if (name == "mapping") return v.is_dict();
  if (name == "iterable") return v.is_undefined() || v.is_string() || v.is_array() || v.is_dict();
  if (name == "sequence") return v.is_undefined() || v.is_string() || v.is_array() || v.is_dict();
  if (name == "callable") return v.is_function();
  // Jinja2: str(value).islower() / isupper() (strings here; others are not
  // cased).
  if (name == "lower") return v.is_string() && PyIsClass("islower", v.as_string());
  if (name == "upper") return v.is_string() && PyIsClass("isupper", v.as_string());
  if (name == "escaped") return false;
  if (name == "even" || name == "odd") {
    if (!v.is_int()) return Err(absl::StrCat("test '", name, "' needs an integer"));
    bool even = v.as_int() % 2 == 0;
    return name == "even" ? even : !even;
  }
  if (name == "divisibleby") {
    OXI_ASSIGN_OR_RETURN(auto d, arg0());
    OXI_ASSIGN_OR_RETURN(auto m, Arith("%", v, d));
    return m.as_double() == 0;
  }
  if (name == "eq" || name == "equalto" || name == "==" || name == "sameas") {
    OXI_ASSIGN_OR_RETURN(auto o, arg0());
    if (name == "sameas" && (o.is_bool() || o.is_none() || v.is_bool() || v.is_none())) {
      return v.type() == o.type() && v.Equals(o);
    }
    return v.Equals(o);
  }
  if (name == "ne" || name == "!=") {
    OXI_ASSIGN_OR_RETURN(auto o, arg0());
    return !v.Equals(o);
  }
  if (name == "lt" || name == "lessthan" || name == "<" || name == "le" || name == "<=" ||
      name == "gt" || name == "greaterthan" || name == ">" || name == "ge" || name == ">=") {
    OXI_ASSIGN_OR_RETURN(auto o, arg0());
    OXI_ASSIGN_OR_RETURN(auto c, PyCompare(v, o));
    if (name == "lt" || name == "lessthan" || name == "<") return c < 0;
    if (name == "le" || name == "<=") return c <= 0;
    if (name == "gt" || name == "greaterthan" || name == ">") return c > 0;
    return c >= 0;
  }
  if (name == "in") {
    OXI_ASSIGN_OR_RETURN(auto o, arg0());
    return Contains(o, v);
  }
  return Err(absl::StrCat("no test named '", name, "'"));
}

}  // namespace oxinfer::chat::jinja_internal
