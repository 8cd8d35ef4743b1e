"""The queue discipline of a preset's bottleneck links (docs/aqm.md).

Every scenario kind has two rows for it: ``queue`` (droptail, the default, or
codel | fq_codel | red) and ``queue_params``, that discipline's settings
(``orbitcc.describe("queue_codel")``, ...), e.g.
``scenario.queue=red 'scenario.queue_params={min_th: 20, max_th: 60}'`` (quoted
for the shell), or one key at a time: ``scenario.queue=fq_codel
scenario.queue_params.quantum_bytes=3028``. Integers and flags are taken as
the core's table declares them.

The discipline is parsed and attached here, once, when the spec is built
(``orbitcc.scenario.build_spec``): to every link its builder gives a buffer,
so no builder handles it. The link buffer stays the preset's and bounds the
AQM's queue too.
"""

from __future__ import annotations

from typing import Any

from orbitcc import _core
from orbitcc.validation import coerce_param

# Each discipline's settings, read once from the core's tables.
_QUEUE_ROWS = {
    kind: {r["name"]: r for r in _core.queue_params(kind)} for kind in _core.queue_kinds()
}


def queue_fields(queue: str, queue_params: Any) -> dict[str, Any]:
    """The core's ``queue`` entry of a buffered link, ``{}`` for drop-tail.

    ``queue`` is already checked against the scenario row's choices;
    ``queue_params`` is checked here against that discipline's table. Raises
    ValueError naming ``scenario.queue`` / ``scenario.queue_params.<key>``.
    """
    table = _QUEUE_ROWS[queue]
    values: dict[str, Any] = {}
    for key, value in dict(queue_params).items():
        if key not in table:
            raise ValueError(
                f"scenario.queue_params.{key} is not a setting of queue "
                f"{queue!r}; allowed: {', '.join(table) or 'none'}"
                + (
                    ""
                    if table
                    else " (choose a discipline first: scenario.queue="
                    f"{'|'.join(q for q in _QUEUE_ROWS if q != 'droptail')})"
                )
            )
        # The type the core's table declares (int, bool or float), not float().
        values[str(key)] = coerce_param("scenario.queue_params", value, table[key])
    if "target_ms" in table:  # CoDel and FQ-CoDel: RFC 8289 Sec. 4.4
        target = values.get("target_ms", table["target_ms"]["default"])
        interval = values.get("interval_ms", table["interval_ms"]["default"])
        if target >= interval:
            raise ValueError(
                f"scenario.queue_params.target_ms = {target:g} must be below "
                f"interval_ms = {interval:g} (RFC 8289: target is 5-10 % of the "
                "interval)"
            )
    if queue == "droptail":
        return {}
    return {"queue": {"type": queue, **values}}


def attach_queue(scenario: Any, links: list[dict[str, Any]]) -> None:
    """Parses ``scenario.queue`` / ``scenario.queue_params`` and puts the
    result on every link of ``links`` that has a buffer (``buffer_packets``
    or ``buffer_bytes``): the links where a queue builds. The unbuffered
    return and access-shaper links keep none."""
    queue = queue_fields(scenario.queue, scenario.queue_params)
    if queue:
        for link in links:
            if "buffer_packets" in link or "buffer_bytes" in link:
                link.update(queue)
