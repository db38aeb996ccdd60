#include "core/engine/message.h"

#include "gtest/gtest.h"

namespace oxinfer::engine {
namespace {

TEST(MessageTest, RolesByName) {
  for (Role r : {Role::kSystem, Role::kUser, Role::kAssistant, Role::kTool}) {
    auto back = RoleFromName(RoleName(r));
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, r);
  }
  EXPECT_FALSE(RoleFromName("model").ok());
}

TEST(MessageTest, TemplatesSeeTransformersDicts) {
  Message answer = Message::Text(Role::kAssistant, "4");
  answer.reasoning = "2 + 2";
  Message question = Message::Text(Role::kUser, "2 + ");
  question.content.push_back(ContentPart{ContentPart::Type::kText, "2?"});
  EXPECT_EQ(question.JoinedText(), "2 + 2?");
  const chat::Value v = MessagesForTemplate({question, answer});
  EXPECT_EQ(v.Repr(),
            "[{'role': 'user', 'content': '2 + 2?'}, "
            "{'role': 'assistant', 'content': '4', 'reasoning_content': '2 + 2'}]");
}

}  // namespace
}  // namespace oxinfer::engine
