#include "core/hub/retrier.h"

#include <algorithm>
#include <cmath>

#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace oxinfer::hub {

bool Retrier::Again(double retry_after_s) {
  if (attempts_ >= settings_.max_attempts) return false;
  if (retry_after_s > settings_.max_retry_after_s) return false;
  double wait = std::min(30.0, settings_.retry_delay_s * std::pow(2.0, attempts_ - 1));
  if (retry_after_s >= 0) wait = retry_after_s;
  ++attempts_;
  absl::SleepFor(absl::Seconds(wait));
  return true;
}

}  // namespace oxinfer::hub
