// libFuzzer entry point for the sharded index reader (core/safetensors.cc,
// ModelWeights::Open): the JSON, the weight_map's names and file names, and
// the consistency between the index and the shards.
#include "fuzz/shard_index_fuzzer.h"

#include <string>

#include "core/safetensors.h"
#include "core/safetensors_writer.h"
#include "core/tensor.h"
#include "fuzz/fuzz_temp_dir.h"

namespace oxinfer {
namespace {

Tensor Filled(std::vector<int64_t> shape) {
  Tensor t = *Tensor::Allocate(OXI_DTYPE_F32, shape);
  for (int64_t i = 0; i < t.numel(); ++i) t.mutable_data_as<float>()[i] = static_cast<float>(i);
  return t;
}

const std::string& Folder() {
  static const std::string dir = [] {
    const std::string d = FuzzTempDir("sharded");
    if (!WriteSafetensors(d + "/model-00001-of-00002.safetensors",
                          {{"a.weight", Filled({2, 3})}, {"b.bias", Filled({3})}})
             .ok() ||
        !WriteSafetensors(d + "/model-00002-of-00002.safetensors", {{"c.weight", Filled({4})}})
             .ok()) {
      __builtin_trap();
    }
    WriteFuzzFile(d + "/notes.txt", "not a shard");
    return d;
  }();
  return dir;
}

void CheckOpened(const ModelWeights& w) {
  if (w.size() == 0 || w.files().empty() || w.files().size() > 3) __builtin_trap();
  for (const std::string& name : w.Names()) {
    const SafetensorsFile* file = w.FileOf(name);
    const TensorInfo* info = w.Find(name);
    if (file == nullptr || info == nullptr || file->Find(name) != info) __builtin_trap();
    absl::StatusOr<Tensor> t = w.GetTensor(name);
    if (!t.ok() || t->numel() == 0) __builtin_trap();
    volatile float sink = t->data_as<float>()[t->numel() - 1];
    (void)sink;
  }
}

}  // namespace

absl::Status OpenShardIndexFuzzInput(const uint8_t* data, size_t size) {
  const std::string& dir = Folder();
  WriteFuzzFile(dir + "/model.safetensors.index.json",
                absl::string_view(reinterpret_cast<const char*>(data), size));
  absl::StatusOr<ModelWeights> w = ModelWeights::Open(dir, LoadMode::kMmap);
  if (w.ok()) CheckOpened(*w);
  absl::StatusOr<ModelWeights> r = ModelWeights::Open(dir, LoadMode::kRead);
  if (r.ok() != w.ok()) __builtin_trap();
  if (r.ok()) CheckOpened(*r);
  return w.status();
}

}  // namespace oxinfer

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  oxinfer::OpenShardIndexFuzzInput(data, size).IgnoreError();
  return 0;
}
