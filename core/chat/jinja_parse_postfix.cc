// Primary expressions (names, literals, parenthesized, lists, dicts) and what
// follows them: .attr, [item], [slices], calls, | filters and `is` tests.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/chat/jinja_parser.h"
#include "core/chat/jinja_status.h"
#include "core/limits.h"
#include "oxinfer/sdk/status.hpp"

namespace oxinfer::chat::jinja_internal {

absl::StatusOr<ExprPtr> Parser::ParsePrimary() {
  const Token& t = Cur();
  int line = t.line;
  if (t.type == Tok::kName) {
    ++pos_;
    if (t.text == "true" || t.text == "True") return Literal(Value(true), line);
    if (t.text == "false" || t.text == "False") return Literal(Value(false), line);
    if (t.text == "none" || t.text == "None") return Literal(Value::None(), line);
    auto n = Make(Expr::kName, line);
    n->name = t.text;
    if (n->name == "loop") ++loop_refs_;
    return n;
  }
  if (t.type == Tok::kString) {
    std::string s = t.text;
    ++pos_;
    while (Cur().type == Tok::kString) {
      s += Cur().text;
      ++pos_;
    }
    return Literal(Value(std::move(s)), line);
  }
  if (t.type == Tok::kInt) {
    ++pos_;
    // Beyond 64 bits: exact, as Python reads it, within the digit limit.
    size_t zeros = 0;
    while (zeros + 1 < t.text.size() && t.text[zeros] == '0') ++zeros;
    const std::string digits = t.text.substr(zeros);
    if (digits.size() > limits::kTemplateIntegerDigits) {
      return absl::ResourceExhaustedError(absl::StrCat("line ", line,
                                                       ": an integer literal of more than ",
                                                       limits::kTemplateIntegerDigits, " digits"));
    }
    return Literal(Value::BigInt(digits), line);
  }
  if (t.type == Tok::kFloat) {
    ++pos_;
    return Literal(Value(t.fval), line);
  }
  if (SkipOp("(")) {
    OXI_ASSIGN_OR_RETURN(auto e, ParseTuple(true, true));
    OXI_RETURN_IF_ERROR(ExpectOp(")"));
    return e;
  }
  if (SkipOp("[")) {
    auto n = Make(Expr::kList, line);
    while (!IsOp("]")) {
      OXI_ASSIGN_OR_RETURN(auto e, ParseExpression(true));
      n->args.push_back(std::move(e));
      if (!SkipOp(",")) break;
    }
    OXI_RETURN_IF_ERROR(ExpectOp("]"));
    return n;
  }
  if (SkipOp("{")) {
    auto n = Make(Expr::kDict, line);
    while (!IsOp("}")) {
      OXI_ASSIGN_OR_RETURN(auto k, ParseExpression(true));
      OXI_RETURN_IF_ERROR(ExpectOp(":"));
      OXI_ASSIGN_OR_RETURN(auto v, ParseExpression(true));
      n->args.push_back(std::move(k));
      n->args.push_back(std::move(v));
      if (!SkipOp(",")) break;
    }
    OXI_RETURN_IF_ERROR(ExpectOp("}"));
    return n;
  }
  return Unexpected("an expression");
}

absl::StatusOr<ExprPtr> Parser::Literal(Value v, int line) {
  auto n = Make(Expr::kLiteral, line);
  n->literal = std::move(v);
  return n;
}

absl::StatusOr<ExprPtr> Parser::ParsePostfix(ExprPtr node) {
  // Each postfix nests the tree one level: bounded like recursion.
  for (int chain = 0;; ++chain) {
    int line = Cur().line;
    if (chain > kMaxDepth) return LineError(line, "expression nested too deeply");
    if (IsOp(".")) {
      ++pos_;
      if (Cur().type == Tok::kName) {
        auto n = Make(Expr::kGetAttr, line);
        n->name = Cur().text;
        ++pos_;
        n->args.push_back(std::move(node));
        node = std::move(n);
      } else if (Cur().type == Tok::kInt) {
        auto n = Make(Expr::kGetItem, line);
        n->args.push_back(std::move(node));
        OXI_ASSIGN_OR_RETURN(auto idx, Literal(Value(Cur().ival), line));
        n->args.push_back(std::move(idx));
        ++pos_;
        node = std::move(n);
      } else {
        return Unexpected("an attribute name");
      }
    } else if (IsOp("[")) {
      ++pos_;
      ExprPtr parts[3];
      bool is_slice = false;
      for (int i = 0; i < 3; ++i) {
        if (!IsOp(":") && !IsOp("]")) {
          OXI_ASSIGN_OR_RETURN(auto e, ParseExpression(true));
          parts[i] = std::move(e);
        }
        if (i < 2 && SkipOp(":")) {
          is_slice = true;
          continue;
        }
        break;
      }
      OXI_RETURN_IF_ERROR(ExpectOp("]"));
      if (is_slice) {
        auto n = Make(Expr::kSlice, line);
        n->args.push_back(std::move(node));
        for (auto& p : parts) n->args.push_back(std::move(p));
        node = std::move(n);
      } else {
        if (!parts[0]) return LineError(line, "syntax error: empty subscript");
        auto n = Make(Expr::kGetItem, line);
        n->args.push_back(std::move(node));
        n->args.push_back(std::move(parts[0]));
        node = std::move(n);
      }
    } else if (IsOp("(")) {
      auto n = Make(Expr::kCall, line);
      n->args.push_back(std::move(node));
      OXI_RETURN_IF_ERROR(ParseCallArgs(n.get()));
      node = std::move(n);
    } else {
      return node;
    }
  }
}

// Parses "(a, b, k=v)" into e->args (appended) and e->kwargs.
absl::Status Parser::ParseCallArgs(Expr* e) {
  OXI_RETURN_IF_ERROR(ExpectOp("("));
  while (!IsOp(")")) {
    if (Cur().type == Tok::kName && Peek().type == Tok::kOp && Peek().text == "=") {
      std::string k = Cur().text;
      pos_ += 2;
      OXI_ASSIGN_OR_RETURN(auto v, ParseExpression(true));
      e->kwargs.emplace_back(k, std::move(v));
    } else {
      if (IsOp("*") || IsOp("**")) {
        return LineError(Cur().line, "*args / **kwargs in calls are not supported");
      }
      OXI_ASSIGN_OR_RETURN(auto v, ParseExpression(true));
      e->args.push_back(std::move(v));
    }
    if (!SkipOp(",")) break;
  }
  return ExpectOp(")");
}

absl::StatusOr<ExprPtr> Parser::ParseFilterExpr(ExprPtr node) {
  while (true) {
    if (IsOp("|")) {
      OXI_ASSIGN_OR_RETURN(auto f, ParseFilterChain(std::move(node)));
      node = std::move(f);
    } else if (IsName("is")) {
      int line = Cur().line;
      ++pos_;
      bool negated = SkipName("not");
      auto t = Make(Expr::kTest, line);
      // Test names may be keywords like "none", "true", "in".
      if (Cur().type != Tok::kName) {
        if (IsOp("==") || IsOp("!=") || IsOp("<") || IsOp(">") || IsOp("<=") || IsOp(">=")) {
          t->name = Cur().text;
          ++pos_;
        } else {
          return Unexpected("a test name");
        }
      } else {
        t->name = Cur().text;
        ++pos_;
      }
      t->args.push_back(std::move(node));
      if (IsOp("(")) {
        OXI_RETURN_IF_ERROR(ParseCallArgs(t.get()));
      } else if ((Cur().type == Tok::kName || Cur().type == Tok::kString ||
                  Cur().type == Tok::kInt || Cur().type == Tok::kFloat || IsOp("[") || IsOp("{")) &&
                 !IsName("else") && !IsName("or") && !IsName("and") && !IsName("if")) {
        OXI_ASSIGN_OR_RETURN(auto arg, ParsePrimary());
        OXI_ASSIGN_OR_RETURN(auto arg2, ParsePostfix(std::move(arg)));
        t->args.push_back(std::move(arg2));
      }
      node = std::move(t);
      if (negated) {
        auto n = Make(Expr::kNot, line);
        n->args.push_back(std::move(node));
        node = std::move(n);
      }
    } else if (IsOp("(") || IsOp("[") || IsOp(".")) {
      OXI_ASSIGN_OR_RETURN(auto p, ParsePostfix(std::move(node)));
      node = std::move(p);
    } else {
      return node;
    }
  }
}

// Parses one or more "| name(args)"; subject may be null (filter blocks).
absl::StatusOr<ExprPtr> Parser::ParseFilterChain(ExprPtr subject, bool leading_pipe) {
  bool first = true;
  for (int chain = 0;; ++chain) {
    if (chain > kMaxDepth) return LineError(Cur().line, "expression nested too deeply");
    if (leading_pipe || !first) {
      if (!SkipOp("|")) break;
    }
    first = false;
    int line = Cur().line;
    OXI_ASSIGN_OR_RETURN(auto name, ExpectName());
    auto f = Make(Expr::kFilter, line);
    f->name = name;
    f->args.push_back(std::move(subject));
    if (IsOp("(")) OXI_RETURN_IF_ERROR(ParseCallArgs(f.get()));
    subject = std::move(f);
    if (!IsOp("|")) break;
  }
  return subject;
}

}  // namespace oxinfer::chat::jinja_internal
