#include "tools/oxinfer/interrupt.h"

#include <atomic>

namespace oxinfer {
namespace {

std::atomic<bool> g_interrupted{false};
std::atomic<engine::Session*> g_session{nullptr};

void OnSigint(int) {
  g_interrupted.store(true);
  if (engine::Session* s = g_session.load()) s->Cancel();  // async-signal-safe
}

}  // namespace

InterruptGuard::InterruptGuard(engine::Session* session) {
  g_session.store(session);
  struct sigaction sa = {};
  sa.sa_handler = &OnSigint;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: a blocked read returns, so the chat prompt can exit
  sigaction(SIGINT, &sa, &old_);
}

InterruptGuard::~InterruptGuard() {
  sigaction(SIGINT, &old_, nullptr);
  g_session.store(nullptr);
}

bool InterruptGuard::Interrupted() { return g_interrupted.load(); }

void InterruptGuard::Clear() { g_interrupted.store(false); }

}  // namespace oxinfer
