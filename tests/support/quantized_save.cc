#include "tests/support/quantized_save.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <utility>

#include "core/host_services.h"
#include "gtest/gtest.h"
#include "oxinfer/sdk/weights.hpp"

namespace oxinfer {
namespace testing {

std::string FreshTestDir(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string dir = std::string(tmp != nullptr ? tmp : "/tmp") + "/" + name;
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  std::filesystem::create_directories(dir, ec);
  return dir;
}

QuantizedSave::QuantizedSave(const std::string& name, const std::string& dir, oxi_dtype precision)
    : model_dir(dir), out(FreshTestDir(name)) {
  auto w = QuantizedWriter::Create(out, model_dir, precision);
  status = w.status();
  if (w.ok()) writer = *std::move(w);
}

int32_t QuantizedSave::Record(void* ctx, const oxi_weight_tensor* t, char* error,
                              size_t error_size) {
  auto* self = static_cast<QuantizedSave*>(ctx);
  const absl::Status s = self->writer->Add(*t);
  if (s.ok()) return OXI_OK;
  std::snprintf(error, error_size, "%s", std::string(s.message()).c_str());
  return static_cast<int32_t>(s.code());
}

absl::Status QuantizedSave::Finish(const std::string& device) {
  if (!status.ok()) return status;
  return writer->Finish(model_dir, device);
}

void ExpectGreedyLogitsIdentical(const FeedLogits& at_load, const FeedLogits& saved,
                                 const std::vector<int32_t>& prompt, int64_t vocab, int steps,
                                 const std::string& what) {
  std::vector<float> x = at_load(prompt.data(), prompt.size());
  std::vector<float> y = saved(prompt.data(), prompt.size());
  for (int s = 0; s < steps; ++s) {
    if (x.size() != static_cast<size_t>(vocab) || y.size() != x.size()) {
      ADD_FAILURE() << what << " step " << s << ": " << x.size() << " and " << y.size()
                    << " logits, not " << vocab;
      return;
    }
    if (std::memcmp(x.data(), y.data(), x.size() * sizeof(float)) != 0) {
      float max_diff = 0.0f;
      for (size_t i = 0; i < x.size(); ++i) max_diff = std::max(max_diff, std::fabs(x[i] - y[i]));
      ADD_FAILURE() << what << " step " << s << ": logits differ, max |diff| " << max_diff;
      return;
    }
    const int32_t next = static_cast<int32_t>(std::max_element(x.begin(), x.end()) - x.begin());
    x = at_load(&next, 1);
    y = saved(&next, 1);
  }
}

void ExpectSavedLayout(const std::string& dir, const oxi_backend_iface* backend,
                       const std::string& backend_name, oxi_dtype precision,
                       const std::string& what) {
  auto w = sdk::Weights::Open(dir, true, HostServices());
  ASSERT_TRUE(w.ok()) << w.status().message();
  const oxi_dtype preferred =
      backend->preferred_weight_dtype != nullptr
          ? backend->preferred_weight_dtype(backend->self, precision, 64, 64)
          : precision;
  int blocks = 0, layout = 0;
  for (int64_t t = 0; t < w->size(); ++t) {
    const oxi_dtype d = static_cast<oxi_dtype>(w->tensor(t).dtype);
    blocks += oxi_dtype_block_elems(d) > 1;
    layout += oxi_dtype_plain(d) == precision && oxi_dtype_is_x8(d) == oxi_dtype_is_x8(preferred);
  }
  EXPECT_GE(blocks, 8) << what;
  EXPECT_GE(2 * layout, blocks) << what << ": not in " << oxi_dtype_name(preferred);
  EXPECT_NE(w->Find("lm_head.weight"), nullptr) << what << ": no head (a tied one's Q8_0 copy)";
  std::printf("[ saved ] %s at %s on %s: %lld tensors, %d blocks (%d %s), logits identical\n",
              what.c_str(), oxi_dtype_name(precision), backend_name.c_str(),
              static_cast<long long>(w->size()), blocks, layout, oxi_dtype_name(preferred));
}

}  // namespace testing
}  // namespace oxinfer
