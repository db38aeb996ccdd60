// The sharded-checkpoint index (model.safetensors.index.json) fuzz target,
// callable from ordinary tests too.
#ifndef OXINFER_FUZZ_SHARD_INDEX_FUZZER_H_
#define OXINFER_FUZZ_SHARD_INDEX_FUZZER_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"

namespace oxinfer {

// Writes the input as model.safetensors.index.json into a folder that also
// holds two shards (model-00001-of-00002.safetensors: "a.weight", "b.bias";
// model-00002-of-00002.safetensors: "c.weight") and a file that is not a
// shard (notes.txt), then opens the folder as ModelWeights (mmap and read).
// An index that opens must give a readable tensor for every name, each from
// the shard the index names; a violation traps. Returns the open status.
absl::Status OpenShardIndexFuzzInput(const uint8_t* data, size_t size);

}  // namespace oxinfer

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

#endif  // OXINFER_FUZZ_SHARD_INDEX_FUZZER_H_
