// Reads a reference run (testdata/<run>.safetensors + <run>.json) and
// compares channels-last activations with its NCHW tensors.
#ifndef OXINFER_TESTS_MODELS_SD_FIXTURE_H_
#define OXINFER_TESTS_MODELS_SD_FIXTURE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/safetensors.h"
#include "nlohmann/json.hpp"
#include "plugins/models/sd/sd_ops.h"

namespace oxinfer {
namespace sd {
namespace testing {

inline constexpr char kTestdata[] = "tests/models/sd/testdata";

struct Fixture {
  nlohmann::json meta;
  SafetensorsFile file;
  // The tensor as float32 values (F32, I32 or U8), with its shape.
  std::vector<float> Floats(const std::string& name, std::vector<int64_t>* shape = nullptr) const;
  bool Has(const std::string& name) const { return file.Find(name) != nullptr; }
  // An NCHW tensor [n][c][h][w] as a channels-last Act; [n][len][d] as [n][1][len][d].
  Act AsAct(const std::string& name) const;
};

absl::StatusOr<Fixture> LoadFixture(const std::string& run);

struct Diff {
  double max_abs = 0;
  double max_ref = 0;  // max |reference|
  double rms = 0;
};
Diff Compare(const Act& got, const Act& want);
// PSNR in dB of two images in [-1, 1] after diffusers' (x / 2 + 0.5).clamp(0, 1).
double Psnr(const Act& got, const Act& want);

}  // namespace testing
}  // namespace sd
}  // namespace oxinfer

#endif  // OXINFER_TESTS_MODELS_SD_FIXTURE_H_
