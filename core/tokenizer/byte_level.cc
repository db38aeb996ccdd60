#include "core/tokenizer/byte_level.h"

#include "core/tokenizer/utf8.h"

namespace oxinfer {
namespace tokenizer {
namespace {

struct Tables {
  std::array<uint32_t, 256> byte_to_cp;
  std::array<std::string, 256> byte_to_utf8;
  std::array<int16_t, 512> cp_to_byte;  // every mapped code point is < 0x144

  Tables() {
    cp_to_byte.fill(-1);
    std::array<bool, 256> direct{};
    for (int b = '!'; b <= '~'; ++b) direct[b] = true;
    for (int b = 0xA1; b <= 0xAC; ++b) direct[b] = true;
    for (int b = 0xAE; b <= 0xFF; ++b) direct[b] = true;
    uint32_t next = 256;
    for (int b = 0; b < 256; ++b) {
      byte_to_cp[b] = direct[b] ? static_cast<uint32_t>(b) : next++;
      AppendUtf8(byte_to_cp[b], &byte_to_utf8[b]);
      cp_to_byte[byte_to_cp[b]] = static_cast<int16_t>(b);
    }
  }
};

const Tables& GetTables() {
  static const Tables* const tables = new Tables();
  return *tables;
}

}  // namespace

uint32_t ByteToUnicode(uint8_t b) { return GetTables().byte_to_cp[b]; }

const std::string& ByteToUnicodeUtf8(uint8_t b) { return GetTables().byte_to_utf8[b]; }

int UnicodeToByte(uint32_t cp) { return cp < 512 ? GetTables().cp_to_byte[cp] : -1; }

}  // namespace tokenizer
}  // namespace oxinfer
