"""Cutoff's pure-Python reference engine: game trees, adversarial searches and their answers.

The engine imports nothing outside the standard library. ``python -m engine --help`` lists the
command-line entry points; :func:`engine.solve.solve` answers a ``gametree/1`` problem.
"""

ENGINE_VERSION = "1.0.0"
"""The version reported in every answer; bump it whenever an answer could change."""
