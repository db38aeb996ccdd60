#include "plugins/models/sd/pipeline.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <utility>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "oxinfer/sdk/json.hpp"
#include "plugins/models/sd/sd_config.h"
#include "plugins/models/sd/sd_weights.h"

namespace oxinfer {
namespace sd {
namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  return s;
}

std::string BaseName(std::string path) {
  while (!path.empty() && path.back() == '/') path.pop_back();
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

HostAct IdsAsHost(const std::vector<int32_t>& ids, size_t begin, size_t n) {
  HostAct a;
  a.n = a.h = a.c = 1;
  a.w = static_cast<int64_t>(n);
  for (size_t i = 0; i < n; ++i) a.d.push_back(static_cast<float>(ids[begin + i]));
  return a;
}

// Freed heap memory back to the system: glibc keeps the chunks below its
// mmap threshold (which rises to 32 MB as large blocks are freed) in its
// arenas, where they would stay in the resident set until reused.
void ReturnFreedMemory() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

HostAct Latents(int64_t n, int64_t h, int64_t w, int64_t c, std::vector<float> d) {
  HostAct a;
  a.n = n, a.h = h, a.w = w, a.c = c;
  a.d = std::move(d);
  return a;
}

}  // namespace

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
  auto doc = sdk::JsonDoc::Parse(text, "model_index.json");
  if (!doc.ok()) {
    *reason = doc.status().message();
    return false;
  }
  const sdk::Json j = doc->root();
  if (!j.is_object()) {
    *reason = "model_index.json is not a JSON object";
    return false;
  }
  const sdk::StatusOr<std::string> class_name = j["_class_name"].StringOr("");
  const std::string cls = class_name.ok() ? *class_name : "";
  if (cls != "StableDiffusionPipeline" && cls != "StableDiffusionImg2ImgPipeline") {
    *reason = "pipeline class '" + cls + "' is not StableDiffusionPipeline";
    return false;
  }
  for (const char* part : {"unet", "vae", "text_encoder", "tokenizer", "scheduler"}) {
    if (!j.Has(part)) {
      *reason = std::string("model_index.json lacks '") + part + "'";
      return false;
    }
  }
  return true;
}

sdk::StatusOr<std::unique_ptr<Pipeline>> Pipeline::Load(
    const std::string& dir, const oxi_backend_iface* backend, oxi_dtype matrix_dtype, bool use_mmap,
    const std::function<void(const char*, int, int)>& progress, Residency residency) {
  if (backend == nullptr) return sdk::InvalidArgumentError("sd: no backend to run on");
  const auto report = [&progress](const char* what, int done) {
    if (progress) progress(what, done, 4);
  };
  const std::string index_path = dir + "/model_index.json";
  if (!sdk::FileExists(index_path)) {
    return sdk::NotFoundError(dir + ": no model_index.json (not a diffusers folder)");
  }
  OXI_ASSIGN_OR_RETURN(std::string index_text, sdk::ReadFile(index_path));
  std::string reason;
  if (!IsStableDiffusionIndex(index_text, &reason)) {
    return sdk::InvalidArgumentError(dir + ": " + reason);
  }
  std::unique_ptr<Pipeline> p(new Pipeline(backend));
  p->residency_ = residency;
  p->matrix_dtype_ = matrix_dtype;
  p->use_mmap_ = use_mmap;
  // Staged: the configurations now, and the weight files looked for, so that
  // a folder without them fails here rather than in the first Generate.
  const bool all = residency == Residency::kAll;
  const auto load = [&](auto* net, const std::string& sub) -> sdk::Status {
    OXI_RETURN_IF_ERROR(net->LoadConfig(dir + "/" + sub));
    if (all) return net->LoadWeights(&p->cx_, matrix_dtype, use_mmap);
    return ComponentWeights::Locate(dir + "/" + sub).status();
  };
  report("tokenizer", 0);
  OXI_ASSIGN_OR_RETURN(p->tokenizer_, ClipTokenizer::Load(dir + "/tokenizer"));
  report("text_encoder", 1);
  OXI_RETURN_IF_ERROR(load(&p->text_, "text_encoder"));
  if (p->tokenizer_.max_length() > p->text_.max_positions()) {
    p->tokenizer_.set_max_length(static_cast<int>(p->text_.max_positions()));
  }
  report("unet", 2);
  OXI_RETURN_IF_ERROR(load(&p->unet_, "unet"));
  report("vae", 3);
  OXI_RETURN_IF_ERROR(load(&p->vae_, "vae"));
  report("vae", 4);
  if (p->unet_.cross_dim() != p->text_.hidden()) {
    return sdk::InvalidArgumentError(
        sdk::StrCat(dir, ": the UNet's cross_attention_dim ", p->unet_.cross_dim(),
                    " differs from the text encoder's hidden size ", p->text_.hidden()));
  }
  if (p->unet_.in_channels() != p->vae_.latent_channels()) {
    return sdk::InvalidArgumentError(sdk::StrCat(dir, ": the UNet takes ", p->unet_.in_channels(),
                                                 " latent channels, the VAE ",
                                                 p->vae_.latent_channels()));
  }
  OXI_ASSIGN_OR_RETURN(sdk::JsonDoc sched, ReadConfig(dir + "/scheduler/scheduler_config.json"));
  OXI_ASSIGN_OR_RETURN(p->scheduler_, EulerScheduler::FromConfig(sched.root()));
  // SD-Turbo is recognised by name, as in the original product.
  OXI_ASSIGN_OR_RETURN(sdk::JsonDoc index, sdk::JsonDoc::Parse(index_text, index_path));
  OXI_ASSIGN_OR_RETURN(std::string name_or_path, index.root()["_name_or_path"].StringOr(""));
  p->turbo_ = Lower(BaseName(dir)).find("turbo") != std::string::npos ||
              Lower(name_or_path).find("turbo") != std::string::npos;
  return p;
}

sdk::StatusOr<Act> Pipeline::EncodePrompts(const Net& net, const std::vector<std::string>& texts,
                                           std::vector<int32_t>* ids_out) const {
  std::vector<int32_t> ids;
  for (const std::string& t : texts) {
    const std::vector<int32_t> one = tokenizer_.Encode(t);
    ids.insert(ids.end(), one.begin(), one.end());
  }
  if (ids_out != nullptr) *ids_out = ids;
  return text_.Encode(net, ids, static_cast<int64_t>(texts.size()));
}

sdk::Status Pipeline::CheckRequest(const GenerateParams& gp) const {
  const int multiple = size_multiple();
  if (gp.width < 0 || gp.height < 0 || gp.width > kMaxImageSide || gp.height > kMaxImageSide ||
      gp.width % multiple != 0 || gp.height % multiple != 0) {
    return sdk::InvalidArgumentError(sdk::StrCat("image size ", gp.width, "x", gp.height,
                                                 ": width and height must be multiples of ",
                                                 multiple, " up to ", kMaxImageSide));
  }
  if (gp.steps < 0 || gp.steps > 1000) {
    return sdk::InvalidArgumentError(sdk::StrCat(gp.steps, " steps: 1 to 1000 (0: the default)"));
  }
  if (gp.guidance.has_value() && !(std::isfinite(*gp.guidance) && *gp.guidance <= 100.f)) {
    return sdk::InvalidArgumentError(
        sdk::StrCat("guidance ", *gp.guidance, ": a finite number up to 100"));
  }
  return sdk::OkStatus();
}

void Pipeline::ReleaseAll() {
  text_.ReleaseWeights();
  unet_.ReleaseWeights();
  vae_.ReleaseWeights();
  pool_.Trim();
  ReturnFreedMemory();
}

sdk::StatusOr<RgbImage> Pipeline::Generate(const GenerateParams& gp) {
  OXI_RETURN_IF_ERROR(CheckRequest(gp));
  const int steps = gp.steps > 0 ? gp.steps : default_steps();
  const float guidance = gp.guidance.has_value() ? *gp.guidance : default_guidance();
  const Sampler sampler = gp.sampler.has_value() ? *gp.sampler : default_sampler();
  const bool cfg = guidance > 1.f;
  const int width = gp.width > 0 ? gp.width : native_size();
  const int height = gp.height > 0 ? gp.height : native_size();
  EulerScheduler sched = scheduler_;
  if (gp.timestep_spacing.has_value()) OXI_RETURN_IF_ERROR(sched.SetSpacing(*gp.timestep_spacing));
  OXI_RETURN_IF_ERROR(sched.SetTimesteps(steps));

  // The pool's idle buffers (and, staged, the weights) go back when the
  // generation ends, however it ends.
  struct ReleaseAtExit {
    Pipeline* p;
    ~ReleaseAtExit() {
      if (p->residency_ == Residency::kStage) p->ReleaseAll();
      p->pool_.Trim();
    }
  } release_at_exit{this};
  const Net net(&pool_);
  const auto observe = [&](const std::string& name, const Act& a) -> sdk::Status {
    if (!gp.observer) return sdk::OkStatus();
    OXI_ASSIGN_OR_RETURN(HostAct h, ReadAct(cx_, a));
    gp.observer(name, h);
    return sdk::OkStatus();
  };
  auto stage_start = std::chrono::steady_clock::now();
  const auto stage_done = [&](const std::string& stage) -> sdk::Status {
    OXI_RETURN_IF_ERROR(cx_.Sync());
    const auto now = std::chrono::steady_clock::now();
    if (gp.stage_time)
      gp.stage_time(stage, std::chrono::duration<double>(now - stage_start).count());
    stage_start = now;
    return sdk::OkStatus();
  };
  // Staged: a network's weights are read when its stage begins (a stage of
  // its own, "load unet" etc.) and freed when it ends.
  const bool staged = residency_ == Residency::kStage;
  const auto bring = [&](auto* part, const char* stage) -> sdk::Status {
    if (part->loaded()) return sdk::OkStatus();
    stage_start = std::chrono::steady_clock::now();
    OXI_RETURN_IF_ERROR(part->LoadWeights(&cx_, matrix_dtype_, use_mmap_));
    return stage_done(stage);
  };
  const auto done_with = [&](auto* part) {
    if (!staged) return;
    part->ReleaseWeights();
    pool_.Trim();
    ReturnFreedMemory();
  };

  // Text: the unconditional (negative) prompt first when guiding.
  std::vector<std::string> texts;
  if (cfg) texts.push_back(gp.negative_prompt);
  texts.push_back(gp.prompt);
  const int64_t batch = static_cast<int64_t>(texts.size());
  std::vector<int32_t> ids;
  OXI_RETURN_IF_ERROR(bring(&text_, "load text encoder"));
  OXI_ASSIGN_OR_RETURN(Act ctx, EncodePrompts(net, texts, &ids));
  if (gp.observer) {
    OXI_ASSIGN_OR_RETURN(HostAct all, ReadAct(cx_, ctx));
    const size_t len = ids.size() / texts.size(), per = all.d.size() / texts.size();
    for (int64_t b = 0; b < batch; ++b) {
      const bool pos = b == batch - 1;
      gp.observer(pos ? "tokens_pos" : "tokens_neg", IdsAsHost(ids, b * len, len));
      HostAct e = all;
      e.n = 1;
      e.d.assign(all.d.begin() + b * per, all.d.begin() + (b + 1) * per);
      gp.observer(pos ? "emb_pos" : "emb_neg", e);
    }
  }
  OXI_RETURN_IF_ERROR(stage_done("text encoder"));
  done_with(&text_);
  OXI_RETURN_IF_ERROR(bring(&unet_, "load unet"));

  const int64_t scale = vae_.upscale();
  const int64_t lh = height / scale, lw = width / scale, lc = unet_.in_channels();
  const int64_t n = lh * lw * lc;
  std::vector<float> latents;
  if (gp.initial_noise != nullptr) {
    if (static_cast<int64_t>(gp.initial_noise->size()) != n) {
      return sdk::InvalidArgumentError(sdk::StrCat("initial noise of ", gp.initial_noise->size(),
                                                   " values, the latents have ", n));
    }
    latents = *gp.initial_noise;
  } else {
    latents = GaussianNoise(gp.seed, 0, n);
  }
  for (float& v : latents) v *= sched.init_noise_sigma();

  std::vector<float> input(static_cast<size_t>(batch * n)), output(static_cast<size_t>(batch * n));
  for (int i = 0; i < steps; ++i) {
    stage_start = std::chrono::steady_clock::now();
    for (int64_t b = 0; b < batch; ++b)
      std::copy(latents.begin(), latents.end(), input.begin() + b * n);
    sched.ScaleInput(i, input.data(), batch * n);
    OXI_ASSIGN_OR_RETURN(Act sample, WriteAct(&pool_, batch, lh, lw, lc, input.data()));
    OXI_RETURN_IF_ERROR(observe(sdk::StrCat("step", i, ".unet_in"), sample));
    OXI_ASSIGN_OR_RETURN(Act out, unet_.Forward(net, sample, sched.timesteps()[i], ctx));
    OXI_RETURN_IF_ERROR(cx_.Read(out.t(), output.data()));
    OXI_RETURN_IF_ERROR(stage_done(sdk::StrCat("unet pass ", i + 1)));
    if (gp.observer)
      gp.observer(sdk::StrCat("step", i, ".unet_out"), Latents(batch, lh, lw, lc, output));
    std::vector<float> guided(output.begin(), output.begin() + n);
    if (cfg) {
      for (int64_t j = 0; j < n; ++j) {
        const float u = output[j], c = output[n + j];
        guided[j] = u + guidance * (c - u);
      }
    }
    if (gp.observer) gp.observer(sdk::StrCat("step", i, ".guided"), Latents(1, lh, lw, lc, guided));
    std::vector<float> noise;
    if (sampler == Sampler::kEulerAncestral) {
      noise = gp.step_noise ? gp.step_noise(i)
                            : GaussianNoise(gp.seed, static_cast<uint64_t>(i) + 1, n);
      if (static_cast<int64_t>(noise.size()) != n) {
        return sdk::InvalidArgumentError(
            sdk::StrCat("step noise of ", noise.size(), " values, the latents have ", n));
      }
    }
    sched.Step(sampler, i, guided.data(), noise.empty() ? nullptr : noise.data(), latents.data(),
               n);
    if (gp.observer)
      gp.observer(sdk::StrCat("step", i, ".latents"), Latents(1, lh, lw, lc, latents));
    if (gp.progress && !gp.progress(i + 1, steps)) {
      return sdk::CancelledError(
          sdk::StrCat("generation cancelled after step ", i + 1, " of ", steps));
    }
  }
  ctx.Release();
  done_with(&unet_);
  OXI_RETURN_IF_ERROR(bring(&vae_, "load vae"));

  std::vector<float> z(latents);
  for (float& v : z) v = v / vae_.scaling_factor();
  stage_start = std::chrono::steady_clock::now();
  OXI_ASSIGN_OR_RETURN(Act z_act, WriteAct(&pool_, 1, lh, lw, lc, z.data()));
  OXI_RETURN_IF_ERROR(observe("vae_in", z_act));
  OXI_ASSIGN_OR_RETURN(Act img, vae_.Decode(net, z_act));
  z_act.Release();
  OXI_ASSIGN_OR_RETURN(HostAct pixels, ReadAct(cx_, img));
  img.Release();
  OXI_RETURN_IF_ERROR(stage_done("vae decoder"));
  done_with(&vae_);
  if (gp.observer) gp.observer("image_f32", pixels);
  if (pixels.size() != int64_t{width} * height * 3) {
    return sdk::InternalError(sdk::StrCat("vae: decoded ", pixels.n, "x", pixels.h, "x", pixels.w,
                                          "x", pixels.c, ", expected ", height, "x", width, "x3"));
  }
  RgbImage result;
  result.width = width;
  result.height = height;
  result.rgb.resize(pixels.d.size());
  for (size_t i = 0; i < result.rgb.size(); ++i) {
    const float v = std::min(1.f, std::max(0.f, pixels.d[i] / 2.f + 0.5f));
    result.rgb[i] = static_cast<uint8_t>(std::nearbyint(v * 255.f));
  }
  return result;
}

}  // namespace sd
}  // namespace oxinfer
