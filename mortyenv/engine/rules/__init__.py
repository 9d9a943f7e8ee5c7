"""The rules of ONE game as compiled functions, in the game's words (RULES.md).

Each module is a rule or a few: `shelf` (the small questions every rule asks of a shelf),
`legal` (where a tile may go), `place` (a placement and what it sets off), `badges`,
`round` (whose turn, the refill, the end), `play` (one move), `deal` (the start of a game),
`scoring` and `observe` (the observation from a seat). They read the ruleset as numbers
(`engine.tables`) and every badge and scoring-roll kind from `mortyenv.kinds`, declared
once. Nothing here loops over a batch, starts a thread or caches an entry point: that is
`engine.runtime`; the per-action features built on these rules are `engine.features`.
"""
