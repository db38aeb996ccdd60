// The tool-call parser on each family's format: calls, text around them,
// malformed and unterminated calls (text), and every split of the stream.
#include "core/engine/tool_call_parser.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace oxinfer::engine {
namespace {

using chat::Value;

struct Out {
  std::string text;
  std::vector<ToolCall> calls;
};

Value QwenTools() {
  return *Value::FromJson(R"([{"type": "function", "function": {"name": "f", "parameters":
      {"type": "object", "properties": {"s": {"type": "string"}, "n": {"type": "integer"},
       "o": {"type": "object"}, "maybe": {"type": ["string", "null"]}}}}}])");
}

// Fed whole, then split at every byte into two pieces, then byte by byte: the
// same every time (checked), returned once.
Out ParseEverySplit(ToolCallFormat format, const std::string& text,
                    const Value& tools = Value::None()) {
  auto run = [&](const std::vector<std::string>& pieces) {
    ToolCallParser p(format, tools);
    Out out;
    auto on_text = [&](absl::string_view t) { out.text.append(t.data(), t.size()); };
    auto on_call = [&](ToolCall c) { out.calls.push_back(std::move(c)); };
    for (const std::string& piece : pieces) p.Feed(piece, on_text, on_call);
    p.Flush(on_text);
    return out;
  };
  const Out whole = run({text});
  auto same = [&](const Out& o, const std::string& how) {
    EXPECT_EQ(o.text, whole.text) << how;
    ASSERT_EQ(o.calls.size(), whole.calls.size()) << how;
    for (size_t i = 0; i < o.calls.size(); ++i) {
      EXPECT_EQ(o.calls[i].name, whole.calls[i].name) << how;
      EXPECT_EQ(o.calls[i].ArgumentsJson(), whole.calls[i].ArgumentsJson()) << how;
    }
  };
  for (size_t i = 0; i <= text.size(); ++i) {
    same(run({text.substr(0, i), text.substr(i)}), "split at " + std::to_string(i));
  }
  std::vector<std::string> bytes;
  for (char c : text) bytes.push_back(std::string(1, c));
  same(run(bytes), "byte by byte");
  return whole;
}

TEST(ToolCallParserTest, Gemma4) {
  const Out o = ParseEverySplit(
      ToolCallFormat::kGemma4,
      "Sure.<|tool_call>call:calculate{expression:<|\"|>1234.5 * 6789 - 2^20<|\"|>}"
      "<tool_call|><|tool_call>call:plan{a:[1,2.5,-3e2],b:{c:true,d:null},e:<|\"|>x}<tool_call|>y"
      "<|\"|>,f:false}<tool_call|> done");
  EXPECT_EQ(o.text, "Sure. done");
  ASSERT_EQ(o.calls.size(), 2u);
  EXPECT_EQ(o.calls[0].name, "calculate");
  EXPECT_EQ(o.calls[0].ArgumentsJson(), R"({"expression":"1234.5 * 6789 - 2^20"})");
  EXPECT_EQ(o.calls[1].name, "plan");
  EXPECT_EQ(o.calls[1].ArgumentsJson(),
            R"({"a":[1,2.5,-300.0],"b":{"c":true,"d":null},"e":"x}<tool_call|>y","f":false})");
}

TEST(ToolCallParserTest, QwenXml) {
  const Out o =
      ParseEverySplit(ToolCallFormat::kQwenXml,
                      "Let me.\n<tool_call>\n<function=f>\n<parameter=s>\n42\n</parameter>\n"
                      "<parameter=n>\n42\n</parameter>\n<parameter=o>\n{\"k\": [1]}\n"
                      "</parameter>\n<parameter=maybe>\nnull\n</parameter>\n"
                      "<parameter=x>\nline 1\nline 2\n</parameter>\n</function>\n</tool_call>",
                      QwenTools());
  EXPECT_EQ(o.text, "Let me.\n");
  ASSERT_EQ(o.calls.size(), 1u);
  EXPECT_EQ(o.calls[0].name, "f");
  // Declared strings stay strings; other declared types are JSON; undeclared are strings.
  EXPECT_EQ(o.calls[0].ArgumentsJson(),
            R"({"s":"42","n":42,"o":{"k":[1]},"maybe":"null","x":"line 1\nline 2"})");
}

TEST(ToolCallParserTest, QwenJson) {
  const Out o = ParseEverySplit(
      ToolCallFormat::kQwenJson,
      "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\", \"n\": 2}}\n"
      "</tool_call>\n<tool_call>\n{\"name\": \"g\", \"arguments\": \"{\\\"a\\\": "
      "1}\"}\n</tool_call>");
  EXPECT_EQ(o.text, "\n");
  ASSERT_EQ(o.calls.size(), 2u);
  EXPECT_EQ(o.calls[0].ArgumentsJson(), R"({"city":"Oslo","n":2})");
  EXPECT_EQ(o.calls[1].ArgumentsJson(), R"({"a":1})");
}

TEST(ToolCallParserTest, MalformedCallsAreText) {
  const std::vector<std::pair<ToolCallFormat, std::string>> cases = {
      {ToolCallFormat::kGemma4, "a<|tool_call>call:f{x:<|\"|>unterminated}<tool_call|>b"},
      {ToolCallFormat::kGemma4, "a<|tool_call>call:f{x:1}trailing<tool_call|>b"},
      {ToolCallFormat::kGemma4, "a<|tool_call>call:bad name{}<tool_call|>b"},
      {ToolCallFormat::kGemma4, "a<|tool_call>f{}<tool_call|>b"},
      {ToolCallFormat::kGemma4, "a<|tool_call>call:f{x:[1,}<tool_call|>b"},
      {ToolCallFormat::kGemma4, "a<|tool_call>call:f{x:nope}<tool_call|>b"},
      {ToolCallFormat::kQwenXml,
       "a<tool_call>\n<function=f>\n<parameter=s>\n1\n</function>\n</tool_call>b"},
      {ToolCallFormat::kQwenXml, "a<tool_call>\nhello\n</tool_call>b"},
      {ToolCallFormat::kQwenXml, "a<tool_call><function=f></function>x</tool_call>b"},
      {ToolCallFormat::kQwenJson, "a<tool_call>{\"name\": 3}</tool_call>b"},
      {ToolCallFormat::kQwenJson, "a<tool_call>{\"name\": \"f\", \"arguments\": [1]}</tool_call>b"},
      {ToolCallFormat::kQwenJson, "a<tool_call>{not json}</tool_call>b"},
  };
  for (const auto& [format, text] : cases) {
    const Out o = ParseEverySplit(format, text, QwenTools());
    EXPECT_EQ(o.text, text) << text;
    EXPECT_TRUE(o.calls.empty()) << text;
  }
}

TEST(ToolCallParserTest, UnterminatedCallsAndPartialMarkersAreText) {
  for (const std::string text :
       {"a<|tool_call>call:f{x:1}", "a<|tool_ca", "<|tool_call", "x<tool_call|>"}) {
    const Out o = ParseEverySplit(ToolCallFormat::kGemma4, text);
    EXPECT_EQ(o.text, text);
    EXPECT_TRUE(o.calls.empty());
  }
}

TEST(ToolCallParserTest, NestingIsBounded) {
  std::string deep = "<|tool_call>call:f{a:";
  for (int i = 0; i < 100; ++i) deep += "[";
  for (int i = 0; i < 100; ++i) deep += "]";
  deep += "}<tool_call|>";
  ToolCallParser p(ToolCallFormat::kGemma4, Value::None());
  std::string text;
  int calls = 0;
  p.Feed(
      deep, [&](absl::string_view t) { text += std::string(t); }, [&](ToolCall) { ++calls; });
  p.Flush([&](absl::string_view t) { text += std::string(t); });
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(text, deep);
}

TEST(ToolCallParserTest, AnOverlongCallIsGivenUpAsText) {
  std::string text = "<|tool_call>call:f{x:<|\"|>";
  text += std::string(ToolCallParser::kMaxCallBytes + 10, 'z');
  text += "<|\"|>}<tool_call|><|tool_call>call:g{}<tool_call|>";
  ToolCallParser p(ToolCallFormat::kGemma4, Value::None());
  std::string out;
  std::vector<std::string> names;
  auto on_text = [&](absl::string_view t) { out += std::string(t); };
  for (size_t i = 0; i < text.size(); i += 4096) {
    p.Feed(absl::string_view(text).substr(i, 4096), on_text,
           [&](ToolCall c) { names.push_back(c.name); });
  }
  p.Flush(on_text);
  ASSERT_EQ(names.size(), 1u);
  EXPECT_EQ(names[0], "g");
  EXPECT_EQ(out,
            text.substr(0, text.size() - std::string("<|tool_call>call:g{}<tool_call|>").size()));
}

TEST(ToolCallParserTest, NoFormatPassesEverythingThrough) {
  const Out o = ParseEverySplit(ToolCallFormat::kNone, "<tool_call>{\"name\": \"f\"}</tool_call>");
  EXPECT_EQ(o.text, "<tool_call>{\"name\": \"f\"}</tool_call>");
  EXPECT_TRUE(o.calls.empty());
}

}  // namespace
}  // namespace oxinfer::engine
