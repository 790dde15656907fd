"""Isolation for model-written code: Docker first, bubblewrap where Docker is absent."""
