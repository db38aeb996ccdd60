#include "plugins/models/sd/vae_decoder.h"

#include <cmath>
#include <utility>

#include "plugins/models/sd/sd_config.h"
#include "plugins/models/sd/sd_weights.h"

namespace oxinfer {
namespace sd {

sdk::Status VaeDecoder::Load(const std::string& dir, const sdk::Compute* cx, oxi_dtype matrix_dtype,
                             bool use_mmap) {
  OXI_RETURN_IF_ERROR(LoadConfig(dir));
  return LoadWeights(cx, matrix_dtype, use_mmap);
}

sdk::Status VaeDecoder::LoadConfig(const std::string& dir) {
  OXI_ASSIGN_OR_RETURN(sdk::JsonDoc doc, ReadConfig(dir + "/config.json"));
  const sdk::Json cfg = doc.root();
  OXI_ASSIGN_OR_RETURN(std::vector<int64_t> ch, cfg["block_out_channels"].IntList());
  OXI_ASSIGN_OR_RETURN(int64_t layers, cfg["layers_per_block"].IntOr(2));
  OXI_ASSIGN_OR_RETURN(int64_t groups, cfg["norm_num_groups"].IntOr(32));
  OXI_ASSIGN_OR_RETURN(latent_ch_, cfg["latent_channels"].IntOr(4));
  OXI_ASSIGN_OR_RETURN(double sf, cfg["scaling_factor"].NumberOr(0.18215));
  OXI_ASSIGN_OR_RETURN(has_post_quant_, cfg["use_post_quant_conv"].BoolOr(true));
  OXI_ASSIGN_OR_RETURN(double shift, cfg["shift_factor"].NumberOr(0.0));
  if (shift != 0.0) {
    return sdk::UnimplementedError(dir + "/config.json: shift_factor (not an SD 1.x / 2.x VAE)");
  }
  if (ch.empty() || ch.size() > 8 || layers < 1 || layers > 16 || groups < 1 || groups > 1024 ||
      !(sf > 0) || !std::isfinite(sf)) {
    return sdk::InvalidArgumentError(dir +
                                     "/config.json: block_out_channels, layers_per_block, "
                                     "norm_num_groups or scaling_factor out of range");
  }
  scaling_factor_ = static_cast<float>(sf);
  dir_ = dir;
  blocks_ = static_cast<int64_t>(ch.size());
  layers_ = layers;
  groups_ = static_cast<int32_t>(groups);
  return sdk::OkStatus();
}

sdk::Status VaeDecoder::LoadWeights(const sdk::Compute* cx, oxi_dtype matrix_dtype, bool use_mmap) {
  if (dir_.empty()) return sdk::FailedPreconditionError("vae: LoadConfig first");
  ReleaseWeights();
  const int32_t g = groups_;
  const float eps = 1e-6f;
  OXI_ASSIGN_OR_RETURN(ComponentWeights w,
                       ComponentWeights::Open(dir_, cx, matrix_dtype, use_mmap));
  weights_ = w.weights();
  if (has_post_quant_) {
    OXI_ASSIGN_OR_RETURN(post_quant_, w.LoadConv("post_quant_conv", 1, 0));
  }
  OXI_ASSIGN_OR_RETURN(conv_in_, w.LoadConv("decoder.conv_in", 1, 1));
  OXI_RETURN_IF_ERROR(mid0_.Load(w, "decoder.mid_block.resnets.0.", g, eps));
  OXI_RETURN_IF_ERROR(mid1_.Load(w, "decoder.mid_block.resnets.1.", g, eps));
  const std::string a = "decoder.mid_block.attentions.0.";
  OXI_ASSIGN_OR_RETURN(attn_norm_, w.LoadNorm(a + "group_norm", eps, g));
  OXI_ASSIGN_OR_RETURN(q_, w.LoadLinear(a + "to_q"));
  OXI_ASSIGN_OR_RETURN(k_, w.LoadLinear(a + "to_k"));
  OXI_ASSIGN_OR_RETURN(v_, w.LoadLinear(a + "to_v"));
  OXI_ASSIGN_OR_RETURN(o_, w.LoadLinear(a + "to_out.0"));
  for (int64_t i = 0; i < blocks_; ++i) {
    UpBlock b;
    const std::string p = sdk::StrCat("decoder.up_blocks.", i, ".");
    for (int64_t j = 0; j < layers_ + 1; ++j) {
      ResBlock r;
      OXI_RETURN_IF_ERROR(r.Load(w, sdk::StrCat(p, "resnets.", j, "."), g, eps));
      b.res.push_back(std::move(r));
    }
    b.has_up = i + 1 < blocks_;
    if (b.has_up) {
      OXI_ASSIGN_OR_RETURN(b.up, w.LoadConv(p + "upsamplers.0.conv", 1, 1));
    }
    up_.push_back(std::move(b));
  }
  OXI_ASSIGN_OR_RETURN(norm_out_, w.LoadNorm("decoder.conv_norm_out", eps, g));
  OXI_ASSIGN_OR_RETURN(conv_out_, w.LoadConv("decoder.conv_out", 1, 1));
  const int64_t z_ch = has_post_quant_ ? post_quant_.cin : conv_in_.cin;
  if (z_ch != latent_ch_) {
    return sdk::InvalidArgumentError(sdk::StrCat(w.source(), ": the decoder takes ", z_ch,
                                                 " channels, latent_channels is ", latent_ch_));
  }
  loaded_ = true;
  return sdk::OkStatus();
}

void VaeDecoder::ReleaseWeights() {
  // The layers first: their buffers may point into the mapping.
  loaded_ = false;
  post_quant_ = Conv();
  conv_in_ = Conv();
  conv_out_ = Conv();
  mid0_ = ResBlock();
  mid1_ = ResBlock();
  attn_norm_ = Norm();
  norm_out_ = Norm();
  q_ = Linear();
  k_ = Linear();
  v_ = Linear();
  o_ = Linear();
  up_.clear();
  weights_ = sdk::Weights();
}

sdk::StatusOr<Act> VaeDecoder::MidAttention(const Net& net, const Act& x) const {
  Act q, k, v;
  {
    OXI_ASSIGN_OR_RETURN(Act g, net.GroupNorm(x, attn_norm_, /*silu=*/false));
    g.SetImageShape(1, x.h * x.w);  // the pixels as one sequence per image
    OXI_ASSIGN_OR_RETURN(q, net.Apply(g, q_));
    OXI_ASSIGN_OR_RETURN(k, net.Apply(g, k_));
    OXI_ASSIGN_OR_RETURN(v, net.Apply(g, v_));
  }
  OXI_ASSIGN_OR_RETURN(Act a, net.Attention(q, k, v, /*heads=*/1, /*causal=*/false));
  q.Release(), k.Release(), v.Release();
  OXI_ASSIGN_OR_RETURN(Act out, net.Apply(a, o_));
  out.SetImageShape(x.h, x.w);
  OXI_RETURN_IF_ERROR(net.AddInPlace(&out, x));
  return out;
}

sdk::StatusOr<Act> VaeDecoder::Decode(const Net& net, const Act& z) const {
  if (!loaded_) return sdk::FailedPreconditionError("vae: weights not loaded");
  if (z.c != latent_ch_) {
    return sdk::InvalidArgumentError(
        sdk::StrCat("vae: latents of ", z.c, " channels, the decoder takes ", latent_ch_));
  }
  Act h;
  if (has_post_quant_) {
    OXI_ASSIGN_OR_RETURN(Act p, net.Convolve(z, post_quant_));
    OXI_ASSIGN_OR_RETURN(h, net.Convolve(p, conv_in_));
  } else {
    OXI_ASSIGN_OR_RETURN(h, net.Convolve(z, conv_in_));
  }
  OXI_ASSIGN_OR_RETURN(h, mid0_.Forward(net, std::move(h), nullptr));
  OXI_ASSIGN_OR_RETURN(h, MidAttention(net, h));
  OXI_ASSIGN_OR_RETURN(h, mid1_.Forward(net, std::move(h), nullptr));
  for (const UpBlock& b : up_) {
    for (const ResBlock& r : b.res) {
      OXI_ASSIGN_OR_RETURN(h, r.Forward(net, std::move(h), nullptr));
    }
    if (b.has_up) {
      OXI_ASSIGN_OR_RETURN(Act up, net.Upsample2x(h));
      h.Release();
      OXI_ASSIGN_OR_RETURN(h, net.Convolve(up, b.up));
    }
  }
  OXI_RETURN_IF_ERROR(net.GroupNormInPlace(&h, norm_out_, /*silu=*/true));
  return net.Convolve(h, conv_out_);
}

}  // namespace sd
}  // namespace oxinfer
