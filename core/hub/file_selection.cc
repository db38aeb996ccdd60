#include "core/hub/file_selection.h"

#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace oxinfer::hub {
namespace {

// Metadata files read by the engine or a plugin, by name.
const char* const kTextFiles[] = {
    "config.json",
    "generation_config.json",
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "added_tokens.json",
    "tokenizer.model",
    "vocab.json",
    "merges.txt",
    "chat_template.jinja",
    "chat_template.json",
    "preprocessor_config.json",
    "processor_config.json",
    "scheduler_config.json",
    "model_index.json",
};

bool IsWeights(const std::string& name) {
  return absl::EndsWith(name, ".safetensors") || absl::EndsWith(name, ".safetensors.index.json");
}

bool IsWanted(const std::string& name) {
  for (const char* f : kTextFiles) {
    if (name == f) return true;
  }
  return IsWeights(name);
}

// "a/b.fp16.safetensors" -> "a/b.safetensors" (diffusers' variants); ""
// when `path` is no variant.
std::string PlainOfVariant(const std::string& path) {
  for (const char* ext : {".safetensors.index.json", ".safetensors"}) {
    if (!absl::EndsWith(path, ext)) continue;
    const std::string stem = path.substr(0, path.size() - std::string(ext).size());
    const size_t dot = stem.rfind('.');
    const size_t slash = stem.rfind('/');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
    return absl::StrCat(stem.substr(0, dot), ext);
  }
  return "";
}

std::string FolderOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash);
}

std::string NameOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::vector<RepoFile> SelectModelFiles(const std::vector<RepoFile>& files) {
  std::set<std::string> all;
  for (const RepoFile& f : files) all.insert(f.path);
  const bool diffusers = all.count("model_index.json") > 0;
  if (!diffusers && all.count("config.json") == 0) return {};
  std::vector<RepoFile> out;
  for (const RepoFile& f : files) {
    const std::string folder = FolderOf(f.path);
    const std::string name = NameOf(f.path);
    // transformers: top level only; diffusers: one component folder deep,
    // and nothing but model_index.json at the top.
    if (diffusers ? (folder.empty() ? name != "model_index.json" : absl::StrContains(folder, '/'))
                  : !folder.empty()) {
      continue;
    }
    if (!IsWanted(name)) continue;
    const std::string plain = PlainOfVariant(f.path);
    if (!plain.empty() && all.count(plain) > 0) continue;
    out.push_back(f);
  }
  return out;
}

}  // namespace oxinfer::hub
