"""The rules of ONE game as compiled functions, in the game's words (RULES.md).

Each module is a rule or a few: `shelf` (the small questions every rule asks of a shelf),
`legal` (where a tile may go), `place` (a placement and what it sets off), `badges`,
`round` (whose turn, the refill, the end), `play` (one move), `deal` (the start of a game)
and `scoring`; `kinds` holds the compiled predicate of every badge and scoring-roll kind
declared in `mortyenv.kinds`. A rule is given one game (`engine.game.GameView`: it reads
`game.kittens[player]`, never a batch index) and the small groups of the ruleset's tables
it reads (`mortyenv.tables`). Nothing here loops over a batch, starts a thread or keeps a
handle: that is `engine.runtime`.
"""
