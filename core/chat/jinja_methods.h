// Python methods of the values templates see: str (strip, split, replace,
// startswith, format, ...), dict (items, keys, values, get, copy) and list
// (index, count). Methods that would modify a value are refused: transformers
// renders in an immutable sandbox.
#ifndef OXINFER_CORE_CHAT_JINJA_METHODS_H_
#define OXINFER_CORE_CHAT_JINJA_METHODS_H_

#include <string>

#include "core/chat/value.h"

namespace oxinfer::chat::jinja_internal {

// The bound method `name` of each type, or an Undefined naming it.
Value StringMethod(const std::string& s, const std::string& name);
// Undefined (without a hint) for names that are not dict methods.
Value DictMethod(const Value& d, const std::string& name);
Value ListMethod(const Value& list, const std::string& name);

// Whether `name` is a dict method (these shadow keys of the same name in
// attribute lookup, as in Python).
bool IsDictMethodName(const std::string& name);

}  // namespace oxinfer::chat::jinja_internal

#endif  // OXINFER_CORE_CHAT_JINJA_METHODS_H_
