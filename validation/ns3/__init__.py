"""Cross-validation against ns-3 (``orbitcc.ns3``; sources in ``validation/ns3/``).

The C++ programs in this folder are our own ns-3 programs (ns-3.37, Debian's
``libns3-dev``). One module per job, re-exported here:

- ``build``: find the installed ns-3 and build the programs against it;
- ``rows``: the validation matrix, its rows described once for both simulators;
- ``run``: one row in ns-3 and in orbitcc, on exactly the same topology,
  reduced to the same keys;
- ``compare``: the metrics, their targets and the window-growth check;
- ``sweep``: the whole matrix, timed as ``orbitcc-validate`` runs it;
- ``report``: docs/validation.md, with the diagnosis notes read from
  ``notes/`` (data, not code).

``orbitcc-validate`` (``orbitcc/cli/validate.py``) drives them.

Definitions shared by both sides (so a difference is a model difference):

- goodput: application bytes delivered in order during the run / duration.
- RTT: ns-3: the sender socket's per-ACK RTT samples (timestamps on);
  orbitcc: each delivered data packet's one-way delay plus the reverse path's
  propagation delay (the ACK path is never queued here). Mean and p95.
- retransmissions: data packets sent again; timeouts: RTO episodes.
- Jain's index over the flows' goodput.
"""

from __future__ import annotations

from orbitcc.ns3.build import (
    INSTALL_HINT,
    PKG_MODULES,
    PROGRAM,
    SOURCE_DIR,
    Ns3UnavailableError,
    build_programs,
    default_build_dir,
    gym_proto,
    has_gym_mode,
    ns3_version,
)
from orbitcc.ns3.compare import (
    Metric,
    RowResult,
    compare,
    flagged_runs,
)
from orbitcc.ns3.rows import (
    ACCESS_MBPS,
    CC_TITLE,
    CCS,
    LOSS_SEEDS,
    MSS,
    PHASE_SEEDS,
    PHASE_SPREAD_MS,
    SAMPLE_S,
    STEP_SCHEDULE,
    WIRE_DATA_BYTES,
    Row,
    matrix,
)
from orbitcc.ns3.run import (
    NS3_CONTROLLER_PARAMS,
    NS3_TRANSPORT_PARAMS,
    ORBITCC_PACKET_BYTES,
    RESULT_FORMAT,
    RUNNER,
    average,
    jain,
    native_runner,
    ns3_args,
    ns3_result,
    orbitcc_result,
    orbitcc_spec,
    read_cwnd_csv,
    run_ns3,
    run_orbitcc,
    run_orbitcc_native,
    run_spec,
    run_timed,
    window_growth_violations,
)

# The public names of the jobs, as `from orbitcc.ns3 import ...` has always given them.
__all__ = [
    "ACCESS_MBPS",
    "CCS",
    "CC_TITLE",
    "INSTALL_HINT",
    "LOSS_SEEDS",
    "MSS",
    "Metric",
    "NS3_CONTROLLER_PARAMS",
    "NS3_TRANSPORT_PARAMS",
    "Ns3UnavailableError",
    "ORBITCC_PACKET_BYTES",
    "PHASE_SEEDS",
    "PHASE_SPREAD_MS",
    "PKG_MODULES",
    "PROGRAM",
    "RESULT_FORMAT",
    "RUNNER",
    "Row",
    "RowResult",
    "SAMPLE_S",
    "SOURCE_DIR",
    "STEP_SCHEDULE",
    "WIRE_DATA_BYTES",
    "average",
    "build_programs",
    "compare",
    "default_build_dir",
    "flagged_runs",
    "gym_proto",
    "has_gym_mode",
    "jain",
    "matrix",
    "native_runner",
    "ns3_args",
    "ns3_result",
    "ns3_version",
    "orbitcc_result",
    "orbitcc_spec",
    "read_cwnd_csv",
    "run_ns3",
    "run_orbitcc",
    "run_orbitcc_native",
    "run_spec",
    "run_timed",
    "window_growth_violations",
]
