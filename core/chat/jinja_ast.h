// The syntax tree of a parsed template: statements (Node) holding
// expressions (Expr). The parser builds it once; rendering only reads it, so
// a parsed template can render from several threads at once.
#ifndef OXINFER_CORE_CHAT_JINJA_AST_H_
#define OXINFER_CORE_CHAT_JINJA_AST_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/chat/value.h"

namespace oxinfer::chat::jinja_internal {

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

}  // namespace oxinfer::chat::jinja_internal

#endif  // OXINFER_CORE_CHAT_JINJA_AST_H_
