// The SD model plugin and the PNG codec plugin loaded as the host loads them:
// probe and open the tiny fixture pipeline, generate an image through the
// generate_image entry, write it as PNG, read it back.
#include <dlfcn.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "core/host_services.h"
#include "gtest/gtest.h"
#include "oxinfer/plugin_abi.h"

namespace oxinfer {
namespace {

constexpr char kSdPlugin[] = "plugins/models/sd/liboxinfer_sd.so";
constexpr char kPngPlugin[] = "plugins/codecs/png/liboxinfer_png.so";
constexpr char kModel[] = "tests/models/sd/testdata/sd2";

const void* LoadInterface(const char* path, int32_t kind) {
  void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (h == nullptr) {
    ADD_FAILURE() << dlerror();
    return nullptr;
  }
  auto entry = reinterpret_cast<oxi_plugin_entry_fn>(dlsym(h, OXI_ENTRY_SYMBOL));
  if (entry == nullptr) {
    ADD_FAILURE() << "no entry in " << path;
    return nullptr;
  }
  const oxi_plugin* p = entry();
  EXPECT_EQ(p->abi_major, static_cast<uint32_t>(OXI_ABI_MAJOR));
  EXPECT_EQ(p->kind, kind);
  char reason[256] = {0};
  EXPECT_GT(p->score(HostServices(), reason, sizeof(reason)), 0) << reason;
  return p->get_interface(HostServices(), reason, sizeof(reason));
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

TEST(SdPluginTest, ProbeRecognisesDiffusersFoldersOnly) {
  auto* sd = static_cast<const oxi_model_iface*>(LoadInterface(kSdPlugin, OXI_PLUGIN_MODEL));
  ASSERT_NE(sd, nullptr);
  char reason[256] = {0};
  EXPECT_GT(sd->probe(kModel, "", reason, sizeof(reason)), 0) << reason;
  EXPECT_EQ(sd->probe("tests/models/sd/testdata/sd1/unet", "{}", reason, sizeof(reason)), 0);
  EXPECT_NE(std::string(reason).find("model_index.json"), std::string::npos) << reason;
}

TEST(SdPluginTest, OpenFailsClearlyOnABrokenFolder) {
  auto* sd = static_cast<const oxi_model_iface*>(LoadInterface(kSdPlugin, OXI_PLUGIN_MODEL));
  ASSERT_NE(sd, nullptr);
  oxi_model_open_params params{};
  params.struct_size = sizeof(params);
  params.model_dir = "tests/models/sd/testdata/no_such_model";
  oxi_model* model = nullptr;
  char error[512] = {0};
  EXPECT_NE(sd->open(&params, &model, error, sizeof(error)), OXI_OK);
  EXPECT_EQ(model, nullptr);
  EXPECT_NE(std::string(error).find("model_index.json"), std::string::npos) << error;
}

TEST(SdPluginTest, GeneratesAPngAndReadsItBack) {
  auto* sd = static_cast<const oxi_model_iface*>(LoadInterface(kSdPlugin, OXI_PLUGIN_MODEL));
  auto* png = static_cast<const oxi_codec_iface*>(LoadInterface(kPngPlugin, OXI_PLUGIN_CODEC));
  ASSERT_NE(sd, nullptr);
  ASSERT_NE(png, nullptr);
  ASSERT_TRUE(OXI_HAS_FIELD(sd, oxi_model_iface, generate_image));

  oxi_model_open_params params{};
  params.struct_size = sizeof(params);
  params.model_dir = kModel;
  params.backend = nullptr;  // the plugin's portable fallbacks
  std::vector<std::string> loaded;
  params.progress = [](void* ctx, double done, double total, const char* what) {
    static_cast<std::vector<std::string>*>(ctx)->push_back(what);
    EXPECT_LE(done, total);
  };
  params.progress_ctx = &loaded;
  oxi_model* model = nullptr;
  char error[512] = {0};
  ASSERT_EQ(sd->open(&params, &model, error, sizeof(error)), OXI_OK) << error;
  EXPECT_EQ(loaded.size(), 5u);
  EXPECT_EQ(sd->forward(model, nullptr, 0, nullptr, error, sizeof(error)), OXI_UNIMPLEMENTED);

  oxi_image_request req{};
  req.struct_size = sizeof(req);
  req.prompt = "a red fox in a snowy forest";
  req.negative_prompt = "blurry";
  req.steps = 3;
  req.guidance = 5.0f;
  req.sampler = "euler_a";
  req.width = 64;
  req.height = 64;
  req.seed = 7;
  std::vector<int> progress;
  req.progress = [](void* ctx, int32_t step, int32_t) {
    static_cast<std::vector<int>*>(ctx)->push_back(step);
  };
  req.progress_ctx = &progress;
  oxi_image img{};
  img.struct_size = sizeof(img);
  ASSERT_EQ(sd->generate_image(model, &req, &img, error, sizeof(error)), OXI_OK) << error;
  EXPECT_EQ(progress, (std::vector<int>{1, 2, 3}));
  ASSERT_EQ(img.width, 64);
  ASSERT_EQ(img.height, 64);
  ASSERT_EQ(img.channels, 3);

  // Same seed, same image, bit for bit.
  oxi_image again{};
  again.struct_size = sizeof(again);
  req.progress = nullptr;
  ASSERT_EQ(sd->generate_image(model, &req, &again, error, sizeof(error)), OXI_OK) << error;
  EXPECT_EQ(std::memcmp(img.pixels, again.pixels, 64 * 64 * 3), 0);
  sd->free_image(&again);

  uint8_t* bytes = nullptr;
  size_t n = 0;
  ASSERT_EQ(png->encode_image(&img, "png", &bytes, &n, error, sizeof(error)), OXI_OK) << error;
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string path = std::string(tmp ? tmp : "/tmp") + "/sd_fox.png";
  {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes), static_cast<std::streamsize>(n));
  }
  png->free_buffer(bytes);
  const std::string file = ReadFile(path);
  oxi_image back{};
  back.struct_size = sizeof(back);
  ASSERT_EQ(png->decode_image(reinterpret_cast<const uint8_t*>(file.data()), file.size(), &back,
                              error, sizeof(error)),
            OXI_OK)
      << error;
  EXPECT_EQ(back.width, 64);
  EXPECT_EQ(back.height, 64);
  EXPECT_EQ(back.channels, 3);
  EXPECT_EQ(std::memcmp(back.pixels, img.pixels, 64 * 64 * 3), 0);
  png->free_image(&back);

  req.sampler = "ddim";
  EXPECT_EQ(sd->generate_image(model, &req, &again, error, sizeof(error)), OXI_INVALID_ARGUMENT);
  EXPECT_NE(std::string(error).find("sampler"), std::string::npos) << error;

  sd->free_image(&img);
  sd->close(model);
}

}  // namespace
}  // namespace oxinfer
