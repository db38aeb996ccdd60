#include "core/chat/jinja_parser.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/chat/jinja_status.h"
#include "oxinfer/sdk/status.hpp"

namespace oxinfer::chat::jinja_internal {

absl::StatusOr<Body> Parser::ParseTemplate() {
  std::string end;
  OXI_ASSIGN_OR_RETURN(auto body, ParseBody({}, &end));
  if (!end.empty()) return LineError(Cur().line, absl::StrCat("unexpected '", end, "'"));
  return body;
}

bool Parser::SkipOp(absl::string_view op) {
  if (IsOp(op)) {
    ++pos_;
    return true;
  }
  return false;
}

bool Parser::SkipName(absl::string_view n) {
  if (IsName(n)) {
    ++pos_;
    return true;
  }
  return false;
}

std::string Parser::Describe(const Token& t) const {
  switch (t.type) {
    case Tok::kText:
      return "template text";
    case Tok::kVarBegin:
      return "'{{'";
    case Tok::kVarEnd:
      return "'}}'";
    case Tok::kBlockBegin:
      return "'{%'";
    case Tok::kBlockEnd:
      return "'%}'";
    case Tok::kEof:
      return "end of template";
    case Tok::kString:
      return "string literal";
    default:
      return absl::StrCat("'", t.text, "'");
  }
}

absl::Status Parser::Unexpected(absl::string_view expected) const {
  return LineError(Cur().line,
                   absl::StrCat("syntax error: expected ", expected, ", got ", Describe(Cur())));
}

absl::Status Parser::ExpectOp(absl::string_view op) {
  if (!SkipOp(op)) return Unexpected(absl::StrCat("'", op, "'"));
  return absl::OkStatus();
}

absl::Status Parser::ExpectBlockEnd(absl::string_view tag) {
  if (Cur().type != Tok::kBlockEnd) {
    return Unexpected(absl::StrCat("end of '", tag, "' tag"));
  }
  ++pos_;
  return absl::OkStatus();
}

absl::StatusOr<std::string> Parser::ExpectName() {
  if (Cur().type != Tok::kName) return Unexpected("a name");
  return toks_[pos_++].text;
}

// Parses nodes until a block tag whose name is in `ends`; leaves the cursor
// after that name and reports it in *found.
absl::StatusOr<Body> Parser::ParseBody(const std::vector<std::string>& ends, std::string* found) {
  Body body;
  found->clear();
  while (true) {
    const Token& t = Cur();
    if (t.type == Tok::kEof) {
      if (!ends.empty()) {
        return LineError(t.line, absl::StrCat("unexpected end of template, expected '",
                                              absl::StrJoin(ends, "' or '"), "'"));
      }
      return body;
    }
    if (t.type == Tok::kText) {
      auto n = std::make_unique<Node>();
      n->kind = Node::kText;
      n->line = t.line;
      n->text = t.text;
      body.push_back(std::move(n));
      ++pos_;
      continue;
    }
    if (t.type == Tok::kVarBegin) {
      ++pos_;
      auto n = std::make_unique<Node>();
      n->kind = Node::kOutput;
      n->line = t.line;
      OXI_ASSIGN_OR_RETURN(auto e, ParseTuple(true));
      n->expr = std::move(e);
      if (Cur().type != Tok::kVarEnd) return Unexpected("'}}'");
      ++pos_;
      body.push_back(std::move(n));
      continue;
    }
    if (t.type == Tok::kBlockBegin) {
      ++pos_;
      if (Cur().type != Tok::kName) return Unexpected("a statement name");
      std::string name = Cur().text;
      for (const auto& e : ends) {
        if (name == e) {
          ++pos_;
          *found = name;
          return body;
        }
      }
      OXI_ASSIGN_OR_RETURN(auto node, ParseStatement());
      body.push_back(std::move(node));
      continue;
    }
    return Unexpected("template data");
  }
}

absl::StatusOr<NodePtr> Parser::ParseStatement() {
  DepthGuard guard(this);
  if (depth_ > kMaxDepth) return LineError(Cur().line, "blocks nested too deeply");
  const Token& t = Cur();
  int line = t.line;
  std::string name = t.text;
  ++pos_;
  auto n = std::make_unique<Node>();
  n->line = line;
  if (name == "if") return ParseIf(std::move(n));
  if (name == "for") return ParseFor(std::move(n));
  if (name == "set") return ParseSet(std::move(n));
  if (name == "macro") return ParseMacro(std::move(n));
  if (name == "call") return ParseCallBlock(std::move(n));
  if (name == "filter") return ParseFilterBlock(std::move(n));
  if (name == "break" || name == "continue") {
    n->kind = name == "break" ? Node::kBreak : Node::kContinue;
    OXI_RETURN_IF_ERROR(ExpectBlockEnd(name));
    return n;
  }
  if (name == "generation" || name == "with") return ParseScoped(std::move(n), name);
  return LineError(line, absl::StrCat("unknown tag '", name, "'"));
}

absl::StatusOr<NodePtr> Parser::ParseIf(NodePtr n) {
  std::string found;
  n->kind = Node::kIf;
  while (true) {
    OXI_ASSIGN_OR_RETURN(auto cond, ParseTuple(true));
    OXI_RETURN_IF_ERROR(ExpectBlockEnd("if"));
    OXI_ASSIGN_OR_RETURN(auto body, ParseBody({"elif", "else", "endif"}, &found));
    n->conds.push_back(std::move(cond));
    n->bodies.push_back(std::move(body));
    if (found == "elif") continue;
    if (found == "else") {
      OXI_RETURN_IF_ERROR(ExpectBlockEnd("else"));
      OXI_ASSIGN_OR_RETURN(auto eb, ParseBody({"endif"}, &found));
      n->else_body = std::move(eb);
    }
    OXI_RETURN_IF_ERROR(ExpectBlockEnd("endif"));
    return n;
  }
}

absl::StatusOr<NodePtr> Parser::ParseFor(NodePtr n) {
  std::string found;
  n->kind = Node::kFor;
  OXI_RETURN_IF_ERROR(ParseTargets(&n->targets));
  if (!SkipName("in")) return Unexpected("'in'");
  OXI_ASSIGN_OR_RETURN(auto iter, ParseTuple(false));
  n->expr = std::move(iter);
  if (SkipName("if")) {
    OXI_ASSIGN_OR_RETURN(auto f, ParseExpression(true));
    n->filter = std::move(f);
  }
  if (SkipName("recursive")) return LineError(n->line, "recursive for loops are not supported");
  OXI_RETURN_IF_ERROR(ExpectBlockEnd("for"));
  int loop_refs_before = loop_refs_;
  OXI_ASSIGN_OR_RETURN(auto body, ParseBody({"endfor", "else"}, &found));
  n->uses_loop = loop_refs_ != loop_refs_before;
  n->body = std::move(body);
  if (found == "else") {
    OXI_RETURN_IF_ERROR(ExpectBlockEnd("else"));
    OXI_ASSIGN_OR_RETURN(auto eb, ParseBody({"endfor"}, &found));
    n->else_body = std::move(eb);
  }
  OXI_RETURN_IF_ERROR(ExpectBlockEnd("endfor"));
  return n;
}

// {% set x = v %}, {% set a, b = v %}, {% set ns.attr = v %}, or the block
// form {% set x | filters %}...{% endset %}.
absl::StatusOr<NodePtr> Parser::ParseSet(NodePtr n) {
  std::string found;
  if (Cur().type == Tok::kName && Peek().type == Tok::kOp && Peek().text == ".") {
    n->targets.push_back(Cur().text);
    pos_ += 2;
    OXI_ASSIGN_OR_RETURN(auto attr, ExpectName());
    n->ns_attr = attr;
  } else {
    OXI_RETURN_IF_ERROR(ParseTargets(&n->targets));
  }
  if (SkipOp("=")) {
    n->kind = Node::kSet;
    OXI_ASSIGN_OR_RETURN(auto v, ParseTuple(true));
    n->expr = std::move(v);
    OXI_RETURN_IF_ERROR(ExpectBlockEnd("set"));
    return n;
  }
  n->kind = Node::kSetBlock;
  if (IsOp("|")) {
    OXI_ASSIGN_OR_RETURN(auto f, ParseFilterChain(nullptr));
    n->filter = std::move(f);
  }
  OXI_RETURN_IF_ERROR(ExpectBlockEnd("set"));
  OXI_ASSIGN_OR_RETURN(auto body, ParseBody({"endset"}, &found));
  n->body = std::move(body);
  OXI_RETURN_IF_ERROR(ExpectBlockEnd("endset"));
  return n;
}

absl::StatusOr<NodePtr> Parser::ParseMacro(NodePtr n) {
  std::string found;
  n->kind = Node::kMacro;
  OXI_ASSIGN_OR_RETURN(auto mname, ExpectName());
  n->text = mname;
  OXI_RETURN_IF_ERROR(ParseParams(&n->params));
  OXI_RETURN_IF_ERROR(ExpectBlockEnd("macro"));
  OXI_ASSIGN_OR_RETURN(auto body, ParseBody({"endmacro"}, &found));
  n->body = std::move(body);
  if (Cur().type == Tok::kName) ++pos_;  // {% endmacro name %}
  OXI_RETURN_IF_ERROR(ExpectBlockEnd("endmacro"));
  return n;
}

absl::StatusOr<NodePtr> Parser::ParseCallBlock(NodePtr n) {
  std::string found;
  n->kind = Node::kCallBlock;
  if (IsOp("(")) OXI_RETURN_IF_ERROR(ParseParams(&n->params));
  OXI_ASSIGN_OR_RETURN(auto call, ParseExpression(true));
  if (call->kind != Expr::kCall) return LineError(n->line, "expected a call in 'call' block");
  n->expr = std::move(call);
  OXI_RETURN_IF_ERROR(ExpectBlockEnd("call"));
  OXI_ASSIGN_OR_RETURN(auto body, ParseBody({"endcall"}, &found));
  n->body = std::move(body);
  OXI_RETURN_IF_ERROR(ExpectBlockEnd("endcall"));
  return n;
}

absl::StatusOr<NodePtr> Parser::ParseFilterBlock(NodePtr n) {
  std::string found;
  n->kind = Node::kFilterBlock;
  OXI_ASSIGN_OR_RETURN(auto f, ParseFilterChain(nullptr, /*leading_pipe=*/false));
  n->filter = std::move(f);
  OXI_RETURN_IF_ERROR(ExpectBlockEnd("filter"));
  OXI_ASSIGN_OR_RETURN(auto body, ParseBody({"endfilter"}, &found));
  n->body = std::move(body);
  OXI_RETURN_IF_ERROR(ExpectBlockEnd("endfilter"));
  return n;
}

// {% generation %} and {% with a = x, ... %}: a body rendered in place.
absl::StatusOr<NodePtr> Parser::ParseScoped(NodePtr n, const std::string& name) {
  std::string found;
  n->kind = Node::kScoped;
  if (name == "with") {
    while (Cur().type == Tok::kName) {
      std::string var = Cur().text;
      ++pos_;
      OXI_RETURN_IF_ERROR(ExpectOp("="));
      OXI_ASSIGN_OR_RETURN(auto v, ParseExpression(true));
      n->assigns.emplace_back(var, std::move(v));
      if (!SkipOp(",")) break;
    }
  }
  OXI_RETURN_IF_ERROR(ExpectBlockEnd(name));
  OXI_ASSIGN_OR_RETURN(auto body, ParseBody({"end" + name}, &found));
  n->body = std::move(body);
  OXI_RETURN_IF_ERROR(ExpectBlockEnd("end" + name));
  return n;
}

absl::Status Parser::ParseTargets(std::vector<std::string>* targets) {
  bool paren = SkipOp("(");
  while (true) {
    OXI_ASSIGN_OR_RETURN(auto name, ExpectName());
    targets->push_back(name);
    if (!SkipOp(",")) break;
    if (Cur().type != Tok::kName) break;
  }
  if (paren) OXI_RETURN_IF_ERROR(ExpectOp(")"));
  return absl::OkStatus();
}

absl::Status Parser::ParseParams(std::vector<std::pair<std::string, ExprPtr>>* params) {
  OXI_RETURN_IF_ERROR(ExpectOp("("));
  while (!IsOp(")")) {
    OXI_ASSIGN_OR_RETURN(auto pname, ExpectName());
    ExprPtr def;
    if (SkipOp("=")) {
      OXI_ASSIGN_OR_RETURN(auto d, ParseExpression(true));
      def = std::move(d);
    }
    params->emplace_back(pname, std::move(def));
    if (!SkipOp(",")) break;
  }
  return ExpectOp(")");
}

}  // namespace oxinfer::chat::jinja_internal
