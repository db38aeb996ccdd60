#include "core/chat/jinja.h"

#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "core/chat/jinja_ast.h"
#include "core/chat/jinja_globals.h"
#include "core/chat/jinja_lexer.h"
#include "core/chat/jinja_parser.h"
#include "core/chat/jinja_renderer.h"
#include "core/chat/jinja_scope.h"
#include "oxinfer/sdk/status.hpp"

namespace oxinfer::chat {

struct JinjaTemplate::Program {
  jinja_internal::Body body;
  JinjaBudget budget;
};

absl::StatusOr<JinjaTemplate> JinjaTemplate::Parse(absl::string_view source,
                                                   const JinjaOptions& options) {
  OXI_ASSIGN_OR_RETURN(auto tokens, jinja_internal::Tokenize(source, options));
  jinja_internal::Parser parser(std::move(tokens));
  OXI_ASSIGN_OR_RETURN(auto body, parser.ParseTemplate());
  auto program = std::make_shared<Program>();
  program->body = std::move(body);
  program->budget = options.budget;
  return JinjaTemplate(std::move(program));
}

absl::StatusOr<std::string> JinjaTemplate::Render(const Value& context) const {
  auto globals = std::make_shared<jinja_internal::Scope>();
  jinja_internal::AddGlobals(globals.get());
  if (context.is_dict()) {
    for (const auto& [k, v] : context.object().items()) globals->vars[k] = v;
  } else if (!context.is_undefined() && !context.is_none()) {
    return absl::InvalidArgumentError("render context must be a dict");
  }
  jinja_internal::ScopePtr top = jinja_internal::Child(globals);
  jinja_internal::Renderer r(program_->budget);
  std::string out;
  OXI_RETURN_IF_ERROR(r.RenderBody(program_->body, top, &out));
  return out;
}

}  // namespace oxinfer::chat
