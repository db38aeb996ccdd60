#include "tools/server/client_connection.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <cstdlib>
#include <string>

namespace oxinfer::server {
namespace {

// The address and port of a socket address, as text and number.
bool Describe(const sockaddr_storage& a, std::string* host, int* port) {
  char buf[INET6_ADDRSTRLEN] = {};
  if (a.ss_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(&a);
    inet_ntop(AF_INET, &in->sin_addr, buf, sizeof buf);
    *port = ntohs(in->sin_port);
  } else if (a.ss_family == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&a);
    inet_ntop(AF_INET6, &in6->sin6_addr, buf, sizeof buf);
    *port = ntohs(in6->sin6_port);
  } else {
    return false;
  }
  *host = buf;
  return true;
}

int FindSocket(const httplib::Request& req) {
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) return -1;
  int found = -1;
  while (dirent* e = readdir(dir)) {
    char* end = nullptr;
    const long fd = std::strtol(e->d_name, &end, 10);
    if (end == e->d_name || *end != '\0') continue;
    struct stat st;
    if (fstat(static_cast<int>(fd), &st) != 0 || !S_ISSOCK(st.st_mode)) continue;
    sockaddr_storage local = {}, peer = {};
    socklen_t local_len = sizeof local, peer_len = sizeof peer;
    if (getsockname(static_cast<int>(fd), reinterpret_cast<sockaddr*>(&local), &local_len) != 0 ||
        getpeername(static_cast<int>(fd), reinterpret_cast<sockaddr*>(&peer), &peer_len) != 0) {
      continue;
    }
    std::string local_host, peer_host;
    int local_port = 0, peer_port = 0;
    if (!Describe(local, &local_host, &local_port) || !Describe(peer, &peer_host, &peer_port)) {
      continue;
    }
    if (local_port == req.local_port && peer_port == req.remote_port &&
        peer_host == req.remote_addr) {
      found = static_cast<int>(fd);
      break;
    }
  }
  closedir(dir);
  return found;
}

}  // namespace

ClientConnection::ClientConnection(const httplib::Request& req) : fd_(FindSocket(req)) {}

bool ClientConnection::Gone() {
  if (gone_ || fd_ < 0) return gone_;
  const auto now = std::chrono::steady_clock::now();
  if (now < next_check_) return false;
  next_check_ = now + kCheckInterval;
  pollfd p = {fd_, POLLIN | POLLRDHUP, 0};
  if (poll(&p, 1, 0) <= 0) return false;
  if (p.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)) {
    gone_ = true;
  } else if (p.revents & POLLIN) {
    char c;
    // Data (a pipelined request) is not a close; end of stream is.
    gone_ = recv(fd_, &c, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
  }
  return gone_;
}

}  // namespace oxinfer::server
