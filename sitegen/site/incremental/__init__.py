"""Everything that lets a build skip work, reached through previous.Previous: kept fragments,
the figure cache, the manifest, the folder records and the spare."""
