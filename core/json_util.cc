#include "core/json_util.h"

#include <cstddef>
#include <iterator>
#include <new>
#include <string>
#include <unordered_set>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace oxinfer {
namespace {

using json = nlohmann::json;

// A forward iterator over the text that records how many bytes the lexer has
// consumed, so that refusals made in the event callbacks can say where.
class TrackingIterator {
 public:
  using iterator_category = std::forward_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  TrackingIterator(const char* p, const char** consumed) : p_(p), consumed_(consumed) {}
  reference operator*() const { return *p_; }
  TrackingIterator& operator++() {
    *consumed_ = ++p_;
    return *this;
  }
  TrackingIterator operator++(int) {
    TrackingIterator before = *this;
    ++*this;
    return before;
  }
  bool operator==(const TrackingIterator& other) const { return p_ == other.p_; }
  bool operator!=(const TrackingIterator& other) const { return p_ != other.p_; }

 private:
  const char* p_;
  const char** consumed_;
};

// "line:col" of the byte at `index` (clamped to one past the end).
std::string LineColumn(std::string_view text, size_t index) {
  if (index > text.size()) index = text.size();
  size_t line = 1, line_start = 0;
  for (size_t i = 0; i < index; ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return absl::StrFormat("%d:%d", line, index - line_start + 1);
}

// nlohmann's message without its "[json.exception...] parse error at line L,
// column C: " prefix, bytes outside printable ASCII escaped.
std::string DescribeNlohmannError(const char* what) {
  std::string_view m(what);
  if (size_t p = m.find("] "); m.substr(0, 1) == "[" && p != std::string_view::npos) {
    m.remove_prefix(p + 2);
  }
  if (m.substr(0, 19) == "parse error at line") {
    if (size_t p = m.find(": "); p != std::string_view::npos) m.remove_prefix(p + 2);
  }
  std::string out;
  for (unsigned char c : m) {
    if (c >= 0x20 && c < 0x7f) {
      out.push_back(static_cast<char>(c));
    } else {
      absl::StrAppendFormat(&out, "\\x%02x", c);
    }
  }
  return out;
}

// Applies the strict rules to the event stream and forwards what passes.
class StrictEvents final : public JsonEvents {
 public:
  StrictEvents(JsonEvents* inner, std::string_view text, const char* const* consumed)
      : inner_(inner), text_(text), consumed_(consumed) {}

  const std::string& error() const { return error_; }

  bool null() override { return Pass(inner_->null()); }
  bool boolean(bool v) override { return Pass(inner_->boolean(v)); }
  bool number_integer(number_integer_t v) override { return Pass(inner_->number_integer(v)); }
  bool number_unsigned(number_unsigned_t v) override { return Pass(inner_->number_unsigned(v)); }
  bool number_float(number_float_t v, const string_t& s) override {
    return Pass(inner_->number_float(v, s));
  }
  bool string(string_t& v) override { return Pass(inner_->string(v)); }
  bool binary(binary_t& v) override { return Pass(inner_->binary(v)); }
  bool start_object(std::size_t n) override {
    if (!Open()) return false;
    keys_.emplace_back();
    return Pass(inner_->start_object(n));
  }
  bool key(string_t& k) override {
    if (!keys_.empty() && !keys_.back().insert(k).second) {
      return Refuse(ConsumedIndex(), absl::StrCat("duplicate key '", absl::CHexEscape(k), "'"));
    }
    return Pass(inner_->key(k));
  }
  bool end_object() override {
    if (!keys_.empty()) keys_.pop_back();
    --depth_;
    return Pass(inner_->end_object());
  }
  bool start_array(std::size_t n) override {
    if (!Open()) return false;
    return Pass(inner_->start_array(n));
  }
  bool end_array() override {
    --depth_;
    return Pass(inner_->end_array());
  }
  bool parse_error(std::size_t position, const std::string&,
                   const nlohmann::detail::exception& ex) override {
    // `position` counts bytes read, the offending one included (and one for
    // the end of input).
    return Refuse(position == 0 ? 0 : position - 1, DescribeNlohmannError(ex.what()));
  }

 private:
  size_t ConsumedIndex() const {
    const size_t n = static_cast<size_t>(*consumed_ - text_.data());
    return n == 0 ? 0 : n - 1;
  }
  bool Open() {
    if (++depth_ > kMaxJsonDepth) {
      return Refuse(ConsumedIndex(),
                    absl::StrFormat("nesting deeper than %d arrays and objects", kMaxJsonDepth));
    }
    return true;
  }
  bool Pass(bool inner_ok) {
    if (!inner_ok && error_.empty()) Refuse(ConsumedIndex(), "parse stopped");
    return inner_ok;
  }
  bool Refuse(size_t index, const std::string& what) {
    if (error_.empty()) error_ = absl::StrCat(LineColumn(text_, index), ": ", what);
    return false;
  }

  JsonEvents* inner_;
  std::string_view text_;
  const char* const* consumed_;
  int depth_ = 0;
  // Keys seen in each open object.
  std::vector<std::unordered_set<std::string>> keys_;
  std::string error_;
};

// nlohmann's own document builder behind the event interface.
class DomEvents final : public JsonEvents {
 public:
  explicit DomEvents(json* root) : dom_(*root, /*allow_exceptions=*/false) {}

  bool null() override { return dom_.null(); }
  bool boolean(bool v) override { return dom_.boolean(v); }
  bool number_integer(number_integer_t v) override { return dom_.number_integer(v); }
  bool number_unsigned(number_unsigned_t v) override { return dom_.number_unsigned(v); }
  bool number_float(number_float_t v, const string_t& s) override {
    return dom_.number_float(v, s);
  }
  bool string(string_t& v) override { return dom_.string(v); }
  bool binary(binary_t& v) override { return dom_.binary(v); }
  bool start_object(std::size_t n) override { return dom_.start_object(n); }
  bool key(string_t& k) override { return dom_.key(k); }
  bool end_object() override { return dom_.end_object(); }
  bool start_array(std::size_t n) override { return dom_.start_array(n); }
  bool end_array() override { return dom_.end_array(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;  // StrictEvents handles errors; never called
  }

 private:
  nlohmann::detail::json_sax_dom_parser<json> dom_;
};

}  // namespace

absl::Status ParseJsonStrict(std::string_view text, JsonEvents* events) {
  // nlohmann's lexer takes a NUL byte for the end of the input, which would
  // accept "[1]\0anything"; JSON text has none (in strings: only \u0000).
  if (const size_t nul = text.find('\0'); nul != std::string_view::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat(LineColumn(text, nul), ": a NUL byte (not allowed in JSON text)"));
  }
  const char* consumed = text.data();
  StrictEvents strict(events, text, &consumed);
  try {
    const bool ok = json::sax_parse(TrackingIterator(text.data(), &consumed),
                                    TrackingIterator(text.data() + text.size(), &consumed), &strict,
                                    nlohmann::detail::input_format_t::json,
                                    /*strict=*/true);
    if (ok) return absl::OkStatus();
    return absl::InvalidArgumentError(strict.error().empty() ? "malformed JSON" : strict.error());
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError(
        absl::StrFormat("out of memory parsing %d bytes of JSON", text.size()));
  } catch (const std::exception& e) {
    return absl::InternalError(absl::StrCat("JSON parser failed: ", e.what()));
  }
}

absl::StatusOr<nlohmann::json> ParseJsonStrict(std::string_view text) {
  json root;
  DomEvents dom(&root);
  if (absl::Status s = ParseJsonStrict(text, &dom); !s.ok()) return s;
  return root;
}

}  // namespace oxinfer
