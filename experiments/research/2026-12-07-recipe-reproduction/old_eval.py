"""Evaluate a saved warm-start state dict (probe.py's state_iter_0.pt) at today's code with
the evaluation of 71f7979 (agents/expert.py: paired_match, copied verbatim: deals
engine.reset(batch_size=deals, seed=seed), HeuristicAgent(seed=run.seed + 1)) and with
today's scaffold.Evaluation.

    python old_eval.py STATE.pt [deals]
"""

import sys

import numpy as np
import torch

from agents.baselines.heuristic import HeuristicAgent
from agents.learned.az_net import AZNetAgent
from agents.nets.actionnet import build_network, network_metadata
from agents.nets.evaluator import Evaluator
from agents.training import scaffold
from mortyenv.engine import BatchEngine
from mortyenv.rules import Ruleset


def paired_match(engine, agent, rival, deals: int, seed: int) -> float:
    players = engine.num_players
    share = 0.0
    for seat in range(players):
        state = engine.reset(batch_size=deals, seed=seed)
        while not state.over.all():
            actions = np.zeros(deals, dtype=np.int64)
            to_act = engine.current_player(state)
            for who, games in ((agent, ~state.over & (to_act == seat)),
                               (rival, ~state.over & (to_act != seat))):  # fmt: skip
                games = np.flatnonzero(games)
                if len(games):
                    mask = engine.legal_action_mask(state, games)
                    actions[games] = who.act_batch(engine, state, games, mask)
            engine.step(state, actions)
        won = engine.winners(state)
        share += float((won[:, seat] / won.sum(axis=1)).sum())
    return share


torch.set_num_threads(1)
deals = int(sys.argv[2]) if len(sys.argv) > 2 else 100
rules = Ruleset.default()
engine = BatchEngine(rules, 2)
metadata = network_metadata(rules, 2, [256, 128], [256, 128])
net = build_network(metadata)
net.load_state_dict(torch.load(sys.argv[1]))
net.eval()
agent = AZNetAgent(Evaluator(net, metadata), seed=0)
wins = paired_match(engine, agent, HeuristicAgent(seed=1), deals, 20_000)
print(
    f"OLD-EVAL (71f7979 paired_match, engine.reset deals, heuristic seed 1): "
    f"{wins / (2 * deals):.4f} over {2 * deals} games"
)
agent = AZNetAgent(Evaluator(net, metadata), seed=0)
new = scaffold.Evaluation(engine, ["heuristic"], 2 * deals, 20_000)(agent)
print(f"NEW-EVAL (scaffold.Evaluation, tournament deals): {new}")
