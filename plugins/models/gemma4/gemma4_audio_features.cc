#include "plugins/models/gemma4/gemma4_audio_features.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <vector>

namespace oxinfer {
namespace gemma4 {
namespace {

constexpr double kPi = 3.14159265358979323846;

double HertzToMel(double f) { return 2595.0 * std::log10(1.0 + f / 700.0); }
double MelToHertz(double m) { return 700.0 * (std::pow(10.0, m / 2595.0) - 1.0); }

// numpy.linspace(start, stop, num) (endpoint included, the last one exact).
std::vector<double> Linspace(double start, double stop, int num) {
  std::vector<double> y(num);
  const double step = (stop - start) / (num - 1);
  for (int i = 0; i < num; ++i) y[i] = static_cast<double>(i) * step + start;
  y[num - 1] = stop;
  return y;
}

// transformers' mel_filter_bank(norm=None, mel_scale="htk"): [bins][mels].
std::vector<double> MelFilters(int n_bins, int n_mels, double fmin, double fmax, int rate) {
  const std::vector<double> mel = Linspace(HertzToMel(fmin), HertzToMel(fmax), n_mels + 2);
  std::vector<double> filter_freqs(n_mels + 2);
  for (int i = 0; i < n_mels + 2; ++i) filter_freqs[i] = MelToHertz(mel[i]);
  const std::vector<double> fft_freqs = Linspace(0.0, static_cast<double>(rate / 2), n_bins);
  std::vector<double> out(static_cast<size_t>(n_bins) * n_mels);
  for (int b = 0; b < n_bins; ++b) {
    for (int m = 0; m < n_mels; ++m) {
      const double down =
          -(filter_freqs[m] - fft_freqs[b]) / (filter_freqs[m + 1] - filter_freqs[m]);
      const double up =
          (filter_freqs[m + 2] - fft_freqs[b]) / (filter_freqs[m + 2] - filter_freqs[m + 1]);
      out[static_cast<size_t>(b) * n_mels + m] = std::max(0.0, std::min(down, up));
    }
  }
  return out;
}

// In-place iterative radix-2 FFT (n a power of two).
void Fft(std::vector<std::complex<double>>& a, const std::vector<std::complex<double>>& twiddle) {
  const size_t n = a.size();
  for (size_t i = 1, j = 0; i < n; ++i) {
    size_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(a[i], a[j]);
  }
  for (size_t len = 2; len <= n; len <<= 1) {
    const size_t step = n / len;
    for (size_t i = 0; i < n; i += len) {
      for (size_t k = 0; k < len / 2; ++k) {
        const std::complex<double> w = twiddle[k * step];
        const std::complex<double> u = a[i + k], v = a[i + k + len / 2] * w;
        a[i + k] = u + v;
        a[i + k + len / 2] = u - v;
      }
    }
  }
}

}  // namespace

sdk::StatusOr<AudioFeatureConfig> ParseAudioFeatureConfig(const sdk::Json& c) {
  AudioFeatureConfig cfg;
  OXI_ASSIGN_OR_RETURN(int64_t mels, c["feature_size"].IntOr(cfg.feature_size));
  OXI_ASSIGN_OR_RETURN(int64_t rate, c["sampling_rate"].IntOr(cfg.sampling_rate));
  OXI_ASSIGN_OR_RETURN(int64_t frame, c["frame_length"].IntOr(cfg.frame_length));
  OXI_ASSIGN_OR_RETURN(int64_t hop, c["hop_length"].IntOr(cfg.hop_length));
  if (mels < 1 || mels > 1024 || rate < 1000 || rate > 192000 || frame < 2 || frame > 65536 ||
      hop < 1 || hop > frame) {
    return sdk::InvalidArgumentError(c.where() +
                                     ": feature_size, sampling_rate, frame_length or hop_length "
                                     "out of range");
  }
  cfg.feature_size = static_cast<int>(mels);
  cfg.sampling_rate = static_cast<int>(rate);
  cfg.frame_length = static_cast<int>(frame);
  cfg.hop_length = static_cast<int>(hop);
  OXI_ASSIGN_OR_RETURN(bool overdrive, c["fft_overdrive"].BoolOr(false));
  int fft = 1;
  while (fft < cfg.frame_length) fft <<= 1;
  cfg.fft_length = overdrive ? fft * 2 : fft;
  OXI_ASSIGN_OR_RETURN(cfg.min_frequency, c["min_frequency"].NumberOr(0.0));
  OXI_ASSIGN_OR_RETURN(cfg.max_frequency, c["max_frequency"].NumberOr(8000.0));
  OXI_ASSIGN_OR_RETURN(cfg.mel_floor, c["mel_floor"].NumberOr(1e-3));
  OXI_ASSIGN_OR_RETURN(cfg.input_scale_factor, c["input_scale_factor"].NumberOr(1.0));
  OXI_ASSIGN_OR_RETURN(cfg.preemphasis, c["preemphasis"].NumberOr(0.0));
  OXI_ASSIGN_OR_RETURN(cfg.preemphasis_htk_flavor, c["preemphasis_htk_flavor"].BoolOr(true));
  OXI_ASSIGN_OR_RETURN(double dither, c["dither"].NumberOr(0.0));
  if (dither != 0.0) {
    return sdk::UnimplementedError(c.where() + ": dither (random noise) is not reproducible");
  }
  const char* keys[2] = {"per_bin_mean", "per_bin_stddev"};
  std::vector<double>* dst[2] = {&cfg.per_bin_mean, &cfg.per_bin_stddev};
  for (int k = 0; k < 2; ++k) {
    sdk::Json v = c[keys[k]];
    if (v.is_missing()) continue;
    if (!v.is_array() || v.size() != cfg.feature_size) {
      return sdk::InvalidArgumentError(v.where() + ": expected feature_size numbers");
    }
    for (int64_t i = 0; i < v.size(); ++i) {
      OXI_ASSIGN_OR_RETURN(double x, v[i].Number());
      dst[k]->push_back(x);
    }
  }
  if (cfg.max_frequency <= cfg.min_frequency || cfg.max_frequency > cfg.sampling_rate / 2.0) {
    return sdk::InvalidArgumentError(c.where() + ": min_frequency / max_frequency out of range");
  }
  return cfg;
}

sdk::StatusOr<AudioFeatures> ExtractLogMel(const float* samples, int64_t n,
                                           const AudioFeatureConfig& cfg) {
  if (n < 0 || (n > 0 && samples == nullptr)) {
    return sdk::InvalidArgumentError("audio: no samples");
  }
  const int64_t real = std::min<int64_t>(n, cfg.max_samples);  // truncation to 30 s
  const int64_t multiple = cfg.pad_to_multiple_of;
  const int64_t padded = (real + multiple - 1) / multiple * multiple;
  const int64_t pad_left = cfg.frame_length / 2;
  const int64_t unfold = cfg.frame_length + 1;
  const int64_t total = padded + pad_left;
  const int64_t n_frames = total >= unfold ? (total - unfold) / cfg.hop_length + 1 : 0;
  if (n_frames <= 0) {
    return sdk::InvalidArgumentError(
        sdk::StrCat("audio clip of ", n, " samples is too short for one feature frame"));
  }
  // The padded signal with its semicausal lead-in, in float32 as numpy keeps it.
  std::vector<float> wave(static_cast<size_t>(total), 0.0f);
  const float scale = static_cast<float>(cfg.input_scale_factor);
  for (int64_t i = 0; i < real; ++i) {
    wave[pad_left + i] = cfg.input_scale_factor != 1.0 ? samples[i] * scale : samples[i];
  }
  // np.hanning(frame_length + 1)[:-1] as float32.
  const int64_t wl = cfg.frame_length;
  std::vector<float> window(wl);
  for (int64_t i = 0; i < wl; ++i) {
    const double m = static_cast<double>(2 * i - wl);
    window[i] = static_cast<float>(0.5 + 0.5 * std::cos(kPi * m / static_cast<double>(wl)));
  }
  const int fft = cfg.fft_length;
  const int n_bins = fft / 2 + 1;
  const std::vector<double> filters =
      MelFilters(n_bins, cfg.feature_size, cfg.min_frequency, cfg.max_frequency, cfg.sampling_rate);
  std::vector<std::complex<double>> twiddle(fft / 2);
  for (int k = 0; k < fft / 2; ++k) {
    twiddle[k] = std::polar(1.0, -2.0 * kPi * k / fft);
  }

  AudioFeatures out;
  out.n_frames = n_frames;
  out.n_mel = cfg.feature_size;
  out.features.assign(static_cast<size_t>(n_frames) * cfg.feature_size, 0.0f);
  out.mask.assign(static_cast<size_t>(n_frames), 0);
  std::vector<std::complex<double>> buf(fft);
  std::vector<double> mag(n_bins);
  const float pre = static_cast<float>(cfg.preemphasis);
  for (int64_t f = 0; f < n_frames; ++f) {
    const float* x = wave.data() + f * cfg.hop_length;
    std::fill(buf.begin(), buf.end(), std::complex<double>(0.0, 0.0));
    for (int64_t i = 0; i < wl; ++i) {
      float v;
      if (cfg.preemphasis <= 0.0) {
        v = x[i];
      } else if (cfg.preemphasis_htk_flavor) {
        v = i == 0 ? x[0] * (1.0f - pre) : x[i] - pre * x[i - 1];
      } else {
        v = x[i + 1] - pre * x[i];
      }
      buf[i] = std::complex<double>(static_cast<double>(v * window[i]), 0.0);
    }
    Fft(buf, twiddle);
    for (int b = 0; b < n_bins; ++b) mag[b] = std::hypot(buf[b].real(), buf[b].imag());
    // A frame is real audio when its last sample (the unfold's extra one) is.
    const bool valid = f * cfg.hop_length + unfold - 1 - pad_left < real;
    out.mask[f] = valid ? 1 : 0;
    if (!valid) continue;
    ++out.n_valid;
    float* dst = out.features.data() + f * cfg.feature_size;
    for (int m = 0; m < cfg.feature_size; ++m) {
      double mel = 0.0;
      for (int b = 0; b < n_bins; ++b)
        mel += mag[b] * filters[static_cast<size_t>(b) * cfg.feature_size + m];
      double v = std::log(mel + cfg.mel_floor);
      if (!cfg.per_bin_mean.empty()) v -= cfg.per_bin_mean[m];
      if (!cfg.per_bin_stddev.empty()) v /= cfg.per_bin_stddev[m];
      dst[m] = static_cast<float>(v);
    }
  }
  return out;
}

}  // namespace gemma4
}  // namespace oxinfer
