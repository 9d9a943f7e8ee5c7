"""What runs the rules of one game (`engine.rules`) over a batch.

`batched` (a batch kernel's serial, threaded and handle variants, made from one loop),
`handle` (a few games as one pointer), `step` (check and play), `legal` (the stored legal
actions and the mask writer), `pick` (random picks), `autoplay` (random opponents),
`deal` (dealing games into a batch, from `mortyenv.draw`'s draws), `scoring`, `observe`
and `features` (the learner's encodings over a batch), `snapshot` (to and from `Game`).
"""
