// Reads a reference run (testdata/<run>.safetensors + <run>.json) through
// the host's services and compares channels-last activations with its NCHW
// tensors.
#ifndef OXINFER_TESTS_MODELS_SD_FIXTURE_H_
#define OXINFER_TESTS_MODELS_SD_FIXTURE_H_

#include <string>
#include <vector>

#include "oxinfer/sdk/json.hpp"
#include "oxinfer/sdk/status.hpp"
#include "oxinfer/sdk/weights.hpp"
#include "plugins/models/sd/activations.h"

namespace oxinfer {
namespace sd {
namespace testing {

// The fixtures' folder (a runfile under bazel test).
std::string Testdata();

struct Fixture {
  sdk::JsonDoc meta_doc;
  sdk::Weights file;

  sdk::Json meta() const { return meta_doc.root(); }
  std::string MetaString(const std::string& key) const;
  double MetaNumber(const std::string& key) const;
  bool Has(const std::string& name) const { return file.Has(name); }
  // The tensor as float32 values (F32, I32 or U8), with its shape; empty when absent.
  std::vector<float> Floats(const std::string& name, std::vector<int64_t>* shape = nullptr) const;
  // An NCHW tensor [n][c][h][w] channels-last; [n][len][d] as [n][1][len][d].
  HostAct AsHost(const std::string& name) const;
};

sdk::StatusOr<Fixture> LoadFixture(const std::string& run);

struct Diff {
  double max_abs = 0;
  double max_ref = 0;  // max |reference|
  double rms = 0;
};
Diff Compare(const HostAct& got, const HostAct& want);
// max_abs relative to the reference's largest magnitude.
double Relative(const Diff& d);
// PSNR in dB of two images in [-1, 1] after diffusers' (x / 2 + 0.5).clamp(0, 1).
double Psnr(const HostAct& got, const HostAct& want);

}  // namespace testing
}  // namespace sd
}  // namespace oxinfer

#endif  // OXINFER_TESTS_MODELS_SD_FIXTURE_H_
