// The fuzzed surface of a codec plugin: its table's decode entries (the glue
// between the C ABI and the library) on arbitrary bytes, under small limits.
// Shared by the libFuzzer driver (codec_fuzzer_main.cc, the plugin's sources
// compiled in) and the seed-corpus tests (the plugin loaded as a .so).
#ifndef OXINFER_FUZZ_CODEC_FUZZ_INPUT_H_
#define OXINFER_FUZZ_CODEC_FUZZ_INPUT_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"
#include "oxinfer/codec_abi.h"

namespace oxinfer {

// Sniffs, then decodes with every decoder the table has (image and/or
// audio); OK when a decoder accepted the bytes. A result that breaks the
// ABI's promises (sizes, pointers, a missing message on failure) traps.
// A codec with an encoder (PNG) is also fuzzed as a writer: an image made of
// the input bytes, and each image the legacy decoder gives, must encode and
// decode back to the same pixels.
absl::Status DecodeWithCodec(const oxi_codec_iface* codec, const uint8_t* data, size_t size);

}  // namespace oxinfer

#endif  // OXINFER_FUZZ_CODEC_FUZZ_INPUT_H_
