"""The contributor commands: ``check``, ``summary``, ``serve`` and ``new``, one module each.

Each module exposes plain functions that return values; ``sitegen/cli.py`` parses the
arguments, calls them and prints. (``collect``, ``build`` and ``import`` are the pipeline
stages themselves and live in ``sitegen/collect/`` and ``sitegen/site/``.)
"""
