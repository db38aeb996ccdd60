#include "plugins/models/gemma4/gemma4_vision.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace oxinfer {
namespace gemma4 {
namespace {

constexpr char kTower[] = "model.vision_tower.";

sdk::StatusOr<int> PositiveInt(const sdk::Json& v, int64_t fallback = -1) {
  OXI_ASSIGN_OR_RETURN(int64_t x, fallback >= 0 ? v.IntOr(fallback) : v.Int());
  if (x < 1 || x > (int64_t{1} << 20)) {
    return sdk::InvalidArgumentError(sdk::StrCat(v.where(), ": ", x, " out of range"));
  }
  return static_cast<int>(x);
}

sdk::StatusOr<sdk::OwnedTensor> Vector(const sdk::Compute& cx, const sdk::Weights& file,
                                       const std::string& name, int64_t n) {
  OXI_ASSIGN_OR_RETURN(std::vector<float> v, file.GetFloats(name, {n}));
  return cx.Upload(v);
}

}  // namespace

sdk::Status ParseVisionConfig(const sdk::Json& root, VisionConfig* out, bool* present) {
  const sdk::Json v = root["vision_config"];
  *present = !v.is_missing();
  if (!*present) return sdk::OkStatus();
  VisionConfig c;
  OXI_ASSIGN_OR_RETURN(c.hidden_size, PositiveInt(v["hidden_size"]));
  OXI_ASSIGN_OR_RETURN(c.intermediate_size, PositiveInt(v["intermediate_size"]));
  OXI_ASSIGN_OR_RETURN(c.num_layers, PositiveInt(v["num_hidden_layers"]));
  OXI_ASSIGN_OR_RETURN(c.num_heads, PositiveInt(v["num_attention_heads"]));
  OXI_ASSIGN_OR_RETURN(c.num_kv_heads, PositiveInt(v["num_key_value_heads"], c.num_heads));
  OXI_ASSIGN_OR_RETURN(c.head_dim, PositiveInt(v["head_dim"], c.hidden_size / c.num_heads));
  OXI_ASSIGN_OR_RETURN(c.rms_norm_eps, v["rms_norm_eps"].NumberOr(1e-6));
  OXI_ASSIGN_OR_RETURN(c.patch_size, PositiveInt(v["patch_size"], 16));
  OXI_ASSIGN_OR_RETURN(c.pooling_kernel_size, PositiveInt(v["pooling_kernel_size"], 3));
  OXI_ASSIGN_OR_RETURN(c.position_embedding_size, PositiveInt(v["position_embedding_size"]));
  OXI_ASSIGN_OR_RETURN(c.rope_theta, v["rope_parameters"]["rope_theta"].NumberOr(100.0));
  OXI_ASSIGN_OR_RETURN(c.use_clipped_linears, v["use_clipped_linears"].BoolOr(false));
  OXI_ASSIGN_OR_RETURN(c.standardize, v["standardize"].BoolOr(false));
  OXI_ASSIGN_OR_RETURN(std::string act, v["hidden_activation"].StringOr("gelu_pytorch_tanh"));
  if (act != "gelu_pytorch_tanh") {
    return sdk::UnimplementedError(
        sdk::StrCat(v.where(), ".hidden_activation: '", act, "' (only gelu_pytorch_tanh)"));
  }
  // Found by //fuzz:model_config (an epsilon of 0 was taken: a zero patch row
  // then normalises to NaN).
  if (!(c.rms_norm_eps > 0) || !std::isfinite(c.rms_norm_eps)) {
    return sdk::InvalidArgumentError(
        sdk::StrCat(v.where(), ".rms_norm_eps: must be a positive finite number"));
  }
  if (!(c.rope_theta > 0) || !std::isfinite(c.rope_theta)) {
    return sdk::InvalidArgumentError(
        sdk::StrCat(v.where(), ".rope_parameters.rope_theta: must be a positive finite number"));
  }
  if (c.head_dim % 4 != 0 || c.num_heads % c.num_kv_heads != 0) {
    return sdk::InvalidArgumentError(
        sdk::StrCat(v.where(), ": head_dim ", c.head_dim,
                    " must be a multiple of 4 (axial RoPE) and the heads a multiple of the KV "
                    "heads"));
  }
  *out = c;
  return sdk::OkStatus();
}

sdk::StatusOr<std::unique_ptr<VisionTower>> VisionTower::Load(const sdk::Compute& cx,
                                                              const sdk::Weights& file,
                                                              const VisionConfig& cfg,
                                                              oxi_dtype dtype) {
  std::unique_ptr<VisionTower> t(new VisionTower(cx, cfg));
  const std::string p = kTower;
  const int64_t H = cfg.hidden_size, hd = cfg.head_dim, ps = cfg.patch_size;
  const bool clip = cfg.use_clipped_linears;
  OXI_ASSIGN_OR_RETURN(
      const oxi_weight_tensor* in,
      file.Get(p + "patch_embedder.input_proj.weight", {H, 3 * ps * ps}, /*float_only=*/false));
  OXI_ASSIGN_OR_RETURN(t->input_proj_, cx.LoadWeight(file, in, H, 3 * ps * ps, dtype));
  const int64_t P = cfg.position_embedding_size;
  OXI_ASSIGN_OR_RETURN(const oxi_weight_tensor* pos,
                       file.Get(p + "patch_embedder.position_embedding_table", {2, P, H}));
  OXI_ASSIGN_OR_RETURN(t->pos_table_, cx.LoadWeight(file, pos, 2 * P, H));  // rows, as stored
  t->layers_.resize(cfg.num_layers);
  for (int i = 0; i < cfg.num_layers; ++i) {
    VisionLayerWeights& l = t->layers_[i];
    const std::string q = sdk::StrCat(p, "encoder.layers.", i, ".");
    const int64_t nq = cfg.num_heads * hd, nkv = cfg.num_kv_heads * hd, I = cfg.intermediate_size;
    OXI_ASSIGN_OR_RETURN(l.q,
                         LoadClippedLinear(cx, file, q + "self_attn.q_proj", nq, H, clip, dtype));
    OXI_ASSIGN_OR_RETURN(l.k,
                         LoadClippedLinear(cx, file, q + "self_attn.k_proj", nkv, H, clip, dtype));
    OXI_ASSIGN_OR_RETURN(l.v,
                         LoadClippedLinear(cx, file, q + "self_attn.v_proj", nkv, H, clip, dtype));
    OXI_ASSIGN_OR_RETURN(l.o,
                         LoadClippedLinear(cx, file, q + "self_attn.o_proj", H, nq, clip, dtype));
    OXI_ASSIGN_OR_RETURN(l.gate,
                         LoadClippedLinear(cx, file, q + "mlp.gate_proj", I, H, clip, dtype));
    OXI_ASSIGN_OR_RETURN(l.up, LoadClippedLinear(cx, file, q + "mlp.up_proj", I, H, clip, dtype));
    OXI_ASSIGN_OR_RETURN(l.down,
                         LoadClippedLinear(cx, file, q + "mlp.down_proj", H, I, clip, dtype));
    OXI_ASSIGN_OR_RETURN(l.q_norm, Vector(cx, file, q + "self_attn.q_norm.weight", hd));
    OXI_ASSIGN_OR_RETURN(l.k_norm, Vector(cx, file, q + "self_attn.k_norm.weight", hd));
    OXI_ASSIGN_OR_RETURN(l.input_norm, Vector(cx, file, q + "input_layernorm.weight", H));
    OXI_ASSIGN_OR_RETURN(l.post_attn_norm,
                         Vector(cx, file, q + "post_attention_layernorm.weight", H));
    OXI_ASSIGN_OR_RETURN(l.pre_ff_norm,
                         Vector(cx, file, q + "pre_feedforward_layernorm.weight", H));
    OXI_ASSIGN_OR_RETURN(l.post_ff_norm,
                         Vector(cx, file, q + "post_feedforward_layernorm.weight", H));
  }
  if (cfg.standardize) {
    OXI_ASSIGN_OR_RETURN(t->std_bias_, Vector(cx, file, p + "std_bias", H));
    OXI_ASSIGN_OR_RETURN(t->std_scale_, Vector(cx, file, p + "std_scale", H));
  }
  // Axial RoPE: head_dim / 4 frequencies over head_dim / 2 channels per axis,
  // computed in float32 as transformers does.
  std::vector<float> inv(hd / 4);
  const int spatial = static_cast<int>(hd / 2);
  for (int i = 0; i < spatial / 2; ++i) {
    const float e = static_cast<float>(2 * i) / static_cast<float>(spatial);
    inv[i] = 1.0f / std::pow(static_cast<float>(cfg.rope_theta), e);
  }
  OXI_ASSIGN_OR_RETURN(t->inv_freq_, cx.Upload(inv));
  OXI_ASSIGN_OR_RETURN(const oxi_weight_tensor* proj,
                       file.Get("model.embed_vision.embedding_projection.weight",
                                {cfg.text_hidden_size, H}, /*float_only=*/false));
  OXI_ASSIGN_OR_RETURN(t->projection_, cx.LoadWeight(file, proj, cfg.text_hidden_size, H, dtype));
  return t;
}

sdk::Status VisionTower::Linear(const ClippedLinear& l, const sdk::Tensor& x,
                                const sdk::Tensor& y) {
  return ApplyClippedLinear(cx_, &scratch_, l, x, y);
}

sdk::Status VisionTower::Layer(const VisionLayerWeights& l, const sdk::Tensor& x,
                               const RopePositions& pos, int64_t n) {
  const VisionConfig& c = cfg_;
  const int64_t H = c.hidden_size, hd = c.head_dim, nh = c.num_heads, nkv = c.num_kv_heads;
  const float eps = static_cast<float>(c.rms_norm_eps);
  OXI_ASSIGN_OR_RETURN(sdk::Tensor h, scratch_.F32(n, H));
  OXI_RETURN_IF_ERROR(cx_.RmsNorm(x, l.input_norm, h, eps));
  OXI_ASSIGN_OR_RETURN(sdk::Tensor q, scratch_.F32(n, nh * hd));
  OXI_ASSIGN_OR_RETURN(sdk::Tensor k, scratch_.F32(n, nkv * hd));
  OXI_ASSIGN_OR_RETURN(sdk::Tensor v, scratch_.F32(n, nkv * hd));
  OXI_RETURN_IF_ERROR(Linear(l.q, h, q));
  OXI_RETURN_IF_ERROR(Linear(l.k, h, k));
  OXI_RETURN_IF_ERROR(Linear(l.v, h, v));
  const sdk::Tensor qh = q.Reshape(n * nh, hd), kh = k.Reshape(n * nkv, hd);
  OXI_RETURN_IF_ERROR(cx_.RmsNorm(qh, l.q_norm, qh, eps));
  OXI_RETURN_IF_ERROR(cx_.RmsNorm(kh, l.k_norm, kh, eps));
  OXI_RETURN_IF_ERROR(
      cx_.RmsNorm(v.Reshape(n * nkv, hd), sdk::Tensor(), v.Reshape(n * nkv, hd), eps));
  // Axial RoPE: each head's first half turns by the patch's column, its
  // second half by its row (one row per head, positions repeated per head).
  const int32_t half = static_cast<int32_t>(hd / 2);
  for (int i = 0; i < 2; ++i) {
    const sdk::Tensor& t = i == 0 ? qh : kh;
    const sdk::Tensor& xp = i == 0 ? pos.xq : pos.xk;
    const sdk::Tensor& yp = i == 0 ? pos.yq : pos.yk;
    const sdk::Tensor first = t.Cols(0, half), second = t.Cols(half, half);
    OXI_RETURN_IF_ERROR(cx_.Rope(first, xp, inv_freq_, first, 1, half, half));
    OXI_RETURN_IF_ERROR(cx_.Rope(second, yp, inv_freq_, second, 1, half, half));
  }
  OXI_ASSIGN_OR_RETURN(sdk::Tensor att, scratch_.F32(n, nh * hd));
  oxi_attention_args a = sdk::Compute::AttentionArgs();
  a.q = q, a.k = k, a.v = v, a.out = att;
  a.n_heads = static_cast<int32_t>(nh), a.n_kv_heads = static_cast<int32_t>(nkv);
  a.head_dim = static_cast<int32_t>(hd), a.v_head_dim = static_cast<int32_t>(hd);
  a.scale = 1.0f;  // q and k are RMS-normalised; transformers uses no 1/sqrt(d)
  a.causal = 0;    // every patch sees the whole image
  OXI_RETURN_IF_ERROR(cx_.Attention(a));
  OXI_RETURN_IF_ERROR(Linear(l.o, att, h));
  OXI_RETURN_IF_ERROR(cx_.RmsNorm(h, l.post_attn_norm, h, eps));
  OXI_RETURN_IF_ERROR(cx_.Add(x, h, x));
  OXI_RETURN_IF_ERROR(cx_.RmsNorm(x, l.pre_ff_norm, h, eps));
  OXI_ASSIGN_OR_RETURN(sdk::Tensor gate, scratch_.F32(n, c.intermediate_size));
  OXI_ASSIGN_OR_RETURN(sdk::Tensor up, scratch_.F32(n, c.intermediate_size));
  OXI_RETURN_IF_ERROR(Linear(l.gate, h, gate));
  OXI_RETURN_IF_ERROR(Linear(l.up, h, up));
  OXI_RETURN_IF_ERROR(cx_.Glu(OXI_UNARY_GELU_TANH, gate, up, gate));
  OXI_RETURN_IF_ERROR(Linear(l.down, gate, h));
  OXI_RETURN_IF_ERROR(cx_.RmsNorm(h, l.post_ff_norm, h, eps));
  return cx_.Add(x, h, x);
}

sdk::StatusOr<std::vector<float>> VisionTower::Encode(const ImagePatches& image) {
  const VisionConfig& c = cfg_;
  const int64_t n = image.grid_h * image.grid_w, H = c.hidden_size, k = c.pooling_kernel_size;
  if (image.patch_dim != 3 * c.patch_size * c.patch_size || n == 0 || image.grid_h % k != 0 ||
      image.grid_w % k != 0) {
    return sdk::InvalidArgumentError(sdk::StrCat(
        "gemma4 vision: a ", image.grid_w, "x", image.grid_h, " grid of ", image.patch_dim,
        "-value patches does not fit patch size ", c.patch_size, " and pooling ", k));
  }
  if (image.grid_w > c.position_embedding_size || image.grid_h > c.position_embedding_size) {
    return sdk::InvalidArgumentError(
        sdk::StrCat("gemma4 vision: a ", image.grid_w, "x", image.grid_h,
                    " patch grid exceeds the position table of ", c.position_embedding_size));
  }
  scratch_.Reset();
  // Patch embedding: 2 (x - 0.5), the projection, plus the x and y rows.
  OXI_ASSIGN_OR_RETURN(sdk::Tensor px, scratch_.F32(image.pixel_values.data(), n, image.patch_dim));
  OXI_RETURN_IF_ERROR(cx_.Scale(px, px, 2.0f, -1.0f));
  OXI_ASSIGN_OR_RETURN(sdk::Tensor x, scratch_.F32(n, H));
  OXI_RETURN_IF_ERROR(cx_.MatMul(px, input_proj_, x));
  std::vector<int32_t> xs(n), ys(n);
  for (int64_t i = 0; i < n; ++i) {
    xs[i] = image.positions[2 * i];
    ys[i] = image.positions[2 * i + 1] + c.position_embedding_size;  // the table's y half
  }
  OXI_ASSIGN_OR_RETURN(sdk::Tensor xid, scratch_.I32(xs.data(), n));
  OXI_ASSIGN_OR_RETURN(sdk::Tensor yid, scratch_.I32(ys.data(), n));
  OXI_ASSIGN_OR_RETURN(sdk::Tensor ex, scratch_.F32(n, H));
  OXI_ASSIGN_OR_RETURN(sdk::Tensor ey, scratch_.F32(n, H));
  OXI_RETURN_IF_ERROR(cx_.GetRows(pos_table_, xid, ex));
  OXI_RETURN_IF_ERROR(cx_.GetRows(pos_table_, yid, ey));
  OXI_RETURN_IF_ERROR(cx_.Add(ex, ey, ex));
  OXI_RETURN_IF_ERROR(cx_.Add(x, ex, x));
  // The RoPE positions per (patch, head), for q's heads and k's alike.
  std::vector<int32_t> xq(n * c.num_heads), yq(n * c.num_heads), xk(n * c.num_kv_heads),
      yk(n * c.num_kv_heads);
  for (int64_t i = 0; i < n; ++i) {
    for (int h = 0; h < c.num_heads; ++h) {
      xq[i * c.num_heads + h] = image.positions[2 * i];
      yq[i * c.num_heads + h] = image.positions[2 * i + 1];
    }
    for (int h = 0; h < c.num_kv_heads; ++h) {
      xk[i * c.num_kv_heads + h] = image.positions[2 * i];
      yk[i * c.num_kv_heads + h] = image.positions[2 * i + 1];
    }
  }
  RopePositions pos;
  OXI_ASSIGN_OR_RETURN(pos.xq, scratch_.I32(xq.data(), n * c.num_heads));
  OXI_ASSIGN_OR_RETURN(pos.yq, scratch_.I32(yq.data(), n * c.num_heads));
  OXI_ASSIGN_OR_RETURN(pos.xk, scratch_.I32(xk.data(), n * c.num_kv_heads));
  OXI_ASSIGN_OR_RETURN(pos.yk, scratch_.I32(yk.data(), n * c.num_kv_heads));
  for (const VisionLayerWeights& l : layers_) OXI_RETURN_IF_ERROR(Layer(l, x, pos, n));
  // Pooling over k x k patches (the grid is a channels-last image), scaling,
  // standardisation, then the embedder.
  const int64_t m = n / (k * k);
  OXI_ASSIGN_OR_RETURN(sdk::Tensor pooled, scratch_.F32(m, H));
  OXI_RETURN_IF_ERROR(cx_.AvgPool2d(x, pooled, 1, static_cast<int32_t>(image.grid_h),
                                    static_cast<int32_t>(image.grid_w), static_cast<int32_t>(k)));
  OXI_RETURN_IF_ERROR(
      cx_.Scale(pooled, pooled, static_cast<float>(std::sqrt(static_cast<double>(H)))));
  if (c.standardize) {
    OXI_RETURN_IF_ERROR(cx_.Binary(OXI_BINARY_SUB, pooled, std_bias_, pooled));
    OXI_RETURN_IF_ERROR(cx_.Mul(pooled, std_scale_, pooled));
  }
  OXI_RETURN_IF_ERROR(
      cx_.RmsNorm(pooled, sdk::Tensor(), pooled, static_cast<float>(c.rms_norm_eps)));
  OXI_ASSIGN_OR_RETURN(sdk::Tensor out, scratch_.F32(m, c.text_hidden_size));
  OXI_RETURN_IF_ERROR(cx_.MatMul(pooled, projection_, out));
  std::vector<float> host(static_cast<size_t>(m * c.text_hidden_size));
  OXI_RETURN_IF_ERROR(cx_.Read(out, host.data()));
  return host;
}

}  // namespace gemma4
}  // namespace oxinfer
