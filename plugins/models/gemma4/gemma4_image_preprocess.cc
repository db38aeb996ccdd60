#include "plugins/models/gemma4/gemma4_image_preprocess.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace oxinfer {
namespace gemma4 {
namespace {

// Keys' cubic convolution kernel with a = -0.5, as torch's antialiased bicubic
// (HelperInterpCubic::aa_filter<double>) evaluates it.
double CubicFilter(double x) {
  constexpr double a = -0.5;
  x = std::fabs(x);
  if (x < 1.0) return ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0;
  if (x < 2.0) return ((a * x - 5.0 * a) * x + 8.0 * a) * x - 4.0 * a;
  return 0.0;
}

// One axis of torch's 8-bit antialiased resample (the CPU kernel for uint8
// images, a port of Pillow-SIMD's): each output index's taps, weights
// computed in double (_compute_indices_min_size_weights_aa), then scaled to
// int16 with the largest precision that keeps the largest weight in range.
struct AxisTaps {
  std::vector<int64_t> first;
  std::vector<std::vector<int32_t>> weights;
  int precision = 0;
};

AxisTaps ComputeAxisTaps(int64_t in_size, int64_t out_size) {
  const double scale = static_cast<double>(in_size) / static_cast<double>(out_size);
  const double support = scale >= 1.0 ? 2.0 * scale : 2.0;  // interp_size / 2 = 2
  const int64_t max_taps = static_cast<int64_t>(std::ceil(support)) * 2 + 1;
  const double invscale = scale >= 1.0 ? 1.0 / scale : 1.0;
  std::vector<std::vector<double>> w(out_size);
  AxisTaps taps;
  taps.first.resize(out_size);
  double w_max = 0.0;
  for (int64_t i = 0; i < out_size; ++i) {
    const double center = scale * (static_cast<double>(i) + 0.5);
    const int64_t xmin = std::max<int64_t>(static_cast<int64_t>(center - support + 0.5), 0);
    int64_t xsize = std::min<int64_t>(static_cast<int64_t>(center + support + 0.5), in_size) - xmin;
    xsize = std::clamp<int64_t>(xsize, 0, max_taps);
    taps.first[i] = xmin;
    w[i].resize(xsize);
    double total = 0.0;
    for (int64_t j = 0; j < xsize; ++j) {
      w[i][j] = CubicFilter((static_cast<double>(j + xmin) - center + 0.5) * invscale);
      total += w[i][j];
    }
    if (total != 0.0) {
      for (double& v : w[i]) {
        v /= total;
        w_max = std::max(w_max, v);
      }
    }
  }
  int precision = 0;
  for (; precision < 22; ++precision) {
    if (static_cast<int>(0.5 + w_max * (1 << (precision + 1))) >= (1 << 15)) break;
  }
  taps.precision = precision;
  taps.weights.resize(out_size);
  for (int64_t i = 0; i < out_size; ++i) {
    for (double v : w[i]) {
      const double s = v * (1 << precision);
      taps.weights[i].push_back(
          static_cast<int16_t>(s < 0 ? static_cast<int>(-0.5 + s) : static_cast<int>(0.5 + s)));
    }
  }
  return taps;
}

// sum(pixel * weight) in integers, rounded at the precision, clamped to 8 bits.
uint8_t Convolve(const uint8_t* src, int64_t stride, const AxisTaps& t, int64_t i) {
  int32_t acc = 1 << (t.precision - 1);
  const std::vector<int32_t>& w = t.weights[i];
  const uint8_t* p = src + t.first[i] * stride;
  for (size_t j = 0; j < w.size(); ++j) acc += static_cast<int32_t>(p[j * stride]) * w[j];
  acc >>= t.precision;  // arithmetic: floor
  return static_cast<uint8_t>(std::clamp<int32_t>(acc, 0, 255));
}

// PIL's alpha_composite of an RGBA pixel over opaque white (integer, rounded).
uint8_t OverWhite(uint32_t c, uint32_t a) {
  constexpr uint32_t kBits = 7;
  const uint32_t coef1 = a << kBits;
  const uint32_t coef2 = (255u << kBits) - coef1;
  const uint32_t tmp = c * coef1 + 255u * coef2 + (0x80u << kBits);
  return static_cast<uint8_t>((((tmp >> 8) + tmp) >> 8) >> kBits);
}

}  // namespace

sdk::Status CheckSoftTokenBudget(int max_soft_tokens) {
  for (int v : kSupportedSoftTokens) {
    if (v == max_soft_tokens) return sdk::OkStatus();
  }
  return sdk::InvalidArgumentError(
      sdk::StrCat("max_soft_tokens ", max_soft_tokens, " is not one of 70, 140, 280, 560, 1120"));
}

sdk::StatusOr<ImageProcessorConfig> ParseImageProcessorConfig(const sdk::Json& c) {
  ImageProcessorConfig cfg;
  OXI_ASSIGN_OR_RETURN(int64_t patch, c["patch_size"].IntOr(cfg.patch_size));
  OXI_ASSIGN_OR_RETURN(int64_t pool, c["pooling_kernel_size"].IntOr(cfg.pooling_kernel_size));
  OXI_ASSIGN_OR_RETURN(int64_t budget, c["max_soft_tokens"].IntOr(cfg.max_soft_tokens));
  if (patch < 1 || patch > 64 || pool < 1 || pool > 8) {
    return sdk::InvalidArgumentError(sdk::StrCat(c.where(), ": patch_size ", patch,
                                                 " / pooling_kernel_size ", pool, " out of range"));
  }
  cfg.patch_size = static_cast<int>(patch);
  cfg.pooling_kernel_size = static_cast<int>(pool);
  cfg.max_soft_tokens = static_cast<int>(budget);
  OXI_RETURN_IF_ERROR(CheckSoftTokenBudget(cfg.max_soft_tokens).WithContext(c.where()));
  OXI_ASSIGN_OR_RETURN(cfg.do_resize, c["do_resize"].BoolOr(true));
  OXI_ASSIGN_OR_RETURN(cfg.do_rescale, c["do_rescale"].BoolOr(true));
  OXI_ASSIGN_OR_RETURN(cfg.rescale_factor, c["rescale_factor"].NumberOr(1.0 / 255.0));
  OXI_ASSIGN_OR_RETURN(cfg.do_normalize, c["do_normalize"].BoolOr(false));
  OXI_ASSIGN_OR_RETURN(int64_t resample, c["resample"].IntOr(3));
  if (resample != 3) {
    return sdk::UnimplementedError(
        sdk::StrCat(c.where(), ": resample ", resample, " (only 3, bicubic, is implemented)"));
  }
  const char* keys[2] = {"image_mean", "image_std"};
  float* dst[2] = {cfg.mean, cfg.std};
  for (int k = 0; k < 2; ++k) {
    sdk::Json v = c[keys[k]];
    if (v.is_missing()) continue;
    if (v.is_number()) {
      OXI_ASSIGN_OR_RETURN(double x, v.Number());
      for (int i = 0; i < 3; ++i) dst[k][i] = static_cast<float>(x);
      continue;
    }
    if (!v.is_array() || v.size() != 3) {
      return sdk::InvalidArgumentError(v.where() + ": expected 3 numbers");
    }
    for (int i = 0; i < 3; ++i) {
      OXI_ASSIGN_OR_RETURN(double x, v[i].Number());
      dst[k][i] = static_cast<float>(x);
    }
  }
  return cfg;
}

sdk::Status AspectPreservingSize(int64_t height, int64_t width, int patch_size, int64_t max_patches,
                                 int pooling_kernel_size, int64_t* target_height,
                                 int64_t* target_width) {
  const double total_px = static_cast<double>(height) * static_cast<double>(width);
  const double target_px = static_cast<double>(max_patches) * patch_size * patch_size;
  const double factor = std::sqrt(target_px / total_px);
  const double ideal_h = factor * static_cast<double>(height);
  const double ideal_w = factor * static_cast<double>(width);
  const int64_t side = static_cast<int64_t>(pooling_kernel_size) * patch_size;
  int64_t th = static_cast<int64_t>(std::floor(ideal_h / static_cast<double>(side))) * side;
  int64_t tw = static_cast<int64_t>(std::floor(ideal_w / static_cast<double>(side))) * side;
  if (th == 0 && tw == 0) {
    return sdk::InvalidArgumentError(
        sdk::StrCat("a ", width, "x", height, " image resizes to 0x0"));
  }
  const int64_t max_side = (max_patches / (pooling_kernel_size * pooling_kernel_size)) * side;
  if (th == 0) {
    th = side;
    tw = std::min<int64_t>(
        static_cast<int64_t>(std::floor(static_cast<double>(width) / static_cast<double>(height))) *
            side,
        max_side);
  } else if (tw == 0) {
    tw = side;
    th = std::min<int64_t>(
        static_cast<int64_t>(std::floor(static_cast<double>(height) / static_cast<double>(width))) *
            side,
        max_side);
  }
  if (static_cast<double>(th) * static_cast<double>(tw) > target_px) {
    return sdk::InvalidArgumentError(sdk::StrCat("a ", width, "x", height, " image resized to ", tw,
                                                 "x", th, " exceeds ", max_patches, " patches"));
  }
  *target_height = th;
  *target_width = tw;
  return sdk::OkStatus();
}

std::vector<uint8_t> ResizeBicubicAntialias(const std::vector<uint8_t>& rgb, int64_t height,
                                            int64_t width, int64_t out_height, int64_t out_width) {
  // The horizontal pass over every row first, to 8 bits, then the vertical
  // one; a pass whose size does not change is skipped.
  std::vector<uint8_t> tmp;
  const std::vector<uint8_t>* src = &rgb;
  if (out_width != width) {
    const AxisTaps taps = ComputeAxisTaps(width, out_width);
    tmp.resize(static_cast<size_t>(height * out_width * 3));
    for (int64_t y = 0; y < height; ++y) {
      const uint8_t* in = rgb.data() + y * width * 3;
      uint8_t* out = tmp.data() + y * out_width * 3;
      for (int64_t x = 0; x < out_width; ++x) {
        for (int c = 0; c < 3; ++c) out[x * 3 + c] = Convolve(in + c, 3, taps, x);
      }
    }
    src = &tmp;
  }
  if (out_height == height) return *src;
  const AxisTaps taps = ComputeAxisTaps(height, out_height);
  std::vector<uint8_t> out(static_cast<size_t>(out_height * out_width * 3));
  const int64_t row = out_width * 3;
  for (int64_t y = 0; y < out_height; ++y) {
    for (int64_t x = 0; x < row; ++x) out[y * row + x] = Convolve(src->data() + x, row, taps, y);
  }
  return out;
}

sdk::StatusOr<ImagePatches> PreprocessImage(const ImageView& image, const ImageProcessorConfig& cfg,
                                            int max_soft_tokens) {
  OXI_RETURN_IF_ERROR(CheckSoftTokenBudget(max_soft_tokens));
  const int64_t h = image.height, w = image.width;
  if (image.pixels == nullptr || h < 1 || w < 1 || h > 65535 || w > 65535) {
    return sdk::InvalidArgumentError(sdk::StrCat("image size ", w, "x", h, " out of range"));
  }
  if (image.channels != 1 && image.channels != 2 && image.channels != 3 && image.channels != 4) {
    return sdk::InvalidArgumentError(sdk::StrCat("image with ", image.channels, " channels"));
  }
  // To interleaved RGB.
  std::vector<uint8_t> rgb(static_cast<size_t>(3 * h * w));
  const int ch = image.channels;
  for (int64_t i = 0; i < h * w; ++i) {
    const uint8_t* p = image.pixels + i * ch;
    uint8_t* q = rgb.data() + i * 3;
    if (ch <= 2) {
      q[0] = q[1] = q[2] = ch == 2 ? OverWhite(p[0], p[1]) : p[0];
    } else {
      for (int c = 0; c < 3; ++c) q[c] = ch == 4 ? OverWhite(p[c], p[3]) : p[c];
    }
  }

  const int p = cfg.patch_size, k = cfg.pooling_kernel_size;
  const int64_t max_patches = static_cast<int64_t>(max_soft_tokens) * k * k;
  int64_t th = h, tw = w;
  if (cfg.do_resize) {
    OXI_RETURN_IF_ERROR(AspectPreservingSize(h, w, p, max_patches, k, &th, &tw));
    if (th != h || tw != w) rgb = ResizeBicubicAntialias(rgb, h, w, th, tw);
  }
  if (th % p != 0 || tw % p != 0) {
    return sdk::InvalidArgumentError(
        sdk::StrCat("image size ", tw, "x", th, " is not a multiple of the patch size ", p));
  }

  ImagePatches out;
  out.height = th;
  out.width = tw;
  out.grid_h = th / p;
  out.grid_w = tw / p;
  out.patch_dim = static_cast<int64_t>(p) * p * 3;
  const int64_t n = out.grid_h * out.grid_w;
  if (n > max_patches) {
    return sdk::InvalidArgumentError(
        sdk::StrCat("a ", tw, "x", th, " image has more than ", max_patches, " patches"));
  }
  out.n_soft_tokens = n / (static_cast<int64_t>(k) * k);
  // Rescale (x * factor in float32), or the fused rescale + normalise
  // ((x - mean / factor) / (std / factor)), as the torchvision backend does.
  const float factor = static_cast<float>(cfg.rescale_factor);
  float sub[3], div[3];
  for (int c = 0; c < 3; ++c) {
    sub[c] =
        cfg.do_rescale ? static_cast<float>(cfg.mean[c] * (1.0 / cfg.rescale_factor)) : cfg.mean[c];
    div[c] =
        cfg.do_rescale ? static_cast<float>(cfg.std[c] * (1.0 / cfg.rescale_factor)) : cfg.std[c];
  }
  out.pixel_values.resize(static_cast<size_t>(n * out.patch_dim));
  out.positions.resize(static_cast<size_t>(n * 2));
  for (int64_t py = 0; py < out.grid_h; ++py) {
    for (int64_t px = 0; px < out.grid_w; ++px) {
      const int64_t patch = py * out.grid_w + px;
      out.positions[patch * 2] = static_cast<int32_t>(px);
      out.positions[patch * 2 + 1] = static_cast<int32_t>(py);
      float* dst = out.pixel_values.data() + patch * out.patch_dim;
      for (int y = 0; y < p; ++y) {
        for (int x = 0; x < p; ++x) {
          const int64_t pixel = (py * p + y) * tw + px * p + x;
          for (int c = 0; c < 3; ++c) {
            float v = rgb[pixel * 3 + c];
            if (cfg.do_normalize) {
              v = (v - sub[c]) / div[c];
            } else if (cfg.do_rescale) {
              v = v * factor;
            }
            *dst++ = v;
          }
        }
      }
    }
  }
  out.resized = std::move(rgb);
  return out;
}

}  // namespace gemma4
}  // namespace oxinfer
