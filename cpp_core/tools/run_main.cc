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
#include <time.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <iostream>
#include <sstream>
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
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw std::runtime_error("cannot read the file: " +
                             std::string(std::strerror(errno)));
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw std::runtime_error("error while reading the file");
  return text.str();
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
void RunOne(const std::string& path, bool trace, std::string* out) {
  const Value doc = ParseJson(ReadFile(path));
  std::vector<std::string> warnings;
  SimulationSpec spec = SpecFromValue(doc, &warnings);
  for (const std::string& w : warnings) {
    std::cerr << "orbitcc_run: " << path << ": warning: " << w << "\n";
  }
  const TimeNs interval = spec.sample_interval;
  if (interval <= 0) {
    throw std::invalid_argument("sample_interval_s: must be > 0 to sample");
  }
  const size_t samples =
      trace ? static_cast<size_t>(spec.duration / interval) + 1 : 0;
  Simulation sim(std::move(spec));
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
        std::cerr << "orbitcc_run: " << arg << " needs a file\n" << kUsage
                  << "\n";
        return 2;
      }
      out_path = argv[++i];
    } else if (arg == "--trace") {
      trace = true;
    } else if (arg == "--help" || arg == "-h") {
      std::cout << kUsage << "\n";
      return 0;
    } else if (arg.size() > 1 && arg[0] == '-') {
      std::cerr << "orbitcc_run: unknown option " << arg << "\n"
                << kUsage << "\n";
      return 2;
    } else {
      specs.push_back(arg);
    }
  }
  if (specs.empty()) {
    std::cerr << kUsage << "\n";
    return 2;
  }
  std::string text = "{\"runs\": [";
  for (size_t k = 0; k < specs.size(); ++k) {
    if (k > 0) text += ", ";
    try {
      RunOne(specs[k], trace, &text);
    } catch (const std::exception& e) {
      std::cerr << "orbitcc_run: " << specs[k] << ": " << e.what() << "\n";
      return 1;
    }
  }
  text += "]}\n";
  if (out_path.empty()) {
    std::cout << text;
    std::cout.flush();
    return std::cout ? 0 : 1;
  }
  std::ofstream out(out_path, std::ios::binary);
  out << text;
  out.close();
  if (!out) {
    std::cerr << "orbitcc_run: " << out_path << ": cannot write the result: "
              << std::strerror(errno) << "\n";
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace orbitcc

int main(int argc, char** argv) {
  try {
    return orbitcc::Main(argc, argv);
  } catch (const std::exception& e) {  // e.g. out of memory
    std::cerr << "orbitcc_run: " << e.what() << "\n";
    return 1;
  }
}
