#include "core/chat/chat_template.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace oxinfer::chat {
namespace {

Value Json(const std::string& s) {
  auto v = Value::FromJson(s);
  EXPECT_TRUE(v.ok()) << v.status();
  return v.ok() ? *v : Value();
}

TEST(ChatTemplateTest, NormalizeDropsNoneAndAliasesReasoning) {
  auto n = NormalizeMessages(
      Json(R"([{"role": "assistant", "content": "a", "tool_calls": null, "reasoning": "r"}])"));
  ASSERT_TRUE(n.ok()) << n.status();
  // {"thinking": r, **message, "reasoning_content": r}
  EXPECT_EQ(n->array()[0].Repr(),
            "{'thinking': 'r', 'role': 'assistant', 'content': 'a', 'reasoning': 'r', "
            "'reasoning_content': 'r'}");
  EXPECT_FALSE(NormalizeMessages(Json(R"(["not a dict"])")).ok());
}

TEST(ChatTemplateTest, TokenizerConfigWithNamedTemplates) {
  std::string config = R"({
    "bos_token": {"__type": "AddedToken", "content": "<s>"},
    "eos_token": "</s>",
    "unk_token": null,
    "chat_template": [
      {"name": "default", "template": "{{ bos_token }}D{{ messages | length }}{{ eos_token }}"},
      {"name": "tool_use", "template": "T{{ tools | length if tools else 0 }}"}
    ]})";
  auto t = ChatTemplate::FromTokenizerConfig(config);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->special_tokens().Repr(), "{'bos_token': '<s>', 'eos_token': '</s>'}");
  Value msgs = Json(R"([{"role": "user", "content": "x"}])");
  auto r = t->Render(msgs);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(*r, "<s>D1</s>");
  r = t->Render(msgs, Json(R"([{"type": "function"}, {"type": "function"}])"));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(*r, "T2");
  auto named = ChatTemplate::FromTokenizerConfig(config, "tool_use");
  ASSERT_TRUE(named.ok());
  r = named->Render(msgs);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, "T0");
  EXPECT_FALSE(ChatTemplate::FromTokenizerConfig(config, "nope").ok());
  EXPECT_FALSE(ChatTemplate::FromTokenizerConfig(R"({"eos_token": "x"})").ok());
}

TEST(ChatTemplateTest, ExtraKwargsAndParseErrors) {
  auto t = ChatTemplate::FromSource(
      "{% if enable_thinking is defined and enable_thinking is false %}off{% else %}on{% endif %}");
  ASSERT_TRUE(t.ok());
  Value msgs = Json("[]");
  EXPECT_EQ(*t->Render(msgs), "on");
  Value extra = Value::Dict();
  extra.object().Set("enable_thinking", Value(false));
  EXPECT_EQ(*t->Render(msgs, Value::None(), true, extra), "off");

  auto bad = ChatTemplate::FromSource("ok\n{% for m in messages %}");
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(absl::StrContains(bad.status().message(), "endfor")) << bad.status();

  auto raising = ChatTemplate::FromSource("\n{{ raise_exception('Roles must alternate') }}");
  ASSERT_TRUE(raising.ok());
  auto r = raising->Render(msgs);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(
      absl::StrContains(r.status().message(), "line 2: raise_exception: Roles must alternate"))
      << r.status();
}

TEST(ChatTemplateTest, FromModelDirPrefersChatTemplateJinja) {
  std::string dir = std::string(std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR") : "/tmp") +
                    "/chat_template_model_dir";
  mkdir(dir.c_str(), 0755);
  unlink((dir + "/chat_template.jinja").c_str());
  std::ofstream(dir + "/tokenizer_config.json")
      << R"({"bos_token": "<b>", "chat_template": "from config"})";
  auto t = ChatTemplate::FromModelDir(dir);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(*t->Render(Json("[]")), "from config");
  std::ofstream(dir + "/chat_template.jinja") << "{{ bos_token }}from file\n";
  t = ChatTemplate::FromModelDir(dir);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(*t->Render(Json("[]")), "<b>from file");
  EXPECT_FALSE(ChatTemplate::FromModelDir(dir + "/missing").ok());
}

// A folder without a template takes the default the model plugin offers,
// with the folder's special tokens first and the given ones where it names none.
TEST(ChatTemplateTest, FromModelDirFallsBackToTheDefault) {
  std::string dir = std::string(std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR") : "/tmp") +
                    "/chat_template_default_dir";
  mkdir(dir.c_str(), 0755);
  unlink((dir + "/chat_template.jinja").c_str());
  std::ofstream(dir + "/tokenizer_config.json") << R"({"bos_token": "<b>"})";
  EXPECT_TRUE(absl::IsNotFound(ChatTemplate::FromModelDir(dir).status()));
  Value defaults = Value::Dict();
  defaults.object().Set("bos_token", Value("<ignored>"));
  defaults.object().Set("eos_token", Value("<e>"));
  auto t = ChatTemplate::FromModelDir(dir, "{{ bos_token }}{{ eos_token }}", defaults);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(*t->Render(Json("[]")), "<b><e>");
  std::ofstream(dir + "/tokenizer_config.json")
      << R"({"bos_token": "<b>", "chat_template": "own {{ eos_token }}"})";
  t = ChatTemplate::FromModelDir(dir, "default", defaults);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(*t->Render(Json("[]")), "own <e>");
}

}  // namespace
}  // namespace oxinfer::chat
