"""Layout: the frozen, format-neutral laid-out document (layout/document.py) that planners build
from a report and painters translate into library calls. It stands between the report and the
renderers: it imports the report, never a renderer or the checker."""
