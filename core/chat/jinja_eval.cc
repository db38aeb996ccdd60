// Expressions: names, lookups, calls, filters, tests and operators.
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/chat/jinja_filters.h"
#include "core/chat/jinja_is_tests.h"
#include "core/chat/jinja_ops.h"
#include "core/chat/jinja_renderer.h"
#include "core/chat/jinja_status.h"
#include "core/limits.h"
#include "oxinfer/sdk/status.hpp"

namespace oxinfer::chat::jinja_internal {

absl::Status Renderer::Step(int line) {
  if (++steps_ <= budget_.max_steps) return absl::OkStatus();
  return absl::ResourceExhaustedError(absl::StrFormat(
      "line %d: the template ran more than its budget of %d steps", line, budget_.max_steps));
}

absl::Status Renderer::CheckSize(const Value& v, int line) const {
  if (v.is_string() && v.as_string().size() > budget_.max_output_bytes) {
    return absl::ResourceExhaustedError(
        absl::StrFormat("line %d: the template built a string of %d bytes, more than its budget "
                        "of %d bytes",
                        line, v.as_string().size(), budget_.max_output_bytes));
  }
  if (v.is_array() && v.array().size() > limits::kTemplateListItems) {
    return absl::ResourceExhaustedError(absl::StrFormat(
        "line %d: the template built a list of %d items, more than its budget of %d", line,
        v.array().size(), limits::kTemplateListItems));
  }
  return absl::OkStatus();
}

absl::Status Renderer::CheckOutput(const std::string& out, int line) const {
  if (out.size() <= budget_.max_output_bytes) return absl::OkStatus();
  return absl::ResourceExhaustedError(
      absl::StrFormat("line %d: the template's output is more than its budget of %d bytes", line,
                      budget_.max_output_bytes));
}

absl::StatusOr<Value> Renderer::Eval(const Expr& e, const ScopePtr& scope) {
  OXI_RETURN_IF_ERROR(Step(e.line));
  auto r = EvalInner(e, scope);
  if (!r.ok()) return AtLine(r.status(), e.line);
  OXI_RETURN_IF_ERROR(CheckSize(*r, e.line));
  return r;
}

absl::StatusOr<CallArgs> Renderer::EvalCallArgs(const Expr& e, size_t first,
                                                const ScopePtr& scope) {
  CallArgs ca;
  for (size_t i = first; i < e.args.size(); ++i) {
    OXI_ASSIGN_OR_RETURN(auto v, Eval(*e.args[i], scope));
    ca.args.push_back(std::move(v));
  }
  for (const auto& [k, ex] : e.kwargs) {
    OXI_ASSIGN_OR_RETURN(auto v, Eval(*ex, scope));
    ca.kwargs.emplace_back(k, std::move(v));
  }
  return ca;
}

absl::StatusOr<Value> Renderer::CallValue(const Value& fn, const CallArgs& ca, int line) {
  if (!fn.is_function()) {
    if (fn.is_undefined()) {
      return LineError(line, fn.undefined_hint().empty()
                                 ? "call of an undefined value"
                                 : absl::StrCat(fn.undefined_hint(), " (called)"));
    }
    return LineError(line, absl::StrCat("'", fn.TypeName(), "' object is not callable"));
  }
  auto r = fn.function()(ca);
  if (!r.ok()) return AtLine(r.status(), line);
  return r;
}

absl::StatusOr<Value> Renderer::EvalWithPipe(const Expr& chain, const ScopePtr& scope,
                                             Value input) {
  const Value* saved = pipe_input_;
  pipe_input_ = &input;
  auto r = Eval(chain, scope);
  pipe_input_ = saved;
  return r;
}

absl::StatusOr<Value> Renderer::EvalInner(const Expr& e, const ScopePtr& scope) {
  switch (e.kind) {
    case Expr::kLiteral:
      return e.literal;
    case Expr::kName: {
      const Value* v = scope->Lookup(e.name);
      if (v) return *v;
      return Value::Undefined(absl::StrCat("'", e.name, "' is undefined"));
    }
    case Expr::kGetAttr: {
      OXI_ASSIGN_OR_RETURN(auto obj, Eval(*e.args[0], scope));
      return GetAttr(obj, e.name);
    }
    case Expr::kGetItem: {
      OXI_ASSIGN_OR_RETURN(auto obj, Eval(*e.args[0], scope));
      OXI_ASSIGN_OR_RETURN(auto key, Eval(*e.args[1], scope));
      return GetItem(obj, key);
    }
    case Expr::kSlice: {
      OXI_ASSIGN_OR_RETURN(auto obj, Eval(*e.args[0], scope));
      Value parts[3];
      const Value* ptrs[3] = {nullptr, nullptr, nullptr};
      for (int i = 0; i < 3; ++i) {
        if (e.args[i + 1]) {
          OXI_ASSIGN_OR_RETURN(auto p, Eval(*e.args[i + 1], scope));
          parts[i] = p;
          ptrs[i] = &parts[i];
        }
      }
      return Slice(obj, ptrs[0], ptrs[1], ptrs[2]);
    }
    case Expr::kCall: {
      OXI_ASSIGN_OR_RETURN(auto fn, Eval(*e.args[0], scope));
      OXI_ASSIGN_OR_RETURN(auto ca, EvalCallArgs(e, 1, scope));
      return CallValue(fn, ca, e.line);
    }
    case Expr::kFilter: {
      Value subject;
      if (e.args[0]) {
        OXI_ASSIGN_OR_RETURN(auto s, Eval(*e.args[0], scope));
        subject = s;
      } else if (pipe_input_) {
        subject = *pipe_input_;
      }
      OXI_ASSIGN_OR_RETURN(auto ca, EvalCallArgs(e, 1, scope));
      auto r = ApplyFilter(e.name, subject, ca);
      if (!r.ok()) {
        return LineError(e.line, absl::StrCat("filter '", e.name, "': ", r.status().message()));
      }
      return r;
    }
    case Expr::kTest: {
      OXI_ASSIGN_OR_RETURN(auto subject, Eval(*e.args[0], scope));
      OXI_ASSIGN_OR_RETURN(auto ca, EvalCallArgs(e, 1, scope));
      auto r = ApplyTest(e.name, subject, ca.args);
      if (!r.ok()) {
        return LineError(e.line, absl::StrCat("test '", e.name, "': ", r.status().message()));
      }
      return Value(*r);
    }
    case Expr::kNot: {
      OXI_ASSIGN_OR_RETURN(auto v, Eval(*e.args[0], scope));
      return Value(!v.Truthy());
    }
    case Expr::kNeg:
    case Expr::kPos: {
      OXI_ASSIGN_OR_RETURN(auto v, Eval(*e.args[0], scope));
      if (!v.is_number())
        return Err(absl::StrCat("bad operand type for unary -: '", v.TypeName(), "'"));
      if (e.kind == Expr::kPos) return v.is_bool() ? Value(v.as_int()) : v;
      if (v.is_float()) return Value(-v.as_float());
      return Arith("-", Value(int64_t{0}), v);  // -INT64_MIN and big ints exactly
    }
    case Expr::kBinary: {
      OXI_ASSIGN_OR_RETURN(auto l, Eval(*e.args[0], scope));
      OXI_ASSIGN_OR_RETURN(auto r, Eval(*e.args[1], scope));
      return Arith(e.name, l, r);
    }
    case Expr::kConcat: {
      std::string s;
      for (const auto& a : e.args) {
        OXI_ASSIGN_OR_RETURN(auto v, Eval(*a, scope));
        s += v.Str();
      }
      return Value(s);
    }
    case Expr::kCompare: {
      OXI_ASSIGN_OR_RETURN(auto left, Eval(*e.args[0], scope));
      for (size_t i = 0; i < e.ops.size(); ++i) {
        OXI_ASSIGN_OR_RETURN(auto right, Eval(*e.args[i + 1], scope));
        OXI_ASSIGN_OR_RETURN(auto holds, Compare(e.ops[i], left, right));
        if (!holds) return Value(false);
        left = right;
      }
      return Value(true);
    }
    case Expr::kAnd: {
      OXI_ASSIGN_OR_RETURN(auto l, Eval(*e.args[0], scope));
      if (!l.Truthy()) return l;
      return Eval(*e.args[1], scope);
    }
    case Expr::kOr: {
      OXI_ASSIGN_OR_RETURN(auto l, Eval(*e.args[0], scope));
      if (l.Truthy()) return l;
      return Eval(*e.args[1], scope);
    }
    case Expr::kCond: {
      OXI_ASSIGN_OR_RETURN(auto c, Eval(*e.args[0], scope));
      if (c.Truthy()) return Eval(*e.args[1], scope);
      if (e.args[2]) return Eval(*e.args[2], scope);
      return Value::Undefined("conditional expression without else");
    }
    case Expr::kList:
    case Expr::kTuple: {
      std::vector<Value> items;
      for (const auto& a : e.args) {
        OXI_ASSIGN_OR_RETURN(auto v, Eval(*a, scope));
        items.push_back(std::move(v));
      }
      return e.kind == Expr::kTuple ? Value::Tuple(std::move(items))
                                    : Value::Array(std::move(items));
    }
    case Expr::kDict: {
      Value d = Value::Dict();
      for (size_t i = 0; i + 1 < e.args.size(); i += 2) {
        OXI_ASSIGN_OR_RETURN(auto k, Eval(*e.args[i], scope));
        OXI_ASSIGN_OR_RETURN(auto v, Eval(*e.args[i + 1], scope));
        if (!k.is_string()) return Err("dict keys must be strings");
        d.object().Set(k.as_string(), std::move(v));
      }
      return d;
    }
  }
  return Err("bad expression");
}

}  // namespace oxinfer::chat::jinja_internal
