#include "plugins/models/sd/pipeline.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <random>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "plugins/models/sd/sd_config.h"

namespace oxinfer {
namespace sd {

std::vector<float> GaussianNoise(uint64_t seed, uint64_t stream, int64_t n) {
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + stream);
  std::vector<float> out(static_cast<size_t>(n));
  constexpr double kTwoPi = 6.283185307179586476925286766559;
  for (int64_t i = 0; i < n; i += 2) {
    // Uniforms in (0, 1] and [0, 1) from 53 random bits.
    const double u1 = (static_cast<double>(rng() >> 11) + 1.0) * (1.0 / 9007199254740992.0);
    const double u2 = static_cast<double>(rng() >> 11) * (1.0 / 9007199254740992.0);
    const double r = std::sqrt(-2.0 * std::log(u1));
    out[i] = static_cast<float>(r * std::cos(kTwoPi * u2));
    if (i + 1 < n) out[i + 1] = static_cast<float>(r * std::sin(kTwoPi * u2));
  }
  return out;
}

bool IsStableDiffusionIndex(const std::string& text, std::string* reason) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    *reason = "model_index.json is not a JSON object";
    return false;
  }
  const std::string cls = j.value("_class_name", "");
  if (cls != "StableDiffusionPipeline" && cls != "StableDiffusionImg2ImgPipeline") {
    *reason = absl::StrCat("pipeline class '", cls, "' is not StableDiffusionPipeline");
    return false;
  }
  for (const char* part : {"unet", "vae", "text_encoder", "tokenizer", "scheduler"}) {
    if (!j.contains(part)) {
      *reason = absl::StrCat("model_index.json lacks '", part, "'");
      return false;
    }
  }
  return true;
}

absl::StatusOr<std::unique_ptr<Pipeline>> Pipeline::Load(
    const std::string& dir, const std::function<void(const char*, int, int)>& progress,
    oxi_dtype weight_dtype) {
  const auto report = [&progress](const char* what, int done) {
    if (progress) progress(what, done, 4);
  };
  nlohmann::json index;
  SD_ASSIGN(index, ReadJsonFile(dir + "/model_index.json"));
  std::string reason;
  if (!IsStableDiffusionIndex(index.dump(), &reason)) {
    return absl::InvalidArgumentError(absl::StrCat(dir, ": ", reason));
  }
  std::unique_ptr<Pipeline> p(new Pipeline());
  report("tokenizer", 0);
  SD_ASSIGN(p->tokenizer_, ClipTokenizer::Load(dir + "/tokenizer"));
  report("text_encoder", 1);
  SD_ASSIGN(p->text_, ClipTextEncoder::Load(dir + "/text_encoder", weight_dtype));
  if (p->tokenizer_.max_length() > p->text_.max_positions()) {
    p->tokenizer_.set_max_length(static_cast<int>(p->text_.max_positions()));
  }
  report("unet", 2);
  SD_ASSIGN(p->unet_, UNet::Load(dir + "/unet", weight_dtype));
  report("vae", 3);
  SD_ASSIGN(p->vae_, VaeDecoder::Load(dir + "/vae", weight_dtype));
  report("vae", 4);
  if (p->unet_.cross_dim() != p->text_.hidden()) {
    return absl::InvalidArgumentError(
        absl::StrCat(dir, ": the UNet's cross_attention_dim ", p->unet_.cross_dim(),
                     " differs from the text encoder's hidden size ", p->text_.hidden()));
  }
  if (p->unet_.in_channels() != p->vae_.latent_channels()) {
    return absl::InvalidArgumentError(absl::StrCat(dir, ": UNet and VAE latent channels differ"));
  }
  SD_ASSIGN(p->scheduler_cfg_, ReadJsonFile(dir + "/scheduler/scheduler_config.json"));
  nlohmann::json ucfg;
  SD_ASSIGN(ucfg, ReadJsonFile(dir + "/unet/config.json"));
  SD_ASSIGN(p->sample_size_, GetInt(ucfg, "sample_size", 64));
  // SD-Turbo is recognised by name, as in the original product.
  std::string base = dir;
  while (!base.empty() && base.back() == '/') base.pop_back();
  base = base.substr(base.find_last_of('/') == std::string::npos ? 0 : base.find_last_of('/') + 1);
  p->turbo_ = absl::StrContains(absl::AsciiStrToLower(base), "turbo") ||
              absl::StrContains(absl::AsciiStrToLower(index.value("_name_or_path", "")), "turbo");
  return p;
}

absl::StatusOr<Act> Pipeline::EncodePrompt(const Ops& ops, const std::string& text,
                                           std::vector<int32_t>* ids_out) const {
  std::vector<int32_t> ids = tokenizer_.Encode(text);
  if (ids_out != nullptr) *ids_out = ids;
  return text_.Encode(ops, ids);
}

namespace {

// NCHW-free helpers: copies of n values.
Act Repeat(const Act& x, int64_t times) {
  Act y(x.n * times, x.h, x.w, x.c);
  for (int64_t t = 0; t < times; ++t) std::copy(x.d.begin(), x.d.end(), y.d.begin() + t * x.size());
  return y;
}

Act IdsAsAct(const std::vector<int32_t>& ids) {
  Act a(1, 1, static_cast<int64_t>(ids.size()), 1);
  for (size_t i = 0; i < ids.size(); ++i) a.d[i] = static_cast<float>(ids[i]);
  return a;
}

}  // namespace

absl::StatusOr<Image> Pipeline::Generate(const Ops& ops, const GenerateParams& gp) const {
  const int steps = gp.steps > 0 ? gp.steps : default_steps();
  const float guidance = gp.guidance.has_value() ? *gp.guidance : default_guidance();
  const Sampler sampler = gp.sampler.has_value() ? *gp.sampler : default_sampler();
  const bool cfg = guidance > 1.f;
  const int64_t scale = vae_.upscale();
  const int width = gp.width > 0 ? gp.width : static_cast<int>(sample_size_ * scale);
  const int height = gp.height > 0 ? gp.height : static_cast<int>(sample_size_ * scale);
  const int64_t multiple = scale * unet_.downscale();
  if (width % multiple != 0 || height % multiple != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("image size ", width, "x", height, " must be a multiple of ", multiple));
  }
  const auto observe = [&gp](const std::string& name, const Act& a) {
    if (gp.observer) gp.observer(name, a);
  };
  auto stage_start = std::chrono::steady_clock::now();
  const auto stage_done = [&gp, &stage_start](const std::string& stage) {
    const auto now = std::chrono::steady_clock::now();
    if (gp.stage_time) gp.stage_time(stage, std::chrono::duration<double>(now - stage_start).count());
    stage_start = now;
  };

  std::vector<int32_t> ids;
  Act pos, neg, ctx;
  SD_ASSIGN(pos, EncodePrompt(ops, gp.prompt, &ids));
  observe("tokens_pos", IdsAsAct(ids));
  observe("emb_pos", pos);
  if (cfg) {
    SD_ASSIGN(neg, EncodePrompt(ops, gp.negative_prompt, &ids));
    observe("tokens_neg", IdsAsAct(ids));
    observe("emb_neg", neg);
    ctx = Act(2, 1, pos.w, pos.c);
    std::copy(neg.d.begin(), neg.d.end(), ctx.d.begin());
    std::copy(pos.d.begin(), pos.d.end(), ctx.d.begin() + pos.size());
  } else {
    ctx = pos;
  }
  stage_done("text encoder");

  EulerScheduler sched;
  SD_ASSIGN(sched, EulerScheduler::FromConfig(scheduler_cfg_));
  if (gp.timestep_spacing.has_value()) SD_RETURN_IF_ERROR(sched.SetSpacing(*gp.timestep_spacing));
  SD_RETURN_IF_ERROR(sched.SetTimesteps(steps));

  const int64_t lh = height / scale, lw = width / scale, lc = unet_.in_channels();
  Act latents(1, lh, lw, lc);
  if (gp.initial_noise != nullptr) {
    if (static_cast<int64_t>(gp.initial_noise->size()) != latents.size()) {
      return absl::InvalidArgumentError("initial noise has the wrong size");
    }
    latents.d = *gp.initial_noise;
  } else {
    latents.d = GaussianNoise(gp.seed, 0, latents.size());
  }
  for (float& v : latents.d) v *= sched.init_noise_sigma();

  const int64_t batch = cfg ? 2 : 1;
  for (int i = 0; i < steps; ++i) {
    Act in = Repeat(latents, batch);
    sched.ScaleInput(i, in.data(), in.size());
    observe(absl::StrCat("step", i, ".unet_in"), in);
    Act out;
    stage_start = std::chrono::steady_clock::now();
    SD_ASSIGN(out, unet_.Forward(ops, in, sched.timesteps()[i], ctx));
    stage_done(absl::StrCat("unet pass ", i + 1));
    observe(absl::StrCat("step", i, ".unet_out"), out);
    Act guided(1, lh, lw, lc);
    if (cfg) {
      const int64_t n = guided.size();
      for (int64_t j = 0; j < n; ++j) {
        const float u = out.d[j], c = out.d[n + j];
        guided.d[j] = u + guidance * (c - u);
      }
    } else {
      guided.d = out.d;
    }
    observe(absl::StrCat("step", i, ".guided"), guided);
    std::vector<float> noise;
    if (sampler == Sampler::kEulerAncestral) {
      if (gp.step_noise) {
        noise = gp.step_noise(i);
        if (static_cast<int64_t>(noise.size()) != latents.size()) {
          return absl::InvalidArgumentError("step noise has the wrong size");
        }
      } else {
        noise = GaussianNoise(gp.seed, static_cast<uint64_t>(i) + 1, latents.size());
      }
    }
    sched.Step(sampler, i, guided.data(), noise.empty() ? nullptr : noise.data(), latents.data(),
               latents.size());
    observe(absl::StrCat("step", i, ".latents"), latents);
    if (gp.progress) gp.progress(i + 1, steps);
  }
  Act z = latents;
  for (float& v : z.d) v = v / vae_.scaling_factor();
  observe("vae_in", z);
  Act img;
  stage_start = std::chrono::steady_clock::now();
  SD_ASSIGN(img, vae_.Decode(ops, z));
  stage_done("vae decoder");
  observe("image_f32", img);
  Image result;
  result.width = width;
  result.height = height;
  result.rgb.resize(static_cast<size_t>(width) * height * 3);
  for (size_t i = 0; i < result.rgb.size(); ++i) {
    float v = img.d[i] / 2.f + 0.5f;
    v = std::min(1.f, std::max(0.f, v));
    result.rgb[i] = static_cast<uint8_t>(std::nearbyint(v * 255.f));
  }
  return result;
}

}  // namespace sd
}  // namespace oxinfer
