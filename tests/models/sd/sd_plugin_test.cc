// The SD model plugin as the host loads it (the real registry), on the
// backend named on the command line: probe, open, info, generation end to end
// through generate_image, the same seed bit for bit, cancellation from the
// progress callback, and bad requests refused with messages.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "oxinfer/model_abi.h"
#include "tests/models/sd/backend_arg.h"
#include "tests/support/test_backends.h"

namespace oxinfer {
namespace {

using oxinfer::testing::Runfile;

const std::string kPlugin = "plugins/models/sd/liboxinfer_sd.so";
const std::string kModels = "tests/models/sd/testdata";

const oxi_model_iface* Sd() {
  static const oxi_model_iface* sd = [] {
    auto iface = oxinfer::testing::LoadModelPlugin(Runfile(kPlugin));
    EXPECT_TRUE(iface.ok()) << iface.status();
    return iface.ok() ? *iface : nullptr;
  }();
  return sd;
}

// Opens the sd2 fixture pipeline on the test backend; nullptr (and a test
// failure naming the plugin's error) when that fails.
oxi_model* OpenSd2() {
  oxi_model_open_params params{};
  params.struct_size = sizeof(params);
  const std::string dir = Runfile(kModels + "/sd2");
  params.model_dir = dir.c_str();
  params.backend = sd::testing::TestBackendIface();
  params.use_mmap = 1;
  oxi_model* m = nullptr;
  char error[512] = {0};
  const int32_t rc = Sd()->open(&params, &m, error, sizeof(error));
  EXPECT_EQ(rc, OXI_OK) << error;
  return rc == OXI_OK ? m : nullptr;
}

// The sd2 fixture pipeline, opened once.
oxi_model* Model() {
  static oxi_model* model = OpenSd2();
  return model;
}

oxi_image_request Request() {
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
  return req;
}

struct Generated {
  int32_t rc = OXI_UNKNOWN;
  std::string error;
  std::vector<uint8_t> pixels;
  int width = 0, height = 0, channels = 0;
};

Generated GenerateOn(oxi_model* model, const oxi_image_request& req) {
  Generated g;
  oxi_image img{};
  img.struct_size = sizeof(img);
  char error[512] = {0};
  g.rc = Sd()->generate_image(model, &req, &img, error, sizeof(error));
  g.error = error;
  if (g.rc == OXI_OK) {
    g.width = img.width, g.height = img.height, g.channels = img.channels;
    g.pixels.assign(img.pixels, img.pixels + static_cast<size_t>(img.width) * img.height * 3);
    Sd()->free_image(&img);
  }
  return g;
}

Generated Generate(const oxi_image_request& req) { return GenerateOn(Model(), req); }

TEST(SdPluginTest, ProbeRecognisesDiffusersFoldersOnly) {
  ASSERT_NE(Sd(), nullptr);
  char reason[256] = {0};
  EXPECT_GT(Sd()->probe(Runfile(kModels + "/sd2").c_str(), "", reason, sizeof(reason)), 0)
      << reason;
  EXPECT_EQ(Sd()->probe(Runfile(kModels + "/sd1/unet").c_str(), "{}", reason, sizeof(reason)), 0);
  EXPECT_NE(std::string(reason).find("model_index.json"), std::string::npos) << reason;
  const char* other = R"({"_class_name": "StableDiffusionXLPipeline", "unet": []})";
  EXPECT_EQ(Sd()->probe(Runfile(kModels + "/sd2").c_str(), other, reason, sizeof(reason)), 0);
  EXPECT_NE(std::string(reason).find("StableDiffusionXLPipeline"), std::string::npos) << reason;
}

TEST(SdPluginTest, OpenFailsClearly) {
  ASSERT_NE(Sd(), nullptr);
  oxi_model_open_params params{};
  params.struct_size = sizeof(params);
  const std::string missing = Runfile(kModels + "/no_such_model");
  params.model_dir = missing.c_str();
  params.backend = sd::testing::TestBackendIface();
  oxi_model* model = nullptr;
  char error[512] = {0};
  EXPECT_NE(Sd()->open(&params, &model, error, sizeof(error)), OXI_OK);
  EXPECT_EQ(model, nullptr);
  EXPECT_NE(std::string(error).find("model_index.json"), std::string::npos) << error;

  const std::string dir = Runfile(kModels + "/sd2");
  params.model_dir = dir.c_str();
  params.backend = nullptr;
  EXPECT_EQ(Sd()->open(&params, &model, error, sizeof(error)), OXI_INVALID_ARGUMENT);
  EXPECT_NE(std::string(error).find("backend"), std::string::npos) << error;
}

TEST(SdPluginTest, InfoAndEntries) {
  ASSERT_NE(Model(), nullptr);
  EXPECT_EQ(Sd()->forward, nullptr);  // a text-to-image model has no logits
  ASSERT_NE(Sd()->generate_image, nullptr);
  oxi_model_info info{};
  info.struct_size = sizeof(info);
  ASSERT_EQ(Sd()->info(Model(), &info), OXI_OK);
  EXPECT_EQ(info.capabilities, OXI_MODEL_IMAGE_OUTPUT);
  EXPECT_STREQ(info.family, "sd");
  EXPECT_EQ(info.context_length, 77);
}

TEST(SdPluginTest, GeneratesReproduciblyWithProgress) {
  ASSERT_NE(Model(), nullptr);
  oxi_image_request req = Request();
  std::vector<int> steps;
  req.progress = [](void* ctx, int32_t step, int32_t total) {
    EXPECT_EQ(total, 3);
    static_cast<std::vector<int>*>(ctx)->push_back(step);
    return 0;
  };
  req.progress_ctx = &steps;
  const Generated a = Generate(req);
  ASSERT_EQ(a.rc, OXI_OK) << a.error;
  EXPECT_EQ(steps, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(a.width, 64);
  EXPECT_EQ(a.height, 64);
  EXPECT_EQ(a.channels, 3);
  int distinct = 0;
  for (size_t i = 1; i < a.pixels.size(); ++i) distinct += a.pixels[i] != a.pixels[0];
  EXPECT_GT(distinct, 100) << "a flat image";

  req.progress = nullptr;
  const Generated b = Generate(req);
  ASSERT_EQ(b.rc, OXI_OK) << b.error;
  EXPECT_EQ(a.pixels, b.pixels);  // same seed, same image, bit for bit

  req.seed = 8;
  const Generated c = Generate(req);
  ASSERT_EQ(c.rc, OXI_OK) << c.error;
  EXPECT_NE(a.pixels, c.pixels);
}

// OXINFER_SD_RESIDENCY=stage (each network loaded for its stage only): the
// same image bit for bit, image after image.
TEST(SdPluginTest, StagedResidencyFromTheEnvironment) {
  ASSERT_NE(Model(), nullptr);
  const Generated want = Generate(Request());
  ASSERT_EQ(want.rc, OXI_OK) << want.error;
  ASSERT_EQ(setenv("OXINFER_SD_RESIDENCY", "stage", 1), 0);
  oxi_model* staged = OpenSd2();
  unsetenv("OXINFER_SD_RESIDENCY");
  ASSERT_NE(staged, nullptr);
  for (int round = 0; round < 2; ++round) {
    const Generated got = GenerateOn(staged, Request());
    ASSERT_EQ(got.rc, OXI_OK) << got.error;
    EXPECT_EQ(got.pixels, want.pixels) << "round " << round;
  }
  Sd()->close(staged);
}

TEST(SdPluginTest, ProgressCancels) {
  ASSERT_NE(Model(), nullptr);
  oxi_image_request req = Request();
  int calls = 0;
  req.progress = [](void* ctx, int32_t step, int32_t) {
    ++*static_cast<int*>(ctx);
    return step >= 2 ? 1 : 0;
  };
  req.progress_ctx = &calls;
  const Generated g = Generate(req);
  EXPECT_EQ(g.rc, OXI_CANCELLED) << g.error;
  EXPECT_EQ(calls, 2);
  EXPECT_NE(g.error.find("cancelled"), std::string::npos) << g.error;
  // The model still generates afterwards.
  req.progress = nullptr;
  EXPECT_EQ(Generate(req).rc, OXI_OK);
}

TEST(SdPluginTest, RefusesBadRequestsWithMessages) {
  ASSERT_NE(Model(), nullptr);
  struct Case {
    const char* what;
    void (*edit)(oxi_image_request*);
    const char* message;
  };
  const Case cases[] = {
      {"sampler", [](oxi_image_request* r) { r->sampler = "ddim"; }, "sampler 'ddim'"},
      {"width", [](oxi_image_request* r) { r->width = 60; }, "must be multiples of"},
      {"height", [](oxi_image_request* r) { r->height = -64; }, "must be multiples of"},
      {"huge", [](oxi_image_request* r) { r->width = 1 << 20; }, "up to 2048"},
      {"steps", [](oxi_image_request* r) { r->steps = -1; }, "steps"},
      {"too many steps", [](oxi_image_request* r) { r->steps = 100000; }, "steps"},
      {"guidance", [](oxi_image_request* r) { r->guidance = NAN; }, "guidance"},
      {"infinite guidance", [](oxi_image_request* r) { r->guidance = INFINITY; }, "guidance"},
      {"prompt", [](oxi_image_request* r) { r->prompt = nullptr; }, "null"},
      {"truncated", [](oxi_image_request* r) { r->struct_size = 8; }, "truncated"},
  };
  for (const Case& c : cases) {
    oxi_image_request req = Request();
    c.edit(&req);
    const Generated g = Generate(req);
    EXPECT_EQ(g.rc, OXI_INVALID_ARGUMENT) << c.what << ": " << g.error;
    EXPECT_NE(g.error.find(c.message), std::string::npos) << c.what << ": " << g.error;
  }
}

}  // namespace
}  // namespace oxinfer

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  const int rc = oxinfer::sd::testing::InitBackendFromArgs(argc, argv);
  if (rc != 0) return rc < 0 ? 0 : rc;
  return RUN_ALL_TESTS();
}
