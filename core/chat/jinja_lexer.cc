#include "core/chat/jinja_lexer.h"

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/chat/jinja_pystr.h"
#include "core/chat/jinja_status.h"
#include "core/chat/value.h"
#include "oxinfer/sdk/status.hpp"

namespace oxinfer::chat::jinja_internal {
namespace {

class Lexer {
 public:
  Lexer(absl::string_view src, const JinjaOptions& opt) : opt_(opt) {
    // Jinja normalizes newlines and drops one trailing newline.
    std::string s;
    s.reserve(src.size());
    for (size_t i = 0; i < src.size(); ++i) {
      if (src[i] == '\r') {
        s.push_back('\n');
        if (i + 1 < src.size() && src[i + 1] == '\n') ++i;
      } else {
        s.push_back(src[i]);
      }
    }
    if (!opt.keep_trailing_newline && !s.empty() && s.back() == '\n') s.pop_back();
    src_ = std::move(s);
  }

  absl::StatusOr<std::vector<Token>> Run() {
    bool line_starting = true;
    while (pos_ < src_.size()) {
      // Find the next tag start.
      size_t start = std::string::npos;
      char kind = 0;
      for (size_t p = pos_; p + 1 < src_.size(); ++p) {
        if (src_[p] == '{' && (src_[p + 1] == '{' || src_[p + 1] == '%' || src_[p + 1] == '#')) {
          start = p;
          kind = src_[p + 1];
          break;
        }
      }
      if (start == std::string::npos) {
        Emit(Tok::kText, src_.substr(pos_));
        pos_ = src_.size();
        break;
      }
      std::string text = src_.substr(pos_, start - pos_);
      char sign = start + 2 < src_.size() ? src_[start + 2] : 0;
      if (sign != '-' && sign != '+') sign = 0;
      if (sign == '-') {
        size_t e = text.size();
        while (e > 0 && IsSpace(text[e - 1])) --e;
        text.resize(e);
      } else if (sign != '+' && opt_.lstrip_blocks && kind != '{') {
        size_t nl = text.rfind('\n');
        size_t l_pos = nl == std::string::npos ? 0 : nl + 1;
        if (l_pos > 0 || line_starting) {
          bool all_ws = l_pos < text.size();
          for (size_t i = l_pos; i < text.size(); ++i) {
            if (!IsSpace(text[i])) {
              all_ws = false;
              break;
            }
          }
          if (all_ws) text.resize(l_pos);
        }
      }
      CountLines(src_.substr(pos_, start - pos_), text);
      pos_ = start + 2 + (sign ? 1 : 0);
      if (kind == '#') {
        size_t end = src_.find("#}", pos_);
        if (end == std::string::npos) return LineError(line_, "unterminated comment");
        bool minus = end > pos_ && src_[end - 1] == '-';
        bool plus = end > pos_ && src_[end - 1] == '+';
        for (size_t i = pos_; i < end; ++i) line_ += src_[i] == '\n';
        pos_ = end + 2;
        line_starting = AfterTagEnd(minus, plus, /*trim=*/true);
        continue;
      }
      if (kind == '%' && IsRawBlock()) {
        OXI_RETURN_IF_ERROR(LexRaw(&line_starting));
        continue;
      }
      Emit(kind == '{' ? Tok::kVarBegin : Tok::kBlockBegin, "");
      bool minus = false, plus = false;
      OXI_RETURN_IF_ERROR(LexTag(kind == '{' ? "}}" : "%}", &minus, &plus));
      Emit(kind == '{' ? Tok::kVarEnd : Tok::kBlockEnd, "");
      line_starting = AfterTagEnd(minus, plus, kind == '%');
    }
    Emit(Tok::kEof, "");
    return std::move(tokens_);
  }

 private:
  void Emit(Tok t, std::string text) {
    if (t == Tok::kText && text.empty()) return;
    Token tok;
    tok.type = t;
    tok.line = line_;
    tok.text = std::move(text);
    if (t == Tok::kText) {
      for (char c : tok.text) line_ += c == '\n';
    }
    tokens_.push_back(std::move(tok));
  }

  // Line counting for whitespace that was stripped away.
  void CountLines(const std::string& original, const std::string& kept) {
    for (size_t i = kept.size(); i < original.size(); ++i) pending_lines_ += original[i] == '\n';
    if (!kept.empty()) {
      Emit(Tok::kText, kept);
    }
    line_ += pending_lines_;
    pending_lines_ = 0;
  }

  // Applies what follows a tag end; returns the new line_starting.
  bool AfterTagEnd(bool minus, bool plus, bool trim) {
    if (minus) {
      char last = 0;
      while (pos_ < src_.size() && IsSpace(src_[pos_])) {
        last = src_[pos_];
        line_ += last == '\n';
        ++pos_;
      }
      return last == '\n';
    }
    if (!plus && trim && opt_.trim_blocks && pos_ < src_.size() && src_[pos_] == '\n') {
      ++pos_;
      ++line_;
      return true;
    }
    return false;
  }

  bool IsRawBlock() const {
    size_t p = pos_;
    while (p < src_.size() && IsSpace(src_[p])) ++p;
    if (src_.compare(p, 3, "raw") != 0) return false;
    p += 3;
    while (p < src_.size() && IsSpace(src_[p])) ++p;
    if (p < src_.size() && src_[p] == '-') ++p;
    return src_.compare(p, 2, "%}") == 0;
  }

  absl::Status LexRaw(bool* line_starting) {
    size_t close = src_.find("%}", pos_);
    bool minus = close > 0 && src_[close - 1] == '-';
    pos_ = close + 2;
    *line_starting = AfterTagEnd(minus, false, true);
    // Find {% endraw %}.
    size_t search = pos_;
    while (true) {
      size_t b = src_.find("{%", search);
      if (b == std::string::npos) return LineError(line_, "missing endraw");
      size_t p = b + 2;
      bool bminus = p < src_.size() && src_[p] == '-';
      if (bminus || (p < src_.size() && src_[p] == '+')) ++p;
      while (p < src_.size() && IsSpace(src_[p])) ++p;
      if (src_.compare(p, 6, "endraw") == 0) {
        std::string body = src_.substr(pos_, b - pos_);
        if (bminus) {
          while (!body.empty() && IsSpace(body.back())) body.pop_back();
        }
        Emit(Tok::kText, body);
        size_t e = src_.find("%}", p);
        if (e == std::string::npos) return LineError(line_, "unterminated endraw");
        bool eminus = src_[e - 1] == '-';
        pos_ = e + 2;
        *line_starting = AfterTagEnd(eminus, false, true);
        return absl::OkStatus();
      }
      search = b + 2;
    }
  }

  absl::Status LexTag(absl::string_view end, bool* minus, bool* plus) {
    int depth = 0;
    while (true) {
      while (pos_ < src_.size() && IsSpace(src_[pos_])) {
        line_ += src_[pos_] == '\n';
        ++pos_;
      }
      if (pos_ >= src_.size()) return LineError(line_, absl::StrCat("missing '", end, "'"));
      if (depth == 0) {
        if (src_.compare(pos_, end.size(), std::string(end)) == 0) {
          pos_ += end.size();
          return absl::OkStatus();
        }
        if ((src_[pos_] == '-' || src_[pos_] == '+') &&
            src_.compare(pos_ + 1, end.size(), std::string(end)) == 0) {
          *minus = src_[pos_] == '-';
          *plus = src_[pos_] == '+';
          pos_ += 1 + end.size();
          return absl::OkStatus();
        }
      }
      char c = src_[pos_];
      if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        size_t s = pos_;
        while (pos_ < src_.size() &&
               (std::isalnum(static_cast<unsigned char>(src_[pos_])) || src_[pos_] == '_')) {
          ++pos_;
        }
        Emit(Tok::kName, src_.substr(s, pos_ - s));
        continue;
      }
      if (std::isdigit(static_cast<unsigned char>(c))) {
        size_t s = pos_;
        while (pos_ < src_.size() &&
               (std::isdigit(static_cast<unsigned char>(src_[pos_])) || src_[pos_] == '_')) {
          ++pos_;
        }
        bool is_float = false;
        if (pos_ + 1 < src_.size() && src_[pos_] == '.' &&
            std::isdigit(static_cast<unsigned char>(src_[pos_ + 1]))) {
          is_float = true;
          ++pos_;
          while (pos_ < src_.size() &&
                 (std::isdigit(static_cast<unsigned char>(src_[pos_])) || src_[pos_] == '_')) {
            ++pos_;
          }
        }
        if (pos_ < src_.size() && (src_[pos_] == 'e' || src_[pos_] == 'E')) {
          size_t q = pos_ + 1;
          if (q < src_.size() && (src_[q] == '+' || src_[q] == '-')) ++q;
          if (q < src_.size() && std::isdigit(static_cast<unsigned char>(src_[q]))) {
            is_float = true;
            pos_ = q;
            while (pos_ < src_.size() && std::isdigit(static_cast<unsigned char>(src_[pos_]))) {
              ++pos_;
            }
          }
        }
        std::string num;
        for (size_t i = s; i < pos_; ++i) {
          if (src_[i] != '_') num.push_back(src_[i]);
        }
        Token t;
        t.line = line_;
        t.text = num;
        if (is_float) {
          t.type = Tok::kFloat;
          t.fval = std::strtod(num.c_str(), nullptr);
        } else {
          t.type = Tok::kInt;
          t.ival = std::strtoll(num.c_str(), nullptr, 10);
        }
        tokens_.push_back(std::move(t));
        continue;
      }
      if (c == '\'' || c == '"') {
        OXI_RETURN_IF_ERROR(LexString(c));
        continue;
      }
      static const char* kOps[] = {"//", "**", "==", "!=", "<=", ">=", "+", "-", "*",
                                   "/",  "%",  "~",  "<",  ">",  "=",  ".", ",", ":",
                                   "|",  "(",  ")",  "[",  "]",  "{",  "}"};
      bool matched = false;
      for (const char* op : kOps) {
        size_t n = std::strlen(op);
        if (src_.compare(pos_, n, op) == 0) {
          if (n == 1 && (c == '(' || c == '[' || c == '{')) ++depth;
          if (n == 1 && (c == ')' || c == ']' || c == '}')) --depth;
          Emit(Tok::kOp, op);
          pos_ += n;
          matched = true;
          break;
        }
      }
      if (!matched) {
        return LineError(line_, absl::StrFormat("unexpected character '%c'", c));
      }
    }
  }

  absl::Status LexString(char q) {
    int start_line = line_;
    ++pos_;
    std::string out;
    while (true) {
      if (pos_ >= src_.size()) return LineError(start_line, "unterminated string literal");
      char c = src_[pos_++];
      if (c == q) break;
      if (c == '\n') ++line_;
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      if (pos_ >= src_.size()) return LineError(start_line, "unterminated string literal");
      char e = src_[pos_++];
      switch (e) {
        case 'n':
          out.push_back('\n');
          break;
        case 't':
          out.push_back('\t');
          break;
        case 'r':
          out.push_back('\r');
          break;
        case '\\':
          out.push_back('\\');
          break;
        case '\'':
          out.push_back('\'');
          break;
        case '"':
          out.push_back('"');
          break;
        case 'a':
          out.push_back('\a');
          break;
        case 'b':
          out.push_back('\b');
          break;
        case 'f':
          out.push_back('\f');
          break;
        case 'v':
          out.push_back('\v');
          break;
        case '0':
          out.push_back('\0');
          break;
        case '\n':
          ++line_;
          break;
        case 'x':
        case 'u':
        case 'U': {
          int n = e == 'x' ? 2 : (e == 'u' ? 4 : 8);
          if (pos_ + n > src_.size()) return LineError(line_, "bad escape in string literal");
          char32_t cp =
              static_cast<char32_t>(std::strtoul(src_.substr(pos_, n).c_str(), nullptr, 16));
          pos_ += n;
          out += EncodeUtf8(std::u32string(1, cp));
          break;
        }
        default:
          out.push_back('\\');
          out.push_back(e);
      }
    }
    Token t;
    t.type = Tok::kString;
    t.text = std::move(out);
    t.line = start_line;
    tokens_.push_back(std::move(t));
    return absl::OkStatus();
  }

  JinjaOptions opt_;
  std::string src_;
  size_t pos_ = 0;
  int line_ = 1;
  int pending_lines_ = 0;
  std::vector<Token> tokens_;
};

}  // namespace

absl::StatusOr<std::vector<Token>> Tokenize(absl::string_view source, const JinjaOptions& options) {
  return Lexer(source, options).Run();
}

}  // namespace oxinfer::chat::jinja_internal
