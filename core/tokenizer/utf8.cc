#include "core/tokenizer/utf8.h"

namespace oxinfer {
namespace tokenizer {
namespace {

// Number of bytes of the sequence introduced by `lead`, 0 for an invalid lead.
inline int SequenceLengthForLead(uint8_t lead) {
  if (lead < 0x80) return 1;
  if (lead >= 0xC2 && lead <= 0xDF) return 2;
  if (lead >= 0xE0 && lead <= 0xEF) return 3;
  if (lead >= 0xF0 && lead <= 0xF4) return 4;
  return 0;
}

// Valid range of the second byte for a given lead byte (Table 3-7).
inline bool SecondByteOk(uint8_t lead, uint8_t b) {
  switch (lead) {
    case 0xE0:
      return b >= 0xA0 && b <= 0xBF;
    case 0xED:
      return b >= 0x80 && b <= 0x9F;
    case 0xF0:
      return b >= 0x90 && b <= 0xBF;
    case 0xF4:
      return b >= 0x80 && b <= 0x8F;
    default:
      return b >= 0x80 && b <= 0xBF;
  }
}

// Number of bytes forming the maximal well-formed prefix starting at pos:
// returns {consumed, complete}.
inline void ScanSequence(absl::string_view s, size_t pos, size_t* consumed, bool* complete) {
  const uint8_t lead = static_cast<uint8_t>(s[pos]);
  const int len = SequenceLengthForLead(lead);
  if (len == 1) {
    *consumed = 1;
    *complete = true;
    return;
  }
  if (len == 0) {
    *consumed = 1;
    *complete = false;
    return;
  }
  size_t i = 1;
  for (; i < static_cast<size_t>(len); ++i) {
    if (pos + i >= s.size()) break;
    const uint8_t b = static_cast<uint8_t>(s[pos + i]);
    const bool ok = (i == 1) ? SecondByteOk(lead, b) : (b >= 0x80 && b <= 0xBF);
    if (!ok) break;
  }
  *consumed = i;
  *complete = (i == static_cast<size_t>(len));
}

}  // namespace

size_t ValidSequenceLength(absl::string_view s, size_t pos) {
  size_t consumed;
  bool complete;
  ScanSequence(s, pos, &consumed, &complete);
  return complete ? consumed : 0;
}

uint32_t DecodeValid(absl::string_view s, size_t* pos) {
  const uint8_t b0 = static_cast<uint8_t>(s[*pos]);
  if (b0 < 0x80) {
    ++*pos;
    return b0;
  }
  if (b0 < 0xE0) {
    const uint32_t cp = ((b0 & 0x1F) << 6) | (static_cast<uint8_t>(s[*pos + 1]) & 0x3F);
    *pos += 2;
    return cp;
  }
  if (b0 < 0xF0) {
    const uint32_t cp = ((b0 & 0x0F) << 12) | ((static_cast<uint8_t>(s[*pos + 1]) & 0x3F) << 6) |
                        (static_cast<uint8_t>(s[*pos + 2]) & 0x3F);
    *pos += 3;
    return cp;
  }
  const uint32_t cp = ((b0 & 0x07) << 18) | ((static_cast<uint8_t>(s[*pos + 1]) & 0x3F) << 12) |
                      ((static_cast<uint8_t>(s[*pos + 2]) & 0x3F) << 6) |
                      (static_cast<uint8_t>(s[*pos + 3]) & 0x3F);
  *pos += 4;
  return cp;
}

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

bool IsValidUtf8(absl::string_view s) {
  size_t pos = 0;
  const size_t n = s.size();
  while (pos < n) {
    // Fast path over ASCII, 8 bytes at a time.
    while (pos + 8 <= n) {
      uint64_t w;
      __builtin_memcpy(&w, s.data() + pos, 8);
      if (w & 0x8080808080808080ULL) break;
      pos += 8;
    }
    if (pos >= n) break;
    if (static_cast<uint8_t>(s[pos]) < 0x80) {
      ++pos;
      continue;
    }
    const size_t len = ValidSequenceLength(s, pos);
    if (len == 0) return false;
    pos += len;
  }
  return true;
}

std::string ToValidUtf8Lossy(absl::string_view s) {
  std::string out;
  out.reserve(s.size());
  size_t pos = 0;
  while (pos < s.size()) {
    size_t consumed;
    bool complete;
    ScanSequence(s, pos, &consumed, &complete);
    if (complete) {
      out.append(s.data() + pos, consumed);
    } else {
      AppendUtf8(kReplacementChar, &out);
    }
    pos += consumed;
  }
  return out;
}

size_t IncompleteSuffixLength(absl::string_view s) {
  // An incomplete sequence is at most 3 bytes long: look for its lead byte.
  const size_t n = s.size();
  for (size_t back = 1; back <= 3 && back <= n; ++back) {
    const uint8_t b = static_cast<uint8_t>(s[n - back]);
    if ((b & 0xC0) == 0x80) continue;  // continuation byte: keep looking
    const int len = SequenceLengthForLead(b);
    if (len <= 1 || static_cast<size_t>(len) <= back) return 0;
    size_t consumed;
    bool complete;
    ScanSequence(s, n - back, &consumed, &complete);
    // Incomplete only if every byte up to the end is a valid continuation.
    return (!complete && consumed == back) ? back : 0;
  }
  return 0;
}

bool IsWhitespace(uint32_t cp) {
  if (cp < 0x80) return cp == 0x20 || (cp >= 0x09 && cp <= 0x0D);
  switch (cp) {
    case 0x85:
    case 0xA0:
    case 0x1680:
    case 0x2028:
    case 0x2029:
    case 0x202F:
    case 0x205F:
    case 0x3000:
      return true;
    default:
      return cp >= 0x2000 && cp <= 0x200A;
  }
}

}  // namespace tokenizer
}  // namespace oxinfer
