// The global functions of transformers' template environment: range,
// namespace, dict, raise_exception, strftime_now.
#ifndef OXINFER_CORE_CHAT_JINJA_GLOBALS_H_
#define OXINFER_CORE_CHAT_JINJA_GLOBALS_H_

#include "core/chat/jinja_scope.h"

namespace oxinfer::chat::jinja_internal {

void AddGlobals(Scope* globals);

}  // namespace oxinfer::chat::jinja_internal

#endif  // OXINFER_CORE_CHAT_JINJA_GLOBALS_H_
