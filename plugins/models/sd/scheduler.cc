#include "plugins/models/sd/scheduler.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "plugins/models/sd/sd_config.h"

namespace oxinfer {
namespace sd {
namespace {

// numpy's round: half to even.
double RoundHalfEven(double x) { return std::nearbyint(x); }

// torch.linspace(start, end, n) in float32.
std::vector<float> Linspace(double start, double end, int n) {
  std::vector<float> out(n);
  const double step = n > 1 ? (end - start) / (n - 1) : 0.0;
  const int half = n / 2;
  for (int i = 0; i < n; ++i) {
    // ATen fills the first half from start and the second from end.
    out[i] = static_cast<float>(i < half ? start + step * i : end - step * (n - 1 - i));
  }
  return out;
}

}  // namespace

absl::StatusOr<EulerScheduler> EulerScheduler::FromConfig(const nlohmann::json& cfg) {
  EulerScheduler s;
  int64_t n = 1000;
  SD_ASSIGN(n, GetInt(cfg, "num_train_timesteps", 1000));
  if (n < 2 || n > 100000) return absl::InvalidArgumentError("num_train_timesteps out of range");
  s.num_train_ = static_cast<int>(n);
  int64_t off = 0;
  SD_ASSIGN(off, GetInt(cfg, "steps_offset", 0));
  s.steps_offset_ = static_cast<int>(off);
  double b0 = 0.0001, b1 = 0.02;
  SD_ASSIGN(b0, GetDouble(cfg, "beta_start", 0.0001));
  SD_ASSIGN(b1, GetDouble(cfg, "beta_end", 0.02));
  std::string schedule, pred;
  SD_ASSIGN(schedule, GetString(cfg, "beta_schedule", "linear"));
  SD_ASSIGN(pred, GetString(cfg, "prediction_type", "epsilon"));
  SD_ASSIGN(s.spacing_, GetString(cfg, "timestep_spacing", "linspace"));
  if (cfg.contains("trained_betas") && !cfg["trained_betas"].is_null()) {
    return absl::UnimplementedError("trained_betas are not supported");
  }
  for (const char* key : {"use_karras_sigmas", "use_exponential_sigmas", "use_beta_sigmas"}) {
    bool on = false;
    SD_ASSIGN(on, GetBool(cfg, key, false));
    if (on) return absl::UnimplementedError(absl::StrCat(key, " is not supported"));
  }
  std::string interp;
  SD_ASSIGN(interp, GetString(cfg, "interpolation_type", "linear"));
  if (interp != "linear") return absl::UnimplementedError("only linear sigma interpolation");
  if (pred == "v_prediction") {
    s.v_prediction_ = true;
  } else if (pred != "epsilon") {
    return absl::UnimplementedError(absl::StrCat("prediction_type ", pred));
  }
  std::vector<float> betas;
  if (schedule == "scaled_linear") {
    betas = Linspace(std::sqrt(b0), std::sqrt(b1), s.num_train_);
    for (float& b : betas) b = b * b;
  } else if (schedule == "linear") {
    betas = Linspace(b0, b1, s.num_train_);
  } else {
    return absl::UnimplementedError(absl::StrCat("beta_schedule ", schedule));
  }
  // torch.cumprod on CPU accumulates float32 in double.
  double acc = 1.0;
  s.all_sigmas_.resize(s.num_train_);
  for (int i = 0; i < s.num_train_; ++i) {
    const float alpha = 1.f - betas[i];
    acc *= alpha;
    const float ac = static_cast<float>(acc);
    s.all_sigmas_[i] = std::pow((1.f - ac) / ac, 0.5f);
  }
  SD_RETURN_IF_ERROR(s.SetSpacing(s.spacing_));
  return s;
}

absl::Status EulerScheduler::SetSpacing(const std::string& spacing) {
  if (spacing != "linspace" && spacing != "leading" && spacing != "trailing") {
    return absl::InvalidArgumentError(absl::StrCat("timestep_spacing '", spacing, "'"));
  }
  spacing_ = spacing;
  return absl::OkStatus();
}

absl::Status EulerScheduler::SetTimesteps(int steps) {
  if (steps < 1 || steps > num_train_) {
    return absl::InvalidArgumentError(absl::StrCat("steps must be in [1, ", num_train_, "]"));
  }
  std::vector<double> ts(steps);
  if (spacing_ == "linspace") {
    // np.linspace(0, N - 1, steps, dtype=float32)[::-1]
    const double stop = num_train_ - 1;
    const double step = steps > 1 ? stop / (steps - 1) : 0.0;
    for (int i = 0; i < steps; ++i) {
      double v = steps > 1 ? i * step : 0.0;
      if (steps > 1 && i == steps - 1) v = stop;
      ts[steps - 1 - i] = static_cast<float>(v);
    }
  } else if (spacing_ == "leading") {
    const int ratio = num_train_ / steps;
    for (int i = 0; i < steps; ++i) {
      ts[steps - 1 - i] = static_cast<float>(RoundHalfEven(static_cast<double>(i) * ratio)) +
                          static_cast<float>(steps_offset_);
    }
  } else {  // trailing: np.arange(N, 0, -N / steps).round() - 1
    const double ratio = static_cast<double>(num_train_) / steps;
    for (int i = 0; i < steps; ++i) {
      ts[i] = static_cast<float>(RoundHalfEven(num_train_ + i * -ratio)) - 1.f;
    }
  }
  timesteps_.assign(steps, 0.f);
  sigmas_.assign(steps + 1, 0.f);
  for (int i = 0; i < steps; ++i) {
    timesteps_[i] = static_cast<float>(ts[i]);
    // np.interp(t, arange(N), sigmas) in float64.
    const double t = std::min<double>(std::max<double>(timesteps_[i], 0.0), num_train_ - 1);
    const int lo = std::min(static_cast<int>(std::floor(t)), num_train_ - 2);
    const double frac = t - lo;
    const double a = all_sigmas_[lo], b = all_sigmas_[lo + 1];
    sigmas_[i] = static_cast<float>(frac == 0.0 ? a : a + (b - a) * frac);
  }
  const float max_sigma = *std::max_element(sigmas_.begin(), sigmas_.end());
  init_noise_sigma_ = (spacing_ == "linspace" || spacing_ == "trailing")
                          ? max_sigma
                          : std::pow(max_sigma * max_sigma + 1.f, 0.5f);
  return absl::OkStatus();
}

void EulerScheduler::ScaleInput(int i, float* x, int64_t n) const {
  const float sigma = sigmas_[i];
  const float d = std::pow(sigma * sigma + 1.f, 0.5f);
  for (int64_t j = 0; j < n; ++j) x[j] = x[j] / d;
}

float EulerScheduler::SigmaUp(int i) const {
  const float from = sigmas_[i], to = sigmas_[i + 1];
  return std::pow(to * to * (from * from - to * to) / (from * from), 0.5f);
}

void EulerScheduler::Step(Sampler sampler, int i, const float* out, const float* noise,
                          float* sample, int64_t n) const {
  const float sigma = sigmas_[i];
  const float s2p1 = sigma * sigma + 1.f;
  const float v_out = -sigma / std::pow(s2p1, 0.5f);
  float target = sigmas_[i + 1];  // Euler: dt = sigma_next - sigma
  float sigma_up = 0.f;
  if (sampler == Sampler::kEulerAncestral) {
    sigma_up = SigmaUp(i);
    target = std::pow(sigmas_[i + 1] * sigmas_[i + 1] - sigma_up * sigma_up, 0.5f);
  }
  const float dt = target - sigma;
  for (int64_t j = 0; j < n; ++j) {
    const float x = sample[j];
    const float pred = v_prediction_ ? out[j] * v_out + x / s2p1 : x - sigma * out[j];
    const float derivative = (x - pred) / sigma;
    float prev = x + derivative * dt;
    if (sampler == Sampler::kEulerAncestral && noise != nullptr) prev = prev + noise[j] * sigma_up;
    sample[j] = prev;
  }
}

}  // namespace sd
}  // namespace oxinfer
