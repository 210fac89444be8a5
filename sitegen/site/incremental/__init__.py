"""Everything that lets a build skip work: kept fragments, the figure cache, the manifest
and the folder records."""
