// Every stage of the Stable Diffusion pipeline against diffusers float32 on
// the tiny random-weight fixtures: tokens, text embeddings, scheduler sigmas,
// each UNet pass (fed the reference inputs), the VAE decoder, and the whole
// pipeline end to end (image >= 70 dB PSNR), on the backend named on the
// command line (tests/support/test_backends.h specs).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "oxinfer/sdk/json.hpp"
#include "plugins/models/sd/pipeline.h"
#include "plugins/models/sd/scheduler.h"
#include "plugins/models/sd/sd_config.h"
#include "tests/models/sd/backend_arg.h"
#include "tests/models/sd/fixture.h"

namespace oxinfer {
namespace sd {
namespace {

using testing::Compare;
using testing::Diff;
using testing::Fixture;
using testing::LoadFixture;
using testing::Psnr;
using testing::Relative;
using testing::Testdata;

// A pipeline per (model, matrix dtype, residency), loaded once (F32 and
// every network resident by default).
Pipeline& GetPipeline(const std::string& model, oxi_dtype matrix_dtype = OXI_DTYPE_F32,
                      Residency residency = Residency::kAll) {
  static auto* cache = new std::map<std::string, std::unique_ptr<Pipeline>>();
  const std::string key = model + "/" + oxi_dtype_name(matrix_dtype) +
                          (residency == Residency::kStage ? "/stage" : "/all");
  auto it = cache->find(key);
  if (it == cache->end()) {
    auto p = Pipeline::Load(Testdata() + "/" + model, testing::TestBackendIface(), matrix_dtype,
                            /*use_mmap=*/true, nullptr, residency);
    if (!p.ok()) {
      std::cerr << "loading " << model << ": " << p.status().message() << "\n";
      std::abort();
    }
    it = cache->emplace(key, *std::move(p)).first;
  }
  return *it->second;
}

HostAct Stack(const HostAct& a, const HostAct& b) {
  HostAct s = a;
  s.n = a.n + b.n;
  s.d.insert(s.d.end(), b.d.begin(), b.d.end());
  return s;
}

sdk::StatusOr<Act> Upload(Pipeline& p, const HostAct& h) {
  return WriteAct(p.pool(), h.n, h.h, h.w, h.c, h.d.data());
}

class StagesTest : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    auto f = LoadFixture(GetParam());
    ASSERT_TRUE(f.ok()) << f.status().message();
    fx_ = std::make_unique<Fixture>(*std::move(f));
    model_ = fx_->MetaString("model");
    guidance_ = static_cast<float>(fx_->MetaNumber("guidance"));
    steps_ = static_cast<int>(fx_->MetaNumber("steps"));
  }
  // Runs the fixture's settings and compares every stage (exact: to 1e-4
  // relative, else only the image's PSNR).
  void RunWholePipeline(Pipeline& p, double min_psnr, bool exact);

  std::unique_ptr<Fixture> fx_;
  std::string model_;
  float guidance_ = 0;
  int steps_ = 0;
};

TEST_P(StagesTest, TokensAndTextEmbeddings) {
  Pipeline& p = GetPipeline(model_);
  const Net net(p.pool());
  std::vector<int32_t> ids;
  auto emb = p.EncodePrompts(net, {fx_->MetaString("prompt")}, &ids);
  ASSERT_TRUE(emb.ok()) << emb.status().message();
  std::vector<float> want_ids = fx_->Floats("tokens_pos");
  ASSERT_EQ(ids.size(), want_ids.size());
  for (size_t i = 0; i < ids.size(); ++i) EXPECT_EQ(ids[i], want_ids[i]) << i;
  auto got = ReadAct(p.cx(), *emb);
  ASSERT_TRUE(got.ok());
  const Diff d = Compare(*got, fx_->AsHost("emb_pos"));
  std::cout << GetParam() << " emb_pos max abs diff " << d.max_abs << "\n";
  EXPECT_LT(d.max_abs, 2e-5);
}

TEST_P(StagesTest, SchedulerSigmasAndTimesteps) {
  auto cfg = ReadConfig(Testdata() + "/" + model_ + "/scheduler/scheduler_config.json");
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  auto s = EulerScheduler::FromConfig(cfg->root());
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_TRUE(s->SetSpacing(fx_->MetaString("timestep_spacing")).ok());
  ASSERT_TRUE(s->SetTimesteps(steps_).ok());
  std::vector<float> sig = fx_->Floats("sigmas"), ts = fx_->Floats("timesteps");
  ASSERT_EQ(s->sigmas().size(), sig.size());
  ASSERT_EQ(s->timesteps().size(), ts.size());
  for (size_t i = 0; i < sig.size(); ++i) EXPECT_NEAR(s->sigmas()[i], sig[i], 2e-6 * sig[0]) << i;
  for (size_t i = 0; i < ts.size(); ++i) EXPECT_EQ(s->timesteps()[i], ts[i]) << i;
  EXPECT_NEAR(s->init_noise_sigma(), fx_->MetaNumber("init_noise_sigma"), 1e-5);
}

TEST_P(StagesTest, UNetOnReferenceInputs) {
  Pipeline& p = GetPipeline(model_);
  const Net net(p.pool());
  const HostAct pos = fx_->AsHost("emb_pos");
  auto ctx = Upload(p, guidance_ > 1 ? Stack(fx_->AsHost("emb_neg"), pos) : pos);
  ASSERT_TRUE(ctx.ok()) << ctx.status().message();
  const std::vector<float> ts = fx_->Floats("timesteps");
  for (int i = 0; i < steps_; ++i) {
    const std::string s = sdk::StrCat("step", i, ".");
    auto in = Upload(p, fx_->AsHost(s + "unet_in"));
    ASSERT_TRUE(in.ok()) << in.status().message();
    auto out = p.unet().Forward(net, *in, ts[i], *ctx);
    ASSERT_TRUE(out.ok()) << out.status().message();
    auto got = ReadAct(p.cx(), *out);
    ASSERT_TRUE(got.ok());
    const Diff d = Compare(*got, fx_->AsHost(s + "unet_out"));
    std::cout << GetParam() << " " << s << "unet_out max abs " << d.max_abs << " (max " << d.max_ref
              << ")\n";
    EXPECT_LT(Relative(d), 1e-4) << s;
  }
}

TEST_P(StagesTest, VaeDecoderOnReferenceLatents) {
  Pipeline& p = GetPipeline(model_);
  const Net net(p.pool());
  auto z = Upload(p, fx_->AsHost("vae_in"));
  ASSERT_TRUE(z.ok()) << z.status().message();
  auto img = p.vae().Decode(net, *z);
  ASSERT_TRUE(img.ok()) << img.status().message();
  auto got = ReadAct(p.cx(), *img);
  ASSERT_TRUE(got.ok());
  const HostAct want = fx_->AsHost("image_f32");
  const Diff d = Compare(*got, want);
  const double psnr = Psnr(*got, want);
  std::cout << GetParam() << " vae max abs " << d.max_abs << ", PSNR " << psnr << " dB\n";
  EXPECT_LT(d.max_abs, 1e-4);
  EXPECT_GE(psnr, 90.0);
}

TEST_P(StagesTest, WholePipeline) { RunWholePipeline(GetPipeline(model_), 70.0, true); }

// f16 files kept 16-bit (sd2's weights are f16): the same results, since the
// matmul and the convolution widen them exactly.
TEST_P(StagesTest, WholePipelineWeightsAsStored) {
  RunWholePipeline(GetPipeline(model_, OXI_DTYPE_INVALID), 70.0, true);
}

// Each network loaded for its stage and freed after it: the same exactness,
// and nothing left loaded once the image is made.
TEST_P(StagesTest, WholePipelineStaged) {
  Pipeline& p = GetPipeline(model_, OXI_DTYPE_F32, Residency::kStage);
  RunWholePipeline(p, 70.0, true);
  EXPECT_FALSE(p.text_encoder().loaded());
  EXPECT_FALSE(p.unet().loaded());
  EXPECT_FALSE(p.vae().loaded());
}

// Matrices rounded to bf16: runs, and stays close (no exactness bar).
TEST_P(StagesTest, WholePipelineBf16Weights) {
  RunWholePipeline(GetPipeline(model_, OXI_DTYPE_BF16), 40.0, false);
}

void StagesTest::RunWholePipeline(Pipeline& p, double min_psnr, bool exact) {
  GenerateParams gp;
  gp.prompt = fx_->MetaString("prompt");
  gp.negative_prompt = fx_->MetaString("negative_prompt");
  gp.steps = steps_;
  gp.guidance = guidance_;
  gp.sampler = fx_->MetaString("sampler") == "euler" ? Sampler::kEuler : Sampler::kEulerAncestral;
  gp.timestep_spacing = fx_->MetaString("timestep_spacing");
  gp.width = static_cast<int>(fx_->MetaNumber("width"));
  gp.height = static_cast<int>(fx_->MetaNumber("height"));
  const HostAct noise = fx_->AsHost("noise");
  gp.initial_noise = &noise.d;
  gp.step_noise = [this](int i) { return fx_->AsHost(sdk::StrCat("step", i, ".anc_noise")).d; };
  std::map<std::string, HostAct> seen;
  gp.observer = [&seen](const std::string& name, const HostAct& a) { seen[name] = a; };
  auto img = p.Generate(gp);
  ASSERT_TRUE(img.ok()) << img.status().message();

  for (const char* name : {"emb_pos", "emb_neg"}) {
    if (!seen.count(name)) continue;
    const Diff d = Compare(seen[name], fx_->AsHost(name));
    if (exact) {
      EXPECT_LT(d.max_abs, 2e-5) << name;
    }
  }
  for (int i = 0; i < steps_; ++i) {
    for (const char* stage : {"unet_out", "guided", "latents"}) {
      const std::string name = sdk::StrCat("step", i, ".", stage);
      ASSERT_TRUE(seen.count(name)) << name;
      const Diff d = Compare(seen[name], fx_->AsHost(name));
      std::cout << GetParam() << " " << name << " max abs " << d.max_abs << " (max " << d.max_ref
                << ")\n";
      if (exact) {
        EXPECT_LT(Relative(d), 1e-4) << name;
      }
    }
  }
  const double psnr = Psnr(seen["image_f32"], fx_->AsHost("image_f32"));
  std::cout << GetParam() << " image PSNR " << psnr << " dB\n";
  EXPECT_GE(psnr, min_psnr);
  if (!exact) return;
  // The 8-bit image: rounding may flip a value by one, rarely.
  const std::vector<float> want = fx_->Floats("image_u8");
  ASSERT_EQ(want.size(), img->rgb.size());
  int differ = 0, worst = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    const int e = std::abs(static_cast<int>(img->rgb[i]) - static_cast<int>(want[i]));
    differ += e != 0;
    worst = std::max(worst, e);
  }
  std::cout << GetParam() << " u8: " << differ << " of " << want.size() << " differ, worst "
            << worst << "\n";
  EXPECT_LE(worst, 1);
  EXPECT_LE(differ, static_cast<int>(want.size() / 100));
}

INSTANTIATE_TEST_SUITE_P(Runs, StagesTest,
                         ::testing::Values("sd1_euler", "sd1_euler_a", "sd2_euler", "sd2_euler_a",
                                           "sd2_turbo", "sd1_euler_72x40", "sd2_euler_a_40x56"));

TEST(PipelineTest, SeededNoiseIsReproducible) {
  Pipeline& p = GetPipeline("sd2");
  GenerateParams gp;
  gp.prompt = "a red fox";
  gp.steps = 2;
  gp.guidance = 3.0f;
  gp.sampler = Sampler::kEulerAncestral;
  gp.width = gp.height = 64;
  gp.seed = 42;
  auto a = p.Generate(gp);
  auto b = p.Generate(gp);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->rgb, b->rgb);
  gp.seed = 43;
  auto c = p.Generate(gp);
  ASSERT_TRUE(c.ok());
  EXPECT_NE(a->rgb, c->rgb);
}

// Staged residency loads no weights up front, gives the image of the resident
// pipeline bit for bit (f16 weights as stored), and loads them again for the
// next image.
TEST(PipelineTest, StagedResidencyGivesTheSameImages) {
  Pipeline& all = GetPipeline("sd2", OXI_DTYPE_INVALID);
  auto staged = Pipeline::Load(Testdata() + "/sd2", testing::TestBackendIface(), OXI_DTYPE_INVALID,
                               /*use_mmap=*/true, nullptr, Residency::kStage);
  ASSERT_TRUE(staged.ok()) << staged.status().message();
  Pipeline& p = **staged;
  EXPECT_EQ(p.residency(), Residency::kStage);
  EXPECT_FALSE(p.text_encoder().loaded() || p.unet().loaded() || p.vae().loaded());
  EXPECT_EQ(p.native_size(), all.native_size());
  GenerateParams gp;
  gp.prompt = "a red fox";
  gp.negative_prompt = "blurry";
  gp.steps = 2;
  gp.guidance = 3.0f;
  gp.sampler = Sampler::kEulerAncestral;
  gp.width = gp.height = 64;
  gp.seed = 42;
  std::vector<std::string> stages;
  gp.stage_time = [&stages](const std::string& stage, double) { stages.push_back(stage); };
  auto want = all.Generate(gp);
  ASSERT_TRUE(want.ok()) << want.status().message();
  EXPECT_EQ(std::count(stages.begin(), stages.end(), "load unet"), 0);
  for (int round = 0; round < 2; ++round) {
    stages.clear();
    auto got = p.Generate(gp);
    ASSERT_TRUE(got.ok()) << got.status().message();
    EXPECT_EQ(got->rgb, want->rgb) << "round " << round;
    EXPECT_FALSE(p.text_encoder().loaded() || p.unet().loaded() || p.vae().loaded());
    for (const char* stage : {"load text encoder", "load unet", "load vae"}) {
      EXPECT_EQ(std::count(stages.begin(), stages.end(), stage), 1) << stage;
    }
  }
  // Outside a generation the networks are not there to call.
  Net net(p.pool());
  EXPECT_EQ(p.EncodePrompts(net, {"x"}).status().code(), OXI_FAILED_PRECONDITION);
}

// Staged, a folder without a network's weights still fails at Load.
TEST(PipelineTest, StagedLoadFindsMissingWeights) {
  namespace fs = std::filesystem;
  const fs::path src = Testdata() + "/sd1";
  const fs::path dir = fs::path(::testing::TempDir()) / "sd1_without_unet_weights";
  fs::remove_all(dir);
  fs::create_directories(dir / "unet");
  for (const char* part : {"model_index.json", "tokenizer", "text_encoder", "vae", "scheduler"}) {
    fs::create_symlink(fs::absolute(src / part), dir / part);
  }
  fs::create_symlink(fs::absolute(src / "unet" / "config.json"), dir / "unet" / "config.json");
  auto p = Pipeline::Load(dir.string(), testing::TestBackendIface(), OXI_DTYPE_F32,
                          /*use_mmap=*/true, nullptr, Residency::kStage);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), OXI_NOT_FOUND);
  EXPECT_NE(p.status().message().find("no safetensors weights in"), std::string::npos)
      << p.status().message();
  fs::remove_all(dir);
}

TEST(PipelineTest, RejectsBadRequests) {
  Pipeline& p = GetPipeline("sd1");
  GenerateParams gp;
  gp.prompt = "x";
  gp.width = 60;
  gp.height = 64;
  auto r = p.Generate(gp);
  EXPECT_EQ(r.status().code(), OXI_INVALID_ARGUMENT);
  EXPECT_NE(r.status().message().find("must be multiples of 8 up to 2048"), std::string::npos)
      << r.status().message();
  gp.width = 64;
  gp.steps = 5000;
  r = p.Generate(gp);
  EXPECT_EQ(r.status().code(), OXI_INVALID_ARGUMENT);
  EXPECT_NE(r.status().message().find("steps"), std::string::npos) << r.status().message();
}

TEST(PipelineTest, CancelsBetweenSteps) {
  Pipeline& p = GetPipeline("sd1");
  GenerateParams gp;
  gp.prompt = "x";
  gp.steps = 4;
  int calls = 0;
  gp.progress = [&calls](int step, int total) {
    ++calls;
    EXPECT_EQ(total, 4);
    return step < 2;
  };
  auto r = p.Generate(gp);
  EXPECT_EQ(r.status().code(), OXI_CANCELLED);
  EXPECT_EQ(calls, 2);
  EXPECT_NE(r.status().message().find("cancelled after step 2 of 4"), std::string::npos)
      << r.status().message();
}

TEST(PipelineTest, TurboDefaultsByName) {
  EXPECT_FALSE(GetPipeline("sd2").is_turbo());
  EXPECT_EQ(GetPipeline("sd2").default_steps(), 25);
  EXPECT_FLOAT_EQ(GetPipeline("sd2").default_guidance(), 7.5f);
}

TEST(PipelineTest, GaussianNoiseLooksNormal) {
  std::vector<float> n = GaussianNoise(7, 0, 100000);
  double mean = 0, var = 0;
  for (float v : n) mean += v;
  mean /= n.size();
  for (float v : n) var += (v - mean) * (v - mean);
  var /= n.size();
  EXPECT_NEAR(mean, 0.0, 0.02);
  EXPECT_NEAR(var, 1.0, 0.02);
  EXPECT_EQ(GaussianNoise(7, 0, 10), GaussianNoise(7, 0, 10));
  EXPECT_NE(GaussianNoise(7, 0, 10), GaussianNoise(7, 1, 10));
}

}  // namespace
}  // namespace sd
}  // namespace oxinfer

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  const int rc = oxinfer::sd::testing::InitBackendFromArgs(argc, argv);
  if (rc != 0) return rc < 0 ? 0 : rc;
  return RUN_ALL_TESTS();
}
