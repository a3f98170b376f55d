"""exportguard: MLPerf Inference LLM figures that cannot leave the database without their conditions."""

__version__ = "0.1.0"
