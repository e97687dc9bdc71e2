"""OpenEnv's package layout: ``server/app.py`` is the environment's entry point (see app.py)."""
