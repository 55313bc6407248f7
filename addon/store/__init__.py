"""The store: one SQLite file, its schema and its entry points, with a sub-package per concept.

At the top: the schema (``models.py``, ``column_types.py``; Alembic's ``migrations/``, run by
``migrate.py``), ``Store`` (``database.py``), retention (``retention.py``) and the app resources
(``lifecycle.py``). Below, one sub-package per concept, each with one public face, its ``__init__``:
``file`` (the database file's care), ``turns`` (the agent's turns and their writer), ``memories``,
``tools`` (custom tools, secrets, MCP servers), ``policy`` (the confirmation policy), ``evaluation``
(runs and saved tests) and ``queries`` (the UI's read models). Code outside a sub-package imports
its face; modules inside import their siblings directly.
"""
