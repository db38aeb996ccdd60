// Every limit the host puts on what a user or a file can give it, in one
// place (docs/limits.md lists them with the flags that raise them). A refusal
// names the file or flag, the field and the limit. Plugins build against the
// SDK alone: the SDK's own defaults (sdk::ReadFile: 64 MiB) are listed in the
// same document.
#ifndef OXINFER_CORE_LIMITS_H_
#define OXINFER_CORE_LIMITS_H_

#include <cstddef>
#include <cstdint>

namespace oxinfer::limits {

inline constexpr uint64_t kMiB = uint64_t{1} << 20;

// --- Files the loader reads (each refused before reading when larger, and
// --- refused before opening for reading when not a regular file).
// config.json, generation_config.json, model_index.json, tokenizer_config.json.
inline constexpr uint64_t kConfigFileBytes = 16 * kMiB;
// tokenizer.json (Gemma's is 33 MB).
inline constexpr uint64_t kTokenizerFileBytes = 512 * kMiB;
// chat_template.jinja.
inline constexpr uint64_t kTemplateFileBytes = 16 * kMiB;
// model.safetensors.index.json (a 1000-shard checkpoint's is about 10 MB).
inline constexpr uint64_t kShardIndexBytes = 256 * kMiB;
// The JSON header of one safetensors file.
inline constexpr uint64_t kSafetensorsHeaderBytes = 100 * kMiB;
// A plugin shared object (a CUDA plugin with its kernels is a few 100 MB).
inline constexpr uint64_t kPluginFileBytes = 4096 * kMiB;

// --- JSON (every parser: the host's strict reader, tokenizer.json's reader,
// --- the template engine's reader).
inline constexpr int kJsonDepth = 512;

// --- Chat templates: the budget of one render (a template is a program from
// --- the checkpoint; a hostile one must fail, not hang or exhaust memory).
// Statements rendered plus expressions evaluated.
inline constexpr int64_t kTemplateSteps = 10'000'000;
// The output, and any one string or list a template builds.
inline constexpr size_t kTemplateOutputBytes = 64 * kMiB;
inline constexpr size_t kTemplateListItems = size_t{1} << 20;
// Macro calls in progress.
inline constexpr int kTemplateCallDepth = 200;
// Nested blocks, or nested expressions, when parsing.
inline constexpr int kTemplateNestingDepth = 256;
// Integers beyond 64 bits are exact, as in Python, up to this many decimal
// digits (Python's int_max_str_digits: it refuses to print more).
inline constexpr size_t kTemplateIntegerDigits = 4300;

// --- Interactive input.
// One --chat line read from stdin.
inline constexpr size_t kChatLineBytes = 1 * kMiB;

// --- What a model plugin reports (oxi_model_info), checked by the host.
// Also the bound of every id in tokenizer.json (ids size its tables).
inline constexpr int32_t kMaxVocabSize = int32_t{1} << 22;
inline constexpr int32_t kMaxHiddenSize = int32_t{1} << 20;
inline constexpr int32_t kMaxSequences = int32_t{1} << 16;
inline constexpr int32_t kMaxModelTokenList = 4096;  // stop tokens, special tokens
// Each side of an image a plugin returns (generate_image, decode).
inline constexpr int32_t kMaxImageSide = 32768;

// --- Flags.
inline constexpr int kMaxThreads = 1024;
inline constexpr int kMaxDenoisingSteps = 10000;

}  // namespace oxinfer::limits

#endif  // OXINFER_CORE_LIMITS_H_
