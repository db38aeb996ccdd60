#include "plugins/models/sd/scheduler.h"

#include <algorithm>
#include <cmath>

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

sdk::StatusOr<EulerScheduler> EulerScheduler::FromConfig(const sdk::Json& cfg) {
  EulerScheduler s;
  OXI_ASSIGN_OR_RETURN(int64_t n, cfg["num_train_timesteps"].IntOr(1000));
  if (n < 2 || n > 100000) return cfg["num_train_timesteps"].Error("out of range [2, 100000]");
  s.num_train_ = static_cast<int>(n);
  OXI_ASSIGN_OR_RETURN(int64_t off, cfg["steps_offset"].IntOr(0));
  if (off < 0 || off >= n) return cfg["steps_offset"].Error("out of range");
  s.steps_offset_ = static_cast<int>(off);
  OXI_ASSIGN_OR_RETURN(double b0, cfg["beta_start"].NumberOr(0.0001));
  OXI_ASSIGN_OR_RETURN(double b1, cfg["beta_end"].NumberOr(0.02));
  if (!(b0 > 0 && b0 < 1 && b1 > 0 && b1 < 1)) {
    return cfg.Error("beta_start / beta_end outside (0, 1)");
  }
  OXI_ASSIGN_OR_RETURN(std::string schedule, cfg["beta_schedule"].StringOr("linear"));
  OXI_ASSIGN_OR_RETURN(std::string pred, cfg["prediction_type"].StringOr("epsilon"));
  OXI_ASSIGN_OR_RETURN(s.spacing_, cfg["timestep_spacing"].StringOr("linspace"));
  OXI_RETURN_IF_ERROR(RefuseUnlessDefault(cfg["trained_betas"], "", "trained betas"));
  for (const char* key : {"use_karras_sigmas", "use_exponential_sigmas", "use_beta_sigmas"}) {
    OXI_ASSIGN_OR_RETURN(bool on, cfg[key].BoolOr(false));
    if (on) return sdk::UnimplementedError(cfg[key].where() + " is not supported");
  }
  OXI_RETURN_IF_ERROR(
      RefuseUnlessDefault(cfg["interpolation_type"], "linear", "only linear sigma interpolation"));
  if (pred == "v_prediction") {
    s.v_prediction_ = true;
  } else if (pred != "epsilon") {
    return sdk::UnimplementedError(cfg["prediction_type"].where() + ": '" + pred +
                                   "' (epsilon or v_prediction)");
  }
  std::vector<float> betas;
  if (schedule == "scaled_linear") {
    betas = Linspace(std::sqrt(b0), std::sqrt(b1), s.num_train_);
    for (float& b : betas) b = b * b;
  } else if (schedule == "linear") {
    betas = Linspace(b0, b1, s.num_train_);
  } else {
    return sdk::UnimplementedError(cfg["beta_schedule"].where() + ": '" + schedule +
                                   "' (linear or scaled_linear)");
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
  OXI_RETURN_IF_ERROR(s.SetSpacing(s.spacing_));
  return s;
}

sdk::Status EulerScheduler::SetSpacing(const std::string& spacing) {
  if (spacing != "linspace" && spacing != "leading" && spacing != "trailing") {
    return sdk::InvalidArgumentError(
        sdk::StrCat("timestep_spacing '", spacing, "' (linspace, leading or trailing)"));
  }
  spacing_ = spacing;
  return sdk::OkStatus();
}

sdk::Status EulerScheduler::SetTimesteps(int steps) {
  if (steps < 1 || steps > num_train_) {
    return sdk::InvalidArgumentError(
        sdk::StrCat(steps, " steps: the scheduler takes 1 to ", num_train_));
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
  return sdk::OkStatus();
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
