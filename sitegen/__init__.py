"""sitegen: a static-site report generator for LLM inference benchmark results.

The pipeline has two verbs that meet at a versioned data file:

``sitegen collect``  content/ and remote sources → parse → adapt → redact → validate
                     → ``.sitegen/collected.json``
``sitegen build``    ``.sitegen/collected.json`` → plan pages → charts → render → ``_site/``
"""

__version__ = "0.1.0"
