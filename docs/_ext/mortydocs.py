"""The documentation's generated parts, written from the code at every build.

- ``_generated/observation_layout.md``: the table of the observation's named views, from
  `mortyenv.envs.observation.observation_layout` (slices and shapes, for 2, 3 and 4
  players), the spaces' bounds and `VIEW_CONTENTS` (what each view holds). A view without
  a description, or a description of no view, fails the build.
- ``_generated/aec_card.md``: the PettingZoo environment card, the module docstring of
  `mortyenv.envs.aec` (Markdown, as PettingZoo's classic games write theirs).
- ``_generated/openspiel_card.md``: the OpenSpiel game's card, the module docstring of
  `mortyenv.openspiel` (Markdown too).
- ``_generated/config_<trainer>.md``: each trainer's config keys (default, allowed values,
  meaning), from its schema in `agents.training.schemas`.
- ``_generated/tune_records.md``: the `morty tune` results records in ``docs/data/tune/``,
  each checked against its games (`mortyenv.arena.tune_results.load`; a record whose
  numbers do not follow its games fails the build): the study and its confirmation;
  ``tune_records_search.md`` the same of ``docs/data/tune/search/`` (the searches' studies).
- ``_generated/openspiel_match.md``: the table of OpenSpiel's bots against ours, from the
  match's record ``docs/data/openspiel_match_2p.json`` (`mortyenv.arena.openspiel_match`),
  and the command that made it.
- ``_generated/settings_<agent>.md``: the settings a registered agent's spec takes (the
  search's, `agents.search.config.SearchConfig`, with `mcts`'s and `az`'s defaults; the
  heuristic's weights), from the keys the agents declare (`agents.registry`).

Pages pull them in with MyST's ``{include}``. A file is rewritten only when its text
changes, so Sphinx rebuilds the pages that include it exactly when the code changed.

The role ``{result}`NAME:FIELD@AGENT``` writes a number of a results file: a tournament's
record in ``docs/results/``, a benchmark's results file in ``docs/leaderboard/``, a ladder
(its anchors' ratings) or an evaluation log in ``agents/policies/`` (the shipped
networks') or ``docs/data/``
(`mortyenv.arena.quotes` says which numbers). A file that is missing or does not hold the
number fails the build, and a page is rebuilt when a file it quotes changes.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.errors import ExtensionError

PLAYERS = (2, 3, 4)


def observation_layout_table() -> str:
    from mortyenv.envs.observation import VIEW_CONTENTS, observation_encoder, observation_layout
    from mortyenv.rules import Ruleset

    rules = Ruleset.default()
    layouts = {p: observation_layout(p, rules) for p in PLAYERS}
    names = list(layouts[PLAYERS[0]])
    if set(names) != set(VIEW_CONTENTS):
        raise ExtensionError(
            "observation views and VIEW_CONTENTS differ: "
            f"undescribed {sorted(set(names) - set(VIEW_CONTENTS))}, "
            f"described but absent {sorted(set(VIEW_CONTENTS) - set(names))}"
        )
    encoders = {p: observation_encoder(rules, p) for p in PLAYERS}
    sizes = ", ".join(f"**{encoders[p].size}** ({p} players)" for p in PLAYERS)
    offsets = " | ".join(f"offset (P={p})" for p in PLAYERS)
    lines = [
        f"Size with the default ruleset: {sizes}.",
        "",
        f"| view | shape | {offsets} | bound | contents |",
        "|---|---|" + "---:|" * len(PLAYERS) + "---:|---|",
    ]
    for name in names:
        shapes = [layouts[p][name][1] for p in PLAYERS]
        # a dimension that is the player count for every player count is written P
        dims = [
            "P" if all(s[d] == p for s, p in zip(shapes, PLAYERS, strict=True)) else str(n)
            for d, n in enumerate(shapes[0])
        ]
        shape = "(" + ", ".join(dims) + ("," if len(dims) == 1 else "") + ")"
        starts = " | ".join(str(layouts[p][name][0].start) for p in PLAYERS)
        # a view's largest value (its Box bound); one per player count where they differ
        bounds = [f"{float(encoders[p].high[layouts[p][name][0]].max()):g}" for p in PLAYERS]
        bound = bounds[0] if len(set(bounds)) == 1 else " / ".join(bounds)
        lines.append(f"| `{name}` | {shape} | {starts} | {bound} | {VIEW_CONTENTS[name]} |")
    return "\n".join(lines) + "\n"


def action_features_table() -> str:
    from mortyenv.engine.learner.schema import ACTION_FEATURES, feature_layout
    from mortyenv.rules import Ruleset

    rules = Ruleset.default()
    layout = feature_layout(len(rules.lids), len(rules.ingredients), rules.rows, rules.cols)
    lines = [
        f"{layout.size} features an action with the default ruleset.",
        "",
        "| feature | columns | meaning |",
        "|---|---|---|",
    ]
    for name, sl in layout.columns.items():
        columns = str(sl.start) if sl.stop - sl.start == 1 else f"{sl.start}-{sl.stop - 1}"
        lines.append(f"| `{name}` | {columns} | {ACTION_FEATURES[name]} |")
    return "\n".join(lines) + "\n"


def config_table(command: str) -> tuple[str, str]:
    """(file name, Markdown table) of the config keys of the trainer behind `command`
    ("morty train", ...)."""
    from agents.training.schemas import SCHEMAS

    name = "config_" + command.removeprefix("morty ").replace("-", "_") + ".md"
    return name, SCHEMAS[command].markdown()


# Modules whose docstring is a Markdown card shown on a page, not reStructuredText.
CARDS = {
    "mortyenv.envs.aec": (
        "aec_card.md",
        "The PettingZoo AEC env; its card is on the environments page.",
    ),
    "mortyenv.openspiel": (
        "openspiel_card.md",
        "The OpenSpiel game; its card is on the OpenSpiel page.",
    ),
}


def module_card(module: str) -> str:
    """The card without its title; its ### sections sit under the including page's ##."""
    import importlib

    text = (importlib.import_module(module).__doc__ or "").strip()
    lines = [line for line in text.splitlines() if not line.startswith("# ")]
    return "\n".join(lines).strip() + "\n"


def tune_records(folder: Path) -> str:
    """Each tuning record: what was tuned, the study, the held-out numbers, the command."""
    from mortyenv.arena import tune_results

    lines = []
    for path in sorted(folder.glob("*.json")):
        try:
            data = tune_results.load(path)
        except (ValueError, KeyError) as err:
            raise ExtensionError(f"tuning record {path.name}: {err}") from None
        study, held_out = data["study"], data["deals"]["confirm"]
        numbers = data["confirmation"]["numbers"]
        opponents = ", ".join(f"`{o}`" for o in data["opponents"])
        resumed = study.get("resumed_after", 0)
        run = f"resumed after {resumed} trials, " if resumed else ""
        lines += [
            f"**`{data['tuned']}`** (tuned; `{path.name}`): `{data['agent']}` (start) tuned "
            f"against "
            f"{opponents}, {data['players']} players, {study['trials']} trials "
            f"({study['pruned']} pruned, {study['games']:,} games; the run that wrote the "
            f"record {run}{study['seconds'] / 60:.0f} minutes with the confirmation); on "
            f"{held_out['count']} held-out deals of seed {held_out['seed']}:",
            "",
            "| pair | win rate [95 % CI] | games (deals) | score margin |",
            "|---|---|---:|---:|",
        ]
        named = {data["tuned"]: "tuned"} | ({data["start"]: "start"} if data["start"] else {})
        for pair, cell in numbers["pairs"].items():
            a, b = (named.get(x, f"`{x}`") for x in pair.split(" vs "))
            lines.append(
                f"| {a} vs {b} | {cell['win_rate']:.1%} [{cell['ci_low']:.1%}, "
                f"{cell['ci_high']:.1%}] | {cell['games']} ({cell['deals']}) | "
                f"{cell['margin']:+.1f} |"
            )
        objective = numbers["objective"]
        if "difference" in objective:
            lines += [
                "",
                f"Objective: tuned {objective['tuned']:.3f}, start {objective['start']:.3f}; "
                f"paired difference {objective['difference']:+.3f} "
                f"[{objective['ci_low']:+.3f}, {objective['ci_high']:+.3f}] over "
                f"{objective['deals']} deals (better on {objective['tuned_better']}, worse on "
                f"{objective['start_better']}, sign test p = {objective['p_value']:.2g}).",
            ]
        lines += ["", "```bash", data["command"], "```", ""]
    return "\n".join(lines)


def openspiel_match(path: Path) -> str:
    """The table of OpenSpiel's bots against ours, from the match's record."""
    from mortyenv.arena import openspiel_match as match

    try:
        data = match.load(path)
    except ValueError as err:
        raise ExtensionError(str(err)) from None
    return match.table(data) + f"\n```bash\n{data['command']}\n```\n"


def write_if_changed(path: Path, text: str) -> None:
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def generate(app: Sphinx) -> None:
    out = Path(app.srcdir) / "_generated"
    out.mkdir(exist_ok=True)
    write_if_changed(out / "observation_layout.md", observation_layout_table())
    for module, (filename, _) in CARDS.items():
        write_if_changed(out / filename, module_card(module))
    write_if_changed(out / "action_features.md", action_features_table())
    tuned = Path(app.srcdir) / "data" / "tune"
    write_if_changed(out / "tune_records.md", tune_records(tuned))
    write_if_changed(out / "tune_records_search.md", tune_records(tuned / "search"))
    match = Path(app.srcdir) / "data" / "openspiel_match_2p.json"
    write_if_changed(out / "openspiel_match.md", openspiel_match(match))
    from agents.training.schemas import SCHEMAS

    for command in SCHEMAS:
        name, table = config_table(command)
        write_if_changed(out / name, table)
    for agent in SETTINGS_TABLES:
        write_if_changed(out / f"settings_{agent.replace('-', '_')}.md", settings_table_of(agent))


# The registered agents whose settings the docs show as a table (agents page)
SETTINGS_TABLES = ("mcts", "az", "heuristic")


def settings_table_of(agent: str) -> str:
    """The settings `agent`'s spec takes: default, allowed values, tuning range, meaning."""
    from agents import parameters
    from agents.settings import spell

    lines = ["| setting | default | allowed | tuned in | meaning |", "|---|---|---|---|---|"]
    for name, key in parameters(agent).items():
        tune = key.tune
        tuned = (
            ""
            if tune is None
            else f"{tune.low:g} to {tune.high:g}" + (" (log)" if tune.log else "")
        )
        lines.append(
            f"| `{name}` | `{spell(key.default)}` | {key.describe()} | {tuned} | {key.doc} |"
        )
    return "\n".join(lines) + "\n"


def adjust_docstring(app: Sphinx, what: str, name: str, obj: object, options, lines) -> None:
    """Docstrings that are not reStructuredText prose: the cards' modules (Markdown shown
    on their pages), and those Python generates for a dataclass (its signature again) or a
    named tuple's fields ("Alias for field number 3")."""
    first = lines[0] if lines else ""
    if what == "module" and name in CARDS:
        lines[:] = [CARDS[name][1]]
    elif what == "class" and dataclasses.is_dataclass(obj):
        if first.startswith(f"{getattr(obj, '__name__', '')}("):
            lines[:] = []
    elif what == "attribute" and re.fullmatch(r"Alias for field number \d+", first):
        lines[:] = []


def result_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    """``{result}`NAME:FIELD@AGENT```: the number, bold where the quote makes it so."""
    from mortyenv.arena import quotes

    folders = quotes.folders(Path(inliner.document.settings.env.srcdir).parent)
    try:
        markdown = quotes.quote(text, folders)
        path = quotes.find(text.partition(":")[0], folders)
    except ValueError as err:
        message = inliner.reporter.error(str(err), line=lineno)
        problem = inliner.problematic(rawtext, rawtext, message)
        return [problem], [message]
    inliner.document.settings.env.note_dependency(str(path))
    found: list[nodes.Node] = []
    for i, piece in enumerate(markdown.split("**")):  # **bold** plain **bold** ...
        if piece:
            found.append(nodes.strong(piece, piece) if i % 2 else nodes.Text(piece))
    return found, []


def setup(app: Sphinx) -> dict[str, object]:
    app.add_role("result", result_role)
    app.connect("builder-inited", generate)
    app.connect("autodoc-process-docstring", adjust_docstring)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
