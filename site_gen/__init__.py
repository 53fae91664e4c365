"""sitegen: static report sites for LLM inference-engine benchmarks."""

__version__ = "0.1.0"
# This project's name on the package index (the command stays `sitegen`, the package `site_gen`): the
# index's `sitegen` is another, unrelated project.
DISTRIBUTION = "sitegen-bench"
