// The host checks what crosses the ABI from a model plugin (docs/limits.md):
// reason and error buffers are terminated by the host, status codes outside
// the ABI's are reported as such, every integer of oxi_model_info is
// range-checked, and every failure names the plugin. The plugin that breaks
// the rules is tests/plugins/hostile_model_plugin.cc.
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>

#include "absl/strings/match.h"
#include "core/engine/model.h"
#include "core/plugin_registry.h"
#include "gtest/gtest.h"

namespace oxinfer::engine {
namespace {

constexpr char kPlugin[] = "tests/plugins/liboxinfer_hostile_model.so";

// A model folder whose config.json selects the plugin's breach.
std::string ModelDir(const std::string& mode) {
  const std::string dir = std::string(std::getenv("TEST_TMPDIR")) + "/" + mode;
  std::system(("mkdir -p " + dir).c_str());
  std::ofstream(dir + "/config.json")
      << "{\"model_type\": \"hostile\", \"mode\": \"" << mode << "\"}";
  return dir;
}

absl::Status OpenWith(const std::string& mode) {
  PluginRegistry registry;
  absl::Status loaded = registry.LoadFile(kPlugin);
  if (!loaded.ok()) return loaded;
  auto model = Model::Open(registry, ModelDir(mode), nullptr, ModelOpenOptions{});
  return model.ok() ? absl::OkStatus() : model.status();
}

void ExpectRefused(const std::string& mode, const std::string& why) {
  const absl::Status s = OpenWith(mode);
  ASSERT_FALSE(s.ok()) << mode << " was accepted";
  EXPECT_TRUE(absl::StrContains(s.message(), "hostile-model")) << mode << ": " << s;
  EXPECT_TRUE(absl::StrContains(s.message(), why)) << mode << ": " << s;
  // The unterminated buffers are 1024 bytes: the message ends inside them.
  EXPECT_LT(s.message().size(), 1500u) << mode;
}

TEST(PluginBoundaryTest, UnterminatedBuffersAreReadWithinTheirSize) {
  ExpectRefused("unterminated_reason", "xxxx");
  ExpectRefused("bad_code", "xxxx");
}

TEST(PluginBoundaryTest, CodesOutsideTheAbiAreReportedAsSuch) {
  absl::Status s = OpenWith("bad_code");
  EXPECT_EQ(s.code(), absl::StatusCode::kUnknown) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "999")) << s;
  ExpectRefused("info_fails", "999");
  ExpectRefused("error_as_score", "-3");
}

TEST(PluginBoundaryTest, InfoIntegersAreRangeChecked) {
  ExpectRefused("negative_vocab", "vocab_size -5");
  ExpectRefused("huge_vocab", "vocab_size 2147483647");
  ExpectRefused("stop_out_of_range", "stop token 1073741824");
  ExpectRefused("many_stops", "n_stop_tokens 1073741824");
  ExpectRefused("special_out_of_range", "special token 'bos' 1073741824");
  ExpectRefused("negative_hidden", "hidden_size -1");
}

// A separate drafter checkpoint (open_params.draft_dir) goes only to a
// plugin built for ABI 2.3 or later: an older one would never read it.
TEST(PluginBoundaryTest, ADraftDirIsRefusedToPluginsBeforeAbi23) {
  ModelOpenOptions options;
  options.draft = true;
  options.draft_dir = "/some/assistant";
  PluginRegistry old;
  ASSERT_TRUE(old.LoadFile("tests/plugins/liboxinfer_hostile_model_abi22.so").ok());
  auto refused = Model::Open(old, ModelDir("negative_vocab"), nullptr, options);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(refused.status().message(),
                                "model plugin hostile-model was built for ABI 2.2, which has no "
                                "draft_dir: it cannot load the drafter in /some/assistant"))
      << refused.status();
  // Without a draft_dir the old plugin is opened (and here refused for its info).
  auto plain = Model::Open(old, ModelDir("negative_vocab"), nullptr, ModelOpenOptions{});
  EXPECT_TRUE(absl::StrContains(plain.status().message(), "vocab_size -5")) << plain.status();
  // The current one is handed the folder (and refused for its info, not its ABI).
  PluginRegistry current;
  ASSERT_TRUE(current.LoadFile(kPlugin).ok());
  auto opened = Model::Open(current, ModelDir("negative_vocab"), nullptr, options);
  EXPECT_TRUE(absl::StrContains(opened.status().message(), "vocab_size -5")) << opened.status();
}

TEST(PluginBoundaryTest, ADeclineWithAnUnterminatedReasonIsBounded) {
  setenv("OXI_TEST_HOSTILE_SCORE", "unterminated", 1);
  PluginRegistry registry;
  EXPECT_FALSE(registry.LoadFile(kPlugin).ok());
  unsetenv("OXI_TEST_HOSTILE_SCORE");
  ASSERT_EQ(registry.plugins().size(), 1u);
  const PluginRecord& r = registry.plugins()[0];
  EXPECT_EQ(r.state, PluginState::kDeclined);
  EXPECT_TRUE(absl::StartsWith(r.reason, "xxxx")) << r.reason;
  EXPECT_LT(r.reason.size(), 1024u);
}

}  // namespace
}  // namespace oxinfer::engine
