"""Analysis -> HTML: number formats, chart specs, jinja2 pages. No figure is computed here."""
