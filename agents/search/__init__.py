"""Agents that search before they move: `mcts` and `oracle` (determinized PUCT with batched
rollouts), the compiled rollout policy they play games out with (`rollout`), and `az` /
`az-net`, the same search guided by a trained network, and that network alone (`az`).
`az` needs torch and nothing else of the `train` extra."""
