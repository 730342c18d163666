#include "test_util.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <regex>
#include <sstream>

namespace tt::test {

RunResult RunCmd(const std::vector<std::string>& argv,
                 const std::map<std::string, std::string>& env, int timeout_s) {
  RunResult r;
  int out[2], err[2];
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) return r;
  pid_t pid = fork();
  if (pid == 0) {
    dup2(out[1], 1);
    dup2(err[1], 2);
    for (const auto& [k, v] : env) setenv(k.c_str(), v.c_str(), 1);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  close(out[1]);
  close(err[1]);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  int open_fds = 2;
  bool killed = false;
  while (open_fds > 0) {
    int ms = static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                  deadline - std::chrono::steady_clock::now())
                                  .count());
    if (ms <= 0) {
      kill(pid, SIGKILL);
      killed = true;
      break;
    }
    if (poll(fds, 2, ms) <= 0) continue;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP))) continue;
      char buf[65536];
      ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n <= 0) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      } else {
        (i == 0 ? r.out : r.err).append(buf, static_cast<size_t>(n));
      }
    }
  }
  for (auto& f : fds)
    if (f.fd >= 0) close(f.fd);
  int st = 0;
  waitpid(pid, &st, 0);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  if (killed) r.err += "\n[test harness: killed after timeout]";
  return r;
}

TempDir::TempDir() {
  std::string base = std::filesystem::temp_directory_path().string() + "/tt-test-XXXXXX";
  std::vector<char> buf(base.begin(), base.end());
  buf.push_back(0);
  path_ = mkdtemp(buf.data());
}

TempDir::~TempDir() {
  std::error_code ec;
  if (!std::getenv("TT_KEEP_TEMP")) std::filesystem::remove_all(path_, ec);
}

int64_t RecordedPid(const std::string& trace) {
  for (const auto& e : std::filesystem::directory_iterator(trace)) {
    std::string n = e.path().filename();
    if (n.size() > 1 && n[0] == 'p' && n.find_first_not_of("0123456789", 1) == std::string::npos)
      return std::stoll(n.substr(1));
  }
  return -1;
}

size_t CountLines(const std::string& s) {
  size_t n = 0;
  for (char c : s) n += c == '\n';
  if (!s.empty() && s.back() != '\n') ++n;
  return n;
}

bool HaveBabeltrace() { return RunCmd({"babeltrace2", "--version"}).status == 0; }

std::vector<std::string> ProgramObjects(const std::string& out) {
  std::vector<std::string> objects;
  for (size_t at = out.find("{\"program\""); at != std::string::npos;
       at = out.find("{\"program\"", at + 1)) {
    int depth = 0;
    bool in_string = false;
    for (size_t i = at; i < out.size(); ++i) {
      char c = out[i];
      if (in_string) {
        if (c == '\\')
          ++i;
        else if (c == '"')
          in_string = false;
      } else if (c == '"') {
        in_string = true;
      } else if (c == '{' || c == '[') {
        ++depth;
      } else if ((c == '}' || c == ']') && --depth == 0) {
        objects.push_back(out.substr(at, i + 1 - at));
        at = i;
        break;
      }
    }
  }
  return objects;
}

std::map<std::string, int64_t> Said(const std::string& out) {
  std::map<std::string, int64_t> said;
  std::istringstream in(out);
  std::string key;
  int64_t v;
  while (in >> key >> v) said[key] = v;
  return said;
}

}  // namespace tt::test

namespace tt::test {

int Spawn(const std::vector<std::string>& argv, int* out_fd,
          const std::map<std::string, std::string>& env) {
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) return -1;
  pid_t pid = fork();
  if (pid == 0) {
    dup2(out[1], 1);
    for (const auto& [k, v] : env) setenv(k.c_str(), v.c_str(), 1);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  close(out[1]);
  *out_fd = out[0];
  return pid;
}

std::string ReadLine(int fd, int timeout_s) {
  std::string line;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 100) <= 0) continue;
    char c;
    if (read(fd, &c, 1) != 1) break;
    if (c == '\n') break;
    line += c;
  }
  return line;
}

int Wait(int pid) {
  int st = 0;
  waitpid(pid, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

const std::string& Python() {
  static const std::string exe = [] {
    auto r = RunCmd({"python3", "-c", "import sys; print(sys.executable)"});
    std::string s = r.status == 0 ? r.out : "";
    while (!s.empty() && s.back() == '\n') s.pop_back();
    return s;
  }();
  return exe;
}

bool HaveModule(const std::string& module) {
  if (Python().empty()) return false;
  return RunCmd({Python(), "-c",
                 "import importlib.util, sys; sys.exit(importlib.util.find_spec('" + module +
                     "') is None)"})
             .status == 0;
}

std::string Program(const std::string& name) {
  return std::string(TT_SOURCE_DIR) + "/tests/programs/" + name;
}

bool RunInNetworkNamespace(const std::vector<std::string>& command,
                           const std::map<std::string, std::string>& env, int timeout_s,
                           RunResult* r) {
  if (RunCmd({"unshare", "-n", "true"}).status != 0) return false;
  std::vector<std::string> argv = {"unshare", "-n", "sh", "-c", "ip link set lo up && exec \"$@\"",
                                   "sh"};
  argv.insert(argv.end(), command.begin(), command.end());
  *r = RunCmd(argv, env, timeout_s);
  return true;
}

void RecordClockJob(const std::string& program, const TempDir& d, int64_t shift_ns,
                    int collectives) {
  std::filesystem::create_directories(d / "fifos");
  for (const char* f : {"0to1", "1to0"})
    ASSERT_EQ(mkfifo((d / "fifos/" + f).c_str(), 0600), 0) << f;
  int pids[2], fds[2];
  for (int r = 0; r < 2; ++r) {
    std::string dir = d / ("r" + std::to_string(r));
    std::filesystem::create_directories(dir);
    std::map<std::string, std::string> env = {
        {"TENSORTRACE_DIR", dir}, {"RANK", std::to_string(r)}, {"TT_CLOCK_FIFOS", d / "fifos"}};
    if (r == 1) env["TENSORTRACE_TEST_CLOCK_SHIFT_NS"] = std::to_string(shift_ns);
    pids[r] = Spawn({program, std::to_string(collectives)}, &fds[r], env);
  }
  for (int r = 0; r < 2; ++r) {
    EXPECT_EQ(Wait(pids[r]), 0) << "rank " << r;
    close(fds[r]);
  }
}

std::vector<std::vector<std::string>> HtmlTable(const std::string& html, const std::string& id) {
  std::vector<std::vector<std::string>> rows;
  size_t at = html.find("<table id=\"" + id + "\">");
  EXPECT_NE(at, std::string::npos) << id;
  if (at == std::string::npos) return rows;
  std::string t = html.substr(at, html.find("</table>", at) - at);
  std::regex row("<tr>(.*?)</tr>"), cell("<td[^>]*>(.*?)</td>");
  for (std::sregex_iterator it(t.begin(), t.end(), row), end; it != end; ++it) {
    std::string r = (*it)[1];
    std::vector<std::string> cells;
    for (std::sregex_iterator c(r.begin(), r.end(), cell); c != end; ++c) cells.push_back((*c)[1]);
    if (!cells.empty()) rows.push_back(cells);
  }
  return rows;
}

}  // namespace tt::test
