#include "core/hub/file_fetch.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"
#include "core/hub/file_lock.h"
#include "core/hub/hub_errors.h"
#include "core/hub/retrier.h"
#include "core/hub/sha256.h"

namespace oxinfer::hub {
namespace {

struct FileMetadata {
  std::string etag;
  int64_t size = -1;
  bool lfs = false;
  std::string download_url;
};

int64_t FileSize(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 ? st.st_size : -1;
}

absl::Status Errno(const std::string& what) {
  return absl::PermissionDeniedError(absl::StrFormat("%s: %s", what, std::strerror(errno)));
}

// "W/\"abc\"" -> "abc"; "" when not usable as a blob's file name.
std::string NormalizeEtag(std::string etag) {
  absl::string_view v = absl::StripAsciiWhitespace(etag);
  absl::ConsumePrefix(&v, "W/");
  absl::ConsumePrefix(&v, "\"");
  absl::ConsumeSuffix(&v, "\"");
  if (v.empty() || v.size() > 128) return "";
  for (const char c : v) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') return "";
  }
  return std::string(v);
}

absl::StatusOr<FileMetadata> Head(HttpClient& http, const HubSettings& settings,
                                  const RepoSpec& spec, const RepoFile& file, std::string url) {
  Retrier retry(settings);
  for (int hops = 0;;) {
    HttpRequest request;
    request.url = url;
    request.headers = AuthHeaders(settings);
    request.head = true;
    request.follow_redirects = false;
    request.connect_timeout_s = settings.connect_timeout_s;
    request.stall_timeout_s = settings.stall_timeout_s;
    absl::StatusOr<HttpResponse> r = http.Send(request);
    if (!r.ok()) {
      if (absl::IsUnavailable(r.status()) && retry.Again()) continue;
      return r.status();
    }
    if (r->status == 429 || r->status >= 500) {
      if (retry.Again(r->status == 429 ? RetryAfterSeconds(*r) : -1)) continue;
      return HubHttpError(*r, settings, spec, file.path);
    }
    if (r->status >= 400 || r->status < 200) return HubHttpError(*r, settings, spec, file.path);
    FileMetadata meta;
    const std::string linked = r->Header("x-linked-etag");
    const bool redirect = r->status >= 300 && r->status < 400;
    // The Hub answers a plain file with a redirect to itself (a renamed
    // repository, the resolve cache): follow those to learn the metadata.
    if (redirect && linked.empty() && absl::StartsWith(r->redirect_url, settings.endpoint) &&
        ++hops < 5) {
      url = r->redirect_url;
      continue;
    }
    meta.lfs = !linked.empty();
    meta.etag = NormalizeEtag(meta.lfs ? linked : r->Header("etag"));
    const std::string size = !r->Header("x-linked-size").empty() ? r->Header("x-linked-size")
                                                                 : r->Header("content-length");
    if (meta.etag.empty() || !absl::SimpleAtoi(size, &meta.size) || meta.size < 0) {
      return absl::FailedPreconditionError(absl::StrFormat(
          "%s@%s: %s: the Hub's answer has no usable ETag or size (ETag '%s', size '%s'); is "
          "HF_ENDPOINT (%s) a Hugging Face Hub?",
          spec.repo_id, spec.revision, file.path, r->Header("etag"), size, settings.endpoint));
    }
    if (meta.lfs && meta.etag.size() != 64) {
      return absl::FailedPreconditionError(
          absl::StrFormat("%s: X-Linked-Etag '%s' is not a sha256", file.path, meta.etag));
    }
    meta.download_url = redirect ? r->redirect_url : url;
    if (meta.download_url.empty()) {
      return absl::FailedPreconditionError(
          absl::StrFormat("%s: HTTP %d without a Location", file.path, r->status));
    }
    return meta;
  }
}

// One GET of the bytes from `have` on, appended to the open `fd`.
struct Attempt {
  absl::Status transport;  // UNAVAILABLE: retry; other: fatal
  HttpResponse response;   // when transport is OK
  int64_t end = 0;         // the file's size afterwards
};

Attempt GetFrom(HttpClient& http, const HubSettings& settings, const FileMetadata& meta, int fd,
                int64_t have, const std::function<void(int64_t)>& report) {
  Attempt a;
  a.end = have;
  bool first = true;
  HttpClient::Sink sink = [&](const HttpResponse& head, absl::string_view bytes) -> absl::Status {
    if (head.status != 200 && head.status != 206) return absl::OkStatus();  // an error page
    if (first) {
      first = false;
      int64_t start = 0;
      if (head.status == 206) {
        // "bytes START-END/TOTAL" must start where the file stops.
        const std::string header = head.Header("content-range");
        absl::string_view range = header;
        absl::ConsumePrefix(&range, "bytes ");
        if (!absl::SimpleAtoi(range.substr(0, range.find('-')), &start) || start != have) {
          return absl::DataLossError(
              absl::StrFormat("Content-Range '%s' does not start at %d", range, have));
        }
      }
      if (start != a.end) {  // 200: the server sent the whole file again
        if (::ftruncate(fd, 0) != 0) return Errno("truncating");
        a.end = 0;
        report(0);
      }
      if (::lseek(fd, a.end, SEEK_SET) < 0) return Errno("seeking");
    }
    if (a.end + static_cast<int64_t>(bytes.size()) > meta.size) {
      return absl::DataLossError(
          absl::StrFormat("the server sent more than the %d bytes announced", meta.size));
    }
    while (!bytes.empty()) {
      const ssize_t n = ::write(fd, bytes.data(), bytes.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return Errno("writing");
      bytes.remove_prefix(static_cast<size_t>(n));
      a.end += n;
    }
    report(a.end);
    return absl::OkStatus();
  };
  HttpRequest request;
  request.url = meta.download_url;
  request.range_start = have > 0 ? have : -1;
  request.connect_timeout_s = settings.connect_timeout_s;
  request.stall_timeout_s = settings.stall_timeout_s;
  // The token goes to the Hub only: curl would forward it on a redirect to
  // the same host at another port, so redirects from the Hub are followed
  // here, without it.
  const bool to_hub = absl::StartsWith(request.url, settings.endpoint + "/");
  if (to_hub) request.headers = AuthHeaders(settings);
  request.follow_redirects = !to_hub || request.headers.empty();
  absl::StatusOr<HttpResponse> r = http.Send(request, sink);
  if (r.ok() && r->status >= 300 && r->status < 400 && !request.follow_redirects) {
    request.url = r->redirect_url;
    request.headers.clear();
    request.follow_redirects = true;
    r = http.Send(request, sink);
  }
  if (!r.ok()) {
    a.transport = r.status();
    // A short or wrong Content-Range is the server's fault: start over.
    if (absl::IsDataLoss(r.status())) a.transport = absl::UnavailableError(r.status().message());
    return a;
  }
  a.response = std::move(*r);
  return a;
}

// Checks the finished bytes, then moves them into blobs/.
absl::Status Verify(const FileMetadata& meta, const std::string& incomplete, bool* corrupt) {
  *corrupt = false;
  const int64_t size = FileSize(incomplete);
  if (size != meta.size) {
    *corrupt = true;
    return absl::DataLossError(absl::StrFormat("%d bytes, expected %d", size, meta.size));
  }
  if (meta.lfs) {
    absl::StatusOr<std::string> sha = Sha256OfFile(incomplete);
    if (!sha.ok()) return sha.status();
    if (*sha != meta.etag) {
      *corrupt = true;
      return absl::DataLossError(absl::StrFormat("sha256 %s, expected %s", *sha, meta.etag));
    }
  }
  return absl::OkStatus();
}

absl::Status Commit(const std::string& incomplete, const std::string& blob) {
  const int fd = ::open(incomplete.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0 || ::fsync(fd) != 0) {
    if (fd >= 0) ::close(fd);
    return Errno("syncing " + incomplete);
  }
  ::close(fd);
  if (::rename(incomplete.c_str(), blob.c_str()) != 0) return Errno("renaming to " + blob);
  const std::string folder = blob.substr(0, blob.rfind('/'));
  const int dir = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
  return absl::OkStatus();
}

absl::Status Download(HttpClient& http, const HubSettings& settings, const RepoSpec& spec,
                      const RepoFile& file, const FileMetadata& meta, const std::string& incomplete,
                      const std::function<void(int64_t)>& report) {
  Retrier retry(settings);
  int corrupt_copies = 0;
  absl::Status last;
  while (true) {
    int64_t have = std::max<int64_t>(0, FileSize(incomplete));
    const int fd = ::open(incomplete.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return Errno("cannot write " + incomplete);
    if (have > meta.size) {  // not a prefix of this file: start over
      if (::ftruncate(fd, 0) != 0) {
        ::close(fd);
        return Errno("truncating " + incomplete);
      }
      have = 0;
    }
    report(have);
    bool verify = have == meta.size;
    if (!verify) {
      Attempt a = GetFrom(http, settings, meta, fd, have, report);
      ::close(fd);
      if (!a.transport.ok()) {
        if (!absl::IsUnavailable(a.transport)) return a.transport;
        last = a.transport;
        if (retry.Again()) continue;
        return absl::UnavailableError(absl::StrFormat("%s@%s: %s: gave up after %d attempts: %s",
                                                      spec.repo_id, spec.revision, file.path,
                                                      retry.attempts(), last.message()));
      }
      const long status = a.response.status;
      if (status == 416) {
        // Nothing left to send from `have`: complete if the size is right,
        // else the partial file is not this file's prefix.
        if (have != meta.size && ::truncate(incomplete.c_str(), 0) != 0) {
          return Errno("truncating " + incomplete);
        }
        if (have == meta.size) {
          verify = true;
        } else if (retry.Again()) {
          continue;
        } else {
          return HubHttpError(a.response, settings, spec, file.path);
        }
      } else if (status == 429 || status >= 500) {
        if (retry.Again(status == 429 ? RetryAfterSeconds(a.response) : -1)) continue;
        return HubHttpError(a.response, settings, spec, file.path);
      } else if (status != 200 && status != 206) {
        return HubHttpError(a.response, settings, spec, file.path);
      } else if (a.end < meta.size) {  // closed early without an error
        if (retry.Again()) continue;
        return absl::UnavailableError(
            absl::StrFormat("%s: the download keeps stopping early", file.path));
      }
    } else {
      ::close(fd);
    }
    bool corrupt = false;
    absl::Status ok = Verify(meta, incomplete, &corrupt);
    if (ok.ok()) return absl::OkStatus();
    if (!corrupt) return ok;
    ::unlink(incomplete.c_str());
    report(0);
    if (++corrupt_copies < 3) continue;
    return absl::DataLossError(absl::StrFormat(
        "%s@%s: %s: the downloaded bytes failed verification %d times (%s); nothing was kept "
        "in the cache",
        spec.repo_id, spec.revision, file.path, corrupt_copies, ok.message()));
  }
}

}  // namespace

absl::Status FetchFile(HttpClient& http, const HubSettings& settings, const RepoCache& cache,
                       const RepoSpec& spec, const std::string& commit, const RepoFile& file,
                       const BytesDelta& on_bytes) {
  const std::string url = absl::StrCat(settings.endpoint, "/", spec.repo_id, "/resolve/", commit,
                                       "/", EscapeUrlPath(file.path));
  absl::StatusOr<FileMetadata> meta = Head(http, settings, spec, file, url);
  if (!meta.ok()) return meta.status();
  if (!file.lfs_sha256.empty() && meta->lfs && file.lfs_sha256 != meta->etag) {
    return absl::DataLossError(
        absl::StrFormat("%s: the Hub's model info (sha256 %s) and its file headers (%s) disagree",
                        file.path, file.lfs_sha256, meta->etag));
  }
  int64_t reported = 0;
  auto report = [&](int64_t now) {
    on_bytes(now - reported);
    reported = now;
  };
  const std::string blob = cache.BlobPath(meta->etag);
  absl::Status s = MakeDirectories(cache.root() + "/blobs");
  if (!s.ok()) return s;
  if (FileSize(blob) != meta->size) {
    absl::StatusOr<FileLock> lock = FileLock::Acquire(cache.LockPath(meta->etag));
    if (!lock.ok()) return lock.status();
    // Another process may have finished it while we waited.
    if (FileSize(blob) != meta->size) {
      s = Download(http, settings, spec, file, *meta, cache.IncompletePath(meta->etag), report);
      if (s.ok()) s = Commit(cache.IncompletePath(meta->etag), blob);
      if (!s.ok()) return s;
    }
  }
  report(meta->size);
  return cache.LinkSnapshotFile(commit, file.path, meta->etag);
}

}  // namespace oxinfer::hub
