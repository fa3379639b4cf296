"""Tools for testing plugins: the conformance checks (also for third parties)."""
