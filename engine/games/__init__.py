"""Real games the engine searches: tic-tac-toe, Connect Four, a dice game, a three-player game.

Each module defines a class implementing :class:`engine.game.Game` with immutable, hashable
states that include the player to move, plus the named evaluators and move orderings that the
exercises refer to. :mod:`engine.games.cli` exposes the searches on the command line.
"""
