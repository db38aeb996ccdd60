#include "tools/oxinfer/cli_args.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace oxinfer {
namespace {

std::vector<std::string> Normalize(std::vector<std::string> args) {
  std::vector<char*> ptrs;
  for (auto& a : args) ptrs.push_back(a.data());
  return NormalizeArgs(static_cast<int>(ptrs.size()), ptrs.data());
}

TEST(CliArgsTest, DashesBecomeUnderscoresInNamesOnly) {
  EXPECT_EQ(
      Normalize({"oxinfer", "--max-tokens=5", "--plugin-dir", "/a-b", "--dump-logits=x-y.bin"}),
      (std::vector<std::string>{"oxinfer", "--max_tokens=5", "--plugin_dir", "/a-b",
                                "--dump_logits=x-y.bin"}));
}

TEST(CliArgsTest, ShortFlagsTakeTheNextArgumentVerbatim) {
  EXPECT_EQ(Normalize({"oxinfer", "-p", "--not-a-flag", "-o", "a.png"}),
            (std::vector<std::string>{"oxinfer", "--prompt", "--not-a-flag", "--output", "a.png"}));
}

TEST(CliArgsTest, NothingChangesAfterDoubleDash) {
  EXPECT_EQ(Normalize({"oxinfer", "--", "--max-tokens"}),
            (std::vector<std::string>{"oxinfer", "--", "--max-tokens"}));
}

TEST(CliArgsTest, RepeatedFlagsAreTakenInOrder) {
  std::vector<std::string> args = {"oxinfer", "--image", "a.png", "--prompt", "x", "--image=b.png",
                                   "--audio", "c.wav",   "--",    "--image",  "d"};
  EXPECT_EQ(TakeRepeatedFlag(&args, "image"), (std::vector<std::string>{"a.png", "b.png"}));
  EXPECT_EQ(TakeRepeatedFlag(&args, "audio"), (std::vector<std::string>{"c.wav"}));
  EXPECT_EQ(args, (std::vector<std::string>{"oxinfer", "--prompt", "x", "--", "--image", "d"}));
  std::vector<std::string> last = {"oxinfer", "--image"};
  EXPECT_EQ(TakeRepeatedFlag(&last, "image"), (std::vector<std::string>{""}));
}

}  // namespace
}  // namespace oxinfer
