"""Make the results the manual quotes, and write the README's blocks from them.

    python experiments/tools/make_results.py                  # each result: made or not, how
    python experiments/tools/make_results.py --missing        # make those not made, cheapest first
    python experiments/tools/make_results.py --only NAME ...  # (re)make these
    python experiments/tools/make_results.py --all            # remake all (hours of one core)
    python experiments/tools/make_results.py --check          # exit 1 if a number is stale

A result is one file, named for what it measures, made by one command (`RESULTS`, cheapest
first): a tournament's record in `docs/results/` (`morty tournament ... --record PATH`,
`mortyenv.arena.records`), or a benchmark's results file in `docs/leaderboard/agents/`
(`morty benchmark ... --out PATH`, then the leaderboard's tables are written again by
`make_leaderboard.py`). Each command runs in a process of its own, as written here, so a
record's `command` is what made it. Remaking a result that exists says whether the new
games are the old ones (the same command and seed give the same games while the agents
play as they did) or the first number that moved, with both values.

The pages quote the numbers with the role `{result}`NAME:FIELD@AGENT`
(`mortyenv.arena.quotes`; `docs/_ext/mortydocs.py` renders it); the README, which must read
on the repository too, carries its quotes written out, between the markers `<!-- results:NAME
... -->` and `<!-- /results:NAME -->`, from the templates `readme_blocks/NAME.md` beside
this script. `--check`, and
`tests/project/test_results.py`, fail when a record's numbers are not those of its games,
when a record is not the one its command here makes, or when a README block is stale.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

from mortyenv.arena import quotes, records
from mortyenv.arena import results as benchmark_files

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
RECORDS = ROOT / "docs" / "results"
BENCHMARKS = ROOT / "docs" / "leaderboard" / "agents"
# the results files: the tournaments' records, the benchmark's results files
FOLDERS = (RECORDS, BENCHMARKS, ROOT / "docs" / "leaderboard" / "learning")
QUOTED = tuple(quotes.folders(ROOT))  # where a quote looks: those, the ladders and the logs
README = ROOT / "README.md"
MARKED = re.compile(r"(<!-- results:(\w+)\b.*?-->\n)(.*?)(<!-- /results:\2 -->)", re.S)

_H3 = "heuristic,heuristic,heuristic"
# name -> the command that makes it (a `morty` command's arguments), cheapest first
RESULTS: dict[str, str] = {
    "greedy-vs-random-2p-seed0": "tournament --agents random,greedy --games 1000 --seed 0",
    "greedy-2p": "benchmark --agent greedy --players 2",
    "greedy-3p": "benchmark --agent greedy --players 3",
    "heuristic-vs-greedy-2p-seed0": "tournament --agents greedy,heuristic --games 1000 --seed 0",
    "random-greedy-heuristic-3p-seed0":
        "tournament --agents random,greedy,heuristic --players 3 --games 600 --seed 0",
    "random-greedy-heuristic-4p-seed0":
        "tournament --agents random,greedy,heuristic --players 4 --games 360 --seed 0",
    "az-net-vs-heuristic-2p-seed0": "tournament --agents heuristic,az-net --games 400 --seed 0",
    "az-net-vs-heuristic-2p-seed1": "tournament --agents heuristic,az-net --games 800 --seed 1",
    "az-net-vs-heuristic-2p-seed311": "tournament --agents heuristic,az-net --games 400 --seed 311",
    "az-net-vs-heuristic-2p-seed312": "tournament --agents heuristic,az-net --games 400 --seed 312",
    "ppo-vs-greedy-2p-seed125":
        "tournament --agents ppo,greedy --players 2 --games 400 --seed 125",
    "ppo-vs-heuristic-2p-seed121":
        "tournament --agents ppo,heuristic --players 2 --games 400 --seed 121",
    "ppo-vs-heuristic-2p-seed122":
        "tournament --agents ppo,heuristic --players 2 --games 400 --seed 122",
    "ppo-vs-heuristic-2p-seed123":
        "tournament --agents ppo,heuristic --players 2 --games 400 --seed 123",
    "ppo-vs-heuristic-2p-seed126":
        "tournament --agents ppo,heuristic --players 2 --games 2000 --seed 126",
    "az-net-vs-heuristic-3p-seed321":
        "tournament --agents az-net,heuristic,heuristic --players 3 --games 600 --seed 321",
    "az-net-vs-heuristic-3p-seed322":
        "tournament --agents az-net,heuristic,heuristic --players 3 --games 600 --seed 322",
    "az-net-vs-heuristic-4p-seed352":
        f"tournament --agents az-net,{_H3} --players 4 --games 800 --seed 352",
    "az-net-vs-heuristic-4p-seed353":
        f"tournament --agents az-net,{_H3} --players 4 --games 800 --seed 353",
    "ppo@1-vs-heuristic-2p-seed127":
        "tournament --agents ppo@1,heuristic --players 2 --games 1000 --seed 127",
    "ppo@1-vs-heuristic-2p-seed128":
        "tournament --agents ppo@1,heuristic --players 2 --games 1000 --seed 128",
    "ppo-vs-heuristic-4p-seed361":
        f"tournament --agents ppo,{_H3} --players 4 --games 800 --seed 361",
    "ppo@1-vs-heuristic-4p-seed361":
        f"tournament --agents ppo@1,{_H3} --players 4 --games 800 --seed 361",
    "ppo@1-vs-heuristic-4p-seed362":
        f"tournament --agents ppo@1,{_H3} --players 4 --games 800 --seed 362",
    "ppo-vs-heuristic-4p-seed362":
        f"tournament --agents ppo,{_H3} --players 4 --games 800 --seed 362",
    "ppo-vs-heuristic-4p-seed363":
        f"tournament --agents ppo,{_H3} --players 4 --games 800 --seed 363",
    "mcts-2p": "benchmark --agent mcts --players 2",
    "ppo-2p": "benchmark --agent ppo:agents/policies/ppo_2p.zip --players 2",
    "mcts-vs-heuristic-2p-seed0": "tournament --agents heuristic,mcts --games 1000 --seed 0",
    "oracle-vs-mcts-2p-seed0": "tournament --agents mcts,oracle --games 200 --seed 0",
    "mcts-1220-vs-heuristic-2p-seed0":
        "tournament --agents heuristic,mcts:walks=1220 --games 400 --seed 0",
    "mcts-vs-ppo-2p-seed106": "tournament --agents mcts,ppo --players 2 --games 400 --seed 106",
    "az-net-3p": "benchmark --agent az-net --players 3",
    "oracle-3p": "benchmark --agent oracle --players 3",
    "ppo-4p": "benchmark --agent ppo --players 4",
    "az-net-4p": "benchmark --agent az-net --players 4",
    "oracle-2p": "benchmark --agent oracle --players 2",
    "oracle-4p": "benchmark --agent oracle --players 4",
    "az-vs-heuristic-3p-seed341":
        "tournament --agents az,heuristic,heuristic --players 3 --games 600 --seed 341",
    "az-vs-heuristic-3p-seed342":
        "tournament --agents az,heuristic,heuristic --players 3 --games 600 --seed 342",
    "az-vs-heuristic-2p-seed315": "tournament --agents az,heuristic --games 400 --seed 315",
    "az-vs-heuristic-2p-seed317": "tournament --agents az,heuristic --games 400 --seed 317",
    "az@1-vs-heuristic-2p-seed315": "tournament --agents az@1,heuristic --games 400 --seed 315",
    "az-vs-mcts-2p-seed316": "tournament --agents az,mcts --games 400 --seed 316",
    "az-vs-mcts-2p-seed318": "tournament --agents az,mcts --games 400 --seed 318",
    "az-vs-heuristic-4p-seed333":
        f"tournament --agents az,{_H3} --players 4 --games 800 --seed 333",
    "az-vs-heuristic-4p-seed334":
        f"tournament --agents az,{_H3} --players 4 --games 800 --seed 334",
    "az-2p": "benchmark --agent az --players 2",
    "az-3p": "benchmark --agent az --players 3",
    "az-4p": "benchmark --agent az --players 4",
}  # fmt: skip

# The README's blocks: NAME -> Markdown whose `{result}` quotes are written out
BLOCKS = {path.stem: path.read_text() for path in (HERE / "readme_blocks").glob("*.md")}


def command(name: str) -> list[str]:
    """The command that makes result `name`, as a record keeps it."""
    args = shlex.split(RESULTS[name])
    if args[0] == "tournament":
        return ["morty", *args, "--no-progress", "--record", f"docs/results/{name}.json"]
    return ["morty", *args, "--no-progress", "--out", f"docs/leaderboard/agents/{name}.json"]


def path_of(name: str) -> Path:
    folder = RECORDS if RESULTS[name].startswith("tournament") else BENCHMARKS
    return folder / f"{name}.json"


# ---------------------------------------------------------------- making
def make(name: str) -> None:
    """Run result `name`'s command and say whether its games are those of the file before."""
    path = path_of(name)
    before = json.loads(path.read_text()) if path.exists() else None
    argv = command(name)
    print(f"{name}: {shlex.join(argv)}", flush=True)
    # a benchmark writes its times and conditions beside its results file (the pages quote
    # them); written in place, the file's `root` is right
    subprocess.run([sys.executable, "-m", "mortyenv.cli", *argv[1:]], cwd=ROOT, check=True)
    if before is not None:
        print(f"{name}: {compared(before, json.loads(path.read_text()))}", flush=True)


def compared(before: dict, after: dict) -> str:
    """Whether a result made again has the games and numbers it had."""
    if before["games"]["rows"] == after["games"]["rows"]:
        return "reproduced: the same games, so the same numbers"
    if "summary" in after:
        moved = benchmark_files.disagreement(before["summary"], after["summary"], "summary")
    else:
        moved = benchmark_files.disagreement(before["result"], after["result"], "result")
    moved = (moved or "no number moved").replace("its games give", "now")
    return f"NOT reproduced: other games; {moved}"


# ---------------------------------------------------------------- checking
def checked_record(name: str) -> dict:
    """Record `name`: valid, its numbers those of its games, made by its command here."""
    path = RECORDS / f"{name}.json"
    data = records.load(path)
    try:
        records.check_numbers(data)
    except ValueError as err:
        raise ValueError(f"{path.name}: {err}") from None
    if name not in RESULTS:
        raise ValueError(f"{path.name}: no command in make_results.RESULTS makes it")
    if data["command"] != command(name):
        raise ValueError(
            f"{path.name}: made by {shlex.join(data['command'])}, "
            f"but make_results.py makes it by {shlex.join(command(name))}"
        )
    return data


def filled(page: str) -> str:
    """`page` with every marked block written afresh from its template; a ValueError for a
    marker of no block, a block with no marker, or a quote its file does not answer."""
    names = [m[2] for m in MARKED.finditer(page)]
    if sorted(names) != sorted(BLOCKS):
        raise ValueError(f"the page marks blocks {names}; the blocks are {list(BLOCKS)}")

    def fill(match: re.Match[str]) -> str:
        text = quotes.quoted(BLOCKS[match[2]], QUOTED)
        return f"{match[1]}{text.strip()}\n\n{match[4]}"

    return MARKED.sub(fill, page)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    chosen = parser.add_mutually_exclusive_group()
    chosen.add_argument("--missing", action="store_true", help="make the results not made yet")
    chosen.add_argument("--only", nargs="+", metavar="NAME", help="(re)make these results")
    chosen.add_argument("--all", action="store_true", help="remake every result")
    chosen.add_argument("--check", action="store_true", help="exit 1 if a number is stale")
    args = parser.parse_args()
    if args.check:
        try:
            for path in sorted(RECORDS.glob("*.json")):
                checked_record(path.stem)
            fresh = filled(README.read_text())
        except ValueError as err:
            print(err, file=sys.stderr)
            return 1
        if fresh != README.read_text():
            print(f"{README}: stale blocks; run python experiments/tools/make_results.py")
            return 1
        print("the records' numbers are their games', and the README's blocks are current")
        return 0
    unknown = [name for name in args.only or () if name not in RESULTS]
    if unknown:
        parser.error(f"no result {', '.join(unknown)}; the results: {', '.join(RESULTS)}")
    if args.all:
        todo = list(RESULTS)
    elif args.missing:
        todo = [name for name in RESULTS if not path_of(name).exists()]
    else:
        todo = args.only or []
    if not todo and not (args.all or args.missing or args.only):
        for name in RESULTS:
            made = "made   " if path_of(name).exists() else "missing"
            print(f"{made} {name}: {shlex.join(command(name))}")
    for name in todo:
        make(name)
    if any(RESULTS[name].startswith("benchmark") for name in todo):
        subprocess.run([sys.executable, str(Path(__file__).with_name("make_leaderboard.py"))],
                       check=True)  # fmt: skip
    try:
        README.write_text(filled(README.read_text()))
    except ValueError as err:  # a block quotes a result not made yet: say so, change nothing
        print(f"README.md not written: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
