"""Sections of a page that are not pages themselves (the run page's receipt, its load points)."""
