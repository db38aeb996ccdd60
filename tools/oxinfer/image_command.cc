#include "tools/oxinfer/image_command.h"

#include <chrono>
#include <cstdio>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "core/engine/message.h"
#include "tools/oxinfer/interrupt.h"
#include "tools/oxinfer/progress_bar.h"

namespace oxinfer {

absl::Status RunImage(engine::Engine& engine, const ImageFlags& flags) {
  if (flags.prompt.empty()) return absl::InvalidArgumentError("no prompt: use -p TEXT");
  if (absl::Status s = engine::CheckUtf8(flags.prompt, "-p"); !s.ok()) return s;
  if (absl::Status s = engine::CheckUtf8(flags.negative, "--negative"); !s.ok()) return s;
  engine::ImageRequest request;
  request.prompt = flags.prompt;
  request.negative_prompt = flags.negative;
  request.steps = flags.steps;
  request.guidance = flags.guidance;
  request.sampler = flags.sampler;
  request.seed = flags.seed;
  if (!flags.size.empty()) {
    std::vector<std::string> wh = absl::StrSplit(flags.size, 'x');
    if (wh.size() != 2 || !absl::SimpleAtoi(wh[0], &request.width) ||
        !absl::SimpleAtoi(wh[1], &request.height) || request.width <= 0 || request.height <= 0) {
      return absl::InvalidArgumentError(
          absl::StrFormat("--size=%s: expected WIDTHxHEIGHT, e.g. 512x512", flags.size));
    }
  }
  // A path that cannot be written fails now, not after the whole generation.
  if (absl::Status s = engine.CheckImageDestination(flags.output); !s.ok()) return s;

  InterruptGuard interrupt(nullptr);
  ProgressBar bar("denoising");
  request.progress = [&](int32_t step, int32_t total) {
    bar.Update(step, total, "steps");
    return !InterruptGuard::Interrupted();
  };
  const auto t0 = std::chrono::steady_clock::now();
  auto image = engine.GenerateImage(request);
  bar.Finish();
  if (flags.profile) std::fprintf(stderr, "%s", engine.ProfileReport().c_str());
  if (!image.ok()) return image.status();
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  absl::Status s = engine.WriteImage(*image, flags.output);
  std::fprintf(stderr, "%dx%d image in %.2f s -> %s\n", image->width, image->height, secs,
               flags.output.c_str());
  return s;
}

}  // namespace oxinfer
