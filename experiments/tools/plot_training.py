"""Learning curve of a `morty train` run, drawn from its logs (eval.csv, progress.csv).

    python experiments/tools/plot_training.py runs/ppo_2p --out docs/images/ppo_2p_curve.png
    python experiments/tools/plot_training.py runs/ppo_2p runs/ppo_2p_more --out c.png  # + --resume

Top: the learner's win rate against each baseline with its 95 % interval, by training
step. Bottom: the mean episode reward the learner got in training (against the pool).
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt


def read_csv(path: Path) -> list[dict[str, str]]:
    if not path.is_file():
        raise ValueError(f"{path}: not found (is this a `morty train` run folder?)")
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


def plot(runs: list[Path], out: Path, title: str | None = None) -> Path:
    """One curve through `runs` in order (a run and its `--resume` continuations)."""
    evals = [row for run in runs for row in read_csv(run / "eval.csv")]
    progress = [row for run in runs for row in read_csv(run / "progress.csv")]
    fig, (top, bottom) = plt.subplots(
        2, 1, figsize=(7, 6), sharex=True, gridspec_kw={"height_ratios": [2, 1]}
    )
    for name in sorted({row["opponent"] for row in evals}):
        rows = [r for r in evals if r["opponent"] == name]
        steps = [int(r["timesteps"]) for r in rows]
        rate = [float(r["win_rate"]) for r in rows]
        low = [float(r["ci_low"]) for r in rows]
        high = [float(r["ci_high"]) for r in rows]
        top.plot(steps, rate, marker="o", label=f"vs {name}")
        top.fill_between(steps, low, high, alpha=0.2)
    top.axhline(0.5, color="grey", linewidth=0.8, linestyle="--")
    top.set_ylabel("win rate (draws half)")
    top.set_ylim(0, 1)
    top.legend(loc="lower right")
    top.grid(alpha=0.3)
    top.set_title(title or f"{runs[0].name}: win rate of the deterministic policy (95 % CI)")
    points = [
        (int(r["time/total_timesteps"]), float(r["rollout/ep_rew_mean"]))
        for r in progress
        if r.get("rollout/ep_rew_mean") and r.get("time/total_timesteps")
    ]
    if points:
        bottom.plot(*zip(*points, strict=True), color="tab:purple")
    bottom.set_ylabel("training reward\n(mean per game)")
    bottom.set_xlabel("environment steps (learner decisions)")
    bottom.grid(alpha=0.3)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=100)
    plt.close(fig)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "runs", type=Path, nargs="+", help="run folders (eval.csv, progress.csv), in order"
    )
    parser.add_argument("--out", type=Path, default=None, help="PNG path (default: run/curve.png)")
    parser.add_argument("--title", default=None)
    args = parser.parse_args(argv)
    try:
        path = plot(args.runs, args.out or args.runs[-1] / "curve.png", args.title)
    except ValueError as err:
        raise SystemExit(str(err)) from err
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
