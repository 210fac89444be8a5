"""``sitegen build``: from the collected file to the static site.

pages (pure planning) → charts (Altair → SVG) → render (Jinja2) → write (atomic swap).
"""
