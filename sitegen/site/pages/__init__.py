"""Page builders: one module per kind of page; no page builder imports another."""
