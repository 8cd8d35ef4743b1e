// Reads the LEO parts of a spec mapping: a link's time-varying "process"
// (orbital access, MACO along-track, ISL path, LMS / on-off channels, traces),
// its "loss_process" overlay, its "router" agent, and the spec's "oracle"
// section. Each model kind registers its parser and the keys it accepts in
// one table (leo_reader.cc, ModelKinds). Every error is a
// std::invalid_argument naming the field and, for enumerations, the allowed
// values. Files are read (and every model built once) while parsing, so a bad
// config fails before the simulation starts; trace files are read once per
// spec, and their paths are used as given (Python resolves a scenario's
// relative paths before the spec crosses).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cc/controller.h"
#include "leo/handover.h"
#include "net/link_process.h"
#include "net/router_agent.h"
#include "spec/model_params.h"
#include "spec/value.h"

namespace orbitcc {

using ProcessFactory =
    std::function<std::unique_ptr<LinkProcess>(uint64_t seed, int link)>;

// links[i].process: {"type": ..., params...}.
ProcessFactory ParseLinkProcess(const Value& obj, const std::string& where);
// links[i].loss_process: a Gilbert-Elliott loss overlay on `base` (which is
// a constant link when the link has no process).
ProcessFactory ParseLossOverlay(ProcessFactory base, const Value& obj,
                                const std::string& where);
// links[i].jitter: capacity / delay jitter on `base` (leo/exogenous.h):
// {capacity_sigma, interval_s, correlation, redraw_at_handover,
// handover_delay_ms}.
ProcessFactory ParseJitterOverlay(ProcessFactory base, const Value& obj,
                                  const std::string& where);
// links[i].router: {"type": "refwa", params...}. `link_buffer_bytes` is the
// default for REFWA's buffer_bytes. A router outside the REFWA paper's
// stability region is allowed, with a warning appended to `warnings`.
std::function<std::unique_ptr<RouterAgent>()> ParseRouter(
    const Value& obj, const std::string& where, uint64_t link_buffer_bytes,
    std::vector<std::string>* warnings);
// oracle: {"paths": [{"path_id": k, "type": ..., params...}, ...]}.
std::function<std::unique_ptr<MobilityOracle>(uint64_t seed)> ParseOracle(
    const Value& obj, const std::string& where);
// The registry of model kinds: {type: {"help", "link_process",
// "oracle_path", "keys"}} (orbitcc._core.leo_model_kinds).
Value LeoModelKinds();
// The along-track model's parameters (the "along_track" process keys).
AlongTrackLinkConfig ParseAlongTrackConfig(const Value& obj,
                                           const std::string& where);

}  // namespace orbitcc
