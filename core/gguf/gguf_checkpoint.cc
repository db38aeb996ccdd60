#include "core/gguf/gguf_checkpoint.h"

#include <cstdio>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "core/gguf/gguf_mapping.h"
#include "core/gguf/gguf_tokenizer.h"

namespace oxinfer::gguf {

bool IsGgufFile(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return false;
  char magic[4] = {};
  const bool ok = std::fread(magic, 1, 4, f) == 4 && std::memcmp(magic, "GGUF", 4) == 0;
  std::fclose(f);
  return ok;
}

absl::StatusOr<std::unique_ptr<GgufCheckpoint>> OpenGgufCheckpoint(const std::string& path,
                                                                   LoadMode mode, bool tensors) {
  auto c = std::make_unique<GgufCheckpoint>();
  c->source = path;
  absl::StatusOr<std::shared_ptr<const MappedFile>> file = MappedFile::Open(path, mode);
  if (!file.ok()) return file.status();
  c->file = *std::move(file);
  absl::StatusOr<GgufHeader> header = ParseGguf(c->file->view(), path);
  if (!header.ok()) return header.status();
  c->header = *std::move(header);
  GgufMapping m(c.get(), tensors);
  absl::StatusOr<std::string> arch = m.String("general.architecture");
  if (!arch.ok()) return arch.status();
  c->architecture = *arch;
  absl::Status s;
  if (*arch == "qwen35") {
    s = MapQwen35(m, c.get());
  } else if (*arch == "gemma4") {
    s = MapGemma4(m, c.get());
  } else {
    s = absl::UnimplementedError(
        absl::StrCat(path, ": general.architecture: '", *arch,
                     "' is not an architecture oxinfer reads from GGUF (qwen35, gemma4)"));
  }
  if (!s.ok()) return s;
  if (absl::Status t = MapTokenizer(m, c.get()); !t.ok()) return t;
  return c;
}

}  // namespace oxinfer::gguf
