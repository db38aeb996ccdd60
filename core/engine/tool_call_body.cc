#include "core/engine/tool_call_body.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace oxinfer::engine {
namespace {

using chat::Value;

constexpr int kMaxDepth = 32;
constexpr absl::string_view kGemmaQuote = "<|\"|>";

absl::Status Malformed(absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("malformed tool call: ", what));
}

bool IsNameChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
}

bool ValidName(absl::string_view name) {
  if (name.empty() || name.size() > 256) return false;
  for (char c : name) {
    if (!IsNameChar(c)) return false;
  }
  return true;
}

// Gemma 4's argument language, by recursive descent over the body.
class GemmaArguments {
 public:
  explicit GemmaArguments(absl::string_view s) : s_(s) {}

  absl::StatusOr<Value> Object(int depth) {
    if (depth > kMaxDepth) return Malformed("nested too deeply");
    if (!Eat("{")) return Malformed("expected '{'");
    Value dict = Value::Dict();
    if (Eat("}")) return dict;
    for (;;) {
      std::string key;
      if (Eat(kGemmaQuote)) {
        const size_t end = s_.find(kGemmaQuote, pos_);
        if (end == absl::string_view::npos) return Malformed("unterminated key");
        key = std::string(s_.substr(pos_, end - pos_));
        pos_ = end + kGemmaQuote.size();
      } else {
        const size_t start = pos_;
        while (pos_ < s_.size() && IsNameChar(s_[pos_])) ++pos_;
        key = std::string(s_.substr(start, pos_ - start));
      }
      if (key.empty()) return Malformed("expected a key");
      if (!Eat(":")) return Malformed("expected ':' after a key");
      auto value = Any(depth + 1);
      if (!value.ok()) return value;
      dict.object().Set(key, *std::move(value));
      if (Eat("}")) return dict;
      if (!Eat(",")) return Malformed("expected ',' or '}'");
    }
  }

  bool AtEnd() const { return pos_ == s_.size(); }

 private:
  bool Eat(absl::string_view lit) {
    if (!absl::StartsWith(s_.substr(pos_), lit)) return false;
    pos_ += lit.size();
    return true;
  }

  absl::StatusOr<Value> Any(int depth) {
    if (depth > kMaxDepth) return Malformed("nested too deeply");
    if (pos_ >= s_.size()) return Malformed("expected a value");
    if (Eat(kGemmaQuote)) {
      const size_t end = s_.find(kGemmaQuote, pos_);
      if (end == absl::string_view::npos) return Malformed("unterminated string");
      Value v(s_.substr(pos_, end - pos_));
      pos_ = end + kGemmaQuote.size();
      return v;
    }
    const char c = s_[pos_];
    if (c == '{') return Object(depth);
    if (c == '[') {
      ++pos_;
      std::vector<Value> items;
      if (Eat("]")) return Value::Array(std::move(items));
      for (;;) {
        auto item = Any(depth + 1);
        if (!item.ok()) return item;
        items.push_back(*std::move(item));
        if (Eat("]")) return Value::Array(std::move(items));
        if (!Eat(",")) return Malformed("expected ',' or ']'");
      }
    }
    if (Eat("true")) return Value(true);
    if (Eat("false")) return Value(false);
    if (Eat("null")) return Value::None();
    // A number: JSON's grammar decides (ints stay ints).
    const size_t start = pos_;
    while (pos_ < s_.size() &&
           (absl::ascii_isdigit(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '-' ||
            s_[pos_] == '+' || s_[pos_] == '.' || s_[pos_] == 'e' || s_[pos_] == 'E')) {
      ++pos_;
    }
    if (pos_ == start) return Malformed("expected a value");
    auto number = Value::FromJson(s_.substr(start, pos_ - start));
    if (!number.ok() || !number->is_number()) return Malformed("bad number");
    return number;
  }

  absl::string_view s_;
  size_t pos_ = 0;
};

// The declared JSON-schema type of `function`'s parameter `param`, "" when
// not declared.
std::string DeclaredType(const Value& tools, absl::string_view function, absl::string_view param) {
  if (!tools.is_array()) return "";
  for (const Value& tool : tools.array()) {
    if (!tool.is_dict()) continue;
    const Value* fn = tool.object().Find("function");
    const Value& f = fn != nullptr && fn->is_dict() ? *fn : tool;
    const Value* name = f.object().Find("name");
    if (name == nullptr || !name->is_string() || name->as_string() != function) continue;
    const Value* params = f.object().Find("parameters");
    if (params == nullptr || !params->is_dict()) return "";
    const Value* props = params->object().Find("properties");
    if (props == nullptr || !props->is_dict()) return "";
    const Value* p = props->object().Find(param);
    if (p == nullptr || !p->is_dict()) return "";
    const Value* type = p->object().Find("type");
    if (type == nullptr) return "";
    if (type->is_string()) return type->as_string();
    // ["string", "null"] and the like: a string if it may be one.
    if (type->is_array()) {
      for (const Value& t : type->array()) {
        if (t.is_string() && t.as_string() == "string") return "string";
      }
      return "json";
    }
    return "";
  }
  return "";
}

}  // namespace

ToolCallMarkers MarkersOf(ToolCallFormat format) {
  switch (format) {
    case ToolCallFormat::kGemma4:
      return {"<|tool_call>", "<tool_call|>", std::string(kGemmaQuote)};
    case ToolCallFormat::kQwenXml:
    case ToolCallFormat::kQwenJson:
      return {"<tool_call>", "</tool_call>", ""};
    case ToolCallFormat::kNone:
      break;
  }
  return {"", "", ""};
}

absl::StatusOr<ToolCall> ParseGemma4Call(absl::string_view body) {
  if (!absl::ConsumePrefix(&body, "call:")) return Malformed("expected 'call:'");
  const size_t brace = body.find('{');
  if (brace == absl::string_view::npos) return Malformed("expected '{'");
  ToolCall call;
  call.name = std::string(body.substr(0, brace));
  if (!ValidName(call.name)) return Malformed("bad function name");
  GemmaArguments args(body.substr(brace));
  auto object = args.Object(0);
  if (!object.ok()) return object.status();
  if (!args.AtEnd()) return Malformed("text after the arguments");
  call.arguments = *std::move(object);
  return call;
}

absl::StatusOr<ToolCall> ParseQwenXmlCall(absl::string_view body, const Value& tools) {
  body = absl::StripAsciiWhitespace(body);
  if (!absl::ConsumePrefix(&body, "<function=")) return Malformed("expected '<function='");
  const size_t gt = body.find('>');
  if (gt == absl::string_view::npos) return Malformed("unterminated <function=");
  ToolCall call;
  call.name = std::string(body.substr(0, gt));
  if (!ValidName(call.name)) return Malformed("bad function name");
  body.remove_prefix(gt + 1);
  for (;;) {
    body = absl::StripLeadingAsciiWhitespace(body);
    if (absl::ConsumePrefix(&body, "</function>")) break;
    if (!absl::ConsumePrefix(&body, "<parameter=")) return Malformed("expected '<parameter='");
    const size_t key_end = body.find('>');
    if (key_end == absl::string_view::npos) return Malformed("unterminated <parameter=");
    const std::string key(body.substr(0, key_end));
    if (!ValidName(key)) return Malformed("bad parameter name");
    body.remove_prefix(key_end + 1);
    const size_t end = body.find("</parameter>");
    if (end == absl::string_view::npos) return Malformed("unterminated parameter");
    absl::string_view text = body.substr(0, end);
    body.remove_prefix(end + absl::string_view("</parameter>").size());
    // The template writes "\n" VALUE "\n" between the tags.
    absl::ConsumePrefix(&text, "\n");
    absl::ConsumeSuffix(&text, "\n");
    Value value(text);
    const std::string type = DeclaredType(tools, call.name, key);
    if (!type.empty() && type != "string") {
      // The template writes non-strings with Python's str() (True, None) or as JSON.
      auto json = Value::FromJson(text);
      if (json.ok()) {
        value = *std::move(json);
      } else if (text == "True" || text == "False") {
        value = Value(text == "True");
      } else if (text == "None") {
        value = Value::None();
      }
    }
    call.arguments.object().Set(key, std::move(value));
  }
  if (!absl::StripAsciiWhitespace(body).empty()) return Malformed("text after </function>");
  return call;
}

absl::StatusOr<ToolCall> ParseQwenJsonCall(absl::string_view body) {
  auto json = Value::FromJson(absl::StripAsciiWhitespace(body));
  if (!json.ok() || !json->is_dict()) return Malformed("not a JSON object");
  const Value* name = json->object().Find("name");
  if (name == nullptr || !name->is_string() || !ValidName(name->as_string())) {
    return Malformed("no function name");
  }
  ToolCall call;
  call.name = name->as_string();
  const Value* args = json->object().Find("arguments");
  if (args == nullptr) args = json->object().Find("parameters");
  if (args != nullptr && args->is_string()) {
    auto parsed = ParseArgumentsJson(args->as_string());
    if (!parsed.ok()) return Malformed("arguments are not a JSON object");
    call.arguments = *std::move(parsed);
  } else if (args != nullptr && args->is_dict()) {
    call.arguments = *args;
  } else if (args != nullptr) {
    return Malformed("arguments are not an object");
  }
  return call;
}

}  // namespace oxinfer::engine
