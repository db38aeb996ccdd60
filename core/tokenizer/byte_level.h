// GPT-2's reversible byte <-> printable character mapping (bytes_to_unicode),
// used by the ByteLevel pre-tokenizer and decoder.
#ifndef OXINFER_CORE_TOKENIZER_BYTE_LEVEL_H_
#define OXINFER_CORE_TOKENIZER_BYTE_LEVEL_H_

#include <array>
#include <cstdint>
#include <string>

namespace oxinfer {
namespace tokenizer {

// The code point that stands for byte `b`.
uint32_t ByteToUnicode(uint8_t b);
// The UTF-8 encoding of ByteToUnicode(b).
const std::string& ByteToUnicodeUtf8(uint8_t b);
// The byte that code point `cp` stands for, or -1 if `cp` is not in the map.
int UnicodeToByte(uint32_t cp);

}  // namespace tokenizer
}  // namespace oxinfer

#endif  // OXINFER_CORE_TOKENIZER_BYTE_LEVEL_H_
