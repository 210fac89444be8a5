"""Staging the site beside the output folder and swapping it in at once."""
