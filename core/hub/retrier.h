// Attempts of one request: waits between them (doubling from the settings'
// first delay, at most 30 s, or what a 429's Retry-After asks) and says when
// to give up.
#ifndef OXINFER_CORE_HUB_RETRIER_H_
#define OXINFER_CORE_HUB_RETRIER_H_

#include "core/hub/hub_settings.h"

namespace oxinfer::hub {

class Retrier {
 public:
  explicit Retrier(const HubSettings& settings) : settings_(settings) {}

  // After a failed attempt: sleeps and returns true when another is due;
  // false when the attempts are spent or `retry_after_s` (>= 0: the server's
  // wish) is longer than the settings allow.
  bool Again(double retry_after_s = -1);
  int attempts() const { return attempts_; }

 private:
  const HubSettings& settings_;
  int attempts_ = 1;
};

}  // namespace oxinfer::hub

#endif  // OXINFER_CORE_HUB_RETRIER_H_
