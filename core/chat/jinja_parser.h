// The Jinja parser: tokens to the syntax tree, by recursive descent with
// Jinja2's operator precedence. Statements are parsed in jinja_parser.cc,
// expressions in jinja_parse_expression.cc.
#ifndef OXINFER_CORE_CHAT_JINJA_PARSER_H_
#define OXINFER_CORE_CHAT_JINJA_PARSER_H_

#include <algorithm>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/chat/jinja_ast.h"
#include "core/chat/jinja_lexer.h"
#include "core/chat/value.h"
#include "core/limits.h"

namespace oxinfer::chat::jinja_internal {

class Parser {
 public:
  // `toks` ends with a kEof token (as Tokenize returns them).
  explicit Parser(std::vector<Token> toks) : toks_(std::move(toks)) {}

  absl::StatusOr<Body> ParseTemplate();

 private:
  // Token cursor.
  const Token& Cur() const { return toks_[pos_]; }
  const Token& Peek(int n = 1) const { return toks_[std::min(pos_ + n, toks_.size() - 1)]; }
  bool IsOp(absl::string_view op) const { return Cur().type == Tok::kOp && Cur().text == op; }
  bool IsName(absl::string_view n) const { return Cur().type == Tok::kName && Cur().text == n; }
  bool SkipOp(absl::string_view op);
  bool SkipName(absl::string_view n);
  std::string Describe(const Token& t) const;
  absl::Status Unexpected(absl::string_view expected) const;
  absl::Status ExpectOp(absl::string_view op);
  absl::Status ExpectBlockEnd(absl::string_view tag);
  absl::StatusOr<std::string> ExpectName();

  // Statements (jinja_parser.cc).
  absl::StatusOr<Body> ParseBody(const std::vector<std::string>& ends, std::string* found);
  absl::StatusOr<NodePtr> ParseStatement();
  absl::StatusOr<NodePtr> ParseIf(NodePtr n);
  absl::StatusOr<NodePtr> ParseFor(NodePtr n);
  absl::StatusOr<NodePtr> ParseSet(NodePtr n);
  absl::StatusOr<NodePtr> ParseMacro(NodePtr n);
  absl::StatusOr<NodePtr> ParseCallBlock(NodePtr n);
  absl::StatusOr<NodePtr> ParseFilterBlock(NodePtr n);
  absl::StatusOr<NodePtr> ParseScoped(NodePtr n, const std::string& name);
  absl::Status ParseTargets(std::vector<std::string>* targets);
  absl::Status ParseParams(std::vector<std::pair<std::string, ExprPtr>>* params);

  // Expressions, lowest precedence first (jinja_parse_expression.cc).
  ExprPtr Make(Expr::Kind k, int line);
  absl::StatusOr<ExprPtr> ParseTuple(bool with_condexpr, bool explicit_parens = false);
  absl::StatusOr<ExprPtr> ParseExpression(bool with_condexpr);
  absl::StatusOr<ExprPtr> ParseOr();
  absl::StatusOr<ExprPtr> ParseAnd();
  absl::StatusOr<ExprPtr> ParseNot();
  absl::StatusOr<ExprPtr> ParseCompare();
  absl::StatusOr<ExprPtr> Binary(ExprPtr l, std::string op, ExprPtr r, int line);
  absl::StatusOr<ExprPtr> ParseMath1();
  absl::StatusOr<ExprPtr> ParseConcat();
  absl::StatusOr<ExprPtr> ParseMath2();
  absl::StatusOr<ExprPtr> ParsePow();
  absl::StatusOr<ExprPtr> ParseUnary(bool with_filter);
  absl::StatusOr<ExprPtr> ParseUnaryInner(bool with_filter);
  absl::StatusOr<ExprPtr> ParsePrimary();
  absl::StatusOr<ExprPtr> Literal(Value v, int line);
  absl::StatusOr<ExprPtr> ParsePostfix(ExprPtr node);
  absl::Status ParseCallArgs(Expr* e);
  absl::StatusOr<ExprPtr> ParseFilterExpr(ExprPtr node);
  absl::StatusOr<ExprPtr> ParseFilterChain(ExprPtr subject, bool leading_pipe = true);

  // Bounds recursion so that hostile templates fail instead of overflowing
  // the stack.
  static constexpr int kMaxDepth = limits::kTemplateNestingDepth;
  struct DepthGuard {
    explicit DepthGuard(Parser* p) : p(p) { ++p->depth_; }
    ~DepthGuard() { --p->depth_; }
    Parser* p;
  };

  std::vector<Token> toks_;
  size_t pos_ = 0;
  int depth_ = 0;
  int loop_refs_ = 0;  // references to the name `loop` parsed so far
};

}  // namespace oxinfer::chat::jinja_internal

#endif  // OXINFER_CORE_CHAT_JINJA_PARSER_H_
