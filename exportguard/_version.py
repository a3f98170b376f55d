"""The package's version, in one place: pyproject.toml reads it from here (setuptools' dynamic
version), so the installed metadata and ``exportguard.__version__`` cannot differ, and asking for the
version costs no metadata look-up (importlib.metadata took 50 ms of every `exportguard check`)."""
VERSION = "0.1.0"
