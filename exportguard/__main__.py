"""python -m exportguard: the same command line as `exportguard`."""
from .cli import main

main()
