// A codec plugin's fuzz seed corpus (fuzz/corpus/codec_<name>), run through
// the plugin loaded as the host loads it: valid_* seeds decode, bad_* ones
// (truncated, corrupted, bombs) are refused, and no prefix of any seed
// crashes (fuzz/corpus_check.h). The codec's name is the test's argument.
#include <string>

#include "fuzz/codec_fuzz_input.h"
#include "fuzz/corpus_check.h"
#include "gtest/gtest.h"
#include "oxinfer/plugin_abi.h"
#include "tests/support/test_backends.h"

namespace oxinfer {
namespace {

std::string g_codec;
const oxi_codec_iface* g_iface = nullptr;

absl::Status Parse(const uint8_t* data, size_t size) {
  return DecodeWithCodec(g_iface, data, size);
}

TEST(CodecCorpusTest, EverySeed) {
  ASSERT_FALSE(g_codec.empty()) << "usage: codec_corpus_test <codec>";
  auto iface = testing::LoadPluginIface(
      testing::Runfile("plugins/codecs/" + g_codec + "/liboxinfer_" + g_codec + ".so"),
      OXI_PLUGIN_CODEC);
  ASSERT_TRUE(iface.ok()) << iface.status();
  g_iface = static_cast<const oxi_codec_iface*>(*iface);
  CheckSeedCorpus("fuzz/corpus/codec_" + g_codec, 4, &Parse);
}

}  // namespace
}  // namespace oxinfer

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (argc > 1) oxinfer::g_codec = argv[1];
  return RUN_ALL_TESTS();
}
