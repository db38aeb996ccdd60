#include "tools/oxinfer/system_prompt.h"

#include <ctime>

#include "absl/strings/str_format.h"

namespace oxinfer {

std::string DefaultSystemPrompt() {
  const std::time_t now = std::time(nullptr);
  std::tm local = {};
  localtime_r(&now, &local);
  char when[128];
  std::strftime(when, sizeof when, "%A, %B %d, %Y, %H:%M", &local);
  char zone[64];
  std::strftime(zone, sizeof zone, "%Z, UTC%z", &local);
  return absl::StrFormat(
      "You are a helpful assistant running locally on the user's computer with oxinfer. "
      "The local date and time is %s (%s).",
      when, zone);
}

}  // namespace oxinfer
