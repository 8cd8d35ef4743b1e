// Parameter tables (sim/param_spec.h) as Python data: the one declaration of
// every setting, which orbitcc.describe(), the Hydra schemas, the configs and
// the docs are generated from or checked against.
#pragma once

#include <pybind11/pybind11.h>

#include <string>

#include "sim/param_spec.h"

namespace orbitcc {

// One dict per row: name, kind ("real", "integer", "flag", "choice", "list",
// "names"), default (number, string or list; None when derived), default_text,
// low, high, low_open, choices, unit, help.
pybind11::list ParamTableToPy(const ParamTable& table);
// {"name": name, "params": its rows}: a catalogue entry.
pybind11::dict NamedTableToPy(const std::string& name, const ParamTable& table);

// Registers controller_catalogue() and controller_params(name).
void RegisterParamBindings(pybind11::module_& m);

}  // namespace orbitcc
