#include "core/chat/jinja.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace oxinfer::chat {
namespace {

absl::Status LineError(int line, absl::string_view msg) {
  return absl::InvalidArgumentError(absl::StrFormat("line %d: %s", line, msg));
}

#define JINJA_RETURN_IF_ERROR(expr) \
  do {                              \
    absl::Status _st = (expr);      \
    if (!_st.ok()) return _st;      \
  } while (0)

#define JINJA_ASSIGN_OR_RETURN(lhs, expr)         \
  auto _so_##lhs = (expr);                        \
  if (!_so_##lhs.ok()) return _so_##lhs.status(); \
  auto lhs = std::move(*_so_##lhs)

// ============================================================ Lexer

enum class Tok {
  kText,
  kVarBegin,
  kVarEnd,
  kBlockBegin,
  kBlockEnd,
  kName,
  kString,
  kInt,
  kFloat,
  kOp,
  kEof
};

struct Token {
  Tok type;
  std::string text;
  int line = 1;
  int64_t ival = 0;
  double fval = 0;
};

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

class Lexer {
 public:
  Lexer(absl::string_view src, const JinjaOptions& opt) : opt_(opt) {
    // Jinja normalizes newlines and drops one trailing newline.
    std::string s;
    s.reserve(src.size());
    for (size_t i = 0; i < src.size(); ++i) {
      if (src[i] == '\r') {
        s.push_back('\n');
        if (i + 1 < src.size() && src[i + 1] == '\n') ++i;
      } else {
        s.push_back(src[i]);
      }
    }
    if (!opt.keep_trailing_newline && !s.empty() && s.back() == '\n') s.pop_back();
    src_ = std::move(s);
  }

  absl::StatusOr<std::vector<Token>> Run() {
    bool line_starting = true;
    while (pos_ < src_.size()) {
      // Find the next tag start.
      size_t start = std::string::npos;
      char kind = 0;
      for (size_t p = pos_; p + 1 < src_.size(); ++p) {
        if (src_[p] == '{' && (src_[p + 1] == '{' || src_[p + 1] == '%' || src_[p + 1] == '#')) {
          start = p;
          kind = src_[p + 1];
          break;
        }
      }
      if (start == std::string::npos) {
        Emit(Tok::kText, src_.substr(pos_));
        pos_ = src_.size();
        break;
      }
      std::string text = src_.substr(pos_, start - pos_);
      char sign = start + 2 < src_.size() ? src_[start + 2] : 0;
      if (sign != '-' && sign != '+') sign = 0;
      if (sign == '-') {
        size_t e = text.size();
        while (e > 0 && IsSpace(text[e - 1])) --e;
        text.resize(e);
      } else if (sign != '+' && opt_.lstrip_blocks && kind != '{') {
        size_t nl = text.rfind('\n');
        size_t l_pos = nl == std::string::npos ? 0 : nl + 1;
        if (l_pos > 0 || line_starting) {
          bool all_ws = l_pos < text.size();
          for (size_t i = l_pos; i < text.size(); ++i) {
            if (!IsSpace(text[i])) {
              all_ws = false;
              break;
            }
          }
          if (all_ws) text.resize(l_pos);
        }
      }
      CountLines(src_.substr(pos_, start - pos_), text);
      pos_ = start + 2 + (sign ? 1 : 0);
      if (kind == '#') {
        size_t end = src_.find("#}", pos_);
        if (end == std::string::npos) return LineError(line_, "unterminated comment");
        bool minus = end > pos_ && src_[end - 1] == '-';
        bool plus = end > pos_ && src_[end - 1] == '+';
        for (size_t i = pos_; i < end; ++i) line_ += src_[i] == '\n';
        pos_ = end + 2;
        line_starting = AfterTagEnd(minus, plus, /*trim=*/true);
        continue;
      }
      if (kind == '%' && IsRawBlock()) {
        JINJA_RETURN_IF_ERROR(LexRaw(&line_starting));
        continue;
      }
      Emit(kind == '{' ? Tok::kVarBegin : Tok::kBlockBegin, "");
      bool minus = false, plus = false;
      JINJA_RETURN_IF_ERROR(LexTag(kind == '{' ? "}}" : "%}", &minus, &plus));
      Emit(kind == '{' ? Tok::kVarEnd : Tok::kBlockEnd, "");
      line_starting = AfterTagEnd(minus, plus, kind == '%');
    }
    Emit(Tok::kEof, "");
    return std::move(tokens_);
  }

 private:
  void Emit(Tok t, std::string text) {
    if (t == Tok::kText && text.empty()) return;
    Token tok;
    tok.type = t;
    tok.line = line_;
    tok.text = std::move(text);
    if (t == Tok::kText) {
      for (char c : tok.text) line_ += c == '\n';
    }
    tokens_.push_back(std::move(tok));
  }

  // Line counting for whitespace that was stripped away.
  void CountLines(const std::string& original, const std::string& kept) {
    for (size_t i = kept.size(); i < original.size(); ++i) pending_lines_ += original[i] == '\n';
    if (!kept.empty()) {
      Emit(Tok::kText, kept);
    }
    line_ += pending_lines_;
    pending_lines_ = 0;
  }

  // Applies what follows a tag end; returns the new line_starting.
  bool AfterTagEnd(bool minus, bool plus, bool trim) {
    if (minus) {
      char last = 0;
      while (pos_ < src_.size() && IsSpace(src_[pos_])) {
        last = src_[pos_];
        line_ += last == '\n';
        ++pos_;
      }
      return last == '\n';
    }
    if (!plus && trim && opt_.trim_blocks && pos_ < src_.size() && src_[pos_] == '\n') {
      ++pos_;
      ++line_;
      return true;
    }
    return false;
  }

  bool IsRawBlock() const {
    size_t p = pos_;
    while (p < src_.size() && IsSpace(src_[p])) ++p;
    if (src_.compare(p, 3, "raw") != 0) return false;
    p += 3;
    while (p < src_.size() && IsSpace(src_[p])) ++p;
    if (p < src_.size() && src_[p] == '-') ++p;
    return src_.compare(p, 2, "%}") == 0;
  }

  absl::Status LexRaw(bool* line_starting) {
    size_t close = src_.find("%}", pos_);
    bool minus = close > 0 && src_[close - 1] == '-';
    pos_ = close + 2;
    *line_starting = AfterTagEnd(minus, false, true);
    // Find {% endraw %}.
    size_t search = pos_;
    while (true) {
      size_t b = src_.find("{%", search);
      if (b == std::string::npos) return LineError(line_, "missing endraw");
      size_t p = b + 2;
      bool bminus = p < src_.size() && src_[p] == '-';
      if (bminus || (p < src_.size() && src_[p] == '+')) ++p;
      while (p < src_.size() && IsSpace(src_[p])) ++p;
      if (src_.compare(p, 6, "endraw") == 0) {
        std::string body = src_.substr(pos_, b - pos_);
        if (bminus) {
          while (!body.empty() && IsSpace(body.back())) body.pop_back();
        }
        Emit(Tok::kText, body);
        size_t e = src_.find("%}", p);
        if (e == std::string::npos) return LineError(line_, "unterminated endraw");
        bool eminus = src_[e - 1] == '-';
        pos_ = e + 2;
        *line_starting = AfterTagEnd(eminus, false, true);
        return absl::OkStatus();
      }
      search = b + 2;
    }
  }

  absl::Status LexTag(absl::string_view end, bool* minus, bool* plus) {
    int depth = 0;
    while (true) {
      while (pos_ < src_.size() && IsSpace(src_[pos_])) {
        line_ += src_[pos_] == '\n';
        ++pos_;
      }
      if (pos_ >= src_.size()) return LineError(line_, absl::StrCat("missing '", end, "'"));
      if (depth == 0) {
        if (src_.compare(pos_, end.size(), std::string(end)) == 0) {
          pos_ += end.size();
          return absl::OkStatus();
        }
        if ((src_[pos_] == '-' || src_[pos_] == '+') &&
            src_.compare(pos_ + 1, end.size(), std::string(end)) == 0) {
          *minus = src_[pos_] == '-';
          *plus = src_[pos_] == '+';
          pos_ += 1 + end.size();
          return absl::OkStatus();
        }
      }
      char c = src_[pos_];
      if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        size_t s = pos_;
        while (pos_ < src_.size() &&
               (std::isalnum(static_cast<unsigned char>(src_[pos_])) || src_[pos_] == '_')) {
          ++pos_;
        }
        Emit(Tok::kName, src_.substr(s, pos_ - s));
        continue;
      }
      if (std::isdigit(static_cast<unsigned char>(c))) {
        size_t s = pos_;
        while (pos_ < src_.size() &&
               (std::isdigit(static_cast<unsigned char>(src_[pos_])) || src_[pos_] == '_')) {
          ++pos_;
        }
        bool is_float = false;
        if (pos_ + 1 < src_.size() && src_[pos_] == '.' &&
            std::isdigit(static_cast<unsigned char>(src_[pos_ + 1]))) {
          is_float = true;
          ++pos_;
          while (pos_ < src_.size() &&
                 (std::isdigit(static_cast<unsigned char>(src_[pos_])) || src_[pos_] == '_')) {
            ++pos_;
          }
        }
        if (pos_ < src_.size() && (src_[pos_] == 'e' || src_[pos_] == 'E')) {
          size_t q = pos_ + 1;
          if (q < src_.size() && (src_[q] == '+' || src_[q] == '-')) ++q;
          if (q < src_.size() && std::isdigit(static_cast<unsigned char>(src_[q]))) {
            is_float = true;
            pos_ = q;
            while (pos_ < src_.size() && std::isdigit(static_cast<unsigned char>(src_[pos_]))) {
              ++pos_;
            }
          }
        }
        std::string num;
        for (size_t i = s; i < pos_; ++i) {
          if (src_[i] != '_') num.push_back(src_[i]);
        }
        Token t;
        t.line = line_;
        t.text = num;
        if (is_float) {
          t.type = Tok::kFloat;
          t.fval = std::strtod(num.c_str(), nullptr);
        } else {
          t.type = Tok::kInt;
          t.ival = std::strtoll(num.c_str(), nullptr, 10);
        }
        tokens_.push_back(std::move(t));
        continue;
      }
      if (c == '\'' || c == '"') {
        JINJA_RETURN_IF_ERROR(LexString(c));
        continue;
      }
      static const char* kOps[] = {"//", "**", "==", "!=", "<=", ">=", "+", "-", "*",
                                   "/",  "%",  "~",  "<",  ">",  "=",  ".", ",", ":",
                                   "|",  "(",  ")",  "[",  "]",  "{",  "}"};
      bool matched = false;
      for (const char* op : kOps) {
        size_t n = std::strlen(op);
        if (src_.compare(pos_, n, op) == 0) {
          if (n == 1 && (c == '(' || c == '[' || c == '{')) ++depth;
          if (n == 1 && (c == ')' || c == ']' || c == '}')) --depth;
          Emit(Tok::kOp, op);
          pos_ += n;
          matched = true;
          break;
        }
      }
      if (!matched) {
        return LineError(line_, absl::StrFormat("unexpected character '%c'", c));
      }
    }
  }

  absl::Status LexString(char q) {
    int start_line = line_;
    ++pos_;
    std::string out;
    while (true) {
      if (pos_ >= src_.size()) return LineError(start_line, "unterminated string literal");
      char c = src_[pos_++];
      if (c == q) break;
      if (c == '\n') ++line_;
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      if (pos_ >= src_.size()) return LineError(start_line, "unterminated string literal");
      char e = src_[pos_++];
      switch (e) {
        case 'n':
          out.push_back('\n');
          break;
        case 't':
          out.push_back('\t');
          break;
        case 'r':
          out.push_back('\r');
          break;
        case '\\':
          out.push_back('\\');
          break;
        case '\'':
          out.push_back('\'');
          break;
        case '"':
          out.push_back('"');
          break;
        case 'a':
          out.push_back('\a');
          break;
        case 'b':
          out.push_back('\b');
          break;
        case 'f':
          out.push_back('\f');
          break;
        case 'v':
          out.push_back('\v');
          break;
        case '0':
          out.push_back('\0');
          break;
        case '\n':
          ++line_;
          break;
        case 'x':
        case 'u':
        case 'U': {
          int n = e == 'x' ? 2 : (e == 'u' ? 4 : 8);
          if (pos_ + n > src_.size()) return LineError(line_, "bad escape in string literal");
          char32_t cp =
              static_cast<char32_t>(std::strtoul(src_.substr(pos_, n).c_str(), nullptr, 16));
          pos_ += n;
          out += EncodeUtf8(std::u32string(1, cp));
          break;
        }
        default:
          out.push_back('\\');
          out.push_back(e);
      }
    }
    Token t;
    t.type = Tok::kString;
    t.text = std::move(out);
    t.line = start_line;
    tokens_.push_back(std::move(t));
    return absl::OkStatus();
  }

  JinjaOptions opt_;
  std::string src_;
  size_t pos_ = 0;
  int line_ = 1;
  int pending_lines_ = 0;
  std::vector<Token> tokens_;
};

// ============================================================ AST

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

struct Expr {
  enum Kind {
    kLiteral,
    kName,
    kGetAttr,  // args[0].name
    kGetItem,  // args[0][args[1]]
    kSlice,    // args[0][args[1]:args[2]:args[3]] (null = omitted)
    kCall,     // args[0](args[1..], kwargs)
    kFilter,   // name(args[0], args[1..], kwargs); args[0] null in filter blocks
    kTest,     // name(args[0], args[1..])
    kNot,
    kNeg,
    kPos,
    kBinary,   // name = op
    kConcat,   // ~ over args
    kCompare,  // args[0] ops[i] args[i+1]
    kAnd,
    kOr,
    kCond,  // args[1] if args[0] else args[2]
    kList,
    kTuple,
    kDict,  // args = k0, v0, k1, v1...
  };
  Kind kind;
  int line = 0;
  std::string name;
  Value literal;
  std::vector<ExprPtr> args;
  std::vector<std::pair<std::string, ExprPtr>> kwargs;
  std::vector<std::string> ops;
};

struct Node;
using NodePtr = std::unique_ptr<Node>;
using Body = std::vector<NodePtr>;

struct Node {
  enum Kind {
    kText,
    kOutput,
    kIf,
    kFor,
    kSet,
    kSetBlock,
    kMacro,
    kCallBlock,
    kFilterBlock,
    kBreak,
    kContinue,
    kScoped,  // generation / with: renders its body
  };
  Kind kind;
  int line = 0;
  std::string text;
  // If: conds[i] -> bodies[i]; else_body.
  std::vector<ExprPtr> conds;
  std::vector<Body> bodies;
  Body else_body;
  // For: targets in iter [if filter]; Set: targets = value / ns_attr.
  std::vector<std::string> targets;
  std::string ns_attr;  // set ns.attr = ...: targets[0] is ns, ns_attr the attr.
  ExprPtr expr;         // output / for iter / set value / call expr
  ExprPtr filter;       // for filter cond; block set / filter block filter chain
  Body body;
  // Macro.
  std::vector<std::pair<std::string, ExprPtr>> params;
  // With assignments.
  std::vector<std::pair<std::string, ExprPtr>> assigns;
  // For: whether the body mentions `loop` (else no loop object is built).
  bool uses_loop = true;
};

// ============================================================ Parser

class Parser {
 public:
  explicit Parser(std::vector<Token> toks) : toks_(std::move(toks)) {}

  absl::StatusOr<Body> ParseTemplate() {
    std::string end;
    JINJA_ASSIGN_OR_RETURN(body, ParseBody({}, &end));
    if (!end.empty()) return LineError(Cur().line, absl::StrCat("unexpected '", end, "'"));
    return body;
  }

 private:
  const Token& Cur() const { return toks_[pos_]; }
  const Token& Peek(int n = 1) const { return toks_[std::min(pos_ + n, toks_.size() - 1)]; }
  bool IsOp(absl::string_view op) const { return Cur().type == Tok::kOp && Cur().text == op; }
  bool IsName(absl::string_view n) const { return Cur().type == Tok::kName && Cur().text == n; }
  bool SkipOp(absl::string_view op) {
    if (IsOp(op)) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool SkipName(absl::string_view n) {
    if (IsName(n)) {
      ++pos_;
      return true;
    }
    return false;
  }
  std::string Describe(const Token& t) const {
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
  absl::Status Unexpected(absl::string_view expected) const {
    return LineError(Cur().line,
                     absl::StrCat("syntax error: expected ", expected, ", got ", Describe(Cur())));
  }
  absl::Status ExpectOp(absl::string_view op) {
    if (!SkipOp(op)) return Unexpected(absl::StrCat("'", op, "'"));
    return absl::OkStatus();
  }
  absl::Status ExpectBlockEnd(absl::string_view tag) {
    if (Cur().type != Tok::kBlockEnd) {
      return Unexpected(absl::StrCat("end of '", tag, "' tag"));
    }
    ++pos_;
    return absl::OkStatus();
  }
  absl::StatusOr<std::string> ExpectName() {
    if (Cur().type != Tok::kName) return Unexpected("a name");
    return toks_[pos_++].text;
  }

  // Parses nodes until a block tag whose name is in `ends`; leaves the cursor
  // after that name and reports it in *found.
  absl::StatusOr<Body> ParseBody(const std::vector<std::string>& ends, std::string* found) {
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
        JINJA_ASSIGN_OR_RETURN(e, ParseTuple(true));
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
        JINJA_ASSIGN_OR_RETURN(node, ParseStatement());
        body.push_back(std::move(node));
        continue;
      }
      return Unexpected("template data");
    }
  }

  absl::StatusOr<NodePtr> ParseStatement() {
    DepthGuard guard(this);
    if (depth_ > kMaxDepth) return LineError(Cur().line, "blocks nested too deeply");
    const Token& t = Cur();
    int line = t.line;
    std::string name = t.text;
    ++pos_;
    auto n = std::make_unique<Node>();
    n->line = line;
    std::string found;
    if (name == "if") {
      n->kind = Node::kIf;
      while (true) {
        JINJA_ASSIGN_OR_RETURN(cond, ParseTuple(true));
        JINJA_RETURN_IF_ERROR(ExpectBlockEnd("if"));
        JINJA_ASSIGN_OR_RETURN(body, ParseBody({"elif", "else", "endif"}, &found));
        n->conds.push_back(std::move(cond));
        n->bodies.push_back(std::move(body));
        if (found == "elif") continue;
        if (found == "else") {
          JINJA_RETURN_IF_ERROR(ExpectBlockEnd("else"));
          JINJA_ASSIGN_OR_RETURN(eb, ParseBody({"endif"}, &found));
          n->else_body = std::move(eb);
        }
        JINJA_RETURN_IF_ERROR(ExpectBlockEnd("endif"));
        return n;
      }
    }
    if (name == "for") {
      n->kind = Node::kFor;
      JINJA_RETURN_IF_ERROR(ParseTargets(&n->targets));
      if (!SkipName("in")) return Unexpected("'in'");
      JINJA_ASSIGN_OR_RETURN(iter, ParseTuple(false));
      n->expr = std::move(iter);
      if (SkipName("if")) {
        JINJA_ASSIGN_OR_RETURN(f, ParseExpression(true));
        n->filter = std::move(f);
      }
      if (SkipName("recursive")) return LineError(line, "recursive for loops are not supported");
      JINJA_RETURN_IF_ERROR(ExpectBlockEnd("for"));
      int loop_refs_before = loop_refs_;
      JINJA_ASSIGN_OR_RETURN(body, ParseBody({"endfor", "else"}, &found));
      n->uses_loop = loop_refs_ != loop_refs_before;
      n->body = std::move(body);
      if (found == "else") {
        JINJA_RETURN_IF_ERROR(ExpectBlockEnd("else"));
        JINJA_ASSIGN_OR_RETURN(eb, ParseBody({"endfor"}, &found));
        n->else_body = std::move(eb);
      }
      JINJA_RETURN_IF_ERROR(ExpectBlockEnd("endfor"));
      return n;
    }
    if (name == "set") {
      if (Cur().type == Tok::kName && Peek().type == Tok::kOp && Peek().text == ".") {
        n->targets.push_back(Cur().text);
        pos_ += 2;
        JINJA_ASSIGN_OR_RETURN(attr, ExpectName());
        n->ns_attr = attr;
      } else {
        JINJA_RETURN_IF_ERROR(ParseTargets(&n->targets));
      }
      if (SkipOp("=")) {
        n->kind = Node::kSet;
        JINJA_ASSIGN_OR_RETURN(v, ParseTuple(true));
        n->expr = std::move(v);
        JINJA_RETURN_IF_ERROR(ExpectBlockEnd("set"));
        return n;
      }
      n->kind = Node::kSetBlock;
      if (IsOp("|")) {
        JINJA_ASSIGN_OR_RETURN(f, ParseFilterChain(nullptr));
        n->filter = std::move(f);
      }
      JINJA_RETURN_IF_ERROR(ExpectBlockEnd("set"));
      JINJA_ASSIGN_OR_RETURN(body, ParseBody({"endset"}, &found));
      n->body = std::move(body);
      JINJA_RETURN_IF_ERROR(ExpectBlockEnd("endset"));
      return n;
    }
    if (name == "macro") {
      n->kind = Node::kMacro;
      JINJA_ASSIGN_OR_RETURN(mname, ExpectName());
      n->text = mname;
      JINJA_RETURN_IF_ERROR(ParseParams(&n->params));
      JINJA_RETURN_IF_ERROR(ExpectBlockEnd("macro"));
      JINJA_ASSIGN_OR_RETURN(body, ParseBody({"endmacro"}, &found));
      n->body = std::move(body);
      if (Cur().type == Tok::kName) ++pos_;  // {% endmacro name %}
      JINJA_RETURN_IF_ERROR(ExpectBlockEnd("endmacro"));
      return n;
    }
    if (name == "call") {
      n->kind = Node::kCallBlock;
      if (IsOp("(")) JINJA_RETURN_IF_ERROR(ParseParams(&n->params));
      JINJA_ASSIGN_OR_RETURN(call, ParseExpression(true));
      if (call->kind != Expr::kCall) return LineError(line, "expected a call in 'call' block");
      n->expr = std::move(call);
      JINJA_RETURN_IF_ERROR(ExpectBlockEnd("call"));
      JINJA_ASSIGN_OR_RETURN(body, ParseBody({"endcall"}, &found));
      n->body = std::move(body);
      JINJA_RETURN_IF_ERROR(ExpectBlockEnd("endcall"));
      return n;
    }
    if (name == "filter") {
      n->kind = Node::kFilterBlock;
      JINJA_ASSIGN_OR_RETURN(f, ParseFilterChain(nullptr, /*leading_pipe=*/false));
      n->filter = std::move(f);
      JINJA_RETURN_IF_ERROR(ExpectBlockEnd("filter"));
      JINJA_ASSIGN_OR_RETURN(body, ParseBody({"endfilter"}, &found));
      n->body = std::move(body);
      JINJA_RETURN_IF_ERROR(ExpectBlockEnd("endfilter"));
      return n;
    }
    if (name == "break" || name == "continue") {
      n->kind = name == "break" ? Node::kBreak : Node::kContinue;
      JINJA_RETURN_IF_ERROR(ExpectBlockEnd(name));
      return n;
    }
    if (name == "generation" || name == "with") {
      n->kind = Node::kScoped;
      if (name == "with") {
        while (Cur().type == Tok::kName) {
          std::string var = Cur().text;
          ++pos_;
          JINJA_RETURN_IF_ERROR(ExpectOp("="));
          JINJA_ASSIGN_OR_RETURN(v, ParseExpression(true));
          n->assigns.emplace_back(var, std::move(v));
          if (!SkipOp(",")) break;
        }
      }
      JINJA_RETURN_IF_ERROR(ExpectBlockEnd(name));
      JINJA_ASSIGN_OR_RETURN(body, ParseBody({"end" + name}, &found));
      n->body = std::move(body);
      JINJA_RETURN_IF_ERROR(ExpectBlockEnd("end" + name));
      return n;
    }
    return LineError(line, absl::StrCat("unknown tag '", name, "'"));
  }

  absl::Status ParseTargets(std::vector<std::string>* targets) {
    bool paren = SkipOp("(");
    while (true) {
      JINJA_ASSIGN_OR_RETURN(name, ExpectName());
      targets->push_back(name);
      if (!SkipOp(",")) break;
      if (Cur().type != Tok::kName) break;
    }
    if (paren) JINJA_RETURN_IF_ERROR(ExpectOp(")"));
    return absl::OkStatus();
  }

  absl::Status ParseParams(std::vector<std::pair<std::string, ExprPtr>>* params) {
    JINJA_RETURN_IF_ERROR(ExpectOp("("));
    while (!IsOp(")")) {
      JINJA_ASSIGN_OR_RETURN(pname, ExpectName());
      ExprPtr def;
      if (SkipOp("=")) {
        JINJA_ASSIGN_OR_RETURN(d, ParseExpression(true));
        def = std::move(d);
      }
      params->emplace_back(pname, std::move(def));
      if (!SkipOp(",")) break;
    }
    return ExpectOp(")");
  }

  ExprPtr Make(Expr::Kind k, int line) {
    auto e = std::make_unique<Expr>();
    e->kind = k;
    e->line = line;
    return e;
  }

  // A comma-separated expression list becomes a tuple (as in {{ a, b }}).
  absl::StatusOr<ExprPtr> ParseTuple(bool with_condexpr, bool explicit_parens = false) {
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
      JINJA_ASSIGN_OR_RETURN(e, ParseExpression(with_condexpr));
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

  absl::StatusOr<ExprPtr> ParseExpression(bool with_condexpr) {
    if (!with_condexpr) return ParseOr();
    JINJA_ASSIGN_OR_RETURN(e, ParseOr());
    while (IsName("if")) {
      int line = Cur().line;
      ++pos_;
      JINJA_ASSIGN_OR_RETURN(cond, ParseOr());
      auto c = Make(Expr::kCond, line);
      c->args.push_back(std::move(cond));
      c->args.push_back(std::move(e));
      if (SkipName("else")) {
        JINJA_ASSIGN_OR_RETURN(other, ParseExpression(true));
        c->args.push_back(std::move(other));
      } else {
        c->args.push_back(nullptr);
      }
      e = std::move(c);
    }
    return e;
  }

  absl::StatusOr<ExprPtr> ParseOr() {
    JINJA_ASSIGN_OR_RETURN(e, ParseAnd());
    while (IsName("or")) {
      int line = Cur().line;
      ++pos_;
      JINJA_ASSIGN_OR_RETURN(r, ParseAnd());
      auto n = Make(Expr::kOr, line);
      n->args.push_back(std::move(e));
      n->args.push_back(std::move(r));
      e = std::move(n);
    }
    return e;
  }

  absl::StatusOr<ExprPtr> ParseAnd() {
    JINJA_ASSIGN_OR_RETURN(e, ParseNot());
    while (IsName("and")) {
      int line = Cur().line;
      ++pos_;
      JINJA_ASSIGN_OR_RETURN(r, ParseNot());
      auto n = Make(Expr::kAnd, line);
      n->args.push_back(std::move(e));
      n->args.push_back(std::move(r));
      e = std::move(n);
    }
    return e;
  }

  absl::StatusOr<ExprPtr> ParseNot() {
    DepthGuard guard(this);
    if (depth_ > kMaxDepth) return LineError(Cur().line, "expression nested too deeply");
    if (IsName("not")) {
      int line = Cur().line;
      ++pos_;
      JINJA_ASSIGN_OR_RETURN(x, ParseNot());
      auto n = Make(Expr::kNot, line);
      n->args.push_back(std::move(x));
      return n;
    }
    return ParseCompare();
  }

  absl::StatusOr<ExprPtr> ParseCompare() {
    int line = Cur().line;
    JINJA_ASSIGN_OR_RETURN(e, ParseMath1());
    ExprPtr cmp;
    while (true) {
      std::string op;
      if (Cur().type == Tok::kOp &&
          (Cur().text == "==" || Cur().text == "!=" || Cur().text == "<" || Cur().text == ">" ||
           Cur().text == "<=" || Cur().text == ">=")) {
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
      JINJA_ASSIGN_OR_RETURN(r, ParseMath1());
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

  absl::StatusOr<ExprPtr> Binary(ExprPtr l, std::string op, ExprPtr r, int line) {
    auto n = Make(Expr::kBinary, line);
    n->name = std::move(op);
    n->args.push_back(std::move(l));
    n->args.push_back(std::move(r));
    return n;
  }

  absl::StatusOr<ExprPtr> ParseMath1() {
    JINJA_ASSIGN_OR_RETURN(e, ParseConcat());
    while (IsOp("+") || IsOp("-")) {
      std::string op = Cur().text;
      int line = Cur().line;
      ++pos_;
      JINJA_ASSIGN_OR_RETURN(r, ParseConcat());
      JINJA_ASSIGN_OR_RETURN(b, Binary(std::move(e), op, std::move(r), line));
      e = std::move(b);
    }
    return e;
  }

  absl::StatusOr<ExprPtr> ParseConcat() {
    int line = Cur().line;
    JINJA_ASSIGN_OR_RETURN(e, ParseMath2());
    if (!IsOp("~")) return e;
    auto n = Make(Expr::kConcat, line);
    n->args.push_back(std::move(e));
    while (SkipOp("~")) {
      JINJA_ASSIGN_OR_RETURN(r, ParseMath2());
      n->args.push_back(std::move(r));
    }
    return n;
  }

  absl::StatusOr<ExprPtr> ParseMath2() {
    JINJA_ASSIGN_OR_RETURN(e, ParsePow());
    while (IsOp("*") || IsOp("/") || IsOp("//") || IsOp("%")) {
      std::string op = Cur().text;
      int line = Cur().line;
      ++pos_;
      JINJA_ASSIGN_OR_RETURN(r, ParsePow());
      JINJA_ASSIGN_OR_RETURN(b, Binary(std::move(e), op, std::move(r), line));
      e = std::move(b);
    }
    return e;
  }

  absl::StatusOr<ExprPtr> ParsePow() {
    JINJA_ASSIGN_OR_RETURN(e, ParseUnary(true));
    while (IsOp("**")) {
      int line = Cur().line;
      ++pos_;
      JINJA_ASSIGN_OR_RETURN(r, ParseUnary(true));
      JINJA_ASSIGN_OR_RETURN(b, Binary(std::move(e), "**", std::move(r), line));
      e = std::move(b);
    }
    return e;
  }

  absl::StatusOr<ExprPtr> ParseUnary(bool with_filter) {
    DepthGuard guard(this);
    if (depth_ > kMaxDepth) return LineError(Cur().line, "expression nested too deeply");
    return ParseUnaryInner(with_filter);
  }

  absl::StatusOr<ExprPtr> ParseUnaryInner(bool with_filter) {
    int line = Cur().line;
    ExprPtr node;
    if (IsOp("-") || IsOp("+")) {
      bool neg = IsOp("-");
      ++pos_;
      JINJA_ASSIGN_OR_RETURN(x, ParseUnary(false));
      node = Make(neg ? Expr::kNeg : Expr::kPos, line);
      node->args.push_back(std::move(x));
    } else {
      JINJA_ASSIGN_OR_RETURN(p, ParsePrimary());
      node = std::move(p);
    }
    JINJA_ASSIGN_OR_RETURN(post, ParsePostfix(std::move(node)));
    node = std::move(post);
    if (with_filter) {
      JINJA_ASSIGN_OR_RETURN(f, ParseFilterExpr(std::move(node)));
      node = std::move(f);
    }
    return node;
  }

  absl::StatusOr<ExprPtr> ParsePrimary() {
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
      return Literal(Value(t.ival), line);
    }
    if (t.type == Tok::kFloat) {
      ++pos_;
      return Literal(Value(t.fval), line);
    }
    if (SkipOp("(")) {
      JINJA_ASSIGN_OR_RETURN(e, ParseTuple(true, true));
      JINJA_RETURN_IF_ERROR(ExpectOp(")"));
      return e;
    }
    if (SkipOp("[")) {
      auto n = Make(Expr::kList, line);
      while (!IsOp("]")) {
        JINJA_ASSIGN_OR_RETURN(e, ParseExpression(true));
        n->args.push_back(std::move(e));
        if (!SkipOp(",")) break;
      }
      JINJA_RETURN_IF_ERROR(ExpectOp("]"));
      return n;
    }
    if (SkipOp("{")) {
      auto n = Make(Expr::kDict, line);
      while (!IsOp("}")) {
        JINJA_ASSIGN_OR_RETURN(k, ParseExpression(true));
        JINJA_RETURN_IF_ERROR(ExpectOp(":"));
        JINJA_ASSIGN_OR_RETURN(v, ParseExpression(true));
        n->args.push_back(std::move(k));
        n->args.push_back(std::move(v));
        if (!SkipOp(",")) break;
      }
      JINJA_RETURN_IF_ERROR(ExpectOp("}"));
      return n;
    }
    return Unexpected("an expression");
  }

  absl::StatusOr<ExprPtr> Literal(Value v, int line) {
    auto n = Make(Expr::kLiteral, line);
    n->literal = std::move(v);
    return n;
  }

  absl::StatusOr<ExprPtr> ParsePostfix(ExprPtr node) {
    while (true) {
      int line = Cur().line;
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
          JINJA_ASSIGN_OR_RETURN(idx, Literal(Value(Cur().ival), line));
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
            JINJA_ASSIGN_OR_RETURN(e, ParseExpression(true));
            parts[i] = std::move(e);
          }
          if (i < 2 && SkipOp(":")) {
            is_slice = true;
            continue;
          }
          break;
        }
        JINJA_RETURN_IF_ERROR(ExpectOp("]"));
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
        JINJA_RETURN_IF_ERROR(ParseCallArgs(n.get()));
        node = std::move(n);
      } else {
        return node;
      }
    }
  }

  // Parses "(a, b, k=v)" into e->args (appended) and e->kwargs.
  absl::Status ParseCallArgs(Expr* e) {
    JINJA_RETURN_IF_ERROR(ExpectOp("("));
    while (!IsOp(")")) {
      if (Cur().type == Tok::kName && Peek().type == Tok::kOp && Peek().text == "=") {
        std::string k = Cur().text;
        pos_ += 2;
        JINJA_ASSIGN_OR_RETURN(v, ParseExpression(true));
        e->kwargs.emplace_back(k, std::move(v));
      } else {
        if (IsOp("*") || IsOp("**")) {
          return LineError(Cur().line, "*args / **kwargs in calls are not supported");
        }
        JINJA_ASSIGN_OR_RETURN(v, ParseExpression(true));
        e->args.push_back(std::move(v));
      }
      if (!SkipOp(",")) break;
    }
    return ExpectOp(")");
  }

  absl::StatusOr<ExprPtr> ParseFilterExpr(ExprPtr node) {
    while (true) {
      if (IsOp("|")) {
        JINJA_ASSIGN_OR_RETURN(f, ParseFilterChain(std::move(node)));
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
          JINJA_RETURN_IF_ERROR(ParseCallArgs(t.get()));
        } else if ((Cur().type == Tok::kName || Cur().type == Tok::kString ||
                    Cur().type == Tok::kInt || Cur().type == Tok::kFloat || IsOp("[") ||
                    IsOp("{")) &&
                   !IsName("else") && !IsName("or") && !IsName("and") && !IsName("if")) {
          JINJA_ASSIGN_OR_RETURN(arg, ParsePrimary());
          JINJA_ASSIGN_OR_RETURN(arg2, ParsePostfix(std::move(arg)));
          t->args.push_back(std::move(arg2));
        }
        node = std::move(t);
        if (negated) {
          auto n = Make(Expr::kNot, line);
          n->args.push_back(std::move(node));
          node = std::move(n);
        }
      } else if (IsOp("(") || IsOp("[") || IsOp(".")) {
        JINJA_ASSIGN_OR_RETURN(p, ParsePostfix(std::move(node)));
        node = std::move(p);
      } else {
        return node;
      }
    }
  }

  // Parses one or more "| name(args)"; subject may be null (filter blocks).
  absl::StatusOr<ExprPtr> ParseFilterChain(ExprPtr subject, bool leading_pipe = true) {
    bool first = true;
    while (true) {
      if (leading_pipe || !first) {
        if (!SkipOp("|")) break;
      }
      first = false;
      int line = Cur().line;
      JINJA_ASSIGN_OR_RETURN(name, ExpectName());
      auto f = Make(Expr::kFilter, line);
      f->name = name;
      f->args.push_back(std::move(subject));
      if (IsOp("(")) JINJA_RETURN_IF_ERROR(ParseCallArgs(f.get()));
      subject = std::move(f);
      if (!IsOp("|")) break;
    }
    return subject;
  }

  // Bounds recursion so that hostile templates fail instead of overflowing
  // the stack.
  static constexpr int kMaxDepth = 256;
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

}  // namespace

struct JinjaTemplate::Program {
  Body body;
};

namespace {

// ============================================================ Runtime helpers

absl::Status Err(absl::string_view msg) { return absl::InvalidArgumentError(msg); }

absl::Status AtLine(absl::Status s, int line) {
  if (s.ok()) return s;
  if (absl::StartsWith(s.message(), "line ")) return s;
  return absl::Status(s.code(), absl::StrFormat("line %d: %s", line, s.message()));
}

bool IsPyWhitespace(char32_t c) {
  return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f) || c == 0x85 ||
         c == 0xa0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 ||
         c == 0x202f || c == 0x205f || c == 0x3000;
}

bool IsAscii(absl::string_view s) {
  for (unsigned char c : s) {
    if (c >= 0x80) return false;
  }
  return true;
}

int64_t StrLen(const std::string& s) {
  if (IsAscii(s)) return static_cast<int64_t>(s.size());
  return static_cast<int64_t>(DecodeUtf8(s).size());
}

// Python str.strip/lstrip/rstrip.
std::string PyStrip(const std::string& s, const Value* chars, bool left, bool right) {
  std::u32string u = DecodeUtf8(s);
  std::u32string set;
  bool use_set = chars && chars->is_string();
  if (use_set) set = DecodeUtf8(chars->as_string());
  auto strip_it = [&](char32_t c) {
    return use_set ? set.find(c) != std::u32string::npos : IsPyWhitespace(c);
  };
  size_t b = 0, e = u.size();
  if (left) {
    while (b < e && strip_it(u[b])) ++b;
  }
  if (right) {
    while (e > b && strip_it(u[e - 1])) --e;
  }
  return EncodeUtf8(u.substr(b, e - b));
}

// Simple case mapping of one code point (ASCII, Latin-1, Latin Extended-A,
// Greek, Cyrillic, fullwidth Latin), as Python's str.upper()/lower() for
// those scripts. Returns the code point unchanged if it has no mapping.
char32_t ToUpperCp(char32_t c) {
  if (c >= 'a' && c <= 'z') return c - 32;
  if (c < 0x80) return c;
  if ((c >= 0xE0 && c <= 0xFE && c != 0xF7)) return c - 32;
  if (c == 0xFF) return 0x178;
  if (c == 0xB5) return 0x39C;
  if (c >= 0x100 && c <= 0x17F) {
    if (c == 0x131) return 'I';
    if (c == 0x17F) return 'S';
    if ((c >= 0x100 && c <= 0x137) || (c >= 0x14A && c <= 0x177)) return (c & 1) ? c - 1 : c;
    if ((c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17E)) return (c & 1) ? c : c - 1;
    return c;
  }
  if (c >= 0x3B1 && c <= 0x3CB && c != 0x3C2) return c - 32;
  if (c == 0x3C2) return 0x3A3;
  if (c == 0x3AC) return 0x386;
  if (c >= 0x3AD && c <= 0x3AF) return c - 37;
  if (c == 0x3CC) return 0x38C;
  if (c == 0x3CD || c == 0x3CE) return c - 63;
  if (c >= 0x430 && c <= 0x44F) return c - 32;
  if (c >= 0x450 && c <= 0x45F) return c - 80;
  if (c >= 0xFF41 && c <= 0xFF5A) return c - 32;
  return c;
}

char32_t ToLowerCp(char32_t c) {
  if (c >= 'A' && c <= 'Z') return c + 32;
  if (c < 0x80) return c;
  if (c >= 0xC0 && c <= 0xDE && c != 0xD7) return c + 32;
  if (c == 0x178) return 0xFF;
  if (c >= 0x100 && c <= 0x17F) {
    if ((c >= 0x100 && c <= 0x137) || (c >= 0x14A && c <= 0x177)) return (c & 1) ? c : c + 1;
    if ((c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17E)) return (c & 1) ? c + 1 : c;
    return c;
  }
  if (c >= 0x391 && c <= 0x3AB && c != 0x3A2) return c + 32;
  if (c == 0x386) return 0x3AC;
  if (c >= 0x388 && c <= 0x38A) return c + 37;
  if (c == 0x38C) return 0x3CC;
  if (c == 0x38E || c == 0x38F) return c + 63;
  if (c >= 0x410 && c <= 0x42F) return c + 32;
  if (c >= 0x400 && c <= 0x40F) return c + 80;
  if (c >= 0xFF21 && c <= 0xFF3A) return c + 32;
  return c;
}

bool IsCased(char32_t c) { return ToUpperCp(c) != c || ToLowerCp(c) != c || c == 0xDF; }

std::u32string UpperU(const std::u32string& u) {
  std::u32string out;
  for (char32_t c : u) {
    if (c == 0xDF) {  // sharp s
      out += U"SS";
    } else {
      out.push_back(ToUpperCp(c));
    }
  }
  return out;
}

std::u32string LowerU(const std::u32string& u) {
  std::u32string out;
  for (char32_t c : u) out.push_back(ToLowerCp(c));
  return out;
}

std::string AsciiLower(std::string s) {
  if (!IsAscii(s)) return EncodeUtf8(LowerU(DecodeUtf8(s)));
  for (char& c : s) {
    if (c >= 'A' && c <= 'Z') c = c - 'A' + 'a';
  }
  return s;
}
std::string AsciiUpper(std::string s) {
  if (!IsAscii(s)) return EncodeUtf8(UpperU(DecodeUtf8(s)));
  for (char& c : s) {
    if (c >= 'a' && c <= 'z') c = c - 'a' + 'A';
  }
  return s;
}

// Python str.capitalize(): first character upper, the rest lower.
std::u32string CapitalizeU(const std::u32string& u) {
  if (u.empty()) return u;
  std::u32string out = UpperU(u.substr(0, 1));
  return out + LowerU(u.substr(1));
}

std::string Capitalize(const std::string& s) { return EncodeUtf8(CapitalizeU(DecodeUtf8(s))); }

// Python str.title(): a cased character after an uncased one is uppercased,
// other cased characters lowercased.
std::string PyTitle(const std::string& s) {
  std::u32string out;
  bool prev_cased = false;
  for (char32_t c : DecodeUtf8(s)) {
    bool cased = IsCased(c);
    if (cased) {
      out += prev_cased ? LowerU(std::u32string(1, c)) : UpperU(std::u32string(1, c));
    } else {
      out.push_back(c);
    }
    prev_cased = cased;
  }
  return EncodeUtf8(out);
}

// Jinja's title filter: capitalize each chunk after [-\s({[<]+.
std::string JinjaTitle(const std::string& s) {
  std::u32string u = DecodeUtf8(s);
  std::u32string out;
  size_t i = 0;
  auto is_delim = [](char32_t c) {
    return c == '-' || c == '(' || c == '{' || c == '[' || c == '<' || IsPyWhitespace(c);
  };
  while (i < u.size()) {
    size_t j = i;
    if (is_delim(u[i])) {
      while (j < u.size() && is_delim(u[j])) ++j;
      out += u.substr(i, j - i);
    } else {
      while (j < u.size() && !is_delim(u[j])) ++j;
      out += CapitalizeU(u.substr(i, j - i));
    }
    i = j;
  }
  return EncodeUtf8(out);
}

std::string PyReplace(const std::string& s, const std::string& old, const std::string& nw,
                      int64_t count) {
  if (old.empty()) {
    std::u32string u = DecodeUtf8(s);
    std::string out;
    int64_t n = 0;
    for (size_t i = 0; i <= u.size(); ++i) {
      if (count < 0 || n < count) {
        out += nw;
        ++n;
      }
      if (i < u.size()) out += EncodeUtf8(u.substr(i, 1));
    }
    return out;
  }
  std::string out;
  size_t pos = 0;
  int64_t n = 0;
  while (count < 0 || n < count) {
    size_t f = s.find(old, pos);
    if (f == std::string::npos) break;
    out.append(s, pos, f - pos);
    out += nw;
    pos = f + old.size();
    ++n;
  }
  out.append(s, pos, std::string::npos);
  return out;
}

absl::StatusOr<std::vector<Value>> PySplit(const std::string& s, const Value* sep,
                                           int64_t maxsplit) {
  std::vector<Value> out;
  if (!sep || sep->is_none()) {
    std::u32string u = DecodeUtf8(s);
    size_t i = 0;
    int64_t n = 0;
    while (true) {
      while (i < u.size() && IsPyWhitespace(u[i])) ++i;
      if (i >= u.size()) break;
      if (maxsplit >= 0 && n >= maxsplit) {
        size_t e = u.size();
        while (e > i && IsPyWhitespace(u[e - 1])) --e;
        out.emplace_back(EncodeUtf8(u.substr(i, e - i)));
        break;
      }
      size_t j = i;
      while (j < u.size() && !IsPyWhitespace(u[j])) ++j;
      out.emplace_back(EncodeUtf8(u.substr(i, j - i)));
      ++n;
      i = j;
    }
    return out;
  }
  if (!sep->is_string()) return Err("split(): separator must be str or None");
  const std::string& d = sep->as_string();
  if (d.empty()) return Err("split(): empty separator");
  size_t pos = 0;
  int64_t n = 0;
  while (maxsplit < 0 || n < maxsplit) {
    size_t f = s.find(d, pos);
    if (f == std::string::npos) break;
    out.emplace_back(s.substr(pos, f - pos));
    pos = f + d.size();
    ++n;
  }
  out.emplace_back(s.substr(pos));
  return out;
}

// Reads positional-or-keyword arguments.
class Args {
 public:
  Args(const CallArgs& a, size_t skip = 0) : a_(a), skip_(skip) {}
  const Value* Get(size_t i, absl::string_view name) const {
    if (skip_ + i < a_.args.size()) return &a_.args[skip_ + i];
    for (const auto& [k, v] : a_.kwargs) {
      if (k == name) return &v;
    }
    return nullptr;
  }
  size_t positional() const { return a_.args.size() - skip_; }

 private:
  const CallArgs& a_;
  size_t skip_;
};

absl::StatusOr<std::vector<Value>> Iterate(const Value& v) {
  switch (v.type()) {
    case Value::Type::kUndefined:
      return std::vector<Value>{};
    case Value::Type::kArray:
      return v.array();
    case Value::Type::kObject: {
      if (v.object_kind() != Value::ObjectKind::kDict) {
        return Err(absl::StrCat("'", v.TypeName(), "' object is not iterable"));
      }
      std::vector<Value> keys;
      for (const auto& kv : v.object().items()) keys.emplace_back(kv.first);
      return keys;
    }
    case Value::Type::kString: {
      std::vector<Value> chars;
      if (IsAscii(v.as_string())) {
        for (char c : v.as_string()) chars.emplace_back(std::string(1, c));
      } else {
        for (char32_t c : DecodeUtf8(v.as_string())) {
          chars.emplace_back(EncodeUtf8(std::u32string(1, c)));
        }
      }
      return chars;
    }
    default:
      return Err(absl::StrCat("'", v.TypeName(), "' object is not iterable"));
  }
}

absl::StatusOr<int64_t> Length(const Value& v) {
  switch (v.type()) {
    case Value::Type::kUndefined:
      return 0;
    case Value::Type::kString:
      return StrLen(v.as_string());
    case Value::Type::kArray:
      return static_cast<int64_t>(v.array().size());
    case Value::Type::kObject:
      return static_cast<int64_t>(v.object().size());
    default:
      return Err(absl::StrCat("object of type '", v.TypeName(), "' has no len()"));
  }
}

// Python ordering; case-insensitive for strings if !case_sensitive.
absl::StatusOr<int> PyCompare(const Value& a, const Value& b, bool case_sensitive = true) {
  if (a.is_number() && b.is_number()) {
    if (!a.is_float() && !b.is_float()) {
      return a.as_int() < b.as_int() ? -1 : (a.as_int() > b.as_int() ? 1 : 0);
    }
    double x = a.as_double(), y = b.as_double();
    return x < y ? -1 : (x > y ? 1 : 0);
  }
  if (a.is_string() && b.is_string()) {
    int c = case_sensitive ? a.as_string().compare(b.as_string())
                           : AsciiLower(a.as_string()).compare(AsciiLower(b.as_string()));
    return c < 0 ? -1 : (c > 0 ? 1 : 0);
  }
  if (a.is_array() && b.is_array()) {
    const auto &x = a.array(), &y = b.array();
    for (size_t i = 0; i < x.size() && i < y.size(); ++i) {
      if (x[i].Equals(y[i])) continue;
      return PyCompare(x[i], y[i], case_sensitive);
    }
    return x.size() < y.size() ? -1 : (x.size() > y.size() ? 1 : 0);
  }
  return Err(absl::StrCat("'<' not supported between instances of '", a.TypeName(), "' and '",
                          b.TypeName(), "'"));
}

absl::StatusOr<bool> Contains(const Value& container, const Value& item) {
  switch (container.type()) {
    case Value::Type::kUndefined:
      return false;
    case Value::Type::kString:
      if (!item.is_string()) {
        return Err(
            absl::StrCat("'in <string>' requires string as left operand, not ", item.TypeName()));
      }
      return container.as_string().find(item.as_string()) != std::string::npos;
    case Value::Type::kArray:
      for (const Value& v : container.array()) {
        if (v.Equals(item)) return true;
      }
      return false;
    case Value::Type::kObject:
      if (!item.is_string()) return false;
      return container.object().Contains(item.as_string());
    default:
      return Err(absl::StrCat("argument of type '", container.TypeName(), "' is not iterable"));
  }
}

// Python's % formatting for strings (subset: s, r, d, i, f, %).
absl::StatusOr<std::string> PercentFormat(const std::string& fmt, const Value& args) {
  std::vector<Value> list;
  const Value* mapping = nullptr;
  if (args.is_tuple()) {
    list = args.array();
  } else if (args.is_dict()) {
    mapping = &args;
  } else {
    list.push_back(args);
  }
  std::string out;
  size_t next = 0;
  for (size_t i = 0; i < fmt.size(); ++i) {
    if (fmt[i] != '%') {
      out.push_back(fmt[i]);
      continue;
    }
    ++i;
    if (i >= fmt.size()) return Err("incomplete format");
    if (fmt[i] == '%') {
      out.push_back('%');
      continue;
    }
    const Value* arg = nullptr;
    if (fmt[i] == '(' && mapping) {
      size_t e = fmt.find(')', i);
      if (e == std::string::npos) return Err("incomplete format key");
      arg = mapping->object().Find(fmt.substr(i + 1, e - i - 1));
      if (!arg) return Err("format key not found");
      i = e + 1;
    }
    std::string spec;
    while (i < fmt.size() && std::strchr("-+ #0123456789.", fmt[i])) spec.push_back(fmt[i++]);
    if (i >= fmt.size()) return Err("incomplete format");
    char conv = fmt[i];
    if (!arg) {
      if (next >= list.size()) return Err("not enough arguments for format string");
      arg = &list[next++];
    }
    switch (conv) {
      case 's':
        out += arg->Str();
        break;
      case 'r':
        out += arg->Repr();
        break;
      case 'd':
      case 'i':
        if (!arg->is_number()) return Err("%d format: a number is required");
        {
          char buf[128];
          std::string f = absl::StrCat("%", spec, "lld");
          std::snprintf(buf, sizeof(buf), f.c_str(),
                        static_cast<long long>(arg->is_float() ? std::trunc(arg->as_double())
                                                               : arg->as_int()));
          out += buf;
        }
        break;
      case 'f':
      case 'e':
      case 'g': {
        if (!arg->is_number()) return Err("%f format: a number is required");
        char buf[128];
        std::string f = absl::StrCat("%", spec, std::string(1, conv));
        std::snprintf(buf, sizeof(buf), f.c_str(), arg->as_double());
        out += buf;
        break;
      }
      default:
        return Err(absl::StrFormat("unsupported format character '%c'", conv));
    }
  }
  return out;
}

// Python str.format (subset: {}, {0}, {name}; no format specs).
absl::StatusOr<std::string> BraceFormat(const std::string& fmt, const CallArgs& a) {
  std::string out;
  size_t auto_idx = 0;
  for (size_t i = 0; i < fmt.size(); ++i) {
    char c = fmt[i];
    if (c == '{' && i + 1 < fmt.size() && fmt[i + 1] == '{') {
      out.push_back('{');
      ++i;
      continue;
    }
    if (c == '}' && i + 1 < fmt.size() && fmt[i + 1] == '}') {
      out.push_back('}');
      ++i;
      continue;
    }
    if (c != '{') {
      out.push_back(c);
      continue;
    }
    size_t e = fmt.find('}', i);
    if (e == std::string::npos) return Err("format(): single '{' encountered");
    std::string field = fmt.substr(i + 1, e - i - 1);
    if (field.find(':') != std::string::npos || field.find('!') != std::string::npos) {
      return Err("format(): format specs are not supported");
    }
    const Value* v = nullptr;
    if (field.empty()) {
      if (auto_idx < a.args.size()) v = &a.args[auto_idx++];
    } else if (std::isdigit(static_cast<unsigned char>(field[0]))) {
      size_t idx = std::strtoul(field.c_str(), nullptr, 10);
      if (idx < a.args.size()) v = &a.args[idx];
    } else {
      for (const auto& [k, kv] : a.kwargs) {
        if (k == field) v = &kv;
      }
    }
    if (!v) return Err(absl::StrCat("format(): missing argument '", field, "'"));
    out += v->Str();
    i = e;
  }
  return out;
}

Value PyRound(const Value& v, int64_t precision, const std::string& method) {
  if (v.is_int() || v.is_bool()) {
    if (method == "common" || precision >= 0) return Value(v.as_int());
  }
  double x = v.as_double();
  if (method == "ceil" || method == "floor") {
    double m = std::pow(10.0, static_cast<double>(precision));
    double r = method == "ceil" ? std::ceil(x * m) / m : std::floor(x * m) / m;
    return Value(r);
  }
  if (precision >= 0 && precision < 300) {
    char buf[512];
    std::snprintf(buf, sizeof(buf), "%.*f", static_cast<int>(precision), x);
    return Value(std::strtod(buf, nullptr));
  }
  return Value(x);
}

absl::StatusOr<Value> Slice(const Value& obj, const Value* start, const Value* stop,
                            const Value* step) {
  auto get = [](const Value* v, int64_t def) -> absl::StatusOr<int64_t> {
    if (!v || v->is_none()) return def;
    if (!v->is_int() && !v->is_bool()) return Err("slice indices must be integers or None");
    return v->as_int();
  };
  JINJA_ASSIGN_OR_RETURN(st, get(step, 1));
  if (st == 0) return Err("slice step cannot be zero");
  std::vector<Value> items;
  bool is_str = obj.is_string();
  std::u32string u;
  if (is_str) {
    u = DecodeUtf8(obj.as_string());
  } else if (obj.is_array()) {
    items = obj.array();
  } else if (obj.is_undefined()) {
    return Err("cannot slice an undefined value");
  } else {
    return Err(absl::StrCat("'", obj.TypeName(), "' object is not subscriptable"));
  }
  int64_t n = is_str ? static_cast<int64_t>(u.size()) : static_cast<int64_t>(items.size());
  auto clamp = [&](int64_t i, bool is_start) {
    if (i < 0) i += n;
    if (st > 0) return std::max<int64_t>(0, std::min(i, n));
    (void)is_start;
    return std::max<int64_t>(-1, std::min(i, n - 1));
  };
  int64_t b, e;
  if (st > 0) {
    JINJA_ASSIGN_OR_RETURN(b0, get(start, 0));
    JINJA_ASSIGN_OR_RETURN(e0, get(stop, n));
    b = clamp(b0, true);
    e = clamp(e0, false);
  } else {
    JINJA_ASSIGN_OR_RETURN(b0, get(start, n - 1));
    JINJA_ASSIGN_OR_RETURN(e0, get(stop, -n - 1));
    b = clamp(b0, true);
    e = clamp(e0, false);
  }
  std::vector<Value> out_items;
  std::u32string out_str;
  for (int64_t i = b; st > 0 ? i < e : i > e; i += st) {
    if (is_str) {
      out_str.push_back(u[i]);
    } else {
      out_items.push_back(items[i]);
    }
  }
  if (is_str) return Value(EncodeUtf8(out_str));
  return obj.is_tuple() ? Value::Tuple(std::move(out_items)) : Value::Array(std::move(out_items));
}

Value MakeItems(const Value& dict) {
  std::vector<Value> items;
  for (const auto& [k, v] : dict.object().items()) {
    items.push_back(Value::Tuple({Value(k), v}));
  }
  return Value::Array(std::move(items));
}

Value BindMethod(const std::string& name, NativeFunction fn) {
  return Value::Function(name, std::move(fn));
}

// Methods of str values.
Value StringMethod(const std::string& s, const std::string& name) {
  auto bind = [&](auto f) { return BindMethod(name, f); };
  if (name == "strip" || name == "lstrip" || name == "rstrip") {
    bool l = name != "rstrip", r = name != "lstrip";
    return bind([s, l, r](const CallArgs& a) -> absl::StatusOr<Value> {
      return Value(PyStrip(s, Args(a).Get(0, "chars"), l, r));
    });
  }
  if (name == "split" || name == "rsplit") {
    bool rs = name == "rsplit";
    return bind([s, rs](const CallArgs& a) -> absl::StatusOr<Value> {
      Args args(a);
      const Value* sep = args.Get(0, "sep");
      const Value* ms = args.Get(1, "maxsplit");
      int64_t maxsplit = ms ? ms->as_int() : -1;
      if (rs && maxsplit >= 0) {
        // rsplit with a limit: split from the right.
        JINJA_ASSIGN_OR_RETURN(all, PySplit(s, sep, -1));
        if (static_cast<int64_t>(all.size()) <= maxsplit + 1) return Value::Array(all);
        if (!sep || sep->is_none()) return Err("rsplit() without sep and with maxsplit");
        size_t keep = all.size() - maxsplit;
        std::string head;
        for (size_t i = 0; i < keep; ++i) {
          if (i) head += sep->as_string();
          head += all[i].as_string();
        }
        std::vector<Value> out{Value(head)};
        for (size_t i = keep; i < all.size(); ++i) out.push_back(all[i]);
        return Value::Array(out);
      }
      JINJA_ASSIGN_OR_RETURN(parts, PySplit(s, sep, maxsplit));
      return Value::Array(std::move(parts));
    });
  }
  if (name == "startswith" || name == "endswith") {
    bool sw = name == "startswith";
    return bind([s, sw](const CallArgs& a) -> absl::StatusOr<Value> {
      const Value* p = Args(a).Get(0, "prefix");
      if (!p) return Err("startswith/endswith: missing argument");
      std::vector<Value> cands = p->is_array() ? p->array() : std::vector<Value>{*p};
      for (const Value& c : cands) {
        if (!c.is_string()) return Err("startswith/endswith: argument must be str");
        const std::string& x = c.as_string();
        if (x.size() > s.size()) continue;
        if (sw ? s.compare(0, x.size(), x) == 0
               : s.compare(s.size() - x.size(), x.size(), x) == 0) {
          return Value(true);
        }
      }
      return Value(false);
    });
  }
  if (name == "replace") {
    return bind([s](const CallArgs& a) -> absl::StatusOr<Value> {
      Args args(a);
      const Value* o = args.Get(0, "old");
      const Value* n = args.Get(1, "new");
      const Value* c = args.Get(2, "count");
      if (!o || !n || !o->is_string() || !n->is_string()) return Err("replace(): needs 2 strings");
      return Value(PyReplace(s, o->as_string(), n->as_string(), c ? c->as_int() : -1));
    });
  }
  if (name == "upper")
    return bind([s](const CallArgs&) -> absl::StatusOr<Value> { return Value(AsciiUpper(s)); });
  if (name == "lower")
    return bind([s](const CallArgs&) -> absl::StatusOr<Value> { return Value(AsciiLower(s)); });
  if (name == "title")
    return bind([s](const CallArgs&) -> absl::StatusOr<Value> { return Value(PyTitle(s)); });
  if (name == "capitalize")
    return bind([s](const CallArgs&) -> absl::StatusOr<Value> { return Value(Capitalize(s)); });
  if (name == "find" || name == "rfind" || name == "index" || name == "count") {
    std::string n = name;
    return bind([s, n](const CallArgs& a) -> absl::StatusOr<Value> {
      const Value* sub = Args(a).Get(0, "sub");
      if (!sub || !sub->is_string()) return Err(n + "(): argument must be str");
      const std::string& x = sub->as_string();
      if (n == "count") {
        if (x.empty()) return Value(StrLen(s) + 1);
        int64_t c = 0;
        for (size_t p = s.find(x); p != std::string::npos; p = s.find(x, p + x.size())) ++c;
        return Value(c);
      }
      size_t p = n == "rfind" ? s.rfind(x) : s.find(x);
      if (p == std::string::npos) {
        if (n == "index") return Err("substring not found");
        return Value(int64_t{-1});
      }
      return Value(StrLen(s.substr(0, p)));
    });
  }
  if (name == "join") {
    return bind([s](const CallArgs& a) -> absl::StatusOr<Value> {
      const Value* it = Args(a).Get(0, "iterable");
      if (!it) return Err("join(): missing argument");
      JINJA_ASSIGN_OR_RETURN(items, Iterate(*it));
      std::string out;
      for (size_t i = 0; i < items.size(); ++i) {
        if (!items[i].is_string()) return Err("join(): sequence item must be str");
        if (i) out += s;
        out += items[i].as_string();
      }
      return Value(out);
    });
  }
  if (name == "format") {
    return bind([s](const CallArgs& a) -> absl::StatusOr<Value> {
      JINJA_ASSIGN_OR_RETURN(r, BraceFormat(s, a));
      return Value(r);
    });
  }
  if (name == "isdigit" || name == "isalpha" || name == "isalnum" || name == "isspace" ||
      name == "islower" || name == "isupper") {
    std::string n = name;
    return bind([s, n](const CallArgs&) -> absl::StatusOr<Value> {
      if (s.empty()) return Value(false);
      bool any_cased = false;
      for (unsigned char c : s) {
        if (n == "isdigit" && !std::isdigit(c)) return Value(false);
        if (n == "isalpha" && !std::isalpha(c)) return Value(false);
        if (n == "isalnum" && !std::isalnum(c)) return Value(false);
        if (n == "isspace" && !IsSpace(c)) return Value(false);
        if (n == "islower" && std::isupper(c)) return Value(false);
        if (n == "isupper" && std::islower(c)) return Value(false);
        any_cased |= std::isalpha(c) != 0;
      }
      if (n == "islower" || n == "isupper") return Value(any_cased);
      return Value(true);
    });
  }
  if (name == "splitlines") {
    return bind([s](const CallArgs&) -> absl::StatusOr<Value> {
      std::vector<Value> out;
      size_t b = 0;
      for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '\n' || s[i] == '\r') {
          out.emplace_back(s.substr(b, i - b));
          if (s[i] == '\r' && i + 1 < s.size() && s[i + 1] == '\n') ++i;
          b = i + 1;
        }
      }
      if (b < s.size()) out.emplace_back(s.substr(b));
      return Value::Array(std::move(out));
    });
  }
  return Value::Undefined(absl::StrCat("str object has no attribute '", name, "'"));
}

// Methods of dict values.
Value DictMethod(const Value& d, const std::string& name) {
  if (name == "items") {
    return BindMethod(name, [d](const CallArgs&) -> absl::StatusOr<Value> { return MakeItems(d); });
  }
  if (name == "keys" || name == "values") {
    bool keys = name == "keys";
    return BindMethod(name, [d, keys](const CallArgs&) -> absl::StatusOr<Value> {
      std::vector<Value> out;
      for (const auto& [k, v] : d.object().items()) out.push_back(keys ? Value(k) : v);
      return Value::Array(std::move(out));
    });
  }
  if (name == "get") {
    return BindMethod(name, [d](const CallArgs& a) -> absl::StatusOr<Value> {
      Args args(a);
      const Value* k = args.Get(0, "key");
      const Value* def = args.Get(1, "default");
      if (!k) return Err("get(): missing key");
      if (k->is_string()) {
        const Value* v = d.object().Find(k->as_string());
        if (v) return *v;
      }
      return def ? *def : Value::None();
    });
  }
  if (name == "copy") {
    return BindMethod(name, [d](const CallArgs&) -> absl::StatusOr<Value> {
      Value c = Value::Dict();
      for (const auto& [k, v] : d.object().items()) c.object().Set(k, v);
      return c;
    });
  }
  if (name == "update" || name == "pop" || name == "setdefault" || name == "clear" ||
      name == "popitem") {
    std::string n = name;
    return BindMethod(name, [n](const CallArgs&) -> absl::StatusOr<Value> {
      return Err(
          absl::StrCat("dict.", n, "() is not allowed: chat templates cannot modify values"));
    });
  }
  return Value();
}

bool IsDictMethodName(const std::string& name) {
  return name == "items" || name == "keys" || name == "values" || name == "get" || name == "copy" ||
         name == "update" || name == "pop" || name == "setdefault" || name == "clear" ||
         name == "popitem";
}

// obj.name, with Jinja's getattr-then-getitem lookup.
absl::StatusOr<Value> GetAttr(const Value& obj, const std::string& name) {
  switch (obj.type()) {
    case Value::Type::kUndefined:
      return Err(obj.undefined_hint().empty()
                     ? absl::StrCat("undefined value has no attribute '", name, "'")
                     : absl::StrCat(obj.undefined_hint(), " (reading attribute '", name, "')"));
    case Value::Type::kString: {
      Value m = StringMethod(obj.as_string(), name);
      return m;
    }
    case Value::Type::kObject: {
      if (obj.object_kind() == Value::ObjectKind::kDict && IsDictMethodName(name)) {
        return DictMethod(obj, name);
      }
      const Value* v = obj.object().Find(name);
      if (v) return *v;
      return Value::Undefined(
          absl::StrCat("'", obj.TypeName(), " object' has no attribute '", name, "'"));
    }
    case Value::Type::kArray:
      if (name == "append" || name == "extend" || name == "pop" || name == "insert" ||
          name == "remove" || name == "clear" || name == "sort" || name == "reverse") {
        return BindMethod(name, [name](const CallArgs&) -> absl::StatusOr<Value> {
          return Err(absl::StrCat("list.", name,
                                  "() is not allowed: chat templates cannot modify values"));
        });
      }
      if (name == "index" || name == "count") {
        Value l = obj;
        bool idx = name == "index";
        return BindMethod(name, [l, idx](const CallArgs& a) -> absl::StatusOr<Value> {
          const Value* x = Args(a).Get(0, "value");
          if (!x) return Err("missing argument");
          int64_t c = 0;
          for (size_t i = 0; i < l.array().size(); ++i) {
            if (l.array()[i].Equals(*x)) {
              if (idx) return Value(static_cast<int64_t>(i));
              ++c;
            }
          }
          if (idx) return Err("value is not in list");
          return Value(c);
        });
      }
      return Value::Undefined(absl::StrCat("'list object' has no attribute '", name, "'"));
    default:
      return Value::Undefined(
          absl::StrCat("'", obj.TypeName(), " object' has no attribute '", name, "'"));
  }
}

// obj[key], with Jinja's getitem-then-getattr lookup.
absl::StatusOr<Value> GetItem(const Value& obj, const Value& key) {
  if (obj.is_undefined()) {
    return Err(obj.undefined_hint().empty()
                   ? absl::StrCat("undefined value has no item ", key.Repr())
                   : absl::StrCat(obj.undefined_hint(), " (reading item ", key.Repr(), ")"));
  }
  if (obj.is_array() || obj.is_string()) {
    if (key.is_int() || key.is_bool()) {
      int64_t i = key.as_int();
      if (obj.is_array()) {
        int64_t n = static_cast<int64_t>(obj.array().size());
        if (i < 0) i += n;
        if (i < 0 || i >= n) return Value::Undefined("list index out of range");
        return obj.array()[i];
      }
      std::u32string u = DecodeUtf8(obj.as_string());
      int64_t n = static_cast<int64_t>(u.size());
      if (i < 0) i += n;
      if (i < 0 || i >= n) return Value::Undefined("string index out of range");
      return Value(EncodeUtf8(u.substr(i, 1)));
    }
    if (key.is_string()) return GetAttr(obj, key.as_string());
    return Value::Undefined("bad index");
  }
  if (obj.is_object()) {
    if (key.is_string()) {
      if (obj.object_kind() == Value::ObjectKind::kDict) {
        const Value* v = obj.object().Find(key.as_string());
        if (v) return *v;
      }
      return GetAttr(obj, key.as_string());
    }
    return Value::Undefined(absl::StrCat("'dict object' has no key ", key.Repr()));
  }
  return Value::Undefined(absl::StrCat("'", obj.TypeName(), " object' has no item ", key.Repr()));
}

// Jinja's attribute getter for filters: "a.b.0".
absl::StatusOr<Value> GetPath(const Value& obj, const std::string& path) {
  Value cur = obj;
  size_t b = 0;
  while (true) {
    size_t e = path.find('.', b);
    std::string part = path.substr(b, e == std::string::npos ? std::string::npos : e - b);
    Value key = Value(part);
    if (!part.empty() && std::all_of(part.begin(), part.end(), ::isdigit)) {
      key = Value(static_cast<int64_t>(std::strtoll(part.c_str(), nullptr, 10)));
    }
    if (cur.is_undefined()) return cur;
    JINJA_ASSIGN_OR_RETURN(next, GetItem(cur, key));
    cur = next;
    if (e == std::string::npos) break;
    b = e + 1;
  }
  return cur;
}

absl::StatusOr<Value> Arith(const std::string& op, const Value& a, const Value& b) {
  auto type_error = [&]() {
    if (a.is_undefined() || b.is_undefined()) {
      const Value& u = a.is_undefined() ? a : b;
      return Err(u.undefined_hint().empty() ? "undefined value in arithmetic"
                                            : absl::StrCat(u.undefined_hint(), " (in '", op, "')"));
    }
    return Err(absl::StrCat("unsupported operand type(s) for ", op, ": '", a.TypeName(), "' and '",
                            b.TypeName(), "'"));
  };
  if (a.is_undefined() || b.is_undefined()) return type_error();
  if (op == "+") {
    if (a.is_string() && b.is_string()) return Value(a.as_string() + b.as_string());
    if (a.is_array() && b.is_array()) {
      std::vector<Value> out = a.array();
      out.insert(out.end(), b.array().begin(), b.array().end());
      return a.is_tuple() ? Value::Tuple(out) : Value::Array(out);
    }
  }
  if (op == "*") {
    const Value* seq =
        a.is_string() || a.is_array() ? &a : (b.is_string() || b.is_array() ? &b : nullptr);
    const Value* n = seq == &a ? &b : &a;
    if (seq && (n->is_int() || n->is_bool())) {
      int64_t k = std::max<int64_t>(0, n->as_int());
      size_t unit = seq->is_string() ? seq->as_string().size() : seq->array().size();
      if (unit > 0 && k > static_cast<int64_t>((size_t{1} << 26) / unit)) {
        return Err("repetition result too large");
      }
      if (seq->is_string()) {
        std::string out;
        for (int64_t i = 0; i < k; ++i) out += seq->as_string();
        return Value(out);
      }
      std::vector<Value> out;
      for (int64_t i = 0; i < k; ++i)
        out.insert(out.end(), seq->array().begin(), seq->array().end());
      return Value::Array(out);
    }
  }
  if (op == "%" && a.is_string()) {
    JINJA_ASSIGN_OR_RETURN(s, PercentFormat(a.as_string(), b));
    return Value(s);
  }
  if (!a.is_number() || !b.is_number()) return type_error();
  bool ints = !a.is_float() && !b.is_float();
  if (op == "+")
    return ints ? Value(a.as_int() + b.as_int()) : Value(a.as_double() + b.as_double());
  if (op == "-")
    return ints ? Value(a.as_int() - b.as_int()) : Value(a.as_double() - b.as_double());
  if (op == "*")
    return ints ? Value(a.as_int() * b.as_int()) : Value(a.as_double() * b.as_double());
  if (op == "/") {
    if (b.as_double() == 0) return Err("division by zero");
    return Value(a.as_double() / b.as_double());
  }
  if (op == "//" || op == "%") {
    if (b.as_double() == 0) return Err(op == "%" ? "modulo by zero" : "integer division by zero");
    if (ints) {
      int64_t x = a.as_int(), y = b.as_int();
      int64_t q = x / y, r = x % y;
      if (r != 0 && ((r < 0) != (y < 0))) {
        --q;
        r += y;
      }
      return op == "//" ? Value(q) : Value(r);
    }
    double x = a.as_double(), y = b.as_double();
    double r = std::fmod(x, y);
    if (r != 0 && ((r < 0) != (y < 0))) r += y;
    if (op == "%") return Value(r);
    return Value(std::floor((x - r) / y + 0.5));
  }
  if (op == "**") {
    if (ints && b.as_int() >= 0) {
      int64_t r = 1;
      for (int64_t i = 0; i < b.as_int(); ++i) r *= a.as_int();
      return Value(r);
    }
    return Value(std::pow(a.as_double(), b.as_double()));
  }
  return Err(absl::StrCat("unknown operator ", op));
}

// ============================================================ Tests

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
  if (name == "lower") return v.is_string() && AsciiLower(v.as_string()) == v.as_string();
  if (name == "upper") return v.is_string() && AsciiUpper(v.as_string()) == v.as_string();
  if (name == "escaped") return false;
  if (name == "even" || name == "odd") {
    if (!v.is_int()) return Err(absl::StrCat("test '", name, "' needs an integer"));
    bool even = v.as_int() % 2 == 0;
    return name == "even" ? even : !even;
  }
  if (name == "divisibleby") {
    JINJA_ASSIGN_OR_RETURN(d, arg0());
    JINJA_ASSIGN_OR_RETURN(m, Arith("%", v, d));
    return m.as_double() == 0;
  }
  if (name == "eq" || name == "equalto" || name == "==" || name == "sameas") {
    JINJA_ASSIGN_OR_RETURN(o, arg0());
    if (name == "sameas" && (o.is_bool() || o.is_none() || v.is_bool() || v.is_none())) {
      return v.type() == o.type() && v.Equals(o);
    }
    return v.Equals(o);
  }
  if (name == "ne" || name == "!=") {
    JINJA_ASSIGN_OR_RETURN(o, arg0());
    return !v.Equals(o);
  }
  if (name == "lt" || name == "lessthan" || name == "<" || name == "le" || name == "<=" ||
      name == "gt" || name == "greaterthan" || name == ">" || name == "ge" || name == ">=") {
    JINJA_ASSIGN_OR_RETURN(o, arg0());
    JINJA_ASSIGN_OR_RETURN(c, PyCompare(v, o));
    if (name == "lt" || name == "lessthan" || name == "<") return c < 0;
    if (name == "le" || name == "<=") return c <= 0;
    if (name == "gt" || name == "greaterthan" || name == ">") return c > 0;
    return c >= 0;
  }
  if (name == "in") {
    JINJA_ASSIGN_OR_RETURN(o, arg0());
    return Contains(o, v);
  }
  return Err(absl::StrCat("no test named '", name, "'"));
}

}  // namespace

namespace {

// ============================================================ Filters

absl::StatusOr<Value> ApplyFilter(const std::string& name, const Value& v, const CallArgs& a);

absl::StatusOr<std::vector<Value>> SelectOrReject(const Value& v, const CallArgs& a, bool attr,
                                                  bool select) {
  JINJA_ASSIGN_OR_RETURN(items, Iterate(v));
  Args args(a);
  std::string attr_name;
  size_t test_pos = 0;
  if (attr) {
    const Value* an = args.Get(0, "attribute");
    if (!an || !an->is_string()) return Err("selectattr/rejectattr need an attribute name");
    attr_name = an->as_string();
    test_pos = 1;
  }
  std::string test;
  std::vector<Value> test_args;
  if (a.args.size() > test_pos) {
    if (!a.args[test_pos].is_string()) return Err("test name must be a string");
    test = a.args[test_pos].as_string();
    for (size_t i = test_pos + 1; i < a.args.size(); ++i) test_args.push_back(a.args[i]);
  }
  std::vector<Value> out;
  for (const Value& item : items) {
    Value x = item;
    if (attr) {
      JINJA_ASSIGN_OR_RETURN(got, GetPath(item, attr_name));
      x = got;
    }
    bool r;
    if (test.empty()) {
      r = x.Truthy();
    } else {
      JINJA_ASSIGN_OR_RETURN(t, ApplyTest(test, x, test_args));
      r = t;
    }
    if (r == select) out.push_back(item);
  }
  return out;
}

absl::StatusOr<std::vector<Value>> SortValues(std::vector<Value> items, bool case_sensitive,
                                              bool reverse, const std::string& attribute) {
  std::vector<std::pair<Value, Value>> keyed;
  for (Value& it : items) {
    Value k = it;
    if (!attribute.empty()) {
      JINJA_ASSIGN_OR_RETURN(got, GetPath(it, attribute));
      k = got;
    }
    keyed.emplace_back(k, std::move(it));
  }
  absl::Status err;
  std::stable_sort(keyed.begin(), keyed.end(), [&](const auto& x, const auto& y) {
    auto c = PyCompare(x.first, y.first, case_sensitive);
    if (!c.ok()) {
      err = c.status();
      return false;
    }
    return reverse ? *c > 0 : *c < 0;
  });
  if (!err.ok()) return err;
  std::vector<Value> out;
  for (auto& kv : keyed) out.push_back(std::move(kv.second));
  return out;
}

absl::StatusOr<Value> ApplyFilter(const std::string& name, const Value& v, const CallArgs& a) {
  Args args(a);
  auto str_of = [](const Value& x) { return x.Str(); };
  if (name == "safe" || name == "e" || name == "escape" || name == "forceescape") {
    if (name == "safe") return v;
    std::string out;
    for (char c : v.Str()) {
      switch (c) {
        case '&':
          out += "&amp;";
          break;
        case '<':
          out += "&lt;";
          break;
        case '>':
          out += "&gt;";
          break;
        case '"':
          out += "&#34;";
          break;
        case '\'':
          out += "&#39;";
          break;
        default:
          out.push_back(c);
      }
    }
    return Value(out);
  }
  if (name == "tojson") {
    const Value* ea = args.Get(0, "ensure_ascii");
    const Value* ind = args.Get(1, "indent");
    const Value* seps = args.Get(2, "separators");
    const Value* sk = args.Get(3, "sort_keys");
    int indent = -1;
    std::string indent_str;
    if (ind && !ind->is_none()) {
      if (ind->is_string()) {
        indent_str = ind->as_string();
        indent = 0;
      } else {
        indent = static_cast<int>(ind->as_int());
        if (indent < 0) indent = 0;
      }
    }
    std::string item_sep, key_sep;
    if (seps && !seps->is_none()) {
      if (!seps->is_array() || seps->array().size() != 2) return Err("tojson: bad separators");
      item_sep = seps->array()[0].Str();
      key_sep = seps->array()[1].Str();
      if (item_sep.empty()) item_sep = "\x01";  // Distinguish "" from default.
      if (key_sep.empty()) key_sep = "\x01";
    }
    auto r =
        v.ToJson(ea && ea->Truthy(), indent, indent_str, item_sep, key_sep, sk && sk->Truthy());
    if (!r.ok()) return r.status();
    std::string s = *r;
    if (item_sep == "\x01" || key_sep == "\x01")
      s.erase(std::remove(s.begin(), s.end(), '\x01'), s.end());
    return Value(s);
  }
  if (name == "trim") {
    return Value(PyStrip(v.Str(), args.Get(0, "chars"), true, true));
  }
  if (name == "upper") return Value(AsciiUpper(v.Str()));
  if (name == "lower") return Value(AsciiLower(v.Str()));
  if (name == "capitalize") return Value(Capitalize(v.Str()));
  if (name == "title") return Value(JinjaTitle(v.Str()));
  if (name == "string") return Value(v.Str());
  if (name == "length" || name == "count") {
    JINJA_ASSIGN_OR_RETURN(n, Length(v));
    return Value(n);
  }
  if (name == "default" || name == "d") {
    const Value* def = args.Get(0, "default_value");
    const Value* boolean = args.Get(1, "boolean");
    bool use_default = v.is_undefined() || (boolean && boolean->Truthy() && !v.Truthy());
    if (use_default) return def ? *def : Value("");
    return v;
  }
  if (name == "first" || name == "last") {
    if (v.is_undefined()) return Value::Undefined("first/last of an undefined value");
    JINJA_ASSIGN_OR_RETURN(items, Iterate(v));
    if (items.empty()) return Value::Undefined("first/last of an empty sequence");
    return name == "first" ? items.front() : items.back();
  }
  if (name == "list") {
    JINJA_ASSIGN_OR_RETURN(items, Iterate(v));
    return Value::Array(items);
  }
  if (name == "items") {
    if (v.is_undefined()) return Value::Array();
    if (!v.is_dict()) return Err(absl::StrCat("items filter needs a mapping, got ", v.TypeName()));
    return MakeItems(v);
  }
  if (name == "join") {
    const Value* sep = args.Get(0, "d");
    const Value* attr = args.Get(1, "attribute");
    JINJA_ASSIGN_OR_RETURN(items, Iterate(v));
    std::string out;
    for (size_t i = 0; i < items.size(); ++i) {
      if (i && sep) out += sep->Str();
      Value x = items[i];
      if (attr && !attr->is_none()) {
        JINJA_ASSIGN_OR_RETURN(got, GetPath(x, attr->Str()));
        x = got;
      }
      out += str_of(x);
    }
    return Value(out);
  }
  if (name == "replace") {
    const Value* o = args.Get(0, "old");
    const Value* n = args.Get(1, "new");
    const Value* c = args.Get(2, "count");
    if (!o || !n) return Err("replace needs 2 arguments");
    return Value(PyReplace(v.Str(), o->Str(), n->Str(), c && !c->is_none() ? c->as_int() : -1));
  }
  if (name == "int") {
    const Value* def = args.Get(0, "default");
    Value d = def ? *def : Value(int64_t{0});
    if (v.is_int()) return v;
    if (v.is_bool()) return Value(v.as_int());
    if (v.is_float()) return Value(static_cast<int64_t>(v.as_float()));
    if (v.is_string()) {
      std::string s = PyStrip(v.as_string(), nullptr, true, true);
      char* end = nullptr;
      long long i = std::strtoll(s.c_str(), &end, 10);
      if (!s.empty() && end && *end == 0) return Value(static_cast<int64_t>(i));
      double f = std::strtod(s.c_str(), &end);
      if (!s.empty() && end && *end == 0) return Value(static_cast<int64_t>(f));
    }
    return d;
  }
  if (name == "float") {
    const Value* def = args.Get(0, "default");
    if (v.is_number()) return Value(v.as_double());
    if (v.is_string()) {
      std::string s = PyStrip(v.as_string(), nullptr, true, true);
      char* end = nullptr;
      double f = std::strtod(s.c_str(), &end);
      if (!s.empty() && end && *end == 0) return Value(f);
    }
    return def ? *def : Value(0.0);
  }
  if (name == "abs") {
    if (v.is_int() || v.is_bool()) return Value(std::abs(v.as_int()));
    if (v.is_float()) return Value(std::fabs(v.as_float()));
    return Err(absl::StrCat("bad operand type for abs(): '", v.TypeName(), "'"));
  }
  if (name == "round") {
    const Value* p = args.Get(0, "precision");
    const Value* m = args.Get(1, "method");
    if (!v.is_number()) return Err("round needs a number");
    return PyRound(v, p ? p->as_int() : 0, m ? m->Str() : "common");
  }
  if (name == "dictsort") {
    const Value* cs = args.Get(0, "case_sensitive");
    const Value* by = args.Get(1, "by");
    const Value* rev = args.Get(2, "reverse");
    if (!v.is_dict()) return Err(absl::StrCat("dictsort needs a mapping, got ", v.TypeName()));
    bool by_value = by && by->Str() == "value";
    std::vector<Value> items = MakeItems(v).array();
    JINJA_ASSIGN_OR_RETURN(
        sorted, SortValues(items, cs && cs->Truthy(), rev && rev->Truthy(), by_value ? "1" : "0"));
    return Value::Array(sorted);
  }
  if (name == "sort") {
    const Value* rev = args.Get(0, "reverse");
    const Value* cs = args.Get(1, "case_sensitive");
    const Value* attr = args.Get(2, "attribute");
    JINJA_ASSIGN_OR_RETURN(items, Iterate(v));
    JINJA_ASSIGN_OR_RETURN(sorted, SortValues(items, cs && cs->Truthy(), rev && rev->Truthy(),
                                              attr && !attr->is_none() ? attr->Str() : ""));
    return Value::Array(sorted);
  }
  if (name == "unique") {
    const Value* cs = args.Get(0, "case_sensitive");
    const Value* attr = args.Get(1, "attribute");
    JINJA_ASSIGN_OR_RETURN(items, Iterate(v));
    std::vector<Value> out, seen;
    for (const Value& it : items) {
      Value k = it;
      if (attr && !attr->is_none()) {
        JINJA_ASSIGN_OR_RETURN(got, GetPath(it, attr->Str()));
        k = got;
      }
      if (k.is_string() && !(cs && cs->Truthy())) k = Value(AsciiLower(k.as_string()));
      bool dup = false;
      for (const Value& s : seen) {
        if (s.Equals(k)) {
          dup = true;
          break;
        }
      }
      if (!dup) {
        seen.push_back(k);
        out.push_back(it);
      }
    }
    return Value::Array(out);
  }
  if (name == "reverse") {
    if (v.is_string()) {
      std::u32string u = DecodeUtf8(v.as_string());
      std::reverse(u.begin(), u.end());
      return Value(EncodeUtf8(u));
    }
    JINJA_ASSIGN_OR_RETURN(items, Iterate(v));
    std::reverse(items.begin(), items.end());
    return Value::Array(items);
  }
  if (name == "select" || name == "reject" || name == "selectattr" || name == "rejectattr") {
    bool attr = name == "selectattr" || name == "rejectattr";
    bool select = name == "select" || name == "selectattr";
    JINJA_ASSIGN_OR_RETURN(out, SelectOrReject(v, a, attr, select));
    return Value::Array(out);
  }
  if (name == "map") {
    JINJA_ASSIGN_OR_RETURN(items, Iterate(v));
    std::vector<Value> out;
    const Value* attr = nullptr;
    const Value* def = nullptr;
    for (const auto& [k, kv] : a.kwargs) {
      if (k == "attribute") attr = &kv;
      if (k == "default") def = &kv;
    }
    if (attr) {
      for (const Value& it : items) {
        JINJA_ASSIGN_OR_RETURN(got, GetPath(it, attr->Str()));
        out.push_back(got.is_undefined() && def ? *def : got);
      }
      return Value::Array(out);
    }
    if (a.args.empty() || !a.args[0].is_string()) return Err("map needs a filter name");
    CallArgs rest;
    rest.args.assign(a.args.begin() + 1, a.args.end());
    rest.kwargs = a.kwargs;
    for (const Value& it : items) {
      JINJA_ASSIGN_OR_RETURN(got, ApplyFilter(a.args[0].as_string(), it, rest));
      out.push_back(got);
    }
    return Value::Array(out);
  }
  if (name == "attr") {
    const Value* n = args.Get(0, "name");
    if (!n) return Err("attr needs a name");
    // Attribute lookup only (no item fallback): dict keys are not attributes.
    if (v.is_dict()) {
      if (IsDictMethodName(n->Str())) return DictMethod(v, n->Str());
      return Value::Undefined(absl::StrCat("'dict object' has no attribute '", n->Str(), "'"));
    }
    return GetAttr(v, n->Str());
  }
  if (name == "sum") {
    const Value* attr = args.Get(0, "attribute");
    const Value* start = args.Get(1, "start");
    JINJA_ASSIGN_OR_RETURN(items, Iterate(v));
    Value acc = start ? *start : Value(int64_t{0});
    for (const Value& it : items) {
      Value x = it;
      if (attr && !attr->is_none()) {
        JINJA_ASSIGN_OR_RETURN(got, GetPath(it, attr->Str()));
        x = got;
      }
      JINJA_ASSIGN_OR_RETURN(s, Arith("+", acc, x));
      acc = s;
    }
    return acc;
  }
  if (name == "min" || name == "max") {
    const Value* cs = args.Get(0, "case_sensitive");
    const Value* attr = args.Get(1, "attribute");
    JINJA_ASSIGN_OR_RETURN(items, Iterate(v));
    if (items.empty()) return Value::Undefined("min/max of an empty sequence");
    JINJA_ASSIGN_OR_RETURN(sorted, SortValues(items, cs && cs->Truthy(), false,
                                              attr && !attr->is_none() ? attr->Str() : ""));
    return name == "min" ? sorted.front() : sorted.back();
  }
  if (name == "indent") {
    const Value* w = args.Get(0, "width");
    const Value* first = args.Get(1, "first");
    const Value* blank = args.Get(2, "blank");
    std::string ind =
        w ? (w->is_string() ? w->as_string() : std::string(w->as_int(), ' ')) : std::string(4, ' ');
    std::string s = v.Str() + "\n";
    std::vector<std::string> lines;
    size_t b = 0;
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[i] == '\n') {
        lines.push_back(s.substr(b, i - b));
        b = i + 1;
      }
    }
    std::string rv;
    if (blank && blank->Truthy()) {
      for (size_t i = 0; i < lines.size(); ++i) {
        if (i) rv += "\n" + ind;
        rv += lines[i];
      }
    } else {
      rv = lines.empty() ? "" : lines[0];
      for (size_t i = 1; i < lines.size(); ++i) {
        rv += "\n";
        if (!lines[i].empty()) rv += ind;
        rv += lines[i];
      }
    }
    if (first && first->Truthy()) rv = ind + rv;
    return Value(rv);
  }
  if (name == "format") {
    JINJA_ASSIGN_OR_RETURN(s, PercentFormat(v.Str(), a.args.size() == 1 && !a.args[0].is_tuple()
                                                         ? a.args[0]
                                                         : Value::Tuple(a.args)));
    return Value(s);
  }
  if (name == "wordcount") {
    JINJA_ASSIGN_OR_RETURN(parts, PySplit(v.Str(), nullptr, -1));
    return Value(static_cast<int64_t>(parts.size()));
  }
  if (name == "center") {
    const Value* w = args.Get(0, "width");
    int64_t width = w ? w->as_int() : 80;
    std::string s = v.Str();
    int64_t n = StrLen(s);
    if (n >= width) return Value(s);
    int64_t pad = width - n;
    int64_t left = pad / 2 + (pad & width & 1);
    return Value(std::string(left, ' ') + s + std::string(pad - left, ' '));
  }
  if (name == "batch") {
    const Value* n = args.Get(0, "linecount");
    const Value* fill = args.Get(1, "fill_with");
    if (!n || n->as_int() <= 0) return Err("batch needs a positive size");
    JINJA_ASSIGN_OR_RETURN(items, Iterate(v));
    std::vector<Value> out;
    for (size_t i = 0; i < items.size(); i += n->as_int()) {
      std::vector<Value> chunk;
      for (size_t j = i; j < i + n->as_int(); ++j) {
        if (j < items.size()) {
          chunk.push_back(items[j]);
        } else if (fill) {
          chunk.push_back(*fill);
        }
      }
      out.push_back(Value::Array(chunk));
    }
    return Value::Array(out);
  }
  return Err(absl::StrCat("no filter named '", name, "'"));
}

// ============================================================ Renderer

// Variables of one scope. Scopes are small (a few names), so a vector with
// linear search beats a hash map, and creating one per loop iteration is cheap.
class VarMap {
 public:
  Value& operator[](const std::string& name) {
    for (auto& kv : vars_) {
      if (kv.first == name) return kv.second;
    }
    vars_.emplace_back(name, Value());
    return vars_.back().second;
  }
  const Value* Get(const std::string& name) const {
    for (const auto& kv : vars_) {
      if (kv.first == name) return &kv.second;
    }
    return nullptr;
  }
  size_t count(const std::string& name) const { return Get(name) ? 1 : 0; }

 private:
  std::vector<std::pair<std::string, Value>> vars_;
};

struct Scope {
  VarMap vars;
  std::shared_ptr<Scope> parent;

  const Value* Lookup(const std::string& name) const {
    for (const Scope* s = this; s; s = s->parent.get()) {
      if (const Value* v = s->vars.Get(name)) return v;
    }
    return nullptr;
  }
};
using ScopePtr = std::shared_ptr<Scope>;

ScopePtr Child(const ScopePtr& parent) {
  auto s = std::make_shared<Scope>();
  s->parent = parent;
  return s;
}

class Renderer {
 public:
  absl::Status RenderBody(const Body& body, const ScopePtr& scope, std::string* out) {
    for (const NodePtr& n : body) {
      JINJA_RETURN_IF_ERROR(RenderNode(*n, scope, out));
      if (flow_ != Flow::kNormal) return absl::OkStatus();
    }
    return absl::OkStatus();
  }

 private:
  enum class Flow { kNormal, kBreak, kContinue };

  absl::Status RenderNode(const Node& n, const ScopePtr& scope, std::string* out) {
    switch (n.kind) {
      case Node::kText:
        out->append(n.text);
        return absl::OkStatus();
      case Node::kOutput: {
        JINJA_ASSIGN_OR_RETURN(v, Eval(*n.expr, scope));
        out->append(v.Str());
        return absl::OkStatus();
      }
      case Node::kIf:
        for (size_t i = 0; i < n.conds.size(); ++i) {
          JINJA_ASSIGN_OR_RETURN(c, Eval(*n.conds[i], scope));
          if (c.Truthy()) return RenderBody(n.bodies[i], scope, out);
        }
        return RenderBody(n.else_body, scope, out);
      case Node::kFor:
        return RenderFor(n, scope, out);
      case Node::kSet: {
        JINJA_ASSIGN_OR_RETURN(v, Eval(*n.expr, scope));
        return Assign(n, scope, std::move(v));
      }
      case Node::kSetBlock: {
        std::string captured;
        JINJA_RETURN_IF_ERROR(RenderBody(n.body, scope, &captured));
        Value v(captured);
        if (n.filter) {
          JINJA_ASSIGN_OR_RETURN(f, EvalWithPipe(*n.filter, scope, v));
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
        JINJA_ASSIGN_OR_RETURN(fn, Eval(*call.args[0], scope));
        JINJA_ASSIGN_OR_RETURN(ca, EvalCallArgs(call, 1, scope));
        ca.kwargs.emplace_back("caller", caller);
        JINJA_ASSIGN_OR_RETURN(r, CallValue(fn, ca, call.line));
        out->append(r.Str());
        return absl::OkStatus();
      }
      case Node::kFilterBlock: {
        std::string captured;
        JINJA_RETURN_IF_ERROR(RenderBody(n.body, scope, &captured));
        JINJA_ASSIGN_OR_RETURN(f, EvalWithPipe(*n.filter, scope, Value(captured)));
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
          JINJA_ASSIGN_OR_RETURN(v, Eval(*e, scope));
          inner->vars[k] = v;
        }
        return RenderBody(n.body, n.assigns.empty() ? scope : inner, out);
      }
    }
    return absl::OkStatus();
  }

  absl::Status Assign(const Node& n, const ScopePtr& scope, Value v) {
    if (!n.ns_attr.empty()) {
      const Value* ns = scope->Lookup(n.targets[0]);
      if (!ns || !ns->is_object() || ns->object_kind() != Value::ObjectKind::kNamespace) {
        return LineError(n.line, absl::StrCat("cannot assign attribute '", n.ns_attr, "' on '",
                                              n.targets[0], "': not a namespace"));
      }
      ns->object().Set(n.ns_attr, std::move(v));
      return absl::OkStatus();
    }
    if (n.targets.size() == 1) {
      scope->vars[n.targets[0]] = std::move(v);
      return absl::OkStatus();
    }
    auto items = Iterate(v);
    if (!items.ok()) return AtLine(items.status(), n.line);
    if (items->size() != n.targets.size()) {
      return LineError(n.line, absl::StrFormat("cannot unpack %d values into %d names",
                                               items->size(), n.targets.size()));
    }
    for (size_t i = 0; i < n.targets.size(); ++i) scope->vars[n.targets[i]] = (*items)[i];
    return absl::OkStatus();
  }

  absl::Status BindTargets(const Node& n, const ScopePtr& scope, const Value& item) {
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

  absl::Status RenderFor(const Node& n, const ScopePtr& scope, std::string* out) {
    JINJA_ASSIGN_OR_RETURN(iterable, Eval(*n.expr, scope));
    auto items_or = Iterate(iterable);
    if (!items_or.ok()) return AtLine(items_or.status(), n.line);
    std::vector<Value> items = std::move(*items_or);
    if (n.filter) {
      std::vector<Value> kept;
      for (const Value& it : items) {
        ScopePtr s = Child(scope);
        JINJA_RETURN_IF_ERROR(BindTargets(n, s, it));
        JINJA_ASSIGN_OR_RETURN(c, Eval(*n.filter, s));
        if (c.Truthy()) kept.push_back(it);
      }
      items = std::move(kept);
    }
    if (items.empty()) return RenderBody(n.else_body, scope, out);
    int64_t len = static_cast<int64_t>(items.size());
    for (int64_t i = 0; i < len; ++i) {
      ScopePtr s = Child(scope);
      JINJA_RETURN_IF_ERROR(BindTargets(n, s, items[i]));
      if (!n.uses_loop) {
        JINJA_RETURN_IF_ERROR(RenderBody(n.body, s, out));
        if (flow_ == Flow::kBreak) {
          flow_ = Flow::kNormal;
          break;
        }
        flow_ = Flow::kNormal;
        continue;
      }
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
      s->vars["loop"] = loop;
      JINJA_RETURN_IF_ERROR(RenderBody(n.body, s, out));
      if (flow_ == Flow::kBreak) {
        flow_ = Flow::kNormal;
        break;
      }
      flow_ = Flow::kNormal;
    }
    return absl::OkStatus();
  }

  Value MakeMacro(const Node& n, const ScopePtr& defining_scope) {
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
              JINJA_ASSIGN_OR_RETURN(d, self->Eval(*p.second, s));
              s->vars[p.first] = d;
            } else {
              s->vars[p.first] = Value::Undefined(
                  absl::StrCat("parameter '", p.first, "' of macro '", name, "' was not provided"));
            }
          }
          s->vars["varargs"] = Value::Tuple(varargs);
          s->vars["kwargs"] = kwargs;
          if (++self->depth_ > 200) {
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

  absl::StatusOr<CallArgs> EvalCallArgs(const Expr& e, size_t first, const ScopePtr& scope) {
    CallArgs ca;
    for (size_t i = first; i < e.args.size(); ++i) {
      JINJA_ASSIGN_OR_RETURN(v, Eval(*e.args[i], scope));
      ca.args.push_back(std::move(v));
    }
    for (const auto& [k, ex] : e.kwargs) {
      JINJA_ASSIGN_OR_RETURN(v, Eval(*ex, scope));
      ca.kwargs.emplace_back(k, std::move(v));
    }
    return ca;
  }

  absl::StatusOr<Value> CallValue(const Value& fn, const CallArgs& ca, int line) {
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

  absl::StatusOr<Value> EvalWithPipe(const Expr& chain, const ScopePtr& scope, Value input) {
    const Value* saved = pipe_input_;
    pipe_input_ = &input;
    auto r = Eval(chain, scope);
    pipe_input_ = saved;
    return r;
  }

 public:
  absl::StatusOr<Value> Eval(const Expr& e, const ScopePtr& scope) {
    auto r = EvalInner(e, scope);
    if (!r.ok()) return AtLine(r.status(), e.line);
    return r;
  }

 private:
  absl::StatusOr<Value> EvalInner(const Expr& e, const ScopePtr& scope) {
    switch (e.kind) {
      case Expr::kLiteral:
        return e.literal;
      case Expr::kName: {
        const Value* v = scope->Lookup(e.name);
        if (v) return *v;
        return Value::Undefined(absl::StrCat("'", e.name, "' is undefined"));
      }
      case Expr::kGetAttr: {
        JINJA_ASSIGN_OR_RETURN(obj, Eval(*e.args[0], scope));
        return GetAttr(obj, e.name);
      }
      case Expr::kGetItem: {
        JINJA_ASSIGN_OR_RETURN(obj, Eval(*e.args[0], scope));
        JINJA_ASSIGN_OR_RETURN(key, Eval(*e.args[1], scope));
        return GetItem(obj, key);
      }
      case Expr::kSlice: {
        JINJA_ASSIGN_OR_RETURN(obj, Eval(*e.args[0], scope));
        Value parts[3];
        const Value* ptrs[3] = {nullptr, nullptr, nullptr};
        for (int i = 0; i < 3; ++i) {
          if (e.args[i + 1]) {
            JINJA_ASSIGN_OR_RETURN(p, Eval(*e.args[i + 1], scope));
            parts[i] = p;
            ptrs[i] = &parts[i];
          }
        }
        return Slice(obj, ptrs[0], ptrs[1], ptrs[2]);
      }
      case Expr::kCall: {
        JINJA_ASSIGN_OR_RETURN(fn, Eval(*e.args[0], scope));
        JINJA_ASSIGN_OR_RETURN(ca, EvalCallArgs(e, 1, scope));
        return CallValue(fn, ca, e.line);
      }
      case Expr::kFilter: {
        Value subject;
        if (e.args[0]) {
          JINJA_ASSIGN_OR_RETURN(s, Eval(*e.args[0], scope));
          subject = s;
        } else if (pipe_input_) {
          subject = *pipe_input_;
        }
        JINJA_ASSIGN_OR_RETURN(ca, EvalCallArgs(e, 1, scope));
        auto r = ApplyFilter(e.name, subject, ca);
        if (!r.ok()) {
          return LineError(e.line, absl::StrCat("filter '", e.name, "': ", r.status().message()));
        }
        return r;
      }
      case Expr::kTest: {
        JINJA_ASSIGN_OR_RETURN(subject, Eval(*e.args[0], scope));
        JINJA_ASSIGN_OR_RETURN(ca, EvalCallArgs(e, 1, scope));
        auto r = ApplyTest(e.name, subject, ca.args);
        if (!r.ok()) {
          return LineError(e.line, absl::StrCat("test '", e.name, "': ", r.status().message()));
        }
        return Value(*r);
      }
      case Expr::kNot: {
        JINJA_ASSIGN_OR_RETURN(v, Eval(*e.args[0], scope));
        return Value(!v.Truthy());
      }
      case Expr::kNeg:
      case Expr::kPos: {
        JINJA_ASSIGN_OR_RETURN(v, Eval(*e.args[0], scope));
        if (!v.is_number())
          return Err(absl::StrCat("bad operand type for unary -: '", v.TypeName(), "'"));
        if (e.kind == Expr::kPos) return v.is_bool() ? Value(v.as_int()) : v;
        return v.is_float() ? Value(-v.as_float()) : Value(-v.as_int());
      }
      case Expr::kBinary: {
        JINJA_ASSIGN_OR_RETURN(l, Eval(*e.args[0], scope));
        JINJA_ASSIGN_OR_RETURN(r, Eval(*e.args[1], scope));
        return Arith(e.name, l, r);
      }
      case Expr::kConcat: {
        std::string s;
        for (const auto& a : e.args) {
          JINJA_ASSIGN_OR_RETURN(v, Eval(*a, scope));
          s += v.Str();
        }
        return Value(s);
      }
      case Expr::kCompare: {
        JINJA_ASSIGN_OR_RETURN(left, Eval(*e.args[0], scope));
        for (size_t i = 0; i < e.ops.size(); ++i) {
          JINJA_ASSIGN_OR_RETURN(right, Eval(*e.args[i + 1], scope));
          const std::string& op = e.ops[i];
          bool r;
          if (op == "==") {
            r = left.Equals(right);
          } else if (op == "!=") {
            r = !left.Equals(right);
          } else if (op == "in" || op == "notin") {
            JINJA_ASSIGN_OR_RETURN(c, Contains(right, left));
            r = op == "in" ? c : !c;
          } else {
            if (left.is_undefined() || right.is_undefined()) {
              const Value& u = left.is_undefined() ? left : right;
              return Err(u.undefined_hint().empty()
                             ? "undefined value in comparison"
                             : absl::StrCat(u.undefined_hint(), " (compared)"));
            }
            auto c = PyCompare(left, right);
            if (!c.ok()) {
              return Err(absl::StrCat("'", op, "' not supported between instances of '",
                                      left.TypeName(), "' and '", right.TypeName(), "'"));
            }
            r = op == "<" ? *c < 0 : op == ">" ? *c > 0 : op == "<=" ? *c <= 0 : *c >= 0;
          }
          if (!r) return Value(false);
          left = right;
        }
        return Value(true);
      }
      case Expr::kAnd: {
        JINJA_ASSIGN_OR_RETURN(l, Eval(*e.args[0], scope));
        if (!l.Truthy()) return l;
        return Eval(*e.args[1], scope);
      }
      case Expr::kOr: {
        JINJA_ASSIGN_OR_RETURN(l, Eval(*e.args[0], scope));
        if (l.Truthy()) return l;
        return Eval(*e.args[1], scope);
      }
      case Expr::kCond: {
        JINJA_ASSIGN_OR_RETURN(c, Eval(*e.args[0], scope));
        if (c.Truthy()) return Eval(*e.args[1], scope);
        if (e.args[2]) return Eval(*e.args[2], scope);
        return Value::Undefined("conditional expression without else");
      }
      case Expr::kList:
      case Expr::kTuple: {
        std::vector<Value> items;
        for (const auto& a : e.args) {
          JINJA_ASSIGN_OR_RETURN(v, Eval(*a, scope));
          items.push_back(std::move(v));
        }
        return e.kind == Expr::kTuple ? Value::Tuple(std::move(items))
                                      : Value::Array(std::move(items));
      }
      case Expr::kDict: {
        Value d = Value::Dict();
        for (size_t i = 0; i + 1 < e.args.size(); i += 2) {
          JINJA_ASSIGN_OR_RETURN(k, Eval(*e.args[i], scope));
          JINJA_ASSIGN_OR_RETURN(v, Eval(*e.args[i + 1], scope));
          if (!k.is_string()) return Err("dict keys must be strings");
          d.object().Set(k.as_string(), std::move(v));
        }
        return d;
      }
    }
    return Err("bad expression");
  }

  Flow flow_ = Flow::kNormal;
  const Value* pipe_input_ = nullptr;
  int depth_ = 0;
  std::vector<std::shared_ptr<ScopePtr>> closures_;

 public:
  ~Renderer() {
    for (auto& c : closures_) c->reset();
  }
};

Value MakeNamespace(const CallArgs& a) {
  Value ns = Value::Namespace();
  for (const Value& v : a.args) {
    if (v.is_dict()) {
      for (const auto& [k, x] : v.object().items()) ns.object().Set(k, x);
    }
  }
  for (const auto& [k, v] : a.kwargs) ns.object().Set(k, v);
  return ns;
}

void AddGlobals(Scope* g) {
  g->vars["range"] = Value::Function("range", [](const CallArgs& a) -> absl::StatusOr<Value> {
    int64_t start = 0, stop = 0, step = 1;
    for (const Value& v : a.args) {
      if (!v.is_int() && !v.is_bool()) return Err("range() arguments must be integers");
    }
    if (a.args.size() == 1) {
      stop = a.args[0].as_int();
    } else if (a.args.size() >= 2) {
      start = a.args[0].as_int();
      stop = a.args[1].as_int();
      if (a.args.size() >= 3) step = a.args[2].as_int();
    } else {
      return Err("range() expects arguments");
    }
    if (step == 0) return Err("range() arg 3 must not be zero");
    std::vector<Value> out;
    for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) {
      out.emplace_back(i);
      if (out.size() > 100000) return Err("range too big");
    }
    return Value::Array(std::move(out));
  });
  g->vars["namespace"] =
      Value::Function("namespace", [](const CallArgs& a) -> absl::StatusOr<Value> {
        for (const auto& kv : a.kwargs) {
          if (!kv.first.empty() && kv.first[0] == '_') {
            return Err("namespace attributes cannot start with an underscore");
          }
        }
        return MakeNamespace(a);
      });
  g->vars["dict"] = Value::Function("dict", [](const CallArgs& a) -> absl::StatusOr<Value> {
    Value d = Value::Dict();
    for (const Value& v : a.args) {
      if (v.is_dict()) {
        for (const auto& [k, x] : v.object().items()) d.object().Set(k, x);
      } else {
        return Err("dict() positional argument must be a mapping");
      }
    }
    for (const auto& [k, v] : a.kwargs) d.object().Set(k, v);
    return d;
  });
  g->vars["raise_exception"] =
      Value::Function("raise_exception", [](const CallArgs& a) -> absl::StatusOr<Value> {
        std::string msg = a.args.empty() ? "" : a.args[0].Str();
        return absl::InvalidArgumentError(absl::StrCat("raise_exception: ", msg));
      });
  g->vars["strftime_now"] =
      Value::Function("strftime_now", [](const CallArgs& a) -> absl::StatusOr<Value> {
        if (a.args.empty() || !a.args[0].is_string()) return Err("strftime_now(format)");
        std::time_t t = std::time(nullptr);
        std::tm tm;
        localtime_r(&t, &tm);
        char buf[256];
        size_t n = std::strftime(buf, sizeof(buf), a.args[0].as_string().c_str(), &tm);
        return Value(std::string(buf, n));
      });
}

}  // namespace

absl::StatusOr<JinjaTemplate> JinjaTemplate::Parse(absl::string_view source,
                                                   const JinjaOptions& options) {
  Lexer lexer(source, options);
  JINJA_ASSIGN_OR_RETURN(tokens, lexer.Run());
  Parser parser(std::move(tokens));
  JINJA_ASSIGN_OR_RETURN(body, parser.ParseTemplate());
  auto program = std::make_shared<Program>();
  program->body = std::move(body);
  return JinjaTemplate(std::move(program));
}

absl::StatusOr<std::string> JinjaTemplate::Render(const Value& context) const {
  auto globals = std::make_shared<Scope>();
  AddGlobals(globals.get());
  if (context.is_dict()) {
    for (const auto& [k, v] : context.object().items()) globals->vars[k] = v;
  } else if (!context.is_undefined() && !context.is_none()) {
    return absl::InvalidArgumentError("render context must be a dict");
  }
  ScopePtr top = Child(globals);
  Renderer r;
  std::string out;
  JINJA_RETURN_IF_ERROR(r.RenderBody(program_->body, top, &out));
  return out;
}

}  // namespace oxinfer::chat
