#include "plugins/models/sd/clip_tokenizer.h"

#include <fstream>
#include <limits>
#include <sstream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace oxinfer {
namespace sd {
namespace {

constexpr char kBos[] = "<|startoftext|>";
constexpr char kEos[] = "<|endoftext|>";

bool ReadFile(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  return true;
}

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

// A special-token entry: a plain string or {"content": ...}.
std::string TokenContent(const nlohmann::json& j) {
  if (j.is_string()) return j.get<std::string>();
  if (j.is_object() && j.contains("content") && j["content"].is_string()) {
    return j["content"].get<std::string>();
  }
  return "";
}

absl::StatusOr<nlohmann::json> ParseJsonFile(const std::string& path, bool* found) {
  std::string text;
  *found = ReadFile(path, &text);
  if (!*found) return nlohmann::json();
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return absl::InvalidArgumentError(absl::StrCat(path, ": invalid JSON"));
  return j;
}

bool IsAsciiLetter(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsDigit(unsigned char c) { return c >= '0' && c <= '9'; }
bool IsSpace(unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
// Letters: ASCII letters and (approximately) every non-ASCII byte.
bool IsLetter(unsigned char c) { return IsAsciiLetter(c) || c >= 0x80; }

}  // namespace

absl::StatusOr<ClipTokenizer> ClipTokenizer::Load(const std::string& dir) {
  ClipTokenizer t;
  // GPT-2's byte -> printable code point table.
  {
    std::vector<int> bs;
    for (int b = '!'; b <= '~'; ++b) bs.push_back(b);
    for (int b = 0xa1; b <= 0xac; ++b) bs.push_back(b);
    for (int b = 0xae; b <= 0xff; ++b) bs.push_back(b);
    bool printable[256] = {false};
    for (int b : bs) printable[b] = true;
    int n = 0;
    for (int b = 0; b < 256; ++b) {
      t.byte_char_[b] = printable[b] ? Utf8(b) : Utf8(256 + n++);
    }
  }
  bool found = false;
  std::string vocab_text, merges_text;
  if (ReadFile(dir + "/vocab.json", &vocab_text) && ReadFile(dir + "/merges.txt", &merges_text)) {
    nlohmann::json v = nlohmann::json::parse(vocab_text, nullptr, false);
    if (v.is_discarded() || !v.is_object()) {
      return absl::InvalidArgumentError(absl::StrCat(dir, "/vocab.json: not a JSON object"));
    }
    for (auto it = v.begin(); it != v.end(); ++it) {
      if (!it.value().is_number_integer()) {
        return absl::InvalidArgumentError(absl::StrCat(dir, "/vocab.json: non-integer id"));
      }
      t.vocab_[it.key()] = it.value().get<int32_t>();
    }
    std::istringstream in(merges_text);
    std::string line;
    int32_t rank = 0;
    bool first = true;
    while (std::getline(in, line)) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (first && line.rfind("#version", 0) == 0) {
        first = false;
        continue;
      }
      first = false;
      if (line.empty()) continue;
      t.merge_rank_.emplace(line, rank++);
    }
  } else {
    absl::StatusOr<nlohmann::json> tj = ParseJsonFile(dir + "/tokenizer.json", &found);
    if (!tj.ok()) return tj.status();
    if (!found) {
      return absl::NotFoundError(
          absl::StrCat(dir, ": no vocab.json + merges.txt and no tokenizer.json"));
    }
    const nlohmann::json& model = (*tj)["model"];
    if (!model.is_object() || !model["vocab"].is_object() || !model["merges"].is_array()) {
      return absl::InvalidArgumentError(absl::StrCat(dir, "/tokenizer.json: no BPE model"));
    }
    for (auto it = model["vocab"].begin(); it != model["vocab"].end(); ++it) {
      t.vocab_[it.key()] = it.value().get<int32_t>();
    }
    int32_t rank = 0;
    for (const auto& m : model["merges"]) {
      std::string key = m.is_string() ? m.get<std::string>()
                                      : m[0].get<std::string>() + " " + m[1].get<std::string>();
      t.merge_rank_.emplace(key, rank++);
    }
  }
  auto id_of = [&t](const std::string& s) {
    auto it = t.vocab_.find(s);
    return it == t.vocab_.end() ? -1 : it->second;
  };
  t.bos_ = id_of(kBos);
  t.eos_ = id_of(kEos);
  t.unk_ = t.eos_;
  if (t.bos_ < 0 || t.eos_ < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(dir, ": the vocabulary lacks <|startoftext|> or <|endoftext|>"));
  }
  std::string pad = kEos;
  absl::StatusOr<nlohmann::json> cfg = ParseJsonFile(dir + "/tokenizer_config.json", &found);
  if (!cfg.ok()) return cfg.status();
  if (found && cfg->is_object()) {
    if (cfg->contains("pad_token") && !TokenContent((*cfg)["pad_token"]).empty()) {
      pad = TokenContent((*cfg)["pad_token"]);
    }
    if (cfg->contains("model_max_length") && (*cfg)["model_max_length"].is_number_integer()) {
      const int64_t n = (*cfg)["model_max_length"].get<int64_t>();
      if (n >= 2 && n <= 4096) t.max_length_ = static_cast<int>(n);
    }
  }
  // special_tokens_map.json wins over tokenizer_config.json, as in transformers
  // (SD 2.x: "!" there, "<|endoftext|>" in the config).
  absl::StatusOr<nlohmann::json> stm = ParseJsonFile(dir + "/special_tokens_map.json", &found);
  if (!stm.ok()) return stm.status();
  if (found && stm->is_object() && stm->contains("pad_token") &&
      !TokenContent((*stm)["pad_token"]).empty()) {
    pad = TokenContent((*stm)["pad_token"]);
  }
  t.pad_ = id_of(pad);
  if (t.pad_ < 0) {
    return absl::InvalidArgumentError(absl::StrCat(dir, ": pad token '", pad, "' not in vocab"));
  }
  t.specials_ = {{kBos, t.bos_}, {kEos, t.eos_}};
  if (pad != kBos && pad != kEos) t.specials_.emplace_back(pad, t.pad_);
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
  // Normalise: whitespace runs -> one space, lower case (ASCII).
  std::string text;
  for (size_t i = 0; i < raw.size(); ++i) {
    unsigned char c = raw[i];
    if (IsSpace(c)) {
      if (text.empty() || text.back() != ' ') text += ' ';
      continue;
    }
    text += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : static_cast<char>(c);
  }
  // Split: 's|'t|'re|'ve|'m|'ll|'d|letters+|one digit|other non-space runs.
  static const char* kContractions[] = {"'s", "'t", "'re", "'ve", "'m", "'ll", "'d"};
  size_t i = 0;
  while (i < text.size()) {
    unsigned char c = text[i];
    if (IsSpace(c)) {
      ++i;
      continue;
    }
    size_t len = 0;
    if (c == '\'') {
      for (const char* con : kContractions) {
        const size_t n = std::char_traits<char>::length(con);
        if (text.compare(i, n, con) == 0) {
          len = n;
          break;
        }
      }
    }
    if (len == 0) {
      if (IsLetter(c)) {
        len = 1;
        while (i + len < text.size() && IsLetter(text[i + len])) ++len;
      } else if (IsDigit(c)) {
        len = 1;
      } else {
        len = 1;
        while (i + len < text.size()) {
          unsigned char d = text[i + len];
          if (IsSpace(d) || IsLetter(d) || IsDigit(d)) break;
          // A contraction inside a punctuation run still belongs to the run
          // (the regex alternation tries it only at a match start).
          ++len;
        }
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
