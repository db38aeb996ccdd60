#include "tests/support/quantized_save.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <utility>

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

}  // namespace testing
}  // namespace oxinfer
