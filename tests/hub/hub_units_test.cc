// The pure parts of core/hub: repository specs, settings from the
// environment, the model-info parser, file selection.
#include <cstdlib>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "core/hub/file_selection.h"
#include "core/hub/hub_settings.h"
#include "core/hub/model_info.h"
#include "core/hub/repo_spec.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace oxinfer::hub {
namespace {

using ::testing::HasSubstr;

TEST(RepoSpecTest, ParsesNamesAndRevisions) {
  auto s = ParseRepoSpec("Qwen/Qwen3.5-0.8B");
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->repo_id, "Qwen/Qwen3.5-0.8B");
  EXPECT_EQ(s->revision, "main");
  s = ParseRepoSpec("google/gemma-4-E2B-it@refs/pr/3");
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->revision, "refs/pr/3");
  for (const char* bad : {"gpt2", "/abs/path", "./models/x", "a/b/c", "a/../b", "org/-x", "org/x@",
                          "org/x@a b", "org--x/y", "org/x.", "models/x@../../etc"}) {
    EXPECT_FALSE(ParseRepoSpec(bad).has_value()) << bad;
  }
  EXPECT_TRUE(IsCommitHash("0123456789abcdef0123456789abcdef01234567"));
  EXPECT_FALSE(IsCommitHash("main"));
}

TEST(HubSettingsTest, ReadsTheEnvironmentLikeHuggingfaceHub) {
  const std::string home = absl::StrCat(std::getenv("TEST_TMPDIR"), "/hfhome");
  setenv("HF_HOME", home.c_str(), 1);
  unsetenv("OXINFER_CACHE");
  unsetenv("HF_HUB_CACHE");
  unsetenv("HF_TOKEN");
  unsetenv("HF_TOKEN_PATH");
  setenv("HF_ENDPOINT", "http://127.0.0.1:9/", 1);
  setenv("HF_HUB_OFFLINE", "1", 1);
  ASSERT_EQ(std::system(("mkdir -p " + home).c_str()), 0);
  std::ofstream(home + "/token") << "hf_from_file\n";
  auto s = HubSettingsFromEnvironment("");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->cache_dir, home + "/hub");
  EXPECT_EQ(s->endpoint, "http://127.0.0.1:9");
  EXPECT_TRUE(s->offline);
  EXPECT_EQ(s->token, "hf_from_file");
  setenv("HF_TOKEN", "hf_env", 1);
  setenv("OXINFER_CACHE", "/tmp/ox", 1);
  s = HubSettingsFromEnvironment("");
  EXPECT_EQ(s->token, "hf_env");
  EXPECT_EQ(s->cache_dir, "/tmp/ox");
  s = HubSettingsFromEnvironment("/flag");
  EXPECT_EQ(s->cache_dir, "/flag");
  setenv("HF_ENDPOINT", "ftp://x", 1);
  EXPECT_FALSE(HubSettingsFromEnvironment("").ok());
  for (const char* v : {"HF_HOME", "HF_ENDPOINT", "HF_HUB_OFFLINE", "HF_TOKEN", "OXINFER_CACHE"}) {
    unsetenv(v);
  }
}

TEST(ModelInfoTest, ParsesTheHubsAnswer) {
  auto info = ParseModelInfo(R"({"id": "o/n", "sha": "0123456789abcdef0123456789abcdef01234567",
      "siblings": [{"rfilename": "config.json", "size": 10},
                   {"rfilename": "model.safetensors", "size": 99,
                    "lfs": {"sha256": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
                            "size": 100, "pointerSize": 134}}]})");
  ASSERT_TRUE(info.ok()) << info.status();
  ASSERT_EQ(info->files.size(), 2u);
  EXPECT_EQ(info->files[0].size, 10);
  EXPECT_EQ(info->files[1].size, 100);
  EXPECT_EQ(info->files[1].lfs_sha256.size(), 64u);
}

TEST(ModelInfoTest, RefusesUnsafeOrMalformedAnswers) {
  const std::string head = R"({"sha": "0123456789abcdef0123456789abcdef01234567", "siblings": )";
  for (const std::string& bad :
       {std::string("[]"), std::string(R"({"sha": "main", "siblings": []})"),
        head + R"([{"rfilename": "../../etc/passwd"}]})", head + R"([{"rfilename": "/abs"}]})",
        head + R"([{"rfilename": "a//b"}]})", head + R"([{"rfilename": "a\\b"}]})",
        head + R"([{"rfilename": "x", "size": -1}]})",
        head + R"([{"rfilename": "x"}, {"rfilename": "x"}]})",
        head + R"([{"rfilename": "x", "lfs": {"sha256": "short"}}]})", head + "7}"}) {
    auto info = ParseModelInfo(bad);
    EXPECT_FALSE(info.ok()) << bad;
    if (!info.ok()) {
      EXPECT_THAT(info.status().message(), HasSubstr("model info")) << bad;
    }
  }
}

std::vector<std::string> Selected(const std::vector<std::string>& names) {
  std::vector<RepoFile> files;
  for (const std::string& n : names) files.push_back(RepoFile{n});
  std::vector<std::string> out;
  for (const RepoFile& f : SelectModelFiles(files)) out.push_back(f.path);
  return out;
}

TEST(FileSelectionTest, TransformersLayout) {
  EXPECT_EQ(
      Selected({"config.json", "generation_config.json", "model-00001-of-00002.safetensors",
                "model-00002-of-00002.safetensors", "model.safetensors.index.json",
                "tokenizer.json", "tokenizer_config.json", "chat_template.jinja", "onnx/model.onnx",
                "model.gguf", "pytorch_model.bin", "tf_model.h5", "flax_model.msgpack",
                "original/consolidated.safetensors", "README.md", ".gitattributes"}),
      (std::vector<std::string>{"config.json", "generation_config.json",
                                "model-00001-of-00002.safetensors",
                                "model-00002-of-00002.safetensors", "model.safetensors.index.json",
                                "tokenizer.json", "tokenizer_config.json", "chat_template.jinja"}));
  EXPECT_TRUE(Selected({"README.md", "model.safetensors"}).empty());
}

TEST(FileSelectionTest, DiffusersLayout) {
  EXPECT_EQ(
      Selected({"model_index.json", "sd_turbo.safetensors", "unet/config.json",
                "unet/diffusion_pytorch_model.safetensors",
                "unet/diffusion_pytorch_model.fp16.safetensors", "vae/config.json",
                "vae/diffusion_pytorch_model.fp16.safetensors", "text_encoder/model.onnx",
                "scheduler/scheduler_config.json", "tokenizer/vocab.json", "tokenizer/merges.txt",
                "unet/onnx/x.safetensors"}),
      (std::vector<std::string>{
          "model_index.json", "unet/config.json", "unet/diffusion_pytorch_model.safetensors",
          "vae/config.json", "vae/diffusion_pytorch_model.fp16.safetensors",
          "scheduler/scheduler_config.json", "tokenizer/vocab.json", "tokenizer/merges.txt"}));
}

}  // namespace
}  // namespace oxinfer::hub
