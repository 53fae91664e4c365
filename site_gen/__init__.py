"""sitegen: static report sites for LLM inference-engine benchmarks."""

__version__ = "0.1.0"
