// Whether the client of a request is still there. httplib 0.11 gives a
// handler no access to its socket, so the socket is found by its addresses
// (the request's local and remote address and port) among the process's
// open sockets, once per request; then a poll says whether the peer closed.
// Used to cancel a reply whose client left (a streamed reply also notices at
// its next write).
#ifndef OXINFER_TOOLS_SERVER_CLIENT_CONNECTION_H_
#define OXINFER_TOOLS_SERVER_CLIENT_CONNECTION_H_

#include <chrono>

#include "httplib.h"

namespace oxinfer::server {

class ClientConnection {
 public:
  explicit ClientConnection(const httplib::Request& req);

  // True once the peer has closed (or reset) the connection; checks the
  // socket at most every kCheckInterval, and says false when the socket was
  // not found.
  bool Gone();

 private:
  static constexpr std::chrono::milliseconds kCheckInterval{100};
  int fd_ = -1;
  bool gone_ = false;
  std::chrono::steady_clock::time_point next_check_{};
};

}  // namespace oxinfer::server

#endif  // OXINFER_TOOLS_SERVER_CLIENT_CONNECTION_H_
