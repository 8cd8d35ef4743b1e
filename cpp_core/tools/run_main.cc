// orbitcc_run: runs simulation specs given as JSON files, natively.
//
//   orbitcc_run [--out OUT.json] [--trace] SPEC.json [SPEC.json ...]
//
// Each spec is the dict orbitcc._core.Simulation accepts (read by the same
// reader, spec/spec_reader.h). A run steps the simulation every
// `sample_interval_s`, as orbitcc.ns3.run_orbitcc does through the module,
// so both give the same numbers; with --trace it also records each
// subflow's congestion window after every step. The result (to OUT.json, or
// stdout) is
//
//   {"runs": [{"spec": path, "wall_s", "cpu_s", "events",
//              "cwnd": {"t_s": [...], "cwnd_bytes": [[...] per subflow]},
//              "probes": [Simulation.probe(i) per subflow, at the end],
//              "summary": Simulation.summary()}, ...]}
//
// ("cwnd" only with --trace: a user's run needs no trace, and writing it
// is a part of the runner's fixed cost, docs/benchmarks.md). wall_s / cpu_s
// time the step loop only (build and JSON excluded), like run_orbitcc. Any
// error (unreadable file, malformed JSON, invalid spec) prints one line
// "orbitcc_run: <file>: <problem>" and exits with status 1; bad usage exits
// with status 2.
//
// What the process costs beyond its simulation loop is its fixed cost
// (docs/benchmarks.md, orbitcc-bench's runner_fixed_cost), paid once per
// run of a sweep, so the runner avoids work a one-shot process need not do:
// no iostreams (their start-up initialises locales, ~40 us of CPU), files
// read and written whole with read(2) / write(2), the output overwritten in
// place and cut to length rather than truncated first (ext4 frees and
// discards the blocks of a file truncated to zero, and starts writing it
// back when it is closed (auto_da_alloc): ~0.05-0.1 ms per run that reuses
// its output file), and
// the last simulation is not torn down: the process exits after writing
// its result and the kernel frees the memory at once (freeing it node by
// node cost ~0.1-0.2 ms on a 30 s row).
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/simulation.h"
#include "spec/spec_reader.h"
#include "spec/summary_value.h"
#include "spec/value.h"

namespace orbitcc {
namespace {

constexpr const char* kUsage =
    "usage: orbitcc_run [--out OUT.json] [--trace] SPEC.json [SPEC.json ...]";

std::string ReadFile(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    throw std::runtime_error("cannot read the file: " +
                             std::string(std::strerror(errno)));
  }
  std::string text;
  struct stat st{};
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
    text.reserve(static_cast<size_t>(st.st_size));
  }
  char buffer[1 << 16];
  for (;;) {
    const ssize_t got = read(fd, buffer, sizeof buffer);
    if (got > 0) {
      text.append(buffer, static_cast<size_t>(got));
    } else if (got == 0) {
      break;
    } else if (errno != EINTR) {
      const int err = errno;
      close(fd);
      throw std::runtime_error("cannot read the file: " +
                               std::string(std::strerror(err)));
    }
  }
  close(fd);
  return text;
}

// Writes all of `text` to `fd`; false (errno set) on failure.
bool WriteAll(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t put = write(fd, text.data() + done, text.size() - done);
    if (put < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    done += static_cast<size_t>(put);
  }
  return true;
}

// Writes `text` to the file `path`: overwritten in place and then cut to
// its length (no O_TRUNC, see the top of this file); false (errno set) on
// failure.
bool WriteFile(const std::string& path, const std::string& text) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0) return false;
  bool ok = WriteAll(fd, text);
  struct stat st{};
  if (ok && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
      st.st_size > static_cast<off_t>(text.size())) {
    ok = ftruncate(fd, static_cast<off_t>(text.size())) == 0;
  }
  const int err = errno;
  if (close(fd) != 0 && ok) return false;
  errno = err;
  return ok;
}

void Error(const std::string& line) {
  const std::string text = line + "\n";
  std::fwrite(text.data(), 1, text.size(), stderr);
}

double CpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) +
         static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Runs the spec in `path` and appends its result (one element of "runs") to
// `out` as JSON. The result is written piece by piece, the same text as
// WriteJson of one Value built from it, but without that Value: the cwnd
// trace goes from its vectors to the text.
//
// The simulation is handed to `*keep` (the previous one there is freed): the
// last one lives until the process exits.
void RunOne(const std::string& path, bool trace, std::string* out,
            std::unique_ptr<Simulation>* keep) {
  const Value doc = ParseJson(ReadFile(path));
  std::vector<std::string> warnings;
  SimulationSpec spec = SpecFromValue(doc, &warnings);
  for (const std::string& w : warnings) {
    Error("orbitcc_run: " + path + ": warning: " + w);
  }
  const TimeNs interval = spec.sample_interval;
  if (interval <= 0) {
    throw std::invalid_argument("sample_interval_s: must be > 0 to sample");
  }
  const size_t samples =
      trace ? static_cast<size_t>(spec.duration / interval) + 1 : 0;
  keep->reset();  // the previous spec's simulation
  *keep = std::make_unique<Simulation>(std::move(spec));
  Simulation& sim = **keep;
  const int n = sim.num_subflows();
  std::vector<double> t_s;
  t_s.reserve(samples);
  std::vector<std::vector<double>> cwnd(trace ? static_cast<size_t>(n) : 0);
  for (auto& c : cwnd) c.reserve(samples);
  const auto wall_start = std::chrono::steady_clock::now();
  const double cpu_start = CpuSeconds();
  while (sim.Step(interval)) {
    if (!trace) continue;
    t_s.push_back(ToSeconds(sim.now()));
    for (int i = 0; i < n; ++i) {
      // Probe(i).cwnd_bytes, without the rest of the probe.
      cwnd[static_cast<size_t>(i)].push_back(
          static_cast<double>(sim.controller(i).cwnd_bytes()));
    }
  }
  const double cpu = CpuSeconds() - cpu_start;
  const double wall = std::chrono::duration<double>(
                          std::chrono::steady_clock::now() - wall_start)
                          .count();
  out->append("{\"spec\": ");
  AppendJson(Value(path), out);
  out->append(", \"wall_s\": ");
  AppendJson(Value(wall), out);
  out->append(", \"cpu_s\": ");
  AppendJson(Value(cpu), out);
  out->append(", \"events\": ");
  AppendJson(Value(sim.events_processed()), out);
  if (trace) {
    out->append(", \"cwnd\": {\"t_s\": ");
    AppendJson(t_s, out);
    out->append(", \"cwnd_bytes\": [");
    for (size_t i = 0; i < cwnd.size(); ++i) {
      if (i > 0) out->append(", ");
      AppendJson(cwnd[i], out);
    }
    out->append("]}");
  }
  out->append(", \"probes\": ");
  Value probes = Value::List();
  for (int i = 0; i < n; ++i) probes.Append(ProbeToValue(sim.Probe(i)));
  AppendJson(probes, out);
  out->append(", \"summary\": ");
  AppendJson(SummaryToValue(sim.Summarize()), out);
  out->push_back('}');
}

int Main(int argc, char** argv) {
  std::string out_path;
  bool trace = false;
  std::vector<std::string> specs;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--out" || arg == "-o") {
      if (i + 1 >= argc) {
        Error("orbitcc_run: " + arg + " needs a file\n" + kUsage);
        return 2;
      }
      out_path = argv[++i];
    } else if (arg == "--trace") {
      trace = true;
    } else if (arg == "--help" || arg == "-h") {
      std::printf("%s\n", kUsage);
      return 0;
    } else if (arg.size() > 1 && arg[0] == '-') {
      Error("orbitcc_run: unknown option " + arg + "\n" + kUsage);
      return 2;
    } else {
      specs.push_back(arg);
    }
  }
  if (specs.empty()) {
    Error(kUsage);
    return 2;
  }
  // Never freed: the process ends after writing the result (top of file).
  static std::unique_ptr<Simulation>* keep = new std::unique_ptr<Simulation>;
  std::string text = "{\"runs\": [";
  for (size_t k = 0; k < specs.size(); ++k) {
    if (k > 0) text += ", ";
    try {
      RunOne(specs[k], trace, &text, keep);
    } catch (const std::exception& e) {
      Error("orbitcc_run: " + specs[k] + ": " + e.what());
      return 1;
    }
  }
  text += "]}\n";
  if (out_path.empty()) {
    if (!WriteAll(STDOUT_FILENO, text)) {
      Error("orbitcc_run: cannot write the result: " +
            std::string(std::strerror(errno)));
      return 1;
    }
    return 0;
  }
  if (!WriteFile(out_path, text)) {
    Error("orbitcc_run: " + out_path +
          ": cannot write the result: " + std::strerror(errno));
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace orbitcc

int main(int argc, char** argv) {
  int status = 1;
  try {
    status = orbitcc::Main(argc, argv);
  } catch (const std::exception& e) {  // e.g. out of memory
    orbitcc::Error(std::string("orbitcc_run: ") + e.what());
  }
  // Everything is written (stdio's buffers are flushed here); the kernel
  // frees the memory faster than destructors would (top of file).
  std::fflush(nullptr);
  std::_Exit(status);
}
