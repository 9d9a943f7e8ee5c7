"""Play the ladder tournament and fit the ladder (`mortyenv/arena/ladder.py`).

The tournament is played in blocks of deals, one file each in `--out`; a block's games
depend only on the ladder's seed, its table and its deals, so the blocks can be played in
chunks (`--minutes`: stop after the block that passes it; run again to go on) and in any
order, and give the same games. Once every block is there, `--fit` writes the ladder:

    python experiments/tools/build_ladder.py --players 2 --out runs/ladder --minutes 14   # repeat
    python experiments/tools/build_ladder.py --players 2 --out runs/ladder --fit --version 1

With NUMBA_NUM_THREADS=1 each chunk uses one core (the measured time per move of each
anchor, which the benchmark uses to tell cheap anchors from dear ones, is one core's).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from mortyenv.arena import ladder


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, required=True, choices=sorted(ladder.SCHEDULES))
    parser.add_argument("--out", type=Path, default=Path("runs/ladder"), help="block files")
    parser.add_argument("--minutes", type=float, default=None, help="stop after this long")
    parser.add_argument("--fit", action="store_true", help="fit and write the ladder")
    parser.add_argument("--version", type=int, default=1, help="the ladder version to write")
    parser.add_argument(
        "--write", type=Path, default=None, help="the ladder file (default: the package's)"
    )
    args = parser.parse_args(argv)
    if not args.fit:
        played, left = ladder.build(args.players, args.out, args.minutes)
        print(f"{args.players} players: {played} blocks played, {left} to go")
        return 0
    files = [
        ladder.block_file(args.out, args.players, alone, copied, lo)
        for alone, copied, lo, _ in ladder.blocks(args.players)
    ]
    missing = [f.name for f in files if not f.exists()]
    if missing:
        print(f"{len(missing)} blocks still to play, e.g. {missing[0]}", file=sys.stderr)
        return 1
    command = (
        f"python experiments/tools/build_ladder.py --players {args.players} --out {args.out} "
        f"--minutes 14  (until no block is left), then --fit --version {args.version}"
    )
    data = ladder.fit(args.players, [ladder.Block.load(f) for f in files], args.version, command)
    path = args.write or ladder.path_of(args.players, args.version)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1) + "\n")
    for anchor in data["anchors"]:
        print(
            f"{anchor['name']:12} {anchor['rating']:7.1f} [{anchor['ci_low']:7.1f}, "
            f"{anchor['ci_high']:7.1f}]  {anchor['deals']} deals, {anchor['games']} games"
        )
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
