"""The numbers of `morty tune`: a deal's value, the confirmation's numbers, the results record.

A deal's value is what the study maximises: the tuned agent's share of its comparisons with
the opponents' seats on that deal (1 above, a draw half, over every seating; the mean over
the opponents), plus `margin_weight` times its score margin over them in star points. The
default weight, 0.01, makes a 10-point margin worth a tenth of a win: a tie-breaker between
equal shares that also lowers the noise of a comparison, while the win share still rules.

The record (JSON, `format` "mortyenv-tune", `format_version` 1) holds the study (its
storage, trials, best trial), the tuned spec, the deals' seeds and hashes, and every game of
the confirmation on held-out deals (one row each: deal, the agent of each seat, each seat's
total, tiebreak and score parts, a hash of the game's actions). Every confirmation number is
computed from those rows by `numbers`, and `check` computes them again, so a number that no
longer matches its games is found.
"""

from __future__ import annotations

import csv
import itertools
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from mortyenv.arena.results import actions_hash
from mortyenv.arena.tournament import SCORE_PARTS, Results, pair_outcomes
from mortyenv.stats import clustered_rate, mean_ci, sign_test

if TYPE_CHECKING:
    import optuna

FORMAT = "mortyenv-tune"
FORMAT_VERSION = 1
MARGIN_WEIGHT = 0.01  # a point of score margin weighs a hundredth of a win (module doc)
COLUMNS = ["deal", "seats", "totals", "tiebreaks", "parts", "actions"]


def seatings(pairs: Sequence[tuple[int, int]], players: int) -> list[tuple[int, ...]]:
    """Every seating of each pair (a, b): a in one seat, b in all the others, a in each seat
    in turn (2 players: ab and ba)."""
    found: list[tuple[int, ...]] = []
    for a, b in pairs:
        found += sorted(set(itertools.permutations((a,) + (b,) * (players - 1))))
    return found


def deal_values(
    results: Results, agent: int, opponents: Sequence[int], margin_weight: float
) -> dict[int, float]:
    """Per deal, `agent`'s value against `opponents` (module doc), over the games where it
    met each of them."""
    deals, inverse = np.unique(results.deal, return_inverse=True)
    value = np.zeros(len(deals))
    for j in opponents:
        met, outcome = pair_outcomes(results, agent, j)
        margin = seat_totals(results, agent) - seat_totals(results, j)
        games = np.bincount(inverse[met], minlength=len(deals))
        sums = np.bincount(
            inverse[met], weights=(outcome + margin_weight * margin)[met], minlength=len(deals)
        )
        value += sums / np.maximum(games, 1)
    value /= len(opponents)
    return {int(d): float(v) for d, v in zip(deals, value, strict=True)}


def seat_totals(results: Results, agent: int) -> np.ndarray:
    """Per game, `agent`'s mean total over its seats (0 where it did not sit)."""
    at = results.seats == agent
    return (results.scores["total"] * at).sum(axis=1) / at.sum(axis=1).clip(1)


# ---------------------------------------------------------------- the confirmation's games
def rows_of(results: Results) -> list[list[Any]]:
    """One row per game (COLUMNS): what the confirmation's numbers are computed from."""
    parts = np.stack([results.scores[p] for p in SCORE_PARTS], axis=2)  # (G, P, parts)
    return [
        [
            int(results.deal[g]),
            [int(a) for a in results.seats[g]],
            [int(t) for t in results.scores["total"][g]],
            [int(t) for t in results.scores["tiebreak"][g]],
            parts[g].astype(int).tolist(),
            actions_hash(results.game_actions(g)),
        ]
        for g in range(results.num_games)
    ]


def results_of(names: list[str], rows: Sequence[Sequence[Any]]) -> Results:
    """The games of `rows` as tournament results (scores, seats, deals, winners)."""
    deal = np.array([r[0] for r in rows], dtype=np.int64)
    seats = np.array([r[1] for r in rows], dtype=np.int64)
    parts = np.array([r[4] for r in rows], dtype=np.int64)
    scores = {
        "total": np.array([r[2] for r in rows], dtype=np.int64),
        "tiebreak": np.array([r[3] for r in rows], dtype=np.int64),
    } | {part: parts[:, :, i] for i, part in enumerate(SCORE_PARTS)}
    key = scores["total"] * (int(scores["tiebreak"].max(initial=0)) + 1) + scores["tiebreak"]
    return Results(list(names), seats, deal, scores, key == key.max(axis=1, keepdims=True))


def numbers(
    names: list[str],
    rows: Sequence[Sequence[Any]],
    tuned: str,
    start: str | None,
    opponents: Sequence[str],
    margin_weight: float,
) -> dict[str, Any]:
    """The confirmation's numbers from its games (`names`: the agent of each index): the
    tuned agent and the starting one (None when the study kept the start) each against
    each opponent and the tuned against the start (win rate with its 95 % interval
    clustered by deal, score margin); each one's objective on these deals and the paired
    difference (per deal, tuned minus start: mean with its 95 % interval, the sign test);
    each one's mean score parts."""
    results = results_of(names, rows)
    contenders = [tuned] + ([start] if start is not None and start != tuned else [])
    matches = [(c, o) for c in contenders for o in opponents if c != o] + [tuple(contenders)]
    pairs = {
        f"{a} vs {b}": pair(results, names.index(a), names.index(b))
        for a, b in (m for m in matches if len(m) == 2)
    }
    against = [names.index(o) for o in opponents]
    values = [deal_values(results, names.index(c), against, margin_weight) for c in contenders]
    objective: dict[str, Any] = {"tuned": float(np.mean(list(values[0].values())))}
    if len(values) == 2:
        shared = sorted(values[0].keys() & values[1].keys())
        differences = np.array([values[0][d] - values[1][d] for d in shared])
        mean, low, high = mean_ci(differences)
        better, worse = int((differences > 1e-12).sum()), int((differences < -1e-12).sum())
        objective |= {
            "start": float(np.mean(list(values[1].values()))),
            "difference": mean,
            "ci_low": low,
            "ci_high": high,
            "deals": len(shared),
            "tuned_better": better,
            "start_better": worse,
            "p_value": sign_test(better, worse),
        }
    parts = {
        c: {
            p: float(results.scores[p][results.seats == names.index(c)].mean()) for p in SCORE_PARTS
        }
        for c in contenders
    }
    return {"pairs": pairs, "objective": objective, "parts": parts}


def pair(results: Results, a: int, b: int) -> dict[str, Any]:
    """Agent a against agent b over the games where both sat: a's win rate (a draw half)
    with its 95 % interval clustered by deal, its mean score margin, the games and deals."""
    met, outcome = pair_outcomes(results, a, b)
    rate, low, high, _ = clustered_rate(outcome[met], results.deal[met])
    margin = (seat_totals(results, a) - seat_totals(results, b))[met]
    return {
        "win_rate": rate,
        "ci_low": low,
        "ci_high": high,
        "margin": float(margin.mean()),
        "games": int(met.sum()),
        "deals": len(np.unique(results.deal[met])),
    }


# ---------------------------------------------------------------- the record
def check(data: dict[str, Any]) -> None:
    """A ValueError unless the record's confirmation numbers are those of its games."""
    if data.get("format") != FORMAT or data.get("format_version") != FORMAT_VERSION:
        raise ValueError(f"not a {FORMAT} record of version {FORMAT_VERSION}")
    confirmation = data["confirmation"]
    found = numbers(
        confirmation["agents"],
        confirmation["games"]["rows"],
        data["tuned"],
        data["start"],
        data["opponents"],
        data["objective"]["margin_weight"],
    )
    if not _close(found, confirmation["numbers"]):
        raise ValueError("the confirmation's numbers are not those of its games")


def _close(a: Any, b: Any) -> bool:
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    if isinstance(a, float) or isinstance(b, float):
        both_nan = math.isnan(a) and math.isnan(b)
        return both_nan or math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    return bool(a == b)


def dumps(data: dict[str, Any]) -> str:
    """The record's text: top-level fields and the confirmation's games one a line (readable
    in a diff, as the benchmark's results files)."""
    lines = []
    for key, value in data.items():
        text = json.dumps(value)
        if key == "confirmation":
            games = value["games"]
            rows = ",\n".join(f"   {json.dumps(r)}" for r in games["rows"])
            head = {k: v for k, v in value.items() if k != "games"}
            text = (
                f'{json.dumps(head)[:-1]}, "games": {{"columns": '
                f'{json.dumps(games["columns"])}, "rows": [\n{rows}\n ]}}}}'
            )
        lines.append(f" {json.dumps(key)}: {text}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def write(data: dict[str, Any], path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dumps(data))
    return path


def load(path: Path) -> dict[str, Any]:
    """A record, checked (`check`)."""
    data = json.loads(Path(path).read_text())
    check(data)
    return data


# ---------------------------------------------------------------- the trials
TRIAL_COLUMNS = ["number", "value", "deals", "pruned_after", "start"]


def trials_path(record: Path) -> Path:
    """Where the trials of the record `record` are written: beside it, STUDY.trials.csv."""
    return Path(record).with_suffix(".trials.csv")


def write_trials(study: optuna.Study, path: Path) -> Path:
    """The study's finished trials as CSV (TRIAL_COLUMNS, then each setting): a few
    kilobytes to keep beside the record when the study's storage is not kept, from which
    `study_of` rebuilds the study for Optuna's plots and importances."""
    trials = [t for t in study.trials if t.state.is_finished() and t.value is not None]
    names = list(dict.fromkeys(name for t in trials for name in t.params))
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(TRIAL_COLUMNS + names)
        for t in trials:
            attrs = t.user_attrs
            writer.writerow(
                [t.number, repr(t.value), attrs.get("deals", ""), attrs.get("pruned_after", "")]
                + [int(bool(attrs.get("start", False)))]
                + [repr(t.params[n]) if n in t.params else "" for n in names]
            )
    return path


def study_of(data: dict[str, Any], path: Path) -> optuna.Study:
    """The record `data`'s study, in memory, from its trials file `path` (`write_trials`):
    each trial's value, settings (in the record's space) and user attributes."""
    import optuna

    distributions: dict[str, optuna.distributions.BaseDistribution] = {
        d["name"]: optuna.distributions.IntDistribution(d["low"], d["high"], log=d["log"])
        if d["integer"]
        else optuna.distributions.FloatDistribution(d["low"], d["high"], log=d["log"])
        for d in data["space"]
    }
    study = optuna.create_study(direction="maximize", study_name=data["study"]["name"])
    with Path(path).open(newline="") as f:
        for row in csv.DictReader(f):
            params = {
                n: (int if isinstance(d, optuna.distributions.IntDistribution) else float)(row[n])
                for n, d in distributions.items()
                if row.get(n, "") != ""
            }
            attrs: dict[str, Any] = {"deals": int(row["deals"])} if row["deals"] else {}
            if row["pruned_after"]:
                attrs["pruned_after"] = int(row["pruned_after"])
            if row["start"] == "1":
                attrs["start"] = True
            study.add_trial(
                optuna.trial.create_trial(
                    params=params,
                    distributions={n: distributions[n] for n in params},
                    value=float(row["value"]),
                    user_attrs=attrs,
                )
            )
    return study
