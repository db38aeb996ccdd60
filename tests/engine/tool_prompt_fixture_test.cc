// Tool-calling conversations, as --messages / --tools-file give them, through
// the engine's parsers (conversation_json.h) and every real chat template of
// ../shared/data: the prompts must be byte-identical to transformers'
// apply_chat_template(..., tools=...) (testdata/tool_prompts.json, made by
// tools/reference/tools/make_tool_prompt_fixtures.py). Then the calls the
// templates wrote are parsed back out of the rendered text, split at every
// byte, and must be the calls that went in.
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/builtin_tools/builtin_tools.h"
#include "core/chat/chat_template.h"
#include "core/engine/conversation_json.h"
#include "core/engine/tool_call_parser.h"
#include "gtest/gtest.h"
#include "tests/support/shared_data.h"

namespace oxinfer::engine {
namespace {

using chat::ChatTemplate;
using chat::Object;
using chat::Value;

constexpr char kFixture[] = "tests/engine/testdata/tool_prompts.json";

std::string ReadAll(const std::string& path) { return oxinfer::testing::ReadWholeFile(path); }

std::string DiffAt(const std::string& want, const std::string& got) {
  size_t i = 0;
  while (i < want.size() && i < got.size() && want[i] == got[i]) ++i;
  const size_t from = i > 40 ? i - 40 : 0;
  return absl::StrCat("first difference at byte ", i,
                      "\n  want: ", Value(want.substr(from, 100)).Repr(),
                      "\n  got:  ", Value(got.substr(from, 100)).Repr());
}

struct Parsed {
  std::string text;
  std::vector<ToolCall> calls;
};

// The parser's output for `text` fed in pieces of `piece` bytes, or in two
// pieces split at `split` when piece is 0.
Parsed Parse(ToolCallFormat format, const Value& tools, const std::string& text, size_t piece,
             size_t split) {
  ToolCallParser parser(format, tools);
  Parsed out;
  auto on_text = [&](absl::string_view t) { out.text.append(t.data(), t.size()); };
  auto on_call = [&](ToolCall c) { out.calls.push_back(std::move(c)); };
  if (piece == 0) {
    parser.Feed(absl::string_view(text).substr(0, split), on_text, on_call);
    parser.Feed(absl::string_view(text).substr(split), on_text, on_call);
  } else {
    for (size_t i = 0; i < text.size(); i += piece) {
      parser.Feed(absl::string_view(text).substr(i, piece), on_text, on_call);
    }
  }
  parser.Flush(on_text);
  return out;
}

ToolCallFormat ExpectedFormat(const std::string& id) {
  if (absl::StrContains(id, "gemma4")) return ToolCallFormat::kGemma4;
  if (absl::StrContains(id, "qwen35")) return ToolCallFormat::kQwenXml;
  if (id == "tokenizers/qwen3") return ToolCallFormat::kQwenJson;
  return ToolCallFormat::kNone;
}

class ToolPromptFixtureTest : public ::testing::Test {
 protected:
  void SetUp() override {
    shared_ = oxinfer::testing::FindSharedData(kFixture);
    auto fixture = Value::FromJson(ReadAll(kFixture));
    ASSERT_TRUE(fixture.ok()) << fixture.status();
    fixture_ = *fixture;
  }
  const Object& fx() const { return fixture_.object(); }
  std::string shared_;
  Value fixture_;
};

TEST_F(ToolPromptFixtureTest, BuiltinDeclarationsAreTheFixtures) {
  EXPECT_TRUE(builtin_tools::Declarations().Equals(*fx().Find("builtin_tools")))
      << builtin_tools::Declarations().Repr();
}

TEST_F(ToolPromptFixtureTest, PromptsAndCallsMatchTransformers) {
  if (shared_.empty()) GTEST_SKIP() << "shared/data not found beside the source tree";
  const Object& conversations = fx().Find("conversations")->object();
  const Object& variants = fx().Find("variants")->object();
  int total = 0, identical = 0, both_fail = 0, calls_checked = 0;
  for (const Value& entry : fx().Find("templates")->array()) {
    const Object& e = entry.object();
    const std::string id = e.Find("id")->as_string();
    const std::string text = ReadAll(shared_ + "/" + e.Find("path")->as_string());
    ASSERT_FALSE(text.empty()) << id;
    const Value& vars = *e.Find("template_vars");
    auto ct = e.Find("kind")->as_string() == "jinja" ? ChatTemplate::FromSource(text, vars)
                                                     : ChatTemplate::FromTokenizerConfig(text);
    ASSERT_TRUE(ct.ok()) << id << ": " << ct.status();
    const ToolCallFormat format = DetectToolCallFormat(ct->sources());
    EXPECT_EQ(format, ExpectedFormat(id)) << id << ": " << ToolCallFormatName(format);
    for (const Value& r : e.Find("results")->array()) {
      const Object& res = r.object();
      const std::string cname = res.Find("conversation")->as_string();
      const std::string vname = res.Find("variant")->as_string();
      const std::string where = absl::StrCat(id, " / ", cname, " / ", vname);
      const Object& conv = conversations.Find(cname)->object();
      auto messages = ParseMessagesJson(conv.Find("messages_file")->as_string(), "messages.json");
      ASSERT_TRUE(messages.ok()) << where << ": " << messages.status();
      auto tools = ParseToolsJson(conv.Find("tools_file")->as_string(), "tools.json");
      ASSERT_TRUE(tools.ok()) << where << ": " << tools.status();
      Value extra = Value::Dict();
      for (const auto& [k, v] : variants.Find(vname)->object().items()) extra.object().Set(k, v);
      for (const auto& [k, v] : vars.object().items()) extra.object().Set(k, v);
      auto got = ct->Render(MessagesForTemplate(*messages), *tools, true, extra);
      ++total;
      if (res.Find("error") != nullptr) {
        EXPECT_FALSE(got.ok()) << where << ": transformers failed ("
                               << res.Find("error")->as_string() << ") but we rendered";
        ++both_fail;
        continue;
      }
      ASSERT_TRUE(got.ok()) << where << ": " << got.status();
      const std::string& want = res.Find("output")->as_string();
      if (*got != want) {
        ADD_FAILURE() << where << ": " << DiffAt(want, *got);
        continue;
      }
      ++identical;

      // The calls in the rendered history parse back to the calls given.
      if (format == ToolCallFormat::kNone) continue;
      std::vector<const ToolCall*> given;
      for (const Message& m : *messages) {
        for (const ToolCall& c : m.tool_calls) given.push_back(&c);
      }
      Parsed whole = Parse(format, *tools, want, want.size(), 0);
      // Qwen's instructions show a call of an example function.
      std::vector<ToolCall> real;
      for (ToolCall& c : whole.calls) {
        if (c.name != "example_function_name") real.push_back(std::move(c));
      }
      whole.calls = std::move(real);
      ASSERT_EQ(whole.calls.size(), given.size()) << where;
      for (size_t i = 0; i < given.size(); ++i) {
        EXPECT_EQ(whole.calls[i].name, given[i]->name) << where;
        EXPECT_TRUE(whole.calls[i].arguments.Equals(given[i]->arguments))
            << where << ": " << whole.calls[i].arguments.Repr() << " vs "
            << given[i]->arguments.Repr();
      }
      if (given.empty() || vname != "think") continue;
      // However the text is split, the same text and calls come out.
      for (size_t split = 0; split <= want.size(); ++split) {
        const Parsed p = Parse(format, *tools, want, 0, split);
        ASSERT_EQ(p.text, whole.text) << where << " split at " << split;
        ASSERT_EQ(p.calls.size(), Parse(format, *tools, want, want.size(), 0).calls.size())
            << where << " split at " << split;
      }
      const Parsed bytes = Parse(format, *tools, want, 1, 0);
      EXPECT_EQ(bytes.text, whole.text) << where;
      EXPECT_EQ(bytes.calls.size(), Parse(format, *tools, want, want.size(), 0).calls.size())
          << where;
      calls_checked += static_cast<int>(given.size());
    }
  }
  std::cout << "SUMMARY: " << identical << " byte-identical prompts, " << both_fail
            << " where transformers and we both fail, of " << total << "; " << calls_checked
            << " calls parsed back at every split\n";
  EXPECT_EQ(identical + both_fail, total);
}

}  // namespace
}  // namespace oxinfer::engine
