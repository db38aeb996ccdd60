// UTF-8 helper shared by the value library's parts (DecodeUtf8 and
// EncodeUtf8 themselves are public, in value.h).
#ifndef OXINFER_CORE_CHAT_VALUE_UTF8_H_
#define OXINFER_CORE_CHAT_VALUE_UTF8_H_

#include <string>

namespace oxinfer::chat {

// Appends the UTF-8 encoding of `cp`.
void AppendUtf8(std::string& out, char32_t cp);

}  // namespace oxinfer::chat

#endif  // OXINFER_CORE_CHAT_VALUE_UTF8_H_
