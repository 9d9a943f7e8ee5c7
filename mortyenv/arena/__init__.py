"""Agents against agents: tournaments, their statistics and ratings, and the batches of games
they are played in (in this process or as Ray tasks).

`morty tournament` runs `mortyenv.arena.tournament`; nothing here is imported by the envs.
"""
