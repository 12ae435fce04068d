"""Helpers for scripts/make-pack (talking-clock sound pack generator)."""
