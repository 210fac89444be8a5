"""Charts, plots and bars: Vega-Lite specs, their SVG, and the HTML-only bar charts."""
