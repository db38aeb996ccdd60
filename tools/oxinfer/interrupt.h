// Ctrl-C in the CLI: while an InterruptGuard lives, SIGINT cancels the
// session's reply (or the image being made) instead of killing the process,
// and a blocked read of the chat prompt returns, so the loop can exit.
#ifndef OXINFER_TOOLS_OXINFER_INTERRUPT_H_
#define OXINFER_TOOLS_OXINFER_INTERRUPT_H_

#include <signal.h>

#include "core/engine/session.h"

namespace oxinfer {

class InterruptGuard {
 public:
  // `session` (may be null) is cancelled on SIGINT.
  explicit InterruptGuard(engine::Session* session);
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

  // Whether SIGINT arrived since the last Clear().
  static bool Interrupted();
  static void Clear();

 private:
  struct sigaction old_;
};

}  // namespace oxinfer

#endif  // OXINFER_TOOLS_OXINFER_INTERRUPT_H_
