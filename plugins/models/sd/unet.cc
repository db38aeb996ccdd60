#include "plugins/models/sd/unet.h"

#include <cmath>
#include <utility>

#include "plugins/models/sd/sd_config.h"
#include "plugins/models/sd/sd_weights.h"

namespace oxinfer {
namespace sd {

sdk::Status UNet::Load(const std::string& dir, const sdk::Compute* cx, oxi_dtype matrix_dtype,
                       bool use_mmap) {
  OXI_RETURN_IF_ERROR(LoadConfig(dir));
  return LoadWeights(cx, matrix_dtype, use_mmap);
}

sdk::Status UNet::LoadConfig(const std::string& dir) {
  OXI_ASSIGN_OR_RETURN(sdk::JsonDoc doc, ReadConfig(dir + "/config.json"));
  const sdk::Json cfg = doc.root();
  OXI_ASSIGN_OR_RETURN(std::vector<int64_t> ch, cfg["block_out_channels"].IntList());
  OXI_ASSIGN_OR_RETURN(std::vector<std::string> down_types, cfg["down_block_types"].StringList());
  OXI_ASSIGN_OR_RETURN(std::vector<std::string> up_types, cfg["up_block_types"].StringList());
  const size_t nb = ch.size();
  if (nb == 0 || nb > 8 || down_types.size() != nb || up_types.size() != nb) {
    return cfg["block_out_channels"].Error(
        "empty, or not as long as down_block_types and up_block_types");
  }
  OXI_ASSIGN_OR_RETURN(int64_t layers, cfg["layers_per_block"].IntOr(2));
  OXI_ASSIGN_OR_RETURN(in_ch_, cfg["in_channels"].IntOr(4));
  OXI_ASSIGN_OR_RETURN(out_ch_, cfg["out_channels"].IntOr(4));
  OXI_ASSIGN_OR_RETURN(cross_dim_, cfg["cross_attention_dim"].IntOr(768));
  OXI_ASSIGN_OR_RETURN(sample_size_, cfg["sample_size"].IntOr(64));
  OXI_ASSIGN_OR_RETURN(int64_t groups, cfg["norm_num_groups"].IntOr(32));
  OXI_ASSIGN_OR_RETURN(double eps, cfg["norm_eps"].NumberOr(1e-5));
  OXI_ASSIGN_OR_RETURN(flip_sin_to_cos_, cfg["flip_sin_to_cos"].BoolOr(true));
  OXI_ASSIGN_OR_RETURN(freq_shift_, cfg["freq_shift"].NumberOr(0));
  if (layers < 1 || layers > 16 || groups < 1 || groups > 1024 || sample_size_ < 1) {
    return sdk::InvalidArgumentError(
        dir + "/config.json: layers_per_block, norm_num_groups or sample_size out of range");
  }
  if (!(eps > 0) || !std::isfinite(eps)) {
    return cfg["norm_eps"].Error("must be a positive finite number");
  }
  groups_ = static_cast<int32_t>(groups);
  eps_ = static_cast<float>(eps);
  // num_attention_heads, else (diffusers' legacy naming) attention_head_dim.
  const sdk::Json heads_field = cfg["num_attention_heads"].is_missing()
                                    ? cfg["attention_head_dim"]
                                    : cfg["num_attention_heads"];
  OXI_ASSIGN_OR_RETURN(std::vector<int64_t> heads, IntOrList(heads_field, nb));
  if (heads.size() != nb) return heads_field.Error("not one value per block");
  for (const char* key :
       {"addition_embed_type", "class_embed_type", "encoder_hid_dim", "time_cond_proj_dim"}) {
    OXI_RETURN_IF_ERROR(RefuseUnlessDefault(cfg[key], "", "not an SD 1.x / 2.x UNet"));
  }
  OXI_RETURN_IF_ERROR(
      RefuseUnlessDefault(cfg["time_embedding_type"], "positional", "not an SD 1.x / 2.x UNet"));
  OXI_RETURN_IF_ERROR(
      RefuseUnlessDefault(cfg["resnet_time_scale_shift"], "default", "not an SD 1.x / 2.x UNet"));
  c0_ = ch[0];
  dir_ = dir;
  down_types_ = std::move(down_types);
  up_types_ = std::move(up_types);
  heads_ = std::move(heads);
  layers_ = layers;
  return sdk::OkStatus();
}

sdk::Status UNet::LoadWeights(const sdk::Compute* cx, oxi_dtype matrix_dtype, bool use_mmap) {
  if (dir_.empty()) return sdk::FailedPreconditionError("unet: LoadConfig first");
  ReleaseWeights();
  const size_t nb = heads_.size();
  OXI_ASSIGN_OR_RETURN(ComponentWeights w,
                       ComponentWeights::Open(dir_, cx, matrix_dtype, use_mmap));
  weights_ = w.weights();
  OXI_ASSIGN_OR_RETURN(conv_in_, w.LoadConv("conv_in", 1, 1));
  OXI_ASSIGN_OR_RETURN(time1_, w.LoadLinear("time_embedding.linear_1"));
  OXI_ASSIGN_OR_RETURN(time2_, w.LoadLinear("time_embedding.linear_2"));
  if (time1_.in != c0_ || time2_.in != time1_.out) {
    return sdk::InvalidArgumentError(w.source() +
                                     ": time_embedding does not fit block_out_channels");
  }
  for (size_t i = 0; i < nb; ++i) {
    OXI_ASSIGN_OR_RETURN(Block b, LoadBlock(w, sdk::StrCat("down_blocks.", i, "."), down_types_[i],
                                            /*down=*/true, layers_, heads_[i], i + 1 == nb));
    down_.push_back(std::move(b));
  }
  OXI_RETURN_IF_ERROR(mid_res0_.Load(w, "mid_block.resnets.0.", groups_, eps_));
  OXI_RETURN_IF_ERROR(mid_res1_.Load(w, "mid_block.resnets.1.", groups_, eps_));
  OXI_RETURN_IF_ERROR(mid_attn_.Load(w, "mid_block.attentions.0.", heads_[nb - 1], groups_));
  for (size_t i = 0; i < nb; ++i) {
    OXI_ASSIGN_OR_RETURN(Block b,
                         LoadBlock(w, sdk::StrCat("up_blocks.", i, "."), up_types_[i],
                                   /*down=*/false, layers_ + 1, heads_[nb - 1 - i], i + 1 == nb));
    up_.push_back(std::move(b));
  }
  OXI_ASSIGN_OR_RETURN(norm_out_, w.LoadNorm("conv_norm_out", eps_, groups_));
  OXI_ASSIGN_OR_RETURN(conv_out_, w.LoadConv("conv_out", 1, 1));
  if (conv_in_.cin != in_ch_ || conv_out_.cout != out_ch_) {
    return sdk::InvalidArgumentError(
        sdk::StrCat(w.source(), ": conv_in / conv_out have ", conv_in_.cin, " / ", conv_out_.cout,
                    " channels, the config says ", in_ch_, " / ", out_ch_));
  }
  loaded_ = true;
  return sdk::OkStatus();
}

void UNet::ReleaseWeights() {
  // The layers first: their buffers may point into the mapping.
  loaded_ = false;
  conv_in_ = Conv();
  conv_out_ = Conv();
  time1_ = Linear();
  time2_ = Linear();
  norm_out_ = Norm();
  down_.clear();
  up_.clear();
  mid_res0_ = ResBlock();
  mid_res1_ = ResBlock();
  mid_attn_ = SpatialTransformer();
  weights_ = sdk::Weights();
}

sdk::StatusOr<UNet::Block> UNet::LoadBlock(const ComponentWeights& w, const std::string& p,
                                           const std::string& type, bool down, int64_t layers,
                                           int64_t heads, bool last) const {
  const std::string cross_type = down ? "CrossAttnDownBlock2D" : "CrossAttnUpBlock2D";
  const std::string plain_type = down ? "DownBlock2D" : "UpBlock2D";
  if (type != cross_type && type != plain_type) {
    return sdk::UnimplementedError(
        sdk::StrCat(p, ": block type ", type, " (expected ", cross_type, " or ", plain_type, ")"));
  }
  Block b;
  for (int64_t j = 0; j < layers; ++j) {
    ResBlock r;
    OXI_RETURN_IF_ERROR(r.Load(w, sdk::StrCat(p, "resnets.", j, "."), groups_, eps_));
    b.res.push_back(std::move(r));
    if (type == cross_type) {
      SpatialTransformer t;
      OXI_RETURN_IF_ERROR(t.Load(w, sdk::StrCat(p, "attentions.", j, "."), heads, groups_));
      b.attn.push_back(std::move(t));
    }
  }
  b.has_sampler = !last;
  if (b.has_sampler) {
    const std::string name = down ? p + "downsamplers.0.conv" : p + "upsamplers.0.conv";
    OXI_ASSIGN_OR_RETURN(b.sampler, w.LoadConv(name, down ? 2 : 1, 1));
  }
  return b;
}

sdk::StatusOr<Act> UNet::TimeEmbedding(const Net& net, int64_t n, float timestep) const {
  // The sinusoidal features, in float32 as diffusers computes them.
  const int64_t half = c0_ / 2;
  std::vector<float> features(static_cast<size_t>(n * c0_), 0.f);
  const float log_period = static_cast<float>(-std::log(10000.0));
  for (int64_t i = 0; i < half; ++i) {
    const float exponent =
        (log_period * static_cast<float>(i)) / static_cast<float>(half - freq_shift_);
    const float arg = timestep * std::exp(exponent);
    const float s = std::sin(arg), c = std::cos(arg);
    for (int64_t b = 0; b < n; ++b) {
      float* e = features.data() + b * c0_;
      e[flip_sin_to_cos_ ? half + i : i] = s;
      e[flip_sin_to_cos_ ? i : half + i] = c;
    }
  }
  OXI_ASSIGN_OR_RETURN(Act x, WriteAct(net.pool(), n, 1, 1, c0_, features.data()));
  OXI_ASSIGN_OR_RETURN(Act t1, net.Apply(x, time1_));
  OXI_RETURN_IF_ERROR(net.UnaryInPlace(OXI_UNARY_SILU, &t1));
  OXI_ASSIGN_OR_RETURN(Act temb, net.Apply(t1, time2_));
  // Every ResNet block applies SiLU to the embedding first: once here.
  OXI_RETURN_IF_ERROR(net.UnaryInPlace(OXI_UNARY_SILU, &temb));
  return temb;
}

sdk::StatusOr<Act> UNet::Forward(const Net& net, const Act& sample, float timestep,
                                 const Act& ctx) const {
  if (!loaded_) return sdk::FailedPreconditionError("unet: weights not loaded");
  if (sample.c != in_ch_ || ctx.n != sample.n || ctx.c != cross_dim_) {
    return sdk::InvalidArgumentError(sdk::StrCat("unet: sample of ", sample.n, " images of ",
                                                 sample.c, " channels and ", ctx.n,
                                                 " contexts of width ", ctx.c, "; the model takes ",
                                                 in_ch_, " channels and width ", cross_dim_));
  }
  OXI_ASSIGN_OR_RETURN(Act temb, TimeEmbedding(net, sample.n, timestep));
  // Every layer's output is a skip; the next layer reads it from there.
  std::vector<Act> skips;
  {
    OXI_ASSIGN_OR_RETURN(Act h, net.Convolve(sample, conv_in_));
    skips.push_back(std::move(h));
  }
  for (const Block& b : down_) {
    for (size_t j = 0; j < b.res.size(); ++j) {
      OXI_ASSIGN_OR_RETURN(Act h, b.res[j].Forward(net, skips.back(), &temb));
      if (!b.attn.empty()) {
        OXI_ASSIGN_OR_RETURN(h, b.attn[j].Forward(net, h, ctx));
      }
      skips.push_back(std::move(h));
    }
    if (b.has_sampler) {
      OXI_ASSIGN_OR_RETURN(Act h, net.Convolve(skips.back(), b.sampler));
      skips.push_back(std::move(h));
    }
  }
  OXI_ASSIGN_OR_RETURN(Act h, mid_res0_.Forward(net, skips.back(), &temb));
  OXI_ASSIGN_OR_RETURN(h, mid_attn_.Forward(net, h, ctx));
  OXI_ASSIGN_OR_RETURN(h, mid_res1_.Forward(net, std::move(h), &temb));
  for (const Block& b : up_) {
    for (size_t j = 0; j < b.res.size(); ++j) {
      if (skips.empty()) return sdk::InternalError("unet: more up-block layers than skips");
      {
        OXI_ASSIGN_OR_RETURN(Act cat, net.Concat(h, skips.back()));
        skips.pop_back();
        OXI_ASSIGN_OR_RETURN(h, b.res[j].Forward(net, std::move(cat), &temb));
      }
      if (!b.attn.empty()) {
        OXI_ASSIGN_OR_RETURN(h, b.attn[j].Forward(net, h, ctx));
      }
    }
    if (b.has_sampler) {
      // To the size of the skip the next block reads (diffusers'
      // upsample_size): a side that was odd before a stride-2 convolution
      // comes back odd.
      if (skips.empty()) return sdk::InternalError("unet: no skip after an upsampling block");
      OXI_ASSIGN_OR_RETURN(Act up, net.UpsampleNearestTo(h, skips.back().h, skips.back().w));
      OXI_ASSIGN_OR_RETURN(h, net.Convolve(up, b.sampler));
    }
  }
  OXI_RETURN_IF_ERROR(net.GroupNormInPlace(&h, norm_out_, /*silu=*/true));
  return net.Convolve(h, conv_out_);
}

}  // namespace sd
}  // namespace oxinfer
