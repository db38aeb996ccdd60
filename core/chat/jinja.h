// A Jinja2 interpreter for chat templates.
//
// Covers what HuggingFace chat templates use, with the semantics of Python
// Jinja2 3.1 in the configuration transformers renders with
// (ImmutableSandboxedEnvironment, trim_blocks, lstrip_blocks, loopcontrols,
// its own `tojson`, `raise_exception`, `strftime_now`, `namespace`, `dict`):
//   - {{ }}, {% %}, {# #}, whitespace control with - and +, trim_blocks,
//     lstrip_blocks, one trailing newline of the source dropped;
//   - if/elif/else, for (targets unpacking, `if` filter, else, loop.*,
//     break/continue), set (also block set and namespace attributes),
//     macro (defaults, keyword arguments, caller), call, filter, raw,
//     generation (rendered as its body);
//   - expressions: literals (str, int, float, list, tuple, dict), attribute and
//     item access, slicing, calls, filters, tests, arithmetic, ~, comparisons,
//     in / not in, and / or / not, conditional expressions;
//   - Python methods of str, dict and list values that templates call.
// Values the template sees are Python-like (see value.h): output is Python's
// str() of the value, so `{{ 1.0 }}` prints "1.0" and `{{ none }}` "None".
//
// Errors (syntax, unknown filter, undefined attribute, raise_exception) are
// returned as absl::Status whose message starts with "line N:".
#ifndef OXINFER_CORE_CHAT_JINJA_H_
#define OXINFER_CORE_CHAT_JINJA_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/chat/value.h"
#include "core/limits.h"

namespace oxinfer::chat {

// The execution budget of one Render (docs/limits.md): exceeding it is a
// RESOURCE_EXHAUSTED error naming the limit, never a hang or a crash.
struct JinjaBudget {
  int64_t max_steps = limits::kTemplateSteps;  // statements and expressions
  size_t max_output_bytes = limits::kTemplateOutputBytes;
  int max_call_depth = limits::kTemplateCallDepth;
};

struct JinjaOptions {
  bool trim_blocks = true;
  bool lstrip_blocks = true;
  bool keep_trailing_newline = false;
  JinjaBudget budget;
};

class JinjaTemplate {
 public:
  // Parses `source`. Fails with the line and construct of a syntax error.
  static absl::StatusOr<JinjaTemplate> Parse(absl::string_view source,
                                             const JinjaOptions& options = {});

  // Renders with the variables of `context` (a dict). Built-in globals
  // (range, namespace, dict, raise_exception, strftime_now) are added unless
  // the context defines the same names.
  absl::StatusOr<std::string> Render(const Value& context) const;

  struct Program;

 private:
  explicit JinjaTemplate(std::shared_ptr<const Program> program) : program_(std::move(program)) {}
  std::shared_ptr<const Program> program_;
};

}  // namespace oxinfer::chat

#endif  // OXINFER_CORE_CHAT_JINJA_H_
