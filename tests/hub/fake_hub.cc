#include "tests/hub/fake_hub.h"

#include <openssl/evp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/hub/http_client.h"
#include "httplib.h"
#include "nlohmann/json.hpp"

namespace oxinfer::hub::testing {
namespace {

std::string Digest(const EVP_MD* md, const std::string& bytes) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned n = 0;
  EVP_Digest(bytes.data(), bytes.size(), out, &n, md, nullptr);
  std::string hex;
  for (unsigned i = 0; i < n; ++i) hex += absl::StrFormat("%02x", out[i]);
  return hex;
}

struct Repo {
  std::string commit;
  std::map<std::string, std::string> refs;  // branch -> commit
  std::vector<FakeFile> files;
};

}  // namespace

struct FakeHub::Impl {
  httplib::Server hub, cdn;
  int hub_port = 0, cdn_port = 0;
  std::thread hub_thread, cdn_thread;
  mutable std::mutex mu;
  std::map<std::string, Repo> repos;
  Faults faults;
  std::map<std::string, int> downloads;
  std::map<std::string, std::vector<std::string>> ranges;
  int in_flight = 0, max_in_flight = 0, cdn_auth = 0, info = 0, total = 0;

  const FakeFile* Find(const std::string& repo_id, const std::string& rev, const std::string& path,
                       const Repo** repo) {
    auto r = repos.find(repo_id);
    if (r == repos.end()) return nullptr;
    if (rev != r->second.commit && r->second.refs.count(rev) == 0) return nullptr;
    *repo = &r->second;
    for (const FakeFile& f : r->second.files) {
      if (f.path == path) return &f;
    }
    return nullptr;
  }

  bool Authorized(const httplib::Request& req) {
    return faults.token.empty() ||
           req.get_header_value("Authorization") == "Bearer " + faults.token;
  }

  // Answers a download of `file`, applying the faults (mu held by caller).
  void Serve(const httplib::Request& req, httplib::Response& res, const FakeFile& file) {
    const std::string& path = file.path;
    const int n = ++downloads[path];
    ++total;
    if (req.has_header("Range")) ranges[path].push_back(req.get_header_value("Range"));
    if (faults.log) {
      std::fprintf(stderr, "download %s range=%s\n", path.c_str(),
                   req.get_header_value("Range").c_str());
      std::fflush(stderr);
    }
    if (total <= faults.rate_limit_downloads) {
      res.status = 429;
      res.set_header("Retry-After", "1");
      return;
    }
    if (total <= faults.rate_limit_downloads + faults.server_errors) {
      res.status = 500;
      return;
    }
    if (req.has_header("Range") && faults.range_416_once.erase(path) > 0) {
      res.status = 416;
      res.set_header("Content-Range", absl::StrCat("bytes */", file.bytes.size()));
      return;
    }
    std::string body = file.bytes;
    if (faults.corrupt_always.count(path) > 0 || (n == 1 && faults.corrupt_once.count(path))) {
      body[body.size() / 2] ^= 0x5a;
    }
    const bool cut = n == 1 && faults.cut_once.count(path) > 0;
    const bool slow = faults.slow.count(path) > 0;
    auto shared = std::make_shared<std::string>(std::move(body));
    res.set_header("ETag",
                   absl::StrCat("\"", file.lfs ? Sha256(file.bytes) : GitBlobId(file.bytes), "\""));
    res.set_content_provider(
        shared->size(), "application/octet-stream",
        [this, shared, cut, slow](size_t offset, size_t length, httplib::DataSink& sink) {
          {
            std::lock_guard<std::mutex> lock(mu);
            max_in_flight = std::max(max_in_flight, ++in_flight);
          }
          bool ok = true;
          size_t sent = 0;
          const size_t half = shared->size() / 2;
          while (ok && sent < length) {
            size_t chunk = std::min<size_t>(slow ? 1024 : 65536, length - sent);
            if (cut && offset + sent + chunk > half)
              chunk = half > offset + sent ? half - offset - sent : 0;
            if (chunk == 0) {
              ok = false;  // closes the connection mid-file
              break;
            }
            ok = sink.write(shared->data() + offset + sent, chunk);
            sent += chunk;
            if (slow) std::this_thread::sleep_for(std::chrono::milliseconds(20));
          }
          std::lock_guard<std::mutex> lock(mu);
          --in_flight;
          return ok;
        });
  }
};

FakeHub::FakeHub() : impl_(new Impl) {
  Impl* d = impl_.get();
  d->hub.Get(R"(/api/models/([^/]+/[^/]+)/revision/([^?]+))", [d](const httplib::Request& req,
                                                                  httplib::Response& res) {
    std::lock_guard<std::mutex> lock(d->mu);
    ++d->info;
    const std::string repo_id = req.matches[1];
    const std::string rev = httplib::detail::decode_url(req.matches[2], false);
    auto r = d->repos.find(repo_id);
    if (r == d->repos.end()) {
      res.status = 404;
      res.set_header("X-Error-Code", "RepoNotFound");
      return;
    }
    if (!d->Authorized(req)) {
      res.status = 401;
      res.set_header("X-Error-Code", "GatedRepo");
      res.set_header("X-Error-Message", "Access to model " + repo_id + " is restricted.");
      return;
    }
    if (rev != r->second.commit && r->second.refs.count(rev) == 0) {
      res.status = 404;
      res.set_header("X-Error-Code", "RevisionNotFound");
      return;
    }
    nlohmann::json siblings = nlohmann::json::array();
    for (const FakeFile& f : r->second.files) {
      nlohmann::json s = {
          {"rfilename", f.path}, {"size", f.bytes.size()}, {"blobId", GitBlobId(f.bytes)}};
      if (f.lfs) {
        s["lfs"] = {{"sha256", Sha256(f.bytes)}, {"size", f.bytes.size()}, {"pointerSize", 134}};
      }
      siblings.push_back(s);
    }
    nlohmann::json body = {{"id", repo_id}, {"sha", r->second.commit}, {"siblings", siblings}};
    res.set_content(body.dump(), "application/json");
  });
  d->hub.Get(R"(/([^/]+/[^/]+)/resolve/([^/]+)/(.+))", [d](const httplib::Request& req,
                                                           httplib::Response& res) {
    std::lock_guard<std::mutex> lock(d->mu);
    const std::string repo_id = req.matches[1];
    const std::string rev = httplib::detail::decode_url(req.matches[2], false);
    const std::string path = httplib::detail::decode_url(req.matches[3], false);
    if (!d->Authorized(req)) {
      res.status = 401;
      res.set_header("X-Error-Code", "GatedRepo");
      return;
    }
    const Repo* repo = nullptr;
    const FakeFile* file = d->Find(repo_id, rev, path, &repo);
    if (file == nullptr || d->faults.missing.count(path) > 0) {
      res.status = 404;
      res.set_header("X-Error-Code", repo == nullptr ? "RevisionNotFound" : "EntryNotFound");
      return;
    }
    res.set_header("X-Repo-Commit", repo->commit);
    if (file->lfs) {
      const std::string sha = Sha256(file->bytes);
      res.status = 302;
      res.set_header("X-Linked-Etag", absl::StrCat("\"", sha, "\""));
      res.set_header("X-Linked-Size", std::to_string(file->bytes.size()));
      res.set_header("ETag", absl::StrCat("\"", GitBlobId(file->bytes), "\""));
      res.set_header("Location", absl::StrFormat("http://127.0.0.1:%d/%s/%s?path=%s", d->cdn_port,
                                                 repo_id, sha, EscapeUrlSegment(path)));
      return;
    }
    if (req.method == "HEAD") {
      res.set_header("ETag", absl::StrCat("\"", GitBlobId(file->bytes), "\""));
      res.set_content(file->bytes, "application/octet-stream");
      return;
    }
    d->Serve(req, res, *file);
  });
  d->cdn.Get(R"(/([^/]+/[^/]+)/([0-9a-f]{64}))",
             [d](const httplib::Request& req, httplib::Response& res) {
               std::lock_guard<std::mutex> lock(d->mu);
               if (req.has_header("Authorization")) ++d->cdn_auth;
               const std::string repo_id = req.matches[1];
               auto r = d->repos.find(repo_id);
               const std::string path = req.get_param_value("path");
               if (r != d->repos.end()) {
                 for (const FakeFile& f : r->second.files) {
                   if (f.path == path && Sha256(f.bytes) == std::string(req.matches[2])) {
                     return d->Serve(req, res, f);
                   }
                 }
               }
               res.status = 404;
             });
  d->hub_port = d->hub.bind_to_any_port("127.0.0.1");
  d->cdn_port = d->cdn.bind_to_any_port("127.0.0.1");
  d->hub_thread = std::thread([d] { d->hub.listen_after_bind(); });
  d->cdn_thread = std::thread([d] { d->cdn.listen_after_bind(); });
  // The sockets already listen; wait for the accept loops so stop() finds them.
  while (!d->hub.is_running() || !d->cdn.is_running()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

FakeHub::~FakeHub() {
  impl_->hub.stop();
  impl_->cdn.stop();
  impl_->hub_thread.join();
  impl_->cdn_thread.join();
}

void FakeHub::AddRepo(const std::string& repo_id, const std::string& commit,
                      const std::vector<FakeFile>& files, const std::string& branch) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  Repo& r = impl_->repos[repo_id];
  r.commit = commit;
  r.refs[branch] = commit;
  r.files = files;
}

std::string FakeHub::endpoint() const {
  return absl::StrFormat("http://127.0.0.1:%d", impl_->hub_port);
}

void FakeHub::SetFaults(const Faults& faults) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->faults = faults;
}

int FakeHub::downloads(const std::string& path) const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  auto it = impl_->downloads.find(path);
  return it == impl_->downloads.end() ? 0 : it->second;
}

int FakeHub::total_downloads() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->total;
}

std::vector<std::string> FakeHub::ranges(const std::string& path) const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  auto it = impl_->ranges.find(path);
  return it == impl_->ranges.end() ? std::vector<std::string>{} : it->second;
}

int FakeHub::max_in_flight() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->max_in_flight;
}

int FakeHub::cdn_authorizations() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->cdn_auth;
}

int FakeHub::info_requests() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->info;
}

std::string FakeHub::GitBlobId(const std::string& bytes) {
  return Digest(EVP_sha1(), absl::StrCat("blob ", bytes.size(), std::string(1, '\0'), bytes));
}

std::string FakeHub::Sha256(const std::string& bytes) { return Digest(EVP_sha256(), bytes); }

}  // namespace oxinfer::hub::testing
