#include "plugins/models/gemma4/gemma4_audio.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace oxinfer {
namespace gemma4 {
namespace {

constexpr char kTower[] = "model.audio_tower.";

sdk::StatusOr<int> IntIn(const sdk::Json& v, int64_t lo, int64_t fallback = -1) {
  OXI_ASSIGN_OR_RETURN(int64_t x, fallback >= 0 ? v.IntOr(fallback) : v.Int());
  if (x < lo || x > (int64_t{1} << 20)) {
    return sdk::InvalidArgumentError(sdk::StrCat(v.where(), ": ", x, " out of range"));
  }
  return static_cast<int>(x);
}

sdk::StatusOr<sdk::OwnedTensor> Vector(const sdk::Compute& cx, const sdk::Weights& file,
                                       const std::string& name, int64_t n) {
  OXI_ASSIGN_OR_RETURN(std::vector<float> v, file.GetFloats(name, {n}));
  return cx.Upload(v);
}

// A stride-2 convolution's output length (kernel 3, padding 1).
int64_t Halved(int64_t n) { return (n + 2 - 3) / 2 + 1; }

// The sinusoidal relative positions of Gemma4AudioRelPositionalEncoding, in
// float32 as torch computes them: row c holds position ctx / 2 - c, its
// first half sin(p * inv_timescale), its second half cos.
std::vector<float> RelativePositions(const AudioConfig& c, int64_t n_rel) {
  const int64_t half = c.hidden_size / 2;
  const double increment = std::log(10000.0) / static_cast<double>(std::max<int64_t>(half - 1, 1));
  const float step = static_cast<float>(-increment);
  std::vector<float> inv(half);
  for (int64_t i = 0; i < half; ++i) inv[i] = std::exp(static_cast<float>(i) * step);
  std::vector<float> rows(n_rel * c.hidden_size, 0.0f);
  for (int64_t r = 0; r < n_rel; ++r) {
    const float p = static_cast<float>(n_rel - 1 - r);
    for (int64_t i = 0; i < half; ++i) {
      const float t = p * inv[i];
      rows[r * c.hidden_size + i] = std::sin(t);
      rows[r * c.hidden_size + half + i] = std::cos(t);
    }
  }
  return rows;
}

// torch.nn.functional.softplus (beta 1, threshold 20) in float32.
float Softplus(float x) { return x > 20.0f ? x : std::log1p(std::exp(x)); }

}  // namespace

sdk::Status ParseAudioConfig(const sdk::Json& root, AudioConfig* out, bool* present) {
  const sdk::Json a = root["audio_config"];
  *present = !a.is_missing();
  if (!*present) return sdk::OkStatus();
  AudioConfig c;
  OXI_ASSIGN_OR_RETURN(c.hidden_size, IntIn(a["hidden_size"], 1, 1024));
  OXI_ASSIGN_OR_RETURN(c.num_layers, IntIn(a["num_hidden_layers"], 1, 12));
  OXI_ASSIGN_OR_RETURN(c.num_heads, IntIn(a["num_attention_heads"], 1, 8));
  const sdk::Json ch = a["subsampling_conv_channels"];
  if (ch.is_missing()) {
    c.conv_channels[0] = 128, c.conv_channels[1] = 32;
  } else {
    OXI_ASSIGN_OR_RETURN(std::vector<int64_t> v, ch.IntList());
    if (v.size() != 2) {
      return sdk::UnimplementedError(
          sdk::StrCat(ch.where(), ": ", v.size(), " subsampling layers (the tower has 2)"));
    }
    for (int i = 0; i < 2; ++i) {
      if (v[i] < (i == 0 ? 4 : 1) || v[i] > 65536) {
        return sdk::InvalidArgumentError(
            sdk::StrCat(ch.where(), "[", i, "]: ", v[i], " out of range"));
      }
      c.conv_channels[i] = static_cast<int>(v[i]);
    }
  }
  OXI_ASSIGN_OR_RETURN(c.conv_kernel_size, IntIn(a["conv_kernel_size"], 1, 5));
  OXI_ASSIGN_OR_RETURN(c.residual_weight, a["residual_weight"].NumberOr(0.5));
  OXI_ASSIGN_OR_RETURN(c.chunk_size, IntIn(a["attention_chunk_size"], 1, 12));
  OXI_ASSIGN_OR_RETURN(c.context_left, IntIn(a["attention_context_left"], 1, 13));
  OXI_ASSIGN_OR_RETURN(c.context_right, IntIn(a["attention_context_right"], 0, 0));
  OXI_ASSIGN_OR_RETURN(c.logit_cap, a["attention_logit_cap"].NumberOr(50.0));
  OXI_ASSIGN_OR_RETURN(c.use_clipped_linears, a["use_clipped_linears"].BoolOr(true));
  OXI_ASSIGN_OR_RETURN(c.rms_norm_eps, a["rms_norm_eps"].NumberOr(1e-6));
  OXI_ASSIGN_OR_RETURN(c.gradient_clipping, a["gradient_clipping"].NumberOr(1e10));
  OXI_ASSIGN_OR_RETURN(c.output_dims, IntIn(a["output_proj_dims"], 1, 1536));
  OXI_ASSIGN_OR_RETURN(std::string act, a["hidden_act"].StringOr("silu"));
  if (act != "silu") {
    return sdk::UnimplementedError(sdk::StrCat(a.where(), ".hidden_act: '", act, "' (only silu)"));
  }
  if (!(c.rms_norm_eps > 0) || !std::isfinite(c.rms_norm_eps)) {
    return sdk::InvalidArgumentError(
        sdk::StrCat(a.where(), ".rms_norm_eps: must be a positive finite number"));
  }
  if (!(c.logit_cap > 0) || !std::isfinite(c.logit_cap) || !(c.gradient_clipping > 0) ||
      !std::isfinite(c.residual_weight)) {
    return sdk::InvalidArgumentError(
        sdk::StrCat(a.where(),
                    ": attention_logit_cap and gradient_clipping must be positive, "
                    "residual_weight finite"));
  }
  if (c.hidden_size % c.num_heads != 0 || c.hidden_size % 2 != 0) {
    return sdk::InvalidArgumentError(sdk::StrCat(a.where(), ": hidden_size ", c.hidden_size,
                                                 " must be even and a multiple of the ",
                                                 c.num_heads, " heads"));
  }
  *out = c;
  return sdk::OkStatus();
}

int64_t AudioSoftTokens(int64_t frames) { return frames <= 0 ? 0 : Halved(Halved(frames)); }

sdk::StatusOr<std::unique_ptr<AudioTower>> AudioTower::Load(const sdk::Compute& cx,
                                                            const sdk::Weights& file,
                                                            const AudioConfig& cfg, int n_mel,
                                                            oxi_dtype dtype) {
  const int64_t c0 = cfg.conv_channels[0], c1 = cfg.conv_channels[1];
  // The projection takes (channels[0] / 4) * channels[1] inputs: the mel
  // bins after two halvings must be channels[0] / 4 of them.
  if (n_mel <= 0 || Halved(Halved(n_mel)) != c0 / 4) {
    return sdk::InvalidArgumentError(sdk::StrCat(
        "gemma4 audio: ", n_mel, " mel bins give ", Halved(Halved(std::max(n_mel, 1))),
        " rows after subsampling; the tower's projection expects subsampling_conv_channels[0] / 4 "
        "= ",
        c0 / 4));
  }
  std::unique_ptr<AudioTower> t(new AudioTower(cx, cfg, n_mel));
  const std::string p = kTower;
  const int64_t H = cfg.hidden_size, hd = H / cfg.num_heads;
  const bool clip = cfg.use_clipped_linears;
  const std::string sub = p + "subsample_conv_projection.";
  for (int i = 0; i < 2; ++i) {
    const int64_t cin = i == 0 ? 1 : c0, cout = i == 0 ? c0 : c1;
    const std::string layer = sdk::StrCat(sub, "layer", i, ".");
    OXI_ASSIGN_OR_RETURN(std::vector<float> w,
                         file.GetFloats(layer + "conv.weight", {cout, cin, 3, 3}));
    // [cout][cin][ky][kx] -> [cout][(ky, kx, ci)], the conv2d op's order.
    std::vector<float> wt(w.size());
    for (int64_t o = 0; o < cout; ++o) {
      for (int64_t ci = 0; ci < cin; ++ci) {
        for (int64_t k = 0; k < 9; ++k) wt[(o * 9 + k) * cin + ci] = w[(o * cin + ci) * 9 + k];
      }
    }
    OXI_ASSIGN_OR_RETURN(t->conv_w_[i], cx.Upload(wt.data(), OXI_DTYPE_F32, cout, 9 * cin));
    OXI_ASSIGN_OR_RETURN(t->conv_norm_[i], Vector(cx, file, layer + "norm.weight", cout));
  }
  const int64_t flat = c0 / 4 * c1;
  OXI_ASSIGN_OR_RETURN(const oxi_weight_tensor* in,
                       file.Get(sub + "input_proj_linear.weight", {H, flat}, /*float_only=*/false));
  OXI_ASSIGN_OR_RETURN(t->input_proj_, cx.LoadWeight(file, in, H, flat, dtype));

  // The relative-position keys are the same for every clip: projected once.
  const int64_t ctx = cfg.chunk_size + cfg.context_left - 1 + cfg.context_right;
  const int64_t n_rel = ctx / 2 + 1;
  const std::vector<float> positions = RelativePositions(cfg, n_rel);
  OXI_ASSIGN_OR_RETURN(sdk::OwnedTensor pos, cx.Upload(positions.data(), OXI_DTYPE_F32, n_rel, H));
  t->layers_.resize(cfg.num_layers);
  for (int i = 0; i < cfg.num_layers; ++i) {
    AudioLayerWeights& l = t->layers_[i];
    const std::string q = sdk::StrCat(p, "layers.", i, ".");
    for (int f = 0; f < 2; ++f) {
      AudioFeedForward& ff = f == 0 ? l.ff1 : l.ff2;
      const std::string n = sdk::StrCat(q, "feed_forward", f + 1, ".");
      OXI_ASSIGN_OR_RETURN(ff.up,
                           LoadClippedLinear(cx, file, n + "ffw_layer_1", 4 * H, H, clip, dtype));
      OXI_ASSIGN_OR_RETURN(ff.down,
                           LoadClippedLinear(cx, file, n + "ffw_layer_2", H, 4 * H, clip, dtype));
      OXI_ASSIGN_OR_RETURN(ff.pre_norm, Vector(cx, file, n + "pre_layer_norm.weight", H));
      OXI_ASSIGN_OR_RETURN(ff.post_norm, Vector(cx, file, n + "post_layer_norm.weight", H));
    }
    const std::string a = q + "self_attn.";
    OXI_ASSIGN_OR_RETURN(l.q, LoadClippedLinear(cx, file, a + "q_proj", H, H, clip, dtype));
    OXI_ASSIGN_OR_RETURN(l.k, LoadClippedLinear(cx, file, a + "k_proj", H, H, clip, dtype));
    OXI_ASSIGN_OR_RETURN(l.v, LoadClippedLinear(cx, file, a + "v_proj", H, H, clip, dtype));
    OXI_ASSIGN_OR_RETURN(l.post, LoadClippedLinear(cx, file, a + "post", H, H, clip, dtype));
    OXI_ASSIGN_OR_RETURN(std::vector<float> pds, file.GetFloats(a + "per_dim_scale", {hd}));
    std::vector<float> qs(H);
    for (int64_t j = 0; j < H; ++j) qs[j] = Softplus(pds[j % hd]);
    OXI_ASSIGN_OR_RETURN(l.q_scale, cx.Upload(qs));
    OXI_ASSIGN_OR_RETURN(const oxi_weight_tensor* rk,
                         file.Get(a + "relative_k_proj.weight", {H, H}, /*float_only=*/false));
    OXI_ASSIGN_OR_RETURN(sdk::OwnedTensor rkw, cx.LoadWeight(file, rk, H, H, dtype));
    OXI_ASSIGN_OR_RETURN(l.rel_k, cx.NewTensor(OXI_DTYPE_F32, n_rel, H));
    OXI_RETURN_IF_ERROR(cx.MatMul(pos, rkw, l.rel_k));
    const std::string c = q + "lconv1d.";
    OXI_ASSIGN_OR_RETURN(l.conv_start,
                         LoadClippedLinear(cx, file, c + "linear_start", 2 * H, H, clip, dtype));
    OXI_ASSIGN_OR_RETURN(l.conv_end,
                         LoadClippedLinear(cx, file, c + "linear_end", H, H, clip, dtype));
    const int64_t K = cfg.conv_kernel_size;
    OXI_ASSIGN_OR_RETURN(std::vector<float> cw,
                         file.GetFloats(c + "depthwise_conv1d.weight", {H, 1, K}));
    OXI_ASSIGN_OR_RETURN(l.conv_w, cx.Upload(cw.data(), OXI_DTYPE_F32, H, K));
    OXI_ASSIGN_OR_RETURN(l.conv_pre_norm, Vector(cx, file, c + "pre_layer_norm.weight", H));
    OXI_ASSIGN_OR_RETURN(l.conv_norm, Vector(cx, file, c + "conv_norm.weight", H));
    OXI_ASSIGN_OR_RETURN(l.norm_pre_attn, Vector(cx, file, q + "norm_pre_attn.weight", H));
    OXI_ASSIGN_OR_RETURN(l.norm_post_attn, Vector(cx, file, q + "norm_post_attn.weight", H));
    OXI_ASSIGN_OR_RETURN(l.norm_out, Vector(cx, file, q + "norm_out.weight", H));
  }
  OXI_RETURN_IF_ERROR(cx.Sync());
  const int64_t O = cfg.output_dims;
  OXI_ASSIGN_OR_RETURN(const oxi_weight_tensor* op,
                       file.Get(p + "output_proj.weight", {O, H}, /*float_only=*/false));
  OXI_ASSIGN_OR_RETURN(t->output_proj_, cx.LoadWeight(file, op, O, H, dtype));
  OXI_ASSIGN_OR_RETURN(t->output_bias_, Vector(cx, file, p + "output_proj.bias", O));
  OXI_ASSIGN_OR_RETURN(const oxi_weight_tensor* proj,
                       file.Get("model.embed_audio.embedding_projection.weight",
                                {cfg.text_hidden_size, O}, /*float_only=*/false));
  OXI_ASSIGN_OR_RETURN(t->projection_, cx.LoadWeight(file, proj, cfg.text_hidden_size, O, dtype));
  return t;
}

sdk::Status AudioTower::Linear(const ClippedLinear& l, const sdk::Tensor& x, const sdk::Tensor& y) {
  return ApplyClippedLinear(cx_, &temp_, l, x, y);
}

sdk::Status AudioTower::Clip(const sdk::Tensor& x, const sdk::Tensor& y) {
  const float g = static_cast<float>(std::min<double>(cfg_.gradient_clipping, FLT_MAX));
  return cx_.Clamp(x, y, -g, g);
}

sdk::Status AudioTower::FeedForward(const AudioFeedForward& f, const sdk::Tensor& x,
                                    const Buffers& b) {
  const float eps = static_cast<float>(cfg_.rms_norm_eps);
  OXI_RETURN_IF_ERROR(Clip(x, b.h));
  OXI_RETURN_IF_ERROR(cx_.RmsNorm(b.h, f.pre_norm, b.h, eps));
  OXI_RETURN_IF_ERROR(Linear(f.up, b.h, b.wide));
  OXI_RETURN_IF_ERROR(cx_.Unary(OXI_UNARY_SILU, b.wide, b.wide));
  OXI_RETURN_IF_ERROR(Linear(f.down, b.wide, b.h));
  OXI_RETURN_IF_ERROR(Clip(b.h, b.h));
  OXI_RETURN_IF_ERROR(cx_.RmsNorm(b.h, f.post_norm, b.h, eps));
  OXI_RETURN_IF_ERROR(cx_.Scale(b.h, b.h, static_cast<float>(cfg_.residual_weight)));
  return cx_.Add(x, b.h, x);
}

sdk::Status AudioTower::Layer(const AudioLayerWeights& l, const sdk::Tensor& x, const Buffers& b) {
  const AudioConfig& c = cfg_;
  const int64_t H = c.hidden_size, hd = H / c.num_heads;
  const float eps = static_cast<float>(c.rms_norm_eps);
  temp_.Reset();
  OXI_RETURN_IF_ERROR(FeedForward(l.ff1, x, b));
  // Attention: q scaled by head_dim^-0.5 / ln 2 and softplus(per_dim_scale),
  // k by ln(1 + e) / ln 2 (the reference's order of products).
  OXI_RETURN_IF_ERROR(Clip(x, b.h));
  OXI_RETURN_IF_ERROR(cx_.RmsNorm(b.h, l.norm_pre_attn, b.h, eps));
  OXI_RETURN_IF_ERROR(Linear(l.q, b.h, b.q));
  OXI_RETURN_IF_ERROR(Linear(l.k, b.h, b.k));
  OXI_RETURN_IF_ERROR(Linear(l.v, b.h, b.v));
  const double q_scale = std::pow(static_cast<double>(hd), -0.5) / std::log(2.0);
  const double k_scale = std::log(1.0 + std::exp(1.0)) / std::log(2.0);
  OXI_RETURN_IF_ERROR(cx_.Scale(b.q, b.q, static_cast<float>(q_scale)));
  OXI_RETURN_IF_ERROR(cx_.Mul(b.q, l.q_scale, b.q));
  OXI_RETURN_IF_ERROR(cx_.Scale(b.k, b.k, static_cast<float>(k_scale)));
  // Chunks of chunk_size queries see context_left - 1 past and context_right
  // future keys; as one band: 0 <= t - s < context_left - 1 (the mask's
  // window) or 0 < s - t < context_right, the relative logits shifted so
  // that key s of query t reads row context_left - 1 + s - t.
  oxi_local_attention_args a = sdk::Compute::LocalAttentionArgs();
  a.q = b.q, a.k = b.k, a.v = b.v, a.rel = l.rel_k, a.out = b.att;
  a.n_heads = c.num_heads, a.head_dim = static_cast<int32_t>(hd);
  a.left = c.context_left - 1, a.right = c.context_right, a.rel_offset = c.context_left - 1;
  a.scale = 1.0f, a.softcap = static_cast<float>(c.logit_cap);
  OXI_RETURN_IF_ERROR(cx_.LocalAttention(a));
  OXI_RETURN_IF_ERROR(Linear(l.post, b.att, b.h));
  OXI_RETURN_IF_ERROR(Clip(b.h, b.h));
  OXI_RETURN_IF_ERROR(cx_.RmsNorm(b.h, l.norm_post_attn, b.h, eps));
  OXI_RETURN_IF_ERROR(cx_.Add(x, b.h, x));
  // Light convolution: GLU (first half * sigmoid(second half)), a causal
  // depthwise convolution from zeros, clip, norm, SiLU, projection.
  OXI_RETURN_IF_ERROR(cx_.RmsNorm(x, l.conv_pre_norm, b.h, eps));
  OXI_RETURN_IF_ERROR(Linear(l.conv_start, b.h, b.wide2));
  OXI_RETURN_IF_ERROR(cx_.Glu(OXI_UNARY_SIGMOID, b.wide2.Cols(H, H), b.wide2.Cols(0, H), b.glu));
  OXI_RETURN_IF_ERROR(cx_.Fill(b.conv_state, 0.0f));
  OXI_RETURN_IF_ERROR(cx_.Conv1dCausal(b.glu, l.conv_w, b.conv_state, b.h));
  OXI_RETURN_IF_ERROR(Clip(b.h, b.h));
  OXI_RETURN_IF_ERROR(cx_.RmsNorm(b.h, l.conv_norm, b.h, eps));
  OXI_RETURN_IF_ERROR(cx_.Unary(OXI_UNARY_SILU, b.h, b.h));
  OXI_RETURN_IF_ERROR(Linear(l.conv_end, b.h, b.att));
  OXI_RETURN_IF_ERROR(cx_.Add(x, b.att, x));
  OXI_RETURN_IF_ERROR(FeedForward(l.ff2, x, b));
  OXI_RETURN_IF_ERROR(Clip(x, x));
  return cx_.RmsNorm(x, l.norm_out, x, eps);
}

sdk::StatusOr<sdk::Tensor> AudioTower::Subsample(const sdk::Tensor& x, int64_t frames, int64_t bins,
                                                 int which) {
  const int64_t fo = Halved(frames), bo = Halved(bins), cout = conv_w_[which]->rows;
  OXI_ASSIGN_OR_RETURN(sdk::Tensor out, scratch_.F32(fo * bo, cout));
  oxi_conv2d_args a = sdk::Compute::Conv2dArgs();
  a.x = x, a.w = conv_w_[which], a.out = out;
  a.batch = 1, a.height = static_cast<int32_t>(frames), a.width = static_cast<int32_t>(bins);
  a.kh = 3, a.kw = 3, a.stride = 2, a.pad = 1;
  OXI_RETURN_IF_ERROR(cx_.Conv2d(a));
  OXI_RETURN_IF_ERROR(cx_.LayerNorm(out, conv_norm_[which], sdk::Tensor(), out,
                                    static_cast<float>(cfg_.rms_norm_eps)));
  OXI_RETURN_IF_ERROR(cx_.Unary(OXI_UNARY_RELU, out, out));
  return out;
}

sdk::StatusOr<std::vector<float>> AudioTower::Encode(const float* features, int64_t frames) {
  const AudioConfig& c = cfg_;
  const int64_t n = AudioSoftTokens(frames), H = c.hidden_size;
  if (n == 0) return std::vector<float>();
  if (frames > (int64_t{1} << 24)) {
    return sdk::InvalidArgumentError(sdk::StrCat("gemma4 audio: ", frames, " frames"));
  }
  scratch_.Reset();
  OXI_ASSIGN_OR_RETURN(sdk::Tensor x0, scratch_.F32(features, frames * n_mel_, 1));
  OXI_ASSIGN_OR_RETURN(sdk::Tensor s0, Subsample(x0, frames, n_mel_, 0));
  const int64_t f2 = Halved(frames), b2 = Halved(n_mel_);
  OXI_ASSIGN_OR_RETURN(sdk::Tensor s1, Subsample(s0, f2, b2, 1));
  // [frames][bins][channels] rows flattened per frame, bins outer.
  const sdk::Tensor flat = s1.Reshape(n, Halved(b2) * c.conv_channels[1]);
  OXI_ASSIGN_OR_RETURN(sdk::Tensor x, scratch_.F32(n, H));
  OXI_RETURN_IF_ERROR(cx_.MatMul(flat, input_proj_, x));
  Buffers b;
  OXI_ASSIGN_OR_RETURN(b.h, scratch_.F32(n, H));
  OXI_ASSIGN_OR_RETURN(b.q, scratch_.F32(n, H));
  OXI_ASSIGN_OR_RETURN(b.k, scratch_.F32(n, H));
  OXI_ASSIGN_OR_RETURN(b.v, scratch_.F32(n, H));
  OXI_ASSIGN_OR_RETURN(b.att, scratch_.F32(n, H));
  OXI_ASSIGN_OR_RETURN(b.wide, scratch_.F32(n, 4 * H));
  OXI_ASSIGN_OR_RETURN(b.wide2, scratch_.F32(n, 2 * H));
  OXI_ASSIGN_OR_RETURN(b.glu, scratch_.F32(n, H));
  OXI_ASSIGN_OR_RETURN(b.conv_state, scratch_.F32(c.conv_kernel_size - 1, H));
  for (const AudioLayerWeights& l : layers_) OXI_RETURN_IF_ERROR(Layer(l, x, b));
  // The output projection, then the embedder.
  OXI_ASSIGN_OR_RETURN(sdk::Tensor out, scratch_.F32(n, c.output_dims));
  OXI_RETURN_IF_ERROR(cx_.MatMul(x, output_proj_, out, output_bias_));
  OXI_RETURN_IF_ERROR(cx_.RmsNorm(out, sdk::Tensor(), out, static_cast<float>(c.rms_norm_eps)));
  OXI_ASSIGN_OR_RETURN(sdk::Tensor soft, scratch_.F32(n, c.text_hidden_size));
  OXI_RETURN_IF_ERROR(cx_.MatMul(out, projection_, soft));
  std::vector<float> host(static_cast<size_t>(n * c.text_hidden_size));
  OXI_RETURN_IF_ERROR(cx_.Read(soft, host.data()));
  return host;
}

}  // namespace gemma4
}  // namespace oxinfer
