"""A tournament's report: the tables printed, the files written with `--out` (summary,
per-agent and per-game CSVs) and the win-rate heatmap; apart from the play and the
statistics (`mortyenv.arena.tournament`), which the trainers and the benchmark import
without them."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import numpy as np

from mortyenv.arena.tournament import SCORE_PARTS, Results
from mortyenv.stats import per_move


def print_report(summary: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    if not console.is_terminal:
        console = Console(width=180)  # a log file: do not squeeze the columns
    per_agent = Table(
        title=f"{summary['deals']} deals, {summary['games']} games, {summary['players']} "
        f"players, {summary['games_per_second']:.1f} games/s; 95 % intervals clustered by "
        f"deal; Elo relative to {summary['rating_anchor']} = 0"
    )
    columns = ("agent", "deals", "games", "seats", "win rate [95% CI]", "score [95% CI]")
    for column in (*columns, *SCORE_PARTS, "Elo [95% CI]", "s/move"):
        per_agent.add_column(column, justify="left" if column == "agent" else "right")
    for name, a in summary["agents"].items():
        per_agent.add_row(
            name,
            str(a["deals"]),
            str(a["games"]),
            str(a["seats"]),
            f"{a['win_rate']:.1%} [{a['win_ci_low']:.1%}, {a['win_ci_high']:.1%}]",
            f"{a['mean_score']:.1f} [{a['score_ci_low']:.1f}, {a['score_ci_high']:.1f}]",
            *(f"{a['breakdown'][p]:.1f}" for p in SCORE_PARTS),
            f"{a['rating']:.0f} [{a['rating_ci_low']:.0f}, {a['rating_ci_high']:.0f}]",
            per_move(a["seconds_per_move"]),
        )
    console.print(per_agent)
    names = list(summary["agents"])
    matrix = Table(title="row agent vs column agent: row's win rate [95% CI] (games/deals)")
    matrix.add_column("")
    for name in names:
        matrix.add_column(name, justify="right")
    for a in names:
        cells = []
        for b in names:
            cell = summary["pairwise"].get(a, {}).get(b)
            cells.append(
                "-"
                if cell is None
                else f"{cell['win_rate']:.1%} [{cell['ci_low']:.0%}, {cell['ci_high']:.0%}]"
                f" ({cell['games']}/{cell['deals']})"
            )
        matrix.add_row(a, *cells)
    console.print(matrix)


def write_files(summary: dict[str, Any], results: Results, out: Path) -> list[Path]:
    """summary.json, agents.csv, pairwise.csv, games.csv and winrate.png in `out`."""
    out.mkdir(parents=True, exist_ok=True)
    written = [out / "summary.json", out / "agents.csv", out / "pairwise.csv", out / "games.csv"]
    written[0].write_text(json.dumps(summary, indent=2) + "\n")
    with written[1].open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(
            [
                "agent",
                "deals",
                "games",
                "seats",
                "win_rate",
                "win_ci_low",
                "win_ci_high",
                "mean_score",
                "score_ci_low",
                "score_ci_high",
                *SCORE_PARTS,
                "rating",
                "rating_ci_low",
                "rating_ci_high",
                "seconds_per_move",
            ]
        )
        for name, a in summary["agents"].items():
            w.writerow(
                [
                    name,
                    a["deals"],
                    a["games"],
                    a["seats"],
                    a["win_rate"],
                    a["win_ci_low"],
                    a["win_ci_high"],
                    a["mean_score"],
                    a["score_ci_low"],
                    a["score_ci_high"],
                    *(a["breakdown"][p] for p in SCORE_PARTS),
                    a["rating"],
                    a["rating_ci_low"],
                    a["rating_ci_high"],
                    a["seconds_per_move"],
                ]
            )
    with written[2].open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["agent", "opponent", "win_rate", "ci_low", "ci_high", "games", "deals"])
        for a, row in summary["pairwise"].items():
            for b, cell in row.items():
                w.writerow(
                    [a, b, *(cell[k] for k in ("win_rate", "ci_low", "ci_high", "games", "deals"))]
                )
    with written[3].open("w", newline="") as f:
        w = csv.writer(f)
        players = results.seats.shape[1]
        w.writerow(
            ["game", "deal"]
            + [
                f"seat{p}_{what}"
                for p in range(players)
                for what in ("agent", "total", "tiebreak", "won")
            ]
        )
        for g in range(results.num_games):
            row: list[Any] = [g, int(results.deal[g])]
            for p in range(players):
                row += [
                    results.names[results.seats[g, p]],
                    int(results.scores["total"][g, p]),
                    int(results.scores["tiebreak"][g, p]),
                    int(results.winners[g, p]),
                ]
            w.writerow(row)
    written.append(plot_winrates(summary, out / "winrate.png"))
    return written


def plot_winrates(summary: dict[str, Any], path: Path) -> Path:
    """Heatmap of the pairwise win-rate matrix (row agent's share against column agent).

    Drawn on a bare `Figure` (no pyplot), so it leaves the caller's plotting backend alone:
    a notebook that writes the files goes on showing its own figures inline."""
    from matplotlib.figure import Figure

    names = list(summary["agents"])
    k = len(names)
    grid = np.full((k, k), np.nan)
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            cell = summary["pairwise"].get(a, {}).get(b)
            if cell is not None:
                grid[i, j] = cell["win_rate"]
    fig = Figure(figsize=(1.6 + 1.1 * k, 1.2 + 1.0 * k))
    ax = fig.subplots()
    image = ax.imshow(grid, vmin=0, vmax=1, cmap="RdBu")
    ax.set_xticks(range(k), names, rotation=30, ha="right")
    ax.set_yticks(range(k), names)
    ax.set_xlabel("opponent")
    ax.set_ylabel("agent")
    for i in range(k):
        for j in range(k):
            if not np.isnan(grid[i, j]):
                colour = "white" if abs(grid[i, j] - 0.5) > 0.3 else "black"
                ax.text(j, i, f"{grid[i, j]:.0%}", ha="center", va="center", color=colour)
    fig.colorbar(image, ax=ax, label="win rate")
    ax.set_title(
        f"win rate, {summary['players']} players, {summary['deals']} deals, "
        f"{summary['games']} games"
    )
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    return path
