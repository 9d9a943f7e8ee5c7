"""Two tournament records of one agent against the same opponents on the same deals, compared
deal by deal: the first record's first agent against the second record's.

    python paired_records.py TUNED.json SHIPPED.json

Each deal's value is the agent's mean win share over its games on that deal (a shared
victory counts 1/k); the difference is paired by deal, with a normal 95 % interval over the
deals and an exact sign test. The records must hold the same deals (their checksum).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from mortyenv.arena import records
from mortyenv.stats import mean_ci, sign_test


def win_share_by_deal(path: Path) -> tuple[str, dict[int, float], str]:
    """(the first agent's spec, its mean win share on each deal, the deals' checksum)."""
    data = records.load(path)
    results = records.results_of(data)
    mine = results.seats == 0  # (games, seats): where the first agent sat
    share = (results.winners & mine).sum(axis=1) / results.winners.sum(axis=1)
    by_deal = {int(d): float(share[results.deal == d].mean()) for d in np.unique(results.deal)}
    return results.names[0], by_deal, data["deals"]["sha256"]


def main(first: Path, second: Path) -> None:
    a, shares_a, deals_a = win_share_by_deal(first)
    b, shares_b, deals_b = win_share_by_deal(second)
    if deals_a != deals_b:
        raise SystemExit(f"{first} and {second} hold other deals: no pairing")
    deals = sorted(shares_a)
    diff = np.array([shares_a[d] - shares_b[d] for d in deals])
    mean, low, high = mean_ci(diff)
    better, worse = int((diff > 1e-9).sum()), int((diff < -1e-9).sum())
    rate_a, rate_b = np.mean(list(shares_a.values())), np.mean(list(shares_b.values()))
    print(f"{a}: {100 * rate_a:.1f} %   {b}: {100 * rate_b:.1f} %   ({len(deals)} deals)")
    print(
        f"paired difference {100 * mean:+.1f} points [{100 * low:+.1f}, {100 * high:+.1f}]; "
        f"better on {better} deals, worse on {worse}; sign test p = {sign_test(better, worse):.2g}"
    )


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
