"""Benchmarks: LoCoMo recall, latency, write gate, context compaction (see ``bench``)."""
