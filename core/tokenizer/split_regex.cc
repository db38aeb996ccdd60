#include "core/tokenizer/split_regex.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/tokenizer/utf8.h"

namespace oxinfer {
namespace tokenizer {
namespace {

// Oniguruma's Unicode \s: U+0009-000D, U+0020, U+0085 and the Z categories.
constexpr absl::string_view kSpaceClassBody = "\\t\\n\\x0B\\f\\r\\x{20}\\x{85}\\p{Z}";
// Unicode \w (approximation of Oniguruma's Word property).
constexpr absl::string_view kWordClassBody = "\\p{L}\\p{M}\\p{Nd}\\p{Pc}";
constexpr absl::string_view kWsLookahead = "\\s+(?!\\S)";

// Splits a pattern at its top-level '|' (outside groups and classes).
std::vector<std::string> SplitTopLevelAlternatives(absl::string_view p) {
  std::vector<std::string> alts;
  std::string cur;
  int depth = 0;
  bool in_class = false;
  for (size_t i = 0; i < p.size(); ++i) {
    const char c = p[i];
    if (c == '\\' && i + 1 < p.size()) {
      cur.push_back(c);
      cur.push_back(p[++i]);
      continue;
    }
    if (in_class) {
      if (c == ']') in_class = false;
      cur.push_back(c);
      continue;
    }
    if (c == '[') {
      in_class = true;
      cur.push_back(c);
      // A ']' right after '[' or '[^' is a literal.
      if (i + 1 < p.size() && p[i + 1] == '^') cur.push_back(p[++i]);
      if (i + 1 < p.size() && p[i + 1] == ']') cur.push_back(p[++i]);
      continue;
    }
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (c == '|' && depth == 0) {
      alts.push_back(cur);
      cur.clear();
      continue;
    }
    cur.push_back(c);
  }
  alts.push_back(cur);
  return alts;
}

std::unique_ptr<RE2> Compile(const std::string& re2_pattern, std::string* error) {
  RE2::Options options;
  options.set_encoding(RE2::Options::EncodingUTF8);
  options.set_log_errors(false);
  options.set_max_mem(int64_t{256} << 20);
  options.set_never_capture(true);
  auto re = std::make_unique<RE2>(re2_pattern, options);
  if (!re->ok()) {
    *error = re->error();
    return nullptr;
  }
  return re;
}

}  // namespace

absl::StatusOr<std::string> TranslateOnigToRe2(absl::string_view p) {
  std::string out;
  bool in_class = false;
  for (size_t i = 0; i < p.size(); ++i) {
    const char c = p[i];
    if (c == '\\' && i + 1 < p.size()) {
      const char e = p[++i];
      switch (e) {
        case 's':
          absl::StrAppend(&out, in_class ? "" : "[", kSpaceClassBody, in_class ? "" : "]");
          break;
        case 'S':
          if (in_class) {
            return absl::InvalidArgumentError(
                absl::StrCat("unsupported \\S inside a character class in regex: ", p));
          }
          absl::StrAppend(&out, "[^", kSpaceClassBody, "]");
          break;
        case 'd':
          out += "\\p{Nd}";
          break;
        case 'D':
          out += "\\P{Nd}";
          break;
        case 'w':
          absl::StrAppend(&out, in_class ? "" : "[", kWordClassBody, in_class ? "" : "]");
          break;
        case 'W':
          if (in_class) {
            return absl::InvalidArgumentError(
                absl::StrCat("unsupported \\W inside a character class in regex: ", p));
          }
          absl::StrAppend(&out, "[^", kWordClassBody, "]");
          break;
        case 'h':
        case 'H':
        case 'R':
        case 'X':
        case 'G':
        case 'K':
          return absl::InvalidArgumentError(
              absl::StrFormat("unsupported escape \\%c in regex: %s", e, p));
        default:
          out.push_back('\\');
          out.push_back(e);
      }
      continue;
    }
    if (in_class) {
      if (c == ']') in_class = false;
      out.push_back(c);
      continue;
    }
    if (c == '[') {
      in_class = true;
      out.push_back(c);
      if (i + 1 < p.size() && p[i + 1] == '^') out.push_back(p[++i]);
      if (i + 1 < p.size() && p[i + 1] == ']') out.push_back(p[++i]);
      continue;
    }
    if (c == '(' && i + 2 < p.size() && p[i + 1] == '?' &&
        (p[i + 2] == '=' || p[i + 2] == '!' || p[i + 2] == '<')) {
      return absl::InvalidArgumentError(
          absl::StrCat("unsupported lookaround in regex (only a top-level \\s+(?!\\S) "
                       "alternative is supported): ",
                       p));
    }
    out.push_back(c);
  }
  return out;
}

absl::StatusOr<std::unique_ptr<SplitRegex>> SplitRegex::Create(absl::string_view pattern) {
  std::unique_ptr<SplitRegex> r(new SplitRegex());
  const std::vector<std::string> alts = SplitTopLevelAlternatives(pattern);
  int ws_index = -1;
  for (size_t i = 0; i < alts.size(); ++i) {
    if (alts[i] == kWsLookahead) {
      ws_index = static_cast<int>(i);
      break;
    }
  }
  auto translate_range = [&](size_t begin, size_t end) -> absl::StatusOr<std::string> {
    std::vector<std::string> parts;
    for (size_t i = begin; i < end; ++i) {
      if (static_cast<int>(i) == ws_index) {
        parts.push_back(absl::StrCat("[", kSpaceClassBody, "]+"));
        continue;
      }
      absl::StatusOr<std::string> t = TranslateOnigToRe2(alts[i]);
      if (!t.ok()) return t.status();
      parts.push_back(*std::move(t));
    }
    return absl::StrJoin(parts, "|");
  };
  std::string error;
  absl::StatusOr<std::string> main = translate_range(0, alts.size());
  if (!main.ok()) return main.status();
  r->translated_ = *main;
  r->main_ = Compile(*main, &error);
  if (r->main_ == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot compile regex ", pattern, " (as RE2: ", *main, "): ", error));
  }
  if (ws_index >= 0) {
    r->ws_lookahead_ = true;
    if (ws_index > 0) {
      absl::StatusOr<std::string> pre = translate_range(0, ws_index);
      if (!pre.ok()) return pre.status();
      r->prefix_ = Compile(*pre, &error);
      if (r->prefix_ == nullptr) return absl::InvalidArgumentError(error);
    }
    if (static_cast<size_t>(ws_index) + 1 < alts.size()) {
      absl::StatusOr<std::string> suf = translate_range(ws_index + 1, alts.size());
      if (!suf.ok()) return suf.status();
      r->suffix_ = Compile(*suf, &error);
      if (r->suffix_ == nullptr) return absl::InvalidArgumentError(error);
    }
  }
  return r;
}

void SplitRegex::FindAll(absl::string_view text,
                         std::vector<std::pair<size_t, size_t>>* out) const {
  const size_t n = text.size();
  const re2::StringPiece sp(text.data(), text.size());
  size_t pos = 0;
  auto char_len = [&](size_t at) -> size_t {
    const size_t l = ValidSequenceLength(text, at);
    return l == 0 ? 1 : l;
  };
  while (pos < n) {
    re2::StringPiece m;
    if (!main_->Match(sp, pos, n, RE2::ANCHOR_START, &m, 1) &&
        !main_->Match(sp, pos, n, RE2::UNANCHORED, &m, 1)) {
      break;
    }
    size_t s = static_cast<size_t>(m.data() - text.data());
    size_t e = s + m.size();
    if (ws_lookahead_ && e > s) {
      // Is the match entirely whitespace (so possibly the lookahead alternative)?
      bool all_ws = true;
      size_t run_end = s;
      size_t last_char_start = s;
      int run_chars = 0;
      while (run_end < n) {
        size_t q = run_end;
        if (ValidSequenceLength(text, q) == 0) break;
        const uint32_t cp = DecodeValid(text, &q);
        if (!IsWhitespace(cp)) break;
        last_char_start = run_end;
        run_end = q;
        ++run_chars;
      }
      all_ws = run_end >= e;
      if (all_ws) {
        re2::StringPiece pm;
        if (prefix_ != nullptr && prefix_->Match(sp, s, n, RE2::ANCHOR_START, &pm, 1)) {
          e = s + pm.size();
        } else if (run_end == n) {
          e = n;  // \s+ up to the end: (?!\S) holds
        } else if (run_chars >= 2) {
          e = last_char_start;  // give the last space back to the next token
        } else if (suffix_ != nullptr && suffix_->Match(sp, s, n, RE2::ANCHOR_START, &pm, 1)) {
          e = s + pm.size();
        } else {
          pos = s + char_len(s);  // no alternative matches here
          continue;
        }
      }
    }
    if (e == s) {  // empty match: HF drops empty splits
      pos = s + char_len(s);
      continue;
    }
    out->emplace_back(s, e);
    pos = e;
  }
}

}  // namespace tokenizer
}  // namespace oxinfer
