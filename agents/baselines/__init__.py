"""Hand-written players: `greedy` and `heuristic`, and the batched one-move lookahead they
share (`lookahead`), with the shelf reading a player does by eye (`shelf`). NumPy only."""
