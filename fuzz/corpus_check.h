// Runs a fuzz target's parse function over its committed seed corpus with
// the ordinary toolchain, so that `bazel test` exercises it without clang or
// libFuzzer: seeds named valid_* must parse, bad_* must be refused, and every
// prefix of every seed (what a fuzzer's mutations produce) must neither crash
// nor trap.
#ifndef OXINFER_FUZZ_CORPUS_CHECK_H_
#define OXINFER_FUZZ_CORPUS_CHECK_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/status.h"

namespace oxinfer {

using FuzzParseFn = absl::Status (*)(const uint8_t* data, size_t size);

// gtest assertions over every file of `dir` (relative to the runfiles root);
// fails when there are fewer than `min_seeds` files or no valid_ or bad_ one.
void CheckSeedCorpus(const std::string& dir, size_t min_seeds, FuzzParseFn parse);

}  // namespace oxinfer

#endif  // OXINFER_FUZZ_CORPUS_CHECK_H_
