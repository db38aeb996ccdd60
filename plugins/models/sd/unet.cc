#include "plugins/models/sd/unet.h"

#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "plugins/models/sd/sd_config.h"
#include "plugins/models/sd/sd_weights.h"

namespace oxinfer {
namespace sd {

absl::Status ResBlock::Load(const WeightStore& w, const std::string& p, int64_t groups, float eps) {
  SD_ASSIGN(n1, w.GetNorm(p + "norm1", eps, groups));
  SD_ASSIGN(n2, w.GetNorm(p + "norm2", eps, groups));
  SD_ASSIGN(c1, w.GetConv(p + "conv1", 1, 1));
  SD_ASSIGN(c2, w.GetConv(p + "conv2", 1, 1));
  has_temb = w.Has(p + "time_emb_proj.weight");
  if (has_temb) SD_ASSIGN(temb, w.GetLinear(p + "time_emb_proj"));
  has_shortcut = w.Has(p + "conv_shortcut.weight");
  if (has_shortcut) SD_ASSIGN(shortcut, w.GetConv(p + "conv_shortcut", 1, 0));
  if (!has_shortcut && c1.cin != c2.lin.out) {
    return absl::InvalidArgumentError(absl::StrCat(p, ": channels change without conv_shortcut"));
  }
  return absl::OkStatus();
}

absl::Status ResBlock::Forward(const Ops& ops, const Act& x, const Act* t, Act* out) const {
  Act h, g;
  SD_RETURN_IF_ERROR(ops.GroupNorm(x, n1, /*silu=*/true, &g));
  SD_RETURN_IF_ERROR(ops.Conv2d(g, c1, &h));
  if (has_temb && t != nullptr) {
    // temb_proj(silu(temb)) added per sample and channel.
    Act st = *t;
    SD_RETURN_IF_ERROR(ops.Unary(OXI_UNARY_SILU, st.data(), st.size()));
    Act tp;
    SD_RETURN_IF_ERROR(ops.Apply(st, temb, &tp));
    const int64_t hw = h.h * h.w;
    for (int64_t b = 0; b < h.n; ++b) {
      SD_RETURN_IF_ERROR(
          ops.AddBroadcast(h.data() + b * hw * h.c, hw * h.c, tp.data() + b * h.c, h.c));
    }
  }
  SD_RETURN_IF_ERROR(ops.GroupNorm(h, n2, /*silu=*/true, &g));
  SD_RETURN_IF_ERROR(ops.Conv2d(g, c2, out));
  if (has_shortcut) {
    Act s;
    SD_RETURN_IF_ERROR(ops.Conv2d(x, shortcut, &s));
    return ops.AddInPlace(out->data(), s.data(), out->size());
  }
  return ops.AddInPlace(out->data(), x.data(), out->size());
}

absl::StatusOr<UNet> UNet::Load(const std::string& dir, oxi_dtype weight_dtype) {
  nlohmann::json cfg;
  SD_ASSIGN(cfg, ReadJsonFile(dir + "/config.json"));
  UNet u;
  std::vector<int64_t> ch;
  SD_ASSIGN(ch, GetIntList(cfg, "block_out_channels", 1));
  std::vector<std::string> down_types, up_types;
  SD_ASSIGN(down_types, GetStringList(cfg, "down_block_types"));
  SD_ASSIGN(up_types, GetStringList(cfg, "up_block_types"));
  const size_t nb = ch.size();
  if (nb == 0 || down_types.size() != nb || up_types.size() != nb) {
    return absl::InvalidArgumentError(absl::StrCat(dir, ": block lists of different lengths"));
  }
  int64_t layers = 2;
  SD_ASSIGN(layers, GetInt(cfg, "layers_per_block", 2));
  SD_ASSIGN(u.in_ch_, GetInt(cfg, "in_channels", 4));
  SD_ASSIGN(u.out_ch_, GetInt(cfg, "out_channels", 4));
  SD_ASSIGN(u.cross_dim_, GetInt(cfg, "cross_attention_dim", 768));
  SD_ASSIGN(u.groups_, GetInt(cfg, "norm_num_groups", 32));
  double eps = 1e-5;
  SD_ASSIGN(eps, GetDouble(cfg, "norm_eps", 1e-5));
  u.eps_ = static_cast<float>(eps);
  SD_ASSIGN(u.flip_sin_to_cos_, GetBool(cfg, "flip_sin_to_cos", true));
  SD_ASSIGN(u.freq_shift_, GetDouble(cfg, "freq_shift", 0));
  bool linear_proj = false;
  SD_ASSIGN(linear_proj, GetBool(cfg, "use_linear_projection", false));
  (void)linear_proj;  // conv 1x1 and linear weights load alike (channels-last).
  // num_attention_heads, else (diffusers' legacy naming) attention_head_dim.
  std::vector<int64_t> heads;
  if (cfg.contains("num_attention_heads") && !cfg["num_attention_heads"].is_null()) {
    SD_ASSIGN(heads, GetIntList(cfg, "num_attention_heads", nb));
  } else {
    SD_ASSIGN(heads, GetIntList(cfg, "attention_head_dim", nb));
  }
  if (heads.size() != nb) return absl::InvalidArgumentError("attention_head_dim: wrong length");
  for (const char* key : {"addition_embed_type", "class_embed_type", "encoder_hid_dim"}) {
    if (cfg.contains(key) && !cfg[key].is_null()) {
      return absl::UnimplementedError(absl::StrCat(dir, ": ", key, " is set (not SD 1.x/2.x)"));
    }
  }
  std::string time_type;
  SD_ASSIGN(time_type, GetString(cfg, "time_embedding_type", "positional"));
  std::string shift_type;
  SD_ASSIGN(shift_type, GetString(cfg, "resnet_time_scale_shift", "default"));
  if (time_type != "positional" || shift_type != "default") {
    return absl::UnimplementedError(absl::StrCat(dir, ": unsupported time embedding"));
  }
  u.c0_ = ch[0];
  WeightStore w;
  SD_ASSIGN(w, WeightStore::Open(dir, weight_dtype));
  SD_ASSIGN(u.conv_in_, w.GetConv("conv_in", 1, 1));
  SD_ASSIGN(u.time1_, w.GetLinear("time_embedding.linear_1"));
  SD_ASSIGN(u.time2_, w.GetLinear("time_embedding.linear_2"));
  for (size_t i = 0; i < nb; ++i) {
    Block b;
    const std::string p = absl::StrCat("down_blocks.", i, ".");
    const bool cross = down_types[i] == "CrossAttnDownBlock2D";
    if (!cross && down_types[i] != "DownBlock2D") {
      return absl::UnimplementedError(absl::StrCat("down block type ", down_types[i]));
    }
    for (int64_t j = 0; j < layers; ++j) {
      ResBlock r;
      SD_RETURN_IF_ERROR(r.Load(w, absl::StrCat(p, "resnets.", j, "."), u.groups_, u.eps_));
      b.res.push_back(std::move(r));
      if (cross) {
        Transformer t;
        SD_RETURN_IF_ERROR(
            u.LoadTransformer(w, absl::StrCat(p, "attentions.", j, "."), heads[i], &t));
        b.attn.push_back(std::move(t));
      }
    }
    b.has_sampler = i + 1 < nb;
    if (b.has_sampler) SD_ASSIGN(b.sampler, w.GetConv(p + "downsamplers.0.conv", 2, 1));
    u.down_.push_back(std::move(b));
  }
  SD_RETURN_IF_ERROR(u.mid_res0_.Load(w, "mid_block.resnets.0.", u.groups_, u.eps_));
  SD_RETURN_IF_ERROR(u.mid_res1_.Load(w, "mid_block.resnets.1.", u.groups_, u.eps_));
  SD_RETURN_IF_ERROR(u.LoadTransformer(w, "mid_block.attentions.0.", heads[nb - 1], &u.mid_attn_));
  for (size_t i = 0; i < nb; ++i) {
    Block b;
    const std::string p = absl::StrCat("up_blocks.", i, ".");
    const bool cross = up_types[i] == "CrossAttnUpBlock2D";
    if (!cross && up_types[i] != "UpBlock2D") {
      return absl::UnimplementedError(absl::StrCat("up block type ", up_types[i]));
    }
    for (int64_t j = 0; j < layers + 1; ++j) {
      ResBlock r;
      SD_RETURN_IF_ERROR(r.Load(w, absl::StrCat(p, "resnets.", j, "."), u.groups_, u.eps_));
      b.res.push_back(std::move(r));
      if (cross) {
        Transformer t;
        SD_RETURN_IF_ERROR(
            u.LoadTransformer(w, absl::StrCat(p, "attentions.", j, "."), heads[nb - 1 - i], &t));
        b.attn.push_back(std::move(t));
      }
    }
    b.has_sampler = i + 1 < nb;
    if (b.has_sampler) SD_ASSIGN(b.sampler, w.GetConv(p + "upsamplers.0.conv", 1, 1));
    u.up_.push_back(std::move(b));
  }
  SD_ASSIGN(u.norm_out_, w.GetNorm("conv_norm_out", u.eps_, u.groups_));
  SD_ASSIGN(u.conv_out_, w.GetConv("conv_out", 1, 1));
  if (u.conv_in_.cin != u.in_ch_ || u.conv_out_.lin.out != u.out_ch_) {
    return absl::InvalidArgumentError(absl::StrCat(dir, ": conv_in/conv_out disagree with config"));
  }
  return u;
}

absl::Status UNet::LoadTransformer(const WeightStore& w, const std::string& p, int64_t heads,
                                   Transformer* t) const {
  t->heads = heads;
  SD_ASSIGN(t->gn, w.GetNorm(p + "norm", 1e-6f, groups_));
  SD_ASSIGN(t->proj_in, w.GetLinear(p + "proj_in"));
  SD_ASSIGN(t->proj_out, w.GetLinear(p + "proj_out"));
  for (int j = 0; w.Has(absl::StrCat(p, "transformer_blocks.", j, ".norm1.weight")); ++j) {
    const std::string q = absl::StrCat(p, "transformer_blocks.", j, ".");
    TBlock b;
    SD_ASSIGN(b.n1, w.GetNorm(q + "norm1", 1e-5f));
    SD_ASSIGN(b.n2, w.GetNorm(q + "norm2", 1e-5f));
    SD_ASSIGN(b.n3, w.GetNorm(q + "norm3", 1e-5f));
    SD_ASSIGN(b.q1, w.GetLinear(q + "attn1.to_q"));
    SD_ASSIGN(b.k1, w.GetLinear(q + "attn1.to_k"));
    SD_ASSIGN(b.v1, w.GetLinear(q + "attn1.to_v"));
    SD_ASSIGN(b.o1, w.GetLinear(q + "attn1.to_out.0"));
    SD_ASSIGN(b.q2, w.GetLinear(q + "attn2.to_q"));
    SD_ASSIGN(b.k2, w.GetLinear(q + "attn2.to_k"));
    SD_ASSIGN(b.v2, w.GetLinear(q + "attn2.to_v"));
    SD_ASSIGN(b.o2, w.GetLinear(q + "attn2.to_out.0"));
    SD_ASSIGN(b.ff1, w.GetLinear(q + "ff.net.0.proj"));
    SD_ASSIGN(b.ff2, w.GetLinear(q + "ff.net.2"));
    if (b.q1.out % heads != 0 || b.ff1.out % 2 != 0 || b.ff2.in * 2 != b.ff1.out) {
      return absl::InvalidArgumentError(absl::StrCat(q, ": inconsistent shapes"));
    }
    t->blocks.push_back(std::move(b));
  }
  if (t->blocks.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(p, ": no transformer_blocks"));
  }
  return absl::OkStatus();
}

absl::Status UNet::TransformerForward(const Ops& ops, const Transformer& t, const Act& x,
                                      const Act& ctx, Act* out) const {
  Act g, h, n, q, k, v, a, o, f;
  SD_RETURN_IF_ERROR(ops.GroupNorm(x, t.gn, /*silu=*/false, &g));
  SD_RETURN_IF_ERROR(ops.Apply(g, t.proj_in, &h));
  // Tokens: [n][1][h*w][c].
  const int64_t hh = h.h, ww = h.w;
  h.w = hh * ww;
  h.h = 1;
  for (const TBlock& b : t.blocks) {
    SD_RETURN_IF_ERROR(ops.LayerNorm(h, b.n1, &n));
    SD_RETURN_IF_ERROR(ops.Apply(n, b.q1, &q));
    SD_RETURN_IF_ERROR(ops.Apply(n, b.k1, &k));
    SD_RETURN_IF_ERROR(ops.Apply(n, b.v1, &v));
    SD_RETURN_IF_ERROR(ops.Attention(q, k, v, t.heads, /*causal=*/false, &a));
    SD_RETURN_IF_ERROR(ops.Apply(a, b.o1, &o));
    SD_RETURN_IF_ERROR(ops.AddInPlace(h.data(), o.data(), h.size()));
    SD_RETURN_IF_ERROR(ops.LayerNorm(h, b.n2, &n));
    SD_RETURN_IF_ERROR(ops.Apply(n, b.q2, &q));
    SD_RETURN_IF_ERROR(ops.Apply(ctx, b.k2, &k));
    SD_RETURN_IF_ERROR(ops.Apply(ctx, b.v2, &v));
    SD_RETURN_IF_ERROR(ops.Attention(q, k, v, t.heads, /*causal=*/false, &a));
    SD_RETURN_IF_ERROR(ops.Apply(a, b.o2, &o));
    SD_RETURN_IF_ERROR(ops.AddInPlace(h.data(), o.data(), h.size()));
    SD_RETURN_IF_ERROR(ops.LayerNorm(h, b.n3, &n));
    SD_RETURN_IF_ERROR(ops.Apply(n, b.ff1, &f));
    // GEGLU: first half * gelu(second half).
    const int64_t inner = b.ff2.in;
    Act gated(f.n, f.h, f.w, inner);
    Act gate(f.n, f.h, f.w, inner);
    for (int64_t r = 0; r < f.rows(); ++r) {
      std::copy(f.data() + r * 2 * inner, f.data() + r * 2 * inner + inner,
                gated.data() + r * inner);
      std::copy(f.data() + r * 2 * inner + inner, f.data() + (r + 1) * 2 * inner,
                gate.data() + r * inner);
    }
    SD_RETURN_IF_ERROR(ops.Unary(OXI_UNARY_GELU_ERF, gate.data(), gate.size()));
    for (int64_t i = 0; i < gated.size(); ++i) gated.d[i] *= gate.d[i];
    SD_RETURN_IF_ERROR(ops.Apply(gated, b.ff2, &o));
    SD_RETURN_IF_ERROR(ops.AddInPlace(h.data(), o.data(), h.size()));
  }
  SD_RETURN_IF_ERROR(ops.Apply(h, t.proj_out, out));
  out->h = hh;
  out->w = ww;
  return ops.AddInPlace(out->data(), x.data(), out->size());
}

absl::StatusOr<Act> UNet::Forward(const Ops& ops, const Act& sample, float timestep,
                                  const Act& ctx) const {
  if (sample.c != in_ch_ || ctx.n != sample.n || ctx.c != cross_dim_) {
    return absl::InvalidArgumentError("unet: input shapes do not match the model");
  }
  if (sample.h % downscale() != 0 || sample.w % downscale() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("unet: latent size must be a multiple of ", downscale()));
  }
  // Sinusoidal embedding, in float32 as diffusers computes it.
  const int64_t half = c0_ / 2;
  Act temb_in(sample.n, 1, 1, c0_);
  const float log_period = static_cast<float>(-std::log(10000.0));
  for (int64_t i = 0; i < half; ++i) {
    const float exponent =
        (log_period * static_cast<float>(i)) / static_cast<float>(half - freq_shift_);
    const float arg = timestep * std::exp(exponent);
    const float s = std::sin(arg), c = std::cos(arg);
    for (int64_t b = 0; b < sample.n; ++b) {
      float* e = temb_in.data() + b * c0_;
      e[flip_sin_to_cos_ ? half + i : i] = s;
      e[flip_sin_to_cos_ ? i : half + i] = c;
    }
  }
  Act t1, temb;
  SD_RETURN_IF_ERROR(ops.Apply(temb_in, time1_, &t1));
  SD_RETURN_IF_ERROR(ops.Unary(OXI_UNARY_SILU, t1.data(), t1.size()));
  SD_RETURN_IF_ERROR(ops.Apply(t1, time2_, &temb));

  Act h, tmp;
  SD_RETURN_IF_ERROR(ops.Conv2d(sample, conv_in_, &h));
  std::vector<Act> skips;
  skips.push_back(h);
  for (const Block& b : down_) {
    for (size_t j = 0; j < b.res.size(); ++j) {
      SD_RETURN_IF_ERROR(b.res[j].Forward(ops, h, &temb, &tmp));
      h = std::move(tmp);
      if (!b.attn.empty()) {
        SD_RETURN_IF_ERROR(TransformerForward(ops, b.attn[j], h, ctx, &tmp));
        h = std::move(tmp);
      }
      skips.push_back(h);
    }
    if (b.has_sampler) {
      SD_RETURN_IF_ERROR(ops.Conv2d(h, b.sampler, &tmp));
      h = std::move(tmp);
      skips.push_back(h);
    }
  }
  SD_RETURN_IF_ERROR(mid_res0_.Forward(ops, h, &temb, &tmp));
  SD_RETURN_IF_ERROR(TransformerForward(ops, mid_attn_, tmp, ctx, &h));
  SD_RETURN_IF_ERROR(mid_res1_.Forward(ops, h, &temb, &tmp));
  h = std::move(tmp);
  for (const Block& b : up_) {
    for (size_t j = 0; j < b.res.size(); ++j) {
      if (skips.empty()) return absl::InternalError("unet: skip stack underflow");
      Act cat = Ops::ConcatChannels(h, skips.back());
      skips.pop_back();
      SD_RETURN_IF_ERROR(b.res[j].Forward(ops, cat, &temb, &tmp));
      h = std::move(tmp);
      if (!b.attn.empty()) {
        SD_RETURN_IF_ERROR(TransformerForward(ops, b.attn[j], h, ctx, &tmp));
        h = std::move(tmp);
      }
    }
    if (b.has_sampler) {
      SD_RETURN_IF_ERROR(ops.Conv2d(Ops::Upsample2x(h), b.sampler, &tmp));
      h = std::move(tmp);
    }
  }
  SD_RETURN_IF_ERROR(ops.GroupNorm(h, norm_out_, /*silu=*/true, &tmp));
  Act out;
  SD_RETURN_IF_ERROR(ops.Conv2d(tmp, conv_out_, &out));
  return out;
}

}  // namespace sd
}  // namespace oxinfer
