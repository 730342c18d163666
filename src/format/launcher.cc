#include "format/launcher.h"

#include <charconv>
#include <cstdio>
#include <string_view>

namespace tt {

namespace {

bool ToInt(const char* s, int64_t* out) {
  if (!s || !*s) return false;
  std::string_view v(s);
  auto r = std::from_chars(v.data(), v.data() + v.size(), *out);
  return r.ec == std::errc() && r.ptr == v.data() + v.size() && *out >= 0;
}

// Where `"key"` stands as an object key (followed by a colon), or npos.
size_t FindKey(std::string_view c, std::string_view key, size_t from = 0) {
  std::string quoted = "\"" + std::string(key) + "\"";
  for (size_t at = c.find(quoted, from); at != c.npos; at = c.find(quoted, at + 1)) {
    size_t next = c.find_first_not_of(" \t\r\n", at + quoted.size());
    if (next != c.npos && c[next] == ':') return at;
  }
  return c.npos;
}

// The string value after the key at `at`, or "".
std::string_view StringAfter(std::string_view c, size_t at) {
  size_t q1 = at == c.npos ? c.npos : c.find('"', c.find(':', at));
  size_t q2 = q1 == c.npos ? c.npos : c.find('"', q1 + 1);
  return q2 == c.npos ? std::string_view() : c.substr(q1 + 1, q2 - q1 - 1);
}

// TF_CONFIG's task and the size of its cluster's worker list, read without a JSON parser (the
// runtime links none): {"cluster": {"chief": [...], "worker": ["h:p", ...]}, "task": {"type":
// "worker", "index": 1}}. With a chief it is rank 0 and worker k rank k + 1.
bool FromTfConfig(std::string_view c, LauncherRank* r) {
  size_t task = FindKey(c, "task");
  size_t index = task == c.npos ? c.npos : FindKey(c, "index", task);
  size_t digits = index == c.npos ? c.npos : c.find_first_of("0123456789", index + 7);
  if (digits == c.npos) return false;
  int64_t i = 0;
  std::from_chars(c.data() + digits, c.data() + c.size(), i);
  std::string_view type = StringAfter(c, FindKey(c, "type", task));
  int64_t chiefs = FindKey(c, "chief") != c.npos ? 1 : 0;
  int64_t workers = 0;
  if (size_t w = FindKey(c, "worker"); w != c.npos) {
    size_t open = c.find('[', w), close = c.find(']', w);
    if (open != c.npos && close != c.npos && open < close &&
        c.substr(open + 1, close - open - 1).find('"') != c.npos) {
      workers = 1;
      for (size_t p = c.find(',', open); p != c.npos && p < close; p = c.find(',', p + 1))
        workers++;
    }
  }
  r->rank = type == "chief" ? 0 : i + (type == "worker" ? chiefs : 0);
  if (workers + chiefs > 0) r->world_size = workers + chiefs;
  r->source = "TF_CONFIG";
  return true;
}

// The text of the object after the key at `at` ("{...}", braces balanced), or "".
std::string_view ObjectAfter(std::string_view c, size_t at) {
  size_t open = at == c.npos ? c.npos : c.find('{', at);
  if (open == c.npos) return {};
  int depth = 0;
  for (size_t i = open; i < c.size(); ++i) {
    depth += c[i] == '{' ? 1 : c[i] == '}' ? -1 : 0;
    if (depth == 0) return c.substr(open, i - open + 1);
  }
  return {};
}

// `v` as one part's value: white space and '=' made '_'; long values (a cluster spec) hashed.
std::string PartValue(std::string_view v, bool strip_space = false) {
  std::string out;
  for (char ch : v) {
    bool space = ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n';
    if (space && strip_space) continue;
    out += space || ch == '=' ? '_' : ch;
  }
  if (out.size() <= 160) return out;
  uint64_t h = 14695981039346656037ull;  // FNV-1a
  for (unsigned char ch : out) h = (h ^ ch) * 1099511628211ull;
  char hex[20];
  std::snprintf(hex, sizeof hex, "#%016llx", static_cast<unsigned long long>(h));
  return hex;
}

}  // namespace

LauncherRank RankFromEnvironment(const std::function<const char*(const char*)>& getenv) {
  LauncherRank r;
  struct Launcher {
    const char *rank, *local, *size;
  };
  static constexpr Launcher kLaunchers[] = {
      {"RANK", "LOCAL_RANK", "WORLD_SIZE"},
      {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_SIZE"},
      {"PMI_RANK", "MPI_LOCALRANKID", "PMI_SIZE"},
      {"SLURM_PROCID", "SLURM_LOCALID", "SLURM_NTASKS"},
  };
  for (const auto& l : kLaunchers) {
    if (!ToInt(getenv(l.rank), &r.rank)) continue;
    if (!ToInt(getenv(l.local), &r.local_rank)) r.local_rank = -1;
    if (!ToInt(getenv(l.size), &r.world_size)) r.world_size = -1;
    r.source = l.rank;
    return r;
  }
  r = LauncherRank{};
  if (const char* c = getenv("TF_CONFIG"); c && FromTfConfig(c, &r)) return r;
  return LauncherRank{};
}

std::string JobFromEnvironment(const std::function<const char*(const char*)>& getenv) {
  auto get = [&](const char* k) -> std::string_view {
    const char* v = getenv(k);
    return v ? v : "";
  };
  std::string job;
  auto add = [&](const char* key, const std::string& value) {
    if (!value.empty()) job += (job.empty() ? "" : " ") + std::string(key) + "=" + value;
  };
  if (std::string_view run = get("TORCHELASTIC_RUN_ID"); run != "none")
    add("torchrun", PartValue(run));
  if (!get("MASTER_ADDR").empty() && !get("MASTER_PORT").empty())
    add("rendezvous",
        PartValue(std::string(get("MASTER_ADDR")) + ":" + std::string(get("MASTER_PORT"))));
  for (const char* k : {"PMIX_NAMESPACE", "OMPI_MCA_ess_base_jobid", "OMPI_MCA_orte_ess_jobid"})
    if (!get(k).empty()) {
      add("mpi", PartValue(get(k)));
      break;
    }
  if (std::string_view id = get("SLURM_JOB_ID"); !id.empty()) {
    std::string step(get("SLURM_STEP_ID"));
    add("slurm", PartValue(std::string(id) + (step.empty() ? "" : "." + step)));
  }
  std::string_view tf = get("TF_CONFIG");
  add("tf_cluster", PartValue(ObjectAfter(tf, FindKey(tf, "cluster")), true));
  add("jax", PartValue(get("JAX_COORDINATOR_ADDRESS")));
  return job;
}

std::map<std::string, std::string> JobParts(const std::string& job) {
  std::map<std::string, std::string> parts;
  size_t at = 0;
  while (at < job.size()) {
    size_t end = job.find(' ', at);
    if (end == std::string::npos) end = job.size();
    std::string part = job.substr(at, end - at);
    size_t eq = part.find('=');
    if (eq != std::string::npos) parts[part.substr(0, eq)] = part.substr(eq + 1);
    at = end + 1;
  }
  return parts;
}

bool DifferentJobs(const std::string& a, const std::string& b) {
  std::map<std::string, std::string> pa = JobParts(a);
  for (const auto& [key, value] : JobParts(b))
    if (auto it = pa.find(key); it != pa.end() && it->second != value) return true;
  return false;
}

}  // namespace tt
