#include "tools/oxinfer/stream_printer.h"

#include <unistd.h>

#include <cstdio>
#include <utility>

namespace oxinfer {

using engine::Channel;

StreamPrinter::StreamPrinter(std::string reasoning_start, std::string reasoning_end,
                             bool in_reasoning)
    : start_(std::move(reasoning_start)),
      end_(std::move(reasoning_end)),
      tty_(isatty(STDOUT_FILENO) != 0),
      channel_(in_reasoning ? Channel::kReasoning : Channel::kContent) {
  if (in_reasoning && tty_) Write("\033[2m");
}

void StreamPrinter::Write(const std::string& s) { std::fwrite(s.data(), 1, s.size(), stdout); }

void StreamPrinter::Print(const engine::StreamEvent& event) {
  if (event.channel != channel_) {
    channel_ = event.channel;
    const bool reasoning = channel_ == Channel::kReasoning;
    Write(tty_ ? (reasoning ? "\033[2m" : "\033[0m") : (reasoning ? start_ : end_));
  }
  std::fwrite(event.text.data(), 1, event.text.size(), stdout);
  std::fflush(stdout);
}

void StreamPrinter::Finish() {
  if (channel_ == Channel::kReasoning && tty_) Write("\033[0m");
  channel_ = Channel::kContent;
  std::fflush(stdout);
}

}  // namespace oxinfer
