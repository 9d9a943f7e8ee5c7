"""Run a trainer's warm start (iterations = 0) at whatever commit is on PYTHONPATH and print
fingerprints: the initial weights, the demonstration data (per field), the weights saved
after the warm start, and the evaluation.

    python probe.py OUT GAMES EPOCHS EVAL_GAMES [config-name]
"""

import hashlib
import json
import sys
import time
from pathlib import Path

import numpy as np
import torch
from fingerprints import h, hnet

out = Path(sys.argv[1])
games, epochs, eval_games = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
name = sys.argv[5] if len(sys.argv) > 5 else "az_net_2p"
iterations = int(sys.argv[6]) if len(sys.argv) > 6 else 0
report: dict = {}


try:
    from agents.training import expert as ex  # 2026-12-04 on

    new = True
except ImportError:
    from agents import expert as ex

    new = False

orig_play, orig_build, orig_save = ex.play_positions, ex.build_network, ex.save_network
calls = {"play": 0}


def play_positions(*args, **kw):
    data = orig_play(*args, **kw)
    if calls["play"] == 0:
        fields = {}
        for f in (
            "obs",
            "mask",
            "action",
            "game",
            "seat",
            "reward",
            "margin",
            "feats",
            "target",
            "offsets",
        ):
            fields[f] = h(getattr(data, f))
        report["data_n"] = len(data)
        report["data_rows"] = len(data.feats)
        report["data"] = fields
        report["data_all"] = hashlib.sha256("".join(fields.values()).encode()).hexdigest()[:12]
        # the first game's first positions, for a readable diff
        report["first_actions"] = [int(x) for x in data.action[:20]]
        np.savez_compressed(out / "data.npz", **{f: getattr(data, f) for f in fields})
    calls["play"] += 1
    return data


def build_network(*args, **kw):
    net = orig_build(*args, **kw)
    report["init"] = hnet(net)
    return net


def save_network(path, net, metadata):
    report.setdefault("saved", {})[Path(path).name] = hnet(net)
    torch.save(net.state_dict(), out / ("state_" + Path(path).stem + ".pt"))
    return orig_save(path, net, metadata)


ex.play_positions, ex.build_network, ex.save_network = play_positions, build_network, save_network
out.mkdir(parents=True, exist_ok=True)
over = {
    "run": {"iterations": iterations},
    "bc": {"games": games, "epochs": epochs},
    "eval": {"games": eval_games},
}
if new:
    from agents.training.schemas import EXPERT

    over["run"]["device"] = "cpu"
    config = EXPERT.load(name, over)
else:
    # old: [eval] games counted deals (each played in both seats)
    over["eval"]["games"] = eval_games // 2
    config = ex.load_config(name, over)
start = time.perf_counter()
ex.train(config, out)
report["seconds"] = round(time.perf_counter() - start, 1)
report["eval_csv"] = (out / "eval.csv").read_text().strip().splitlines()[1:]
for log in ("train.csv", "progress.csv"):
    if (out / log).exists():
        report[log] = (out / log).read_text().strip().splitlines()[1:]
report["versions"] = {"torch": torch.__version__, "numpy": np.__version__}
print("PROBE " + json.dumps(report))
(out / "probe.json").write_text(json.dumps(report, indent=1))
