"""The convex core of each paper, built as certiprog Models (formulations never import backends)."""
