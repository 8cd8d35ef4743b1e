"""Building blocks of hostile checkpoints, shared by the checkpoint tests
(test_checkpoint_loading.py, test_robustness.py): a pickle that would run a
command, an in-place rewrite of a model.zip's entries, and the pickle planted
as an object SB3 serialized."""

from __future__ import annotations

import base64
import json
import os
import pickle
import zipfile
from collections.abc import Callable
from pathlib import Path


class Payload:
    """Pickles to a call of os.system: what a hostile checkpoint would carry.
    If anything unpickles it, ``marker`` appears."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple:
        return (os.system, (f"touch {self.marker}",))


def payload_blob(marker: Path) -> str:
    """The payload as SB3 stores a serialized object: base64 of its pickle."""
    return base64.b64encode(pickle.dumps(Payload(marker))).decode()


def plant_serialized(
    zip_path: Path, key: str, marker: Path, type_name: str = "<class 'object'>"
) -> None:
    """Puts the payload under ``key`` of the model.zip's ``data`` entry, as SB3
    stores an object it pickled (``:type:`` and base64 ``:serialized:``)."""
    blob = payload_blob(marker)

    def edit(entries: dict[str, bytes]) -> None:
        data = json.loads(entries["data"])
        data[key] = {":type:": type_name, ":serialized:": blob}
        entries["data"] = json.dumps(data).encode()

    rewrite_zip(zip_path, edit)


def rewrite_zip(path: Path, edit: Callable[[dict[str, bytes]], None]) -> None:
    """Reads every entry of the zip at ``path``, lets ``edit`` change the
    mapping, and writes the zip again."""
    with zipfile.ZipFile(path) as z:
        entries = {n: z.read(n) for n in z.namelist()}
    edit(entries)
    with zipfile.ZipFile(path, "w") as z:
        for n, b in entries.items():
            z.writestr(n, b)
