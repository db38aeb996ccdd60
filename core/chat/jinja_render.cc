// Statements: output, if, for, set, macro, call, filter blocks.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/chat/jinja_ops.h"
#include "core/chat/jinja_renderer.h"
#include "core/chat/jinja_status.h"
#include "oxinfer/sdk/status.hpp"

namespace oxinfer::chat::jinja_internal {
namespace {

// The `loop` object of iteration i.
Value MakeLoop(const std::vector<Value>& items, int64_t i) {
  int64_t len = static_cast<int64_t>(items.size());
  Value loop = Value::Loop();
  Object& o = loop.object();
  o.Set("index", Value(i + 1));
  o.Set("index0", Value(i));
  o.Set("revindex", Value(len - i));
  o.Set("revindex0", Value(len - i - 1));
  o.Set("first", Value(i == 0));
  o.Set("last", Value(i == len - 1));
  o.Set("length", Value(len));
  o.Set("depth", Value(int64_t{1}));
  o.Set("depth0", Value(int64_t{0}));
  if (i > 0) o.Set("previtem", items[i - 1]);
  if (i + 1 < len) o.Set("nextitem", items[i + 1]);
  o.Set("cycle", Value::Function("cycle", [i](const CallArgs& a) -> absl::StatusOr<Value> {
          if (a.args.empty()) return Err("loop.cycle() needs arguments");
          return a.args[i % a.args.size()];
        }));
  return loop;
}

}  // namespace

Renderer::~Renderer() {
  for (auto& c : closures_) c->reset();
  for (Value& ns : assigned_namespaces_) ns.object().Clear();
}

absl::Status Renderer::RenderBody(const Body& body, const ScopePtr& scope, std::string* out) {
  for (const NodePtr& n : body) {
    OXI_RETURN_IF_ERROR(RenderNode(*n, scope, out));
    if (flow_ != Flow::kNormal) return absl::OkStatus();
  }
  return absl::OkStatus();
}

absl::Status Renderer::RenderNode(const Node& n, const ScopePtr& scope, std::string* out) {
  OXI_RETURN_IF_ERROR(Step(n.line));
  OXI_RETURN_IF_ERROR(RenderNodeInner(n, scope, out));
  return CheckOutput(*out, n.line);
}

absl::Status Renderer::RenderNodeInner(const Node& n, const ScopePtr& scope, std::string* out) {
  switch (n.kind) {
    case Node::kText:
      out->append(n.text);
      return absl::OkStatus();
    case Node::kOutput: {
      OXI_ASSIGN_OR_RETURN(auto v, Eval(*n.expr, scope));
      out->append(v.Str());
      return absl::OkStatus();
    }
    case Node::kIf:
      for (size_t i = 0; i < n.conds.size(); ++i) {
        OXI_ASSIGN_OR_RETURN(auto c, Eval(*n.conds[i], scope));
        if (c.Truthy()) return RenderBody(n.bodies[i], scope, out);
      }
      return RenderBody(n.else_body, scope, out);
    case Node::kFor:
      return RenderFor(n, scope, out);
    case Node::kSet: {
      OXI_ASSIGN_OR_RETURN(auto v, Eval(*n.expr, scope));
      return Assign(n, scope, std::move(v));
    }
    case Node::kSetBlock: {
      std::string captured;
      OXI_RETURN_IF_ERROR(RenderBody(n.body, scope, &captured));
      Value v(captured);
      if (n.filter) {
        OXI_ASSIGN_OR_RETURN(auto f, EvalWithPipe(*n.filter, scope, v));
        v = f;
      }
      return Assign(n, scope, std::move(v));
    }
    case Node::kMacro:
      scope->vars[n.text] = MakeMacro(n, scope);
      return absl::OkStatus();
    case Node::kCallBlock: {
      Value caller = MakeMacro(n, scope);
      const Expr& call = *n.expr;
      OXI_ASSIGN_OR_RETURN(auto fn, Eval(*call.args[0], scope));
      OXI_ASSIGN_OR_RETURN(auto ca, EvalCallArgs(call, 1, scope));
      ca.kwargs.emplace_back("caller", caller);
      OXI_ASSIGN_OR_RETURN(auto r, CallValue(fn, ca, call.line));
      out->append(r.Str());
      return absl::OkStatus();
    }
    case Node::kFilterBlock: {
      std::string captured;
      OXI_RETURN_IF_ERROR(RenderBody(n.body, scope, &captured));
      OXI_ASSIGN_OR_RETURN(auto f, EvalWithPipe(*n.filter, scope, Value(captured)));
      out->append(f.Str());
      return absl::OkStatus();
    }
    case Node::kBreak:
      flow_ = Flow::kBreak;
      return absl::OkStatus();
    case Node::kContinue:
      flow_ = Flow::kContinue;
      return absl::OkStatus();
    case Node::kScoped: {
      ScopePtr inner = Child(scope);
      for (const auto& [k, e] : n.assigns) {
        OXI_ASSIGN_OR_RETURN(auto v, Eval(*e, scope));
        inner->vars[k] = v;
      }
      return RenderBody(n.body, n.assigns.empty() ? scope : inner, out);
    }
  }
  return absl::OkStatus();
}

absl::Status Renderer::Assign(const Node& n, const ScopePtr& scope, Value v) {
  if (!n.ns_attr.empty()) {
    const Value* ns = scope->Lookup(n.targets[0]);
    if (!ns || !ns->is_object() || ns->object_kind() != Value::ObjectKind::kNamespace) {
      return LineError(n.line, absl::StrCat("cannot assign attribute '", n.ns_attr, "' on '",
                                            n.targets[0], "': not a namespace"));
    }
    ns->object().Set(n.ns_attr, std::move(v));
    if (std::none_of(assigned_namespaces_.begin(), assigned_namespaces_.end(),
                     [&](const Value& a) { return &a.object() == &ns->object(); })) {
      assigned_namespaces_.push_back(*ns);
    }
    return absl::OkStatus();
  }
  if (n.targets.size() == 1) {
    scope->vars[n.targets[0]] = std::move(v);
    return absl::OkStatus();
  }
  auto items = Iterate(v);
  if (!items.ok()) return AtLine(items.status(), n.line);
  if (items->size() != n.targets.size()) {
    return LineError(n.line, absl::StrFormat("cannot unpack %d values into %d names", items->size(),
                                             n.targets.size()));
  }
  for (size_t i = 0; i < n.targets.size(); ++i) scope->vars[n.targets[i]] = (*items)[i];
  return absl::OkStatus();
}

absl::Status Renderer::BindTargets(const Node& n, const ScopePtr& scope, const Value& item) {
  if (n.targets.size() == 1) {
    scope->vars[n.targets[0]] = item;
    return absl::OkStatus();
  }
  auto parts = Iterate(item);
  if (!parts.ok()) return AtLine(parts.status(), n.line);
  if (parts->size() != n.targets.size()) {
    return LineError(n.line, absl::StrFormat("for loop: cannot unpack %d values into %d names",
                                             parts->size(), n.targets.size()));
  }
  for (size_t i = 0; i < n.targets.size(); ++i) scope->vars[n.targets[i]] = (*parts)[i];
  return absl::OkStatus();
}

absl::Status Renderer::RenderFor(const Node& n, const ScopePtr& scope, std::string* out) {
  OXI_ASSIGN_OR_RETURN(auto iterable, Eval(*n.expr, scope));
  auto items_or = Iterate(iterable);
  if (!items_or.ok()) return AtLine(items_or.status(), n.line);
  std::vector<Value> items = std::move(*items_or);
  if (n.filter) {
    std::vector<Value> kept;
    for (const Value& it : items) {
      ScopePtr s = Child(scope);
      OXI_RETURN_IF_ERROR(BindTargets(n, s, it));
      OXI_ASSIGN_OR_RETURN(auto c, Eval(*n.filter, s));
      if (c.Truthy()) kept.push_back(it);
    }
    items = std::move(kept);
  }
  if (items.empty()) return RenderBody(n.else_body, scope, out);
  int64_t len = static_cast<int64_t>(items.size());
  for (int64_t i = 0; i < len; ++i) {
    // An iteration is a step even when the body is empty.
    OXI_RETURN_IF_ERROR(Step(n.line));
    ScopePtr s = Child(scope);
    OXI_RETURN_IF_ERROR(BindTargets(n, s, items[i]));
    if (n.uses_loop) s->vars["loop"] = MakeLoop(items, i);
    OXI_RETURN_IF_ERROR(RenderBody(n.body, s, out));
    const bool stop = flow_ == Flow::kBreak;
    flow_ = Flow::kNormal;
    if (stop) break;
  }
  return absl::OkStatus();
}

Value Renderer::MakeMacro(const Node& n, const ScopePtr& defining_scope) {
  const Node* node = &n;
  Renderer* self = this;
  std::string name = n.kind == Node::kMacro ? n.text : "caller";
  // A macro stored in the scope it captures is a reference cycle; the
  // renderer releases every closure when rendering ends.
  auto closure = std::make_shared<ScopePtr>(defining_scope);
  closures_.push_back(closure);
  return Value::Function(
      name, [self, node, closure, name](const CallArgs& a) -> absl::StatusOr<Value> {
        if (!*closure) return Err(absl::StrCat("macro '", name, "' used after rendering"));
        ScopePtr s = Child(*closure);
        std::vector<Value> varargs;
        for (size_t i = 0; i < a.args.size(); ++i) {
          if (i < node->params.size()) {
            s->vars[node->params[i].first] = a.args[i];
          } else {
            varargs.push_back(a.args[i]);
          }
        }
        Value kwargs = Value::Dict();
        for (const auto& [k, v] : a.kwargs) {
          bool is_param = false;
          for (const auto& p : node->params) is_param |= p.first == k;
          if (is_param || k == "caller") {
            s->vars[k] = v;
          } else {
            kwargs.object().Set(k, v);
          }
        }
        for (const auto& p : node->params) {
          if (s->vars.count(p.first)) continue;
          if (p.second) {
            OXI_ASSIGN_OR_RETURN(auto d, self->Eval(*p.second, s));
            s->vars[p.first] = d;
          } else {
            s->vars[p.first] = Value::Undefined(
                absl::StrCat("parameter '", p.first, "' of macro '", name, "' was not provided"));
          }
        }
        s->vars["varargs"] = Value::Tuple(varargs);
        s->vars["kwargs"] = kwargs;
        if (++self->depth_ > self->budget_.max_call_depth) {
          --self->depth_;
          return LineError(node->line, absl::StrCat("macro '", name, "': recursion too deep"));
        }
        std::string out;
        Flow saved = self->flow_;
        self->flow_ = Flow::kNormal;
        absl::Status st = self->RenderBody(node->body, s, &out);
        self->flow_ = saved;
        --self->depth_;
        if (!st.ok()) return st;
        return Value(out);
      });
}

}  // namespace oxinfer::chat::jinja_internal
