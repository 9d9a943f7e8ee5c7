"""What runs the rules of one game (`engine.rules`) over a batch.

`batched` (serial or threaded, and how a compiled entry is called), `handle` (a few games
as one pointer), `step` (check and play), `legal` (the stored legal actions and the mask
writer), `pick` (random picks), `autoplay` (random opponents), `draw` (a random deal's
draws, shared with `Setup.random`), `deal` (dealing games into a batch),
`scoring`, `observe`, `features`, `snapshot` (to and from `Game`).
"""
