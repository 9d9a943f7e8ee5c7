"""What a learner reads of one game, compiled: the observation from a seat (`observe`)
and the facts about each legal action (`features`). Encodings, not rules: they read one
game (`engine.game.GameView`) as the rules do, and the runtime runs them over a batch
(`runtime.observe`, `runtime.features`)."""
