#include "core/hub/sha256.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"

namespace oxinfer::hub {
namespace {

using Context = std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)>;

std::string Hex(const unsigned char* digest, unsigned n) {
  std::string out;
  for (unsigned i = 0; i < n; ++i) out += absl::StrFormat("%02x", digest[i]);
  return out;
}

}  // namespace

absl::StatusOr<std::string> Sha256OfFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return absl::NotFoundError(absl::StrFormat("cannot read %s: %s", path, std::strerror(errno)));
  }
  Context ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr);
  std::vector<char> buffer(1 << 20);
  while (true) {
    const ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      return absl::DataLossError(absl::StrFormat("reading %s: %s", path, std::strerror(err)));
    }
    if (n == 0) break;
    EVP_DigestUpdate(ctx.get(), buffer.data(), static_cast<size_t>(n));
  }
  ::close(fd);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned size = 0;
  EVP_DigestFinal_ex(ctx.get(), digest, &size);
  return Hex(digest, size);
}

std::string Sha256OfBytes(absl::string_view bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned size = 0;
  EVP_Digest(bytes.data(), bytes.size(), digest, &size, EVP_sha256(), nullptr);
  return Hex(digest, size);
}

}  // namespace oxinfer::hub
