"""Agents that are a trained policy played as it is: `ppo` (a MaskablePPO policy, needs the
`train` extra) and `rllib:PATH` (an RLlib module, needs the `rllib` extra)."""
