"""The Ultimate Texas Hold'em rules engine, California player-dealer version.

Plain Python with no Django import: every rule of docs/game-rules.md lives here
and nowhere else. The command service (tables/services.py) loads a table's state, asks
the engine to apply one command, and persists what the engine reports.
"""
