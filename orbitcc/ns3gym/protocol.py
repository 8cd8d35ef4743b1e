"""The ns3-gym wire protocol: messages, spaces and values (no sockets here).

The message classes are built at import time from the table below (the same
schema as ``messages.proto`` beside this file), so no generated code and no
``protoc`` are needed: only the ``protobuf`` runtime.

Spaces map to Gymnasium's: ``Discrete(n)``; ``Box(low, high, shape, dtype)``
with dtype INT -> int64, UINT -> uint64, FLOAT -> float32, DOUBLE -> float64
(integer bounds rounded inwards and clamped to the wire's int32/uint32 range);
``Tuple``; ``Dict`` (keys from the element names). Anything else is refused
with a ``ProtocolError`` naming what was received and what is supported.
Values are read and written strictly (checked against the space, reshaped)
or as ns3-gym does (``strict=False``: as sent, flat).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from google.protobuf import any_pb2, descriptor_pb2, descriptor_pool, message_factory
from gymnasium import spaces

PACKAGE = "ns3opengym"
SUPPORTED = "Discrete, Box (dtype INT, UINT, FLOAT or DOUBLE), Tuple and Dict"


class ProtocolError(RuntimeError):
    """The peer sent something that is not ns3-gym's protocol (or a space
    orbitcc cannot map)."""


# ---------------------------------------------------------------------------
# Schema (mirrors messages.proto)

_F = descriptor_pb2.FieldDescriptorProto
_SCALARS = {
    "int32": _F.TYPE_INT32,
    "uint32": _F.TYPE_UINT32,
    "uint64": _F.TYPE_UINT64,
    "float": _F.TYPE_FLOAT,
    "double": _F.TYPE_DOUBLE,
    "bool": _F.TYPE_BOOL,
    "string": _F.TYPE_STRING,
}
_ENUMS = {
    "MsgType": [
        "Unknown",
        "Init",
        "ActionSpace",
        "ObservationSpace",
        "IsGameOver",
        "Observation",
        "Reward",
        "ExtraInfo",
        "Action",
        "StopEnv",
    ],
    "SpaceType": ["NoSpaceType", "Discrete", "Box", "Tuple", "Dict"],
    "Dtype": ["NoDType", "INT", "UINT", "FLOAT", "DOUBLE"],
}
# message -> [(field, number, type, repeated)]; a type that is not a scalar
# is an enum or message name ("Any" is google.protobuf.Any).
_MESSAGES: dict[str, list[tuple[str, int, str, bool]]] = {
    "SpaceDescription": [
        ("type", 1, "SpaceType", False),
        ("space", 2, "Any", False),
        ("name", 3, "string", False),
    ],
    "DiscreteSpace": [("n", 1, "int32", False)],
    "BoxSpace": [
        ("low", 1, "float", False),
        ("high", 2, "float", False),
        ("dtype", 3, "Dtype", False),
        ("shape", 4, "uint32", True),
    ],
    "TupleSpace": [("element", 1, "SpaceDescription", True)],
    "DictSpace": [("element", 1, "SpaceDescription", True)],
    "DataContainer": [
        ("type", 1, "SpaceType", False),
        ("data", 2, "Any", False),
        ("name", 3, "string", False),
    ],
    "DiscreteDataContainer": [("data", 1, "int32", False)],
    "BoxDataContainer": [
        ("dtype", 1, "Dtype", False),
        ("shape", 2, "uint32", True),
        ("intData", 3, "int32", True),
        ("uintData", 4, "uint32", True),
        ("floatData", 5, "float", True),
        ("doubleData", 6, "double", True),
    ],
    "TupleDataContainer": [("element", 1, "DataContainer", True)],
    "DictDataContainer": [("element", 1, "DataContainer", True)],
    "SimInitMsg": [
        ("simProcessId", 1, "uint64", False),
        ("wafShellProcessId", 2, "uint64", False),
        ("obsSpace", 3, "SpaceDescription", False),
        ("actSpace", 4, "SpaceDescription", False),
    ],
    "SimInitAck": [("done", 1, "bool", False), ("stopSimReq", 2, "bool", False)],
    "EnvStateMsg": [
        ("obsData", 1, "DataContainer", False),
        ("reward", 2, "float", False),
        ("isGameOver", 3, "bool", False),
        ("reason", 4, "EnvStateMsg.Reason", False),
        ("info", 5, "string", False),
    ],
    "EnvActMsg": [("actData", 1, "DataContainer", False), ("stopSimReq", 2, "bool", False)],
}
_NESTED_ENUMS = {"EnvStateMsg": {"Reason": ["SimulationEnd", "GameOver"]}}


def file_descriptor_proto() -> descriptor_pb2.FileDescriptorProto:
    """The protocol's schema as a FileDescriptorProto (also used by the test
    that compares it with messages.proto compiled by protoc)."""
    f = descriptor_pb2.FileDescriptorProto(
        name="orbitcc_ns3gym_messages.proto",
        package=PACKAGE,
        syntax="proto3",
        dependency=["google/protobuf/any.proto"],
    )
    for name, values in _ENUMS.items():
        e = f.enum_type.add(name=name)
        for i, v in enumerate(values):
            e.value.add(name=v, number=i)
    for name, fields in _MESSAGES.items():
        m = f.message_type.add(name=name)
        for enum_name, values in _NESTED_ENUMS.get(name, {}).items():
            e = m.enum_type.add(name=enum_name)
            for i, v in enumerate(values):
                e.value.add(name=v, number=i)
        for field_name, number, type_name, repeated in fields:
            fd = m.field.add(
                name=field_name,
                number=number,
                label=_F.LABEL_REPEATED if repeated else _F.LABEL_OPTIONAL,
                json_name=field_name,
            )
            if type_name in _SCALARS:
                fd.type = _SCALARS[type_name]
            elif type_name == "Any":
                fd.type = _F.TYPE_MESSAGE
                fd.type_name = ".google.protobuf.Any"
            elif type_name.split(".")[-1] in _ENUMS or "." in type_name:
                fd.type = _F.TYPE_ENUM
                fd.type_name = f".{PACKAGE}.{type_name}"
            else:
                fd.type = _F.TYPE_MESSAGE
                fd.type_name = f".{PACKAGE}.{type_name}"
    return f


_POOL = descriptor_pool.DescriptorPool()
_POOL.AddSerializedFile(any_pb2.DESCRIPTOR.serialized_pb)
_POOL.Add(file_descriptor_proto())


def _cls(name: str) -> Any:
    return message_factory.GetMessageClass(_POOL.FindMessageTypeByName(f"{PACKAGE}.{name}"))


SpaceDescription = _cls("SpaceDescription")
DiscreteSpace = _cls("DiscreteSpace")
BoxSpace = _cls("BoxSpace")
TupleSpace = _cls("TupleSpace")
DictSpace = _cls("DictSpace")
DataContainer = _cls("DataContainer")
DiscreteDataContainer = _cls("DiscreteDataContainer")
BoxDataContainer = _cls("BoxDataContainer")
TupleDataContainer = _cls("TupleDataContainer")
DictDataContainer = _cls("DictDataContainer")
SimInitMsg = _cls("SimInitMsg")
SimInitAck = _cls("SimInitAck")
EnvStateMsg = _cls("EnvStateMsg")
EnvActMsg = _cls("EnvActMsg")

# Enum values
NO_SPACE, DISCRETE, BOX, TUPLE, DICT = range(5)
NO_DTYPE, INT, UINT, FLOAT, DOUBLE = range(5)
SIMULATION_END, GAME_OVER = 0, 1
_SPACE_NAMES = dict(enumerate(_ENUMS["SpaceType"]))
_DTYPES = {INT: np.int64, UINT: np.uint64, FLOAT: np.float32, DOUBLE: np.float64}
_DATA_FIELD = {INT: "intData", UINT: "uintData", FLOAT: "floatData", DOUBLE: "doubleData"}
DATA_FIELD = _DATA_FIELD  # BoxDataContainer's data field of each dtype


def parse(cls: Any, payload: bytes, what: str, peer: str = "simulation") -> Any:
    """Parses ``payload`` as ``cls``; a ProtocolError names what arrived and
    asks whether the ``peer`` (simulation or agent) speaks the protocol."""
    msg = cls()
    try:
        msg.ParseFromString(payload)
    except Exception as e:  # noqa: BLE001 -- protobuf's pure-Python and upb backends raise different types
        head = payload[:16].hex()
        raise ProtocolError(
            f"expected an ns3-gym {what} ({cls.DESCRIPTOR.full_name}), received {len(payload)} "
            f"bytes that do not parse as one (first bytes: {head}): {e}. Is the peer an "
            f"ns3-gym (ns3opengym protobuf over ZeroMQ) {peer}?"
        ) from None
    return msg


def _unpack(any_msg: Any, cls: Any, where: str) -> Any:
    out = cls()
    if not any_msg.Unpack(out):
        raise ProtocolError(
            f"{where}: expected a packed {cls.DESCRIPTOR.full_name}, received "
            f"type {any_msg.type_url or '(none)'!r}"
        )
    return out


# ---------------------------------------------------------------------------
# Spaces


# What the wire carries for integer boxes: BoxDataContainer.intData is int32,
# uintData uint32 (messages.proto; ns-3's OpenGymBoxContainer<uint64_t> is
# narrowed to uint32 on the wire too).
WIRE_RANGE = {INT: (-(2**31), 2**31 - 1), UINT: (0, 2**32 - 1)}


def _integer_bounds(code: int, low: float, high: float, where: str) -> tuple[int, int]:
    """Integer bounds of an INT/UINT Box from the float32 ones on the wire.

    BoxSpace.low/high are float32, so 4294967295 arrives as 4294967296 and
    +-INFINITY (ns-3 scripts write ``OpenGymBoxSpace(-INFINITY, INFINITY, ...,
    int)`` for an unbounded box) has no integer value. The bounds are taken
    in Python integers (no overflow), ceil/floor to whole numbers, and clamped
    to what the wire's data field can carry, so ``space.high`` is a value that
    can be sent (int32 for INT, uint32 for UINT).
    """
    wire_lo, wire_hi = WIRE_RANGE[code]
    lo = wire_lo if np.isinf(low) else max(wire_lo, int(np.ceil(low)))
    hi = wire_hi if np.isinf(high) else min(wire_hi, int(np.floor(high)))
    if lo > hi:
        kind = "INT (int32)" if code == INT else "UINT (uint32)"
        raise ProtocolError(
            f"{where}: Box bounds low = {low}, high = {high} hold no value of "
            f"dtype {kind}; allowed: {wire_lo} ... {wire_hi}"
        )
    return lo, hi


def space_from_pb(desc: Any, where: str = "space") -> spaces.Space:
    """A Gymnasium space from a SpaceDescription."""
    t = desc.type
    if t == DISCRETE:
        d = _unpack(desc.space, DiscreteSpace, where)
        if d.n < 1:
            raise ProtocolError(f"{where}: Discrete space with n = {d.n}; n must be >= 1")
        return spaces.Discrete(d.n)
    if t == BOX:
        b = _unpack(desc.space, BoxSpace, where)
        if b.dtype not in _DTYPES:
            raise ProtocolError(
                f"{where}: Box dtype {b.dtype} is not supported; supported: "
                "INT (1), UINT (2), FLOAT (3), DOUBLE (4)"
            )
        dtype = _DTYPES[b.dtype]
        shape = tuple(int(x) for x in b.shape)
        low, high = float(b.low), float(b.high)
        if np.isnan(low) or np.isnan(high) or low > high:
            raise ProtocolError(
                f"{where}: Box bounds low = {low}, high = {high}; they must be "
                "numbers (infinite allowed) with low <= high"
            )
        if b.dtype in (INT, UINT):
            lo_int, hi_int = _integer_bounds(b.dtype, low, high, where)
            return spaces.Box(low=dtype(lo_int), high=dtype(hi_int), shape=shape, dtype=dtype)
        return spaces.Box(low=low, high=high, shape=shape, dtype=dtype)
    if t == TUPLE:
        tup = _unpack(desc.space, TupleSpace, where)
        return spaces.Tuple(
            tuple(space_from_pb(e, f"{where}[{i}]") for i, e in enumerate(tup.element))
        )
    if t == DICT:
        d = _unpack(desc.space, DictSpace, where)
        out = {}
        for e in d.element:
            if not e.name or e.name in out:
                raise ProtocolError(
                    f"{where}: Dict element names must be unique and non-empty, got {e.name!r}"
                )
            out[e.name] = space_from_pb(e, f"{where}[{e.name!r}]")
        return spaces.Dict(out)
    raise ProtocolError(
        f"{where}: space type {t} ({_SPACE_NAMES.get(t, 'unknown')}) cannot be "
        f"mapped to Gymnasium; supported: {SUPPORTED}"
    )


def space_to_pb(space: spaces.Space, name: str = "") -> Any:
    """A SpaceDescription from a Gymnasium space (the fake peer and the C++
    side use the same layout)."""
    desc = SpaceDescription(name=name)
    if isinstance(space, spaces.Discrete):
        if int(space.start) != 0:
            raise ProtocolError("Discrete spaces with start != 0 have no ns3-gym form")
        desc.type = DISCRETE
        desc.space.Pack(DiscreteSpace(n=int(space.n)))
    elif isinstance(space, spaces.Box):
        low, high = np.unique(space.low), np.unique(space.high)
        if low.size != 1 or high.size != 1:
            raise ProtocolError("ns3-gym Box spaces have one scalar low and high")
        dtype = _dtype_code(space.dtype)
        desc.type = BOX
        desc.space.Pack(
            BoxSpace(low=float(low[0]), high=float(high[0]), dtype=dtype, shape=list(space.shape))
        )
    elif isinstance(space, spaces.Tuple):
        desc.type = TUPLE
        desc.space.Pack(TupleSpace(element=[space_to_pb(s) for s in space.spaces]))
    elif isinstance(space, spaces.Dict):
        desc.type = DICT
        desc.space.Pack(DictSpace(element=[space_to_pb(s, k) for k, s in space.spaces.items()]))
    else:
        raise ProtocolError(f"{type(space).__name__} has no ns3-gym form; supported: {SUPPORTED}")
    return desc


def _dtype_code(dtype: Any) -> int:
    dt = np.dtype(dtype)
    if dt == np.float64:
        return DOUBLE
    if np.issubdtype(dt, np.floating):
        return FLOAT
    if np.issubdtype(dt, np.unsignedinteger):
        return UINT
    if np.issubdtype(dt, np.integer):
        return INT
    raise ProtocolError(f"Box dtype {dt} has no ns3-gym form; supported: int, uint, float, double")


# ---------------------------------------------------------------------------
# Values


def value_from_pb(
    container: Any, space: spaces.Space, where: str = "observation", strict: bool = True
) -> Any:
    """A value of ``space`` from a DataContainer.

    ``strict``: Box data is checked against the space's size and reshaped to
    its shape, in its dtype. Not strict: ns3-gym's own reading (its
    ``Ns3ZmqBridge._create_data``): Box data comes back as the flat array of
    the values sent, whatever the space says; Tuple and Dict as sent.
    """
    if not strict:
        return _value_as_sent(container, where)
    if isinstance(space, spaces.Discrete):
        if container.type != DISCRETE:
            raise ProtocolError(f"{where}: expected Discrete data, received type {container.type}")
        return np.int64(_unpack(container.data, DiscreteDataContainer, where).data)
    if isinstance(space, spaces.Box):
        if container.type != BOX:
            raise ProtocolError(f"{where}: expected Box data, received type {container.type}")
        values = _box_values(_unpack(container.data, BoxDataContainer, where), where)
        if values.size != int(np.prod(space.shape)):
            raise ProtocolError(
                f"{where}: Box data has {values.size} values; the space's shape "
                f"{space.shape} needs {int(np.prod(space.shape))}"
            )
        return values.reshape(space.shape).astype(space.dtype)
    if isinstance(space, spaces.Tuple):
        t = _unpack(container.data, TupleDataContainer, where)
        if len(t.element) != len(space.spaces):
            raise ProtocolError(
                f"{where}: Tuple data has {len(t.element)} elements, the space {len(space.spaces)}"
            )
        return tuple(
            value_from_pb(e, s, f"{where}[{i}]")
            for i, (e, s) in enumerate(zip(t.element, space.spaces, strict=True))
        )
    if isinstance(space, spaces.Dict):
        d = _unpack(container.data, DictDataContainer, where)
        by_name = {e.name: e for e in d.element}
        missing = set(space.spaces) - set(by_name)
        if missing:
            raise ProtocolError(f"{where}: Dict data lacks {sorted(missing)}")
        return {k: value_from_pb(by_name[k], s, f"{where}[{k!r}]") for k, s in space.spaces.items()}
    raise ProtocolError(f"{where}: unsupported space {space}")


def _box_values(b: Any, where: str) -> np.ndarray:
    field = _DATA_FIELD.get(b.dtype)
    if field is None:
        raise ProtocolError(
            f"{where}: Box data dtype {b.dtype} is not supported; supported: "
            "INT (1), UINT (2), FLOAT (3), DOUBLE (4)"
        )
    return np.asarray(
        getattr(b, field), dtype=np.float64 if b.dtype in (FLOAT, DOUBLE) else np.int64
    )


def _value_as_sent(container: Any, where: str) -> Any:
    t = container.type
    if t == DISCRETE:
        return int(_unpack(container.data, DiscreteDataContainer, where).data)
    if t == BOX:
        return _box_values(_unpack(container.data, BoxDataContainer, where), where)
    if t == TUPLE:
        tup = _unpack(container.data, TupleDataContainer, where)
        return tuple(_value_as_sent(e, f"{where}[{i}]") for i, e in enumerate(tup.element))
    if t == DICT:
        d = _unpack(container.data, DictDataContainer, where)
        return {e.name: _value_as_sent(e, f"{where}[{e.name!r}]") for e in d.element}
    raise ProtocolError(
        f"{where}: data of space type {t} ({_SPACE_NAMES.get(t, 'unknown')}); "
        f"supported: {SUPPORTED}"
    )


def value_to_pb(
    value: Any,
    space: spaces.Space,
    name: str = "",
    strict: bool = True,
    float_code: int | None = None,
) -> Any:
    """A DataContainer holding ``value`` of ``space``.

    ``strict``: the value is cast to the space's dtype and shape (the caller
    checks that it is in the space). Not strict: ns3-gym's pass-through (its
    ``_pack_data``): the values go as given, flat, in the wire field of the
    space's dtype; a fraction in an int32/uint32 field is truncated towards
    zero (C's conversion, what ns-3 would hold had the value been cast
    there), and only what the wire cannot carry (NaN, infinity, a number
    outside int32/uint32) is refused with a ValueError.
    ``float_code``: the wire dtype of float Boxes (None: FLOAT for float32,
    DOUBLE for float64; ns3-gym's agent side always sends FLOAT).
    """
    c = DataContainer(name=name)
    if isinstance(space, spaces.Discrete):
        c.type = DISCRETE
        c.data.Pack(DiscreteDataContainer(data=_wire_int(value, INT, name or "Discrete")))
    elif isinstance(space, spaces.Box):
        code = _dtype_code(space.dtype)
        if code in (FLOAT, DOUBLE) and float_code is not None:
            code = float_code
        if isinstance(value, (dict, str, bytes)):
            raise ValueError(
                f"{name or 'Box'}: {type(value).__name__} value {value!r:.60}; "
                f"allowed: numbers for {space}"
            )
        if strict:
            arr = np.asarray(value, dtype=space.dtype).reshape(space.shape)
            shape = list(space.shape)
        else:
            arr = np.asarray(value).ravel()
            shape = list(space.shape) if arr.size == int(np.prod(space.shape)) else [arr.size]
        b = BoxDataContainer(dtype=code, shape=shape)
        if code in (INT, UINT):
            data = [
                _wire_int(x, code, name or "Box", truncate=not strict) for x in arr.ravel().tolist()
            ]
        else:
            data = np.asarray(arr, dtype=np.float64).ravel().tolist()
        getattr(b, _DATA_FIELD[code]).extend(data)
        c.type = BOX
        c.data.Pack(b)
    elif isinstance(space, spaces.Tuple):
        c.type = TUPLE
        c.data.Pack(
            TupleDataContainer(
                element=[
                    value_to_pb(v, s, strict=strict, float_code=float_code)
                    for v, s in zip(value, space.spaces, strict=True)
                ]
            )
        )
    elif isinstance(space, spaces.Dict):
        c.type = DICT
        c.data.Pack(
            DictDataContainer(
                element=[
                    value_to_pb(value[k], s, k, strict=strict, float_code=float_code)
                    for k, s in space.spaces.items()
                ]
            )
        )
    else:
        raise ProtocolError(f"unsupported space {space}")
    return c


def _wire_int(x: Any, code: int, what: str, truncate: bool = False) -> int:
    """``x`` as an integer the wire's int32 (INT) or uint32 (UINT) field
    holds; ``truncate``: a fraction is cut towards zero (else refused)."""
    if isinstance(x, (bool, np.bool_)):
        raise ValueError(f"{what}: {x!r} is a bool, not a number")
    try:
        f = float(x)
    except (TypeError, ValueError):
        raise ValueError(f"{what}: {x!r} is not a number") from None
    lo, hi = WIRE_RANGE[code]
    if truncate and np.isfinite(f):
        f = float(np.trunc(f))
        x = int(f)
    if not np.isfinite(f) or f != int(f) or not lo <= int(f) <= hi:
        kind = "int32" if code == INT else "uint32"
        raise ValueError(
            f"{what}: {x!r} cannot travel in ns3-gym's {kind} field; allowed: "
            f"whole numbers {lo} ... {hi}"
        )
    return int(x) if isinstance(x, (int, np.integer)) else int(f)
