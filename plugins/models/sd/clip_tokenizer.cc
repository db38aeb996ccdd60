#include "plugins/models/sd/clip_tokenizer.h"

#include <unicode/bytestream.h>
#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/uniset.h>
#include <unicode/utf8.h>

#include <limits>
#include <utility>

#include "oxinfer/sdk/common.hpp"
#include "oxinfer/sdk/json.hpp"

namespace oxinfer {
namespace sd {
namespace {

constexpr char kBos[] = "<|startoftext|>";
constexpr char kEos[] = "<|endoftext|>";

std::string Utf8(uint32_t cp) {
  std::string s;
  if (cp < 0x80) {
    s += static_cast<char>(cp);
  } else if (cp < 0x800) {
    s += static_cast<char>(0xc0 | (cp >> 6));
    s += static_cast<char>(0x80 | (cp & 0x3f));
  } else {
    s += static_cast<char>(0xe0 | (cp >> 12));
    s += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    s += static_cast<char>(0x80 | (cp & 0x3f));
  }
  return s;
}

// A special-token entry: a plain string or {"content": ...}; "" otherwise.
std::string TokenContent(const sdk::Json& j) {
  const sdk::Json s = j.is_object() ? j["content"] : j;
  if (!s.is_string()) return "";
  auto v = s.String();
  return v.ok() ? *v : "";
}

// A JSON file that may be absent (an absent one parses as an empty document).
sdk::StatusOr<sdk::JsonDoc> OptionalJson(const std::string& path) {
  if (!sdk::FileExists(path)) return sdk::JsonDoc();
  return sdk::JsonDoc::FromFile(path);
}

// A vocabulary entry's id, checked to fit int32.
sdk::StatusOr<int32_t> TokenId(const sdk::Json& j) {
  OXI_ASSIGN_OR_RETURN(int64_t id, j.IntIn(0, std::numeric_limits<int32_t>::max()));
  return static_cast<int32_t>(id);
}

// The classes of CLIP's split pattern, on code points (Oniguruma's Unicode
// properties, as tokenizers compiles the pattern): \p{L}, \p{N}, \s.
enum class CharClass { kLetter, kNumber, kSpace, kOther };

CharClass Classify(UChar32 c) {
  if (c < 0x80) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return CharClass::kLetter;
    if (c >= '0' && c <= '9') return CharClass::kNumber;
    if (c == ' ' || (c >= '\t' && c <= '\r')) return CharClass::kSpace;
    return CharClass::kOther;
  }
  const uint32_t gc = U_GET_GC_MASK(c);
  if (gc & U_GC_L_MASK) return CharClass::kLetter;
  if (gc & U_GC_N_MASK) return CharClass::kNumber;
  if (u_isUWhiteSpace(c)) return CharClass::kSpace;
  return CharClass::kOther;
}

// NFC as tokenizers applies it: its Unicode 9.0 tables, so ICU's is
// restricted to the characters of that age (later ones pass unchanged and,
// as starters, block composition across them). nullptr if ICU lacks the data.
const icu::Normalizer2* Nfc9() {
  static const icu::Normalizer2* const n = []() -> const icu::Normalizer2* {
    UErrorCode status = U_ZERO_ERROR;
    const icu::Normalizer2* nfc = icu::Normalizer2::getNFCInstance(status);
    auto* age9 = new icu::UnicodeSet(icu::UnicodeString(u"[:age=9.0:]"), status);
    if (U_FAILURE(status) || nfc == nullptr) return nullptr;
    age9->freeze();
    return new icu::FilteredNormalizer2(*nfc, *age9);
  }();
  return n;
}

// tokenizers' normalizer for CLIP: NFC, each run of \s to one space, then
// Lowercase (Rust's char::to_lowercase: the full mapping, per code point, so
// no final sigma; only U+0130 changes length). Input is valid UTF-8.
std::string Normalize(const std::string& raw) {
  std::string nfc = raw;
  bool ascii = true;
  for (unsigned char c : raw) ascii = ascii && c < 0x80;
  if (!ascii && Nfc9() != nullptr) {
    UErrorCode status = U_ZERO_ERROR;
    std::string out;
    icu::StringByteSink<std::string> sink(&out, static_cast<int32_t>(raw.size()));
    Nfc9()->normalizeUTF8(0, icu::StringPiece(raw.data(), static_cast<int32_t>(raw.size())), sink,
                          nullptr, status);
    if (U_SUCCESS(status)) nfc = std::move(out);
  }
  std::string text;
  const int32_t n = static_cast<int32_t>(nfc.size());
  for (int32_t i = 0; i < n;) {
    UChar32 c;
    U8_NEXT(nfc.data(), i, n, c);
    if (c < 0) c = 0xFFFD;
    if (Classify(c) == CharClass::kSpace) {
      if (text.empty() || text.back() != ' ') text += ' ';
      continue;
    }
    if (c == 0x130) {  // İ -> i + COMBINING DOT ABOVE
      text += "i\xCC\x87";
      continue;
    }
    const UChar32 lower = u_tolower(c);
    char buf[U8_MAX_LENGTH];
    int32_t len = 0;
    UBool error = false;
    U8_APPEND(buf, len, U8_MAX_LENGTH, lower, error);
    if (error) continue;  // not a scalar value: cannot happen after U8_NEXT
    text.append(buf, len);
  }
  return text;
}

// The class of the code point at text[i], and its length in bytes.
CharClass ClassAt(const std::string& text, size_t i, size_t* len) {
  const int32_t n = static_cast<int32_t>(text.size());
  int32_t at = static_cast<int32_t>(i);
  UChar32 c;
  U8_NEXT(text.data(), at, n, c);
  *len = static_cast<size_t>(at) - i;
  return c < 0 ? CharClass::kOther : Classify(c);
}

}  // namespace

sdk::Status ClipTokenizer::LoadVocabAndMerges(const std::string& dir) {
  OXI_ASSIGN_OR_RETURN(sdk::JsonDoc vocab, sdk::JsonDoc::FromFile(dir + "/vocab.json"));
  if (!vocab.root().is_object()) return vocab.root().Error("not a JSON object");
  for (const sdk::Json& e : vocab.root().Children()) {
    OXI_ASSIGN_OR_RETURN(int32_t id, TokenId(e));
    vocab_[std::string(e.key())] = id;
  }
  OXI_ASSIGN_OR_RETURN(std::string merges, sdk::ReadFile(dir + "/merges.txt"));
  int32_t rank = 0;
  bool first = true;
  for (size_t at = 0; at < merges.size();) {
    size_t end = merges.find('\n', at);
    if (end == std::string::npos) end = merges.size();
    std::string line = merges.substr(at, end - at);
    at = end + 1;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (first && line.rfind("#version", 0) == 0) {
      first = false;
      continue;
    }
    first = false;
    if (!line.empty()) merge_rank_.emplace(std::move(line), rank++);
  }
  return sdk::OkStatus();
}

sdk::Status ClipTokenizer::LoadTokenizerJson(const std::string& dir) {
  OXI_ASSIGN_OR_RETURN(sdk::JsonDoc doc, sdk::JsonDoc::FromFile(dir + "/tokenizer.json"));
  const sdk::Json model = doc.root()["model"];
  if (!model["vocab"].is_object() || !model["merges"].is_array()) {
    return model.Error("not a BPE model (vocab object and merges array)");
  }
  for (const sdk::Json& e : model["vocab"].Children()) {
    OXI_ASSIGN_OR_RETURN(int32_t id, TokenId(e));
    vocab_[std::string(e.key())] = id;
  }
  int32_t rank = 0;
  for (const sdk::Json& m : model["merges"].Children()) {
    std::string key;
    if (m.is_string()) {
      OXI_ASSIGN_OR_RETURN(key, m.String());
    } else {
      OXI_ASSIGN_OR_RETURN(std::string a, m[int64_t{0}].String());
      OXI_ASSIGN_OR_RETURN(std::string b, m[int64_t{1}].String());
      key = a + " " + b;
    }
    merge_rank_.emplace(std::move(key), rank++);
  }
  return sdk::OkStatus();
}

sdk::Status ClipTokenizer::LoadSpecialTokens(const std::string& dir) {
  auto id_of = [this](const std::string& s) {
    auto it = vocab_.find(s);
    return it == vocab_.end() ? -1 : it->second;
  };
  bos_ = id_of(kBos);
  eos_ = id_of(kEos);
  unk_ = eos_;
  if (bos_ < 0 || eos_ < 0) {
    return sdk::InvalidArgumentError(dir +
                                     ": the vocabulary lacks <|startoftext|> or <|endoftext|>");
  }
  std::string pad = kEos;
  OXI_ASSIGN_OR_RETURN(sdk::JsonDoc cfg, OptionalJson(dir + "/tokenizer_config.json"));
  if (cfg.root().is_object()) {
    if (!TokenContent(cfg.root()["pad_token"]).empty()) pad = TokenContent(cfg.root()["pad_token"]);
    const sdk::Json max_len = cfg.root()["model_max_length"];
    if (max_len.is_int()) {
      OXI_ASSIGN_OR_RETURN(int64_t n, max_len.Int());
      if (n >= 2 && n <= 4096) max_length_ = static_cast<int>(n);
    }
  }
  // special_tokens_map.json wins over tokenizer_config.json, as in transformers
  // (SD 2.x: "!" there, "<|endoftext|>" in the config).
  OXI_ASSIGN_OR_RETURN(sdk::JsonDoc map, OptionalJson(dir + "/special_tokens_map.json"));
  if (map.root().is_object() && !TokenContent(map.root()["pad_token"]).empty()) {
    pad = TokenContent(map.root()["pad_token"]);
  }
  pad_ = id_of(pad);
  if (pad_ < 0) {
    return sdk::InvalidArgumentError(
        sdk::StrCat(dir, ": pad token '", pad, "' not in the vocabulary"));
  }
  specials_ = {{kBos, bos_}, {kEos, eos_}};
  if (pad != kBos && pad != kEos) specials_.emplace_back(pad, pad_);
  return sdk::OkStatus();
}

sdk::StatusOr<ClipTokenizer> ClipTokenizer::Load(const std::string& dir) {
  ClipTokenizer t;
  // GPT-2's byte -> printable code point table.
  {
    bool printable[256] = {false};
    for (int b = '!'; b <= '~'; ++b) printable[b] = true;
    for (int b = 0xa1; b <= 0xac; ++b) printable[b] = true;
    for (int b = 0xae; b <= 0xff; ++b) printable[b] = true;
    int n = 0;
    for (int b = 0; b < 256; ++b) t.byte_char_[b] = printable[b] ? Utf8(b) : Utf8(256 + n++);
  }
  if (sdk::FileExists(dir + "/vocab.json") && sdk::FileExists(dir + "/merges.txt")) {
    OXI_RETURN_IF_ERROR(t.LoadVocabAndMerges(dir));
  } else if (sdk::FileExists(dir + "/tokenizer.json")) {
    OXI_RETURN_IF_ERROR(t.LoadTokenizerJson(dir));
  } else {
    return sdk::NotFoundError(dir + ": no vocab.json + merges.txt and no tokenizer.json");
  }
  OXI_RETURN_IF_ERROR(t.LoadSpecialTokens(dir));
  return t;
}

void ClipTokenizer::Bpe(const std::string& word, std::vector<int32_t>* out) const {
  // Symbols: the mapped bytes, the last one with "</w>".
  std::vector<std::string> sym;
  for (unsigned char c : word) sym.push_back(byte_char_[c]);
  if (sym.empty()) return;
  sym.back() += "</w>";
  while (sym.size() > 1) {
    int32_t best = std::numeric_limits<int32_t>::max();
    size_t best_i = 0;
    for (size_t i = 0; i + 1 < sym.size(); ++i) {
      auto it = merge_rank_.find(sym[i] + " " + sym[i + 1]);
      if (it != merge_rank_.end() && it->second < best) {
        best = it->second;
        best_i = i;
      }
    }
    if (best == std::numeric_limits<int32_t>::max()) break;
    const std::string a = sym[best_i], b = sym[best_i + 1];
    std::vector<std::string> merged;
    merged.reserve(sym.size());
    for (size_t i = 0; i < sym.size();) {
      if (i + 1 < sym.size() && sym[i] == a && sym[i + 1] == b) {
        merged.push_back(a + b);
        i += 2;
      } else {
        merged.push_back(sym[i]);
        ++i;
      }
    }
    sym = std::move(merged);
  }
  for (const std::string& s : sym) {
    auto it = vocab_.find(s);
    out->push_back(it == vocab_.end() ? unk_ : it->second);
  }
}

void ClipTokenizer::EncodeSegment(const std::string& raw, std::vector<int32_t>* out) const {
  const std::string text = Normalize(raw);
  // Split: 's|'t|'re|'ve|'m|'ll|'d|[\p{L}]+|[\p{N}]|[^\s\p{L}\p{N}]+ (the
  // byte-level step's GPT-2 pattern after it splits none of these pieces).
  static const char* kContractions[] = {"'s", "'t", "'re", "'ve", "'m", "'ll", "'d"};
  size_t i = 0;
  while (i < text.size()) {
    size_t clen = 0;
    const CharClass cls = ClassAt(text, i, &clen);
    if (cls == CharClass::kSpace) {
      i += clen;
      continue;
    }
    size_t len = 0;
    if (text[i] == '\'') {
      for (const char* con : kContractions) {
        const size_t n = std::char_traits<char>::length(con);
        if (text.compare(i, n, con) == 0) {
          len = n;
          break;
        }
      }
    }
    if (len == 0) {
      len = clen;
      if (cls != CharClass::kNumber) {
        // A run of letters, or of anything but letters, numbers and spaces
        // (a contraction inside such a run belongs to it: the alternation is
        // tried only at a match start).
        size_t next = 0;
        while (i + len < text.size() && ClassAt(text, i + len, &next) == cls) len += next;
      }
    }
    Bpe(text.substr(i, len), out);
    i += len;
  }
}

std::vector<int32_t> ClipTokenizer::EncodeRaw(const std::string& text) const {
  // Special tokens (bos, eos, pad, unk) are matched verbatim before anything
  // else, as transformers does: with SD 2.x's pad token "!", "dusk!" ends in
  // the pad id rather than the "!</w>" symbol.
  std::vector<int32_t> ids;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t best = std::string::npos, best_len = 0;
    int32_t best_id = -1;
    for (const auto& sp : specials_) {
      const size_t at = text.find(sp.first, pos);
      if (at == std::string::npos) continue;
      if (at < best || (at == best && sp.first.size() > best_len)) {
        best = at;
        best_len = sp.first.size();
        best_id = sp.second;
      }
    }
    EncodeSegment(text.substr(pos, best == std::string::npos ? std::string::npos : best - pos),
                  &ids);
    if (best == std::string::npos) break;
    ids.push_back(best_id);
    pos = best + best_len;
  }
  return ids;
}

std::vector<int32_t> ClipTokenizer::Encode(const std::string& text) const {
  std::vector<int32_t> content = EncodeRaw(text);
  const size_t room = static_cast<size_t>(max_length_ - 2);
  if (content.size() > room) content.resize(room);
  std::vector<int32_t> ids;
  ids.reserve(max_length_);
  ids.push_back(bos_);
  ids.insert(ids.end(), content.begin(), content.end());
  ids.push_back(eos_);
  while (ids.size() < static_cast<size_t>(max_length_)) ids.push_back(pad_);
  return ids;
}

}  // namespace sd
}  // namespace oxinfer
