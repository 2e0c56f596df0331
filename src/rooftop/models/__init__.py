"""What is being served: ModelSpec from a local config.json or a shipped preset."""
