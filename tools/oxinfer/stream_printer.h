// Prints a reply's streamed events on stdout: reasoning dimmed on a terminal
// (its markers dropped there), and between the model's markers otherwise, as
// the text came from the model.
#ifndef OXINFER_TOOLS_OXINFER_STREAM_PRINTER_H_
#define OXINFER_TOOLS_OXINFER_STREAM_PRINTER_H_

#include <string>

#include "core/engine/generation.h"

namespace oxinfer {

class StreamPrinter {
 public:
  // The model's reasoning markers ("" when it does not reason);
  // `in_reasoning` when the prompt opened a reasoning block.
  StreamPrinter(std::string reasoning_start, std::string reasoning_end, bool in_reasoning);

  void Print(const engine::StreamEvent& event);
  // Ends a reply: the terminal's dimming is reset.
  void Finish();

 private:
  void Write(const std::string& s);

  const std::string start_, end_;
  const bool tty_;
  engine::Channel channel_;
};

}  // namespace oxinfer

#endif  // OXINFER_TOOLS_OXINFER_STREAM_PRINTER_H_
