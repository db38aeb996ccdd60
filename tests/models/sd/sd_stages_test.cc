// Every stage of the Stable Diffusion pipeline against diffusers float32 on
// the tiny random-weight fixtures: tokens, text embeddings, scheduler sigmas,
// each UNet pass (fed the reference inputs), the VAE decoder, and the whole
// pipeline end to end (image >= 70 dB PSNR). Without arguments no backend
// table is passed, so the plugin's portable fallbacks compute everything;
// with backend plugin paths as arguments the best-scoring one computes, on
// the host's thread pool (sd_stages_cpu_backend_test).
#include <dlfcn.h>

#include <cmath>
#include <map>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/host_services.h"
#include "gtest/gtest.h"
#include "plugins/models/sd/pipeline.h"
#include "plugins/models/sd/scheduler.h"
#include "plugins/models/sd/sd_config.h"
#include "tests/models/sd/fixture.h"

namespace oxinfer {
namespace sd {
namespace {

using testing::Compare;
using testing::Diff;
using testing::Fixture;
using testing::kTestdata;
using testing::LoadFixture;
using testing::Psnr;

// weight_dtype as Pipeline::Load's (F32 by default).
const Pipeline& GetPipeline(const std::string& model, oxi_dtype weight_dtype = OXI_DTYPE_F32) {
  static auto* cache = new std::map<std::string, std::unique_ptr<Pipeline>>();
  const std::string key = absl::StrCat(model, "/", weight_dtype);
  auto it = cache->find(key);
  if (it == cache->end()) {
    absl::StatusOr<std::unique_ptr<Pipeline>> p =
        Pipeline::Load(absl::StrCat(kTestdata, "/", model), nullptr, weight_dtype);
    EXPECT_TRUE(p.ok()) << p.status();
    if (!p.ok()) std::abort();
    it = cache->emplace(key, *std::move(p)).first;
  }
  return *it->second;
}

const oxi_backend_iface* g_backend = nullptr;

const Ops& CpuOps() {
  static const Ops ops(g_backend, g_backend != nullptr ? HostServices() : nullptr);
  return ops;
}

// Relative to the reference's largest magnitude.
double Rel(const Diff& d) { return d.max_abs / std::max(d.max_ref, 1e-30); }

class StagesTest : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    absl::StatusOr<Fixture> f = LoadFixture(GetParam());
    ASSERT_TRUE(f.ok()) << f.status();
    fx_ = std::make_unique<Fixture>(*std::move(f));
    model_ = fx_->meta["model"].get<std::string>();
    guidance_ = fx_->meta["guidance"].get<float>();
    steps_ = fx_->meta["steps"].get<int>();
  }
  // Runs the fixture's settings and compares every stage (exact: to 1e-4
  // relative, else only the image's PSNR).
  void RunWholePipeline(const Pipeline& p, double min_psnr, bool exact);

  std::unique_ptr<Fixture> fx_;
  std::string model_;
  float guidance_ = 0;
  int steps_ = 0;
};

TEST_P(StagesTest, TokensAndTextEmbeddings) {
  const Pipeline& p = GetPipeline(model_);
  std::vector<int32_t> ids;
  absl::StatusOr<Act> emb = p.EncodePrompt(CpuOps(), fx_->meta["prompt"], &ids);
  ASSERT_TRUE(emb.ok()) << emb.status();
  std::vector<float> want_ids = fx_->Floats("tokens_pos");
  ASSERT_EQ(ids.size(), want_ids.size());
  for (size_t i = 0; i < ids.size(); ++i) EXPECT_EQ(ids[i], want_ids[i]) << i;
  Diff d = Compare(*emb, fx_->AsAct("emb_pos"));
  EXPECT_LT(d.max_abs, 2e-5) << "emb_pos max abs " << d.max_abs;
  std::cout << GetParam() << " emb_pos max abs diff " << d.max_abs << "\n";
}

TEST_P(StagesTest, SchedulerSigmasAndTimesteps) {
  absl::StatusOr<nlohmann::json> cfg =
      ReadJsonFile(absl::StrCat(kTestdata, "/", model_, "/scheduler/scheduler_config.json"));
  ASSERT_TRUE(cfg.ok());
  absl::StatusOr<EulerScheduler> s = EulerScheduler::FromConfig(*cfg);
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_TRUE(s->SetSpacing(fx_->meta["timestep_spacing"]).ok());
  ASSERT_TRUE(s->SetTimesteps(steps_).ok());
  std::vector<float> sig = fx_->Floats("sigmas"), ts = fx_->Floats("timesteps");
  ASSERT_EQ(s->sigmas().size(), sig.size());
  ASSERT_EQ(s->timesteps().size(), ts.size());
  for (size_t i = 0; i < sig.size(); ++i) EXPECT_NEAR(s->sigmas()[i], sig[i], 2e-6 * sig[0]) << i;
  for (size_t i = 0; i < ts.size(); ++i) EXPECT_EQ(s->timesteps()[i], ts[i]) << i;
  EXPECT_NEAR(s->init_noise_sigma(), fx_->meta["init_noise_sigma"].get<double>(), 1e-5);
}

TEST_P(StagesTest, UNetOnReferenceInputs) {
  const Pipeline& p = GetPipeline(model_);
  Act ctx;
  Act pos = fx_->AsAct("emb_pos");
  if (guidance_ > 1) {
    Act neg = fx_->AsAct("emb_neg");
    ctx = Act(2, 1, pos.w, pos.c);
    std::copy(neg.d.begin(), neg.d.end(), ctx.d.begin());
    std::copy(pos.d.begin(), pos.d.end(), ctx.d.begin() + pos.size());
  } else {
    ctx = pos;
  }
  std::vector<float> ts = fx_->Floats("timesteps");
  for (int i = 0; i < steps_; ++i) {
    const std::string s = absl::StrCat("step", i, ".");
    absl::StatusOr<Act> out = p.unet().Forward(CpuOps(), fx_->AsAct(s + "unet_in"), ts[i], ctx);
    ASSERT_TRUE(out.ok()) << out.status();
    Diff d = Compare(*out, fx_->AsAct(s + "unet_out"));
    std::cout << GetParam() << " " << s << "unet_out max abs " << d.max_abs << " (max " << d.max_ref
              << ")\n";
    EXPECT_LT(Rel(d), 1e-4) << s;
  }
}

TEST_P(StagesTest, VaeDecoderOnReferenceLatents) {
  const Pipeline& p = GetPipeline(model_);
  absl::StatusOr<Act> img = p.vae().Decode(CpuOps(), fx_->AsAct("vae_in"));
  ASSERT_TRUE(img.ok()) << img.status();
  Act want = fx_->AsAct("image_f32");
  Diff d = Compare(*img, want);
  const double psnr = Psnr(*img, want);
  std::cout << GetParam() << " vae max abs " << d.max_abs << ", PSNR " << psnr << " dB\n";
  EXPECT_LT(d.max_abs, 1e-4);
  EXPECT_GE(psnr, 90.0);
}

TEST_P(StagesTest, WholePipeline) { RunWholePipeline(GetPipeline(model_), 70.0, true); }

// f16 files kept 16-bit (sd2's weights are f16): the same results, since the
// matmul widens them exactly.
TEST_P(StagesTest, WholePipelineWeightsAsStored) {
  RunWholePipeline(GetPipeline(model_, OXI_DTYPE_INVALID), 70.0, true);
}

// Weights rounded to bf16: runs, and stays close (no exactness bar).
TEST_P(StagesTest, WholePipelineBf16Weights) {
  RunWholePipeline(GetPipeline(model_, OXI_DTYPE_BF16), 40.0, false);
}

void StagesTest::RunWholePipeline(const Pipeline& p, double min_psnr, bool exact) {
  GenerateParams gp;
  gp.prompt = fx_->meta["prompt"].get<std::string>();
  gp.negative_prompt = fx_->meta["negative_prompt"].get<std::string>();
  gp.steps = steps_;
  gp.guidance = guidance_;
  gp.sampler = fx_->meta["sampler"] == "euler" ? Sampler::kEuler : Sampler::kEulerAncestral;
  gp.timestep_spacing = fx_->meta["timestep_spacing"].get<std::string>();
  gp.width = fx_->meta["width"];
  gp.height = fx_->meta["height"];
  Act noise = fx_->AsAct("noise");
  gp.initial_noise = &noise.d;
  gp.step_noise = [this](int i) { return fx_->AsAct(absl::StrCat("step", i, ".anc_noise")).d; };
  std::map<std::string, Act> seen;
  gp.observer = [&seen](const std::string& name, const Act& a) { seen[name] = a; };
  absl::StatusOr<Image> img = p.Generate(CpuOps(), gp);
  ASSERT_TRUE(img.ok()) << img.status();

  for (int i = 0; i < steps_; ++i) {
    for (const char* stage : {"unet_out", "guided", "latents"}) {
      const std::string name = absl::StrCat("step", i, ".", stage);
      ASSERT_TRUE(seen.count(name)) << name;
      Diff d = Compare(seen[name], fx_->AsAct(name));
      std::cout << GetParam() << " " << name << " max abs " << d.max_abs << " (max " << d.max_ref
                << ")\n";
      if (exact) EXPECT_LT(Rel(d), 1e-4) << name;
    }
  }
  const double psnr = Psnr(seen["image_f32"], fx_->AsAct("image_f32"));
  std::cout << GetParam() << " image PSNR " << psnr << " dB\n";
  EXPECT_GE(psnr, min_psnr);
  if (!exact) return;
  // The 8-bit image: rounding may flip a value by one, rarely.
  std::vector<float> want = fx_->Floats("image_u8");
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
                                           "sd2_turbo"));

TEST(PipelineTest, SeededNoiseIsReproducible) {
  const Pipeline& p = GetPipeline("sd2");
  GenerateParams gp;
  gp.prompt = "a red fox";
  gp.steps = 2;
  gp.guidance = 3.0f;
  gp.sampler = Sampler::kEulerAncestral;
  gp.width = gp.height = 64;
  gp.seed = 42;
  absl::StatusOr<Image> a = p.Generate(CpuOps(), gp);
  absl::StatusOr<Image> b = p.Generate(CpuOps(), gp);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->rgb, b->rgb);
  gp.seed = 43;
  absl::StatusOr<Image> c = p.Generate(CpuOps(), gp);
  ASSERT_TRUE(c.ok());
  EXPECT_NE(a->rgb, c->rgb);
}

TEST(PipelineTest, RejectsBadSizes) {
  const Pipeline& p = GetPipeline("sd1");
  GenerateParams gp;
  gp.prompt = "x";
  gp.width = 60;
  gp.height = 64;
  EXPECT_EQ(p.Generate(CpuOps(), gp).status().code(), absl::StatusCode::kInvalidArgument);
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
  int32_t best = 0;
  for (int i = 1; i < argc; ++i) {
    void* h = dlopen(argv[i], RTLD_NOW | RTLD_LOCAL);
    if (h == nullptr) {
      std::fprintf(stderr, "cannot load %s: %s\n", argv[i], dlerror());
      return 1;
    }
    auto entry = reinterpret_cast<oxi_plugin_entry_fn>(dlsym(h, OXI_ENTRY_SYMBOL));
    const oxi_plugin* p = entry != nullptr ? entry() : nullptr;
    if (p == nullptr || p->kind != OXI_PLUGIN_BACKEND) continue;
    char reason[256] = {0};
    const int32_t score = p->score(oxinfer::HostServices(), reason, sizeof(reason));
    if (score <= best) continue;
    auto* iface = static_cast<const oxi_backend_iface*>(
        p->get_interface(oxinfer::HostServices(), reason, sizeof(reason)));
    if (iface == nullptr) continue;
    best = score;
    oxinfer::sd::g_backend = iface;
    std::printf("backend: %s (%s)\n", argv[i], iface->device_name);
  }
  if (argc > 1 && oxinfer::sd::g_backend == nullptr) {
    std::fprintf(stderr, "no usable backend plugin among the arguments\n");
    return 1;
  }
  return RUN_ALL_TESTS();
}
