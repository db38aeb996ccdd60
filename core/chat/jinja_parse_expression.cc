// Expressions by precedence: tuples, conditional expressions, or, and, not,
// comparisons, + -, ~, * / // %, **, unary - +.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/chat/jinja_parser.h"
#include "core/chat/jinja_status.h"
#include "oxinfer/sdk/status.hpp"

namespace oxinfer::chat::jinja_internal {

ExprPtr Parser::Make(Expr::Kind k, int line) {
  auto e = std::make_unique<Expr>();
  e->kind = k;
  e->line = line;
  return e;
}

// A comma-separated expression list becomes a tuple (as in {{ a, b }}).
absl::StatusOr<ExprPtr> Parser::ParseTuple(bool with_condexpr, bool explicit_parens) {
  int line = Cur().line;
  std::vector<ExprPtr> items;
  bool is_tuple = false;
  while (true) {
    if (!items.empty()) {
      if (!SkipOp(",")) break;
      is_tuple = true;
    }
    if (Cur().type == Tok::kBlockEnd || Cur().type == Tok::kVarEnd || IsOp(")") ||
        (!with_condexpr && IsName("if")) || IsName("recursive")) {
      break;
    }
    OXI_ASSIGN_OR_RETURN(auto e, ParseExpression(with_condexpr));
    items.push_back(std::move(e));
  }
  if (items.empty()) {
    if (explicit_parens) {
      auto t = Make(Expr::kTuple, line);
      return t;
    }
    return Unexpected("an expression");
  }
  if (!is_tuple) return std::move(items[0]);
  auto t = Make(Expr::kTuple, line);
  t->args = std::move(items);
  return t;
}

absl::StatusOr<ExprPtr> Parser::ParseExpression(bool with_condexpr) {
  if (!with_condexpr) return ParseOr();
  OXI_ASSIGN_OR_RETURN(auto e, ParseOr());
  while (IsName("if")) {
    int line = Cur().line;
    ++pos_;
    OXI_ASSIGN_OR_RETURN(auto cond, ParseOr());
    auto c = Make(Expr::kCond, line);
    c->args.push_back(std::move(cond));
    c->args.push_back(std::move(e));
    if (SkipName("else")) {
      OXI_ASSIGN_OR_RETURN(auto other, ParseExpression(true));
      c->args.push_back(std::move(other));
    } else {
      c->args.push_back(nullptr);
    }
    e = std::move(c);
  }
  return e;
}

absl::StatusOr<ExprPtr> Parser::ParseOr() {
  OXI_ASSIGN_OR_RETURN(auto e, ParseAnd());
  while (IsName("or")) {
    int line = Cur().line;
    ++pos_;
    OXI_ASSIGN_OR_RETURN(auto r, ParseAnd());
    auto n = Make(Expr::kOr, line);
    n->args.push_back(std::move(e));
    n->args.push_back(std::move(r));
    e = std::move(n);
  }
  return e;
}

absl::StatusOr<ExprPtr> Parser::ParseAnd() {
  OXI_ASSIGN_OR_RETURN(auto e, ParseNot());
  while (IsName("and")) {
    int line = Cur().line;
    ++pos_;
    OXI_ASSIGN_OR_RETURN(auto r, ParseNot());
    auto n = Make(Expr::kAnd, line);
    n->args.push_back(std::move(e));
    n->args.push_back(std::move(r));
    e = std::move(n);
  }
  return e;
}

absl::StatusOr<ExprPtr> Parser::ParseNot() {
  DepthGuard guard(this);
  if (depth_ > kMaxDepth) return LineError(Cur().line, "expression nested too deeply");
  if (IsName("not")) {
    int line = Cur().line;
    ++pos_;
    OXI_ASSIGN_OR_RETURN(auto x, ParseNot());
    auto n = Make(Expr::kNot, line);
    n->args.push_back(std::move(x));
    return n;
  }
  return ParseCompare();
}

absl::StatusOr<ExprPtr> Parser::ParseCompare() {
  int line = Cur().line;
  OXI_ASSIGN_OR_RETURN(auto e, ParseMath1());
  ExprPtr cmp;
  while (true) {
    std::string op;
    if (Cur().type == Tok::kOp && (Cur().text == "==" || Cur().text == "!=" || Cur().text == "<" ||
                                   Cur().text == ">" || Cur().text == "<=" || Cur().text == ">=")) {
      op = Cur().text;
      ++pos_;
    } else if (IsName("in")) {
      op = "in";
      ++pos_;
    } else if (IsName("not") && Peek().type == Tok::kName && Peek().text == "in") {
      op = "notin";
      pos_ += 2;
    } else {
      break;
    }
    OXI_ASSIGN_OR_RETURN(auto r, ParseMath1());
    if (!cmp) {
      cmp = Make(Expr::kCompare, line);
      cmp->args.push_back(std::move(e));
    }
    cmp->ops.push_back(op);
    cmp->args.push_back(std::move(r));
  }
  if (cmp) return cmp;
  return e;
}

absl::StatusOr<ExprPtr> Parser::Binary(ExprPtr l, std::string op, ExprPtr r, int line) {
  auto n = Make(Expr::kBinary, line);
  n->name = std::move(op);
  n->args.push_back(std::move(l));
  n->args.push_back(std::move(r));
  return n;
}

absl::StatusOr<ExprPtr> Parser::ParseMath1() {
  OXI_ASSIGN_OR_RETURN(auto e, ParseConcat());
  while (IsOp("+") || IsOp("-")) {
    std::string op = Cur().text;
    int line = Cur().line;
    ++pos_;
    OXI_ASSIGN_OR_RETURN(auto r, ParseConcat());
    OXI_ASSIGN_OR_RETURN(auto b, Binary(std::move(e), op, std::move(r), line));
    e = std::move(b);
  }
  return e;
}

absl::StatusOr<ExprPtr> Parser::ParseConcat() {
  int line = Cur().line;
  OXI_ASSIGN_OR_RETURN(auto e, ParseMath2());
  if (!IsOp("~")) return e;
  auto n = Make(Expr::kConcat, line);
  n->args.push_back(std::move(e));
  while (SkipOp("~")) {
    OXI_ASSIGN_OR_RETURN(auto r, ParseMath2());
    n->args.push_back(std::move(r));
  }
  return n;
}

absl::StatusOr<ExprPtr> Parser::ParseMath2() {
  OXI_ASSIGN_OR_RETURN(auto e, ParsePow());
  while (IsOp("*") || IsOp("/") || IsOp("//") || IsOp("%")) {
    std::string op = Cur().text;
    int line = Cur().line;
    ++pos_;
    OXI_ASSIGN_OR_RETURN(auto r, ParsePow());
    OXI_ASSIGN_OR_RETURN(auto b, Binary(std::move(e), op, std::move(r), line));
    e = std::move(b);
  }
  return e;
}

absl::StatusOr<ExprPtr> Parser::ParsePow() {
  OXI_ASSIGN_OR_RETURN(auto e, ParseUnary(true));
  while (IsOp("**")) {
    int line = Cur().line;
    ++pos_;
    OXI_ASSIGN_OR_RETURN(auto r, ParseUnary(true));
    OXI_ASSIGN_OR_RETURN(auto b, Binary(std::move(e), "**", std::move(r), line));
    e = std::move(b);
  }
  return e;
}

absl::StatusOr<ExprPtr> Parser::ParseUnary(bool with_filter) {
  DepthGuard guard(this);
  if (depth_ > kMaxDepth) return LineError(Cur().line, "expression nested too deeply");
  return ParseUnaryInner(with_filter);
}

absl::StatusOr<ExprPtr> Parser::ParseUnaryInner(bool with_filter) {
  int line = Cur().line;
  ExprPtr node;
  if (IsOp("-") || IsOp("+")) {
    bool neg = IsOp("-");
    ++pos_;
    OXI_ASSIGN_OR_RETURN(auto x, ParseUnary(false));
    node = Make(neg ? Expr::kNeg : Expr::kPos, line);
    node->args.push_back(std::move(x));
  } else {
    OXI_ASSIGN_OR_RETURN(auto p, ParsePrimary());
    node = std::move(p);
  }
  OXI_ASSIGN_OR_RETURN(auto post, ParsePostfix(std::move(node)));
  node = std::move(post);
  if (with_filter) {
    OXI_ASSIGN_OR_RETURN(auto f, ParseFilterExpr(std::move(node)));
    node = std::move(f);
  }
  return node;
}

}  // namespace oxinfer::chat::jinja_internal
