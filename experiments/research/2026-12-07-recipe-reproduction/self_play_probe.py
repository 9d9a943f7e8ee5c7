"""Fingerprint the first self-play iteration of `morty train-az-net` at whatever commit is on
PYTHONPATH (the trainer imported from where it lived: agents.expert before 2026-12-04,
agents.training.expert after) and print one line, `DRIFT {json}`.

The trainer runs the config's warm start on GAMES games for EPOCHS epochs, a 2-game
evaluation, then one self-play iteration of SELFPLAY games at WALKS walks a move. The
positions handed to the first learning step are hashed (each array, `hash` over all, `moves`
over the actions, games and seats: what was played), that step is run (its loss and
agreement reported, as train.csv logs them) and the run is stopped. `warm` is the
warm-started network's fingerprint (probe.py's). DRIFT_TORCH_THREADS=N makes torch use N
threads whatever the trainer asks for.

    PYTHONPATH=CHECKOUT python self_play_probe.py [GAMES [SELFPLAY [WALKS [EPOCHS [config]]]]]

Defaults 100 4 128 1 az_net_2p (about 10 s once numba's cache is warm); the shipped recipe's
first iteration is `5000 64 768 6` (about 7 minutes of one core).
"""

import contextlib
import hashlib
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import torch
from fingerprints import h, hnet

games = int(sys.argv[1]) if len(sys.argv) > 1 else 100
selfplay = int(sys.argv[2]) if len(sys.argv) > 2 else 4
walks = int(sys.argv[3]) if len(sys.argv) > 3 else 128
epochs = int(sys.argv[4]) if len(sys.argv) > 4 else 1
name = sys.argv[5] if len(sys.argv) > 5 else "az_net_2p"
FIELDS = ("obs", "mask", "action", "game", "seat", "reward", "margin", "feats", "target",
          "offsets")  # fmt: skip


threads = os.environ.get("DRIFT_TORCH_THREADS")
if threads:  # torch's count whatever the trainer asks (before 5 December numba's pool reset it)
    set_threads = torch.set_num_threads
    torch.set_num_threads = lambda n: set_threads(int(threads))

try:
    from agents.training import expert as ex  # 2026-12-04 on

    new = True
except ImportError:
    from agents import expert as ex

    new = False


class Stop(Exception):
    """Raised by the patched `learn` once the first iteration's positions are hashed."""


report: dict = {}


def learn(net, opt, pool, *args, **kw):
    report["warm"] = hnet(net)
    report["torch_threads"] = torch.get_num_threads()
    loss, agreement = first_learn(net, opt, pool, *args, **kw)
    report["loss"], report["agreement"] = round(loss, 4), round(agreement, 4)
    fields = {f: h(getattr(pool, f)) for f in FIELDS if hasattr(pool, f)}
    report["positions"] = len(pool)
    report["fields"] = fields
    report["first_actions"] = [int(x) for x in pool.action[:24]]
    # the moves: which games, whose turn, what was played (not how positions are encoded)
    moves = "".join(fields[f] for f in ("action", "game", "seat"))
    report["moves"] = hashlib.sha256(moves.encode()).hexdigest()[:12]
    report["hash"] = hashlib.sha256("".join(fields.values()).encode()).hexdigest()[:12]
    raise Stop


first_learn, ex.learn = ex.learn, learn
ex.save_network = lambda *args, **kw: None  # nothing written but the run's logs


def load(search_key: str, device: bool):
    over = {
        "run": {"iterations": 1, "threads": 1},
        "bc": {"games": games, "epochs": epochs},
        "search": {search_key: walks},
        "selfplay": {"games": selfplay},
        "eval": {"games": 2},
    }
    if new:
        from agents.training.schemas import EXPERT

        if device:  # [run] device from 2026-12-04 23:42 on
            over["run"]["device"] = "cpu"
        return EXPERT.load(name, over)
    over["eval"]["games"] = 1  # old: [eval] games counted deals (each played in both seats)
    return ex.load_config(name, over)


config = None
# the walks a move were [search] iterations before the rename
for key, device in (("walks", True), ("walks", False), ("iterations", True), ("iterations", False)):
    try:
        config = load(key, device)
        break
    except ValueError as error:  # an unknown key is refused (a UsageError is a ValueError)
        report.setdefault("refused", []).append(f"{key}, device {device}: {error}")
assert config is not None, report
report.pop("refused", None)
start = time.perf_counter()
with tempfile.TemporaryDirectory() as out, contextlib.suppress(Stop):
    ex.train(config, Path(out))
report["seconds"] = round(time.perf_counter() - start, 1)
print("DRIFT " + json.dumps(report))
