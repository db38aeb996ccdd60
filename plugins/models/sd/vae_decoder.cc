#include "plugins/models/sd/vae_decoder.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "plugins/models/sd/sd_config.h"
#include "plugins/models/sd/sd_weights.h"

namespace oxinfer {
namespace sd {

absl::StatusOr<VaeDecoder> VaeDecoder::Load(const std::string& dir, oxi_dtype weight_dtype) {
  nlohmann::json cfg;
  SD_ASSIGN(cfg, ReadJsonFile(dir + "/config.json"));
  VaeDecoder v;
  std::vector<int64_t> ch;
  SD_ASSIGN(ch, GetIntList(cfg, "block_out_channels", 1));
  int64_t layers = 2, groups = 32;
  SD_ASSIGN(layers, GetInt(cfg, "layers_per_block", 2));
  SD_ASSIGN(groups, GetInt(cfg, "norm_num_groups", 32));
  SD_ASSIGN(v.latent_ch_, GetInt(cfg, "latent_channels", 4));
  double sf = 0.18215;
  SD_ASSIGN(sf, GetDouble(cfg, "scaling_factor", 0.18215));
  v.scaling_factor_ = static_cast<float>(sf);
  SD_ASSIGN(v.has_post_quant_, GetBool(cfg, "use_post_quant_conv", true));
  if (cfg.contains("shift_factor") && !cfg["shift_factor"].is_null() &&
      cfg["shift_factor"].get<double>() != 0.0) {
    return absl::UnimplementedError(absl::StrCat(dir, ": shift_factor (not an SD 1.x/2.x VAE)"));
  }
  if (ch.empty()) return absl::InvalidArgumentError("vae: empty block_out_channels");
  const float eps = 1e-6f;
  WeightStore w;
  SD_ASSIGN(w, WeightStore::Open(dir, weight_dtype));
  if (v.has_post_quant_) SD_ASSIGN(v.post_quant_, w.GetConv("post_quant_conv", 1, 0));
  SD_ASSIGN(v.conv_in_, w.GetConv("decoder.conv_in", 1, 1));
  SD_RETURN_IF_ERROR(v.mid0_.Load(w, "decoder.mid_block.resnets.0.", groups, eps));
  SD_RETURN_IF_ERROR(v.mid1_.Load(w, "decoder.mid_block.resnets.1.", groups, eps));
  const std::string a = "decoder.mid_block.attentions.0.";
  SD_ASSIGN(v.attn_norm_, w.GetNorm(a + "group_norm", eps, groups));
  SD_ASSIGN(v.q_, w.GetLinear(a + "to_q"));
  SD_ASSIGN(v.k_, w.GetLinear(a + "to_k"));
  SD_ASSIGN(v.v_, w.GetLinear(a + "to_v"));
  SD_ASSIGN(v.o_, w.GetLinear(a + "to_out.0"));
  for (size_t i = 0; i < ch.size(); ++i) {
    UpBlock b;
    const std::string p = absl::StrCat("decoder.up_blocks.", i, ".");
    for (int64_t j = 0; j < layers + 1; ++j) {
      ResBlock r;
      SD_RETURN_IF_ERROR(r.Load(w, absl::StrCat(p, "resnets.", j, "."), groups, eps));
      b.res.push_back(std::move(r));
    }
    b.has_up = i + 1 < ch.size();
    if (b.has_up) SD_ASSIGN(b.up, w.GetConv(p + "upsamplers.0.conv", 1, 1));
    v.up_.push_back(std::move(b));
  }
  SD_ASSIGN(v.norm_out_, w.GetNorm("decoder.conv_norm_out", eps, groups));
  SD_ASSIGN(v.conv_out_, w.GetConv("decoder.conv_out", 1, 1));
  return v;
}

absl::StatusOr<Act> VaeDecoder::Decode(const Ops& ops, const Act& z) const {
  if (z.c != latent_ch_) return absl::InvalidArgumentError("vae: wrong latent channel count");
  Act h, tmp;
  if (has_post_quant_) {
    SD_RETURN_IF_ERROR(ops.Conv2d(z, post_quant_, &tmp));
    SD_RETURN_IF_ERROR(ops.Conv2d(tmp, conv_in_, &h));
  } else {
    SD_RETURN_IF_ERROR(ops.Conv2d(z, conv_in_, &h));
  }
  SD_RETURN_IF_ERROR(mid0_.Forward(ops, h, nullptr, &tmp));
  h = std::move(tmp);
  {  // Single-head self-attention over the pixels, with a residual.
    Act g, q, k, v, a, o;
    SD_RETURN_IF_ERROR(ops.GroupNorm(h, attn_norm_, /*silu=*/false, &g));
    const int64_t hh = g.h, ww = g.w;
    g.w = hh * ww;
    g.h = 1;
    SD_RETURN_IF_ERROR(ops.Apply(g, q_, &q));
    SD_RETURN_IF_ERROR(ops.Apply(g, k_, &k));
    SD_RETURN_IF_ERROR(ops.Apply(g, v_, &v));
    SD_RETURN_IF_ERROR(ops.Attention(q, k, v, /*heads=*/1, /*causal=*/false, &a));
    SD_RETURN_IF_ERROR(ops.Apply(a, o_, &o));
    SD_RETURN_IF_ERROR(ops.AddInPlace(h.data(), o.data(), h.size()));
  }
  SD_RETURN_IF_ERROR(mid1_.Forward(ops, h, nullptr, &tmp));
  h = std::move(tmp);
  for (const UpBlock& b : up_) {
    for (const ResBlock& r : b.res) {
      SD_RETURN_IF_ERROR(r.Forward(ops, h, nullptr, &tmp));
      h = std::move(tmp);
    }
    if (b.has_up) {
      SD_RETURN_IF_ERROR(ops.Conv2d(Ops::Upsample2x(h), b.up, &tmp));
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
