"""Model backends: llama.cpp in process, OpenAI-compatible HTTP, scripted replay."""
