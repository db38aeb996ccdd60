// Renders a parsed template: a tree walk over the statements
// (jinja_render.cc) that evaluates expressions on the way (jinja_eval.cc).
// One Renderer serves one Render call.
#ifndef OXINFER_CORE_CHAT_JINJA_RENDERER_H_
#define OXINFER_CORE_CHAT_JINJA_RENDERER_H_

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/chat/jinja.h"
#include "core/chat/jinja_ast.h"
#include "core/chat/jinja_scope.h"
#include "core/chat/value.h"

namespace oxinfer::chat::jinja_internal {

class Renderer {
 public:
  explicit Renderer(const JinjaBudget& budget) : budget_(budget) {}
  Renderer(const Renderer&) = delete;
  Renderer& operator=(const Renderer&) = delete;
  // Breaks the reference cycles of macros stored in the scopes they capture,
  // and of namespaces assigned into (`set ns.n = ns`, or a namespace holding a
  // macro that captures it): both can only be made during this render.
  ~Renderer();

  // Appends the output of `body` to *out.
  absl::Status RenderBody(const Body& body, const ScopePtr& scope, std::string* out);
  // Errors carry the line of the innermost failing expression.
  absl::StatusOr<Value> Eval(const Expr& e, const ScopePtr& scope);

 private:
  // RESOURCE_EXHAUSTED once the budget's steps are spent.
  absl::Status Step(int line);
  // RESOURCE_EXHAUSTED when a string or list built is larger than the
  // budget's output.
  absl::Status CheckSize(const Value& v, int line) const;
  absl::Status CheckOutput(const std::string& out, int line) const;

  // What the last statement asks of the enclosing loop.
  enum class Flow { kNormal, kBreak, kContinue };

  // Statements (jinja_render.cc).
  absl::Status RenderNode(const Node& n, const ScopePtr& scope, std::string* out);
  absl::Status RenderNodeInner(const Node& n, const ScopePtr& scope, std::string* out);
  absl::Status Assign(const Node& n, const ScopePtr& scope, Value v);
  absl::Status BindTargets(const Node& n, const ScopePtr& scope, const Value& item);
  absl::Status RenderFor(const Node& n, const ScopePtr& scope, std::string* out);
  // A macro, or the `caller` of a call block, as a callable value.
  Value MakeMacro(const Node& n, const ScopePtr& defining_scope);

  // Expressions (jinja_eval.cc).
  absl::StatusOr<Value> EvalInner(const Expr& e, const ScopePtr& scope);
  // Evaluates e.args[first..] and e.kwargs.
  absl::StatusOr<CallArgs> EvalCallArgs(const Expr& e, size_t first, const ScopePtr& scope);
  absl::StatusOr<Value> CallValue(const Value& fn, const CallArgs& ca, int line);
  // Evaluates a filter chain whose innermost subject is `input` (filter
  // blocks and {% set x | f %}).
  absl::StatusOr<Value> EvalWithPipe(const Expr& chain, const ScopePtr& scope, Value input);

  const JinjaBudget budget_;
  int64_t steps_ = 0;
  Flow flow_ = Flow::kNormal;
  const Value* pipe_input_ = nullptr;
  int depth_ = 0;  // macro calls in progress
  std::vector<std::shared_ptr<ScopePtr>> closures_;
  std::vector<Value> assigned_namespaces_;
};

}  // namespace oxinfer::chat::jinja_internal

#endif  // OXINFER_CORE_CHAT_JINJA_RENDERER_H_
