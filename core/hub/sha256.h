// SHA-256 of a file (OpenSSL), in lowercase hex: what the Hub's LFS metadata
// (X-Linked-Etag, siblings[].lfs.sha256) gives for a file's contents.
#ifndef OXINFER_CORE_HUB_SHA256_H_
#define OXINFER_CORE_HUB_SHA256_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace oxinfer::hub {

absl::StatusOr<std::string> Sha256OfFile(const std::string& path);
std::string Sha256OfBytes(absl::string_view bytes);

}  // namespace oxinfer::hub

#endif  // OXINFER_CORE_HUB_SHA256_H_
