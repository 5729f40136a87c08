"""The scoring pipeline: jobs planned into chunks, chunks sent to Celery's queues, values stored.

Owns planning (which values are missing or stale) and scoring a chunk (scoring), handing chunks to
the broker (dispatch), the sweeper that sends again what a dead worker held (sweeper), worker
heartbeats and the pool watchdog (workers), deleting runs in the background (deletion) and the
prompt property's preview (previews).

May import: properties.quality, properties.projects, properties.models, properties.scorers. The
one cycle of the app is here: dispatch and previews send the tasks of properties.tasks, which call
back into this package (named in the import-linter contract in pyproject.toml).
"""
