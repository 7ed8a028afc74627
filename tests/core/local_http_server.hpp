// A tiny HTTP/1.1 server on 127.0.0.1 (ephemeral port) for download tests.
// One connection at a time, "Connection: close" after every response.
// Supports GET, "Range: bytes=N-" (206 / 416), and faults: drop the
// connection after N body bytes (or stall there), ignore Range, answer a
// fixed error status.
// Every socket operation is bounded by a 5 s timeout; the destructor stops
// the thread. Header-only so the test glob (tests/core/*_test.cpp) needs no
// extra source file.
#pragma once
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace milabench::testing {

struct Route {
  std::string body;
  long drop_after = -1;     // close the connection after this many body bytes (-1: never)
  int drops = 1;            // how many responses are cut this way (then served whole)
  bool honor_range = true;  // false: answer 200 with the whole body even to Range requests
  int status = 200;         // != 200: answer this status with a short text body
  bool stall = false;       // with drop_after: then stay silent until the client hangs up (a stalled peer; 60 s cap)
};

struct RequestLog {
  std::string path;
  std::string range;  // value of the Range header, "" when absent
};

class LocalHttpServer {
 public:
  LocalHttpServer() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd_ < 0) throw std::runtime_error("test server: socket() failed");
    int one = 1;
    ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd_, 8) != 0)
      throw std::runtime_error("test server: bind/listen on 127.0.0.1 failed");
    socklen_t len = sizeof addr;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { loop(); });
  }
  ~LocalHttpServer() {
    stop_ = true;
    thread_.join();
    ::close(fd_);
  }
  LocalHttpServer(const LocalHttpServer&) = delete;
  LocalHttpServer& operator=(const LocalHttpServer&) = delete;

  void add(const std::string& path, Route r) {
    std::lock_guard<std::mutex> g(mu_);
    routes_[path] = std::move(r);
  }
  std::string url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(port_) + path; }
  std::vector<RequestLog> requests() const {
    std::lock_guard<std::mutex> g(mu_);
    return log_;
  }

 private:
  void loop() {
    while (!stop_) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) continue;
      timeval tv{5, 0};
      ::setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
      ::setsockopt(c, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
      serve(c);
      ::close(c);
    }
  }

  static bool send_all(int c, const char* data, std::size_t n) {
    while (n > 0) {
      ssize_t k = ::send(c, data, n, MSG_NOSIGNAL);
      if (k <= 0) return false;
      data += k;
      n -= static_cast<std::size_t>(k);
    }
    return true;
  }

  static std::string header_value(const std::string& head, const std::string& name) {
    auto at = head.find("\r\n" + name + ":");
    if (at == std::string::npos) return "";
    at += name.size() + 3;
    auto end = head.find("\r\n", at);
    std::string v = head.substr(at, end - at);
    while (!v.empty() && v.front() == ' ') v.erase(0, 1);
    return v;
  }

  void serve(int c) {
    std::string head;
    char buf[4096];
    while (head.find("\r\n\r\n") == std::string::npos && head.size() < 65536) {
      ssize_t k = ::recv(c, buf, sizeof buf, 0);
      if (k <= 0) return;
      head.append(buf, static_cast<std::size_t>(k));
    }
    auto sp1 = head.find(' ');
    auto sp2 = head.find(' ', sp1 + 1);
    std::string path = head.substr(sp1 + 1, sp2 - sp1 - 1);
    std::string range = header_value(head, "Range");
    Route route;
    bool found;
    bool cut = false;
    {
      std::lock_guard<std::mutex> g(mu_);
      log_.push_back({path, range});
      auto it = routes_.find(path);
      found = it != routes_.end();
      if (found) {
        route = it->second;
        cut = route.drop_after >= 0 && it->second.drops > 0;
        if (cut) --it->second.drops;
      }
    }
    if (!found || route.status != 200) {
      int status = found ? route.status : 404;
      std::string msg = "error " + std::to_string(status) + "\n";
      std::string resp = "HTTP/1.1 " + std::to_string(status) +
                         " Error\r\nContent-Length: " + std::to_string(msg.size()) + "\r\nConnection: close\r\n\r\n" +
                         msg;
      send_all(c, resp.data(), resp.size());
      return;
    }
    const std::string& body = route.body;
    std::size_t start = 0;
    std::string status = "200 OK", extra;
    if (!range.empty() && route.honor_range && range.rfind("bytes=", 0) == 0) {
      start = std::stoull(range.substr(6));
      if (start >= body.size()) {
        std::string resp = "HTTP/1.1 416 Range Not Satisfiable\r\nContent-Range: bytes */" +
                           std::to_string(body.size()) + "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
        send_all(c, resp.data(), resp.size());
        return;
      }
      status = "206 Partial Content";
      extra = "Content-Range: bytes " + std::to_string(start) + "-" + std::to_string(body.size() - 1) + "/" +
              std::to_string(body.size()) + "\r\n";
    }
    std::size_t n = body.size() - start;
    std::string resp = "HTTP/1.1 " + status + "\r\nContent-Length: " + std::to_string(n) +
                       "\r\nAccept-Ranges: bytes\r\n" + extra + "Connection: close\r\n\r\n";
    if (!send_all(c, resp.data(), resp.size())) return;
    std::size_t send_n = cut ? std::min<std::size_t>(n, static_cast<std::size_t>(route.drop_after)) : n;
    send_all(c, body.data() + start, send_n);
    if (cut && route.stall) wait_for_hangup(c);
  }

  // Returns when the client closed its end of `c`, on a socket error, when
  // the server stops, or after 60 s (then the client sees a closed
  // connection, not a stall: only a client that never gives up meets it).
  void wait_for_hangup(int c) {
    char buf[256];
    for (int i = 0; i < 1200 && !stop_; ++i) {
      pollfd p{c, POLLIN, 0};
      int n = ::poll(&p, 1, 50);
      if (n < 0) return;
      if (n > 0 && ::recv(c, buf, sizeof buf, 0) <= 0) return;
    }
  }

  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  mutable std::mutex mu_;
  std::map<std::string, Route> routes_;
  std::vector<RequestLog> log_;
};

}  // namespace milabench::testing
