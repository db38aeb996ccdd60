// Chat prompts with images and audio clips through the engine, against
// transformers' Gemma4Processor.apply_chat_template and
// Gemma4ForConditionalGeneration
// (testdata/media/vision_tiny/prompt_reference.*, made by
// tools/reference/gemma4_media/make_prompt_fixtures.py): the rendered prompt
// byte-identical, the expanded ids identical, the soft tokens and the last
// logits within 1e-4, 32 greedy tokens identical (up to a stop token); and a
// later turn that reuses the first one's prefix, and two images that render
// alike, told apart.
#include <cmath>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/engine/engine.h"
#include "core/safetensors.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/support/test_backends.h"

namespace oxinfer::engine {
namespace {

using oxinfer::testing::Runfile;

constexpr float kTolerance = 1e-4f;
const std::string kDir = "tests/models/gemma4/testdata/media/vision_tiny";

std::string FolderOf(const std::string& path) { return path.substr(0, path.rfind('/')); }

std::unique_ptr<Engine> Open() {
  EngineOptions options;
  options.model_dir = Runfile(kDir);
  options.plugin_dirs =
      absl::StrCat(FolderOf(Runfile("plugins/models/gemma4/liboxinfer_gemma4.so")), ":",
                   FolderOf(Runfile("plugins/backends/cpu/liboxinfer_cpu_scalar.so")));
  options.device = "cpu";
  auto engine = Engine::Open(options);
  EXPECT_TRUE(engine.ok()) << engine.status();
  return engine.ok() ? *std::move(engine) : nullptr;
}

template <typename T>
std::vector<T> Read(const SafetensorsFile& f, const std::string& name) {
  auto t = f.GetTensor(name);
  EXPECT_TRUE(t.ok()) << name << ": " << t.status();
  if (!t.ok()) return {};
  const T* p = t->data_as<T>();
  return std::vector<T>(p, p + t->numel());
}

std::shared_ptr<const Image> ReadImage(const SafetensorsFile& f, const std::string& name) {
  auto t = f.GetTensor(name);
  EXPECT_TRUE(t.ok()) << name;
  auto image = std::make_shared<Image>();
  if (!t.ok()) return image;
  image->height = static_cast<int32_t>(t->shape()[0]);
  image->width = static_cast<int32_t>(t->shape()[1]);
  image->channels = 3;
  image->pixels.assign(t->data_as<uint8_t>(), t->data_as<uint8_t>() + t->numel());
  return image;
}

std::shared_ptr<const Audio> ReadAudio(const SafetensorsFile& f, const std::string& name) {
  auto audio = std::make_shared<Audio>();
  audio->sample_rate = 16000;
  audio->samples = Read<float>(f, name);
  return audio;
}

float MaxAbsDiff(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return INFINITY;
  float d = 0;
  for (size_t i = 0; i < a.size(); ++i) d = std::fmax(d, std::fabs(a[i] - b[i]));
  return d;
}

// The reference's messages, image parts {"type": "image", "index": j} given
// the case's j-th image, audio parts its j-th clip.
std::vector<Message> Messages(const nlohmann::json& list, const SafetensorsFile& ref,
                              const std::string& prefix) {
  std::vector<Message> out;
  for (const auto& m : list) {
    Message msg;
    msg.role = *RoleFromName(m["role"].get<std::string>());
    if (m["content"].is_string()) {
      msg.content.push_back(ContentPart{ContentPart::Type::kText, m["content"].get<std::string>()});
    } else {
      msg.content_form = Message::ContentForm::kParts;
      for (const auto& p : m["content"]) {
        if (p["type"] == "image") {
          msg.content.push_back(ContentPart::FromImage(
              ReadImage(ref, prefix + ".image" + std::to_string(p["index"].get<int>()))));
        } else if (p["type"] == "audio") {
          msg.content.push_back(ContentPart::FromAudio(
              ReadAudio(ref, prefix + ".audio" + std::to_string(p["index"].get<int>()))));
        } else {
          msg.content.push_back(
              ContentPart{ContentPart::Type::kText, p["text"].get<std::string>()});
        }
      }
    }
    out.push_back(std::move(msg));
  }
  return out;
}

struct Fixture {
  std::unique_ptr<SafetensorsFile> ref;
  nlohmann::json meta;
};

Fixture Load() {
  Fixture f;
  auto ref = SafetensorsFile::Open(Runfile(kDir + "/prompt_reference.safetensors"));
  EXPECT_TRUE(ref.ok()) << ref.status();
  if (ref.ok()) f.ref = std::make_unique<SafetensorsFile>(*std::move(ref));
  std::ifstream in(Runfile(kDir + "/prompt_reference.json"));
  std::stringstream ss;
  ss << in.rdbuf();
  f.meta = nlohmann::json::parse(ss.str());
  return f;
}

std::unique_ptr<Session> Greedy(Engine& engine) {
  SessionOptions options;
  options.sampling.temperature = 0.0f;
  auto s = engine.NewSession(options);
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? *std::move(s) : nullptr;
}

TEST(Gemma4Prompt, MatchesProcessorAndModel) {
  Fixture f = Load();
  ASSERT_NE(f.ref, nullptr);
  auto engine = Open();
  ASSERT_NE(engine, nullptr);
  const auto& cases = f.meta["cases"];
  ASSERT_EQ(cases.size(), 7u);
  for (size_t c = 0; c < cases.size(); ++c) {
    SCOPED_TRACE("case " + std::to_string(c));
    const std::string p = "case" + std::to_string(c);
    auto session = Greedy(*engine);
    ASSERT_NE(session, nullptr);
    session->SetMessages(Messages(cases[c]["messages"], *f.ref, p));
    ChatOptions chat;
    chat.max_soft_tokens = cases[c]["max_soft_tokens"].get<int>();
    chat.template_kwargs.object().Set("enable_thinking", chat::Value(false));
    auto prompt = session->ChatPrompt(chat);
    ASSERT_TRUE(prompt.ok()) << prompt.status();
    const std::vector<uint8_t> text = Read<uint8_t>(*f.ref, p + ".text");
    EXPECT_EQ(prompt->text, std::string(text.begin(), text.end()));
    EXPECT_EQ(prompt->tokens, Read<int32_t>(*f.ref, p + ".ids"));
    // Every case's images come before its clips: their soft tokens in order.
    std::vector<float> soft;
    for (const char* kind : {".soft", ".audio_soft"}) {
      if (f.ref->Find(p + kind) == nullptr) continue;
      const std::vector<float> part = Read<float>(*f.ref, p + kind);
      soft.insert(soft.end(), part.begin(), part.end());
    }
    if (!soft.empty()) {
      ASSERT_NE(prompt->media, nullptr);
      const float d = MaxAbsDiff(prompt->media->SoftTokens(), soft);
      EXPECT_LE(d, kTolerance) << "soft tokens";
      std::printf("case %zu: soft tokens max |diff| %.3g\n", c, d);
    } else {
      EXPECT_EQ(prompt->media, nullptr);
    }
    GenerationOptions options;
    options.max_tokens = 32;
    options.return_prompt_logits = true;
    auto reply = session->Generate(*prompt, options);
    ASSERT_TRUE(reply.ok()) << reply.status();
    const float d = MaxAbsDiff(reply->prompt_logits, Read<float>(*f.ref, p + ".logits"));
    EXPECT_LE(d, kTolerance) << "last logits";
    std::printf("case %zu: %zu prompt tokens, last logits max |diff| %.3g\n", c,
                prompt->tokens.size(), d);
    // The reference runs on past a stop token; the engine stops there.
    std::vector<int32_t> greedy;
    for (int32_t t : Read<int32_t>(*f.ref, p + ".greedy")) {
      if (t == 1 || t == 106) break;
      greedy.push_back(t);
    }
    EXPECT_EQ(reply->tokens, greedy);
  }
}

// Two images of the same size render the same placeholders: the second
// prompt must not reuse the first one's positions of the image.
TEST(Gemma4Prompt, PrefixReuseTellsImagesApart) {
  Fixture f = Load();
  ASSERT_NE(f.ref, nullptr);
  auto engine = Open();
  ASSERT_NE(engine, nullptr);
  auto image = ReadImage(*f.ref, "case0.image0");
  auto other = std::make_shared<Image>(*image);
  for (uint8_t& v : other->pixels) v = static_cast<uint8_t>(255 - v);
  auto ask = [&](Session& s, std::shared_ptr<const Image> img) {
    Message m;
    m.content_form = Message::ContentForm::kParts;
    m.content.push_back(ContentPart::FromImage(img));
    m.content.push_back(ContentPart{ContentPart::Type::kText, "Describe this."});
    s.SetMessages({m});
    auto prompt = s.ChatPrompt();
    EXPECT_TRUE(prompt.ok()) << prompt.status();
    GenerationOptions options;
    options.max_tokens = 1;
    options.return_prompt_logits = true;
    auto reply = s.Generate(*prompt, options);
    EXPECT_TRUE(reply.ok()) << reply.status();
    return *reply;
  };
  auto session = Greedy(*engine);
  ASSERT_NE(session, nullptr);
  const Reply first = ask(*session, image);
  const Reply second = ask(*session, other);  // same tokens, other rows
  session.reset();
  auto fresh = Greedy(*engine);
  ASSERT_NE(fresh, nullptr);
  const Reply alone = ask(*fresh, other);
  EXPECT_LT(second.stats.reused_tokens, second.stats.prompt_tokens - 40);  // up to the image
  EXPECT_GT(second.stats.reused_tokens, 0);
  EXPECT_LE(MaxAbsDiff(second.prompt_logits, alone.prompt_logits), 1e-5f);
  EXPECT_GT(MaxAbsDiff(first.prompt_logits, second.prompt_logits), 1e-3f);
  // The same image again: the whole prompt but its last token is reused.
  const Reply again = ask(*fresh, other);
  EXPECT_EQ(again.stats.reused_tokens, again.stats.prompt_tokens - 1);
  EXPECT_LE(MaxAbsDiff(again.prompt_logits, alone.prompt_logits), 1e-5f);
}

TEST(Gemma4Prompt, UnpairedPlaceholdersAreRefused) {
  Fixture f = Load();
  ASSERT_NE(f.ref, nullptr);
  auto engine = Open();
  ASSERT_NE(engine, nullptr);
  auto session = Greedy(*engine);
  Message m;
  m.content_form = Message::ContentForm::kParts;
  m.content.push_back(ContentPart::FromImage(ReadImage(*f.ref, "case0.image0")));
  m.content.push_back(ContentPart{ContentPart::Type::kText, "and <|image|> typed"});
  session->SetMessages({m});
  auto prompt = session->ChatPrompt();
  ASSERT_FALSE(prompt.ok());
  EXPECT_NE(prompt.status().message().find("more media placeholders"), std::string::npos)
      << prompt.status();
  ChatOptions bad;
  bad.max_soft_tokens = 100;
  m.content.pop_back();
  session->SetMessages({m});
  prompt = session->ChatPrompt(bad);
  ASSERT_FALSE(prompt.ok());
  EXPECT_NE(prompt.status().message().find("attachment 1 (image)"), std::string::npos)
      << prompt.status();
}

}  // namespace
}  // namespace oxinfer::engine
