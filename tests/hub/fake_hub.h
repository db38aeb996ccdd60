// A Hugging Face Hub on loopback for tests: the model-info API, the resolve
// endpoint (HEAD and GET, ETag, X-Repo-Commit, X-Linked-Etag / X-Linked-Size
// for LFS files) and a second server, the "CDN", that LFS downloads are
// redirected to. It misbehaves on request (Faults): cuts a connection
// mid-file, corrupts bytes, answers 416, 429 with Retry-After or 500, sends
// slowly, wants a token (gated), or lacks a file. It counts what it serves.
#ifndef OXINFER_TESTS_HUB_FAKE_HUB_H_
#define OXINFER_TESTS_HUB_FAKE_HUB_H_

#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace oxinfer::hub::testing {

struct FakeFile {
  std::string path;
  std::string bytes;
  bool lfs = false;
};

struct Faults {
  std::set<std::string> cut_once;        // first download stops half way (connection closed)
  std::set<std::string> corrupt_once;    // first download has a byte flipped
  std::set<std::string> corrupt_always;  // every download has a byte flipped
  std::set<std::string> range_416_once;  // first ranged download: 416
  std::set<std::string> missing;         // listed by the info API, 404 on resolve
  std::set<std::string> slow;            // sent 1 KiB at a time, 20 ms apart
  int rate_limit_downloads = 0;          // the first N downloads: 429, Retry-After: 1
  int server_errors = 0;                 // the first N downloads: 500
  std::string token;                     // gated: 401 without "Bearer <token>"
  bool log = false;                      // a line per download on stderr
};

class FakeHub {
 public:
  FakeHub();  // both servers listening on 127.0.0.1, ephemeral ports
  ~FakeHub();

  // A repository with `files` at `commit` (40 hex), named by `branch` too.
  void AddRepo(const std::string& repo_id, const std::string& commit,
               const std::vector<FakeFile>& files, const std::string& branch = "main");
  std::string endpoint() const;
  void SetFaults(const Faults& faults);

  // What was served: downloads (GET with a body) per path, Range headers
  // seen, the most downloads in flight at once, Authorization headers the
  // CDN received.
  int downloads(const std::string& path) const;
  int total_downloads() const;
  std::vector<std::string> ranges(const std::string& path) const;
  int max_in_flight() const;
  int cdn_authorizations() const;
  int info_requests() const;

  // The git blob id the Hub uses as a plain file's ETag.
  static std::string GitBlobId(const std::string& bytes);
  static std::string Sha256(const std::string& bytes);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace oxinfer::hub::testing

#endif  // OXINFER_TESTS_HUB_FAKE_HUB_H_
