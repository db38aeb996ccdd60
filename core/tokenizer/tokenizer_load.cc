// Loading: tokenizer.json (text or a mapped file) to a Tokenizer.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/limits.h"
#include "core/mapped_file.h"
#include "core/tokenizer/config_json.h"
#include "core/tokenizer/json.h"
#include "core/tokenizer/tokenizer.h"
#include "core/tokenizer/tokenizer_impl.h"
#include "core/tokenizer/utf8.h"

namespace oxinfer {
namespace tokenizer {

absl::StatusOr<std::unique_ptr<Tokenizer>> Tokenizer::FromFile(const std::string& path) {
  // Map the file (no copy, no zero-filled buffer): FromJson copies what it keeps.
  // A FIFO, a device or a file over the limit is refused before any read.
  absl::StatusOr<RegularFile> file = RegularFile::Open(path, limits::kTokenizerFileBytes);
  if (!file.ok()) return file.status();
  const size_t size = static_cast<size_t>(file->size());
  void* map = nullptr;
  if (size > 0) {
    map = mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, file->fd(), 0);
  }
  if (map == MAP_FAILED) return absl::InternalError(absl::StrCat("cannot map ", path));
  auto tok = FromJson(absl::string_view(static_cast<const char*>(map), size));
  if (map != nullptr) munmap(map, size);
  if (!tok.ok()) {
    return absl::Status(tok.status().code(), absl::StrCat(path, ": ", tok.status().message()));
  }
  return tok;
}

absl::StatusOr<std::unique_ptr<Tokenizer>> Tokenizer::FromJson(absl::string_view json) {
  // A JSON text is UTF-8 (RFC 8259), and `tokenizers` reads the file into a
  // Rust String, which refuses anything else; raw invalid bytes inside a
  // token would otherwise come back out of Decode as invalid UTF-8.
  if (!IsValidUtf8(json)) {
    size_t pos = 0;
    while (pos < json.size()) {
      const size_t len = ValidSequenceLength(json, pos);
      if (len == 0) break;
      pos += len;
    }
    return absl::InvalidArgumentError(
        absl::StrFormat("tokenizer.json: not valid UTF-8 (byte 0x%02x at offset %d)",
                        static_cast<unsigned char>(json[pos]), pos));
  }
  // A lone surrogate escape is no character either: serde_json refuses it.
  if (const size_t at = FindLoneSurrogateEscape(json); at != absl::string_view::npos) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "tokenizer.json: the escape %s at offset %d is a lone UTF-16 surrogate, not a character",
        json.substr(at, 6), at));
  }
  JsonValue root;
  JsonReader reader(json);
  absl::Status s = reader.ParseDocument(&root, {"model.vocab", "model.merges"});
  if (!s.ok()) return s;
  if (!root.is_object()) return absl::InvalidArgumentError("tokenizer.json: not an object");
  auto impl = std::make_unique<Impl>();

  // Model.
  const JsonValue* model = root.Find("model");
  if (model == nullptr || !model->is_object()) {
    return absl::InvalidArgumentError("tokenizer.json: missing \"model\"");
  }
  const std::string model_type = TypeOf(*model);
  if (!(model_type == "BPE" || (model_type.empty() && model->Find("merges") != nullptr))) {
    return absl::UnimplementedError(absl::StrCat("unsupported model type \"", model_type,
                                                 "\" in tokenizer.json (only BPE is supported)"));
  }
  auto bpe = BpeModel::FromJson(*model);
  if (!bpe.ok()) return bpe.status();
  impl->model = *std::move(bpe);

  // Normalizer.
  if (const JsonValue* n = root.Find("normalizer"); n != nullptr && !n->is_null()) {
    auto norm = MakeNormalizer(*n);
    if (!norm.ok()) return norm.status();
    impl->normalizer = *std::move(norm);
  }

  // Pre-tokenizer.
  if (const JsonValue* p = root.Find("pre_tokenizer"); p != nullptr && !p->is_null()) {
    auto chain = MakePreTokenizerChain(*p);
    if (!chain.ok()) return chain.status();
    impl->pre_tokenizer = *std::move(chain);
  }

  // Post-processor.
  if (const JsonValue* p = root.Find("post_processor"); p != nullptr && !p->is_null()) {
    s = MakePostProcessor(*p, &impl->post_template);
    if (!s.ok()) return s;
  }

  // Decoder.
  if (const JsonValue* d = root.Find("decoder"); d != nullptr && !d->is_null()) {
    auto dec = MakeDecoder(*d);
    if (!dec.ok()) return dec.status();
    impl->decoder = *std::move(dec);
  }

  // Added tokens.
  if (const JsonValue* list = root.Find("added_tokens"); list != nullptr && list->is_array()) {
    s = impl->added.Load(*list, impl->normalizer.get());
    if (!s.ok()) return s;
  }
  impl->id_limit = std::max(impl->model->id_limit(), impl->added.id_limit());
  return std::unique_ptr<Tokenizer>(new Tokenizer(std::move(impl)));
}

}  // namespace tokenizer
}  // namespace oxinfer
