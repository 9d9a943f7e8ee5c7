"""The trainers behind `morty train` (`ppo`), `morty train-rllib` (`rllib`) and `morty
train-az-net` (`expert`), the parts they share (`scaffold`: command line, run folder,
evaluation, curve, shipping; `schemas`: every config key typed and documented, with
`agents.settings`; `selfplay` and `imitation`: games that make training data and learning
from them), and the shipped configs (`configs/`). This package imports nothing: each
trainer needs its extra."""
