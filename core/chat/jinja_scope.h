// Variable scopes of a render: each block, loop iteration and macro call
// gets a child of the scope it runs in; lookups walk up to the globals.
#ifndef OXINFER_CORE_CHAT_JINJA_SCOPE_H_
#define OXINFER_CORE_CHAT_JINJA_SCOPE_H_

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/chat/value.h"

namespace oxinfer::chat::jinja_internal {

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

inline ScopePtr Child(const ScopePtr& parent) {
  auto s = std::make_shared<Scope>();
  s->parent = parent;
  return s;
}

}  // namespace oxinfer::chat::jinja_internal

#endif  // OXINFER_CORE_CHAT_JINJA_SCOPE_H_
